// raw update against the real network's behaviours, simulated (sim_ss.faults): replicas behind
// the head, throttling bursts, null head timestamps. Each ends with the raw tables equal to the
// simulator's truth: nothing lost, nothing duplicated.
#include <gtest/gtest.h>

#include <regex>

#include "raw/update.hpp"
#include "raw_test_util.hpp"

namespace predlake::raw {
namespace {

using rawtest::ExpectEqualsDump;
using rawtest::Ms;
using rawtest::TempDir;
using rawtest::WatermarkOf;

UpdateOptions NetworkOptions(const config::SimConfig& world, int64_t end_ms, Sleeper* sleeper) {
  UpdateOptions o;
  o.start_ms = Ms(world.start);
  o.end_ms = end_ms;
  o.sleeper = sleeper;
  o.page_size = 100;
  o.retry.jitter_seed = 1;
  return o;
}

// Walks the world in half-hour steps, one update each, every one of which must succeed.
void StepThrough(lake::Lake& lake, const config::SimConfig& world, UpdateOptions base,
                 std::map<std::string, int64_t>& retries, int64_t& smaller_pages) {
  auto engine = rawtest::MakeEngine(world);
  for (int64_t to = Ms(world.start) + 30 * 60 * 1000; to <= Ms(world.now); to += 30 * 60 * 1000) {
    UpdateOptions o = base;
    o.end_ms = to;
    auto r = rawtest::RunUpdate(lake, o, rawtest::SimFactory(engine), nullptr);
    ASSERT_TRUE(r.ok()) << FormatTime(to) << ": " << r.status().message();
    for (const auto& [kind, n] : r->head_retries_by_kind) retries[kind] += n;
    for (const TableReport& t : r->tables) {
      for (const auto& [kind, n] : t.retries_by_kind) retries[kind] += n;
      smaller_pages += t.smaller_pages;
    }
    ExpectEqualsDump(lake, *engine);
    if (::testing::Test::HasFailure()) return;
  }
  for (const TableDef& t : RawTables()) {
    EXPECT_EQ(WatermarkOf(lake, std::string(t.name)), Ms(world.now) - world.indexing_lag_ms);
  }
}

TEST(RawUpdateNetworkTest, LaggingReplicaLosesNothing) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.faults.lagging_replica = 0.3;
  world.faults.replica_lag_ms = 20 * 60 * 1000;
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  std::map<std::string, int64_t> retries;
  int64_t smaller = 0;
  StepThrough(*lake, world, NetworkOptions(world, 0, &sleep), retries, smaller);
  // The replica's answers were refused as "not yet indexed" and asked again.
  EXPECT_GT(retries["behind"], 10);
}

TEST(RawUpdateNetworkTest, LaggingReplicaAnswersHeadReadsToo) {
  // A head read from the replica only gives an older head: the watermark stays behind it, and
  // the next run catches up.
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.faults.lagging_replica = 1.0;
  world.faults.replica_lag_ms = 30 * 60 * 1000;
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  auto r = rawtest::RunUpdate(*lake, NetworkOptions(world, Ms(world.now), &sleep),
                              rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->head_ms, (engine->HeadMs() - 30 * 60 * 1000) / 1000 * 1000);
  for (const TableReport& t : r->tables) EXPECT_EQ(t.after.watermark_ms, r->head_ms) << t.table;
  // The replica is fixed: the next run catches up, and slots refresh to the head's state.
  auto fixed = world;
  fixed.faults.lagging_replica = 0;
  auto caught_up = rawtest::MakeEngine(fixed);
  auto again = rawtest::RunUpdate(*lake, NetworkOptions(world, Ms(world.now), &sleep),
                                  rawtest::SimFactory(caught_up), nullptr);
  ASSERT_TRUE(again.ok()) << again.status().message();
  ExpectEqualsDump(*lake, *caught_up);
}

// Answers the head reads of `behind` (an older node) for the first `stale_heads` of them, then
// everything from `current`: a load balancer whose lagging replica catches up.
class RewoundThenCaughtUp final : public gql::Transport {
 public:
  RewoundThenCaughtUp(std::shared_ptr<const sim::Engine> behind,
                      std::shared_ptr<const sim::Engine> current, std::shared_ptr<int> stale_heads)
      : behind_(std::move(behind)), current_(std::move(current)), stale_(std::move(stale_heads)) {}
  Result<gql::HttpResponse> Post(const std::string& body) override {
    if (body.find("_meta") != std::string::npos && *stale_ > 0) {
      --*stale_;
      return sim::InProcessTransport(behind_).Post(body);
    }
    return sim::InProcessTransport(current_).Post(body);
  }
  std::string Describe() const override { return "rewound node"; }

