// Every query the fetchers send (head, contracts, every page shape of every table, pinned) checked
// against the real ocean-subgraph's fields and graph-node's argument rules, written down in
// tests/raw/data/ocean_subgraph_schema.txt: the simulator answering a query does not prove that
// the real subgraph would.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "raw/update.hpp"
#include "raw_test_util.hpp"
#include "source/sim/graphql.hpp"
#include "support/paths.hpp"

namespace predlake::raw {
namespace {

using rawtest::Ms;
using rawtest::TempDir;
using sim::graphql::Field;
using sim::graphql::Value;

struct RealSchema {
  std::map<std::string, std::string> roots;                          // root field -> entity
  std::map<std::string, std::map<std::string, std::string>> fields;  // entity -> field -> type

  static RealSchema Load() {
    RealSchema s;
    std::ifstream in(test_support::SourceDir() + "/tests/raw/data/ocean_subgraph_schema.txt");
    EXPECT_TRUE(in.good()) << "schema description not found";
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream words(line);
      std::string a, b, c;
      words >> a >> b >> c;
      if (a == "root") {
        s.roots[b] = c;
      } else {
        s.fields[a][b] = c;
      }
    }
    return s;
  }
};

// The entity a type names ("[PredictTrueVal!]" -> "PredictTrueVal"), or "" for a scalar or enum.
std::string EntityOf(const RealSchema& s, std::string type) {
  std::string out;
  for (char c : type) {
    if (c != '[' && c != ']' && c != '!') out += c;
  }
  return s.fields.count(out) != 0 ? out : "";
}

class Checker {
 public:
  explicit Checker(const RealSchema& s) : s_(s) {}

  // Problems with one query, "" when none.
  std::string Check(const std::string& query) {
    auto doc = sim::graphql::Parse(query);
    if (!doc.ok()) return "does not parse: " + doc.status().message();
    std::string out;
    for (const Field& f : doc->selections) {
      auto root = s_.roots.find(f.name);
      if (root == s_.roots.end()) {
        out += "unknown root field `" + f.name + "`; ";
        continue;
      }
      const std::string& entity = root->second;
      for (const auto& [arg, v] : f.arguments) out += Argument(entity, f.name, arg, v);
      out += Selection(entity, f);
    }
    return out;
  }

 private:
  std::string Argument(const std::string& entity, const std::string& root, const std::string& arg,
                       const Value& v) {
    const bool meta = root == "_meta";
    if (arg == "block") {
      // graph-node's Block_height: {hash}, {number} or {number_gte}.
      if (v.kind != Value::Kind::kObject || v.fields.size() != 1) return "bad `block`; ";
      const auto& [key, n] = v.fields[0];
      if ((key == "number" || key == "number_gte") && n.kind == Value::Kind::kInt) return "";
      if (key == "hash" && n.kind == Value::Kind::kString) return "";
      return "bad `block`; ";
    }
    if (meta) return "`_meta` takes only `block`, not `" + arg + "`; ";
    if (arg == "first" || arg == "skip") {
      // graph-node: GRAPH_GRAPHQL_MAX_FIRST 1000; skip is any non-negative Int by default.
      if (v.kind != Value::Kind::kInt || v.int_value < 0) return "bad `" + arg + "`; ";
      if (arg == "first" && v.int_value > 1000) return "`first` above 1000; ";
      return "";
    }
    if (arg == "orderBy") {
      auto it = s_.fields.at(entity).find(v.text);
      if (v.kind != Value::Kind::kEnum || it == s_.fields.at(entity).end() ||
          !EntityOf(s_, it->second).empty()) {
        return "`orderBy: " + v.text + "` is not a scalar field of " + entity + "; ";
      }
      return "";
    }
    if (arg == "orderDirection") {
      return v.kind == Value::Kind::kEnum && (v.text == "asc" || v.text == "desc")
                 ? ""
                 : "bad `orderDirection`; ";
    }
    if (arg == "where") return Where(entity, v);
    if (arg == "subgraphError") return "";
    return "unknown argument `" + arg + "` on `" + root + "`; ";
  }

  // graph-node's filters: `field`, `field_OP` for a scalar, `field_` with a nested filter for an
  // entity, `and`/`or` lists.
  std::string Where(const std::string& entity, const Value& v) {
    if (v.kind != Value::Kind::kObject) return "`where` is not an object; ";
    static const std::set<std::string> kOps = {
        "not",    "gt",       "lt",           "gte",         "lte",      "in",
        "not_in", "contains", "not_contains", "starts_with", "ends_with"};
    std::string out;
    for (const auto& [key, value] : v.fields) {
      if (key == "and" || key == "or") {
        for (const Value& item : value.items) out += Where(entity, item);
        continue;
      }
      const auto& fields = s_.fields.at(entity);
      if (fields.count(key) != 0) continue;  // equality
      if (key.back() == '_' && fields.count(key.substr(0, key.size() - 1)) != 0) {
        const std::string target = EntityOf(s_, fields.at(key.substr(0, key.size() - 1)));
        out +=
            target.empty() ? "filter `" + key + "`: not an entity field; " : Where(target, value);
        continue;
      }
      size_t at = key.find('_');
      while (at != std::string::npos && fields.count(key.substr(0, at)) == 0) {
        at = key.find('_', at + 1);
      }
      if (at == std::string::npos) {
        out += "filter `" + key + "`: no such field on " + entity + "; ";
      } else if (kOps.count(key.substr(at + 1)) == 0) {
        out += "filter `" + key + "`: unknown operator; ";
      }
    }
    return out;
  }

