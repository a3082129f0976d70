#include "raw/ohlcv.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <set>

#include "common/time.hpp"
#include "duck/duck.hpp"
#include "raw/schema.hpp"
#include "raw/store.hpp"

namespace predlake::raw {
namespace {

// The forward fetch's commits (FetchOhlcv): one transaction for the pages of every stream fetched
// within this window, or this many candles (a bound on what is held in memory).
constexpr auto kOhlcvCommitWindow = std::chrono::seconds(2);
constexpr size_t kOhlcvCommitCandles = 5'000;

std::string LowerAscii(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The candles of some streams' pages, to be stored together (StoreCandles).
struct CandleBatch {
  const OhlcvStream* stream;
  const std::vector<exchange::Candle>* candles;
};

// Stores the batches' candles in pdr_ohlcv, keeping a candle already there (the caller holds the
// transaction); returns the rows inserted. The candles go through an appender into a temporary
// table and from there in one INSERT: a VALUES list of the same rows cost DuckDB's parser about
// 0.1 ms a candle (0.5 s for one stream's 18 days of 5m candles). Prices were checked to be plain
// decimals (exchange::IsPlainDecimal); the appender casts them to the column's DECIMAL exactly.
Result<int64_t> StoreCandles(duck::Connection& conn, const std::vector<CandleBatch>& batches,
                             const std::string& step) {
  const std::string table(lake::kOhlcvTable.name);
  ASSIGN_OR_RETURN(TableStage stage, TableStage::Open(conn, table, step));
  duck::Appender& app = stage.appender();
  for (const CandleBatch& b : batches) {
    const OhlcvStream& s = *b.stream;
    for (const exchange::Candle& c : *b.candles) {
      RETURN_IF_ERROR(app.Append(lake::OhlcvId(s.exchange, s.pair, s.timeframe, c.open_ms)));
      RETURN_IF_ERROR(app.Append(std::string_view(s.exchange)));
      RETURN_IF_ERROR(app.Append(std::string_view(s.pair)));
      RETURN_IF_ERROR(app.Append(std::string_view(s.timeframe)));
      RETURN_IF_ERROR(app.Append(c.open_ms));
      for (const std::string* price : {&c.open, &c.high, &c.low, &c.close, &c.volume}) {
        RETURN_IF_ERROR(app.Append(std::string_view(*price)));
      }
      RETURN_IF_ERROR(app.EndRow());
    }
  }
  const std::string staged = "SELECT * FROM " + stage.name();
  RETURN_IF_ERROR(stage.appender().Close());
  ASSIGN_OR_RETURN(std::string stored, StoredIdRange(conn, lake::kOhlcvTable, staged, step));
  return stage.Write("", {InsertNewIdsSql(lake::kOhlcvTable, staged, stored)});
}

// Pages of the forward fetch waiting for their commit (FetchOhlcv).
struct PendingCandles {
  const OhlcvStream* stream;
  std::vector<exchange::Candle> candles;
  lake::Watermark after;
  std::string context;
};

}  // namespace

std::vector<OhlcvStream> OhlcvStreams(const ContractMap& contracts, const std::string& exchange) {
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<OhlcvStream> out;
  const std::string want = LowerAscii(exchange);
  for (const auto& [id, c] : contracts) {
    if (!c.unusable.empty() || !c.pair || !c.timeframe || !c.source) continue;
    if (LowerAscii(*c.source) != want) continue;
    if (!seen.emplace(*c.pair, *c.timeframe).second) continue;
    OhlcvStream s{want, *c.pair, *c.timeframe, lake::OhlcvStreamName(want, *c.pair, *c.timeframe)};
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(),
            [](const OhlcvStream& a, const OhlcvStream& b) { return a.name < b.name; });
  return out;
}

namespace {

// [options.start_ms, before.start_ms) of stream `s`, read forward in pages and stored in one
// transaction with the stream's start lowered to options.start_ms; `after` is the stream's new
// watermark.
Status BackfillStream(lake::Lake& lake, int64_t run_id, const OhlcvStream& s, int64_t tf_ms,
                      const std::string& symbol, const OhlcvOptions& options,
                      exchange::Client& client, const lake::Watermark& before,
                      lake::Watermark& after, OhlcvReport& report) {
  const int64_t from = options.start_ms;
  const int64_t to = before.watermark_ms > before.start_ms ? before.start_ms : from;
  const std::string context = "pdr_ohlcv " + s.exchange + " " + s.pair + " " + s.timeframe +
                              " backfill " + FormatWindow(from, std::max(from, to));
  std::vector<exchange::Candle> kept;
  int64_t at = from;
  int page = 0;
  while (at < to) {
    if (options.cancel != nullptr && options.cancel->load()) {
      return Status::Cancelled("raw update interrupted");
    }
    ++page;
    exchange::KlinesRequest request{symbol, s.timeframe, at, to - 1, exchange::kMaxKlines};
    auto candles = client.Klines(request);
    if (!candles.ok()) {
      return candles.status().code() == StatusCode::kCancelled
                 ? candles.status()
                 : Status(candles.status().code(), context + " page " + std::to_string(page) +
                                                       ": " + candles.status().message());
    }
    size_t in_window = 0;
    for (exchange::Candle& c : *candles) {
      if (c.open_ms >= at && c.open_ms < to && c.open_ms + tf_ms <= options.now_ms) {
        kept.push_back(std::move(c));
        ++in_window;
      }
    }
    const bool full = static_cast<int>(candles->size()) >= exchange::kMaxKlines;
    if (full && in_window == 0) {
      return Status::Source(context + " page " + std::to_string(page) +
                            ": a full page without a candle of the window");
    }
    at = full ? std::min(to, kept.back().open_ms + tf_ms) : to;
    ++report.pages;
  }
  ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake.conn()));
  lake::TableCounts counts;
  counts.rows_in = static_cast<int64_t>(kept.size());
  if (!kept.empty()) {
    ASSIGN_OR_RETURN(counts.rows_out,
                     StoreCandles(lake.conn(), {{&s, &kept}}, "backfill candles of " + s.name));
  }
  // An empty stream claims nothing yet: the forward fetch starts at the new start.
  after = {from, before.watermark_ms > before.start_ms ? before.watermark_ms : from};
  RETURN_IF_ERROR(lake.SetWatermark(s.name, after, run_id));
  RETURN_IF_ERROR(tx.Commit());
  report.counts += counts;
  return Status::Ok();
}

}  // namespace

