#include "ops/describe.hpp"

#include <fmt/ranges.h>

#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "common/table_format.hpp"
#include "common/time.hpp"
#include "duck/duck.hpp"
#include "ops/embedded_sql.hpp"
#include "ops/json_fields.hpp"

namespace predlake::ops {

namespace {

std::string TimeAndMs(int64_t ms) { return FormatTime(ms) + " (" + std::to_string(ms) + ")"; }

Result<std::optional<int64_t>> MetaInt(duck::Connection& conn, const std::string& key) {
  return conn.QueryInt(
      FillSql(EmbeddedSql(), "describe_meta_int", {{"key", duck::QuoteString(key)}}),
      "read lake meta");
}

// The bounds DuckDB keeps for `time` over the whole table (its zone maps merged; stats()), or
// nullopt when it gives none that parse as integers. A bound is loose after deletes; the callers
// check it against the rows.
std::optional<std::pair<int64_t, int64_t>> StatsBounds(duck::Connection& conn,
                                                       const std::string& table,
                                                       const std::string& time) {
  auto result = conn.Query(
      FillSql(EmbeddedSql(), "describe_table_stats", {{"time", time}, {"table", table}}), "stats");
  if (!result.ok()) return std::nullopt;
  auto rows = result->ToText();
  if (rows.empty() || rows[0].empty() || !rows[0][0]) return std::nullopt;
  const std::string& text = *rows[0][0];
  auto number = [&](std::string_view label) -> std::optional<int64_t> {
    size_t at = text.find(label);
    if (at == std::string::npos) return std::nullopt;
    at += label.size();
    size_t end = text.find_first_of(",]", at);
    if (end == std::string::npos || end == at) return std::nullopt;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + end, value);
    if (ec != std::errc() || ptr != text.data() + end) return std::nullopt;
    return value;
  };
  auto lo = number("[Min: ");
  auto hi = number(", Max: ");
  if (!lo || !hi) return std::nullopt;
  return std::make_pair(*lo, *hi);
}

Result<TableSummary> Summarize(duck::Connection& conn, const TableRef& table) {
  TableSummary s;
  s.name = table.name;
  s.kind = table.kind;
  s.time_column = TimeExpression(table);
  std::string time = s.time_column.empty() ? "NULL::BIGINT" : s.time_column;
  const std::string name = duck::QuoteIdent(table.name);
  // count(*) comes from DuckDB's row-group metadata; min and max of the time column would scan
  // it. When the table's statistics bound it by [lo, hi], the rows at or below lo (at or above
  // hi) are the few row groups whose zone maps reach there, and their min (max) is the table's
  // exactly; a NULL there means the bound was loose (rows deleted since) and the full scan below
  // answers instead.
  if (!s.time_column.empty()) {
    if (auto bounds = StatsBounds(conn, name, time)) {
      ASSIGN_OR_RETURN(auto result,
                       conn.Query(FillSql(EmbeddedSql(), "describe_summary_within_bounds",
                                          {{"time", time},
                                           {"table", name},
                                           {"lo", std::to_string(bounds->first)},
                                           {"hi", std::to_string(bounds->second)}}),
                                  "summarize " + table.name));
      auto chunk = result.NextChunk();
      if (chunk && chunk->size() > 0 && !chunk->IsNull(1, 0) && !chunk->IsNull(2, 0)) {
        s.rows = chunk->GetInt64(0, 0);
        s.first_ms = chunk->GetInt64(1, 0);
        s.last_ms = chunk->GetInt64(2, 0);
        return s;
      }
    }
  }
  ASSIGN_OR_RETURN(auto result, conn.Query(FillSql(EmbeddedSql(), "describe_summary",
                                                   {{"time", time}, {"table", name}}),
                                           "summarize " + table.name));
  auto chunk = result.NextChunk();
  if (chunk && chunk->size() > 0) {
    s.rows = chunk->GetInt64(0, 0);
    if (!chunk->IsNull(1, 0)) s.first_ms = chunk->GetInt64(1, 0);
    if (!chunk->IsNull(2, 0)) s.last_ms = chunk->GetInt64(2, 0);
  }
  return s;
}

}  // namespace