  std::string Selection(const std::string& entity, const Field& f) {
    std::string out;
    const auto& fields = s_.fields.at(entity);
    for (const Field& g : f.selections) {
      if (g.name == "__typename") continue;
      auto it = fields.find(g.name);
      if (it == fields.end()) {
        out += "`" + entity + "` has no field `" + g.name + "`; ";
        continue;
      }
      const std::string target = EntityOf(s_, it->second);
      if (target.empty() && g.has_selection_set) out += "`" + g.name + "` is a scalar; ";
      if (!target.empty() && !g.has_selection_set) out += "`" + g.name + "` needs a selection; ";
      if (!target.empty()) out += Selection(target, g);
    }
    return out;
  }

  const RealSchema& s_;
};

// Records every query on its way to the simulator.
class RecordingTransport final : public gql::Transport {
 public:
  RecordingTransport(std::shared_ptr<const sim::Engine> engine, std::mutex* mu,
                     std::vector<std::string>* queries)
      : inner_(std::move(engine)), mu_(mu), queries_(queries) {}
  Result<gql::HttpResponse> Post(const std::string& body) override {
    {
      std::lock_guard<std::mutex> lock(*mu_);
      queries_->push_back(nlohmann::json::parse(body)["query"].get<std::string>());
    }
    return inner_.Post(body);
  }
  std::string Describe() const override { return "recording sim"; }

 private:
  sim::InProcessTransport inner_;
  std::mutex* mu_;
  std::vector<std::string>* queries_;
};

TEST(QuerySchemaTest, EveryFetcherQueryUsesOnlyRealFieldsAndArguments) {
  const RealSchema schema = RealSchema::Load();
  ASSERT_FALSE(schema.roots.empty());
  TempDir dir;
  auto world = rawtest::SmallWorld("2024-07-25", "2024-07-25_02:00");
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  std::mutex mu;
  std::vector<std::string> queries;
  UpdateOptions o;
  o.start_ms = Ms(world.start);
  o.end_ms = Ms(world.now);
  o.sleeper = &sleep;
  o.page_size = 7;  // small pages: the tie-group query shape too
  TransportFactory factory = [&](const TransportUse&) -> std::unique_ptr<gql::Transport> {
    return std::make_unique<RecordingTransport>(engine, &mu, &queries);
  };
  auto r = rawtest::RunUpdate(*lake, o, factory, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();

  Checker checker(schema);
  std::set<std::string> roots_seen;
  bool saw_tie_group = false, saw_pin = false;
  for (const std::string& q : queries) {
    EXPECT_EQ(checker.Check(q), "") << q;
    auto doc = sim::graphql::Parse(q);
    for (const Field& f : doc->selections) roots_seen.insert(f.name);
    saw_tie_group |= q.find("a: ") != std::string::npos;
    saw_pin |= q.find("number_gte") != std::string::npos;
  }
  for (const auto& [root, entity] : schema.roots) EXPECT_EQ(roots_seen.count(root), 1u) << root;
  EXPECT_TRUE(saw_tie_group);
  EXPECT_TRUE(saw_pin);
}

TEST(QuerySchemaTest, TheCheckerRefusesWhatTheRealSubgraphWould) {
  const RealSchema schema = RealSchema::Load();
  Checker c(schema);
  EXPECT_EQ(c.Check("{ predictPredictions(first: 5, orderBy: timestamp, orderDirection: asc, "
                    "where: {timestamp_gte: 1, slot_: {predictContract: \"0x\"}}) { id stake } }"),
            "");
  // predictedValue exists on PredictPayout, not on PredictPrediction.
  EXPECT_NE(c.Check("{ predictPredictions { id predictedValue } }"), "");
  EXPECT_NE(c.Check("{ predictPredictions(first: 5000) { id } }"), "");
  EXPECT_NE(c.Check("{ predictPredictions(orderBy: slot) { id } }"), "");
  EXPECT_NE(c.Check("{ predictPredictions(where: {nope_gt: 1}) { id } }"), "");
  EXPECT_NE(c.Check("{ predictPredictions { slot } }"), "");
  EXPECT_NE(c.Check("{ _meta(first: 1) { block { number } } }"), "");
  EXPECT_NE(c.Check("{ predictThings { id } }"), "");
}

}  // namespace
}  // namespace predlake::raw
