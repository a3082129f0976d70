// /metrics for predictoor_ss.my_addresses (the alerts of docs/serve.md and docs/alerts.yml): each
// address's newest prediction, its last day's accuracy and revealed share, its unclaimed payouts
// and refunds, and the newest trueval of the feeds it predicts on, against SQL over the lake's raw
// tables; the gauge of the newest publishing run; the alerting rules name only emitted metrics.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "../raw/raw_test_util.hpp"
#include "jobs/export.hpp"
#include "jobs/update.hpp"
#include "serve/pages.hpp"
#include "serve/serve.hpp"
#include "serve_world.hpp"
#include "support/fixtures.hpp"
#include "support/paths.hpp"

namespace predlake::serve {
namespace {

using raw::rawtest::Ms;
using raw::rawtest::TempDir;

constexpr const char* kNoPredictions = "0x00000000000000000000000000000000000000aa";

using TextRows = std::vector<std::vector<std::optional<std::string>>>;

// "name{labels}" -> value, for every sample of a Prometheus text answer; the metric names apart.
struct Samples {
  std::map<std::string, std::string> values;
  std::set<std::string> names;
};

Samples ParseMetrics(const std::string& body) {
  Samples out;
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    const std::string key = line.substr(0, space);
    out.values[key] = line.substr(space + 1);
    out.names.insert(key.substr(0, key.find('{')));
  }
  return out;
}

class MetricsWorld : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    servetest::CopyServeWorld(dir_->path());
    if (::testing::Test::HasFatalFailure()) return;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static TextRows Sql(const std::string& sql) {
    auto lake = raw::rawtest::OpenTestLake(dir_->path());
    EXPECT_NE(lake, nullptr);
    if (!lake) return {};
    auto rows = lake->conn().Query(sql, "test");
    EXPECT_TRUE(rows.ok()) << rows.status().message() << "\n" << sql;
    return rows.ok() ? rows->ToText() : TextRows{};
  }

  ServeOptions Options(std::vector<std::string> mine) const {
    ServeOptions o;
    o.lake_dir = dir_->path();
    o.clock = &clock_;
    o.my_addresses = std::move(mine);
    return o;
  }

  static TempDir* dir_;
  FixedClock clock_{Ms("2024-07-26_03:00")};
};
TempDir* MetricsWorld::dir_ = nullptr;

double Num(const std::string& text) { return std::stod(text); }