Result<Description> Describe(lake::Lake& lake, int64_t run_limit) {
  duck::Connection& conn = lake.conn();
  Description d;
  d.lake_dir = lake.dir();
  ASSIGN_OR_RETURN(d.schema_version, MetaInt(conn, "schema_version"));
  ASSIGN_OR_RETURN(d.created_at_ms, MetaInt(conn, "created_at_ms"));
  ASSIGN_OR_RETURN(d.network, lake.GetMeta(lake::kMetaNetwork));
  ASSIGN_OR_RETURN(d.deployment, lake.GetMeta(lake::kMetaDeployment));
  ASSIGN_OR_RETURN(d.previous_deployment, lake.GetMeta(lake::kMetaPreviousDeployment));
  ASSIGN_OR_RETURN(d.deployment_changed_at_ms,
                   MetaInt(conn, std::string(lake::kMetaDeploymentChangedAtMs)));
  ASSIGN_OR_RETURN(auto tables, ListTables(conn));
  for (const TableRef& t : tables) {
    if (t.kind == TableKind::kBookkeeping) continue;
    ASSIGN_OR_RETURN(auto summary, Summarize(conn, t));
    d.tables.push_back(std::move(summary));
  }
  ASSIGN_OR_RETURN(auto marks, lake.Watermarks());
  for (std::string_view table : lake::kRawTables) {
    WatermarkSummary w;
    w.table = std::string(table);
    auto it = marks.find(w.table);
    if (it != marks.end()) w.mark = it->second;
    d.watermarks.push_back(std::move(w));
  }
  // The candle streams (docs/ohlcv.md), after the raw tables, by name.
  for (const auto& [name, mark] : marks) {
    if (name.rfind(lake::kOhlcvStreamPrefix, 0) != 0) continue;
    WatermarkSummary w;
    w.table = name;
    w.mark = mark;
    d.watermarks.push_back(std::move(w));
  }
  {
    // A lake no writer of this version has opened yet lacks the health tables: no health then.
    ASSIGN_OR_RETURN(auto health_tables,
                     conn.QueryInt(SqlText(EmbeddedSql(), "describe_candle_health_tables"),
                                   "describe candle streams"));
    const bool has_health = health_tables.value_or(0) == 3;
    std::map<std::string, CandleStreamSummary> streams;
    for (const auto& [name, mark] : marks) {
      if (name.rfind(lake::kOhlcvStreamPrefix, 0) != 0) continue;
      streams[name].stream = name;
      streams[name].mark = mark;
    }
    if (has_health) {
      ASSIGN_OR_RETURN(
          auto health,
          QueryText(conn, std::string(SqlText(EmbeddedSql(), "describe_candle_streams")),
                    "describe candle streams"));
      auto int_of = [](const std::optional<std::string>& v) -> std::optional<int64_t> {
        if (!v) return std::nullopt;
        return std::stoll(*v);
      };
      for (auto& row : health.rows) {
        CandleStreamSummary& c = streams[row[0].value_or("")];
        c.stream = row[0].value_or("");
        c.status = row[1];
        c.error = row[2];
        c.failing_since_ms = int_of(row[3]);
        c.last_ok_ms = int_of(row[4]);
        c.known_gaps = int_of(row[5]).value_or(0);
        c.first_gap_ms = int_of(row[6]);
      }
      ASSIGN_OR_RETURN(auto pending,
                       conn.QueryInt(SqlText(EmbeddedSql(), "describe_pending_candle_changes"),
                                     "describe candle streams"));
      d.pending_candle_changes = pending.value_or(0);
    }
    for (auto& [name, c] : streams) d.candle_streams.push_back(std::move(c));
    ASSIGN_OR_RETURN(auto blocked, MetaInt(conn, std::string(lake::kMetaExchangeBlockedUntil)));
    if (blocked && *blocked > lake.NowMs()) d.exchange_blocked_until_ms = blocked;
  }
  {
    ASSIGN_OR_RETURN(auto aside, QueryText(conn, std::string(kContractsSetAsideSql),
                                           "describe contracts set aside"));
    for (auto& row : aside.rows) {
      d.contracts_set_aside.emplace_back(row[1].value_or(""), row[2].value_or(""));
    }
  }
  for (const TableRef& t : tables) {
    if (t.name != kContractsTable) continue;
    ASSIGN_OR_RETURN(
        auto feeds,
        QueryText(
            conn,
            FillSql(EmbeddedSql(), "describe_feeds",
                    {{"metadata_from", t.HasColumn("metadata_from") ? "metadata_from" : "NULL"}}),
            "describe feeds"));
    for (auto& row : feeds.rows) {
      d.feeds.push_back({row[0].value_or(""), row[1], row[2], row[3], row[4]});
    }
  }
  ASSIGN_OR_RETURN(d.checkpoint, lake.GetCheckpoint());
  ASSIGN_OR_RETURN(d.rebuild_required, lake.GetMeta(lake::kMetaRebuildRequired));
  ASSIGN_OR_RETURN(d.frontier, etl::ComputeFrontier(lake));
  ASSIGN_OR_RETURN(d.waiting, etl::Waiting(lake));
  ASSIGN_OR_RETURN(d.last_runs, ListRuns(conn, run_limit));
  return d;
}

