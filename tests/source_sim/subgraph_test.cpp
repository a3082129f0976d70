#include "source/sim/subgraph.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "sim_test_util.hpp"
#include "source/sim/dump.hpp"
#include "support/seeds.hpp"

namespace predlake::sim {
namespace {

using nlohmann::json;
using simtest::Ask;
using simtest::ErrorOf;
using simtest::MakeEngine;
using simtest::Ms;
using simtest::SmallConfig;

const char* kContractFields =
    "predictContract { id secondsPerEpoch token { name nft { nftData { key value } } } }";

std::string HexToString(const std::string& hex) {
  std::string s;
  for (size_t i = 2; i + 1 < hex.size(); i += 2) {
    s.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return s;
}

// pair, timeframe, source from a contract's nftData.
std::vector<std::string> FeedOf(const json& contract) {
  std::vector<std::string> out(3);
  static const char* kKeys[3] = {
      "0x2cef5778d97683b4f64607f72e862fc0c92376e44cc61195ef72a634c0b1793e",
      "0x49435d2ff85f9f3594e40e887943d562765d026d50b7383e76891f8190bff4c9",
      "0xf7e3126f87228afb82c9b18537eed25aaeb8171a78814781c26ed2cfeff27e69"};
  for (const auto& d : contract["token"]["nft"]["nftData"]) {
    for (int i = 0; i < 3; ++i) {
      if (d["key"] == kKeys[i]) out[static_cast<size_t>(i)] = HexToString(d["value"]);
    }
  }
  return out;
}

std::string Ts(const json& v) { return std::to_string(v.get<int64_t>() * 1000); }
std::string B(const json& v) { return v.is_null() ? "" : (v.get<bool>() ? "true" : "false"); }

struct TableSpec {
  std::string entity;
  std::string selection;
  std::function<std::vector<std::string>(const json&)> to_row;
};

TableSpec Spec(const std::string& table) {
  if (table == "pdr_predictions") {
    return {"predictPredictions",
            std::string("id timestamp stake user { id } slot { slot ") + kContractFields + " }",
            [](const json& r) {
              const auto feed = FeedOf(r["slot"]["predictContract"]);
              return std::vector<std::string>{r["id"],
                                              r["slot"]["predictContract"]["id"],
                                              feed[0],
                                              feed[1],
                                              "",
                                              r["stake"],
                                              "",
                                              Ts(r["timestamp"]),
                                              feed[2],
                                              "",
                                              std::to_string(r["slot"]["slot"].get<int64_t>()),
                                              r["user"]["id"]};
            }};
  }
  if (table == "pdr_truevals") {
    return {"predictTrueVals",
            std::string("id timestamp trueValue slot { slot revenue roundSumStakesUp "
                        "roundSumStakes ") +
                kContractFields + " }",
            [](const json& r) {
              const json& s = r["slot"];
              return std::vector<std::string>{r["id"],
                                              FeedOf(s["predictContract"])[0],
                                              Ts(r["timestamp"]),
                                              B(r["trueValue"]),
                                              std::to_string(s["slot"].get<int64_t>()),
                                              s["revenue"],
                                              s["roundSumStakesUp"],
                                              s["roundSumStakes"]};
            }};
  }
  if (table == "pdr_payouts") {
    return {"predictPayouts",
            std::string("id timestamp payout predictedValue trueValue prediction { stake user { id "
                        "} slot { slot ") +
                kContractFields + " } }",
            [](const json& r) {
              const json& p = r["prediction"];
              return std::vector<std::string>{r["id"],
                                              FeedOf(p["slot"]["predictContract"])[0],
                                              p["user"]["id"],
                                              std::to_string(p["slot"]["slot"].get<int64_t>()),
                                              Ts(r["timestamp"]),
                                              r["payout"],
                                              B(r["predictedValue"]),
                                              B(r["trueValue"]),
                                              p["stake"]};
            }};
  }
  return {"predictSubscriptions",
          std::string("id timestamp txId user { id } ") +
              "predictContract { id token { name lastPriceValue nft { nftData { key value } } } }",
          [](const json& r) {
            const auto feed = FeedOf(r["predictContract"]);
            return std::vector<std::string>{r["id"],
                                            feed[0],
                                            feed[1],
                                            feed[2],
                                            r["txId"],
                                            r["predictContract"]["token"]["lastPriceValue"],
                                            Ts(r["timestamp"]),
                                            r["user"]["id"]};
          }};
}

// Pages through [start_s, end_s) with the fetcher's cursor scheme and returns the rows.
std::vector<std::vector<std::string>> PageAll(const Engine& e, const std::string& table,
                                              int64_t start_s, int64_t end_s, int page_size,
                                              int* pages = nullptr) {
  const TableSpec spec = Spec(table);
  std::vector<std::vector<std::string>> rows;
  int64_t last_ts = start_s - 1;
  std::string last_id;
  int n = 0;
  for (;;) {
    if (!last_id.empty()) {
      // Finish the rows that share the last timestamp.
      for (;;) {
        json page = Ask(e,
                        "query Q($ts: Int!, $id: String!, $n: Int!) { rows: " + spec.entity +
                            "(first: $n, orderBy: id, where: {timestamp: $ts, id_gt: $id}) { " +
                            spec.selection + " } }",
                        {{"ts", last_ts}, {"id", last_id}, {"n", page_size}});
        ++n;
        const json& list = page["data"]["rows"];
        for (const auto& r : list) rows.push_back(spec.to_row(r));
        if (!list.empty()) last_id = list.back()["id"];
        if (static_cast<int>(list.size()) < page_size) break;
      }
    }
    json page = Ask(e, "{ rows: " + spec.entity + "(first: " + std::to_string(page_size) +
                           ", orderBy: timestamp, orderDirection: asc, where: {timestamp_gt: " +
                           std::to_string(last_ts) + ", timestamp_lt: " + std::to_string(end_s) +
                           "}) { " + spec.selection + " } }");
    ++n;
    const json& list = page["data"]["rows"];
    if (list.empty()) break;
    for (const auto& r : list) rows.push_back(spec.to_row(r));
    last_ts = list.back()["timestamp"];
    last_id = list.back()["id"];
  }
  if (pages) *pages = n;
  return rows;
}

TEST(SubgraphTest, CursorPagingEqualsTheDump) {
  auto e = MakeEngine(SmallConfig("2024-07-25", "2024-07-25_05:00"));
  const int64_t start_s = Ms("2024-07-25") / 1000;
  const int64_t end_s = Ms("2024-07-25_03:30") / 1000;
  for (const std::string table :
       {"pdr_predictions", "pdr_truevals", "pdr_payouts", "pdr_subscriptions"}) {
    auto truth = DumpRows(*e, table, end_s * 1000);
    ASSERT_TRUE(truth.ok());
    ASSERT_GT(truth->rows.size(), 10u) << table;
    int pages = 0;
    // A small page size forces many pages and many ties on one timestamp.
    auto paged = PageAll(*e, table, start_s, end_s, 61, &pages);
    EXPECT_EQ(paged, truth->rows) << table;
    EXPECT_GT(pages, 2) << table;
    std::set<std::string> ids;
    for (const auto& r : paged) ids.insert(r[0]);
    EXPECT_EQ(ids.size(), paged.size()) << table << ": an event came twice";
  }
}

TEST(SubgraphTest, SlotsPagedBySlotEqualTheDump) {
  auto e = MakeEngine(SmallConfig("2024-07-25", "2024-07-25_05:00"));
  const int64_t to_s = Ms("2024-07-25_04:00") / 1000;
  auto truth = DumpRows(*e, "pdr_slots", e->HeadMs());
  ASSERT_TRUE(truth.ok());
  std::vector<std::vector<std::string>> got;
  int64_t last = 0;
  for (;;) {
    json page = Ask(*e, "{ predictSlots(first: 1000, orderBy: slot, where: {slot_gt: " +
                            std::to_string(last) + ", slot_lt: " + std::to_string(to_s) +
                            "}) { id slot status roundSumStakesUp roundSumStakes trueValues { "
                            "trueValue } } }");
    const json& list = page["data"]["predictSlots"];
    if (list.empty()) break;
    for (const auto& s : list) {
      const int64_t slot = s["slot"];
      got.push_back({s["id"], std::to_string(slot * 1000), std::to_string(slot),
                     s["trueValues"].empty() ? "" : B(s["trueValues"][0]["trueValue"]),
                     s["roundSumStakesUp"], s["roundSumStakes"], s["status"]});
    }
    last = list.back()["slot"];
    // Pages end at a slot boundary only when every feed's row for that slot is in; re-ask from the
    // slot before to be safe and drop what we already have.
    if (list.size() == 1000) {
      const int64_t boundary = last;
      while (!got.empty() && std::stoll(got.back()[2]) == boundary) got.pop_back();
      last = boundary - 1;
    }
  }
  std::vector<std::vector<std::string>> expected;
  for (const auto& r : truth->rows) {
    if (std::stoll(r[2]) < to_s) expected.push_back(r);
  }
  std::sort(got.begin(), got.end(), [](const auto& a, const auto& b) {
    return a[1] != b[1] ? std::stoll(a[1]) < std::stoll(b[1]) : a[0] < b[0];
  });
  EXPECT_EQ(got, expected);
}

TEST(SubgraphTest, MetaIsTheHead) {
  config::SimConfig c = SmallConfig();
  c.indexing_lag_ms = 45'500;
  auto e = MakeEngine(c);
  json j = Ask(*e, "{ _meta { block { number timestamp } hasIndexingErrors } }");
  const int64_t head_s = (Ms(c.now) - 45'500) / 1000;
  EXPECT_EQ(j["data"]["_meta"]["block"]["timestamp"], head_s);
  EXPECT_GT(j["data"]["_meta"]["block"]["number"].get<int64_t>(), 1000000);
  EXPECT_EQ(j["data"]["_meta"]["hasIndexingErrors"], false);
  // A later now gives a later block.
  config::SimConfig later = c;
  later.now = "2024-07-25_07:00";
  json k = Ask(*MakeEngine(later), "{ _meta { block { number } } }");
  EXPECT_GT(k["data"]["_meta"]["block"]["number"], j["data"]["_meta"]["block"]["number"]);
}

TEST(SubgraphTest, NumberGteAnswersAtTheHeadOrSaysNotYetIndexed) {
  config::SimConfig c = SmallConfig();
  auto e = MakeEngine(c);
  json j = Ask(*e, "{ _meta { block { number } } }");
  const int64_t head = j["data"]["_meta"]["block"]["number"].get<int64_t>();
  const std::string at = std::to_string(head);
  json k = Ask(*e, "{ a: predictPredictions(block: {number_gte: " + at +
                       "}, first: 2) { id } m: _meta(block: {number_gte: " + at +
                       "}) { block { number } } }");
  ASSERT_TRUE(k.contains("data")) << k.dump();
  EXPECT_EQ(k["data"]["m"]["block"]["number"], head);
  EXPECT_EQ(k["data"]["a"].size(), 2u);
  const std::string ahead = std::to_string(head + 1);
  json l = Ask(*e, "{ predictPredictions(block: {number_gte: " + ahead + "}) { id } }");
  ASSERT_TRUE(l.contains("errors")) << l.dump();
  EXPECT_EQ(l["errors"][0]["message"],
            "Failed to decode `block.number_gte` value: `subgraph predlake-sim has only indexed up "
            "to block number " +
                at + " and data for block number " + ahead + " is therefore not yet available`");
}

TEST(SubgraphTest, NothingPastTheHeadIsVisible) {
  config::SimConfig c = SmallConfig();
  c.indexing_lag_ms = 5 * 60 * 1000;
  auto e = MakeEngine(c);
  const int64_t head_s = e->HeadMs() / 1000;
  for (const std::string entity :
       {"predictPredictions", "predictTrueVals", "predictPayouts", "predictSubscriptions"}) {
    json j = Ask(*e, "{ x: " + entity +
                         "(first: 5, orderBy: timestamp, orderDirection: desc, where: "
                         "{timestamp_lt: 99999999999}) { id timestamp } }");
    const json& list = j["data"]["x"];
    ASSERT_FALSE(list.empty()) << entity;
    EXPECT_LE(list[0]["timestamp"].get<int64_t>(), head_s) << entity;
    EXPECT_GT(list[0]["timestamp"].get<int64_t>(), head_s - 3600) << entity;
    for (size_t i = 1; i < list.size(); ++i) {
      EXPECT_GE(list[i - 1]["timestamp"], list[i]["timestamp"]);
    }
  }
  // A prediction's payout is null while its claim lies past the head.
  json j = Ask(*e,
               "{ predictPredictions(first: 1000, orderBy: timestamp, orderDirection: desc) { "
               "timestamp payout { timestamp } slot { status } } }");
  int null_payouts = 0;
  for (const auto& p : j["data"]["predictPredictions"]) {
    if (p["payout"].is_null()) {
      ++null_payouts;
    } else {
      EXPECT_LE(p["payout"]["timestamp"].get<int64_t>(), head_s);
    }
  }
  EXPECT_GT(null_payouts, 0);
}

TEST(SubgraphTest, RefundsCarryTrueValueFalse) {
  // PredictPayout.trueValue is Boolean! on the real subgraph: a refund (canceled slot) carries the
  // contract's default, false, never null, and a trueValue filter treats it as false.
  config::SimConfig c = SmallConfig("2024-07-20", "2024-07-25_06:00");
  auto e = MakeEngine(c);
  int refunds = 0;
  int64_t after = 0;
  for (int page = 0; page < 50 && refunds == 0; ++page) {
    json j = Ask(*e,
                 "{ predictPayouts(first: 1000, orderBy: timestamp, where: {trueValue: false, "
                 "timestamp_gt: " +
                     std::to_string(after) +
                     "}) { timestamp trueValue prediction { slot { status } } } }");
    const json& list = j["data"]["predictPayouts"];
    if (list.empty()) break;
    for (const auto& p : list) {
      ASSERT_TRUE(p["trueValue"].is_boolean());
      EXPECT_FALSE(p["trueValue"].get<bool>());
      if (p["prediction"]["slot"]["status"] == "Canceled") ++refunds;
    }
    after = list.back()["timestamp"].get<int64_t>();
  }
  EXPECT_GT(refunds, 0) << "the world should cancel some slots";
}

TEST(SubgraphTest, AReSubmittedPredictionIsOverwrittenOnceTheHeadPassesIt) {
  // The subgraph overwrites the entity (same id; new timestamp, stake, block, txId): a head between
  // the two submissions serves the first, a later one only the latest, and the dump has the
  // version held at the head.
  config::SimConfig c = SmallConfig();
  c.resubmitted_predictions = 0.3;
  c.indexing_lag_ms = 0;
  auto base = MakeEngine(c);
  const World& w = base->world();
  const Feed& f = w.feeds()[0];
  std::optional<Prediction> found;
  int64_t slot = f.first_slot + 5 * f.epoch;
  for (; !found && slot < f.first_slot + 200 * f.epoch; slot += f.epoch) {
    for (int p : f.predictoors) {
      std::optional<Prediction> made = w.MakePrediction(f.index, slot, p);
      if (made && made->resubmitted) {
        found = made;
        break;
      }
    }
  }
  ASSERT_TRUE(found) << "no re-submitted prediction";
  slot -= f.epoch;
  ASSERT_LT(found->first_ts, found->ts);
  ASSERT_LT(found->ts, slot);
  const std::string id = f.contract + "-" + std::to_string(slot) + "-" +
                         w.predictoors()[static_cast<size_t>(found->predictoor)].address;
  auto seen_at = [&](int64_t now_s) {
    config::SimConfig cc = c;
    cc.now = std::to_string(now_s * 1000);
    json j = Ask(*MakeEngine(cc), "{ predictPredictions(where: {id: \"" + id +
                                      "\"}) { timestamp stake block txId } }");
    return j["data"]["predictPredictions"];
  };
  json before = seen_at(found->first_ts - 1);
  EXPECT_TRUE(before.empty());
  json first = seen_at(found->ts - 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]["timestamp"], found->first_ts);
  EXPECT_EQ(first[0]["stake"], FormatWei(found->first_stake));
  json latest = seen_at(found->ts + 1);
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest[0]["timestamp"], found->ts);
  EXPECT_EQ(latest[0]["stake"], FormatWei(found->stake));
  EXPECT_NE(latest[0]["txId"], first[0]["txId"]);
  EXPECT_NE(found->stake, found->first_stake);
  // A window query at the later head finds it once, at its new time, not at the first.
  config::SimConfig cc = c;
  cc.now = std::to_string((found->ts + 1) * 1000);
  auto later = MakeEngine(cc);
  json at_first =
      Ask(*later, "{ predictPredictions(where: {timestamp: " + std::to_string(found->first_ts) +
                      "}) { id } }");
  for (const auto& p : at_first["data"]["predictPredictions"]) EXPECT_NE(p["id"], id);
}

TEST(SubgraphTest, SlotStatusEvolvesWithTheHead) {
  // The same slot seen by engines at different nows.
  config::SimConfig c = SmallConfig();
  c.indexing_lag_ms = 0;
  auto base = MakeEngine(c);
  const World& w = base->world();
  const Feed& f = w.feeds()[2];
  int64_t slot = f.first_slot + 10 * f.epoch;
  while (w.ComputeSlot(f.index, slot).canceled) slot += f.epoch;
  const SlotInfo info = w.ComputeSlot(f.index, slot);
  auto status_at = [&](int64_t now_s) {
    config::SimConfig cc = c;
    cc.now = std::to_string(now_s * 1000);
    json j = Ask(*MakeEngine(cc), "{ predictSlots(where: {id: \"" + f.contract + "-" +
                                      std::to_string(slot) +
                                      "\"}) { status roundSumStakes trueValues { id } } }");
    return j["data"]["predictSlots"];
  };
  json pending = status_at(slot - 1);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0]["status"], "Pending");
  EXPECT_TRUE(pending[0]["trueValues"].empty());
  json paying = status_at(info.trueval_ts);
  EXPECT_EQ(paying[0]["status"], "Paying");
  EXPECT_EQ(paying[0]["roundSumStakes"], FormatWei(info.total_stake));
  EXPECT_EQ(paying[0]["trueValues"].size(), 1u);
}

