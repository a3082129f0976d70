#include "source/sim/dump.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "lake/tables.hpp"

namespace predlake::sim {
namespace {

constexpr int64_t kChunk = 6 * 3600;

std::string Ms(int64_t ts) { return std::to_string(ts * 1000); }
const char* BoolText(bool b) { return b ? "true" : "false"; }

using lake::Col;

struct Item {
  int64_t ts;
  std::string id;
  std::vector<std::string> fields;  // in the table's column order; "" is NULL
};

// A new item of `table` with every field NULL.
Item& Add(std::vector<Item>& items, int64_t ts, const std::string& id,
          const lake::TableDef& table) {
  items.push_back({ts, id, std::vector<std::string>(table.columns.size())});
  return items.back();
}

}  // namespace

const std::vector<std::string>& DumpTableNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names(lake::kRawTables.begin(), lake::kRawTables.end());
    names.emplace_back(lake::kOhlcvTable.name);
    return names;
  }();
  return kNames;
}

std::vector<std::string> DumpColumns(const std::string& table) {
  const lake::TableDef* def =
      table == lake::kOhlcvTable.name ? &lake::kOhlcvTable : lake::FindRawTable(table);
  std::vector<std::string> names;
  if (def != nullptr) {
    for (const lake::ColumnDef& c : def->columns) names.emplace_back(c.name);
  }
  return names;
}

Status ForEachDumpRow(const Engine& engine, const std::string& table, int64_t to_ms,
                      const std::function<void(const std::vector<std::string>&)>& row) {
  return ForEachDumpRow(engine, table, engine.world().start_s() * 1000, to_ms, row);
}

