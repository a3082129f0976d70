// The dashboard server (src/serve) in-process on port 0, against a small simulated world's lake and
// its snapshot: the API's numbers against SQL on the lake (the metric definitions), the HTML
// conventions, CSV equal to the API, 400s, 404s and 503 without a snapshot.
#include "serve/serve.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "../raw/fake_exchange.hpp"
#include "../raw/raw_test_util.hpp"
#include "jobs/update.hpp"
#include "serve/pages.hpp"
#include "serve_world.hpp"
#include "support/fixtures.hpp"
#include "support/paths.hpp"

namespace predlake::serve {
namespace {

using raw::rawtest::Ms;
using raw::rawtest::TempDir;
using Json = nlohmann::json;

class ServeWorld : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    servetest::CopyServeWorld(dir_->path());
    if (::testing::Test::HasFatalFailure()) return;
    auto users = Sql("SELECT DISTINCT user FROM bronze_pdr_predictions ORDER BY user LIMIT 2");
    for (const auto& row : users) mine_->push_back(*row[0]);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // Rows of a query on the lake itself (every value as DuckDB renders it).
  static std::vector<std::vector<std::optional<std::string>>> Sql(const std::string& sql) {
    auto lake = raw::rawtest::OpenTestLake(dir_->path());
    EXPECT_NE(lake, nullptr);
    if (!lake) return {};
    auto rows = lake->conn().Query(sql, "test");
    EXPECT_TRUE(rows.ok()) << rows.status().message();
    return rows.ok() ? rows->ToText() : std::vector<std::vector<std::optional<std::string>>>{};
  }

  ServeOptions Options() const {
    ServeOptions o;
    o.lake_dir = dir_->path();
    o.port = 0;
    o.clock = &clock_;
    o.my_addresses = *mine_;
    return o;
  }

  static Json Api(const ServeOptions& o, const std::string& path,
                  std::multimap<std::string, std::string> params = {}) {
    Response r = Answer(o, path, params);
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    return Json::parse(r.body);
  }