TEST(SubgraphTest, FiltersOrderingAndLimits) {
  auto e = MakeEngine(SmallConfig());
  const World& w = e->world();
  const std::string contract = w.feeds()[3].contract;
  const std::string user = w.predictoors()[w.feeds()[3].predictoors[0]].address;
  // Contract filter through slot_.
  json j = Ask(*e, "{ predictPredictions(first: 50, where: {slot_: {predictContract: \"" +
                       contract + "\"}}) { id slot { predictContract { id } } } }");
  ASSERT_EQ(j["data"]["predictPredictions"].size(), 50u);
  std::string prev;
  for (const auto& p : j["data"]["predictPredictions"]) {
    EXPECT_EQ(p["slot"]["predictContract"]["id"], contract);
    EXPECT_LT(prev, p["id"].get<std::string>()) << "default order is id ascending";
    prev = p["id"];
  }
  // User and an or-group.
  j = Ask(*e, "{ predictPredictions(first: 1000, orderBy: timestamp, where: {user: \"" + user +
                  "\", or: [{slot_: {predictContract_in: [\"" + contract +
                  "\"]}}, {timestamp_lt: 0}]}) { user { id } slot { predictContract { id } } } }");
  ASSERT_FALSE(j["data"]["predictPredictions"].empty());
  for (const auto& p : j["data"]["predictPredictions"]) {
    EXPECT_EQ(p["user"]["id"], user);
    EXPECT_EQ(p["slot"]["predictContract"]["id"], contract);
  }
  // Default first is 100; skip shifts the window.
  j = Ask(*e,
          "{ a: predictTrueVals(orderBy: timestamp) { id } b: predictTrueVals(orderBy: "
          "timestamp, skip: 10, first: 5) { id } }");
  ASSERT_EQ(j["data"]["a"].size(), 100u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(j["data"]["b"][i]["id"], j["data"]["a"][10 + i]["id"]);
  // id_in and desc id order.
  j = Ask(*e, "{ predictTrueVals(orderBy: id, orderDirection: desc, where: {id_in: [" +
                  j["data"]["a"][0]["id"].dump() + "," + j["data"]["a"][1]["id"].dump() +
                  "]}) { id } }");
  ASSERT_EQ(j["data"]["predictTrueVals"].size(), 2u);
  EXPECT_GT(j["data"]["predictTrueVals"][0]["id"], j["data"]["predictTrueVals"][1]["id"]);
  // Contracts: 20 feeds with their nftData.
  j = Ask(*e, std::string("{ predictContracts(first: 1000) { id secondsPerEpoch "
                          "truevalSubmitTimeout token { name nft { nftData { key value } } } } }"));
  ASSERT_EQ(j["data"]["predictContracts"].size(), 20u);
  std::set<std::string> feeds;
  for (const auto& c : j["data"]["predictContracts"]) {
    const auto feed = FeedOf(c);
    feeds.insert(feed[0] + " " + feed[1] + " " + feed[2]);
    EXPECT_EQ(feed[0], c["token"]["name"]);
    EXPECT_GT(c["truevalSubmitTimeout"].get<int64_t>(), 0);
  }
  EXPECT_TRUE(feeds.count("BTC/USDT 5m binance"));
  EXPECT_TRUE(feeds.count("DOT/USDT 1h binance"));
  EXPECT_EQ(feeds.size(), 20u);
  // Subscriptions filtered by contract; expireTime is a day later.
  j = Ask(*e, "{ predictSubscriptions(first: 1000, where: {predictContract: \"" + contract +
                  "\"}) { id timestamp expireTime predictContract { id } } }");
  for (const auto& s : j["data"]["predictSubscriptions"]) {
    EXPECT_EQ(s["predictContract"]["id"], contract);
    EXPECT_EQ(s["expireTime"].get<int64_t>(), s["timestamp"].get<int64_t>() + 86400);
    EXPECT_EQ(s["id"].get<std::string>().rfind(contract + "-0x", 0), 0u);
  }
  // Payouts by prediction_ and trueValue filters.
  j = Ask(*e,
          "{ predictPayouts(first: 200, where: {trueValue: true, prediction_: {slot_: "
          "{predictContract: \"" +
              contract + "\"}}}) { trueValue prediction { slot { predictContract { id } } } } }");
  ASSERT_FALSE(j["data"]["predictPayouts"].empty());
  for (const auto& p : j["data"]["predictPayouts"]) {
    EXPECT_EQ(p["trueValue"], true);
    EXPECT_EQ(p["prediction"]["slot"]["predictContract"]["id"], contract);
  }
  // Aliases, __typename, variables for enums and lists.
  j = Ask(*e,
          "query Q($c: [String!], $dir: OrderDirection = desc) { s: predictSlots(first: 3, "
          "orderBy: slot, orderDirection: $dir, where: {predictContract_in: $c, status: Paying}) "
          "{ __typename slot status } }",
          {{"c", json::array({contract})}});
  ASSERT_EQ(j["data"]["s"].size(), 3u);
  EXPECT_EQ(j["data"]["s"][0]["__typename"], "PredictSlot");
  EXPECT_GT(j["data"]["s"][0]["slot"], j["data"]["s"][1]["slot"]);
  EXPECT_EQ(j["data"]["s"][0]["status"], "Paying");
}

TEST(SubgraphTest, BadQueriesGetErrors) {
  auto e = MakeEngine(SmallConfig());
  struct Case {
    std::string query;
    std::string expect;  // a piece of the error message
  };
  const std::vector<Case> cases = {
      {"{ predictPredictionz { id } }", "Type `Query` has no field `predictPredictionz`"},
      {"{ predictPredictions { idd } }", "Type `PredictPrediction` has no field `idd`"},
      {"{ predictPredictions(firsst: 3) { id } }", "Unknown argument `firsst`"},
      {"{ predictPredictions(first: 1001) { id } }", "between 0 and 1000, but is 1001"},
      {"{ predictPredictions(first: -1) { id } }", "between 0 and 1000"},
      {"{ predictPredictions(skip: 5001) { id } }", "between 0 and 5000, but is 5001"},
      {"{ predictPredictions(first: \"10\") { id } }", "expected Int"},
      {"{ predictPredictions(where: {timestamp_gt: \"1\"}) { id } }", "expected Int"},
      {"{ predictPredictions(where: {stake_gt: 1}) { id } }", "has no field `stake_gt`"},
      {"{ predictPredictions(where: {timestamp_between: 1}) { id } }", "timestamp_between"},
      {"{ predictPredictions(where: 3) { id } }", "expected an object"},
      {"{ predictPredictions(orderBy: stake) { id } }", "orderBy"},
      {"{ predictSlots(orderBy: timestamp) { id } }", "orderBy"},
      {"{ predictPredictions(orderDirection: up) { id } }", "orderDirection"},
      {"{ predictPredictions(block: {number: 5}) { id } }", "block"},
      {"{ predictPredictions { user } }", "must have a selection"},
      {"{ predictPredictions { id { x } } }", "scalar"},
      {"{ predictPredictions }", "must have a selection"},
      {"{ predictPredictions { slot(first: 2) { id } } }", "Unknown argument `first`"},
      {"{ predictPredictions { ...F } }", "fragments"},
      {"fragment F on PredictPrediction { id } { x }", "fragments"},
      {"mutation { x }", "mutation"},
      {"subscription { x }", "subscription"},
      {"{ predictPredictions @skip(if: true) { id } }", "directives"},
      {"{ predictPredictions(where: {id: \"abc", "unterminated string"},
      {"{ predictPredictions(where: {id: \"\"\"x\"\"\"}) { id } }", "block strings"},
      {"{ predictPredictions { id }", "Syntax error"},
      {"{ }", "Syntax error"},
      {"", "Syntax error"},
      {"query Q($x: Int!) { predictPredictions(first: $x) { id } }", "$x"},
      {"{ predictPredictions(first: $y) { id } }", "$y"},
      {"{ predictPredictions(first: 99999999999999999999) { id } }", "out of range"},
      {"{ a { id } } { b { id } }", "one operation"},
      {"{ predictSlots(where: {status: Done}) { id } }", "Pending, Paying or Canceled"},
      {"{ predictTrueVals(where: {trueValue_gt: true}) { id } }", "trueValue_gt"},
      {"{ predictPredictions(where: {user: null}) { id } }", "null"},
      {"{ predictPredictions(where: {and: {id: \"x\"}}) { id } }", "list"},
      {"{ _meta(block: {number: 1}) { block { number } } }", "Invalid value for argument `block`"},
      {"{ predictPredictions(where: {timestamp_in: 5}) { id } }", "expected a list"},
      {"{ predictPredictions { id } } garbage", "one operation"},
      {"{ predictPredictions(first: 1.5) { id } }", "expected Int"},
      {"{ predictPredictions(first: 01) { id } }", "leading zeros"},
      {"{ predictPredictions \x01 }", "unexpected character"},
  };
  for (const Case& c : cases) {
    const std::string err = ErrorOf(*e, c.query);
    EXPECT_NE(err.find(c.expect), std::string::npos) << "query: " << c.query << "\nerror: " << err;
  }
  // Deep nesting is refused before it can exhaust the stack.
  std::string deep = "{ predictPredictions(where: ";
  for (int i = 0; i < 200; ++i) deep += "{and: [";
  EXPECT_NE(ErrorOf(*e, deep).find("deeply"), std::string::npos);
  std::string deep_sel = "{";
  for (int i = 0; i < 200; ++i) deep_sel += " a {";
  EXPECT_NE(ErrorOf(*e, deep_sel).find("deeply"), std::string::npos);
}

TEST(SubgraphTest, GarbageBodiesGet400) {
  auto e = MakeEngine(SmallConfig());
  for (const std::string& body : std::vector<std::string>{
           "", "not json", "[1,2]", "{\"query\": 5}",
           "{\"nope\": \"{ _meta { block { number } } }\"}",
           "{\"query\": \"{ _meta { block { number } } }\", \"variables\": [1]}", "{\"query\": \"",
           std::string(100, '[') + std::string(100, ']')}) {
    gql::HttpResponse r = e->Handle(body);
    EXPECT_EQ(r.status, 400) << body;
    json j = json::parse(r.body);
    EXPECT_TRUE(j.contains("errors")) << body;
  }
  gql::HttpResponse big = e->Handle(std::string(kMaxRequestBytes + 1, ' '));
  EXPECT_EQ(big.status, 400);
}

TEST(SubgraphTest, FuzzedBodiesNeverCrash) {
  // A two-hour world keeps accidental unbounded scans cheap.
  auto e = MakeEngine(SmallConfig("2024-07-25_04:00", "2024-07-25_06:00"));
  const std::vector<std::string> seeds = {
      "{ predictPredictions(first: 3, orderBy: timestamp, where: {timestamp_gt: 1721880000, "
      "slot_: {predictContract_in: [\"0xab\"]}}) { id stake user { id } slot { status } } }",
      "query Q($n: Int = 2) { predictSlots(first: $n, where: {slot_gte: 1, or: [{status: "
      "Paying}]}) { id trueValues { id } } _meta { block { number } } }",
      "{ predictPayouts(skip: 1, orderDirection: desc) { payout prediction { id } } }",
  };
  SCOPED_TRACE(test_support::SeedNote(12345));
  std::mt19937_64 rng(test_support::PropertySeed(12345));
  const std::string alphabet = "{}()[]:,\"$!@#.=abcdefgz019_- \n\\";
  for (int i = 0; i < 1500; ++i) {
    std::string q = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < edits && !q.empty(); ++k) {
      const size_t pos = rng() % q.size();
      switch (rng() % 4) {
        case 0:
          q.erase(pos, 1 + rng() % 8);
          break;
        case 1:
          q.insert(pos, 1, alphabet[rng() % alphabet.size()]);
          break;
        case 2:
          q[pos] = static_cast<char>(rng() % 256);
          break;
        default:
          q = q.substr(0, pos);
          break;
      }
    }
    const std::string body =
        rng() % 5 == 0 ? q
                       : json({{"query", q}}).dump(-1, ' ', false, json::error_handler_t::replace);
    gql::HttpResponse r = e->Handle(body);
    ASSERT_TRUE(r.status == 200 || r.status == 400) << body;
    json j = json::parse(r.body, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << body;
    ASSERT_TRUE(j.contains("data") != j.contains("errors")) << r.body;
  }
  // Random bytes.
  for (int i = 0; i < 500; ++i) {
    std::string s(rng() % 200, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    gql::HttpResponse r = e->Handle(s);
    ASSERT_EQ(r.status, 400);
  }
}

}  // namespace
}  // namespace predlake::sim