namespace {

// People read describe's tables: an unknown value is left blank rather than shown as NULL.
void WriteBlankingNulls(std::ostream& out, ResultSet rs, int width) {
  for (auto& row : rs.rows) {
    for (auto& cell : row) {
      if (!cell) cell = "";
    }
  }
  WriteTable(out, rs, width);
}

}  // namespace

void WriteDescriptionText(std::ostream& out, const Description& d, int width) {
  out << "Lake " << d.lake_dir;
  if (d.schema_version) out << " (schema " << *d.schema_version;
  if (d.created_at_ms)
    out << (d.schema_version ? ", " : " (") << "created " << FormatTime(*d.created_at_ms);
  if (d.schema_version || d.created_at_ms) out << ")";
  out << "\nSource           network " << d.network.value_or("not recorded") << ", deployment "
      << d.deployment.value_or("not recorded");
  if (d.previous_deployment) {
    out << " (changed";
    if (d.deployment_changed_at_ms) out << " " << FormatTime(*d.deployment_changed_at_ms);
    out << " from " << *d.previous_deployment
        << ": rows fetched before may come from another indexing)";
  }
  out << "\n\nTables\n";
  ResultSet tables;
  tables.columns = {"table", "kind", "rows", "first", "last", "first_ms", "last_ms"};
  tables.numeric = {false, false, true, false, false, true, true};
  for (const TableSummary& t : d.tables) {
    auto ms = [](std::optional<int64_t> v) -> std::optional<std::string> {
      if (!v) return std::nullopt;
      return std::to_string(*v);
    };
    tables.rows.push_back({t.name, std::string(TableKindName(t.kind)), std::to_string(t.rows),
                           IsoOrNull(t.first_ms), IsoOrNull(t.last_ms), ms(t.first_ms),
                           ms(t.last_ms)});
  }
  WriteBlankingNulls(out, std::move(tables), width);

  out << "\nWatermarks (every source event from start up to the watermark is in the table)\n";
  ResultSet marks;
  marks.columns = {"table", "start", "watermark", "watermark_ms"};
  marks.numeric = {false, false, false, true};
  for (const WatermarkSummary& w : d.watermarks) {
    if (w.mark) {
      marks.rows.push_back({w.table, FormatTime(w.mark->start_ms), FormatTime(w.mark->watermark_ms),
                            std::to_string(w.mark->watermark_ms)});
    } else {
      marks.rows.push_back({w.table, std::nullopt, std::string("never fetched"), std::nullopt});
    }
  }
  WriteBlankingNulls(out, std::move(marks), width);

  if (!d.candle_streams.empty()) {
    out << "\nCandle streams (late data for the slots: they never hold the frontier back; "
           "docs/ohlcv.md)\n";
    ResultSet streams;
    streams.columns = {"stream", "status", "watermark", "failing_since", "known_gaps", "error"};
    streams.numeric = {false, false, false, false, true, false};
    for (const CandleStreamSummary& c : d.candle_streams) {
      streams.rows.push_back(
          {c.stream, c.status ? c.status : std::optional<std::string>("not fetched"),
           c.mark ? std::optional<std::string>(FormatTime(c.mark->watermark_ms)) : std::nullopt,
           IsoOrNull(c.failing_since_ms), std::to_string(c.known_gaps), c.error});
    }
    WriteBlankingNulls(out, std::move(streams), width);
    if (d.exchange_blocked_until_ms) {
      out << "The exchange asked not to be called before "
          << FormatTime(*d.exchange_blocked_until_ms) << ": no candle request is sent until then\n";
    }
  }

  out << "\nFeeds (metadata from: nft = the data NFT; otherwise per field: token.name, "
         "secondsPerEpoch, config = lake_ss.feed_source)\n";
  if (d.feeds.empty()) {
    out << "(none)\n";
  } else {
    ResultSet feeds;
    feeds.columns = {"contract", "pair", "timeframe", "source", "metadata_from"};
    feeds.numeric = {false, false, false, false, false};
    for (const FeedSummary& f : d.feeds) {
      feeds.rows.push_back({f.contract, f.pair, f.timeframe, f.source, f.metadata_from});
    }
    WriteBlankingNulls(out, std::move(feeds), width);
  }

  if (!d.contracts_set_aside.empty()) {
    out << "\nContracts set aside by the last fetch (their events are stored; docs/raw.md)\n";
    ResultSet aside;
    aside.columns = {"contract", "why"};
    aside.numeric = {false, false};
    for (const auto& [id, why] : d.contracts_set_aside) aside.rows.push_back({id, why});
    WriteBlankingNulls(out, std::move(aside), width);
  }

  out << "\n";
  if (d.checkpoint) {
    out << "Checkpoint       " << TimeAndMs(d.checkpoint->checkpoint_ms) << ", built from "
        << FormatTime(d.checkpoint->start_ms) << "\n";
  } else {
    out << "Checkpoint       none (the ETL has not run)\n";
  }
  if (d.rebuild_required) {
    out << "Rebuild needed   the built tables predate this predlake (" << *d.rebuild_required
        << "): the next `etl update` rebuilds them\n";
  }
  if (d.frontier.frontier_ms) {
    out << "Frontier         " << TimeAndMs(*d.frontier.frontier_ms) << ", held back by "
        << d.frontier.held_by << "\n";
  } else {
    const std::string missing = fmt::format("{}", fmt::join(d.frontier.missing, ", "));
    out << "Frontier         none: never fetched: " << missing << "\n";
  }
  if (!d.checkpoint) {
    out << "Waiting updates  none (the ETL has not run)\n";
  } else {
    int64_t total = 0;
    std::string parts;
    for (const etl::WaitingEvents& w : d.waiting) {
      total += w.events;
      if (w.events == 0) continue;
      parts += (parts.empty() ? "" : ", ") + w.table + " " + std::to_string(w.events);
      if (w.oldest_ms) parts += " (oldest " + FormatTime(*w.oldest_ms) + ")";
    }
    out << "Waiting updates  " << total;
    if (!parts.empty()) out << ": " << parts;
    out << "\n";
  }

  out << "\nLast runs\n";
  if (d.last_runs.empty()) {
    out << "(none)\n";
  } else {
    WriteBlankingNulls(out, RunsResultSet(d.last_runs, /*brief=*/true), width);
  }
}

