#include "source/sim/world.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "sim_test_util.hpp"
#include "source/sim/dump.hpp"
#include "source/sim/hash.hpp"
#include "source/sim/wei.hpp"

namespace predlake::sim {
namespace {

using simtest::MakeEngine;
using simtest::Ms;
using simtest::SmallConfig;

Wei Tokens(uint64_t n) { return static_cast<Wei>(n) * kWeiPerToken; }

TEST(WeiTest, FormatsPlainDecimals) {
  EXPECT_EQ(FormatWei(0), "0");
  EXPECT_EQ(FormatWei(Tokens(285)), "285");
  EXPECT_EQ(FormatWei(1), "0.000000000000000001");
  EXPECT_EQ(FormatWei(Tokens(292) + 91212458287000000ULL), "292.091212458287");
  EXPECT_EQ(FormatWei(kWeiPerToken / 2), "0.5");
  const Wei big = static_cast<Wei>(~0ULL) * 1000;
  EXPECT_EQ(FormatWei(big), "18446.744073709551615");
}

TEST(WeiTest, MulDivIsExactBeyond128Bits) {
  EXPECT_EQ(MulDiv(6, 7, 4), 10u);
  // 3e21 * 2e23 overflows 128 bits; the exact quotient is known.
  const Wei a = Tokens(3000), b = Tokens(200000), c = Tokens(100000);
  EXPECT_EQ(MulDiv(a, b, c), Tokens(6000));
  // floor((10^40 + 1) * 3 / 7) with a 10^40 operand.
  Wei ten40 = 1;
  for (int i = 0; i < 40; ++i) ten40 *= 10;
  const Wei q = MulDiv(ten40 / 7 * 7, 3, 7);
  EXPECT_EQ(q, ten40 / 7 * 3);
  EXPECT_EQ(MulDiv(a, b + 1, c), Tokens(6000));  // floor, not round
  EXPECT_EQ(MulDiv(0, b, c), 0u);
}

TEST(WorldTest, DefaultWorldHasTwentyFeedsWithDistinctAddresses) {
  config::SimConfig c = SmallConfig();
  auto world = World::Create(c, Ms(c.start));
  ASSERT_TRUE(world.ok());
  const auto& feeds = (*world)->feeds();
  ASSERT_EQ(feeds.size(), 20u);
  std::set<std::string> contracts;
  for (const Feed& f : feeds) {
    EXPECT_EQ(f.contract.size(), 42u);
    EXPECT_EQ(f.contract.substr(0, 2), "0x");
    EXPECT_EQ(f.contract.find_first_not_of("0123456789abcdef", 2), std::string::npos);
    EXPECT_TRUE(f.epoch == 300 || f.epoch == 3600);
    contracts.insert(f.contract);
  }
  EXPECT_EQ(contracts.size(), 20u);
  EXPECT_EQ((*world)->predictoors().size(), 40u);
}

TEST(WorldTest, RejectsBadConfigurations) {
  config::SimConfig c = SmallConfig();
  c.timeframes = {"7m"};  // does not divide a day
  EXPECT_EQ(World::Create(c, Ms(c.start)).status().code(), StatusCode::kConfig);
  c.timeframes = {"5x"};
  EXPECT_EQ(World::Create(c, Ms(c.start)).status().code(), StatusCode::kConfig);
  c = SmallConfig();
  c.pairs.clear();
  EXPECT_EQ(World::Create(c, Ms(c.start)).status().code(), StatusCode::kConfig);
  c = SmallConfig();
  c.num_predictoors = 0;
  EXPECT_EQ(World::Create(c, Ms(c.start)).status().code(), StatusCode::kConfig);
  c = SmallConfig();
  c.start = "yesterday-ish";
  EXPECT_FALSE(Engine::Create(c, Ms(c.now)).ok());
}

TEST(WorldTest, SeedChangesTheWorld) {
  config::SimConfig a = SmallConfig(), b = SmallConfig();
  b.seed = 7;
  auto wa = World::Create(a, Ms(a.start));
  auto wb = World::Create(b, Ms(b.start));
  ASSERT_TRUE(wa.ok() && wb.ok());
  EXPECT_NE((*wa)->feeds()[0].contract, (*wb)->feeds()[0].contract);
}

TEST(WorldTest, RealisticVolume) {
  config::SimConfig c = SmallConfig();
  auto engine = MakeEngine(c);
  const World& w = engine->world();
  // Per 5m slot roughly 5..25 predictions on average.
  int64_t total = 0, slots = 0;
  for (const Feed& f : w.feeds()) {
    if (f.epoch != 300) continue;
    for (int64_t s = f.first_slot; s < f.first_slot + 12 * 300; s += 300) {
      total += static_cast<int64_t>(w.ComputeSlot(f.index, s).predictions.size());
      ++slots;
    }
  }
  const double mean = static_cast<double>(total) / static_cast<double>(slots);
  EXPECT_GE(mean, 5.0);
  EXPECT_LE(mean, 25.0);
}

// The ground truth of every table.
std::map<std::string, std::string> DumpAll(const Engine& e, int64_t to_ms) {
  std::map<std::string, std::string> out;
  for (const auto& t : DumpTableNames()) {
    std::ostringstream s;
    EXPECT_TRUE(Dump(e, t, to_ms, s).ok());
    out[t] = s.str();
  }
  return out;
}

TEST(WorldTest, SameConfigGivesByteIdenticalDumps) {
  config::SimConfig c = SmallConfig();
  auto a = MakeEngine(c), b = MakeEngine(c);
  auto da = DumpAll(*a, INT64_MAX), db = DumpAll(*b, INT64_MAX);
  EXPECT_EQ(da, db);
  EXPECT_GT(da["pdr_predictions"].size(), 10000u);
}

TEST(WorldTest, WorldUpToTDoesNotDependOnNow) {
  config::SimConfig early = SmallConfig("2024-07-25", "2024-07-25_04:00");
  config::SimConfig late = SmallConfig("2024-07-25", "2024-07-27_00:00");
  auto a = MakeEngine(early), b = MakeEngine(late);
  const int64_t t = Ms("2024-07-25_03:30");
  auto da = DumpAll(*a, t), db = DumpAll(*b, t);
  // Events do not; slots are dumped in their state at the head (what a fetch then reads), so the
  // later engine holds the same slots, and maybe more, in later states.
  for (const auto& name : DumpTableNames()) {
    if (name != "pdr_slots") {
      EXPECT_EQ(da[name], db[name]) << name;
    }
  }
  auto slot_ids = [](const Engine& e, int64_t to_ms) {
    std::set<std::string> ids;
    auto dump = DumpRows(e, "pdr_slots", to_ms);
    EXPECT_TRUE(dump.ok());
    if (!dump.ok()) return ids;
    for (const auto& row : dump->rows) ids.insert(row[0]);
    return ids;
  };
  const std::set<std::string> early_ids = slot_ids(*a, t), late_ids = slot_ids(*b, t);
  EXPECT_FALSE(early_ids.empty());
  EXPECT_TRUE(std::includes(late_ids.begin(), late_ids.end(), early_ids.begin(), early_ids.end()));
  EXPECT_NE(da["pdr_slots"], db["pdr_slots"]) << "slots settled after 04:00 show later states";
  // But the later engine sees more when asked for more.
  auto full = DumpAll(*b, Ms("2024-07-25_04:00"));
  EXPECT_GT(full["pdr_predictions"].size(), da["pdr_predictions"].size());
}

TEST(DumpTest, UnknownTableIsAUsageError) {
  auto e = MakeEngine(SmallConfig());
  std::ostringstream s;
  Status st = Dump(*e, "pdr_nope", INT64_MAX, s);
  EXPECT_EQ(st.code(), StatusCode::kUsage);
  EXPECT_NE(st.message().find("pdr_nope"), std::string::npos);
  EXPECT_TRUE(s.str().empty());
}

TEST(DumpTest, CsvQuoting) {
  std::string line;
  AppendCsvField(line, "plain");
  line += ',';
  AppendCsvField(line, "a,\"b\"");
  EXPECT_EQ(line, "plain,\"a,\"\"b\"\"\"");
}

TEST(DumpTest, HeaderAndConventions) {
  auto e = MakeEngine(SmallConfig());
  std::ostringstream s;
  ASSERT_TRUE(Dump(*e, "pdr_predictions", INT64_MAX, s).ok());
  std::istringstream in(s.str());
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(
      header,
      "ID,contract,pair,timeframe,predvalue,stake,truevalue,timestamp,source,payout,slot,user");
  auto rows = DumpRows(*e, "pdr_predictions", INT64_MAX);
  ASSERT_TRUE(rows.ok());
  const auto& r = rows->rows.front();
  EXPECT_EQ(r[0], r[1] + "-" + r[10] + "-" + r[11]);
  EXPECT_EQ(r[4], "");
  EXPECT_EQ(r[6], "");
  EXPECT_EQ(r[9], "");
  EXPECT_EQ(r[8], "binance");
  const int64_t ts = std::stoll(r[7]), slot = std::stoll(r[10]);
  EXPECT_EQ(ts % 1000, 0);
  const int64_t epoch = r[3] == "5m" ? 300 : 3600;
  EXPECT_GE(ts / 1000, slot - epoch);
  EXPECT_LT(ts / 1000, slot);
  EXPECT_GE(ts, Ms("2024-07-25"));
}

TEST(DumpTest, HeadersAreTheRawTablesColumns) {
  // The CSV headers `sim dump` writes, spelled out: they are the raw tables' columns in order
  // (lake/tables.hpp), and `raw import` accepts them.
  const std::vector<std::pair<std::string, std::string>> want = {
      {"pdr_predictions",
       "ID,contract,pair,timeframe,predvalue,stake,truevalue,timestamp,source,payout,slot,user"},
      {"pdr_truevals", "ID,token,timestamp,truevalue,slot,revenue,roundSumStakesUp,roundSumStakes"},
      {"pdr_payouts", "ID,token,user,slot,timestamp,payout,predvalue,truevalue,stake"},
      {"pdr_subscriptions", "ID,pair,timeframe,source,tx_id,last_price_value,timestamp,user"},
      {"pdr_slots", "ID,timestamp,slot,truevalue,roundSumStakesUp,roundSumStakes,status"},
      {"pdr_ohlcv", "ID,exchange,pair,timeframe,timestamp,open,high,low,close,volume"}};
  ASSERT_EQ(DumpTableNames().size(), want.size());
  auto e = MakeEngine(SmallConfig());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(DumpTableNames()[i], want[i].first);
    std::ostringstream s;
    ASSERT_TRUE(Dump(*e, want[i].first, Ms("2024-07-25_02:00"), s).ok());
    std::istringstream in(s.str());
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header, want[i].second);
    auto rows = DumpRows(*e, want[i].first, Ms("2024-07-25_02:00"));
    ASSERT_TRUE(rows.ok());
    for (const auto& row : rows->rows) ASSERT_EQ(row.size(), rows->columns.size());
  }
}

