// The filter compiler of the simulated subgraph: turns the arguments of a root list field (`first`,
// `skip`, `orderBy`, `orderDirection`, `where`, `subgraphError`) into a Query whose `where` is a
// tree of typed comparisons, checked against the filterable fields of each entity (The Graph's
// `<field>`, `_not`, `_gt`, `_gte`, `_lt`, `_lte`, `_in`, `_not_in` suffixes, `and`/`or` lists and
// `<field>_` nested filters). Internal to the simulated subgraph: the executor evaluates what this
// compiles.
//
// Failure: every function returns kSource with the GraphQL error message a client sees.
// Thread safety: pure functions over immutable tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "source/sim/graphql.hpp"
#include "source/sim/subgraph_schema.hpp"

namespace predlake::sim::subgraph {

// The Graph's limits on `first` and `skip`, and the `first` of a query that gives none.
inline constexpr int kMaxFirst = 1000;
inline constexpr int kMaxSkip = 5000;
inline constexpr int kDefaultFirst = 100;

enum class VType { kInt, kString, kBool, kStatus };
enum class Op { kEq, kNot, kGt, kGte, kLt, kLte, kIn, kNotIn };

struct FilterDef {
  const char* name;
  F code;
  VType vtype;
  Type nested;  // for `name_` nested filters; kQuery when none
};

// The filterable fields of `t` (empty for types that take no `where`). A static table.
const std::vector<FilterDef>& Filters(Type t);

// One operand of a comparison; which member is meaningful depends on the VType.
struct Scalar {
  int64_t i = 0;
  std::string s;
  bool b = false;
};

// A compiled `where`: kAnd/kOr over children, a comparison of one field, or a filter on the entity
// a field refers to (kNested, whose one child applies to `type`).
struct Filter {
  enum class Kind { kAnd, kOr, kCmp, kNested };
  Kind kind = Kind::kAnd;
  std::vector<Filter> children;  // kAnd, kOr; kNested holds one kAnd
  Type type = Type::kQuery;      // the entity type this filter applies to
  F code = F::kId;
  VType vtype = VType::kInt;
  Op op = Op::kEq;
  std::vector<Scalar> values;
};

// Compiles a `where` object for entities of `type` into a kAnd filter; `depth` is the nesting level
// (1 for the argument itself), bounded by graphql::kMaxDepth.
Result<Filter> CompileFilter(Type type, const Value& where, int depth);

enum class OrderBy { kId, kTimestamp, kSlot };

struct Query {
  Type type = Type::kQuery;
  int first = kDefaultFirst;
  int skip = 0;
  OrderBy order = OrderBy::kId;
  bool desc = false;
  Filter where;
  std::optional<int64_t> min_block;  // block: {number_gte: N}
};

// The `block` argument of a root field (collections and _meta): {number_gte: N} gives N. Time
// travel (`number`, `hash`) is not supported: a kSource GraphQL error, as for other bad values.
Result<int64_t> CompileBlockArgument(const Value& v);

// Compiles the arguments of the root field `f` (whose schema entry is `def`, a list field) into a
// Query. Null arguments are ignored, as The Graph does.
Result<Query> CompileQuery(const FieldDef& def, const Field& f);

}  // namespace predlake::sim::subgraph