namespace predlake::sim {
namespace {

TEST(SubgraphTest, ExtremeBoundsAreSafe) {
  auto e = simtest::MakeEngine(simtest::SmallConfig());
  const std::string lo = "-9223372036854775808", hi = "9223372036854775807";
  for (const std::string entity : {"predictPredictions", "predictTrueVals", "predictPayouts",
                                   "predictSubscriptions", "predictContracts"}) {
    for (const std::string& where : std::vector<std::string>{
             "{timestamp_gt: " + hi + "}", "{timestamp_lte: " + lo + "}", "{timestamp: " + hi + "}",
             "{timestamp_gte: " + lo + ", timestamp_lte: " + hi + "}", "{timestamp_in: []}"}) {
      nlohmann::json j = simtest::Ask(*e, "{ x: " + entity +
                                              "(first: 3, orderBy: timestamp, "
                                              "where: " +
                                              where + ") { id } }");
      ASSERT_TRUE(j.contains("data")) << j.dump();
      if (where.find(lo + ", ") != std::string::npos) {
        EXPECT_EQ(j["data"]["x"].size(), 3u) << entity;
      } else {
        EXPECT_TRUE(j["data"]["x"].empty()) << entity << " " << where;
      }
    }
  }
  nlohmann::json j = simtest::Ask(*e, "{ predictSlots(first: 2, where: {slot_gt: " + hi +
                                          "}) { id } a: predictSlots(first: 2, "
                                          "where: {slot_lt: " +
                                          lo + "}) { id } }");
  EXPECT_TRUE(j["data"]["predictSlots"].empty());
  EXPECT_TRUE(j["data"]["a"].empty());
  auto rows = DumpRows(*e, "pdr_slots", std::numeric_limits<int64_t>::min());
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->rows.empty());
}

// sim_ss.max_response_mb: an answer that would pass the bound is abandoned with a GraphQL error
// naming it; the same query under a larger bound is answered in full.
TEST(SubgraphTest, ResponsesPastTheBoundAreAbandoned) {
  std::string query = "{";
  for (int i = 0; i < 8; ++i) {
    query += " a" + std::to_string(i) +
             ": predictPredictions(first: 1000) { id stake timestamp txId block user { id } slot { "
             "id slot status predictContract { id } } }";
  }
  query += " }";
  config::SimConfig c = simtest::SmallConfig();
  c.max_response_mb = 8;
  nlohmann::json full = simtest::Ask(*simtest::MakeEngine(c), query);
  ASSERT_TRUE(full.contains("data")) << full.dump().substr(0, 300);
  ASSERT_EQ(full["data"]["a7"].size(), 1000u);
  const size_t bytes = full.dump().size();
  ASSERT_GT(bytes, size_t{1} << 20) << "the query must be larger than the small bound";
  c.max_response_mb = 1;
  nlohmann::json cut = simtest::Ask(*simtest::MakeEngine(c), query);
  ASSERT_TRUE(cut.contains("errors")) << cut.dump().substr(0, 300);
  EXPECT_FALSE(cut.contains("data"));
  EXPECT_EQ(cut["errors"][0]["message"],
            "The response would be larger than 1 MB; ask for fewer rows, fields or aliases");
}

TEST(SubgraphTest, IntegerDivisionHelpers) {
  EXPECT_EQ(FloorDiv(-1, 300), -1);
  EXPECT_EQ(FloorDiv(-300, 300), -1);
  EXPECT_EQ(FloorDiv(299, 300), 0);
  EXPECT_EQ(CeilDiv(1, 300), 1);
  EXPECT_EQ(CeilDiv(-299, 300), 0);
  EXPECT_EQ(FloorDiv(std::numeric_limits<int64_t>::min(), 1000),
            std::numeric_limits<int64_t>::min() / 1000 - 1);
  EXPECT_EQ(CeilDiv(std::numeric_limits<int64_t>::max(), 1000),
            std::numeric_limits<int64_t>::max() / 1000 + 1);
}

}  // namespace
}  // namespace predlake::sim