struct Truth {
  std::vector<std::vector<std::string>> predictions, truevals, payouts, subscriptions, slots;
};

Truth Load(const Engine& e, int64_t to_ms) {
  Truth t;
  t.predictions = DumpRows(e, "pdr_predictions", to_ms)->rows;
  t.truevals = DumpRows(e, "pdr_truevals", to_ms)->rows;
  t.payouts = DumpRows(e, "pdr_payouts", to_ms)->rows;
  t.subscriptions = DumpRows(e, "pdr_subscriptions", to_ms)->rows;
  t.slots = DumpRows(e, "pdr_slots", to_ms)->rows;
  return t;
}

// Parses a plain decimal into wei.
Wei ParseWei(const std::string& s) {
  Wei whole = 0, frac = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] != '.'; ++i) whole = whole * 10 + static_cast<Wei>(s[i] - '0');
  int digits = 0;
  if (i < s.size()) {
    for (++i; i < s.size(); ++i, ++digits) frac = frac * 10 + static_cast<Wei>(s[i] - '0');
  }
  for (; digits < 18; ++digits) frac *= 10;
  return whole * kWeiPerToken + frac;
}

TEST(SemanticsTest, PayoutsFollowThePredictoorRule) {
  // Two days, so that batch claims and cancellations happen; four pairs keep it quick.
  config::SimConfig c = SmallConfig("2024-07-24", "2024-07-26");
  c.pairs = {"BTC/USDT", "ETH/USDT", "SOL/USDT", "XRP/USDT"};
  auto e = MakeEngine(c);
  Truth t = Load(*e, INT64_MAX);
  ASSERT_FALSE(t.payouts.empty());

  std::map<std::string, const std::vector<std::string>*> preds;  // id -> row
  for (const auto& r : t.predictions) preds[r[0]] = &r;
  std::map<std::string, const std::vector<std::string>*> tvs;  // slot id -> row
  for (const auto& r : t.truevals) tvs[r[0]] = &r;
  std::map<std::string, const std::vector<std::string>*> slots;
  for (const auto& r : t.slots) slots[r[0]] = &r;

  std::map<std::string, Wei> correct_paid;  // slot id -> sum of payouts of correct predictions
  int canceled_payouts = 0, zero_payouts = 0, immediate = 0, late = 0;
  for (const auto& p : t.payouts) {
    // ID, token, user, slot, timestamp, payout, predvalue, truevalue, stake
    auto pred = preds.find(p[0]);
    ASSERT_NE(pred, preds.end()) << "payout without prediction " << p[0];
    EXPECT_EQ((*pred->second)[5], p[8]) << "stake";
    EXPECT_LT(std::stoll((*pred->second)[7]), std::stoll(p[4]));
    const std::string slot_id = p[0].substr(0, p[0].rfind('-'));
    auto slot = slots.find(slot_id);
    ASSERT_NE(slot, slots.end());
    const int64_t pay_ts = std::stoll(p[4]);
    if ((*slot->second)[6] == "Canceled") {
      ++canceled_payouts;
      EXPECT_EQ(p[7], "false") << "a refund carries trueValue false, never null";
      EXPECT_EQ(p[5], p[8]) << "canceled slots refund the stake";
      EXPECT_EQ(tvs.count(slot_id), 0u);
      continue;
    }
    auto tv = tvs.find(slot_id);
    ASSERT_NE(tv, tvs.end()) << "payout for a slot without trueval " << slot_id;
    const int64_t tv_ts = std::stoll((*tv->second)[2]);
    EXPECT_GT(pay_ts, tv_ts) << "a payout comes after its slot's trueval";
    (pay_ts - tv_ts <= 125 * 1000 ? immediate : late)++;
    EXPECT_LE(pay_ts - tv_ts, kMaxPayoutDelay * 1000);
    EXPECT_EQ(p[7], (*tv->second)[3]);
    if (p[6] != p[7]) {
      EXPECT_EQ(p[5], "0") << "a wrong prediction pays 0";
      ++zero_payouts;
    } else {
      correct_paid[slot_id] += ParseWei(p[5]);
      EXPECT_GE(ParseWei(p[5]), ParseWei(p[8])) << "a winner gets at least its stake back";
    }
  }
  EXPECT_GT(zero_payouts, 0);
  EXPECT_GT(immediate, 0);
  EXPECT_GT(late, 0);
  EXPECT_GT(canceled_payouts, 0);
  for (const auto& [slot_id, paid] : correct_paid) {
    const auto& tv = *tvs[slot_id];
    EXPECT_LE(paid, ParseWei(tv[7]) + ParseWei(tv[5])) << slot_id;
  }
  // About 2% of slots are canceled.
  int canceled = 0;
  for (const auto& r : t.slots) canceled += r[6] == "Canceled";
  EXPECT_GT(canceled, 0);
  EXPECT_LT(canceled, static_cast<int>(t.slots.size()) / 10);
  // Truevals carry the slot's totals; the sum of its predictions' stakes is the roundSumStakes.
  std::map<std::string, Wei> staked;
  for (const auto& r : t.predictions) staked[r[1] + "-" + r[10]] += ParseWei(r[5]);
  for (const auto& r : t.truevals) {
    EXPECT_EQ(ParseWei(r[7]), staked[r[0]]) << r[0];
    EXPECT_LE(ParseWei(r[6]), ParseWei(r[7]));
  }
  // Subscriptions exist and yield revenue.
  EXPECT_FALSE(t.subscriptions.empty());
  int with_revenue = 0;
  for (const auto& r : t.truevals) with_revenue += r[5] != "0";
  EXPECT_GT(with_revenue, static_cast<int>(t.truevals.size()) / 2);
}