TEST_F(MetricsWorld, MyAddressesAgainstTheRawTables) {
  // The most active predictoor of the last day, one quieter, and one without predictions.
  TextRows users = Sql(
      "SELECT user FROM pdr_predictions GROUP BY user ORDER BY max(timestamp) DESC, user LIMIT 1");
  TextRows quiet =
      Sql("SELECT user FROM pdr_predictions GROUP BY user ORDER BY max(timestamp), user LIMIT 1");
  ASSERT_EQ(users.size(), 1u);
  ASSERT_EQ(quiet.size(), 1u);
  const std::vector<std::string> mine = {*users[0][0], *quiet[0][0], kNoPredictions};
  Response r = Answer(Options(mine), "/metrics", {});
  ASSERT_EQ(r.status, 200);
  const Samples s = ParseMetrics(r.body);
  const int64_t checkpoint =
      std::llround(Num(s.values.at("predlake_checkpoint_timestamp_seconds")) * 1000);
  const std::string cp = std::to_string(checkpoint);
  const std::string day_from = std::to_string((checkpoint - 86'400'000) / 1000);
  const std::string day_to = std::to_string(checkpoint / 1000);

  for (const std::string& a : mine) {
    const std::string l = "{address=\"" + a + "\"}";
    // Built predictions are those stamped before the checkpoint.
    TextRows e = Sql("SELECT count(*), max(timestamp) FROM pdr_predictions WHERE user = '" + a +
                     "' AND timestamp < " + cp);
    EXPECT_EQ(s.values.at("predlake_my_predictions" + l), *e[0][0]) << a;
    if (a == kNoPredictions) {
      EXPECT_EQ(s.values.count("predlake_my_last_prediction_age_seconds" + l), 0u);
      EXPECT_EQ(s.values.count("predlake_my_accuracy_24h" + l), 0u);
      EXPECT_EQ(s.values.at("predlake_my_unclaimed_predictions" + l), "0");
      continue;
    }
    const int64_t last = std::stoll(*e[0][1]);
    EXPECT_DOUBLE_EQ(Num(s.values.at("predlake_my_last_prediction_timestamp_seconds" + l)),
                     last / 1000.0);
    EXPECT_DOUBLE_EQ(Num(s.values.at("predlake_my_last_prediction_age_seconds" + l)),
                     (checkpoint - last) / 1000.0);

    // The last day's slots: resolved = a paying slot whose trueval and payout (which reveals the
    // direction) arrived before the checkpoint; unrevealed = a paying slot without a payout.
    const std::string day =
        "WITH p AS (SELECT p.ID, p.slot, p.contract, s.status FROM pdr_predictions AS p "
        "JOIN bronze_pdr_slots AS s ON s.contract = p.contract AND s.slot = p.slot "
        "WHERE p.user = '" +
        a + "' AND p.timestamp < " + cp + " AND p.slot >= " + day_from + " AND p.slot < " + day_to +
        "), t AS (SELECT ID, truevalue FROM pdr_truevals WHERE timestamp < " + cp +
        "), y AS (SELECT ID, predvalue FROM pdr_payouts WHERE timestamp < " + cp +
        ") SELECT count(*), "
        "count(*) FILTER (WHERE p.status = 'paying' AND y.predvalue IS NOT NULL AND "
        "t.truevalue IS NOT NULL), "
        "count(*) FILTER (WHERE p.status = 'paying' AND y.predvalue = t.truevalue), "
        "count(*) FILTER (WHERE p.status = 'paying' AND y.ID IS NULL) "
        "FROM p LEFT JOIN y ON y.ID = p.ID "
        "LEFT JOIN t ON t.ID = p.contract || '-' || CAST(p.slot AS VARCHAR)";
    TextRows d = Sql(day);
    const int64_t resolved = std::stoll(*d[0][1]), correct = std::stoll(*d[0][2]),
                  unrevealed = std::stoll(*d[0][3]);
    EXPECT_EQ(s.values.at("predlake_my_predictions_24h" + l), *d[0][0]) << a;
    EXPECT_EQ(s.values.at("predlake_my_resolved_24h" + l), *d[0][1]) << a;
    if (resolved > 0) {
      EXPECT_NEAR(Num(s.values.at("predlake_my_accuracy_24h" + l)),
                  static_cast<double>(correct) / resolved, 1e-6);
    } else {
      EXPECT_EQ(s.values.count("predlake_my_accuracy_24h" + l), 0u);
    }
    if (resolved + unrevealed > 0) {
      EXPECT_NEAR(Num(s.values.at("predlake_my_revealed_share_24h" + l)),
                  static_cast<double>(resolved) / (resolved + unrevealed), 1e-6);
    }

    // Unclaimed: its predictions in paying (or canceled) slots without a payout before the
    // checkpoint, over all time.
    TextRows u =
        Sql("SELECT count(*) FILTER (WHERE s.status = 'paying'), "
            "coalesce(sum(p.stake) FILTER (WHERE s.status = 'paying'), 0), "
            "count(*) FILTER (WHERE s.status = 'canceled'), "
            "coalesce(sum(p.stake) FILTER (WHERE s.status = 'canceled'), 0) "
            "FROM pdr_predictions AS p JOIN bronze_pdr_slots AS s "
            "ON s.contract = p.contract AND s.slot = p.slot "
            "WHERE p.user = '" +
            a + "' AND p.timestamp < " + cp +
            " AND p.ID NOT IN (SELECT ID FROM pdr_payouts WHERE timestamp < " + cp + ")");
    EXPECT_EQ(s.values.at("predlake_my_unclaimed_predictions" + l), *u[0][0]) << a;
    EXPECT_NEAR(Num(s.values.at("predlake_my_unclaimed_stake" + l)), std::stod(*u[0][1]), 1e-6);
    TextRows oldest = Sql(
        "SELECT min(p.slot) // 86400 * 86400000 FROM pdr_predictions AS p JOIN bronze_pdr_slots "
        "AS s ON s.contract = p.contract AND s.slot = p.slot WHERE s.status = 'paying' AND "
        "p.user = '" +
        a + "' AND p.timestamp < " + cp +
        " AND p.ID NOT IN (SELECT ID FROM pdr_payouts WHERE timestamp < " + cp + ")");
    if (oldest[0][0]) {
      EXPECT_DOUBLE_EQ(Num(s.values.at("predlake_my_oldest_unclaimed_age_seconds" + l)),
                       (checkpoint - std::stoll(*oldest[0][0])) / 1000.0);
    }
    EXPECT_EQ(s.values.at("predlake_my_refunds_pending" + l), *u[0][2]) << a;
    EXPECT_NEAR(Num(s.values.at("predlake_my_refund_pending_stake" + l)), std::stod(*u[0][3]),
                1e-6);
  }
  EXPECT_GT(
      std::stoll(s.values.at("predlake_my_unclaimed_predictions{address=\"" + mine[0] + "\"}")), 0);

  // The feeds my addresses predicted on in the week before the checkpoint: the age of their
  // newest trueval.
  TextRows feeds =
      Sql("WITH f AS (SELECT DISTINCT contract FROM pdr_predictions WHERE user IN ('" + mine[0] +
          "', '" + mine[1] + "') AND timestamp < " + cp +
          " AND slot >= " + std::to_string((checkpoint - 7 * 86'400'000) / 1000 / 86400 * 86400) +
          ") SELECT f.contract, c.pair, c.timeframe, (SELECT max(timestamp) FROM pdr_truevals "
          "WHERE split_part(ID, '-', 1) = f.contract AND timestamp < " +
          cp + ") FROM f JOIN pdr_contracts AS c ON c.ID = f.contract ORDER BY f.contract");
  ASSERT_FALSE(feeds.empty());
  int listed = 0;
  for (const auto& [key, value] : s.values) {
    listed += key.rfind("predlake_feed_last_trueval_age_seconds{", 0) == 0;
  }
  EXPECT_EQ(listed, static_cast<int>(feeds.size()));
  for (const auto& f : feeds) {
    const std::string key = "predlake_feed_last_trueval_age_seconds{feed=\"" + *f[0] +
                            "\",pair=\"" + *f[1] + "\",timeframe=\"" + *f[2] + "\"}";
    ASSERT_EQ(s.values.count(key), 1u) << key << "\n" << r.body;
    ASSERT_TRUE(f[3].has_value());
    EXPECT_DOUBLE_EQ(Num(s.values.at(key)), (checkpoint - std::stoll(*f[3])) / 1000.0) << key;
  }

  // Without my_addresses, none of this.
  const Samples none = ParseMetrics(Answer(Options({}), "/metrics", {}).body);
  EXPECT_EQ(none.names.count("predlake_my_predictions"), 0u);
  EXPECT_EQ(none.names.count("predlake_feed_last_trueval_age_seconds"), 0u);
  EXPECT_EQ(none.names.count("predlake_snapshot_up"), 1u);
}