 private:
  std::shared_ptr<const sim::Engine> behind_, current_;
  std::shared_ptr<int> stale_;
};

TEST(RawUpdateNetworkTest, AHeadOlderThanTheLakesIsWaitedForOrRefused) {
  TempDir dir;
  auto world = rawtest::SmallWorld("2024-07-25", "2024-07-25_06:00");
  auto older = world;
  older.now = "2024-07-25_03:00";
  auto engine = rawtest::MakeEngine(world);
  auto rewound = rawtest::MakeEngine(older);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  auto first = rawtest::RunUpdate(*lake, NetworkOptions(world, Ms(world.now), &sleep),
                                  rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto slots = [&]() { return rawtest::LakeRows(*lake, "pdr_slots"); };
  const auto before = slots();
  const int64_t mark = WatermarkOf(*lake, "pdr_slots");
  // A node three hours behind (a rewound subgraph) answers every head read: the run waits within
  // its budget, then stops with one line, having fetched nothing; no slot goes back.
  UpdateOptions o = NetworkOptions(world, Ms(world.now), &sleep);
  o.retry.budget_ms = 60'000;
  auto refused = rawtest::RunUpdate(*lake, o, rawtest::SimFactory(rewound), nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kSource);
  EXPECT_NE(refused.status().message().find("behind the newest head this lake has read"),
            std::string::npos)
      << refused.status().message();
  EXPECT_EQ(refused.status().message().find('\n'), std::string::npos);
  EXPECT_GT(sleep.total.load(), 0);
  EXPECT_EQ(slots(), before);
  EXPECT_EQ(WatermarkOf(*lake, "pdr_slots"), mark);
  // A lagging replica that catches up while the run waits: the run goes on from the newer head.
  auto stale = std::make_shared<int>(2);
  TransportFactory balancer = [&](const TransportUse&) -> std::unique_ptr<gql::Transport> {
    return std::make_unique<RewoundThenCaughtUp>(rewound, engine, stale);
  };
  auto waited =
      rawtest::RunUpdate(*lake, NetworkOptions(world, Ms(world.now), &sleep), balancer, nullptr);
  ASSERT_TRUE(waited.ok()) << waited.status().message();
  EXPECT_EQ(*stale, 0);
  EXPECT_EQ(waited->head_retries_by_kind.at("head_behind_lake"), 2);
  EXPECT_EQ(waited->head_block, first->head_block);
  ExpectEqualsDump(*lake, *engine);
}

TEST(RawUpdateNetworkTest, ThrottlingBurstsLoseNothing) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.faults.throttle_burst = 0.25;
  world.faults.throttle_burst_length = 4;
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  std::map<std::string, int64_t> retries;
  int64_t smaller = 0;
  StepThrough(*lake, world, NetworkOptions(world, 0, &sleep), retries, smaller);
  EXPECT_GT(retries["throttled"], 0);
  EXPECT_GT(retries["too_expensive"], 0);
  EXPECT_GT(smaller, 0);  // "exceeds the limit" and "Query timed out" asked for smaller pages
  EXPECT_GT(sleep.total.load(), 0);
  // The ledger counts them.
  auto detail = lake->conn().QueryInt(
      "SELECT sum(CAST(json_extract(detail, '$.retries.throttled') AS BIGINT)) FROM predlake_runs",
      "t");
  ASSERT_TRUE(detail.ok()) << detail.status().message();
  EXPECT_EQ(detail->value_or(0), retries["throttled"]);
}

TEST(RawUpdateNetworkTest, ThrottlingPastTheBudgetFailsTheRunNamingIt) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.faults.throttle_burst = 1.0;
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  UpdateOptions o = NetworkOptions(world, Ms(world.now), &sleep);
  o.retry.budget_ms = 60 * 1000;
  auto r = rawtest::RunUpdate(*lake, o, rawtest::SimFactory(engine), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kSource);
  EXPECT_NE(r.status().message().find("the retry budget)"), std::string::npos)
      << r.status().message();
  EXPECT_LE(sleep.total.load(), 60 * 1000);
}