TEST(SemanticsTest, SlotStateEvolves) {
  config::SimConfig c = SmallConfig("2024-07-24", "2024-07-26");
  auto e = MakeEngine(c);
  // Find a canceled slot and a paying slot and look at them before and after their events.
  const World& w = e->world();
  const Feed& f = w.feeds()[0];
  int64_t canceled = 0, paying = 0;
  for (int64_t s = f.first_slot; s < f.first_slot + 300 * 576 && (!canceled || !paying); s += 300) {
    SlotInfo info = w.ComputeSlot(f.index, s);
    if (info.predictions.empty()) continue;
    if (info.canceled && !canceled) canceled = s;
    if (!info.canceled && !paying) paying = s;
  }
  ASSERT_NE(canceled, 0);
  ASSERT_NE(paying, 0);
  // A slot's state as a fetch at `to_ms` (the head then) reads it: the dump of an engine whose
  // head is there.
  auto slot_row = [&](int64_t slot, int64_t to_ms) -> std::vector<std::string> {
    config::SimConfig at = c;
    at.now = FormatTime(to_ms + c.indexing_lag_ms);
    auto then = MakeEngine(at);
    auto rows = DumpRows(*then, "pdr_slots", to_ms);
    const std::string id = f.contract + "-" + std::to_string(slot);
    for (const auto& r : rows->rows) {
      if (r[0] == id) return r;
    }
    return {};
  };
  SlotInfo pay = w.ComputeSlot(f.index, paying);
  // During the prediction epoch the slot is Pending with a partial total and no up-total.
  auto pending = slot_row(paying, (paying + 1) * 1000);
  ASSERT_FALSE(pending.empty());
  EXPECT_EQ(pending[6], "Pending");
  EXPECT_EQ(pending[3], "");
  EXPECT_EQ(pending[4], "0");
  auto paid = slot_row(paying, (pay.trueval_ts + 1) * 1000);
  EXPECT_EQ(paid[6], "Paying");
  EXPECT_EQ(paid[3], pay.truevalue ? "true" : "false");
  EXPECT_EQ(paid[5], FormatWei(pay.total_stake));
  EXPECT_EQ(paid[4], FormatWei(pay.up_stake));
  SlotInfo can = w.ComputeSlot(f.index, canceled);
  // A head one second before the cancellation still shows it pending; a head at the cancellation's
  // second serves it (the head's own second is indexed, docs/sim.md).
  EXPECT_EQ(slot_row(canceled, (can.cancel_ts - 1) * 1000)[6], "Pending");
  EXPECT_EQ(slot_row(canceled, can.cancel_ts * 1000)[6], "Canceled");
}