// The newest publishing run counts the runs that wrote lake data only: a second export makes the
// first one (succeeded, in the new snapshot's ledger) the newest success, and it is not one.
TEST_F(MetricsWorld, LastPublishIsTheNewestDataWritingRun) {
  TempDir again;
  std::filesystem::copy(dir_->path(), again.path(),
                        std::filesystem::copy_options::recursive |
                            std::filesystem::copy_options::copy_symlinks |
                            std::filesystem::copy_options::overwrite_existing);
  jobs::WriterEnv env;
  env.lake_dir = again.path();
  ASSERT_TRUE(jobs::RunExport(env, exports::ExportOptions{}).ok());
  ServeOptions o = Options({});
  o.lake_dir = again.path();
  const Samples s = ParseMetrics(Answer(o, "/metrics", {}).body);
  auto lake = raw::rawtest::OpenTestLake(again.path());
  ASSERT_NE(lake, nullptr);
  // The newest run is the export that wrote the snapshot, still under way in its ledger.
  auto rows = lake->conn().Query(
      "SELECT max(ended_at_ms) FILTER (WHERE command = 'update'), max(ended_at_ms) FROM "
      "predlake_runs WHERE status = 'succeeded' AND run_id < (SELECT max(run_id) FROM "
      "predlake_runs)",
      "test");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  TextRows e = rows->ToText();
  ASSERT_TRUE(e[0][0] && e[0][1]);
  ASSERT_LT(std::stoll(*e[0][0]), std::stoll(*e[0][1]));
  EXPECT_DOUBLE_EQ(Num(s.values.at("predlake_last_publish_timestamp_seconds")),
                   std::stoll(*e[0][0]) / 1000.0);
  EXPECT_DOUBLE_EQ(Num(s.values.at("predlake_last_success_timestamp_seconds")),
                   std::stoll(*e[0][1]) / 1000.0);
}