namespace predlake::sim {
namespace {

class SettableClock final : public Clock {
 public:
  int64_t NowMs() const override { return now_.load(); }
  void Set(int64_t ms) { now_ = ms; }

 private:
  std::atomic<int64_t> now_{0};
};

TEST(SubgraphTest, LiveClockMovesTheHead) {
  config::SimConfig c = simtest::SmallConfig();
  auto clock = std::make_shared<SettableClock>();
  clock->Set(simtest::Ms("2024-07-25_01:00"));
  auto e = Engine::Create(c, clock->NowMs(), clock);
  ASSERT_TRUE(e.ok());
  const std::string q = "{ _meta { block { timestamp } } }";
  EXPECT_EQ(simtest::Ask(**e, q)["data"]["_meta"]["block"]["timestamp"], 1721869200 - 30);
  clock->Set(simtest::Ms("2024-07-25_02:00"));
  EXPECT_EQ(simtest::Ask(**e, q)["data"]["_meta"]["block"]["timestamp"], 1721872800 - 30);
}

TEST(SubgraphTest, AYearOfHistoryIsCheapToServe) {
  auto e = simtest::MakeEngine(simtest::SmallConfig("2023-07-25", "2024-07-25"));
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> queries = {
      "{ predictPredictions(first: 1000, orderBy: timestamp, where: {timestamp_gt: 1721860000}) "
      "{ id } }",
      "{ predictPayouts(first: 1000, orderBy: timestamp, orderDirection: desc) { id payout } }",
      "{ predictTrueVals(first: 1000, orderBy: timestamp) { id slot { roundSumStakes } } }",
      "{ predictSlots(first: 1000, orderBy: slot, where: {slot_gte: 1721800000}) { id status } }",
      "{ predictSubscriptions(first: 10, orderBy: timestamp, orderDirection: desc) { id } }",
  };
  for (const std::string& q : queries) {
    nlohmann::json j = simtest::Ask(*e, q);
    ASSERT_TRUE(j.contains("data")) << j.dump();
    EXPECT_FALSE(j["data"].begin()->empty()) << q;
  }
  // Milliseconds in a release build; the bound leaves room for sanitizers and a busy machine.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

}  // namespace
}  // namespace predlake::sim