TEST(SemanticsTest, NothingPastTheHeadIsVisible) {
  config::SimConfig c = SmallConfig();
  c.indexing_lag_ms = 10 * 60 * 1000;
  auto e = MakeEngine(c);
  const int64_t head = e->HeadMs();
  EXPECT_EQ(head, Ms(c.now) - c.indexing_lag_ms);
  Truth t = Load(*e, INT64_MAX);
  for (const auto* table : {&t.predictions, &t.payouts, &t.subscriptions}) {
    for (const auto& r : *table) {
      const size_t ts_col = table == &t.predictions ? 7 : (table == &t.payouts ? 4 : 6);
      EXPECT_LT(std::stoll(r[ts_col]), head);
    }
  }
  for (const auto& r : t.truevals) EXPECT_LT(std::stoll(r[2]), head);
  for (const auto& r : t.slots) EXPECT_LT(std::stoll(r[1]), head);
}

TEST(HashTest, Stable) {
  // Changing the hash changes every world: pin it.
  EXPECT_EQ(Hash(1, 2, 3), Hash(1, 2, 3));
  EXPECT_NE(Hash(1, 2, 3), Hash(1, 3, 2));
  EXPECT_EQ(Mix64(0), 0xe220a8397b1dcdafULL);
}

// sim dump pdr_ohlcv is what the simulated exchange serves, before the world's start too: for every
// binance feed, the candles a klines request answers for [from, to) (those closed by now), and the
// dump from the world's start drops exactly the earlier ones.
TEST(SimDumpTest, CandlesAreWhatTheExchangeServesBeforeTheWorldsStartToo) {
  auto e = MakeEngine(SmallConfig("2024-07-25", "2024-07-25_03:00"));
  ASSERT_NE(e, nullptr);
  const int64_t from = Ms("2024-07-24_22:00"), to = Ms("2024-07-25_02:00");
  auto dump = DumpRows(*e, "pdr_ohlcv", from, to);
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  std::set<std::string> dumped, served;
  for (const auto& r : dump->rows) dumped.insert(r[0] + " " + r[8]);  // ID, close
  for (const Feed& f : e->world().feeds()) {
    if (f.source != "binance") continue;
    std::string symbol = f.pair;
    symbol.erase(std::remove(symbol.begin(), symbol.end(), '/'), symbol.end());
    gql::HttpResponse r =
        e->HandleExchange("/api/v3/klines?symbol=" + symbol + "&interval=" + f.timeframe +
                          "&startTime=" + std::to_string(from) +
                          "&endTime=" + std::to_string(to - 1) + "&limit=1000");
    ASSERT_EQ(r.status, 200) << r.body;
    for (const auto& k : nlohmann::json::parse(r.body)) {
      std::string close = k[4].get<std::string>();
      if (close.find('.') != std::string::npos) {
        while (close.back() == '0') close.pop_back();
        if (close.back() == '.') close.pop_back();
      }
      served.insert("binance|" + f.pair + "|" + f.timeframe + "|" +
                    std::to_string(k[0].get<int64_t>()) + " " + close);
    }
  }
  EXPECT_EQ(dumped, served);
  auto from_start = DumpRows(*e, "pdr_ohlcv", to);
  ASSERT_TRUE(from_start.ok());
  size_t before_start = 0;
  for (const auto& r : dump->rows) before_start += std::stoll(r[4]) < Ms("2024-07-25");
  EXPECT_GT(before_start, 0u);
  EXPECT_EQ(from_start->rows.size() + before_start, dump->rows.size());
}

}  // namespace
}  // namespace predlake::sim
