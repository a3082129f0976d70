#include "raw/ohlcv.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <limits>
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

// Stores the batches' candles in pdr_ohlcv (the caller holds the transaction): a candle not stored
// yet is inserted, a stored one the exchange now answers differently is corrected, and both are
// recorded in predlake_candle_changes for the ETL. Adds the rows inserted (rows_out) and corrected
// (rows_updated) to `counts`. The candles go through an appender into a temporary table and from
// there in a few statements: a VALUES list of the same rows cost DuckDB's parser about 0.1 ms a
// candle (0.5 s for one stream's 18 days of 5m candles). Prices were checked to be plain decimals
// (exchange::IsPlainDecimal); the appender casts them to the column's DECIMAL exactly.
Status StoreCandles(duck::Connection& conn, const std::vector<CandleBatch>& batches,
                    const std::string& step, lake::TableCounts& counts) {
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
  // New or changed: no stored row with the same ID and values.
  const std::string changed =
      "SELECT * FROM " + stage.name() + " AS s WHERE NOT EXISTS (SELECT 1 FROM " + table +
      " AS stored WHERE " + stored +
      " AND stored.ID = s.ID AND stored.open = s.open AND stored.high = s.high AND stored.low = "
      "s.low AND stored.close = s.close AND stored.volume = s.volume)";
  RETURN_IF_ERROR(conn.Execute(lake::RecordCandleChangesSql(changed), step));
  ASSIGN_OR_RETURN(auto corrected,
                   conn.Query(UpdateStoredIdsSql(lake::kOhlcvTable, staged, stored), step));
  counts.rows_updated += corrected.rows_changed();
  ASSIGN_OR_RETURN(int64_t inserted,
                   stage.Write("", {InsertNewIdsSql(lake::kOhlcvTable, staged, stored)}));
  counts.rows_out += inserted;
  return Status::Ok();
}