Status ForEachDumpRow(const Engine& engine, const std::string& table, int64_t from_ms,
                      int64_t to_ms,
                      const std::function<void(const std::vector<std::string>&)>& row) {
  if (DumpColumns(table).empty()) {
    const std::string names = fmt::format("{}", fmt::join(DumpTableNames(), ", "));
    return Status::Usage("unknown table '" + table + "' (expected one of: " + names + ")");
  }
  const World& w = engine.world();
  // The head rule (docs/sim.md): the subgraph reports its head as a whole second and serves the
  // events of that second, but a fetch stops before it, so that second is never in the lake.
  const int64_t head_s = FloorDiv(engine.HeadMs(), 1000);
  to_ms = std::min(to_ms, head_s * 1000);
  // Events with from_ms <= ts * 1000 < to_ms, i.e. first <= ts < cut; none before the world's
  // start.
  const int64_t cut = CeilDiv(to_ms, 1000);
  const int64_t first_s = std::max(w.start_s(), CeilDiv(from_ms, 1000));
  // Slots are fetched in their state at the head (events up to and including its second).
  const int64_t state_cut = head_s + 1;
  SlotCache cache(w);
  std::vector<Item> items;
  auto flush = [&]() {
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      return a.ts != b.ts ? a.ts < b.ts : a.id < b.id;
    });
    for (const Item& it : items) row(it.fields);
    items.clear();
    cache.Trim();
  };
  const auto& feeds = w.feeds();

  if (table == lake::kOhlcvTable.name) {
    // The candles a complete fetch from from_ms leaves: every candle of a feed whose source is the
    // simulated exchange (binance) that opened in [from_ms, min(to_ms, head)) and closed by now.
    // The exchange has candles before the world's start too (the first slots' outcomes need them).
    // Decimals without trailing zeros.
    auto plain = [](std::string s) {
      if (s.find('.') == std::string::npos) return s;
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
      return s;
    };
    constexpr const lake::TableDef& t = lake::kOhlcvTable;
    const int64_t now_ms = engine.NowMs();
    for (const Feed& f : feeds) {
      std::string exchange = f.source;
      for (char& c : exchange) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (exchange != "binance") continue;
      const int64_t e_ms = f.epoch * 1000;
      const int64_t end = std::min(to_ms, FloorDiv(now_ms, e_ms) * e_ms);
      // The exchange serves nothing before unix time 0 (a startTime must be given, and be >= 0).
      for (int64_t a = std::max<int64_t>(from_ms, 0); a < end; a += kChunk * 1000) {
        std::vector<exchange::Candle> candles;
        w.CandlesIn(f.index, a, std::min(end, a + kChunk * 1000) - 1, INT32_MAX, candles);
        for (const exchange::Candle& c : candles) {
          std::string id = lake::OhlcvId(exchange, f.pair, f.timeframe, c.open_ms);
          Item& item = Add(items, c.open_ms, id, t);
          item.fields[Col(t, "ID")] = id;
          item.fields[Col(t, "exchange")] = exchange;
          item.fields[Col(t, "pair")] = f.pair;
          item.fields[Col(t, "timeframe")] = f.timeframe;
          item.fields[Col(t, "timestamp")] = std::to_string(c.open_ms);
          item.fields[Col(t, "open")] = plain(c.open);
          item.fields[Col(t, "high")] = plain(c.high);
          item.fields[Col(t, "low")] = plain(c.low);
          item.fields[Col(t, "close")] = plain(c.close);
          item.fields[Col(t, "volume")] = plain(c.volume);
        }
      }
    }
    flush();
    return Status::Ok();
  }

  if (table == lake::kSlotsTable.name) {
    int64_t first = INT64_MAX;
    for (const Feed& f : feeds) first = std::min(first, f.first_slot);
    first = std::max(first, first_s);
    for (int64_t a = first; a < cut; a += kChunk) {
      const int64_t e = std::min(cut, a + kChunk);
      for (size_t fi = 0; fi < feeds.size(); ++fi) {
        const Feed& f = feeds[fi];
        for (int64_t slot = std::max(f.first_slot, CeilDiv(a, f.epoch) * f.epoch); slot < e;
             slot += f.epoch) {
          const SlotInfo& info = cache.Get(static_cast<int>(fi), slot);
          const SlotState st = info.StateBefore(state_cut);
          if (!st.exists) continue;
          std::string id = f.contract + "-" + std::to_string(slot);
          constexpr const lake::TableDef& t = lake::kSlotsTable;
          Item& item = Add(items, slot, id, t);
          item.fields[Col(t, "ID")] = id;
          item.fields[Col(t, "timestamp")] = Ms(slot);
          item.fields[Col(t, "slot")] = std::to_string(slot);
          if (st.has_trueval) item.fields[Col(t, "truevalue")] = BoolText(info.truevalue);
          item.fields[Col(t, "roundSumStakesUp")] = FormatWei(st.round_sum_up);
          item.fields[Col(t, "roundSumStakes")] = FormatWei(st.round_sum);
          item.fields[Col(t, "status")] = SlotStatusName(st.status);
        }
      }
      flush();
    }
    return Status::Ok();
  }

  std::vector<std::pair<int64_t, Prediction>> preds;
  std::vector<std::pair<int64_t, int64_t>> tvs;
  std::vector<Payout> pays;
  std::vector<Subscription> subs;
  for (int64_t a = first_s; a < cut; a += kChunk) {
    const int64_t e = std::min(cut, a + kChunk);
    if (table == lake::kPayoutsTable.name) {
      pays.clear();
      w.PayoutsIn(a, e, {}, cache, pays);
      for (const Payout& p : pays) {
        const Feed& f = feeds[static_cast<size_t>(p.feed)];
        const SlotInfo& info = cache.Get(p.feed, p.slot);
        const Prediction* pred = info.Find(p.predictoor);
        const std::string& user = w.predictoors()[static_cast<size_t>(p.predictoor)].address;
        std::string id = f.contract + "-" + std::to_string(p.slot) + "-" + user;
        constexpr const lake::TableDef& t = lake::kPayoutsTable;
        Item& item = Add(items, p.ts, id, t);
        item.fields[Col(t, "ID")] = id;
        item.fields[Col(t, "token")] = f.pair;
        item.fields[Col(t, "user")] = user;
        item.fields[Col(t, "slot")] = std::to_string(p.slot);
        item.fields[Col(t, "timestamp")] = Ms(p.ts);
        item.fields[Col(t, "payout")] = FormatWei(info.PayoutAmount(*pred));
        item.fields[Col(t, "predvalue")] = BoolText(pred->value);
        // A refund carries false, as the real subgraph does (its trueValue is Boolean!).
        item.fields[Col(t, "truevalue")] = BoolText(!info.canceled && info.truevalue);
        item.fields[Col(t, "stake")] = FormatWei(pred->stake);
      }
    }
    for (size_t fi = 0; fi < feeds.size(); ++fi) {
      const Feed& f = feeds[fi];
      const int feed = static_cast<int>(fi);
      if (table == lake::kPredictionsTable.name) {
        preds.clear();
        // A re-submitted prediction in the version the subgraph holds at the head.
        w.PredictionsIn(feed, a, e, preds, state_cut);
        for (const auto& [slot, p] : preds) {
          const std::string& user = w.predictoors()[static_cast<size_t>(p.predictoor)].address;
          std::string id = f.contract + "-" + std::to_string(slot) + "-" + user;
          // predvalue, truevalue and payout stay empty (NULL).
          constexpr const lake::TableDef& t = lake::kPredictionsTable;
          Item& item = Add(items, p.ts, id, t);
          item.fields[Col(t, "ID")] = id;
          item.fields[Col(t, "contract")] = f.contract;
          item.fields[Col(t, "pair")] = f.pair;
          item.fields[Col(t, "timeframe")] = f.timeframe;
          item.fields[Col(t, "stake")] = FormatWei(p.stake);
          item.fields[Col(t, "timestamp")] = Ms(p.ts);
          item.fields[Col(t, "source")] = f.source;
          item.fields[Col(t, "slot")] = std::to_string(slot);
          item.fields[Col(t, "user")] = user;
        }
      } else if (table == lake::kTruevalsTable.name) {
        tvs.clear();
        w.TruevalsIn(feed, a, e, tvs);
        for (const auto& [slot, ts] : tvs) {
          const SlotInfo& info = cache.Get(feed, slot);
          const SlotState st = info.StateBefore(ts + 1);
          std::string id = f.contract + "-" + std::to_string(slot);
          constexpr const lake::TableDef& t = lake::kTruevalsTable;
          Item& item = Add(items, ts, id, t);
          item.fields[Col(t, "ID")] = id;
          item.fields[Col(t, "token")] = f.pair;
          item.fields[Col(t, "timestamp")] = Ms(ts);
          item.fields[Col(t, "truevalue")] = BoolText(info.truevalue);
          item.fields[Col(t, "slot")] = std::to_string(slot);
          item.fields[Col(t, "revenue")] = FormatWei(st.revenue);
          item.fields[Col(t, "roundSumStakesUp")] = FormatWei(st.round_sum_up);
          item.fields[Col(t, "roundSumStakes")] = FormatWei(st.round_sum);
        }
      } else if (table == lake::kSubscriptionsTable.name) {
        subs.clear();
        w.SubscriptionsIn(feed, a, e, subs);
        for (const Subscription& s : subs) {
          std::string tx = World::TxHash(s.tx);
          std::string id = f.contract + "-" + tx + "-" + std::to_string(s.event_index);
          constexpr const lake::TableDef& t = lake::kSubscriptionsTable;
          Item& item = Add(items, s.ts, id, t);
          item.fields[Col(t, "ID")] = id;
          item.fields[Col(t, "pair")] = f.pair;
          item.fields[Col(t, "timeframe")] = f.timeframe;
          item.fields[Col(t, "source")] = f.source;
          item.fields[Col(t, "tx_id")] = tx;
          item.fields[Col(t, "last_price_value")] = FormatWei(f.sub_price);
          item.fields[Col(t, "timestamp")] = Ms(s.ts);
          item.fields[Col(t, "user")] = w.buyers()[static_cast<size_t>(s.buyer)];
        }
      }
    }
    flush();
  }
  return Status::Ok();
}