void WriteDescriptionJson(std::ostream& out, const Description& d) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["lake_dir"] = d.lake_dir;
  j["schema_version"] = OptJson(d.schema_version);
  j["created_at_ms"] = OptJson(d.created_at_ms);
  j["created"] = TimeJson(d.created_at_ms);
  j["network"] = TextJson(d.network);
  j["deployment"] = TextJson(d.deployment);
  j["previous_deployment"] = TextJson(d.previous_deployment);
  j["deployment_changed_at_ms"] = OptJson(d.deployment_changed_at_ms);
  nlohmann::ordered_json tables = nlohmann::ordered_json::array();
  for (const TableSummary& t : d.tables) {
    tables.push_back({{"name", t.name},
                      {"kind", std::string(TableKindName(t.kind))},
                      {"rows", t.rows},
                      {"first_ms", OptJson(t.first_ms)},
                      {"last_ms", OptJson(t.last_ms)},
                      {"first", TimeJson(t.first_ms)},
                      {"last", TimeJson(t.last_ms)}});
  }
  j["tables"] = std::move(tables);
  nlohmann::ordered_json marks = nlohmann::ordered_json::array();
  for (const WatermarkSummary& w : d.watermarks) {
    nlohmann::ordered_json m = {{"table", w.table}};
    m["start_ms"] = w.mark ? nlohmann::ordered_json(w.mark->start_ms) : nullptr;
    m["watermark_ms"] = w.mark ? nlohmann::ordered_json(w.mark->watermark_ms) : nullptr;
    m["start"] = w.mark ? nlohmann::ordered_json(FormatTime(w.mark->start_ms)) : nullptr;
    m["watermark"] = w.mark ? nlohmann::ordered_json(FormatTime(w.mark->watermark_ms)) : nullptr;
    marks.push_back(std::move(m));
  }
  j["watermarks"] = std::move(marks);
  nlohmann::ordered_json feeds = nlohmann::ordered_json::array();
  for (const FeedSummary& f : d.feeds) {
    feeds.push_back({{"contract", f.contract},
                     {"pair", TextJson(f.pair)},
                     {"timeframe", TextJson(f.timeframe)},
                     {"source", TextJson(f.source)},
                     {"metadata_from", TextJson(f.metadata_from)}});
  }
  j["feeds"] = std::move(feeds);
  nlohmann::ordered_json streams = nlohmann::ordered_json::array();
  for (const CandleStreamSummary& c : d.candle_streams) {
    streams.push_back({{"stream", c.stream},
                       {"status", TextJson(c.status)},
                       {"watermark_ms", c.mark ? nlohmann::ordered_json(c.mark->watermark_ms)
                                               : nlohmann::ordered_json(nullptr)},
                       {"error", TextJson(c.error)},
                       {"failing_since_ms", OptJson(c.failing_since_ms)},
                       {"last_ok_ms", OptJson(c.last_ok_ms)},
                       {"known_gaps", c.known_gaps},
                       {"first_gap_ms", OptJson(c.first_gap_ms)}});
  }
  j["candle_streams"] = std::move(streams);
  j["exchange_blocked_until_ms"] = OptJson(d.exchange_blocked_until_ms);
  j["pending_candle_changes"] = d.pending_candle_changes;
  nlohmann::ordered_json aside = nlohmann::ordered_json::array();
  for (const auto& [id, why] : d.contracts_set_aside) {
    aside.push_back({{"contract", id}, {"why", why}});
  }
  j["contracts_set_aside"] = std::move(aside);
  if (d.checkpoint) {
    j["checkpoint"] = {{"start_ms", d.checkpoint->start_ms},
                       {"checkpoint_ms", d.checkpoint->checkpoint_ms},
                       {"start", FormatTime(d.checkpoint->start_ms)},
                       {"checkpoint", FormatTime(d.checkpoint->checkpoint_ms)}};
  } else {
    j["checkpoint"] = nullptr;
  }
  // Only while it applies, so that the document of an up-to-date lake stays as it was.
  if (d.rebuild_required) j["rebuild_required"] = *d.rebuild_required;
  j["frontier"] = {
      {"frontier_ms", OptJson(d.frontier.frontier_ms)},
      {"frontier", TimeJson(d.frontier.frontier_ms)},
      {"held_back_by", d.frontier.frontier_ms ? nlohmann::ordered_json(d.frontier.held_by)
                       : d.frontier.missing.empty()
                           ? nlohmann::ordered_json(nullptr)
                           : nlohmann::ordered_json(d.frontier.missing.front())},
      {"never_fetched", d.frontier.missing}};
  nlohmann::ordered_json waiting = nlohmann::ordered_json::array();
  for (const etl::WaitingEvents& w : d.waiting) {
    waiting.push_back({{"table", w.table},
                       {"events", w.events},
                       {"oldest_ms", OptJson(w.oldest_ms)},
                       {"oldest", TimeJson(w.oldest_ms)}});
  }
  j["waiting_updates"] = std::move(waiting);
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const RunInfo& run : d.last_runs) runs.push_back(RunJson(run));
  j["last_runs"] = std::move(runs);
  out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace predlake::ops