  static TempDir* dir_;
  static std::vector<std::string>* mine_;
  FixedClock clock_{Ms("2024-07-26_03:00")};
};
TempDir* ServeWorld::dir_ = nullptr;
std::vector<std::string>* ServeWorld::mine_ = new std::vector<std::string>();

// Index of a column of an API table.
size_t Col(const Json& table, const std::string& name) {
  const auto& cols = table["columns"];
  for (size_t i = 0; i < cols.size(); ++i) {
    if (cols[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// An exact decimal string without trailing zeros ("1.500" -> "1.5", "2.000" -> "2").
std::string Norm(const Json& v) {
  if (v.is_null()) return "null";
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  return raw::rawtest::NormalizeDecimal(s);
}
std::string Norm(const std::optional<std::string>& v) {
  return v ? raw::rawtest::NormalizeDecimal(*v) : "null";
}

TEST_F(ServeWorld, LeaderboardEqualsTheMetricDefinitionsOnTheLake) {
  Json j = Api(Options(), "/api/predictoors", {{"period", "all"}});
  const Json& t = j["tables"]["predictoors"];
  // Cash P&L, settled stake, counts and bounds from bronze_pdr_predictions directly.
  auto expected = Sql(
      "SELECT user, count(*), coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0), "
      "coalesce(sum(payout) FILTER (WHERE status = 'paying'), 0) - coalesce(sum(stake) FILTER "
      "(WHERE status = 'paying'), 0), count(*) FILTER (WHERE status = 'paying' AND predvalue IS "
      "NOT NULL AND truevalue IS NOT NULL), count(*) FILTER (WHERE status = 'paying' AND "
      "predvalue IS NULL), count(*) FILTER (WHERE status = 'paying' AND predvalue = truevalue), "
      "coalesce(sum(stake) FILTER (WHERE status = 'canceled' AND payout IS NULL), 0) FROM "
      "bronze_pdr_predictions GROUP BY user ORDER BY user");
  ASSERT_EQ(t["rows"].size(), expected.size());
  ASSERT_GT(expected.size(), 3u);
  std::map<std::string, Json> by_user;
  for (const Json& row : t["rows"]) by_user[row[Col(t, "user")]] = row;
  for (const auto& e : expected) {
    const Json& row = by_user[*e[0]];
    ASSERT_FALSE(row.is_null()) << *e[0];
    EXPECT_EQ(row[Col(t, "predictions")].get<int64_t>(), std::stoll(*e[1]));
    EXPECT_EQ(Norm(row[Col(t, "settled_stake")]), Norm(e[2])) << *e[0];
    EXPECT_EQ(Norm(row[Col(t, "cash_pnl")]), Norm(e[3])) << *e[0];
    const int64_t resolved = std::stoll(*e[4]), unrevealed = std::stoll(*e[5]),
                  correct = std::stoll(*e[6]);
    EXPECT_EQ(row[Col(t, "resolved")].get<int64_t>(), resolved);
    EXPECT_EQ(row[Col(t, "unrevealed")].get<int64_t>(), unrevealed);
    EXPECT_EQ(row[Col(t, "correct")].get<int64_t>(), correct);
    EXPECT_EQ(Norm(row[Col(t, "refund_pending")]), Norm(e[7])) << *e[0];
    if (resolved + unrevealed > 0) {
      const double n = static_cast<double>(resolved + unrevealed);
      EXPECT_DOUBLE_EQ(row[Col(t, "revealed_share")].get<double>(), resolved / n);
      EXPECT_DOUBLE_EQ(row[Col(t, "accuracy_low")].get<double>(), correct / n);
      EXPECT_DOUBLE_EQ(row[Col(t, "accuracy_high")].get<double>(), (correct + unrevealed) / n);
    }
    if (resolved > 0) {
      EXPECT_DOUBLE_EQ(row[Col(t, "accuracy")].get<double>(),
                       static_cast<double>(correct) / static_cast<double>(resolved));
    }
  }
  // Mine first, then by cash P&L, which also gives the rank.
  const size_t mine = Col(t, "mine"), rank = Col(t, "rank"), pnl = Col(t, "cash_pnl");
  ASSERT_EQ(mine_->size(), 2u);
  EXPECT_TRUE(t["rows"][0][mine].get<bool>());
  EXPECT_TRUE(t["rows"][1][mine].get<bool>());
  for (size_t i = 2; i < t["rows"].size(); ++i) EXPECT_FALSE(t["rows"][i][mine].get<bool>());
  for (size_t i = 3; i < t["rows"].size(); ++i) {
    EXPECT_LT(t["rows"][i - 1][rank].get<int64_t>(), t["rows"][i][rank].get<int64_t>());
    EXPECT_GE(std::stold(t["rows"][i - 1][pnl].get<std::string>()),
              std::stold(t["rows"][i][pnl].get<std::string>()));
  }
  // The total row of my addresses.
  const Json& total = j["tables"]["my_total"];
  ASSERT_EQ(total["rows"].size(), 1u);
  auto mine_sum =
      Sql("SELECT count(*), coalesce(sum(payout) FILTER (WHERE status = 'paying'), 0) "
          "- coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0) FROM "
          "bronze_pdr_predictions WHERE user IN ('" +
          (*mine_)[0] + "', '" + (*mine_)[1] + "')");
  EXPECT_EQ(total["rows"][0][Col(total, "predictions")].get<int64_t>(),
            std::stoll(*mine_sum[0][0]));
  EXPECT_EQ(Norm(total["rows"][0][Col(total, "cash_pnl")]), Norm(mine_sum[0][1]));
}

// Identities every row must satisfy, whatever the world: cash P&L is payouts received minus the
// stake in paying slots, ROI is profit over resolved stake, the accuracy lies between its bounds,
// and the leaderboard adds up to the network row.
TEST_F(ServeWorld, MetricIdentitiesHoldOnEveryRow) {
  Json board = Api(Options(), "/api/predictoors", {{"period", "all"}});
  Json overview = Api(Options(), "/api/", {{"period", "all"}});
  const Json& t = board["tables"]["predictoors"];
  int64_t predictions = 0;
  long double pnl = 0;
  for (const Json& row : t["rows"]) {
    const long double paid = std::stold(row[Col(t, "settled_payout")].get<std::string>());
    const long double staked = std::stold(row[Col(t, "settled_stake")].get<std::string>());
    const long double cash = std::stold(row[Col(t, "cash_pnl")].get<std::string>());
    EXPECT_NEAR(static_cast<double>(cash), static_cast<double>(paid - staked), 1e-9);
    pnl += cash;
    predictions += row[Col(t, "predictions")].get<int64_t>();
    const Json& roi = row[Col(t, "roi")];
    if (!roi.is_null()) {
      const double profit = std::stod(row[Col(t, "profit")].get<std::string>());
      const double resolved = std::stod(row[Col(t, "resolved_stake")].get<std::string>());
      EXPECT_NEAR(roi.get<double>(), profit / resolved, 1e-12);
    }
    const Json& acc = row[Col(t, "accuracy")];
    if (!acc.is_null()) {
      EXPECT_LE(row[Col(t, "accuracy_low")].get<double>(), acc.get<double>() + 1e-12);
      EXPECT_GE(row[Col(t, "accuracy_high")].get<double>(), acc.get<double>() - 1e-12);
      const double share = row[Col(t, "revealed_share")].get<double>();
      EXPECT_GE(share, 0.0);
      EXPECT_LE(share, 1.0);
    }
    // The resolved and unrevealed predictions are those of the paying slots.
    EXPECT_LE(row[Col(t, "resolved")].get<int64_t>() + row[Col(t, "unrevealed")].get<int64_t>(),
              row[Col(t, "predictions")].get<int64_t>());
  }
  const Json& n = overview["tables"]["network"];
  EXPECT_EQ(n["rows"][0][Col(n, "predictions")].get<int64_t>(), predictions);
  EXPECT_NEAR(std::stod(n["rows"][0][Col(n, "cash_pnl")].get<std::string>()),
              static_cast<double>(pnl), 1e-6);
}

TEST_F(ServeWorld, PeriodsAreSlotDaysAnchoredAtTheCheckpoint) {
  Json all = Api(Options(), "/api/", {{"period", "all"}});
  Json day = Api(Options(), "/api/", {{"period", "1d"}});
  auto cp = Sql("SELECT checkpoint_ms FROM predlake_checkpoint");
  ASSERT_EQ(cp.size(), 1u);
  const int64_t checkpoint_ms = std::stoll(*cp[0][0]);
  const int64_t last_day = (checkpoint_ms - 1) / 86'400'000;
  // 1d is the last 24 hours: the slot days they touch, the last one partial (to the checkpoint).
  const int64_t first_day = (checkpoint_ms - 86'400'000) / 86'400'000;
  ASSERT_NE(checkpoint_ms % 86'400'000, 0) << "the world should end inside a day";
  EXPECT_EQ(first_day, last_day - 1);
  EXPECT_EQ(day["period"]["from_day"], FormatDay(first_day * 86'400'000));
  EXPECT_EQ(day["period"]["to_day"], FormatDay(last_day * 86'400'000));
  EXPECT_EQ(day["period"]["partial_day"], FormatDay(last_day * 86'400'000));
  EXPECT_EQ(day["period"]["holds_to"], FormatTime(checkpoint_ms));
  EXPECT_NE(day["period"]["label"].get<std::string>().find("last 24 h"), std::string::npos);
  const std::string lo = std::to_string(first_day * 86400),
                    hi = std::to_string(last_day * 86400 + 86400);
  auto n_day =
      Sql("SELECT count(*) FROM bronze_pdr_predictions WHERE slot >= " + lo + " AND slot < " + hi);
  auto n_all = Sql("SELECT count(*), count(DISTINCT user) FROM bronze_pdr_predictions");
  const Json& nd = day["tables"]["network"];
  const Json& na = all["tables"]["network"];
  EXPECT_EQ(nd["rows"][0][Col(nd, "predictions")].get<int64_t>(), std::stoll(*n_day[0][0]));
  EXPECT_EQ(na["rows"][0][Col(na, "predictions")].get<int64_t>(), std::stoll(*n_all[0][0]));
  EXPECT_EQ(na["rows"][0][Col(na, "predictoors")].get<int64_t>(), std::stoll(*n_all[0][1]));
  // The daily table sums to the network row; every chart has one x per day.
  const Json& daily = all["tables"]["daily"];
  int64_t sum = 0;
  for (const Json& row : daily["rows"]) sum += row[Col(daily, "predictions")].get<int64_t>();
  EXPECT_EQ(sum, na["rows"][0][Col(na, "predictions")].get<int64_t>());
  ASSERT_TRUE(all["charts"].contains("predictions_daily"));
  EXPECT_EQ(all["charts"]["predictions_daily"]["x"].size(), daily["rows"].size());
  EXPECT_EQ(all["freshness"]["checkpoint_ms"].get<int64_t>(), std::stoll(*cp[0][0]));
}

// Pending outcomes (docs/serve.md): per day, the stake of predictions whose slot has no trueval yet
// (and whose deadline has not passed) and of predictions in slots with a trueval but no payout,
// from the raw tables (pdr_predictions, pdr_truevals, pdr_payouts, pdr_contracts) as of the
// checkpoint; the P&L chart carries the same numbers as its pending series.
TEST_F(ServeWorld, PendingOutcomesEqualTheRawTables) {
  auto cp = Sql("SELECT checkpoint_ms FROM predlake_checkpoint");
  ASSERT_EQ(cp.size(), 1u);
  const std::string c = *cp[0][0];
  auto expected = Sql(
      "WITH p AS (SELECT * FROM pdr_predictions WHERE timestamp < " + c +
      "), t AS (SELECT DISTINCT ID FROM pdr_truevals WHERE timestamp < " + c +
      "), y AS (SELECT DISTINCT ID FROM pdr_payouts WHERE timestamp < " + c +
      "), k AS (SELECT ID, seconds_per_epoch, trueval_submit_timeout FROM pdr_contracts), "
      "s AS (SELECT p.*, p.contract || '-' || p.slot IN (SELECT ID FROM t) AS has_trueval, "
      "p.ID IN (SELECT ID FROM y) AS has_payout, "
      "(p.slot + coalesce(k.seconds_per_epoch, 300) + coalesce(k.trueval_submit_timeout, 259200)) "
      "* 1000 AS deadline FROM p LEFT JOIN k ON k.ID = p.contract) "
      "SELECT CAST(DATE '1970-01-01' + CAST(slot // 86400 AS INTEGER) AS VARCHAR) AS day, "
      "count(*) FILTER (WHERE NOT has_trueval AND deadline >= " +
      c + "), coalesce(sum(stake) FILTER (WHERE NOT has_trueval AND deadline >= " + c +
      "), 0), count(*) FILTER (WHERE has_trueval AND NOT has_payout), "
      "coalesce(sum(stake) FILTER (WHERE has_trueval AND NOT has_payout), 0) "
      "FROM s GROUP BY 1 HAVING count(*) FILTER (WHERE (NOT has_trueval AND deadline >= " +
      c + ") OR (has_trueval AND NOT has_payout)) > 0 ORDER BY 1");
  ASSERT_FALSE(expected.empty());
  Json j = Api(Options(), "/api/", {{"period", "all"}});
  const Json& t = j["tables"]["pending"];
  ASSERT_EQ(t["rows"].size(), expected.size());
  bool some_trueval = false, some_claim = false;
  for (size_t i = 0; i < expected.size(); ++i) {
    const Json& row = t["rows"][i];
    SCOPED_TRACE(*expected[i][0]);
    EXPECT_EQ(row[Col(t, "day")], *expected[i][0]);
    EXPECT_EQ(std::to_string(row[Col(t, "awaiting_trueval")].get<int64_t>()), *expected[i][1]);
    EXPECT_EQ(Norm(row[Col(t, "awaiting_trueval_stake")]), Norm(expected[i][2]));
    EXPECT_EQ(std::to_string(row[Col(t, "awaiting_claim")].get<int64_t>()), *expected[i][3]);
    EXPECT_EQ(Norm(row[Col(t, "awaiting_claim_stake")]), Norm(expected[i][4]));
    some_trueval = some_trueval || *expected[i][1] != "0";
    some_claim = some_claim || *expected[i][3] != "0";
  }
  EXPECT_TRUE(some_trueval) << "the world should end with slots waiting for truevals";
  EXPECT_TRUE(some_claim) << "the world should end with unclaimed payouts";
  // The P&L chart: cash P&L apart from the two pending series, which equal the table per day.
  const Json& chart = j["charts"]["pnl_daily"];
  std::map<std::string, const Json*> by_label;
  for (const Json& series : chart["series"]) by_label[series["label"]] = &series;
  ASSERT_TRUE(by_label.count("pending: stake waiting for claims"));
  ASSERT_TRUE(by_label.count("pending: stake waiting for truevals"));
  EXPECT_EQ((*by_label["cash P&L per day"])["kind"], "sum");
  const Json& claims = (*by_label["pending: stake waiting for claims"])["values"];
  for (size_t i = 0; i < chart["x"].size(); ++i) {
    const std::string day = FormatDay(chart["x"][i].get<int64_t>() * 1000);
    double want = 0;
    for (const Json& row : t["rows"]) {
      if (row[Col(t, "day")] == day)
        want = std::stod(row[Col(t, "awaiting_claim_stake")].get<std::string>());
    }
    EXPECT_NEAR(claims[i].get<double>(), want, 1e-6 * std::max(1.0, want)) << day;
  }
  EXPECT_NE(chart["note"].get<std::string>().find("Pending"), std::string::npos);
  // A predictoor's page: its own pending rows sum to its share of the network's.
  const std::string me = (*mine_)[0];
  Json pj = Api(Options(), "/api/predictoor/" + me, {{"period", "all"}});
  auto mine_claims = Sql(
      "SELECT count(*) FROM pdr_predictions AS p WHERE user = '" + me + "' AND timestamp < " + c +
      " AND p.contract || '-' || p.slot IN (SELECT ID FROM pdr_truevals WHERE timestamp < " + c +
      ") AND ID NOT IN (SELECT ID FROM pdr_payouts WHERE timestamp < " + c + ")");
  const Json& pt = pj["tables"]["pending"];
  int64_t sum = 0;
  for (const Json& row : pt["rows"]) sum += row[Col(pt, "awaiting_claim")].get<int64_t>();
  EXPECT_EQ(std::to_string(sum), *mine_claims[0][0]);
  EXPECT_TRUE(pj["charts"].contains("stake_pnl_daily"));
}

// The partial last day is marked in the period, the charts and the daily table; 1m is clamped to
// the lake's first day and says so; the Runs page's period selects runs by their start.
TEST_F(ServeWorld, PartialDayAndClampedPeriodsAreMarked) {
  Json week = Api(Options(), "/api/", {{"period", "1w"}});
  auto cp = Sql("SELECT checkpoint_ms FROM predlake_checkpoint");
  const int64_t checkpoint_ms = std::stoll(*cp[0][0]);
  const std::string last = FormatDay(checkpoint_ms - 1);
  EXPECT_EQ(week["period"]["partial_day"], last);
  const Json& chart = week["charts"]["predictions_daily"];
  ASSERT_TRUE(chart.contains("partial"));
  EXPECT_EQ(chart["partial"]["x"].get<int64_t>() * 1000, *ParseDay(last));
  EXPECT_EQ(chart["partial"]["covered_s"].get<int64_t>(), (checkpoint_ms - *ParseDay(last)) / 1000);
  auto first = Sql("SELECT CAST(min(day) AS VARCHAR) FROM gold_feed_daily");
  Json month = Api(Options(), "/api/", {{"period", "1m"}});
  EXPECT_EQ(month["period"]["from_day"], *first[0][0]);
  EXPECT_TRUE(month["period"]["clamped"].get<bool>());
  EXPECT_NE(month["period"]["label"].get<std::string>().find("the lake starts " + *first[0][0]),
            std::string::npos);
  Response html = Answer(Options(), "/", {});
  EXPECT_NE(html.body.find("UTC (partial)</span>"), std::string::npos);
  EXPECT_NE(html.body.find("pl-partial-note"), std::string::npos);
  Json all_runs = Api(Options(), "/api/runs", {{"period", "all"}});
  Json day_runs = Api(Options(), "/api/runs", {{"period", "1d"}});
  EXPECT_EQ(all_runs["period"]["label"], "every run");
  EXPECT_LE(day_runs["tables"]["runs"]["rows"].size(), all_runs["tables"]["runs"]["rows"].size());
  EXPECT_FALSE(all_runs["tables"]["runs"]["rows"].empty());
}

// /compare: up to five predictoors (or feeds) on one chart; more, a bad address, a mix of kinds or
// none are 400, an unknown address 404.
TEST_F(ServeWorld, CompareDrawsEachItemAndChecksItsAddresses) {
  auto users = Sql("SELECT DISTINCT user FROM bronze_pdr_predictions ORDER BY user");
  ASSERT_GE(users.size(), 2u);
  std::multimap<std::string, std::string> params = {{"period", "all"}};
  for (const auto& u : users) {
    if (params.size() <= 5) params.emplace("a", *u[0]);
  }
  const size_t n = params.size() - 1;
  Json j = Api(Options(), "/api/compare", params);
  const Json& t = j["tables"]["compared"];
  ASSERT_EQ(t["rows"].size(), n);
  Json board = Api(Options(), "/api/predictoors", {{"period", "all"}});
  const Json& b = board["tables"]["predictoors"];
  for (const Json& row : t["rows"]) {
    for (const Json& brow : b["rows"]) {
      if (brow[Col(b, "user")] != row[Col(t, "user")]) continue;
      EXPECT_EQ(Norm(row[Col(t, "cash_pnl")]), Norm(brow[Col(b, "cash_pnl")]));
      EXPECT_EQ(row[Col(t, "predictions")], brow[Col(b, "predictions")]);
    }
  }
  for (const char* id : {"compare_cumulative_pnl", "compare_stake", "compare_accuracy"}) {
    EXPECT_EQ(j["charts"][id]["series"].size(), n) << id;
  }
  const std::string feed = *Sql("SELECT min(contract) FROM gold_feed_daily")[0][0];
  ServeOptions o = Options();
  std::multimap<std::string, std::string> six;
  for (int i = 0; i < 6; ++i) six.emplace("a", fmt::format("0x{:040x}", i + 1));
  for (const auto& bad : std::vector<std::multimap<std::string, std::string>>{
           six, {{"a", "0x12"}}, {}, {{"a", *users[0][0]}, {"a", feed}}}) {
    Response r = Answer(o, "/api/compare", bad);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_NE(Json::parse(r.body)["error"].get<std::string>().find("a"), std::string::npos);
  }
  EXPECT_EQ(Answer(o, "/api/compare", {{"a", fmt::format("0x{:040x}", 7)}}).status, 404);
  Json feeds = Api(Options(), "/api/compare", {{"a", feed}});
  EXPECT_EQ(feeds["tables"]["compared"]["columns"][0], "contract");
  // The leaderboard links to the comparison of its first rows.
  Response html = Answer(o, "/predictoors", {});
  EXPECT_NE(html.body.find("class=\"pl-action\" href=\"/compare?period=1w&amp;a=0x"),
            std::string::npos);
  // So does the Feeds page, with every feed it lists (a contract without figures too).
  Response feeds_html = Answer(o, "/feeds", {{"period", "all"}});
  std::smatch m;
  const std::regex link("href=\"/compare\\?period=all((&amp;a=0x[0-9a-f]{40})+)\"");
  ASSERT_TRUE(std::regex_search(feeds_html.body, m, link));
  std::multimap<std::string, std::string> from_feeds = {{"period", "all"}};
  const std::string list = m[1].str();
  for (size_t at = list.find("a="); at != std::string::npos; at = list.find("a=", at + 2)) {
    from_feeds.emplace("a", list.substr(at + 2, 42));
  }
  Json compared = Api(o, "/api/compare", from_feeds);
  EXPECT_EQ(compared["tables"]["compared"]["rows"].size(), from_feeds.size() - 1);
}

TEST_F(ServeWorld, EveryFeedIsListedWithItsSalesAndConsensus) {
  Json j = Api(Options(), "/api/feeds", {{"period", "all"}});
  const Json& t = j["tables"]["feeds"];
  auto contracts = Sql("SELECT count(*) FROM pdr_contracts");
  EXPECT_EQ(t["rows"].size(), static_cast<size_t>(std::stoll(*contracts[0][0])));
  auto sales =
      Sql("SELECT split_part(ID, '-', 1), count(*), sum(last_price_value) FROM "
          "pdr_subscriptions GROUP BY 1");
  std::map<std::string, Json> by_contract;
  for (const Json& row : t["rows"]) by_contract[row[Col(t, "contract")]] = row;
  for (const auto& s : sales) {
    const Json& row = by_contract[*s[0]];
    ASSERT_FALSE(row.is_null()) << *s[0];
    EXPECT_EQ(row[Col(t, "subscriptions")].get<int64_t>(), std::stoll(*s[1]));
    EXPECT_EQ(Norm(row[Col(t, "sales")]), Norm(s[2]));
  }
  // Stake-weighted consensus accuracy of one feed, from bronze_pdr_slots.
  const std::string c = t["rows"][0][Col(t, "contract")];
  auto cons =
      Sql("SELECT sum(CASE WHEN truevalue THEN roundSumStakesUp ELSE roundSumStakes - "
          "roundSumStakesUp END)::DOUBLE / sum(roundSumStakes)::DOUBLE FROM "
          "bronze_pdr_slots WHERE status = 'paying' AND truevalue IS NOT NULL AND "
          "roundSumStakes > 0 AND contract = '" +
          c + "'");
  const Json& acc = t["rows"][0][Col(t, "consensus_accuracy")];
  if (cons[0][0]) {
    EXPECT_NEAR(acc.get<double>(), std::stod(*cons[0][0]), 1e-12);
  } else {
    EXPECT_TRUE(acc.is_null());
  }
}

TEST_F(ServeWorld, DetailPagesAnswerAndUnknownOnes404) {
  ServeOptions o = Options();
  Json p = Api(o, "/api/predictoor/" + (*mine_)[0], {{"period", "all"}});
  auto n = Sql("SELECT count(*) FROM bronze_pdr_predictions WHERE user = '" + (*mine_)[0] + "'");
  const Json& s = p["tables"]["summary"];
  EXPECT_EQ(s["rows"][0][Col(s, "predictions")].get<int64_t>(), std::stoll(*n[0][0]));
  EXPECT_TRUE(p["charts"].contains("cumulative_pnl"));
  EXPECT_LE(p["tables"]["recent"]["rows"].size(), 50u);
  Json feeds = Api(o, "/api/feeds", {{"period", "all"}});
  const std::string contract =
      feeds["tables"]["feeds"]["rows"][0][Col(feeds["tables"]["feeds"], "contract")];
  Json f = Api(o, "/api/feed/" + contract, {{"period", "all"}});
  for (const char* id :
       {"summary", "daily", "top_predictoors", "buyers", "canceled", "trueval_delay"}) {
    EXPECT_TRUE(f["tables"].contains(id)) << id;
  }
  Json runs = Api(o, "/api/runs");
  EXPECT_GE(runs["tables"]["runs"]["rows"].size(), 1u);
  EXPECT_EQ(Answer(o, "/predictoor/0x" + std::string(40, '0'), {}).status, 404);
  EXPECT_EQ(Answer(o, "/feed/0x" + std::string(40, '0'), {}).status, 404);
  EXPECT_EQ(Answer(o, "/nothing", {}).status, 404);
  EXPECT_EQ(Answer(o, "/api/nothing", {}).status, 404);
}

// A cell as a sortable value: exact decimals (strings in the API) and numbers as numbers, other
// text as text (DuckDB orders VARCHAR by bytes, as std::string does).
struct SortValue {
  bool number = false;
  long double n = 0;
  std::string text;
};
SortValue SortValueOf(const nlohmann::ordered_json& v) {
  SortValue out;
  if (v.is_number()) {
    out.number = true;
    out.n = v.get<long double>();
  } else if (v.is_boolean()) {
    out.number = true;
    out.n = v.get<bool>() ? 1 : 0;
  } else {
    out.text = v.get<std::string>();
    static const std::regex kDecimal("-?[0-9]+(\\.[0-9]+)?");
    if (std::regex_match(out.text, kDecimal)) {
      out.number = true;
      out.n = std::stold(out.text);
    }
  }
  return out;
}
int CompareSortValues(const SortValue& a, const SortValue& b) {
  if (a.number && b.number) return a.n < b.n ? -1 : (a.n > b.n ? 1 : 0);
  return a.text.compare(b.text) < 0 ? -1 : (a.text == b.text ? 0 : 1);
}

// Every sort key of every page's sortable table answers and orders that table
// by the key, nulls last, "my" addresses first on the leaderboard (the browser test follows one
// sort link per page; this covers them all).
TEST_F(ServeWorld, EverySortKeyOfEveryPageOrdersItsTable) {
  ServeOptions o = Options();
  Json feeds = Api(o, "/api/feeds", {{"period", "all"}});
  const std::string contract =
      feeds["tables"]["feeds"]["rows"][0][Col(feeds["tables"]["feeds"], "contract")];
  auto view = OpenView(o);
  ASSERT_TRUE(view.ok()) << view.status().message();
  int checked = 0;
  for (const std::string& path :
       {std::string("/"), std::string("/predictoors"), std::string("/feeds"), std::string("/runs"),
        "/predictoor/" + (*mine_)[0], "/feed/" + contract}) {
    PageParams all;
    all.period = "all";
    auto page = BuildPage(o, *view, path, all);
    ASSERT_TRUE(page.ok()) << path << ": " << page.status().message();
    for (const Table& table : page->tables) {
      for (size_t k = 0; k < table.sort_keys.size(); ++k) {
        const std::string& key = table.sort_keys[k];
        // Both directions for the first key; then one each, alternating (the direction is one
        // ORDER BY term for every key).
        std::vector<const char*> dirs = {"asc", "desc"};
        if (k > 0) dirs = {k % 2 ? "desc" : "asc"};
        for (const char* dir : dirs) {
          SCOPED_TRACE(path + " " + table.id + " sort=" + key + " dir=" + dir);
          PageParams params = all;
          params.sort = key;
          params.dir = dir;
          auto sorted = BuildPage(o, *view, path, params);
          ASSERT_TRUE(sorted.ok()) << sorted.status().message();
          EXPECT_EQ(sorted->sort, key);
          EXPECT_EQ(sorted->dir, dir);
          const Table* t = nullptr;
          for (const Table& candidate : sorted->tables) {
            if (candidate.id == table.id) t = &candidate;
          }
          ASSERT_NE(t, nullptr);
          auto col = std::find(t->columns.begin(), t->columns.end(), key);
          ASSERT_NE(col, t->columns.end()) << "the sort key is not a column";
          const size_t c = static_cast<size_t>(col - t->columns.begin());
          // The leaderboard pins "my" addresses first: the order holds within each group.
          auto mine = std::find(t->columns.begin(), t->columns.end(), "mine");
          auto group = [&](size_t r) {
            return mine == t->columns.end()
                       ? nlohmann::ordered_json()
                       : t->rows[r][static_cast<size_t>(mine - t->columns.begin())];
          };
          bool seen_null = false;
          for (size_t r = 0; r < t->rows.size(); ++r) {
            if (r > 0 && group(r) != group(r - 1)) seen_null = false;
            const nlohmann::ordered_json& v = t->rows[r][c];
            if (v.is_null()) {
              seen_null = true;
              continue;
            }
            EXPECT_FALSE(seen_null) << "row " << r << " follows a null";
            if (r == 0 || group(r) != group(r - 1) || t->rows[r - 1][c].is_null()) continue;
            const int cmp = CompareSortValues(SortValueOf(t->rows[r - 1][c]), SortValueOf(v));
            EXPECT_TRUE(std::string(dir) == "asc" ? cmp <= 0 : cmp >= 0)
                << "rows " << r - 1 << " and " << r << " out of order: " << t->rows[r - 1][c].dump()
                << ", " << v.dump();
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 40);
}

TEST_F(ServeWorld, BadParametersAre400WithAMessage) {
  ServeOptions o = Options();
  for (const auto& [path, params] :
       std::vector<std::pair<std::string, std::multimap<std::string, std::string>>>{
           {"/predictoors", {{"period", "2d"}}},
           {"/api/predictoors", {{"sort", "user; DROP TABLE x"}}},
           {"/api/predictoors", {{"dir", "up"}}},
           {"/api/predictoors", {{"min_predictions", "-1"}}},
           {"/api/predictoors", {{"min_stake", "1e9"}}},
           {"/api/feeds", {{"acc_min", "120"}}},
           {"/api/feeds", {{"acc_min", "60"}, {"acc_max", "40"}}},
           {"/api/feeds", {{"pair", "BTC'; --"}}},
           {"/api/feeds", {{"cols", "wide"}}},
           {"/api/feeds", {{"page", "0"}}},
           {"/api/feeds", {{"per_page", "100000"}}},
           {"/api/feeds", {{"period", "1d"}, {"period", "1w"}}},
           {"/csv/feeds", {}},
           {"/csv/feeds", {{"table", "nope"}}},
           {"/predictoor/0x12", {}},
           {"/feed/robert'); DROP", {}}}) {
    Response r = Answer(o, path, params);
    EXPECT_EQ(r.status, 400) << path;
    EXPECT_FALSE(r.body.empty()) << path;
  }
  Response r = Answer(o, "/api/feeds", {{"period", "2d"}});
  EXPECT_NE(Json::parse(r.body)["error"].get<std::string>().find("period"), std::string::npos);
}

TEST_F(ServeWorld, CsvEqualsTheApiTable) {
  ServeOptions o = Options();
  Json j = Api(o, "/api/predictoors", {{"period", "1w"}});
  Response csv = Answer(o, "/csv/predictoors", {{"period", "1w"}, {"table", "predictoors"}});
  ASSERT_EQ(csv.status, 200);
  bool attachment = false;
  for (const auto& [k, v] : csv.headers) {
    if (k == "Content-Disposition" && v.rfind("attachment", 0) == 0) attachment = true;
  }
  EXPECT_TRUE(attachment);
  std::vector<std::string> lines;
  std::istringstream in(csv.body);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  const Json& t = j["tables"]["predictoors"];
  ASSERT_EQ(lines.size(), t["rows"].size() + 1);
  std::string header;
  for (const Json& c : t["columns"]) header += (header.empty() ? "" : ",") + c.get<std::string>();
  EXPECT_EQ(lines[0], header);
  for (size_t i = 0; i < t["rows"].size(); ++i) {
    std::string expect;
    for (size_t c = 0; c < t["rows"][i].size(); ++c) {
      const Json& v = t["rows"][i][c];
      expect += (c ? "," : "") + (v.is_null()     ? ""
                                  : v.is_string() ? v.get<std::string>()
                                                  : v.dump());
    }
    EXPECT_EQ(lines[i + 1], expect);
  }
}

TEST_F(ServeWorld, HtmlFollowsTheConventions) {
  ServeOptions o = Options();
  Response r = Answer(o, "/predictoors", {{"period", "1m"}});
  ASSERT_EQ(r.status, 200);
  const std::string& h = r.body;
  for (const char* needle :
       {"<html lang=\"en\">", "<link rel=\"stylesheet\" href=\"/assets/uplot.css\">",
        "<script src=\"/assets/dashboard.js\" defer></script>", "<nav class=\"pl-nav\">",
        "<a href=\"/feeds?period=1m\">", "<header class=\"pl-freshness\">",
        "data-field=\"checkpoint\"", "data-field=\"frontier\"", "data-field=\"holding_back\"",
        "data-field=\"last_run\"", "data-field=\"snapshot_age\"", "<nav class=\"pl-period\">",
        "href=\"/predictoors?period=1m\" aria-current=\"true\">1M</a>",
        "<table class=\"pl-table\" id=\"predictoors\" data-api=\"/api/predictoors?period=1m\" "
        "data-csv=\"/csv/predictoors?table=predictoors&amp;period=1m\">",
        "<a class=\"pl-csv\" href=\"/csv/predictoors?table=predictoors&amp;period=1m\">CSV</a>",
        "<th data-col=\"cash_pnl\"><a "
        "href=\"/predictoors?period=1m&amp;sort=cash_pnl&amp;dir=desc\" "
        "aria-describedby=\"def-predictoors-cash_pnl\">",
        "<a href=\"/predictoors?period=1m\" aria-current=\"page\">Predictoors</a>",
        "<form class=\"pl-search\" role=\"search\" method=\"get\" action=\"/search\">",
        "<td data-col=\"mine\" class=\"pl-more\" data-value=\"true\">"}) {
    EXPECT_NE(h.find(needle), std::string::npos) << needle;
  }
  Response overview = Answer(o, "/", {});
  EXPECT_NE(overview.body.find("<figure class=\"pl-chart\" id=\"pnl_daily\"><figcaption>"),
            std::string::npos);
  EXPECT_NE(overview.body.find("<script type=\"application/json\">{\"x\":["), std::string::npos);
}

TEST_F(ServeWorld, HttpServerOnPortZeroAnswersInParallel) {
  auto server = Listen(Options());
  ASSERT_TRUE(server.ok()) << server.status().message();
  Server& s = **server;
  std::thread runner([&] { EXPECT_TRUE(s.Run().ok()); });
  ASSERT_GT(s.port(), 0);
  EXPECT_EQ(s.Url(), "http://127.0.0.1:" + std::to_string(s.port()) + "/");
  // Slow clients that never finish their request (a header line, then nothing) do not hold the
  // others up.
  std::vector<int> stalled;
  for (int i = 0; i < 3; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(s.port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    const char partial[] = "GET /api/feeds HTTP/1.1\r\nHost: x\r\n";
    ASSERT_GT(::send(fd, partial, sizeof(partial) - 1, 0), 0);
    stalled.push_back(fd);
  }
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i) {
    clients.emplace_back([&] {
      httplib::Client c("127.0.0.1", s.port());
      // The first request opens the snapshot: on a loaded machine that takes longer than
      // httplib's 5 s default, which is not what this test is about.
      c.set_read_timeout(120, 0);
      auto res = c.Get("/api/feeds?period=1d");
      if (!res) {
        ADD_FAILURE() << "no answer: " << httplib::to_string(res.error());
      } else if (res->status != 200) {
        ADD_FAILURE() << res->status << " " << res->body.substr(0, 300);
      } else {
        ++ok;
      }
    });
  }
  for (auto& t : clients) t.join();
  for (int fd : stalled) ::close(fd);
  EXPECT_EQ(ok.load(), 4);
  httplib::Client c("127.0.0.1", s.port());
  auto health = c.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("predlake_snapshot_up 1"), std::string::npos);
  EXPECT_NE(metrics->body.find("predlake_table_rows{table=\"bronze_pdr_predictions\"}"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("predlake_waiting_updates{table=\"pdr_payouts\"}"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("predlake_last_run_info{"), std::string::npos);
  // A second server on the same port: kUsage.
  ServeOptions again = Options();
  again.port = s.port();
  auto busy = Listen(again);
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.status().code(), StatusCode::kUsage);
  s.Stop();
  runner.join();
}

std::string HeaderValue(const Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

// ---- Many readers (docs/serve.md, "Many readers"): the pages computed at once, the pages kept.

// A lake of its own holding a copy of the world's snapshot, so that a test may publish another.
class DashboardWorld : public ServeWorld {
 protected:
  void SetUp() override {
    std::filesystem::copy(
        dir_->path() + "/exports", copy_.path() + "/exports",
        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  }
  ServeOptions Copied() const {
    ServeOptions o = Options();
    o.lake_dir = copy_.path();
    return o;
  }
  // Makes a copy of the current snapshot current, as a new export would (another folder).
  void PublishAgain() {
    namespace fs = std::filesystem;
    const fs::path link = fs::path(copy_.path()) / "exports" / "current";
    const fs::path next = fs::path(copy_.path()) / "exports" / "snapshot-again";
    fs::copy(fs::canonical(link), next, fs::copy_options::recursive);
    const fs::path tmp = fs::path(copy_.path()) / "exports" / "current.tmp";
    fs::create_directory_symlink("snapshot-again", tmp);
    fs::rename(tmp, link);
  }
  TempDir copy_;
};

TEST_F(DashboardWorld, APageIsComputedOnceForItsConcurrentRequestsAndKeptPerSnapshot) {
  const ServeOptions o = Copied();
  Dashboard d(o);
  const std::multimap<std::string, std::string> all = {{"period", "all"}};
  const Response plain = Answer(o, "/predictoors", all);
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(HeaderValue(plain, "X-Cache"), "");
  std::vector<std::thread> readers;
  std::vector<Response> answers(8);
  for (size_t i = 0; i < answers.size(); ++i) {
    readers.emplace_back([&, i] { answers[i] = d.Answer("/predictoors", all); });
  }
  for (std::thread& t : readers) t.join();
  int misses = 0;
  for (const Response& r : answers) {
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, plain.body);  // the same bytes as a page computed for the request
    misses += HeaderValue(r, "X-Cache") == "miss" ? 1 : 0;
    if (HeaderValue(r, "X-Cache") != "miss") {
      EXPECT_EQ(HeaderValue(r, "X-Cache"), "hit");
    }
  }
  EXPECT_EQ(misses, 1);
  EXPECT_EQ(d.cached_pages(), 1u);
  EXPECT_GT(d.cached_bytes(), 1000u);
  EXPECT_LE(d.cached_bytes(), o.page_cache_bytes);

  // The API shares the HTML's page; another period is another page.
  const Response api = d.Answer("/api/predictoors", all);
  EXPECT_EQ(HeaderValue(api, "X-Cache"), "hit");
  EXPECT_EQ(api.body, Answer(o, "/api/predictoors", all).body);
  EXPECT_EQ(HeaderValue(d.Answer("/predictoors", {{"period", "1d"}}), "X-Cache"), "miss");
  EXPECT_EQ(d.cached_pages(), 2u);

  // An error is not kept: an unknown predictoor is computed (and 404) each time.
  const std::string nobody = "/predictoor/0x" + std::string(40, '0');
  for (int i = 0; i < 2; ++i) {
    const Response r = d.Answer(nobody, {});
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(d.cached_pages(), 2u);
  }

  // A new snapshot: its pages are computed anew, and the old snapshot's are dropped.
  PublishAgain();
  const Response again = d.Answer("/predictoors", all);
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(HeaderValue(again, "X-Cache"), "miss");
  EXPECT_EQ(d.cached_pages(), 1u);
  EXPECT_EQ(HeaderValue(d.Answer("/predictoors", all), "X-Cache"), "hit");

  // Without memory for pages, every request computes its own.
  ServeOptions none = o;
  none.page_cache_bytes = 0;
  Dashboard uncached(none);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(HeaderValue(uncached.Answer("/predictoors", all), "X-Cache"), "miss");
  }
  EXPECT_EQ(uncached.cached_pages(), 0u);
}

TEST_F(DashboardWorld, PagesPastTheSlotsWaitWhileCheapAnswersAndKeptPagesDoNot) {
  ServeOptions o = Copied();
  o.page_slots = 1;
  Dashboard d(o);
  EXPECT_EQ(d.page_gate().slots(), 1u);
  const std::multimap<std::string, std::string> all = {{"period", "all"}};
  ASSERT_EQ(d.Answer("/feeds", all).status, 200);  // kept
  // The test holds the one slot: a page to compute waits for it.
  std::optional<http::Gate::Slot> held;
  held.emplace(d.page_gate().Enter());
  std::atomic<bool> answered{false};
  Response waited;
  std::thread reader([&] {
    waited = d.Answer("/predictoors", all);
    answered = true;
  });
  d.page_gate().AwaitWaiting(1);
  // Meanwhile the health check, the metrics, the assets and a kept page answer.
  EXPECT_EQ(d.Answer("/healthz", {}).status, 200);
  EXPECT_EQ(d.Answer("/metrics", {}).status, 200);
  EXPECT_EQ(d.Answer("/assets/dashboard.css", {}).status, 200);
  const Response kept = d.Answer("/feeds", all);
  EXPECT_EQ(kept.status, 200);
  EXPECT_EQ(HeaderValue(kept, "X-Cache"), "hit");
  EXPECT_FALSE(answered.load());
  EXPECT_EQ(d.page_gate().waiting(), 1u);
  held.reset();
  reader.join();
  EXPECT_EQ(waited.status, 200);
  EXPECT_EQ(HeaderValue(waited, "X-Cache"), "miss");
  EXPECT_EQ(d.page_gate().holding(), 0u);
}

// A snapshot written before the gold cash and consensus columns (its manifest's schema lacks them):
// it still opens, and the server computes those columns from bronze, with the same numbers.
TEST_F(ServeWorld, SnapshotWithoutTheGoldColumnsGivesTheSameNumbers) {
  namespace fs = std::filesystem;
  TempDir copy;
  fs::copy(dir_->path() + "/exports", copy.path() + "/exports",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path manifest =
      fs::canonical(fs::path(copy.path()) / "exports" / "current") / "manifest.json";
  Json m = Json::parse(std::ifstream(manifest));
  const std::set<std::string> added = {
      "settled_stake",   "settled_payout",         "cash_pnl",
      "resolved_stake",  "unrevealed_stake",       "refund_pending",
      "refund_claimed",  "consensus_slots",        "consensus_correct_slots",
      "consensus_stake", "consensus_correct_stake"};
  int dropped = 0;
  for (Json& t : m["tables"]) {
    if (t["name"] != "gold_predictoor_daily" && t["name"] != "gold_feed_daily") continue;
    Json kept = Json::array();
    for (const Json& c : t["schema"]) {
      if (added.count(c["name"].get<std::string>())) {
        ++dropped;
      } else {
        kept.push_back(c);
      }
    }
    t["schema"] = kept;
  }
  ASSERT_GT(dropped, 10);
  std::ofstream(manifest) << m.dump(1);
  ServeOptions old = Options();
  old.lake_dir = copy.path();
  for (const char* path : {"/api/predictoors", "/api/feeds", "/api/"}) {
    Json a = Api(Options(), path, {{"period", "all"}});
    Json b = Api(old, path, {{"period", "all"}});
    EXPECT_EQ(a["tables"], b["tables"]) << path;
    EXPECT_EQ(a["charts"], b["charts"]) << path;
  }
}

// ---- Tables that fit, the search, filters, returns (issue 32).

TEST_F(ServeWorld, UnknownParametersAreIgnoredKnownOnesChecked) {
  ServeOptions o = Options();
  Response shared = Answer(o, "/predictoors", {{"utm_source", "x"}, {"fbclid", "1"}});
  EXPECT_EQ(shared.status, 200) << shared.body;
  Response api = Answer(o, "/api/feeds", {{"utm_source", "x"}, {"period", "all"}});
  EXPECT_EQ(api.status, 200);
  // An empty form field is no filter.
  EXPECT_EQ(Answer(o, "/api/predictoors", {{"min_stake", ""}, {"pair", ""}}).status, 200);
  Response bad = Answer(o, "/api/predictoors", {{"utm_source", "x"}, {"min_predictions", "ten"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(Json::parse(bad.body)["error"].get<std::string>().find("min_predictions"),
            std::string::npos);
}

TEST_F(ServeWorld, LenientUrlsServeTheCanonicalPage) {
  ServeOptions o = Options();
  std::string upper = (*mine_)[0];
  for (size_t i = 2; i < upper.size(); ++i) upper[i] = static_cast<char>(std::toupper(upper[i]));
  Json canonical = Api(o, "/api/predictoor/" + (*mine_)[0], {{"period", "all"}});
  Json lenient = Api(o, "/api/predictoor/" + upper + "/", {{"period", "all"}});
  EXPECT_EQ(lenient["page"], "/predictoor/" + (*mine_)[0]);
  EXPECT_EQ(lenient["tables"], canonical["tables"]);
  EXPECT_EQ(Answer(o, "/predictoor/" + upper + "/", {}).status, 200);
  EXPECT_EQ(Answer(o, "/predictoors/", {}).status, 200);
  EXPECT_EQ(Answer(o, "/feeds//", {}).status, 200);
}

TEST_F(ServeWorld, SearchRedirectsOnOneMatchAndListsSeveral) {
  ServeOptions o = Options();
  // The shortest prefix (4 hex digits or more) of the first predictoor that nothing else holds.
  auto addresses =
      Sql("SELECT DISTINCT user FROM bronze_pdr_predictions UNION SELECT ID FROM pdr_contracts "
          "UNION SELECT DISTINCT contract FROM bronze_pdr_predictions");
  const std::string target = (*mine_)[0];
  std::string prefix;
  for (size_t n = 4; n <= 40 && prefix.empty(); ++n) {
    const std::string digits = target.substr(2, n);
    int holders = 0;
    for (const auto& a : addresses) holders += a[0]->find(digits) != std::string::npos ? 1 : 0;
    if (holders == 1) prefix = digits;
  }
  ASSERT_FALSE(prefix.empty());
  std::string shouted = prefix;
  for (char& c : shouted) c = static_cast<char>(std::toupper(c));
  for (const std::string& q : {prefix, "0x" + prefix, "0X" + shouted, "  " + shouted + " "}) {
    Response r = Answer(o, "/search", {{"q", q}});
    EXPECT_EQ(r.status, 303) << q << ": " << r.body;
    EXPECT_EQ(HeaderValue(r, "Location"), "/predictoor/" + target) << q;
  }
  Response kept = Answer(o, "/search", {{"q", prefix}, {"period", "1m"}});
  EXPECT_EQ(HeaderValue(kept, "Location"), "/predictoor/" + target + "?period=1m");
  // A pair: every feed of it, listed (or opened when there is one).
  auto pairs =
      Sql("SELECT pair, count(*) FROM pdr_contracts GROUP BY pair ORDER BY count(*) DESC, pair");
  ASSERT_FALSE(pairs.empty());
  const std::string pair = *pairs[0][0];
  const int64_t feeds = std::stoll(*pairs[0][1]);
  std::string pair_q = pair;
  for (char& c : pair_q) c = c == '/' ? '-' : static_cast<char>(std::tolower(c));
  Response by_pair = Answer(o, "/api/search", {{"q", pair_q}});
  ASSERT_EQ(by_pair.status, 200) << by_pair.body;
  Json found = Json::parse(by_pair.body);
  EXPECT_GE(static_cast<int64_t>(found["tables"]["feeds"]["rows"].size()), feeds);
  for (const Json& row : found["tables"]["feeds"]["rows"]) {
    std::string p = row[Col(found["tables"]["feeds"], "pair")];
    for (char& c : p) c = static_cast<char>(std::tolower(c));
    std::string want = pair;
    for (char& c : want) c = static_cast<char>(std::tolower(c));
    EXPECT_NE(p.find(want), std::string::npos) << p;
  }
  if (feeds > 1) {
    Response list = Answer(o, "/search", {{"q", pair_q}});
    EXPECT_EQ(list.status, 200);
    EXPECT_NE(list.body.find(fmt::format("{} matches", feeds)), std::string::npos);
    EXPECT_NE(list.body.find("<a href=\"/feed/0x"), std::string::npos);
  }
  // Several predictoors: "0x" alone is too short, a single hex digit shared by many lists them.
  Response few = Answer(o, "/search", {{"q", "0x1"}});
  EXPECT_EQ(few.status, 200);
  EXPECT_NE(few.body.find("at least 4 hexadecimal digits"), std::string::npos);
  Response none = Answer(o, "/search", {{"q", "zzzz-nothing"}});
  EXPECT_EQ(none.status, 200);
  EXPECT_NE(none.body.find("Nothing matches"), std::string::npos);
  EXPECT_EQ(Answer(o, "/search", {}).status, 200);
}

TEST_F(ServeWorld, MyAddressWithoutPredictionsIsShown) {
  ServeOptions o = Options();
  const std::string idle = "0x" + std::string(36, '0') + "abcd";
  o.my_addresses.push_back(idle);
  Json j = Api(o, "/api/predictoors", {{"period", "all"}});
  const Json& t = j["tables"]["predictoors"];
  bool seen = false;
  for (const Json& row : t["rows"]) {
    if (row[Col(t, "user")] != idle) continue;
    seen = true;
    EXPECT_TRUE(row[Col(t, "mine")].get<bool>());
    EXPECT_EQ(row[Col(t, "predictions")].get<int64_t>(), 0);
    EXPECT_TRUE(row[Col(t, "rank")].is_null());
  }
  EXPECT_TRUE(seen);
  Response html = Answer(o, "/predictoors", {});
  EXPECT_NE(html.body.find("no predictions yet"), std::string::npos);
  Response page = Answer(o, "/predictoor/" + idle, {});
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("No predictions yet"), std::string::npos);
  // The ranks of the others stay 1, 2, ...
  std::vector<int64_t> ranks;
  for (const Json& row : t["rows"]) {
    if (!row[Col(t, "rank")].is_null()) ranks.push_back(row[Col(t, "rank")].get<int64_t>());
  }
  std::sort(ranks.begin(), ranks.end());
  for (size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(ranks[i], static_cast<int64_t>(i + 1));
}

// ROI and its annualised rate (docs/serve.md, "Column definitions") against SQL over the raw
// predictions: cash P&L over the stake of the paying slots, times 365 over the slot days with a
// prediction.
TEST_F(ServeWorld, ReturnsEqualTheirDefinitionsOnTheRawTables) {
  const std::string raw =
      "SELECT {key}, (coalesce(sum(payout) FILTER (WHERE status = 'paying'), 0) - "
      "coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0))::DOUBLE, "
      "coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0)::DOUBLE, "
      "count(DISTINCT slot // 86400) FROM bronze_pdr_predictions GROUP BY 1";
  for (const auto& [path, table, key] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"/api/predictoors", "predictoors", "user"}, {"/api/feeds", "feeds", "contract"}}) {
    Json j = Api(Options(), path, {{"period", "all"}});
    const Json& t = j["tables"][table];
    std::map<std::string, Json> rows;
    for (const Json& row : t["rows"]) rows[row[Col(t, key)]] = row;
    std::string sql = raw;
    sql.replace(sql.find("{key}"), 5, key);
    auto expected = Sql(sql);
    ASSERT_GT(expected.size(), 1u);
    int checked = 0;
    for (const auto& e : expected) {
      const Json& row = rows[*e[0]];
      ASSERT_FALSE(row.is_null()) << *e[0];
      const double cash = std::stod(*e[1]), stake = std::stod(*e[2]);
      const int64_t days = std::stoll(*e[3]);
      EXPECT_EQ(row[Col(t, "days_active")].get<int64_t>(), days) << *e[0];
      if (stake > 0) {
        EXPECT_NEAR(row[Col(t, "cash_roi")].get<double>(), cash / stake, 1e-9) << *e[0];
        EXPECT_NEAR(row[Col(t, "apr")].get<double>(), cash / stake * 365.0 / days, 1e-7) << *e[0];
        ++checked;
      } else {
        EXPECT_TRUE(row[Col(t, "cash_roi")].is_null()) << *e[0];
      }
    }
    EXPECT_GT(checked, 1) << table;
  }
}

TEST_F(ServeWorld, FiltersKeepTheRowsTheySayAndStayInTheLinks) {
  ServeOptions o = Options();
  Json all = Api(o, "/api/predictoors", {{"period", "all"}});
  const Json& t = all["tables"]["predictoors"];
  std::vector<int64_t> counts;
  for (const Json& row : t["rows"]) counts.push_back(row[Col(t, "predictions")].get<int64_t>());
  std::sort(counts.begin(), counts.end());
  const int64_t median = counts[counts.size() / 2];
  auto n_at_least =
      Sql("SELECT count(*) FROM (SELECT user FROM bronze_pdr_predictions GROUP BY user HAVING "
          "count(*) >= " +
          std::to_string(median) + ")");
  Json kept =
      Api(o, "/api/predictoors", {{"period", "all"}, {"min_predictions", std::to_string(median)}});
  const Json& k = kept["tables"]["predictoors"];
  EXPECT_EQ(static_cast<int64_t>(k["rows"].size()), std::stoll(*n_at_least[0][0]));
  for (const Json& row : k["rows"]) {
    EXPECT_GE(row[Col(k, "predictions")].get<int64_t>(), median);
  }
  // Accuracy from 50 to 55 %: every row's accuracy inside.
  Json acc = Api(o, "/api/predictoors", {{"period", "all"}, {"acc_min", "50"}, {"acc_max", "55"}});
  for (const Json& row : acc["tables"]["predictoors"]["rows"]) {
    const double a = row[Col(k, "accuracy")].get<double>();
    EXPECT_GE(a, 0.5);
    EXPECT_LE(a, 0.55);
  }
  // A pair: a predictoor's figures become those on that pair's feeds.
  auto pair =
      Sql("SELECT pair, timeframe FROM bronze_pdr_predictions GROUP BY ALL ORDER BY "
          "count(*) DESC LIMIT 1");
  const std::string p = *pair[0][0], tf = *pair[0][1];
  auto per_user = Sql("SELECT user, count(*) FROM bronze_pdr_predictions WHERE pair = '" + p +
                      "' AND timeframe = '" + tf + "' GROUP BY user");
  Json by_pair = Api(o, "/api/predictoors",
                     {{"period", "all"}, {"pair", p}, {"timeframe", tf}, {"min_predictions", "1"}});
  const Json& bp = by_pair["tables"]["predictoors"];
  EXPECT_EQ(bp["rows"].size(), per_user.size());
  std::map<std::string, int64_t> expect;
  for (const auto& r : per_user) expect[*r[0]] = std::stoll(*r[1]);
  for (const Json& row : bp["rows"]) {
    EXPECT_EQ(row[Col(bp, "predictions")].get<int64_t>(), expect[row[Col(bp, "user")]]);
  }
  Json feeds = Api(o, "/api/feeds", {{"period", "all"}, {"pair", p}});
  const Json& f = feeds["tables"]["feeds"];
  auto n_feeds = Sql("SELECT count(*) FROM pdr_contracts WHERE pair = '" + p + "'");
  EXPECT_EQ(static_cast<int64_t>(f["rows"].size()), std::stoll(*n_feeds[0][0]));
  for (const Json& row : f["rows"]) EXPECT_EQ(row[Col(f, "pair")], p);
  // Kept in the sort links and shown in the form.
  Response html = Answer(o, "/feeds", {{"min_predictions", "3"}, {"pair", p}});
  ASSERT_EQ(html.status, 200);
  EXPECT_NE(html.body.find("sort=predictions&amp;dir=desc&amp;min_predictions=3&amp;pair="),
            std::string::npos);
  EXPECT_NE(html.body.find("name=\"min_predictions\" type=\"number\" min=\"0\" step=\"1\" "
                           "size=\"6\" value=\"3\""),
            std::string::npos);
}

TEST_F(ServeWorld, PagingSplitsALongTableWithItsCount) {
  ServeOptions o = Options();
  Json all = Api(o, "/api/predictoors", {{"period", "all"}});
  const Json& t = all["tables"]["predictoors"];
  const size_t n = t["rows"].size();
  ASSERT_GT(n, 4u);
  Json second = Api(o, "/api/predictoors", {{"period", "all"}, {"per_page", "2"}, {"page", "2"}});
  const Json& s = second["tables"]["predictoors"];
  ASSERT_EQ(s["rows"].size(), 2u);
  EXPECT_EQ(s["paging"], (Json{{"page", 2}, {"per_page", 2}, {"total_rows", n}}));
  EXPECT_EQ(t["paging"]["page"], 0);  // every row
  EXPECT_EQ(s["rows"][0], t["rows"][2]);
  EXPECT_EQ(s["rows"][1], t["rows"][3]);
  // A page past the last shows the last.
  Json last = Api(o, "/api/predictoors", {{"period", "all"}, {"per_page", "2"}, {"page", "999"}});
  EXPECT_EQ(last["tables"]["predictoors"]["rows"].back(), t["rows"][n - 1]);
  // The HTML shows the first page when none is asked for, with the count and the page links.
  Response html = Answer(o, "/predictoors", {{"period", "all"}, {"per_page", "2"}});
  ASSERT_EQ(html.status, 200);
  EXPECT_NE(html.body.find(fmt::format("Rows 1 to 2 of {}", n)), std::string::npos);
  EXPECT_NE(html.body.find("data-api=\"/api/predictoors?period=all&amp;page=1&amp;per_page=2\""),
            std::string::npos);
  EXPECT_NE(
      html.body.find("href=\"/predictoors?period=all&amp;page=2&amp;per_page=2\" rel=\"next\""),
      std::string::npos);
  size_t rows = 0;
  for (size_t at = html.body.find("<td data-col=\"rank\""); at != std::string::npos;
       at = html.body.find("<td data-col=\"rank\"", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 2u + 1u);  // the page's 2 and the total row of my addresses
}

// Every column of every table has one definition (columns.cpp), docs/serve.md lists exactly those
// definitions, and the columns a table shows first are its columns, the sort column among the
// shown.
TEST_F(ServeWorld, EveryColumnHasTheDefinitionTheDocsGive) {
  ServeOptions o = Options();
  Json feeds = Api(o, "/api/feeds", {{"period", "all"}});
  const std::string contract =
      feeds["tables"]["feeds"]["rows"][0][Col(feeds["tables"]["feeds"], "contract")];
  std::set<std::string> used;
  for (const std::string& path :
       {std::string("/"), std::string("/predictoors"), std::string("/feeds"), std::string("/runs"),
        "/predictoor/" + (*mine_)[0], "/feed/" + contract, std::string("/search")}) {
    Json j = Api(o, "/api" + path, {{"period", "all"}, {"q", "0x" + (*mine_)[0].substr(2, 2)}});
    for (const auto& [id, table] : j["tables"].items()) {
      std::set<std::string> cols;
      for (const Json& c : table["columns"]) {
        const std::string name = c;
        cols.insert(name);
        used.insert(name);
        EXPECT_NE(FindColumnDef(name), nullptr) << path << " " << id << ": " << name;
      }
      if (const auto* main = MainColumns(path, id)) {
        for (const std::string& m : *main) {
          EXPECT_TRUE(cols.count(m)) << path << " " << id << " lists " << m;
        }
      }
    }
  }
  for (const ColumnDef& d : ColumnDefs()) {
    EXPECT_TRUE(used.count(std::string(d.name))) << "no table has " << d.name;
  }
  std::string expected;
  for (const ColumnDef& d : ColumnDefs()) {
    expected += fmt::format("| `{}` | {} |\n", d.name, d.definition);
  }
  std::ifstream in(test_support::SourceDir() + "/docs/serve.md");
  ASSERT_TRUE(in) << "cannot read docs/serve.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- columns: begin -->\n| column | definition |\n|---|---|\n";
  const size_t from = doc.find(begin);
  const size_t to = doc.find("<!-- columns: end -->");
  ASSERT_NE(from, std::string::npos) << "docs/serve.md lacks " << begin;
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()), expected)
      << "docs/serve.md's column definitions differ from src/serve/columns.cpp; the section is:\n"
      << begin << expected << "<!-- columns: end -->";
  // The sort column is shown whatever it is; the others wait behind "more columns".
  Response sorted = Answer(o, "/predictoors", {{"sort", "refund_pending"}});
  EXPECT_NE(sorted.body.find("<th data-col=\"refund_pending\"><a"), std::string::npos);
  EXPECT_NE(sorted.body.find("<th data-col=\"refund_claimed\" class=\"pl-more\">"),
            std::string::npos);
  EXPECT_NE(sorted.body.find(
                "<input type=\"checkbox\" class=\"pl-more-toggle\" id=\"more-predictoors\">"),
            std::string::npos);
  Response every = Answer(o, "/predictoors", {{"cols", "all"}});
  EXPECT_NE(every.body.find("id=\"more-predictoors\" checked>"), std::string::npos);
}

TEST(ServeCandles, AFailingExchangeShowsInTheHeaderAndMetrics) {
  // An exchange this host cannot use (451): the lake is built and exported all the same, and the
  // dashboard's header and /metrics say which candle streams fail and why.
  TempDir dir;
  auto world = raw::rawtest::SmallWorld("2024-07-25", "2024-07-25_06:00");
  auto engine = raw::rawtest::MakeEngine(world);
  auto state = std::make_shared<raw::rawtest::FakeExchangeState>();
  state->refuse = gql::HttpResponse{
      451, R"({"code":0,"msg":"Service unavailable from a restricted location"})", std::nullopt};
  raw::rawtest::NoSleep sleep;
  jobs::UpdateRequest r;
  r.writer.lake_dir = dir.path();
  r.writer.export_after = exports::ExportOptions{};
  r.start_ms = Ms(world.start);
  r.end_ms = [](int64_t now_ms) -> Result<int64_t> { return now_ms; };
  r.factory = raw::rawtest::SimFactory(engine);
  r.exchange = raw::rawtest::FakeExchangeFactory(engine, state);
  r.sleeper = &sleep;
  auto report = jobs::Update(r, Ms(world.now));
  ASSERT_TRUE(report.ok()) << report.status().message();
  ServeOptions o;
  o.lake_dir = dir.path();
  FixedClock clock{Ms("2024-07-25_06:05")};
  o.clock = &clock;
  Response m = Answer(o, "/metrics", {});
  ASSERT_EQ(m.status, 200);
  EXPECT_NE(m.body.find("predlake_ohlcv_stream_up{stream=\"pdr_ohlcv:binance:BTC/USDT:5m\","
                        "status=\"failing\"} 0"),
            std::string::npos)
      << m.body;
  EXPECT_NE(m.body.find("predlake_ohlcv_stream_behind_seconds{stream=\"pdr_ohlcv:binance:BTC/"
                        "USDT:5m\"}"),
            std::string::npos);
  Response page = Answer(o, "/", {});
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("6 of 6 streams failing"), std::string::npos);
  EXPECT_NE(page.body.find("restricted location"), std::string::npos);
}

TEST(ServeNoSnapshot, PagesAndHealthzAre503) {
  TempDir dir;
  ServeOptions o;
  o.lake_dir = dir.path();
  for (const char* path : {"/", "/api/predictoors", "/csv/feeds", "/healthz"}) {
    std::multimap<std::string, std::string> params;
    if (std::string(path) == "/csv/feeds") params.emplace("table", "feeds");
    Response r = Answer(o, path, params);
    EXPECT_EQ(r.status, 503) << path;
    EXPECT_NE(r.body.find("snapshot"), std::string::npos) << path << ": " << r.body;
  }
  Response m = Answer(o, "/metrics", {});
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.body.find("predlake_snapshot_up 0"), std::string::npos);
}

}  // namespace
}  // namespace predlake::serve