// docs/alerts.yml parses as Prometheus rule groups, and every metric its expressions name is one
// that /metrics emits here; docs/serve.md carries the same rules.
TEST_F(MetricsWorld, AlertingRulesNameOnlyEmittedMetrics) {
  const std::string source = test_support::SourceDir();
  const std::string path = source + "/docs/alerts.yml";
  YAML::Node root = YAML::LoadFile(path);
  ASSERT_TRUE(root["groups"].IsSequence()) << path;
  TextRows users = Sql("SELECT user FROM pdr_predictions GROUP BY user ORDER BY user LIMIT 1");
  const Samples s = ParseMetrics(Answer(Options({*users[0][0]}), "/metrics", {}).body);
  const std::regex metric("predlake_[a-z0-9_]+");
  std::set<std::string> alerts;
  for (const YAML::Node& group : root["groups"]) {
    ASSERT_TRUE(group["name"].IsScalar());
    for (const YAML::Node& rule : group["rules"]) {
      ASSERT_TRUE(rule["alert"].IsScalar());
      ASSERT_TRUE(rule["expr"].IsScalar());
      alerts.insert(rule["alert"].Scalar());
      const std::string expr = rule["expr"].Scalar();
      int named = 0;
      for (auto it = std::sregex_iterator(expr.begin(), expr.end(), metric);
           it != std::sregex_iterator(); ++it) {
        EXPECT_EQ(s.names.count(it->str()), 1u)
            << rule["alert"].Scalar() << " names " << it->str() << ", which /metrics lacks";
        ++named;
      }
      EXPECT_GT(named, 0) << rule["alert"].Scalar();
    }
  }
  for (const char* a :
       {"PredictoorBotStopped", "PayoutsWaitingToBeClaimed", "FeedWithoutTruevals"}) {
    EXPECT_EQ(alerts.count(a), 1u) << a;
  }
  // docs/serve.md holds the same file in a yaml code block.
  std::ifstream yml(path), md(source + "/docs/serve.md");
  std::stringstream y, m;
  y << yml.rdbuf();
  m << md.rdbuf();
  EXPECT_NE(m.str().find("```yaml\n" + y.str() + "```\n"), std::string::npos)
      << "docs/serve.md does not carry docs/alerts.yml verbatim";
}

}  // namespace
}  // namespace predlake::serve