// Pages of the forward fetch waiting for their commit (FetchOhlcv).
struct PendingCandles {
  const OhlcvStream* stream;
  std::vector<exchange::Candle> candles;
  lake::Watermark after;
  std::string context;
  std::vector<int64_t> gaps;  // open times recorded as known gaps with this page
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

std::string StreamLabel(const OhlcvStream& s) {
  return "pdr_ohlcv " + s.exchange + " " + s.pair + " " + s.timeframe;
}

// The failure of a request of `client` as the stream's: its status, or a set-aside / host-wide
// failure for the caller.
struct StreamOutcome {
  Status status;
  bool host_wide = false;
  bool set_aside = false;
  std::optional<int64_t> blocked_for_ms;
};

StreamOutcome Outcome(const Status& st, const exchange::Client& client) {
  StreamOutcome out;
  out.status = st;
  if (st.ok() || st.code() == StatusCode::kCancelled) return out;
  const exchange::Failure& f = client.last_failure();
  out.host_wide = f.host_wide;
  out.set_aside = !f.host_wide && f.http_status >= 400 && f.http_status < 500;
  out.blocked_for_ms = f.blocked_for_ms;
  return out;
}

// [options.start_ms, before.start_ms) of stream `s`, read forward in pages and stored in one
// transaction with the stream's start lowered to options.start_ms; `after` is the stream's new
// watermark. Candles are kept up to `final_end` (exclusive, by open time).
Status BackfillStream(lake::Lake& lake, int64_t run_id, const OhlcvStream& s, int64_t tf_ms,
                      const std::string& symbol, const OhlcvOptions& options, int64_t final_end,
                      exchange::Client& client, const lake::Watermark& before,
                      lake::Watermark& after, OhlcvReport& report) {
  const int64_t from = options.start_ms;
  const int64_t to =
      std::min(final_end, before.watermark_ms > before.start_ms ? before.start_ms : from);
  const std::string context =
      StreamLabel(s) + " backfill " + FormatWindow(from, std::max(from, to));
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
      if (c.open_ms >= at && c.open_ms < to) {
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
    RETURN_IF_ERROR(
        StoreCandles(lake.conn(), {{&s, &kept}}, "backfill candles of " + s.name, counts));
  }
  // An empty stream claims nothing yet: the forward fetch starts at the new start. The backfill's
  // own holes are history by now: the forward fetch's gap rule applies from the watermark on.
  after = {from, before.watermark_ms > before.start_ms ? before.watermark_ms : from};
  RETURN_IF_ERROR(lake.SetWatermark(s.name, after, run_id));
  RETURN_IF_ERROR(tx.Commit());
  report.counts += counts;
  return Status::Ok();
}

// The known gaps of every stream at or after `from_ms`, by stream: one statement for all streams
// (one each cost DuckDB's fixed per-statement work 20 times an hour, docs/scale.md).
Result<std::map<std::string, std::set<int64_t>>> KnownGaps(lake::Lake& lake, int64_t from_ms) {
  ASSIGN_OR_RETURN(auto rows,
                   lake.conn().Query("SELECT stream, open_ms FROM predlake_candle_gaps WHERE "
                                     "open_ms >= " +
                                         std::to_string(from_ms),
                                     "read the known candle gaps"));
  std::map<std::string, std::set<int64_t>> out;
  for (const auto& row : rows.ToText()) {
    out[row[0].value_or("")].insert(std::stoll(row[1].value_or("0")));
  }
  return out;
}

// Records the streams' health (predlake_ohlcv_streams) and a ban; the caller holds the transaction.
Status RecordStreamsIn(lake::Lake& lake, int64_t run_id, const std::vector<OhlcvStream>& streams,
                       const OhlcvReport& report, int64_t now_ms) {
  std::map<std::string, const OhlcvStreamFailure*> failed;
  for (const OhlcvStreamFailure& f : report.failures) failed[f.stream] = &f;
  std::string values;
  const std::string now = std::to_string(now_ms);
  for (const OhlcvStream& s : streams) {
    auto it = failed.find(s.name);
    const bool ok = it == failed.end();
    if (!values.empty()) values += ", ";
    values += "(" + duck::QuoteString(s.name) + ", " +
              (ok                      ? "'ok'"
               : it->second->set_aside ? "'set_aside'"
                                       : "'failing'") +
              ", " + (ok ? "NULL" : duck::QuoteString(it->second->error)) + ", " +
              (ok ? "NULL" : now) + ", " + (ok ? now : "NULL") + ", " + now + ", " +
              std::to_string(run_id) + ")";
  }
  if (!values.empty()) {
    RETURN_IF_ERROR(lake.conn().Execute(
        "INSERT INTO predlake_ohlcv_streams VALUES " + values +
            " ON CONFLICT (stream) DO UPDATE SET status = excluded.status, error = excluded.error, "
            "failing_since_ms = CASE WHEN excluded.status = 'ok' THEN NULL ELSE "
            "coalesce(predlake_ohlcv_streams.failing_since_ms, excluded.failing_since_ms) END, "
            "last_ok_ms = coalesce(excluded.last_ok_ms, predlake_ohlcv_streams.last_ok_ms), "
            "updated_at_ms = excluded.updated_at_ms, run_id = excluded.run_id",
        "record the candle streams' health"));
  }
  if (report.blocked_until_ms) {
    RETURN_IF_ERROR(
        lake.SetMeta(lake::kMetaExchangeBlockedUntil, std::to_string(*report.blocked_until_ms)));
    std::string why = report.failures.empty() ? std::string() : report.failures.front().error;
    RETURN_IF_ERROR(lake.SetMeta(lake::kMetaExchangeBlockedWhy, why));
  }
  return Status::Ok();
}

// RecordStreamsIn in a transaction of its own.
Status RecordStreams(lake::Lake& lake, int64_t run_id, const std::vector<OhlcvStream>& streams,
                     const OhlcvReport& report, int64_t now_ms) {
  if (streams.empty() && !report.blocked_until_ms) return Status::Ok();
  ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake.conn()));
  RETURN_IF_ERROR(RecordStreamsIn(lake, run_id, streams, report, now_ms));
  return tx.Commit();
}

}  // namespace