TEST(RawUpdateNetworkTest, NullHeadTimestampIsAskedAgain) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.faults.null_head_timestamp = 0.6;
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  std::map<std::string, int64_t> retries;
  int64_t smaller = 0;
  StepThrough(*lake, world, NetworkOptions(world, 0, &sleep), retries, smaller);
  EXPECT_GT(retries["null_head_timestamp"], 0);
}

}  // namespace
}  // namespace predlake::raw

namespace predlake::raw {
namespace {

// Wraps the simulator: `{"data": {}}` for the first `empty_heads` head reads, and graph-node's
// error for a `first` above `max_first` (a server configured below 1000).
class OddGraphNode final : public gql::Transport {
 public:
  OddGraphNode(std::shared_ptr<const sim::Engine> engine, std::shared_ptr<int> empty_heads,
               int max_first)
      : inner_(std::move(engine)), empty_(std::move(empty_heads)), max_first_(max_first) {}
  Result<gql::HttpResponse> Post(const std::string& body) override {
    if (body.find("hasIndexingErrors") != std::string::npos && *empty_ > 0) {
      --*empty_;
      return gql::HttpResponse{200, R"({"data":{}})", std::nullopt};
    }
    static const std::regex first(R"(first: *([0-9]+))");
    for (std::sregex_iterator it(body.begin(), body.end(), first), end; it != end; ++it) {
      const int n = std::stoi((*it)[1].str());
      if (n > max_first_) {
        return gql::HttpResponse{
            200,
            R"({"errors":[{"message":"The `first` argument must be between 0 and )" +
                std::to_string(max_first_) + ", but is " + std::to_string(n) + R"("}]})",
            std::nullopt};
      }
    }
    return inner_.Post(body);
  }
  std::string Describe() const override { return "odd graph-node"; }

 private:
  sim::InProcessTransport inner_;
  std::shared_ptr<int> empty_;
  int max_first_;
};

TEST(RawUpdateNetworkTest, RarerGraphNodeAnswersAreAdaptedTo) {
  TempDir dir;
  auto world = rawtest::SmallWorld("2024-07-25", "2024-07-25_04:00");
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  auto empty = std::make_shared<int>(2);
  TransportFactory odd = [&](const TransportUse&) -> std::unique_ptr<gql::Transport> {
    return std::make_unique<OddGraphNode>(engine, empty, 100);
  };
  UpdateOptions o = NetworkOptions(world, Ms(world.now), &sleep);
  o.page_size = 1000;
  auto r = rawtest::RunUpdate(*lake, o, odd, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*empty, 0);  // both empty answers were asked again
  int64_t smaller = 0;
  for (const TableReport& t : r->tables) smaller += t.smaller_pages;
  EXPECT_GT(smaller, 0);  // pages asked again below the server's largest `first`
  ExpectEqualsDump(*lake, *engine);
  for (const TableDef& t : RawTables()) {
    EXPECT_EQ(WatermarkOf(*lake, std::string(t.name)), Ms(world.now) - world.indexing_lag_ms);
  }
}

TEST(RawUpdateNetworkTest, AHeadTimestampThatStaysNullIsTakenFromTheData) {
  TempDir dir;
  auto world = rawtest::SmallWorld("2024-07-25", "2024-07-25_04:00");
  world.faults.null_head_timestamp = 1.0;
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  auto r = rawtest::RunUpdate(*lake, NetworkOptions(world, Ms(world.now), &sleep),
                              rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // The newest event's time: not after the real head, and close to it (predictions every epoch).
  EXPECT_LE(r->head_ms, engine->HeadMs());
  EXPECT_GT(r->head_ms, engine->HeadMs() - 10 * 60 * 1000);
  ASSERT_FALSE(r->warnings.empty());
  EXPECT_NE(r->warnings[0].find("stayed null"), std::string::npos) << r->warnings[0];
  for (const TableDef& t : RawTables()) {
    EXPECT_EQ(WatermarkOf(*lake, std::string(t.name)), r->head_ms) << t.name;
  }
  ExpectEqualsDump(*lake, *engine);
}

}  // namespace
}  // namespace predlake::raw