Result<DumpTable> DumpRows(const Engine& engine, const std::string& table, int64_t from_ms,
                           int64_t to_ms) {
  DumpTable t;
  t.columns = DumpColumns(table);
  RETURN_IF_ERROR(ForEachDumpRow(engine, table, from_ms, to_ms,
                                 [&](const std::vector<std::string>& r) { t.rows.push_back(r); }));
  return t;
}

Result<DumpTable> DumpRows(const Engine& engine, const std::string& table, int64_t to_ms) {
  return DumpRows(engine, table, engine.world().start_s() * 1000, to_ms);
}

void AppendCsvField(std::string& line, const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) {
    line += field;
    return;
  }
  line += '"';
  for (char c : field) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

Status Dump(const Engine& engine, const std::string& table, int64_t to_ms, std::ostream& out) {
  return Dump(engine, table, engine.world().start_s() * 1000, to_ms, out);
}

Status Dump(const Engine& engine, const std::string& table, int64_t from_ms, int64_t to_ms,
            std::ostream& out) {
  std::vector<std::string> columns = DumpColumns(table);
  std::string line;
  auto write = [&](const std::vector<std::string>& fields) {
    line.clear();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) line += ',';
      AppendCsvField(line, fields[i]);
    }
    line += '\n';
    out << line;
  };
  if (!columns.empty()) write(columns);
  RETURN_IF_ERROR(ForEachDumpRow(engine, table, from_ms, to_ms, write));
  out.flush();
  if (!out) return Status::Data("sim dump: writing the output failed");
  return Status::Ok();
}

Status Dump(const config::SimConfig& config, int64_t now_ms, const std::string& table,
            int64_t to_ms, std::ostream& out) {
  ASSIGN_OR_RETURN(std::shared_ptr<const Engine> engine, Engine::Create(config, now_ms));
  return Dump(*engine, table, to_ms, out);
}

}  // namespace predlake::sim
