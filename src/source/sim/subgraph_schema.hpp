// The schema of the simulated subgraph: its object types, the fields of each (scalar, object,
// nullable object or list, and the type a non-scalar field leads to), and validation of a selection
// set against it. Internal to the simulated subgraph (subgraph.hpp is the public face): the filter
// compiler and the executor use these tables; nothing else should.
//
// Thread safety: the tables are immutable statics, safe to read from any thread.
#pragma once

#include <string>
#include <vector>

#include "common/status.hpp"
#include "source/sim/graphql.hpp"

namespace predlake::sim::subgraph {

using graphql::Field;
using graphql::Value;

enum class Type {
  kQuery,
  kPrediction,
  kTrueval,
  kPayout,
  kSubscription,
  kSlot,
  kContract,
  kUser,
  kToken,
  kNft,
  kNftData,
  kMeta,
  kBlock,
};

// The GraphQL name of `t` ("PredictPrediction", "_Meta_", ...); never null.
const char* TypeName(Type t);

// Every field the schema knows, across types.
enum class F {
  kTypename,
  kId,
  kTimestamp,
  kUser,
  kStake,
  kPayout,
  kSlot,
  kBlock,
  kTxId,
  kTrueValue,
  kPredictedValue,
  kPrediction,
  kExpireTime,
  kEventIndex,
  kPredictContract,
  kStatus,
  kRevenue,
  kRoundSumStakesUp,
  kRoundSumStakes,
  kTrueValues,
  kSecondsPerEpoch,
  kTruevalSubmitTimeout,
  kToken,
  kName,
  kSymbol,
  kLastPriceValue,
  kNft,
  kNftData,
  kKey,
  kValue,
  kNumber,
  kHash,
  kDeployment,
  kHasIndexingErrors,
  // root fields
  kPredictions,
  kTruevals,
  kPayouts,
  kSubscriptions,
  kSlots,
  kContracts,
  kMeta,
};

enum class Kind { kScalar, kObject, kNullableObject, kList };

struct FieldDef {
  const char* name;
  F code;
  Kind kind;
  Type target;
};

// The fields of `t`, in schema order. The reference is to a static table (valid forever).
const std::vector<FieldDef>& Fields(Type t);

// A GraphQL error: kSource with `msg` as the message clients see.
inline Status GqlError(std::string msg) { return Status::Source(std::move(msg)); }

// Checks a selection set against the schema and records each field's code in Field::resolved (the
// index into Fields(type), or -2 for __typename). `is_root`: the selections of the query itself,
// whose fields may take arguments (checked later, by CompileQuery); anywhere else an argument is
// an error. Returns kSource naming the first unknown field, misplaced argument or missing or
// superfluous selection set.
Status Validate(Type type, std::vector<Field>& selections, bool is_root);

}  // namespace predlake::sim::subgraph