Status FetchOhlcv(lake::Lake& lake, int64_t run_id, const std::vector<OhlcvStream>& streams,
                  const OhlcvOptions& options, const ExchangeFactory& factory,
                  OhlcvReport& report) {
  ASSIGN_OR_RETURN(auto marks, lake.Watermarks());
  const bool all_marked = std::all_of(streams.begin(), streams.end(), [&](const OhlcvStream& s) {
    return marks.count(s.name) > 0;
  });
  if (!all_marked) {
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
  report.streams = static_cast<int64_t>(streams.size());

  // Every stream from `first` on fails with `error` (the host failed, or blocks us): one warning.
  auto fail_rest = [&](size_t first, const std::string& error) {
    for (size_t i = first; i < streams.size(); ++i) {
      report.failures.push_back({streams[i].name, error, false});
    }
    const size_t n = streams.size() - first;
    report.warnings.push_back(
        "raw update: no candles for " +
        (n == 1 ? streams[first].name : std::to_string(n) + " candle streams") + ": " + error +
        "; the subgraph tables and the ETL went on without them (their slots get the exchange "
        "columns when the candles arrive). If this host cannot reach the exchange, set "
        "lake_ss.ohlcv_base_url to one it can reach, or lake_ss.ohlcv: false");
  };
  auto finish = [&]() { return RecordStreams(lake, run_id, streams, report, options.now_ms); };

  // A ban or Retry-After an earlier run met is honoured: no request before it ends.
  {
    ASSIGN_OR_RETURN(auto until, lake.GetMeta(lake::kMetaExchangeBlockedUntil));
    if (until) {
      const int64_t until_ms = std::stoll(*until);
      if (options.now_ms < until_ms) {
        ASSIGN_OR_RETURN(auto why, lake.GetMeta(lake::kMetaExchangeBlockedWhy));
        fail_rest(0, "the exchange asked not to be called before " + FormatTime(until_ms) +
                         (why && !why->empty() ? " (" + *why + ")" : std::string()));
        return finish();
      }
    }
  }

  std::unique_ptr<exchange::Transport> transport = factory ? factory(run_id) : nullptr;
  if (!transport) return Status::Internal("the exchange transport factory returned no transport");
  exchange::Client client(std::move(transport), options.retry, options.sleeper);
  client.set_stop_flag(options.cancel);
  auto count_requests = [&]() {
    report.requests += client.stats().requests;
    report.retries += client.stats().retries;
    for (const auto& [kind, n] : client.stats().retries_by_kind) report.retries_by_kind[kind] += n;
  };
  // A host-wide failure: the rest of the streams fail with it; a ban is kept in the lake.
  auto host_failed = [&](size_t first, const StreamOutcome& o) -> Status {
    if (o.blocked_for_ms) report.blocked_until_ms = options.now_ms + *o.blocked_for_ms;
    std::string error = o.status.message();
    if (report.blocked_until_ms) {
      error += "; no request before " + FormatTime(*report.blocked_until_ms);
    }
    fail_rest(first, error);
    count_requests();
    return finish();
  };

  // Finality by the exchange's clock, never ours.
  auto server_time = client.ServerTimeMs();
  if (!server_time.ok()) {
    if (server_time.status().code() == StatusCode::kCancelled) return server_time.status();
    StreamOutcome o = Outcome(server_time.status(), client);
    o.status = server_time.status().WithContext("reading the exchange's clock");
    return host_failed(0, o);
  }
  report.server_time_ms = *server_time;
  const int64_t final_ms = *server_time - kCandleFinalityMarginMs;

  // The pages fetched and not stored yet, of any streams: stored with their watermarks in one
  // transaction once they hold kOhlcvCommitCandles candles or kOhlcvCommitWindow has passed since
  // the first, before a backfill and at the end (also after a failure: what was fetched stays). A
  // kill loses at most that window; each stream's watermark commits with its candles.
  std::vector<PendingCandles> pending;
  size_t pending_candles = 0;
  std::chrono::steady_clock::time_point pending_since;
  // `last`: the run's final flush, which also records the streams' health in its transaction (one
  // commit fewer an hour).
  auto flush = [&](bool last = false) -> Status {
    if (pending.empty()) return last ? finish() : Status::Ok();
    std::vector<PendingCandles> pages = std::move(pending);
    pending.clear();
    pending_candles = 0;
    // One store for every page's candles and one statement for the streams' watermarks (the last
    // page of a stream holds its latest).
    lake::TableCounts counts;
    std::vector<CandleBatch> batches;
    std::vector<std::pair<std::string, lake::Watermark>> stored_marks;
    std::string gaps;
    for (const PendingCandles& p : pages) {
      counts.rows_in += static_cast<int64_t>(p.candles.size());
      if (!p.candles.empty()) batches.push_back({p.stream, &p.candles});
      for (int64_t open : p.gaps) {
        gaps += std::string(gaps.empty() ? "" : ", ") + "(" + duck::QuoteString(p.stream->name) +
                ", " + std::to_string(open) + ", " + std::to_string(options.now_ms) + ", " +
                std::to_string(run_id) + ")";
      }
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
        RETURN_IF_ERROR(StoreCandles(lake.conn(), batches, "store candles", counts));
      }
      if (!gaps.empty()) {
        RETURN_IF_ERROR(lake.conn().Execute(
            "INSERT INTO predlake_candle_gaps VALUES " + gaps + " ON CONFLICT DO NOTHING",
            "record known candle gaps"));
      }
      RETURN_IF_ERROR(lake.SetWatermarks(stored_marks, run_id));
      return last ? RecordStreamsIn(lake, run_id, streams, report, options.now_ms) : Status::Ok();
    }();
    if (!st.ok()) return st.WithContext(context);
    RETURN_IF_ERROR(tx.Commit());
    report.counts += counts;
    return Status::Ok();
  };

  // A stream's gaps are recorded only while its own pages are fetched, and a backfill leaves a
  // watermark at or above the new start: so the gaps read once here, from the lowest watermark (or
  // start, for a stream to backfill), are the ones each stream would read at its turn.
  int64_t gaps_from = std::numeric_limits<int64_t>::max();
  for (const OhlcvStream& s : streams) {
    const lake::Watermark& mark = marks[s.name];
    gaps_from = std::min(gaps_from, options.start_ms < mark.start_ms
                                        ? std::min(mark.watermark_ms, options.start_ms)
                                        : mark.watermark_ms);
  }
  ASSIGN_OR_RETURN(auto gaps_by_stream, KnownGaps(lake, gaps_from));
  for (size_t index = 0; index < streams.size(); ++index) {
    const OhlcvStream& s = streams[index];
    auto tf = exchange::TimeframeMs(s.timeframe);
    auto symbol = exchange::BinanceSymbol(s.pair);
    lake::Watermark before = marks[s.name];
    if (!tf || !symbol) {
      const std::string error = "'" + s.pair + "' " + s.timeframe +
                                " is not a pair and timeframe the exchange can be asked for";
      report.failures.push_back({s.name, error, true});
      report.warnings.push_back("raw update: candle stream " + s.name + " set aside: " + error +
                                "; its feed's subgraph data is stored, without exchange columns");
      continue;
    }
    // Candles opening before `closed_end` are final by the exchange's clock.
    const int64_t closed_end = (final_ms / *tf) * *tf;
    const int64_t end = std::min(options.end_ms, closed_end);
    StreamOutcome outcome;
    if (options.start_ms < before.start_ms) {
      // Backfill (lake_ss.st_timestr moved earlier): [start, recorded start) is read whole and
      // stored in one transaction that lowers the stream's start, so the start never claims a
      // candle that is not stored (a stream's candles are few: 288 a day at 5m).
      if (Status st = flush(); !st.ok()) return st;
      lake::Watermark after;
      Status st = BackfillStream(lake, run_id, s, *tf, *symbol, options, closed_end, client, before,
                                 after, report);
      if (st.code() == StatusCode::kCancelled) return st;
      if (!st.ok() && st.code() != StatusCode::kSource) return st;
      outcome = Outcome(st, client);
      if (st.ok()) before = after;
    }
    // The forward fetch re-reads the newest stored candles (corrections) and checks every open
    // time from the watermark on: the first missing one that is not a known gap holds it.
    const int64_t watermark = before.watermark_ms;
    const int64_t from = std::max(before.start_ms, watermark - kCandleOverlap * *tf);
    const int64_t grid = ((watermark + *tf - 1) / *tf) * *tf;  // first open time at or after it
    std::set<int64_t> known_gaps;
    if (auto it = gaps_by_stream.find(s.name); it != gaps_by_stream.end()) {
      known_gaps.insert(it->second.lower_bound(watermark), it->second.end());
    }
    const std::string context = StreamLabel(s) + " " + FormatWindow(from, std::max(from, end));
    std::optional<int64_t> held;  // the first missing candle that holds the watermark
    int64_t expect = grid;        // the next open time to check
    int64_t at = from;
    int page = 0;
    while (outcome.status.ok() && at < end) {
      if (options.cancel != nullptr && options.cancel->load()) {
        return Status::Cancelled("raw update interrupted");
      }
      ++page;
      exchange::KlinesRequest request{*symbol, s.timeframe, at, end - 1, exchange::kMaxKlines};
      auto candles = client.Klines(request);
      if (!candles.ok()) {
        if (candles.status().code() == StatusCode::kCancelled) return candles.status();
        outcome =
            Outcome(Status(candles.status().code(), context + " page " + std::to_string(page) +
                                                        ": " + candles.status().message()),
                    client);
        break;
      }
      // Only candles of the window that are final (an exchange answers the open one too).
      std::vector<exchange::Candle> kept;
      for (exchange::Candle& c : *candles) {
        if (c.open_ms >= at && c.open_ms < end) kept.push_back(std::move(c));
      }
      const bool full = static_cast<int>(candles->size()) >= exchange::kMaxKlines;
      if (full && kept.empty()) {
        outcome.status = Status::Source(context + " page " + std::to_string(page) +
                                        ": a full page without a candle of the window");
        break;
      }
      const int64_t next = full ? std::min(end, kept.back().open_ms + *tf) : end;
      // The open times this page answers for, [at, next), checked against what came.
      std::vector<int64_t> gaps;
      size_t k = 0;
      for (; expect < next; expect += *tf) {
        while (k < kept.size() && kept[k].open_ms < expect) ++k;
        if (k < kept.size() && kept[k].open_ms == expect) continue;
        if (known_gaps.count(expect)) continue;
        if (held) continue;
        if (expect + *tf + options.gap_after_ms <= *server_time) {
          gaps.push_back(expect);
          ++report.gaps_recorded;
        } else {
          held = expect;
        }
      }
      if (pending.empty()) pending_since = std::chrono::steady_clock::now();
      pending_candles += kept.size();
      const int64_t mark = std::max(watermark, held ? *held : next);
      pending.push_back({&s, std::move(kept), {before.start_ms, mark}, context, std::move(gaps)});
      if (pending_candles >= kOhlcvCommitCandles ||
          std::chrono::steady_clock::now() - pending_since >= kOhlcvCommitWindow) {
        if (Status st = flush(); !st.ok()) return st;
      }
      ++report.pages;
      at = next;
    }
    if (outcome.status.ok()) continue;
    if (outcome.host_wide || outcome.blocked_for_ms) {
      if (Status st = flush(); !st.ok()) return st;
      return host_failed(index, outcome);
    }
    report.failures.push_back({s.name, outcome.status.message(), outcome.set_aside});
    report.warnings.push_back(
        "raw update: candle stream " + s.name + (outcome.set_aside ? " set aside" : " failed") +
        ": " + outcome.status.message() +
        "; its feed's subgraph data is stored, without exchange columns until the candles arrive" +
        (outcome.set_aside ? " (asked again at the next run)" : ""));
  }
  count_requests();
  return flush(true);
}

}  // namespace predlake::raw