Status FetchOhlcv(lake::Lake& lake, int64_t run_id, const std::vector<OhlcvStream>& streams,
                  const OhlcvOptions& options, const ExchangeFactory& factory,
                  OhlcvReport& report) {
  ASSIGN_OR_RETURN(auto marks, lake.Watermarks());
  {
    ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake.conn()));
    for (const OhlcvStream& s : streams) {
      if (marks.count(s.name)) continue;
      lake::Watermark w{options.start_ms, options.start_ms};
      RETURN_IF_ERROR(lake.SetWatermark(s.name, w, run_id));
      marks[s.name] = w;
    }
    RETURN_IF_ERROR(tx.Commit());
  }
  if (streams.empty()) return Status::Ok();
  std::unique_ptr<exchange::Transport> transport = factory ? factory(run_id) : nullptr;
  if (!transport) return Status::Internal("the exchange transport factory returned no transport");
  exchange::Client client(std::move(transport), options.retry, options.sleeper);
  client.set_stop_flag(options.cancel);
  // The pages fetched and not stored yet, of any streams: stored with their watermarks in one
  // transaction once they hold kOhlcvCommitCandles candles or kOhlcvCommitWindow has passed since
  // the first, before a backfill and at the end (also after a failure: what was fetched stays). A
  // kill loses at most that window; each stream's watermark commits with its candles.
  std::vector<PendingCandles> pending;
  size_t pending_candles = 0;
  std::chrono::steady_clock::time_point pending_since;
  auto flush = [&]() -> Status {
    if (pending.empty()) return Status::Ok();
    std::vector<PendingCandles> pages = std::move(pending);
    pending.clear();
    pending_candles = 0;
    // One INSERT for every page's candles and one statement for the streams' watermarks (the last
    // page of a stream holds its latest).
    lake::TableCounts counts;
    std::vector<CandleBatch> batches;
    std::vector<std::pair<std::string, lake::Watermark>> stored_marks;
    for (const PendingCandles& p : pages) {
      counts.rows_in += static_cast<int64_t>(p.candles.size());
      if (!p.candles.empty()) batches.push_back({p.stream, &p.candles});
      auto same = std::find_if(stored_marks.begin(), stored_marks.end(),
                               [&](const auto& m) { return m.first == p.stream->name; });
      if (same == stored_marks.end()) {
        stored_marks.emplace_back(p.stream->name, p.after);
      } else {
        same->second = p.after;
      }
    }
    const std::string context =
        pages.size() == 1 ? pages[0].context
                          : pages[0].context + " and " + std::to_string(pages.size() - 1) +
                                " more page" + (pages.size() == 2 ? "" : "s");
    ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake.conn()));
    Status st = [&]() -> Status {
      if (!batches.empty()) {
        ASSIGN_OR_RETURN(int64_t inserted, StoreCandles(lake.conn(), batches, "store candles"));
        counts.rows_out += inserted;
      }
      return lake.SetWatermarks(stored_marks, run_id);
    }();
    if (!st.ok()) return st.WithContext(context);
    RETURN_IF_ERROR(tx.Commit());
    report.counts += counts;
    return Status::Ok();
  };
  Status result = Status::Ok();
  for (const OhlcvStream& s : streams) {
    ++report.streams;
    auto tf = exchange::TimeframeMs(s.timeframe);
    auto symbol = exchange::BinanceSymbol(s.pair);
    lake::Watermark before = marks[s.name];
    if (!tf || !symbol) {
      result = Status::Source("pdr_ohlcv " + s.exchange + " " + s.pair + " " + s.timeframe +
                              ": not a pair and timeframe the exchange knows");
      break;
    }
    // Candles opening before `end` have all closed by now_ms.
    const int64_t closed_end = (options.now_ms / *tf) * *tf;
    const int64_t end = std::min(options.end_ms, closed_end);
    if (options.start_ms < before.start_ms) {
      // Backfill (lake_ss.st_timestr moved earlier): [start, recorded start) is read whole and
      // stored in one transaction that lowers the stream's start, so the start never claims a
      // candle that is not stored (a stream's candles are few: 288 a day at 5m).
      if (Status st = flush(); !st.ok()) {
        result = st;
        break;
      }
      lake::Watermark after;
      Status st =
          BackfillStream(lake, run_id, s, *tf, *symbol, options, client, before, after, report);
      if (!st.ok()) {
        result = st;
        break;
      }
      before = after;
    }
    int64_t watermark = before.watermark_ms;
    const std::string context = "pdr_ohlcv " + s.exchange + " " + s.pair + " " + s.timeframe + " " +
                                FormatWindow(watermark, std::max(watermark, end));
    int page = 0;
    while (watermark < end) {
      if (options.cancel != nullptr && options.cancel->load()) {
        result = Status::Cancelled("raw update interrupted");
        break;
      }
      ++page;
      exchange::KlinesRequest request{*symbol, s.timeframe, watermark, end - 1,
                                      exchange::kMaxKlines};
      auto candles = client.Klines(request);
      if (!candles.ok()) {
        result = candles.status().code() == StatusCode::kCancelled
                     ? candles.status()
                     : Status(candles.status().code(), context + " page " + std::to_string(page) +
                                                           ": " + candles.status().message());
        break;
      }
      // Only candles of the window, closed by now (an exchange answers the open one too).
      std::vector<exchange::Candle> kept;
      for (exchange::Candle& c : *candles) {
        if (c.open_ms >= watermark && c.open_ms < end && c.open_ms + *tf <= options.now_ms) {
          kept.push_back(std::move(c));
        }
      }
      const bool full = static_cast<int>(candles->size()) >= exchange::kMaxKlines;
      int64_t next = end;
      if (full && !kept.empty()) next = std::min(end, kept.back().open_ms + *tf);
      if (full && kept.empty()) {
        result = Status::Source(context + " page " + std::to_string(page) +
                                ": a full page without a candle of the window");
        break;
      }
      if (pending.empty()) pending_since = std::chrono::steady_clock::now();
      pending_candles += kept.size();
      pending.push_back({&s, std::move(kept), {before.start_ms, next}, context});
      if (pending_candles >= kOhlcvCommitCandles ||
          std::chrono::steady_clock::now() - pending_since >= kOhlcvCommitWindow) {
        if (Status st = flush(); !st.ok()) {
          result = st;
          break;
        }
      }
      ++report.pages;
      watermark = next;
    }
    if (!result.ok()) break;
  }
  if (Status st = flush(); !st.ok() && result.ok()) result = st;
  report.requests += client.stats().requests;
  report.retries += client.stats().retries;
  for (const auto& [kind, n] : client.stats().retries_by_kind) report.retries_by_kind[kind] += n;
  return result;
}

}  // namespace predlake::raw
