#include "source/sim/subgraph_filter.hpp"

#include <fmt/format.h>

#include <utility>

namespace predlake::sim::subgraph {
namespace {

std::string FilterTypeName(Type t) { return std::string(TypeName(t)) + "_filter"; }

Result<Scalar> ToScalar(const Value& v, VType vtype, const std::string& where) {
  Scalar s;
  switch (vtype) {
    case VType::kInt:
      if (v.kind != Value::Kind::kInt) {
        return GqlError(
            fmt::format("Invalid value for `{}`: expected Int, found {}", where, v.Describe()));
      }
      s.i = v.int_value;
      return s;
    case VType::kString:
      if (v.kind != Value::Kind::kString) {
        return GqlError(
            fmt::format("Invalid value for `{}`: expected String, found {}", where, v.Describe()));
      }
      s.s = v.text;
      return s;
    case VType::kBool:
      if (v.kind != Value::Kind::kBool) {
        return GqlError(
            fmt::format("Invalid value for `{}`: expected Boolean, found {}", where, v.Describe()));
      }
      s.b = v.bool_value;
      return s;
    case VType::kStatus:
      if ((v.kind != Value::Kind::kEnum && v.kind != Value::Kind::kString) ||
          (v.text != "Pending" && v.text != "Paying" && v.text != "Canceled")) {
        return GqlError(
            fmt::format("Invalid value for `{}`: expected Pending, Paying or Canceled, found {}",
                        where, v.Describe()));
      }
      s.s = v.text;
      return s;
  }
  return s;
}

}  // namespace

const std::vector<FilterDef>& Filters(Type t) {
  static const std::vector<FilterDef> kPrediction = {
      {"id", F::kId, VType::kString, Type::kQuery},
      {"timestamp", F::kTimestamp, VType::kInt, Type::kQuery},
      {"block", F::kBlock, VType::kInt, Type::kQuery},
      {"txId", F::kTxId, VType::kString, Type::kQuery},
      {"user", F::kUser, VType::kString, Type::kQuery},
      {"slot", F::kSlot, VType::kString, Type::kSlot},
  };
  static const std::vector<FilterDef> kTrueval = {
      {"id", F::kId, VType::kString, Type::kQuery},
      {"timestamp", F::kTimestamp, VType::kInt, Type::kQuery},
      {"block", F::kBlock, VType::kInt, Type::kQuery},
      {"txId", F::kTxId, VType::kString, Type::kQuery},
      {"trueValue", F::kTrueValue, VType::kBool, Type::kQuery},
      {"slot", F::kSlot, VType::kString, Type::kSlot},
  };
  static const std::vector<FilterDef> kPayout = {
      {"id", F::kId, VType::kString, Type::kQuery},
      {"timestamp", F::kTimestamp, VType::kInt, Type::kQuery},
      {"block", F::kBlock, VType::kInt, Type::kQuery},
      {"txId", F::kTxId, VType::kString, Type::kQuery},
      {"predictedValue", F::kPredictedValue, VType::kBool, Type::kQuery},
      {"trueValue", F::kTrueValue, VType::kBool, Type::kQuery},
      {"prediction", F::kPrediction, VType::kString, Type::kPrediction},
  };
  static const std::vector<FilterDef> kSubscription = {
      {"id", F::kId, VType::kString, Type::kQuery},
      {"timestamp", F::kTimestamp, VType::kInt, Type::kQuery},
      {"block", F::kBlock, VType::kInt, Type::kQuery},
      {"txId", F::kTxId, VType::kString, Type::kQuery},
      {"user", F::kUser, VType::kString, Type::kQuery},
      {"expireTime", F::kExpireTime, VType::kInt, Type::kQuery},
      {"predictContract", F::kPredictContract, VType::kString, Type::kContract},
  };
  static const std::vector<FilterDef> kSlot = {
      {"id", F::kId, VType::kString, Type::kQuery},
      {"slot", F::kSlot, VType::kInt, Type::kQuery},
      {"status", F::kStatus, VType::kStatus, Type::kQuery},
      {"predictContract", F::kPredictContract, VType::kString, Type::kContract},
  };
  static const std::vector<FilterDef> kContract = {
      {"id", F::kId, VType::kString, Type::kQuery},
      {"timestamp", F::kTimestamp, VType::kInt, Type::kQuery},
      {"txId", F::kTxId, VType::kString, Type::kQuery},
      {"secondsPerEpoch", F::kSecondsPerEpoch, VType::kInt, Type::kQuery},
      {"truevalSubmitTimeout", F::kTruevalSubmitTimeout, VType::kInt, Type::kQuery},
  };
  static const std::vector<FilterDef> kNone;
  switch (t) {
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
    default:
      return kNone;
  }
}

namespace {

Status CompileField(Type type, const std::string& key, const Value& v, int depth, Filter& out) {
  const std::string tname = FilterTypeName(type);
  if (key == "and" || key == "or") {
    if (v.kind != Value::Kind::kList) {
      return GqlError(
          fmt::format("Invalid value for `{}.{}`: expected a list of filters", tname, key));
    }
    Filter group;
    group.kind = key == "and" ? Filter::Kind::kAnd : Filter::Kind::kOr;
    for (const Value& item : v.items) {
      ASSIGN_OR_RETURN(Filter child, CompileFilter(type, item, depth + 1));
      group.children.push_back(std::move(child));
    }
    out.children.push_back(std::move(group));
    return Status::Ok();
  }
  for (const FilterDef& def : Filters(type)) {
    const std::string name = def.name;
    if (key.compare(0, name.size(), name) != 0) continue;
    const std::string suffix = key.substr(name.size());
    if (suffix == "_" && def.nested != Type::kQuery) {
      Filter nested;
      nested.kind = Filter::Kind::kNested;
      nested.type = def.nested;
      nested.code = def.code;
      ASSIGN_OR_RETURN(Filter inner, CompileFilter(def.nested, v, depth + 1));
      nested.children.push_back(std::move(inner));
      out.children.push_back(std::move(nested));
      return Status::Ok();
    }
    static const std::pair<const char*, Op> kOps[] = {
        {"", Op::kEq},    {"_not", Op::kNot}, {"_gt", Op::kGt}, {"_gte", Op::kGte},
        {"_lt", Op::kLt}, {"_lte", Op::kLte}, {"_in", Op::kIn}, {"_not_in", Op::kNotIn},
    };
    for (const auto& [sfx, op] : kOps) {
      if (suffix != sfx) continue;
      if ((def.vtype == VType::kBool || def.vtype == VType::kStatus) && op != Op::kEq &&
          op != Op::kNot && op != Op::kIn && op != Op::kNotIn) {
        break;
      }
      Filter cmp;
      cmp.kind = Filter::Kind::kCmp;
      cmp.type = type;
      cmp.code = def.code;
      cmp.vtype = def.vtype;
      cmp.op = op;
      const std::string where = tname + "." + key;
      if (v.kind == Value::Kind::kNull) {
        return GqlError(fmt::format("Filtering `{}` by null is not supported", where));
      }
      if (op == Op::kIn || op == Op::kNotIn) {
        if (v.kind != Value::Kind::kList) {
          return GqlError(fmt::format("Invalid value for `{}`: expected a list", where));
        }
        for (const Value& item : v.items) {
          ASSIGN_OR_RETURN(Scalar s, ToScalar(item, def.vtype, where));
          cmp.values.push_back(std::move(s));
        }
      } else {
        ASSIGN_OR_RETURN(Scalar s, ToScalar(v, def.vtype, where));
        cmp.values.push_back(std::move(s));
      }
      out.children.push_back(std::move(cmp));
      return Status::Ok();
    }
  }
  return GqlError(fmt::format("Type `{}` has no field `{}`", tname, key.substr(0, 80)));
}

}  // namespace

Result<Filter> CompileFilter(Type type, const Value& where, int depth) {
  if (depth > graphql::kMaxDepth) return GqlError("filter nested too deeply");
  if (where.kind != Value::Kind::kObject) {
    return GqlError(
        fmt::format("Invalid value for argument `where`: expected an object of type `{}`, "
                    "found {}",
                    FilterTypeName(type), where.Describe()));
  }
  Filter f;
  f.kind = Filter::Kind::kAnd;
  f.type = type;
  for (const auto& [key, v] : where.fields) RETURN_IF_ERROR(CompileField(type, key, v, depth, f));
  return f;
}

Result<int64_t> CompileBlockArgument(const Value& v) {
  if (v.kind == Value::Kind::kObject && v.fields.size() == 1 && v.fields[0].first == "number_gte" &&
      v.fields[0].second.kind == Value::Kind::kInt) {
    return v.fields[0].second.int_value;
  }
  return GqlError(
      "Invalid value for argument `block`: only {number_gte: Int} is supported by this subgraph "
      "(no time travel)");
}

Result<Query> CompileQuery(const FieldDef& def, const Field& f) {
  Query q;
  q.type = def.target;
  q.where.kind = Filter::Kind::kAnd;
  q.where.type = q.type;
  for (const auto& [name, v] : f.arguments) {
    if (v.kind == Value::Kind::kNull) continue;
    if (name == "first" || name == "skip") {
      const int64_t limit = name == "first" ? kMaxFirst : kMaxSkip;
      if (v.kind != Value::Kind::kInt) {
        return GqlError(fmt::format("Invalid value for argument `{}`: expected Int, found {}", name,
                                    v.Describe()));
      }
      if (v.int_value < 0 || v.int_value > limit) {
        return GqlError(fmt::format("The `{}` argument must be between 0 and {}, but is {}", name,
                                    limit, v.int_value));
      }
      (name == "first" ? q.first : q.skip) = static_cast<int>(v.int_value);
    } else if (name == "orderBy") {
      if (v.kind != Value::Kind::kEnum && v.kind != Value::Kind::kString) {
        return GqlError(fmt::format("Invalid value for argument `orderBy`: {}", v.Describe()));
      }
      const bool has_ts = q.type != Type::kSlot;
      if (v.text == "id") {
        q.order = OrderBy::kId;
      } else if (v.text == "timestamp" && has_ts) {
        q.order = OrderBy::kTimestamp;
      } else if (v.text == "slot" && q.type == Type::kSlot) {
        q.order = OrderBy::kSlot;
      } else {
        return GqlError(fmt::format(
            "Invalid value for argument `orderBy` on field `{}`: `{}` (supported: id, {})",
            def.name, v.text.substr(0, 80), has_ts ? "timestamp" : "slot"));
      }
    } else if (name == "orderDirection") {
      if ((v.kind != Value::Kind::kEnum && v.kind != Value::Kind::kString) ||
          (v.text != "asc" && v.text != "desc")) {
        return GqlError(
            fmt::format("Invalid value for argument `orderDirection`: {} (expected asc or desc)",
                        v.Describe()));
      }
      q.desc = v.text == "desc";
    } else if (name == "where") {
      ASSIGN_OR_RETURN(q.where, CompileFilter(q.type, v, 1));
    } else if (name == "subgraphError") {
      if ((v.kind != Value::Kind::kEnum && v.kind != Value::Kind::kString) ||
          (v.text != "allow" && v.text != "deny")) {
        return GqlError("Invalid value for argument `subgraphError` (expected allow or deny)");
      }
    } else if (name == "block") {
      ASSIGN_OR_RETURN(q.min_block, CompileBlockArgument(v));
    } else {
      return GqlError(
          fmt::format("Unknown argument `{}` on field `Query.{}`", name.substr(0, 80), def.name));
    }
  }
  return q;
}

}  // namespace predlake::sim::subgraph
