// /metrics (Prometheus text format 0.0.4) and /healthz, both from the current snapshot.
#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <optional>

#include "duck/duck.hpp"
#include "etl/etl.hpp"
#include "serve/pages.hpp"

namespace predlake::serve {
namespace {

std::string MetricLabel(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void Gauge(std::string& out, const char* name, const char* help, const std::string& value,
           const std::string& labels = "") {
  out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n{}{} {}\n", name, help, name, name,
                     labels.empty() ? "" : "{" + labels + "}", value);
}

std::string Seconds(int64_t ms) { return fmt::format("{:.3f}", static_cast<double>(ms) / 1000.0); }

// The rows of the queries about predictoor_ss.my_addresses, as text (NULL: nullopt).
using TextRows = std::vector<std::vector<std::optional<std::string>>>;

Result<TextRows> QueryMine(duck::Connection& conn, std::string_view name,
                           const std::string& addresses, int64_t checkpoint_ms) {
  ASSIGN_OR_RETURN(std::string sql, PageSql(name));
  ASSIGN_OR_RETURN(duck::Prepared stmt, conn.Prepare(sql, "serve: " + std::string(name)));
  RETURN_IF_ERROR(stmt.Bind(1, std::string_view(addresses)));
  RETURN_IF_ERROR(stmt.Bind(2, checkpoint_ms));
  ASSIGN_OR_RETURN(duck::QueryResult result, stmt.Execute());
  return result.ToText();
}

// What /metrics says about predictoor_ss.my_addresses and the feeds they predict on: a scan of the
// snapshot's predictions, so made once per snapshot (every value is as of its checkpoint) and kept
// for the requests that resolve the same snapshot.
struct MineCache {
  std::mutex mu;
  std::weak_ptr<SnapshotEntry> entry;
  std::string addresses;
  std::string text;
};

MineCache& Mine() {
  static MineCache cache;
  return cache;
}

std::string MineText(SnapshotView& view, const std::vector<std::string>& my_addresses,
                     int64_t checkpoint_ms) {
  std::string addresses;
  for (const std::string& a : my_addresses) addresses += (addresses.empty() ? "" : ",") + a;
  MineCache& cache = Mine();
  std::lock_guard<std::mutex> lock(cache.mu);
  if (cache.entry.lock() == view.entry && cache.addresses == addresses) return cache.text;
  std::string out;
  Result<TextRows> me = QueryMine(*view.conn, "metrics_my_addresses", addresses, checkpoint_ms);
  Result<TextRows> feeds = QueryMine(*view.conn, "metrics_my_feeds", addresses, checkpoint_ms);
  if (!me.ok() || !feeds.ok()) return out;  // left out, as the waiting updates are
  auto family = [&](const char* name, const char* help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
  };
  auto each = [&](const char* name, const char* help, auto value_of) {
    family(name, help);
    for (const auto& row : *me) {
      std::optional<std::string> v = value_of(row);
      if (v) out += fmt::format("{}{{address=\"{}\"}} {}\n", name, row[0].value_or(""), *v);
    }
  };
  auto n = [](const std::optional<std::string>& text) { return text ? std::stoll(*text) : 0; };
  each("predlake_my_predictions", "Predictions of my address in the snapshot (all time).",
       [](const auto& row) { return row[1]; });
  each("predlake_my_last_prediction_timestamp_seconds",
       "When my address made its newest prediction (absent without one).",
       [](const auto& row) -> std::optional<std::string> {
         if (!row[2]) return std::nullopt;
         return Seconds(std::stoll(*row[2]));
       });
  each("predlake_my_last_prediction_age_seconds",
       "The snapshot's checkpoint minus my address's newest prediction (absent without one).",
       [&](const auto& row) -> std::optional<std::string> {
         if (!row[2]) return std::nullopt;
         return Seconds(std::max<int64_t>(checkpoint_ms - std::stoll(*row[2]), 0));
       });
  each("predlake_my_predictions_24h",
       "Predictions of my address in the slots of the 24 hours before the checkpoint.",
       [](const auto& row) { return row[3]; });
  each("predlake_my_resolved_24h",
       "Of those, the resolved ones (paying slot, trueval and direction known).",
       [](const auto& row) { return row[4]; });
  each("predlake_my_accuracy_24h",
       "Correct over resolved, in the slots of the 24 hours before the checkpoint (absent without "
       "a resolved one); read it with predlake_my_revealed_share_24h.",
       [&](const auto& row) -> std::optional<std::string> {
         if (n(row[4]) == 0) return std::nullopt;
         return fmt::format("{:.6f}", static_cast<double>(n(row[5])) / n(row[4]));
       });
  each("predlake_my_revealed_share_24h",
       "Resolved over resolved plus unrevealed (paying slots whose direction was never revealed), "
       "in the same 24 hours (absent when both are 0).",
       [&](const auto& row) -> std::optional<std::string> {
         const int64_t d = n(row[4]) + n(row[6]);
         if (d == 0) return std::nullopt;
         return fmt::format("{:.6f}", static_cast<double>(n(row[4])) / d);
       });
  each("predlake_my_unclaimed_predictions",
       "Predictions of my address in paying slots whose payout is not claimed.",
       [](const auto& row) { return row[7]; });
  each("predlake_my_unclaimed_stake",
       "Their stake (OCEAN): what claiming may pay back, with the winnings, for the correct ones.",
       [](const auto& row) { return row[8]; });
  each("predlake_my_oldest_unclaimed_age_seconds",
       "The checkpoint minus the start of the oldest slot day holding an unclaimed payout of my "
       "address (absent without one).",
       [&](const auto& row) -> std::optional<std::string> {
         if (!row[11]) return std::nullopt;
         return Seconds(std::max<int64_t>(checkpoint_ms - std::stoll(*row[11]), 0));
       });
  each("predlake_my_refunds_pending",
       "Predictions of my address in canceled slots whose stake is not claimed back.",
       [](const auto& row) { return row[9]; });
  each("predlake_my_refund_pending_stake", "Their stake (OCEAN), refundable by a claim.",
       [](const auto& row) { return row[10]; });
  family("predlake_feed_last_trueval_age_seconds",
         "For each feed my addresses predicted on in the 7 days before the checkpoint: the "
         "checkpoint minus its newest trueval (+Inf without one).");
  for (const auto& row : *feeds) {
    out += fmt::format(
        "predlake_feed_last_trueval_age_seconds{{feed=\"{}\",pair=\"{}\",timeframe=\"{}\"}} "
        "{}\n",
        MetricLabel(row[0].value_or("")), MetricLabel(row[1].value_or("")),
        MetricLabel(row[2].value_or("")),
        row[3] ? Seconds(std::max<int64_t>(checkpoint_ms - std::stoll(*row[3]), 0)) : "+Inf");
  }
  cache.entry = view.entry;
  cache.addresses = addresses;
  cache.text = out;
  return out;
}

}  // namespace

Response HealthResponse(const ServeOptions& options) {
  Response r;
  r.content_type = "text/plain; charset=utf-8";
  r.headers.emplace_back("Cache-Control", "no-store");
  Result<SnapshotView> view = OpenView(options);
  if (!view.ok()) {
    r.status = 503;
    r.body = "unavailable: " + view.status().message() + "\n";
    return r;
  }
  // Readable: one query over a data table, not only the manifest.
  Result<std::string> sql = PageSql("healthz");
  Result<std::optional<int64_t>> n =
      sql.ok() ? view->conn->QueryInt(*sql, "serve: healthz") : sql.status();
  if (!n.ok()) {
    r.status = 503;
    r.body = "unavailable: " + n.status().message() + "\n";
    return r;
  }
  r.body = fmt::format("ok: snapshot run {}\n", view->snapshot().run_id);
  return r;
}

Response MetricsResponse(const ServeOptions& options, uint64_t requests) {
  Response r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.headers.emplace_back("Cache-Control", "no-store");
  std::string& out = r.body;
  out += fmt::format(
      "# HELP predlake_serve_requests_total HTTP requests answered.\n"
      "# TYPE predlake_serve_requests_total counter\n"
      "predlake_serve_requests_total {}\n",
      requests);
  Result<SnapshotView> opened = OpenView(options);
  if (!opened.ok()) {
    Gauge(out, "predlake_snapshot_up", "1 when the current snapshot is readable.", "0");
    return r;
  }
  SnapshotView& view = *opened;
  Gauge(out, "predlake_snapshot_up", "1 when the current snapshot is readable.", "1");
  Gauge(out, "predlake_snapshot_run", "The export run that made the current snapshot.",
        std::to_string(view.snapshot().run_id));
  Gauge(out, "predlake_snapshot_created_timestamp_seconds", "When the snapshot was made.",
        Seconds(view.snapshot().created_at_ms));
  Gauge(out, "predlake_snapshot_age_seconds", "Age of the current snapshot.",
        Seconds(std::max<int64_t>(view.now_ms - view.snapshot().created_at_ms, 0)));
  const nlohmann::json& m = view.snapshot().manifest;
  std::optional<int64_t> checkpoint;
  if (m.contains("checkpoint") && m["checkpoint"].is_object()) {
    checkpoint = m["checkpoint"].value("checkpoint_ms", int64_t{0});
    Gauge(out, "predlake_checkpoint_timestamp_seconds", "The ETL checkpoint of the snapshot.",
          Seconds(*checkpoint));
  }
  const Json& f = view.entry->freshness;
  if (f["frontier_ms"].is_number()) {
    const int64_t frontier_ms = f["frontier_ms"].get<int64_t>();
    Gauge(out, "predlake_frontier_timestamp_seconds",
          "The raw frontier (lowest input watermark) of the snapshot.", Seconds(frontier_ms),
          "held_back_by=\"" + MetricLabel(f.value("holding_back", "")) + "\"");
    if (checkpoint) {
      Gauge(out, "predlake_checkpoint_lag_seconds",
            "How far the checkpoint trails the raw frontier (raw data not built yet).",
            Seconds(std::max<int64_t>(frontier_ms - *checkpoint, 0)));
    }
  }
  if (checkpoint) {
    Gauge(out, "predlake_checkpoint_age_seconds", "How far the checkpoint trails now.",
          Seconds(std::max<int64_t>(view.now_ms - *checkpoint, 0)));
  }
  // The last run of the ledger as of the snapshot, and the last successful one.
  Result<std::string> last_sql = PageSql("metrics_last_run");
  Result<duck::QueryResult> last =
      last_sql.ok() ? view.conn->Query(*last_sql, "serve: metrics last run") : last_sql.status();
  if (last.ok()) {
    auto rows = last->ToText();
    if (!rows.empty()) {
      const auto& row = rows[0];
      out +=
          "# HELP predlake_last_run_info The newest run in the snapshot's ledger.\n"
          "# TYPE predlake_last_run_info gauge\n";
      out += fmt::format("predlake_last_run_info{{run=\"{}\",command=\"{}\",status=\"{}\"}} 1\n",
                         row[0].value_or(""), MetricLabel(row[1].value_or("")),
                         MetricLabel(row[2].value_or("")));
      Gauge(out, "predlake_last_run_success", "1 when the newest run succeeded.",
            row[2].value_or("") == "succeeded" ? "1" : "0");
      if (row[3]) {
        Gauge(out, "predlake_last_run_timestamp_seconds", "When the newest run ended (or began).",
              Seconds(std::stoll(*row[3])));
      }
      if (row[4]) {
        Gauge(out, "predlake_last_success_timestamp_seconds",
              "When the newest succeeded run ended (of any command).",
              Seconds(std::stoll(*row[4])));
      }
      if (row[5]) {
        Gauge(out, "predlake_last_publish_timestamp_seconds",
              "When the newest succeeded run that wrote lake data ended (not an export, not "
              "validate --incremental).",
              Seconds(std::stoll(*row[5])));
      }
    }
  }
  out +=
      "# HELP predlake_table_rows Rows per table in the snapshot.\n"
      "# TYPE predlake_table_rows gauge\n";
  for (const auto& t : exports::ManifestArray(m, "tables")) {
    out += fmt::format("predlake_table_rows{{table=\"{}\"}} {}\n", MetricLabel(t.value("name", "")),
                       t.value("rows", int64_t{0}));
  }
  if (f.contains("candle_streams") && f["candle_streams"].is_array() &&
      !f["candle_streams"].empty()) {
    // The exchange never stops the lake (docs/ohlcv.md); these say when it has failed.
    out +=
        "# HELP predlake_ohlcv_stream_up 1 when the candle stream's last fetch succeeded.\n"
        "# TYPE predlake_ohlcv_stream_up gauge\n";
    for (const Json& c : f["candle_streams"]) {
      out += fmt::format("predlake_ohlcv_stream_up{{stream=\"{}\",status=\"{}\"}} {}\n",
                         MetricLabel(c.value("stream", "")), MetricLabel(c.value("status", "")),
                         c.value("status", "") == "ok" ? 1 : 0);
    }
    if (f["frontier_ms"].is_number()) {
      const int64_t frontier_ms = f["frontier_ms"].get<int64_t>();
      out +=
          "# HELP predlake_ohlcv_stream_behind_seconds How far the candle stream's watermark "
          "trails the subgraph's frontier.\n"
          "# TYPE predlake_ohlcv_stream_behind_seconds gauge\n";
      for (const Json& c : f["candle_streams"]) {
        out += fmt::format(
            "predlake_ohlcv_stream_behind_seconds{{stream=\"{}\"}} {}\n",
            MetricLabel(c.value("stream", "")),
            Seconds(std::max<int64_t>(frontier_ms - c.value("watermark_ms", int64_t{0}), 0)));
      }
    }
    out +=
        "# HELP predlake_candle_gaps Candles the exchange never served (known gaps).\n"
        "# TYPE predlake_candle_gaps gauge\n";
    for (const Json& c : f["candle_streams"]) {
      out += fmt::format("predlake_candle_gaps{{stream=\"{}\"}} {}\n",
                         MetricLabel(c.value("stream", "")), c.value("known_gaps", int64_t{0}));
    }
  }
  // Waiting updates cost a scan of the lake: once per snapshot (Warm() does it ahead).
  std::optional<std::vector<std::pair<std::string, int64_t>>> waiting = WaitingOnce(*view.entry);
  if (waiting) {
    out +=
        "# HELP predlake_waiting_updates Update events waiting for their target row.\n"
        "# TYPE predlake_waiting_updates gauge\n";
    for (const auto& [table, events] : *waiting) {
      out +=
          fmt::format("predlake_waiting_updates{{table=\"{}\"}} {}\n", MetricLabel(table), events);
    }
  }
  if (checkpoint && !options.my_addresses.empty()) {
    out += MineText(view, options.my_addresses, *checkpoint);
  }
  return r;
}

}  // namespace predlake::serve
