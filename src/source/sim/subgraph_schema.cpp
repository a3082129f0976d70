#include "source/sim/subgraph_schema.hpp"

#include <fmt/format.h>

namespace predlake::sim::subgraph {

const char* TypeName(Type t) {
  switch (t) {
    case Type::kQuery:
      return "Query";
    case Type::kPrediction:
      return "PredictPrediction";
    case Type::kTrueval:
      return "PredictTrueVal";
    case Type::kPayout:
      return "PredictPayout";
    case Type::kSubscription:
      return "PredictSubscription";
    case Type::kSlot:
      return "PredictSlot";
    case Type::kContract:
      return "PredictContract";
    case Type::kUser:
      return "User";
    case Type::kToken:
      return "Token";
    case Type::kNft:
      return "Nft";
    case Type::kNftData:
      return "NftData";
    case Type::kMeta:
      return "_Meta_";
    case Type::kBlock:
      return "_Block_";
  }
  return "?";
}

const std::vector<FieldDef>& Fields(Type t) {
  static const std::vector<FieldDef> kQuery = {
      {"predictPredictions", F::kPredictions, Kind::kList, Type::kPrediction},
      {"predictTrueVals", F::kTruevals, Kind::kList, Type::kTrueval},
      {"predictPayouts", F::kPayouts, Kind::kList, Type::kPayout},
      {"predictSubscriptions", F::kSubscriptions, Kind::kList, Type::kSubscription},
      {"predictSlots", F::kSlots, Kind::kList, Type::kSlot},
      {"predictContracts", F::kContracts, Kind::kList, Type::kContract},
      {"_meta", F::kMeta, Kind::kObject, Type::kMeta},
  };
  static const std::vector<FieldDef> kPrediction = {
      {"id", F::kId, Kind::kScalar, Type::kQuery},
      {"timestamp", F::kTimestamp, Kind::kScalar, Type::kQuery},
      {"user", F::kUser, Kind::kObject, Type::kUser},
      {"stake", F::kStake, Kind::kScalar, Type::kQuery},
      {"payout", F::kPayout, Kind::kNullableObject, Type::kPayout},
      {"slot", F::kSlot, Kind::kObject, Type::kSlot},
      {"block", F::kBlock, Kind::kScalar, Type::kQuery},
      {"txId", F::kTxId, Kind::kScalar, Type::kQuery},
  };
  static const std::vector<FieldDef> kTrueval = {
      {"id", F::kId, Kind::kScalar, Type::kQuery},
      {"timestamp", F::kTimestamp, Kind::kScalar, Type::kQuery},
      {"trueValue", F::kTrueValue, Kind::kScalar, Type::kQuery},
      {"txId", F::kTxId, Kind::kScalar, Type::kQuery},
      {"block", F::kBlock, Kind::kScalar, Type::kQuery},
      {"slot", F::kSlot, Kind::kObject, Type::kSlot},
  };
  static const std::vector<FieldDef> kPayout = {
      {"id", F::kId, Kind::kScalar, Type::kQuery},
      {"timestamp", F::kTimestamp, Kind::kScalar, Type::kQuery},
      {"payout", F::kPayout, Kind::kScalar, Type::kQuery},
      {"predictedValue", F::kPredictedValue, Kind::kScalar, Type::kQuery},
      {"trueValue", F::kTrueValue, Kind::kScalar, Type::kQuery},
      {"txId", F::kTxId, Kind::kScalar, Type::kQuery},
      {"block", F::kBlock, Kind::kScalar, Type::kQuery},
      {"prediction", F::kPrediction, Kind::kObject, Type::kPrediction},
  };
  static const std::vector<FieldDef> kSubscription = {
      {"id", F::kId, Kind::kScalar, Type::kQuery},
      {"timestamp", F::kTimestamp, Kind::kScalar, Type::kQuery},
      {"user", F::kUser, Kind::kObject, Type::kUser},
      {"expireTime", F::kExpireTime, Kind::kScalar, Type::kQuery},
      {"eventIndex", F::kEventIndex, Kind::kScalar, Type::kQuery},
      {"txId", F::kTxId, Kind::kScalar, Type::kQuery},
      {"block", F::kBlock, Kind::kScalar, Type::kQuery},
      {"predictContract", F::kPredictContract, Kind::kObject, Type::kContract},
  };
  static const std::vector<FieldDef> kSlot = {
      {"id", F::kId, Kind::kScalar, Type::kQuery},
      {"slot", F::kSlot, Kind::kScalar, Type::kQuery},
      {"status", F::kStatus, Kind::kScalar, Type::kQuery},
      {"revenue", F::kRevenue, Kind::kScalar, Type::kQuery},
      {"roundSumStakesUp", F::kRoundSumStakesUp, Kind::kScalar, Type::kQuery},
      {"roundSumStakes", F::kRoundSumStakes, Kind::kScalar, Type::kQuery},
      {"trueValues", F::kTrueValues, Kind::kList, Type::kTrueval},
      {"predictContract", F::kPredictContract, Kind::kObject, Type::kContract},
  };
  static const std::vector<FieldDef> kContract = {
      {"id", F::kId, Kind::kScalar, Type::kQuery},
      {"secondsPerEpoch", F::kSecondsPerEpoch, Kind::kScalar, Type::kQuery},
      {"truevalSubmitTimeout", F::kTruevalSubmitTimeout, Kind::kScalar, Type::kQuery},
      {"txId", F::kTxId, Kind::kScalar, Type::kQuery},
      {"timestamp", F::kTimestamp, Kind::kScalar, Type::kQuery},
      {"block", F::kBlock, Kind::kScalar, Type::kQuery},
      {"token", F::kToken, Kind::kObject, Type::kToken},
  };
  static const std::vector<FieldDef> kUser = {{"id", F::kId, Kind::kScalar, Type::kQuery}};
  static const std::vector<FieldDef> kToken = {
      {"id", F::kId, Kind::kScalar, Type::kQuery},
      {"name", F::kName, Kind::kScalar, Type::kQuery},
      {"symbol", F::kSymbol, Kind::kScalar, Type::kQuery},
      {"lastPriceValue", F::kLastPriceValue, Kind::kScalar, Type::kQuery},
      {"nft", F::kNft, Kind::kObject, Type::kNft},
  };
  static const std::vector<FieldDef> kNft = {
      {"id", F::kId, Kind::kScalar, Type::kQuery},
      {"nftData", F::kNftData, Kind::kList, Type::kNftData},
  };
  static const std::vector<FieldDef> kNftData = {
      {"key", F::kKey, Kind::kScalar, Type::kQuery},
      {"value", F::kValue, Kind::kScalar, Type::kQuery},
  };
  static const std::vector<FieldDef> kMeta = {
      {"block", F::kBlock, Kind::kObject, Type::kBlock},
      {"deployment", F::kDeployment, Kind::kScalar, Type::kQuery},
      {"hasIndexingErrors", F::kHasIndexingErrors, Kind::kScalar, Type::kQuery},
  };
  static const std::vector<FieldDef> kBlock = {
      {"number", F::kNumber, Kind::kScalar, Type::kQuery},
      {"timestamp", F::kTimestamp, Kind::kScalar, Type::kQuery},
      {"hash", F::kHash, Kind::kScalar, Type::kQuery},
  };
  switch (t) {
    case Type::kQuery:
      return kQuery;
    case Type::kPrediction:
      return kPrediction;
    case Type::kTrueval:
      return kTrueval;
    case Type::kPayout:
      return kPayout;
    case Type::kSubscription:
      return kSubscription;
    case Type::kSlot:
      return kSlot;
    case Type::kContract:
      return kContract;
    case Type::kUser:
      return kUser;
    case Type::kToken:
      return kToken;
    case Type::kNft:
      return kNft;
    case Type::kNftData:
      return kNftData;
    case Type::kMeta:
      return kMeta;
    case Type::kBlock:
      return kBlock;
  }
  return kUser;
}

Status Validate(Type type, std::vector<Field>& selections, bool is_root) {
  for (Field& field : selections) {
    if (field.name == "__typename") {
      if (field.has_selection_set || !field.arguments.empty()) {
        return GqlError("Field `__typename` takes no arguments or selections");
      }
      field.resolved = -2;
      continue;
    }
    const auto& defs = Fields(type);
    int index = -1;
    for (size_t i = 0; i < defs.size(); ++i) {
      if (field.name == defs[i].name) index = static_cast<int>(i);
    }
    if (index < 0) {
      return GqlError(
          fmt::format("Type `{}` has no field `{}`", TypeName(type), field.name.substr(0, 80)));
    }
    field.resolved = index;
    const FieldDef& def = defs[static_cast<size_t>(index)];
    if (!is_root && !field.arguments.empty()) {
      return GqlError(fmt::format("Unknown argument `{}` on field `{}.{}`",
                                  field.arguments[0].first.substr(0, 80), TypeName(type),
                                  field.name));
    }
    if (def.kind == Kind::kScalar) {
      if (field.has_selection_set) {
        return GqlError(fmt::format("Field `{}` of type `{}` is a scalar and takes no selection",
                                    field.name, TypeName(type)));
      }
      continue;
    }
    if (!field.has_selection_set) {
      return GqlError(fmt::format("Field `{}` of type `{}` must have a selection of subfields",
                                  field.name, TypeName(def.target)));
    }
    RETURN_IF_ERROR(Validate(def.target, field.selections, false));
  }
  return Status::Ok();
}

}  // namespace predlake::sim::subgraph
