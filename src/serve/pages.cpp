#include "serve/pages.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <variant>

#include "duck/duck.hpp"
#include "duck/sql_text.hpp"
#include "etl/etl.hpp"
#include "serve/embedded_sql.hpp"

namespace predlake::serve {
namespace {

// "2024-07-26 14:05": a time to the minute, UTC.
std::string MinuteText(int64_t ms) {
  std::string t = FormatTime(ms).substr(0, 16);
  if (t.size() > 10) t[10] = ' ';
  return t;
}

// ---- SQL (src/serve/sql).

using BindValue = std::variant<std::monostate, int64_t, std::string>;

const std::vector<std::string>& MetricSortKeys() {
  static const std::vector<std::string> keys = {
      "cash_pnl",       "predictions",    "resolved", "unrevealed",    "correct",
      "accuracy",       "revealed_share", "stake",    "settled_stake", "settled_payout",
      "resolved_stake", "profit",         "roi",      "refund_pending"};
  return keys;
}

// What the pages read, made once per snapshot (its files never change) as in-memory tables, and
// the helpers of their queries (src/serve/sql: macros, snapshot_tables, metric_tables*).
Status CreateServeTables(duck::Connection& conn, bool gold_has_columns) {
  for (std::string_view name :
       {"macros", "snapshot_tables",
        gold_has_columns ? "metric_tables" : "metric_tables_from_bronze", "chart_tables"}) {
    ASSIGN_OR_RETURN(std::string sql, PageSql(name));
    RETURN_IF_ERROR(conn.Execute(sql, "serve: " + std::string(name)));
  }
  return Status::Ok();
}

// Runs the page query `sql` (PageSql) with `binds` as $1, $2, ... into a table.
Result<Table> RunTable(duck::Connection& conn, const std::string& id, const std::string& title,
                       const Result<std::string>& sql, const std::vector<BindValue>& binds) {
  if (!sql.ok()) return sql.status();
  ASSIGN_OR_RETURN(duck::Prepared stmt, conn.Prepare(*sql, "serve: table " + id));
  for (size_t i = 0; i < binds.size(); ++i) {
    if (std::holds_alternative<std::monostate>(binds[i])) {
      RETURN_IF_ERROR(stmt.BindNull(i + 1));
    } else if (std::holds_alternative<int64_t>(binds[i])) {
      RETURN_IF_ERROR(stmt.Bind(i + 1, std::get<int64_t>(binds[i])));
    } else {
      RETURN_IF_ERROR(stmt.Bind(i + 1, std::string_view(std::get<std::string>(binds[i]))));
    }
  }
  ASSIGN_OR_RETURN(duck::QueryResult result, stmt.Execute());
  Table table;
  table.id = id;
  table.title = title;
  table.columns = result.column_names();
  const std::vector<duck::Type> types = result.column_types();
  while (std::optional<duck::DataChunk> chunk = result.NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      std::vector<Json> row;
      row.reserve(types.size());
      for (size_t c = 0; c < types.size(); ++c) {
        if (chunk->IsNull(c, r)) {
          row.emplace_back(nullptr);
          continue;
        }
        switch (types[c]) {
          case duck::Type::kBoolean:
            row.emplace_back(chunk->GetBool(c, r));
            break;
          case duck::Type::kInteger:
            row.emplace_back(chunk->GetInt64(c, r));
            break;
          case duck::Type::kDouble: {
            const double v = chunk->GetDouble(c, r);
            row.emplace_back(std::isfinite(v) ? Json(v) : Json(nullptr));
            break;
          }
          default:
            row.emplace_back(chunk->GetText(c, r).value_or(""));
            break;
        }
      }
      table.rows.push_back(std::move(row));
    }
  }
  RETURN_IF_ERROR(result.error());
  return table;
}

// A number for a chart: numbers as they are, decimal strings parsed, anything else null.
Json ChartValue(const Json& v) {
  if (v.is_number()) return v;
  if (v.is_string()) {
    try {
      return Json(std::stod(v.get<std::string>()));
    } catch (...) {
      return Json(nullptr);
    }
  }
  return Json(nullptr);
}

size_t ColumnIndex(const Table& t, const std::string& col) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i] == col) return i;
  }
  return t.columns.size();
}

// A chart series from a table column. `kind` tells dashboard.js how to draw a partial last day
// (docs/serve.md, "Charts"): "sum" (a per-day total: drawn at its pace), "level" (a ratio or a
// running total: drawn as it is), "pending" (stake whose outcome is not known yet, per day: a
// shaded band, at its pace on a partial day);
// `axis` "right" puts it on a second y scale (a running total beside daily values).
struct SeriesSpec {
  SeriesSpec(std::string column_in, std::string label_in, bool cumulative_in = false,
             std::string kind_in = "sum", std::string axis_in = "")
      : column(std::move(column_in)),
        label(std::move(label_in)),
        cumulative(cumulative_in),
        kind(std::move(kind_in)),
        axis(std::move(axis_in)) {}
  std::string column;
  std::string label;
  bool cumulative;
  std::string kind;
  std::string axis;
};

bool ChartIsRatio(const std::string& column) {
  return column == "accuracy" || column == "accuracy_low" || column == "accuracy_high" ||
         column == "revealed_share" || column == "roi" || column == "consensus_accuracy" ||
         column == "consensus_slot_accuracy";
}

// A chart from a table with a `day` column.
Chart ChartFromTable(const Table& t, const std::string& id, const std::string& title,
                     const std::vector<SeriesSpec>& series) {
  Chart chart;
  chart.id = id;
  chart.title = title;
  Json x = Json::array();
  const size_t day = ColumnIndex(t, "day");
  for (const auto& row : t.rows) {
    std::optional<int64_t> s = day < row.size() && row[day].is_string()
                                   ? ParseDay(row[day].get<std::string>())
                                   : std::nullopt;
    x.push_back(s ? Json(*s / 1000) : Json(nullptr));
  }
  Json all = Json::array();
  for (const SeriesSpec& spec : series) {
    const size_t col = ColumnIndex(t, spec.column);
    Json values = Json::array();
    double running = 0;
    for (const auto& row : t.rows) {
      Json v = col < row.size() ? ChartValue(row[col]) : Json(nullptr);
      if (spec.cumulative) {
        if (v.is_number()) running += v.get<double>();
        v = running;
      }
      values.push_back(std::move(v));
    }
    Json one{{"label", spec.label}, {"values", std::move(values)}};
    one["kind"] = spec.cumulative || ChartIsRatio(spec.column) ? std::string("level") : spec.kind;
    if (!spec.axis.empty()) one["axis"] = spec.axis;
    all.push_back(std::move(one));
  }
  chart.data = Json{{"x", std::move(x)}, {"series", std::move(all)}};
  return chart;
}

// Adds `column` of `by_day` (a table with a `day` column) to `chart` as a series on the chart's
// days; a day the table lacks is 0 (nothing pending that day is a known 0).
void AddSeriesByDay(Chart& chart, const Table& by_day, const std::string& column,
                    const std::string& label, const std::string& kind, bool cumulative) {
  const size_t day = ColumnIndex(by_day, "day");
  const size_t col = ColumnIndex(by_day, column);
  std::map<int64_t, Json> values;
  for (const auto& row : by_day.rows) {
    if (day >= row.size() || col >= row.size() || !row[day].is_string()) continue;
    if (std::optional<int64_t> ms = ParseDay(row[day].get<std::string>())) {
      values[*ms / 1000] = ChartValue(row[col]);
    }
  }
  Json out = Json::array();
  double running = 0;
  for (const Json& x : chart.data["x"]) {
    auto it = x.is_number() ? values.find(x.get<int64_t>()) : values.end();
    Json v = it != values.end() ? it->second : Json(0);
    if (cumulative) {
      if (v.is_number()) running += v.get<double>();
      v = running;
    }
    out.push_back(std::move(v));
  }
  chart.data["series"].push_back(
      Json{{"label", label}, {"values", std::move(out)}, {"kind", cumulative ? "level" : kind}});
}

// The sum of a decimal column of `t` as text with two decimals (a chart note).
std::string SumText(const Table& t, const std::string& column) {
  const size_t col = ColumnIndex(t, column);
  double sum = 0;
  for (const auto& row : t.rows) {
    if (col < row.size() && ChartValue(row[col]).is_number())
      sum += ChartValue(row[col]).get<double>();
  }
  return fmt::format("{:.2f}", sum);
}

// The pending stake as series of a P&L chart (running totals on a cumulative one), and the note
// saying what is pending.
void AddPending(Chart& chart, const Table& pending, bool cumulative = false) {
  const std::string to_date = cumulative ? " (to date)" : "";
  AddSeriesByDay(chart, pending, "awaiting_claim_stake",
                 "pending: stake waiting for claims" + to_date, "pending", cumulative);
  AddSeriesByDay(chart, pending, "awaiting_trueval_stake",
                 "pending: stake waiting for truevals" + to_date, "pending", cumulative);
  chart.data["note"] = fmt::format(
      "Pending (shaded, not a loss): {} OCEAN of stake in paying slots not claimed yet (the claim "
      "reveals a payout or a loss; cash P&L counts it as not received), {} OCEAN in slots waiting "
      "for their trueval (not in cash P&L yet).",
      SumText(pending, "awaiting_claim_stake"), SumText(pending, "awaiting_trueval_stake"));
}

// Marks the chart's partial last day (the period's, when the chart's last x is that day):
// dashboard.js draws it dashed and a per-day total at its pace, never as a drop.
void MarkPartialDay(Chart& chart, const Period& period) {
  if (!period.partial_day) return;
  const Json& x = chart.data["x"];
  const std::optional<int64_t> day_ms = ParseDay(*period.partial_day);
  if (!day_ms || x.empty() || !x.back().is_number() || x.back().get<int64_t>() != *day_ms / 1000) {
    return;
  }
  chart.data["partial"] = Json{{"x", *day_ms / 1000},
                               {"to", FormatTime(period.holds_to_ms)},
                               {"covered_s", (period.holds_to_ms - *day_ms) / 1000}};
}

Json PeriodJson(const Period& p) {
  const bool all = p.name == "all";
  return Json{{"name", p.name},
              {"from_day", all ? Json(nullptr) : Json(p.from_day)},
              {"to_day", all ? Json(nullptr) : Json(p.to_day)},
              {"holds_to", FormatTime(p.holds_to_ms)},
              {"partial_day", p.partial_day ? Json(*p.partial_day) : Json(nullptr)},
              {"clamped", p.clamped},
              {"label", p.label}};
}

bool IsAddress(const std::string& s) {
  if (s.size() != 42 || s[0] != '0' || s[1] != 'x') return false;
  return std::all_of(s.begin() + 2, s.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string JoinComma(const std::vector<std::string>& items) {
  std::string out = fmt::format("{}", fmt::join(items, ","));
  return out;
}

// Resolves the page's sort against the sortable table's fixed list. kUsage for another key.
Status ResolveSort(Page& page, const std::vector<std::string>& keys, const std::string& def_key,
                   const std::string& def_dir) {
  page.sort = page.params.sort.empty() ? def_key : page.params.sort;
  if (std::find(keys.begin(), keys.end(), page.sort) == keys.end()) {
    const std::string list = fmt::format("{}", fmt::join(keys, ", "));
    return Status::Usage("sort: unknown key '" + page.params.sort + "' for this page (one of " +
                         list + ")");
  }
  page.dir = page.params.dir.empty() ? def_dir : page.params.dir;
  return Status::Ok();
}

// "ORDER BY" terms for the resolved sort; the key is from a fixed list, so it is safe as text.
std::string OrderTerm(const Page& page) {
  return duck::QuoteIdent(page.sort) + (page.dir == "asc" ? " ASC" : " DESC") + " NULLS LAST";
}

struct PageContext {
  const ServeOptions& options;
  SnapshotView& view;
  Page& page;
  Period period;
  std::vector<BindValue> period_binds() const { return {period.from_day, period.to_day}; }
  duck::Connection& conn() { return *view.conn; }
};

// Whether the snapshot holds predictions of `address` (lower case).
Result<bool> PredictoorKnown(duck::Connection& conn, const std::string& address) {
  ASSIGN_OR_RETURN(std::string sql, PageSql("predictoor_exists"));
  ASSIGN_OR_RETURN(duck::Prepared exists, conn.Prepare(sql, "serve: find the predictoor"));
  RETURN_IF_ERROR(exists.Bind(1, std::string_view(address)));
  ASSIGN_OR_RETURN(duck::QueryResult r, exists.Execute());
  auto rows = r.ToText();
  return !rows.empty() && rows[0][0] && *rows[0][0] != "0";
}

// $4 to $10 of predictoors.sql and feeds.sql: the page's filters (part_metric_filter,
// part_feed_filter), NULL where not given.
void AddFilterBinds(const PageParams& p, std::vector<BindValue>& binds) {
  auto text = [](const std::string& v) { return v.empty() ? BindValue() : BindValue(v); };
  auto percent = [&](const char* name) {
    auto it = p.given.find(name);
    return it == p.given.end() ? BindValue() : BindValue(it->second);
  };
  binds.push_back(p.min_predictions ? BindValue(*p.min_predictions) : BindValue());
  binds.push_back(text(p.min_stake));
  binds.push_back(percent("acc_min"));
  binds.push_back(percent("acc_max"));
  binds.push_back(text(p.pair));
  binds.push_back(text(p.timeframe));
  binds.push_back(text(p.exchange));
}

// Keeps one page of `t`'s rows (page=N), remembering the total.
Status PageRows(const PageParams& p, Table& t) {
  const int64_t per_page = p.per_page;
  const int64_t total = static_cast<int64_t>(t.rows.size());
  const int64_t pages = std::max<int64_t>(1, (total + per_page - 1) / per_page);
  // A page past the last (the period or a filter shrank the table) shows the last.
  const int64_t page_no = std::min(std::max<int64_t>(p.page_no, 1), pages);
  t.total_rows = total;
  t.per_page = per_page;
  t.page_no = page_no;
  // Without page=, the API and CSV keep every row; the HTML shows the first page and points its
  // data-api at page=1.
  if (p.page_no == 0) return Status::Ok();
  const int64_t from = (page_no - 1) * per_page;
  const int64_t to = std::min(total, from + per_page);
  t.rows = std::vector<std::vector<Json>>(t.rows.begin() + from, t.rows.begin() + to);
  return Status::Ok();
}

// ---- The pages.

// "Pending outcomes per day" (pending_daily.sql) of `user` (monostate: the network).
Result<Table> PendingTable(PageContext& cx, BindValue user) {
  std::vector<BindValue> binds = cx.period_binds();
  binds.push_back(std::move(user));
  ASSIGN_OR_RETURN(Table t, RunTable(cx.conn(), "pending", "Pending outcomes per day",
                                     PageSql("pending_daily"), binds));
  t.note =
      "Stake whose outcome is not known yet. awaiting_claim: predictions in paying slots without a "
      "claim (won or lost: the claim reveals it; cash P&L counts their stake as not received). "
      "awaiting_trueval: predictions in slots still waiting for their trueval (not in cash P&L "
      "yet). Known stakes only.";
  return t;
}

Status OverviewPage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Overview";
  RETURN_IF_ERROR(ResolveSort(page, {"day"}, "day", "asc"));
  ASSIGN_OR_RETURN(Table network, RunTable(cx.conn(), "network", "Network",
                                           PageSql("overview_network"), cx.period_binds()));
  network.note =
      "Cash P&L = payouts received minus stakes of predictions in paying slots; unclaimed refunds "
      "are apart (refund_pending). Accuracy counts revealed predictions only: see the revealed "
      "share and the bounds.";
  ASSIGN_OR_RETURN(Table daily,
                   RunTable(cx.conn(), "daily", "Per day",
                            PageSql("overview_daily", "", page.dir == "asc" ? "ASC" : "DESC"),
                            cx.period_binds()));
  daily.sort_keys = {"day"};
  // Charts in day order whatever the table's order.
  Table ordered = daily;
  if (page.dir != "asc") std::reverse(ordered.rows.begin(), ordered.rows.end());
  page.charts.push_back(ChartFromTable(ordered, "predictions_daily", "Predictions per day",
                                       {{"predictions", "predictions"}, {"resolved", "resolved"}}));
  page.charts.push_back(ChartFromTable(
      ordered, "stake_daily", "Stake and payouts per day (OCEAN)",
      {{"stake", "stake"}, {"settled_payout", "payouts received"}, {"sales", "sales"}}));
  ASSIGN_OR_RETURN(Table pending, PendingTable(cx, std::monostate()));
  Chart pnl = ChartFromTable(ordered, "pnl_daily", "Network cash P&L (OCEAN)",
                             {{"cash_pnl", "cash P&L per day"},
                              {"cash_pnl", "cumulative cash P&L (right axis)", true, "", "right"}});
  AddPending(pnl, pending);
  page.charts.push_back(std::move(pnl));
  page.charts.push_back(ChartFromTable(ordered, "revenue_daily", "Revenue per day (OCEAN)",
                                       {{"revenue", "slot revenue"}, {"sales", "sales"}}));
  page.charts.push_back(ChartFromTable(ordered, "accuracy_daily",
                                       "Accuracy per day, with its bounds",
                                       {{"accuracy", "accuracy (revealed)"},
                                        {"accuracy_low", "lower bound"},
                                        {"accuracy_high", "upper bound"}}));
  page.tables.push_back(std::move(network));
  page.tables.push_back(std::move(daily));
  page.tables.push_back(std::move(pending));
  return Status::Ok();
}

Status PredictoorsPage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Predictoors";
  page.filters = true;
  std::vector<std::string> keys = {"rank", "user", "feeds", "cash_roi", "apr", "days_active"};
  for (const std::string& k : MetricSortKeys()) keys.push_back(k);
  RETURN_IF_ERROR(ResolveSort(page, keys, "rank", "asc"));
  std::vector<BindValue> binds = cx.period_binds();
  binds.emplace_back(JoinComma(cx.options.my_addresses));
  std::vector<BindValue> filtered = binds;
  AddFilterBinds(page.params, filtered);
  ASSIGN_OR_RETURN(Table board,
                   RunTable(cx.conn(), "predictoors", "Leaderboard (ranked by cash P&L)",
                            PageSql("predictoors", OrderTerm(page)), filtered));
  board.sort_keys = keys;
  board.note =
      "Ranked by cash P&L: payouts received minus the stakes of predictions in paying slots. ROI "
      "is cash P&L over that stake; profit and ROI (revealed) count revealed predictions only (on "
      "Sapphire a prediction is revealed when claimed, and losses are rarely claimed). Your "
      "addresses (predictoor_ss.my_addresses) come first, also without predictions.";
  RETURN_IF_ERROR(PageRows(page.params, board));
  page.tables.push_back(std::move(board));
  if (!cx.options.my_addresses.empty()) {
    ASSIGN_OR_RETURN(Table total, RunTable(cx.conn(), "my_total", "Total of my addresses",
                                           PageSql("predictoors_my_total"), binds));
    page.tables.push_back(std::move(total));
    // Which of my addresses the snapshot has never seen predict ("no predictions yet").
    for (const std::string& address : cx.options.my_addresses) {
      ASSIGN_OR_RETURN(bool known, PredictoorKnown(cx.conn(), address));
      if (!known) page.unknown_mine.push_back(address);
    }
  }
  return Status::Ok();
}

Status PredictoorPage(PageContext& cx, const std::string& raw_address) {
  Page& page = cx.page;
  if (!IsAddress(raw_address)) {
    return Status::Usage("predictoor: '" + raw_address +
                         "' is not an address (0x and 40 hexadecimal digits)");
  }
  const std::string address = Lower(raw_address);
  page.path = "/predictoor/" + address;  // the canonical page, whatever the URL's case
  page.title = "Predictoor " + address;
  {
    ASSIGN_OR_RETURN(bool known, PredictoorKnown(cx.conn(), address));
    const auto& mine = cx.options.my_addresses;
    if (!known && std::find(mine.begin(), mine.end(), address) == mine.end()) {
      return NotFound("no predictoor " + address + " in the snapshot");
    }
    if (!known) {
      page.notes.push_back("No predictions yet: " + address +
                           " is one of predictoor_ss.my_addresses, and the snapshot holds no "
                           "prediction of it.");
      page.unknown_mine.push_back(address);
    }
  }
  std::vector<std::string> keys = {"contract", "pair", "timeframe"};
  for (const std::string& k : MetricSortKeys()) keys.push_back(k);
  RETURN_IF_ERROR(ResolveSort(page, keys, "cash_pnl", "desc"));
  std::vector<BindValue> binds = cx.period_binds();
  binds.emplace_back(address);
  ASSIGN_OR_RETURN(Table summary,
                   RunTable(cx.conn(), "summary", "Summary", PageSql("predictoor_summary"), binds));
  summary.note =
      "Cash P&L counts payouts received; profit and ROI only revealed (claimed) predictions. The "
      "accuracy bounds assume every unrevealed prediction wrong (low) or right (high).";
  ASSIGN_OR_RETURN(Table feeds, RunTable(cx.conn(), "feeds", "Per feed",
                                         PageSql("predictoor_feeds", OrderTerm(page)), binds));
  feeds.sort_keys = keys;
  ASSIGN_OR_RETURN(Table daily,
                   RunTable(cx.conn(), "daily", "Per day", PageSql("predictoor_daily"), binds));
  ASSIGN_OR_RETURN(Table recent, RunTable(cx.conn(), "recent", "Recent predictions (newest 50)",
                                          PageSql("predictoor_recent"), binds));
  ASSIGN_OR_RETURN(Table unclaimed,
                   RunTable(cx.conn(), "unclaimed", "Unclaimed payouts and refunds",
                            PageSql("predictoor_unclaimed"), binds));
  unclaimed.note =
      "Paying slots without a claim: the payout, if the prediction was right, is unknown until "
      "claimed (unclaimed_stake is their stake, not a payout). Canceled slots without a claim: "
      "the refund (the stake) is still to collect.";
  ASSIGN_OR_RETURN(Table pending, PendingTable(cx, address));
  Chart cumulative = ChartFromTable(
      daily, "cumulative_pnl", "Cumulative P&L (OCEAN)",
      {{"cash_pnl", "cash P&L", true}, {"profit", "profit on revealed predictions", true}});
  AddPending(cumulative, pending, true);
  page.charts.push_back(std::move(cumulative));
  Chart over_time = ChartFromTable(daily, "stake_pnl_daily", "Stake and cash P&L per day (OCEAN)",
                                   {{"stake", "stake"}, {"cash_pnl", "cash P&L"}});
  AddPending(over_time, pending);
  page.charts.push_back(std::move(over_time));
  page.notes.push_back(
      "Transaction costs (gas) are not shown: the lake holds no gas figures of any transaction.");
  page.charts.push_back(ChartFromTable(daily, "accuracy", "Accuracy per day, with its bounds",
                                       {{"accuracy", "accuracy (revealed)"},
                                        {"accuracy_low", "lower bound"},
                                        {"accuracy_high", "upper bound"},
                                        {"revealed_share", "revealed share"}}));
  page.tables.push_back(std::move(summary));
  page.tables.push_back(std::move(feeds));
  page.tables.push_back(std::move(daily));
  page.tables.push_back(std::move(recent));
  page.tables.push_back(std::move(unclaimed));
  page.tables.push_back(std::move(pending));
  return Status::Ok();
}

const std::vector<std::string>& FeedSortKeys() {
  static const std::vector<std::string> keys = {
      "contract",           "pair",           "timeframe", "predictoors", "slots", "predictions",
      "accuracy",           "revealed_share", "stake",     "cash_pnl",    "sales", "revenue",
      "consensus_accuracy", "subscriptions",  "buyers",    "cash_roi",    "apr",   "days_active"};
  return keys;
}

constexpr const char* kFeedsNote =
    "Every feed, with or without sales. Consensus accuracy: the stake on the true side over the "
    "stake of the feed's paying slots with a trueval (canceled and zero-stake slots excluded); "
    "consensus_slot_accuracy: the share of those slots whose stake majority was right.";

Status FeedsPage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Feeds";
  page.filters = true;
  RETURN_IF_ERROR(ResolveSort(page, FeedSortKeys(), "sales", "desc"));
  std::vector<BindValue> binds = cx.period_binds();
  binds.emplace_back(std::monostate());  // every feed
  AddFilterBinds(page.params, binds);
  ASSIGN_OR_RETURN(Table feeds, RunTable(cx.conn(), "feeds", "Feeds (by sales)",
                                         PageSql("feeds", OrderTerm(page)), binds));
  feeds.sort_keys = FeedSortKeys();
  feeds.note = kFeedsNote;
  RETURN_IF_ERROR(PageRows(page.params, feeds));
  page.tables.push_back(std::move(feeds));
  return Status::Ok();
}

Status FeedPage(PageContext& cx, const std::string& raw_contract) {
  Page& page = cx.page;
  if (!IsAddress(raw_contract)) {
    return Status::Usage("feed: '" + raw_contract +
                         "' is not a contract address (0x and 40 hexadecimal digits)");
  }
  const std::string contract = Lower(raw_contract);
  page.path = "/feed/" + contract;
  std::vector<std::string> keys = {"user"};
  for (const std::string& k : MetricSortKeys()) keys.push_back(k);
  RETURN_IF_ERROR(ResolveSort(page, keys, "cash_pnl", "desc"));
  std::vector<BindValue> binds = cx.period_binds();
  binds.emplace_back(contract);
  std::vector<BindValue> summary_binds = binds;
  AddFilterBinds(PageParams{}, summary_binds);  // the feed's own page: no filter
  ASSIGN_OR_RETURN(Table summary, RunTable(cx.conn(), "summary", "Summary",
                                           PageSql("feeds", "contract"), summary_binds));
  if (summary.rows.empty()) return NotFound("no feed " + contract + " in the snapshot");
  summary.note = kFeedsNote;
  {
    const size_t pair = ColumnIndex(summary, "pair");
    const size_t tf = ColumnIndex(summary, "timeframe");
    page.title = "Feed " + contract;
    if (pair < summary.columns.size() && summary.rows[0][pair].is_string()) {
      page.title = "Feed " + summary.rows[0][pair].get<std::string>() + " " +
                   (summary.rows[0][tf].is_string() ? summary.rows[0][tf].get<std::string>() : "") +
                   " (" + contract + ")";
    }
  }
  ASSIGN_OR_RETURN(Table daily,
                   RunTable(cx.conn(), "daily", "Per day", PageSql("feed_daily"), binds));
  daily.note = "buyers: distinct buyers of each day.";
  ASSIGN_OR_RETURN(Table buyers,
                   RunTable(cx.conn(), "buyers", "Buyers", PageSql("feed_buyers"), binds));
  ASSIGN_OR_RETURN(Table canceled, RunTable(cx.conn(), "canceled", "Canceled slots (newest 100)",
                                            PageSql("feed_canceled"), binds));
  canceled.note = "A slot without a trueval by its deadline is canceled; its stakes are refunded.";
  ASSIGN_OR_RETURN(Table delay, RunTable(cx.conn(), "trueval_delay",
                                         "Trueval delay (seconds after the epoch's end)",
                                         PageSql("feed_trueval_delay"), binds));
  ASSIGN_OR_RETURN(Table top,
                   RunTable(cx.conn(), "top_predictoors", "Top predictoors (by cash P&L)",
                            PageSql("feed_top_predictoors", OrderTerm(page)), binds));
  top.sort_keys = keys;
  page.charts.push_back(ChartFromTable(daily, "sales_daily", "Sales per day (OCEAN)",
                                       {{"sales", "sales"}, {"revenue", "slot revenue"}}));
  page.charts.push_back(ChartFromTable(daily, "consensus_daily", "Accuracy per day",
                                       {{"consensus_accuracy", "stake-weighted consensus"},
                                        {"accuracy", "predictions (revealed)"}}));
  page.tables.push_back(std::move(summary));
  page.tables.push_back(std::move(daily));
  page.tables.push_back(std::move(top));
  page.tables.push_back(std::move(buyers));
  page.tables.push_back(std::move(canceled));
  page.tables.push_back(std::move(delay));
  return Status::Ok();
}

// The search: a full or partial address (at least 4 hexadecimal digits, with or without 0x, any
// case) of a predictoor or a feed, or a part of a feed's pair. One match: page.redirect.
Status SearchPage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Search";
  std::string q = Lower(cx.page.params.q);
  q.erase(0, q.find_first_not_of(" \t"));
  q.erase(q.find_last_not_of(" \t") + 1);
  const bool prefixed = q.rfind("0x", 0) == 0;
  const std::string digits = prefixed ? q.substr(2) : q;
  const bool hex = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  });
  const bool address = hex && digits.size() >= 4;
  std::string pair = q;
  std::replace(pair.begin(), pair.end(), '-', '/');
  const bool by_pair = q.size() >= 2 && !prefixed;
  const BindValue address_bind = address ? BindValue(q) : BindValue();
  ASSIGN_OR_RETURN(Table users,
                   RunTable(cx.conn(), "predictoors", "Predictoors", PageSql("search_predictoors"),
                            {address ? q : std::string("-"), JoinComma(cx.options.my_addresses)}));
  if (!address) users.rows.clear();
  ASSIGN_OR_RETURN(Table feeds, RunTable(cx.conn(), "feeds", "Feeds", PageSql("search_feeds"),
                                         {address_bind, by_pair ? BindValue(pair) : BindValue()}));
  int64_t total = 0;
  std::string only;
  for (Table* t : {&users, &feeds}) {
    const size_t col = ColumnIndex(*t, "total");
    const int64_t n = t->rows.empty() ? 0 : t->rows[0][col].get<int64_t>();
    total += n;
    if (n == 1) only = (t == &users ? "/predictoor/" : "/feed/") + t->rows[0][1].get<std::string>();
    for (auto& row : t->rows) row.erase(row.begin() + static_cast<std::ptrdiff_t>(col));
    t->columns.erase(t->columns.begin() + static_cast<std::ptrdiff_t>(col));
    t->note = n > static_cast<int64_t>(t->rows.size())
                  ? fmt::format("{} matches; the first {} are listed.", n, t->rows.size())
                  : fmt::format("{} match{}.", n, n == 1 ? "" : "es");
  }
  if (total == 1) {
    page.redirect = only + (page.params.period == "1w" ? "" : "?period=" + page.params.period);
  }
  if (q.empty()) {
    page.notes.push_back(
        "Type a predictoor's or a feed's address (at least 4 hexadecimal digits) "
        "or a pair (BTC/USDT).");
  } else if (total == 0) {
    page.notes.push_back(
        "Nothing matches '" + cx.page.params.q + "'." +
        (hex && !address ? " An address needs at least 4 hexadecimal digits." : ""));
  } else {
    page.notes.push_back(
        fmt::format("{} match{} for '{}'.", total, total == 1 ? "" : "es", cx.page.params.q));
  }
  page.tables.push_back(std::move(users));
  page.tables.push_back(std::move(feeds));
  return Status::Ok();
}

Status RunsPage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Runs";
  const std::vector<std::string> keys = {"run_id", "command", "status", "started_at", "duration_s"};
  RETURN_IF_ERROR(ResolveSort(page, keys, "run_id", "desc"));
  // Runs are stamped in wall-clock time, not slot time: the period is the runs started in the
  // last 24 h, 7 or 30 days before the snapshot was made.
  const int64_t made_ms = cx.view.snapshot().created_at_ms;
  const int64_t days = cx.period.name == "1d" ? 1 : cx.period.name == "1m" ? 30 : 7;
  BindValue from;
  if (cx.period.name != "all") {
    from = made_ms - days * kDayMs;
    cx.period.label = "runs started from " + MinuteText(made_ms - days * kDayMs) +
                      " UTC to the snapshot (" + MinuteText(made_ms) + " UTC)";
  } else {
    cx.period.label = "every run";
  }
  page.period = PeriodJson(cx.period);
  page.period["from_day"] = nullptr;
  page.period["to_day"] = nullptr;
  page.notes.push_back(
      "The ledger as of the snapshot (the export that made it is the next run): the runs started "
      "in "
      "the period, in wall-clock time (the newest 200).");
  ASSIGN_OR_RETURN(Table runs, RunTable(cx.conn(), "runs", "Runs (newest 200)",
                                        PageSql("runs", OrderTerm(page)), {from}));
  runs.sort_keys = keys;
  ASSIGN_OR_RETURN(Table failures,
                   RunTable(cx.conn(), "failures", "Failed and aborted runs (newest 50)",
                            PageSql("runs_failures"), {from}));
  ASSIGN_OR_RETURN(Table marks, RunTable(cx.conn(), "watermarks", "Raw tables: watermarks",
                                         PageSql("runs_watermarks"), {}));
  Table rows;
  rows.id = "tables";
  rows.title = "Rows per table in the snapshot";
  rows.columns = {"table_name", "kind", "rows"};
  for (const auto& t : exports::ManifestArray(cx.view.snapshot().manifest, "tables")) {
    rows.rows.push_back(
        {Json(t.value("name", "")), Json(t.value("kind", "")), Json(t.value("rows", int64_t{0}))});
  }
  page.tables.push_back(std::move(runs));
  page.tables.push_back(std::move(failures));
  page.tables.push_back(std::move(marks));
  page.tables.push_back(std::move(rows));
  return Status::Ok();
}

// ---- Compare (up to five predictoors or feeds on one chart).

// A chart of one column per compared item, on the days of `daily` (compare_daily.sql).
Chart CompareChart(const Table& daily,
                   const std::vector<std::pair<std::string, std::string>>& items,
                   const std::string& id, const std::string& title, const std::string& column,
                   bool cumulative) {
  const size_t day = ColumnIndex(daily, "day");
  const size_t item = std::min(ColumnIndex(daily, "user"), ColumnIndex(daily, "contract"));
  const size_t col = ColumnIndex(daily, column);
  std::vector<int64_t> xs;
  std::map<std::pair<std::string, int64_t>, Json> at;
  for (const auto& row : daily.rows) {
    std::optional<int64_t> ms =
        row[day].is_string() ? ParseDay(row[day].get<std::string>()) : std::nullopt;
    if (!ms || !row[item].is_string()) continue;
    if (xs.empty() || xs.back() != *ms / 1000) xs.push_back(*ms / 1000);
    at[{row[item].get<std::string>(), *ms / 1000}] = ChartValue(row[col]);
  }
  Chart chart;
  chart.id = id;
  chart.title = title;
  Json series = Json::array();
  for (const auto& [address, label] : items) {
    Json values = Json::array();
    double running = 0;
    for (int64_t x : xs) {
      auto it = at.find({address, x});
      // A day without rows: nothing predicted (a known 0) for a total, no value for a ratio.
      Json v = it != at.end() ? it->second : ChartIsRatio(column) ? Json(nullptr) : Json(0);
      if (cumulative) {
        if (v.is_number()) running += v.get<double>();
        v = running;
      }
      values.push_back(std::move(v));
    }
    series.push_back(Json{{"label", label},
                          {"values", std::move(values)},
                          {"kind", cumulative || ChartIsRatio(column) ? "level" : "sum"}});
  }
  chart.data = Json{{"x", xs}, {"series", std::move(series)}};
  return chart;
}

Status ComparePage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Compare";
  RETURN_IF_ERROR(ResolveSort(page, {"item"}, "item", "asc"));
  const std::vector<std::string>& given = page.params.compare;
  if (given.empty()) {
    return Status::Usage(
        "compare: no address (give one to five predictoors or feeds: /compare?a=0x..&a=0x..)");
  }
  std::vector<std::string> addresses;
  for (const std::string& raw : given) {
    if (!IsAddress(raw)) {
      return Status::Usage("a: '" + raw + "' is not an address (0x and 40 hexadecimal digits)");
    }
    const std::string address = Lower(raw);
    if (std::find(addresses.begin(), addresses.end(), address) == addresses.end()) {
      addresses.push_back(address);
    }
  }
  if (addresses.size() > kMaxCompared) {
    return Status::Usage(
        fmt::format("a: {} addresses; compare at most {}", addresses.size(), kMaxCompared));
  }
  std::string kind;
  std::vector<std::pair<std::string, std::string>> items;  // (address, label)
  ASSIGN_OR_RETURN(std::string item_sql, PageSql("compare_item"));
  for (const std::string& address : addresses) {
    ASSIGN_OR_RETURN(duck::Prepared stmt, cx.conn().Prepare(item_sql, "serve: compare"));
    RETURN_IF_ERROR(stmt.Bind(1, std::string_view(address)));
    ASSIGN_OR_RETURN(duck::QueryResult r, stmt.Execute());
    auto rows = r.ToText();
    const bool predictoor = !rows.empty() && rows[0][0] && *rows[0][0] != "0";
    const bool feed = !rows.empty() && rows[0][1].has_value();
    if (!predictoor && !feed)
      return NotFound("no predictoor or feed " + address + " in the snapshot");
    const std::string this_kind = predictoor ? "predictoor" : "feed";
    if (!kind.empty() && kind != this_kind) {
      return Status::Usage("a: compare predictoors or feeds, not both (" + address + " is a " +
                           this_kind + ", the first a " + kind + ")");
    }
    kind = this_kind;
    const std::string shortened = address.substr(0, 6) + "\xE2\x80\xA6" + address.substr(38);
    items.emplace_back(address, predictoor ? shortened : *rows[0][1] + " " + shortened);
  }
  page.title = fmt::format("Compare {} {}s", items.size(), kind);
  std::vector<BindValue> binds = cx.period_binds();
  binds.emplace_back(JoinComma(addresses));
  binds.emplace_back(kind);
  ASSIGN_OR_RETURN(Table summary,
                   RunTable(cx.conn(), "compared", "Compared", PageSql("compare"), binds));
  summary.note =
      "The period's figures of each, in the order given; cash P&L as on the leaderboard. In the "
      "charts a day without predictions counts 0 (stake, cash P&L) and has no accuracy.";
  ASSIGN_OR_RETURN(Table daily,
                   RunTable(cx.conn(), "daily", "Per day", PageSql("compare_daily"), binds));
  // The item column named as on the other pages, so that it links to the item's page.
  for (Table* t : {&summary, &daily}) {
    for (std::string& col : t->columns) {
      if (col == "item") col = kind == "predictoor" ? "user" : "contract";
    }
  }
  page.charts.push_back(CompareChart(daily, items, "compare_cumulative_pnl",
                                     "Cumulative cash P&L (OCEAN)", "cash_pnl", true));
  page.charts.push_back(
      CompareChart(daily, items, "compare_stake", "Stake per day (OCEAN)", "stake", false));
  page.charts.push_back(CompareChart(daily, items, "compare_accuracy",
                                     "Accuracy per day (revealed predictions)", "accuracy", false));
  page.tables.push_back(std::move(summary));
  page.tables.push_back(std::move(daily));
  return Status::Ok();
}

// A link comparing the first five rows of `t` (their `column`), when it has two or more.
void AddCompareAction(Page& page, const Table& t, const std::string& column,
                      const std::string& what) {
  const size_t col = ColumnIndex(t, column);
  std::string query;
  size_t n = 0;
  for (const auto& row : t.rows) {
    if (n == kMaxCompared) break;
    if (col >= row.size() || !row[col].is_string() || !IsAddress(row[col].get<std::string>())) {
      continue;
    }
    query += "&a=" + row[col].get<std::string>();
    ++n;
  }
  if (n < 2) return;
  page.actions.emplace_back("/compare?period=" + page.params.period + query,
                            fmt::format("Compare the first {} {} on one chart", n, what));
}

}  // namespace

Status NotFound(std::string message) { return Status(StatusCode::kValidation, std::move(message)); }

Result<std::string> PageSql(std::string_view name, const std::string& order,
                            const std::string& dir) {
  std::vector<duck::SqlValue> values = {{"order", order}, {"dir", dir}};
  for (const auto& [part, stem] :
       std::initializer_list<std::pair<std::string_view, std::string_view>>{
           {"metric_sums", "part_metric_sums"},
           {"ratios", "part_ratios"},
           {"metric_columns", "part_metric_columns"},
           {"predictoor_columns", "part_predictoor_columns"},
           {"bronze_cash", "part_bronze_cash"},
           {"returns", "part_returns"},
           {"feed_filter", "part_feed_filter"},
           {"metric_filter", "part_metric_filter"}}) {
    ASSIGN_OR_RETURN(std::string_view text, duck::FindSql(EmbeddedSql(), stem));
    values.push_back({part, std::string(text)});
  }
  return duck::EmbeddedSqlText(EmbeddedSql(), name, values);
}

int HttpStatusFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kUsage:
      return 400;
    case StatusCode::kValidation:
      return 404;
    case StatusCode::kData:
    case StatusCode::kBusy:
    case StatusCode::kCancelled:
      return 503;
    default:
      return 500;
  }
}

const std::vector<std::string>& TableParamNames() {
  static const std::vector<std::string> names = {
      "q",         "min_predictions", "min_stake", "acc_min", "acc_max", "pair",
      "timeframe", "exchange",        "cols",      "page",    "per_page"};
  return names;
}

namespace {

// A table-state parameter's value, checked (kUsage with the allowed form otherwise).
Status ParseTableParam(const std::string& name, const std::string& value, PageParams& out) {
  auto is_digits = [](const std::string& v) {
    return !v.empty() && v.size() <= 12 &&
           std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  auto is_decimal = [&](const std::string& v) {
    const size_t dot = v.find('.');
    if (dot == std::string::npos) return is_digits(v);
    const std::string frac = v.substr(dot + 1);
    return is_digits(v.substr(0, dot)) && is_digits(frac) && frac.size() <= 18;
  };
  auto is_name = [](const std::string& v, size_t max, const char* extra) {
    return !v.empty() && v.size() <= max && std::all_of(v.begin(), v.end(), [&](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
             std::string_view(extra).find(c) != std::string_view::npos;
    });
  };
  if (name == "q") {
    if (value.size() > 100) return Status::Usage("q: longer than 100 characters");
    out.q = value;
  } else if (name == "min_predictions") {
    if (!is_digits(value)) {
      return Status::Usage("min_predictions: '" + value + "' is not a whole number >= 0");
    }
    out.min_predictions = std::stoll(value);
  } else if (name == "min_stake") {
    if (!is_decimal(value)) {
      return Status::Usage("min_stake: '" + value + "' is not a decimal number >= 0 (OCEAN)");
    }
    out.min_stake = value;
  } else if (name == "acc_min" || name == "acc_max") {
    if (!is_decimal(value) || std::stod(value) > 100) {
      return Status::Usage(name + ": '" + value + "' is not a percentage from 0 to 100");
    }
    (name == "acc_min" ? out.acc_min : out.acc_max) = std::stod(value);
  } else if (name == "pair") {
    if (!is_name(value, 40, "/-_.")) {
      return Status::Usage("pair: '" + value + "' is not a pair (letters, digits, / - _ .)");
    }
    out.pair = value;
  } else if (name == "timeframe") {
    if (!is_name(value, 8, "")) {
      return Status::Usage("timeframe: '" + value + "' is not a timeframe (5m, 1h)");
    }
    out.timeframe = value;
  } else if (name == "exchange") {
    if (!is_name(value, 40, "_-.")) {
      return Status::Usage("exchange: '" + value + "' is not an exchange name (binance, kraken)");
    }
    out.exchange = value;
  } else if (name == "cols") {
    if (value != "all" && value != "main") {
      return Status::Usage("cols: unknown value '" + value + "' (all or main)");
    }
    out.all_columns = value == "all";
  } else if (name == "page") {
    if (!is_digits(value) || std::stoll(value) < 1) {
      return Status::Usage("page: '" + value + "' is not a page number (1, 2, ...)");
    }
    out.page_no = std::stoll(value);
  } else if (name == "per_page") {
    if (!is_digits(value) || std::stoll(value) < 1 || std::stoll(value) > kMaxRowsPerPage) {
      return Status::Usage(fmt::format("per_page: '{}' is not a number of rows from 1 to {}", value,
                                       kMaxRowsPerPage));
    }
    out.per_page = std::stoll(value);
  }
  return Status::Ok();
}

}  // namespace

Result<PageParams> ParseParams(const std::multimap<std::string, std::string>& params, bool csv) {
  PageParams out;
  std::set<std::string> seen;
  const std::vector<std::string>& table_names = TableParamNames();
  for (const auto& [name, value] : params) {
    if (name == "a") {  // /compare's items: several, checked by the page
      out.compare.push_back(value);
      continue;
    }
    const bool table_param =
        std::find(table_names.begin(), table_names.end(), name) != table_names.end();
    const bool known = name == "period" || name == "sort" || name == "dir" ||
                       (name == "table" && csv) || table_param;
    // Unknown names are not ours to judge (a shared link's utm_source=...): ignored.
    if (!known) continue;
    if (!seen.insert(name).second) return Status::Usage("parameter '" + name + "' given twice");
    if (name == "period") {
      if (value != "1d" && value != "1w" && value != "1m" && value != "all") {
        return Status::Usage("period: unknown value '" + value + "' (one of 1d, 1w, 1m, all)");
      }
      out.period = value;
    } else if (name == "sort") {
      out.sort = value;  // checked against the page's list
    } else if (name == "dir") {
      if (value != "asc" && value != "desc") {
        return Status::Usage("dir: unknown value '" + value + "' (asc or desc)");
      }
      out.dir = value;
    } else if (name == "table") {
      out.table = value;
    } else if (!value.empty()) {  // an empty form field is no filter
      RETURN_IF_ERROR(ParseTableParam(name, value, out));
      out.given[name] = value;
    }
  }
  if (out.acc_min && out.acc_max && *out.acc_min > *out.acc_max) {
    return Status::Usage("acc_min is above acc_max");
  }
  if (csv && out.table.empty()) return Status::Usage("table: missing (the id of a table)");
  return out;
}

Period PeriodFor(const std::string& name, std::optional<int64_t> checkpoint_ms,
                 int64_t created_at_ms, std::optional<int64_t> lake_start_ms) {
  Period p;
  p.name = name;
  p.holds_to_ms = checkpoint_ms ? *checkpoint_ms : created_at_ms;
  const int64_t last = DayStartMs(checkpoint_ms ? *checkpoint_ms - 1 : created_at_ms);
  if (p.holds_to_ms > last && p.holds_to_ms < last + kDayMs) p.partial_day = FormatDay(last);
  const std::string holds_to = FormatTime(p.holds_to_ms).substr(11, 5) + " UTC";
  if (name == "all") {
    p.from_day = "1970-01-01";
    p.to_day = "9999-12-31";
    p.label = "every day" +
              (p.partial_day ? ", the last (" + *p.partial_day + ") to " + holds_to + " (partial)"
                             : std::string());
    return p;
  }
  // 1d: the last 24 hours. The tables are per slot day, so they show the days those hours touch
  // (the label says which), never the partial calendar day alone.
  const int64_t first = name == "1d"   ? DayStartMs(p.holds_to_ms - kDayMs)
                        : name == "1m" ? last - 29 * kDayMs
                                       : last - 6 * kDayMs;
  const int64_t days = (last - first) / kDayMs + 1;
  p.from_day = FormatDay(first);
  p.to_day = FormatDay(last);
  if (lake_start_ms && first < *lake_start_ms && *lake_start_ms <= last) {
    p.from_day = FormatDay(*lake_start_ms);
    p.clamped = true;
  }
  const std::string to_text =
      p.partial_day ? p.to_day + " " + holds_to + " (partial day)" : p.to_day + " (whole)";
  if (name == "1d") {
    p.label = "the last 24 h, " + MinuteText(p.holds_to_ms - kDayMs) + " to " +
              MinuteText(p.holds_to_ms) + " UTC: per slot day, " + p.from_day +
              (days > 1        ? " to " + to_text
               : p.partial_day ? " " + holds_to + " (partial day)"
                               : std::string(" (whole)"));
  } else {
    p.label = p.from_day + " to " + to_text + " (UTC slot days)";
  }
  if (p.clamped) {
    const int64_t shown = (last - *lake_start_ms) / kDayMs + 1;
    p.label += fmt::format(": {} of {} days, the lake starts {}", shown, days, p.from_day);
  }
  return p;
}

namespace {

// The freshness facts of a snapshot but its age, read once when it is opened.
Result<Json> SnapshotFacts(lake::Lake& lake, const exports::Snapshot& s) {
  Json f = Json::object();
  f["snapshot_run"] = s.run_id;
  f["snapshot_created_at"] = FormatTime(s.created_at_ms);
  f["snapshot_age_s"] = 0;
  std::optional<int64_t> checkpoint;
  if (s.manifest.contains("checkpoint") && s.manifest["checkpoint"].is_object()) {
    checkpoint = s.manifest["checkpoint"].value("checkpoint_ms", int64_t{0});
  }
  f["checkpoint"] = checkpoint ? Json(FormatTime(*checkpoint)) : Json(nullptr);
  f["checkpoint_ms"] = checkpoint ? Json(*checkpoint) : Json(nullptr);
  ASSIGN_OR_RETURN(etl::Frontier frontier, etl::ComputeFrontier(lake));
  f["frontier"] = frontier.frontier_ms ? Json(FormatTime(*frontier.frontier_ms)) : Json(nullptr);
  f["frontier_ms"] = frontier.frontier_ms ? Json(*frontier.frontier_ms) : Json(nullptr);
  if (frontier.frontier_ms) {
    f["holding_back"] = frontier.held_by;
  } else if (!frontier.missing.empty()) {
    f["holding_back"] = "never fetched: " + JoinComma(frontier.missing);
  } else {
    f["holding_back"] = nullptr;
  }
  // The candle streams' health (docs/ohlcv.md): a failing exchange never stops the lake, so the
  // header and /metrics say which streams lack candles, since when and why.
  ASSIGN_OR_RETURN(std::string streams_sql, PageSql("freshness_candle_streams"));
  ASSIGN_OR_RETURN(duck::QueryResult streams,
                   lake.conn().Query(streams_sql, "serve: the candle streams"));
  Json candle_streams = Json::array();
  for (const auto& row : streams.ToText()) {
    candle_streams.push_back(
        {{"stream", row[0].value_or("")},
         {"status", row[1].value_or("")},
         {"watermark_ms", std::stoll(row[2].value_or("0"))},
         {"error", row[3] ? Json(*row[3]) : Json(nullptr)},
         {"failing_since", row[4] ? Json(FormatTime(std::stoll(*row[4]))) : Json(nullptr)},
         {"known_gaps", std::stoll(row[5].value_or("0"))}});
  }
  f["candle_streams"] = std::move(candle_streams);
  ASSIGN_OR_RETURN(std::string last_sql, PageSql("freshness_last_run"));
  ASSIGN_OR_RETURN(duck::QueryResult last, lake.conn().Query(last_sql, "serve: the last run"));
  auto rows = last.ToText();
  if (rows.empty()) {
    f["last_run"] = nullptr;
  } else {
    const auto& r = rows[0];
    f["last_run"] = Json{{"run_id", std::stoll(r[0].value_or("0"))},
                         {"command", r[1].value_or("")},
                         {"status", r[2].value_or("")},
                         {"at", r[3] ? Json(FormatTime(std::stoll(*r[3]))) : Json(nullptr)}};
  }
  return f;
}

// True when the snapshot's files of `table` hold `column` (the manifest's schema).
bool SnapshotHasColumn(const exports::Snapshot& snapshot, const std::string& table,
                       const std::string& column) {
  for (const auto& t : exports::ManifestArray(snapshot.manifest, "tables")) {
    if (t.value("name", "") != table) continue;
    for (const auto& c : exports::ManifestArray(t, "schema")) {
      if (c.value("name", "") == column) return true;
    }
  }
  return false;
}

// The first day of the snapshot's data (period_lake_start.sql), nullopt without data.
Result<std::optional<int64_t>> LakeStartMs(duck::Connection& conn) {
  ASSIGN_OR_RETURN(std::string sql, PageSql("period_lake_start"));
  ASSIGN_OR_RETURN(duck::QueryResult r, conn.Query(sql, "serve: the lake's first day"));
  auto rows = r.ToText();
  if (rows.empty() || !rows[0][0]) return std::optional<int64_t>();
  return std::optional<int64_t>(std::stoll(*rows[0][0]));
}

Result<std::shared_ptr<SnapshotEntry>> OpenEntry(const std::string& lake_dir,
                                                 exports::Snapshot snapshot, const Clock* clock,
                                                 const std::string& exports_dir) {
  // A column this build's lake has and the snapshot's files lack (a snapshot written before it
  // was added) reads as NULL (docs/export.md, "Compatibility").
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake,
                   exports::OpenSnapshot(lake_dir, snapshot, clock));
  duck::Connection& conn = lake->conn();
  ASSIGN_OR_RETURN(std::string settings, PageSql("snapshot_settings"));
  RETURN_IF_ERROR(conn.Execute(settings, "serve: configure the snapshot's database"));
  RETURN_IF_ERROR(CreateServeTables(
      conn, SnapshotHasColumn(snapshot, "gold_predictoor_daily", "cash_pnl") &&
                SnapshotHasColumn(snapshot, "gold_feed_daily", "consensus_stake")));
  RETURN_IF_ERROR(duck::Seal(conn, duck::Reach::kSealedReadFiles, {exports_dir}));
  auto entry = std::make_shared<SnapshotEntry>();
  ASSIGN_OR_RETURN(entry->freshness, SnapshotFacts(*lake, snapshot));
  ASSIGN_OR_RETURN(entry->lake_start_ms, LakeStartMs(conn));
  entry->snapshot = std::move(snapshot);
  entry->lake = std::move(lake);
  return entry;
}

// The snapshot each lake folder's `current` pointed at last, opened. A newer snapshot replaces it;
// requests still reading the old one keep it alive (shared_ptr) until they finish.
std::mutex g_open_mu;
std::map<std::string, std::shared_ptr<SnapshotEntry>>& OpenSnapshots() {
  static auto* open = new std::map<std::string, std::shared_ptr<SnapshotEntry>>();
  return *open;
}

}  // namespace

Result<SnapshotView> OpenView(const ServeOptions& options) {
  static const SystemClock kSystemClock;
  const Clock* clock = options.clock != nullptr ? options.clock : &kSystemClock;
  std::error_code ec;
  const std::string exports_dir =
      std::filesystem::absolute(exports::ExportsDir(options.lake_dir), ec)
          .lexically_normal()
          .string() +
      "/";
  Status last = Status::Ok();
  // A second try when the snapshot resolved went away meanwhile (a newer one became current and
  // the grace period of this one ended).
  for (int attempt = 0; attempt < 2; ++attempt) {
    ASSIGN_OR_RETURN(std::optional<exports::Snapshot> snapshot,
                     exports::ReadCurrent(options.lake_dir));
    if (!snapshot) {
      return Status::Data("no snapshot yet at " + exports::ExportsDir(options.lake_dir) +
                          " (run `predlake export`, or `predlake serve --every 5m`)");
    }
    std::shared_ptr<SnapshotEntry> entry;
    {
      std::lock_guard<std::mutex> lock(g_open_mu);
      std::shared_ptr<SnapshotEntry>& cached = OpenSnapshots()[exports_dir];
      if (cached && cached->snapshot.dir == snapshot->dir &&
          cached->snapshot.run_id == snapshot->run_id) {
        entry = cached;
      } else {
        Result<std::shared_ptr<SnapshotEntry>> opened =
            OpenEntry(options.lake_dir, std::move(*snapshot), clock, exports_dir);
        if (!opened.ok()) {
          last = opened.status();
          continue;
        }
        cached = *opened;
        entry = cached;
      }
    }
    Result<duck::Connection> conn = entry->lake->db().Connect();
    if (!conn.ok()) return conn.status();
    SnapshotView view;
    view.entry = std::move(entry);
    view.conn.emplace(std::move(*conn));
    view.now_ms = clock->NowMs();
    return view;
  }
  return last;
}

std::optional<std::vector<std::pair<std::string, int64_t>>> WaitingOnce(SnapshotEntry& entry) {
  std::lock_guard<std::mutex> lock(entry.mu);
  if (!entry.waiting_tried) {
    entry.waiting_tried = true;
    Result<std::vector<etl::WaitingEvents>> w = etl::Waiting(*entry.lake);
    if (w.ok()) {
      std::vector<std::pair<std::string, int64_t>> list;
      for (const etl::WaitingEvents& e : *w) list.emplace_back(e.table, e.events);
      entry.waiting = std::move(list);
    }
  }
  return entry.waiting;
}

Status Warm(const ServeOptions& options) {
  Result<SnapshotView> view = OpenView(options);
  if (!view.ok()) return view.status();
  // /metrics' scan too, so that no request waits for it.
  WaitingOnce(*view->entry);
  return Status::Ok();
}

Json Freshness(const SnapshotView& view) {
  Json f = view.entry->freshness;
  f["snapshot_age_s"] =
      std::max<int64_t>(view.now_ms - view.entry->snapshot.created_at_ms, 0) / 1000;
  return f;
}

Result<Page> BuildPage(const ServeOptions& options, SnapshotView& view, std::string_view path,
                       const PageParams& params) {
  Page page;
  page.path = std::string(path);
  page.params = params;
  page.freshness = Freshness(view);
  std::optional<int64_t> checkpoint;
  if (page.freshness["checkpoint_ms"].is_number()) {
    checkpoint = page.freshness["checkpoint_ms"].get<int64_t>();
  }
  PageContext cx{options, view, page,
                 PeriodFor(params.period, checkpoint, view.snapshot().created_at_ms,
                           view.entry->lake_start_ms)};
  page.period = PeriodJson(cx.period);
  const std::string p(path);
  if (p == "/" || p.empty()) {
    page.path = "/";
    RETURN_IF_ERROR(OverviewPage(cx));
  } else if (p == "/predictoors") {
    RETURN_IF_ERROR(PredictoorsPage(cx));
  } else if (p.rfind("/predictoor/", 0) == 0) {
    RETURN_IF_ERROR(PredictoorPage(cx, p.substr(12)));
  } else if (p == "/feeds") {
    RETURN_IF_ERROR(FeedsPage(cx));
  } else if (p.rfind("/feed/", 0) == 0) {
    RETURN_IF_ERROR(FeedPage(cx, p.substr(6)));
  } else if (p == "/runs") {
    RETURN_IF_ERROR(RunsPage(cx));
  } else if (p == "/compare") {
    RETURN_IF_ERROR(ComparePage(cx));
  } else if (p == "/search") {
    RETURN_IF_ERROR(SearchPage(cx));
  } else {
    return NotFound("no page " + p);
  }
  for (Chart& chart : page.charts) MarkPartialDay(chart, cx.period);
  for (const Table& t : page.tables) {
    if (page.path == "/predictoors" && t.id == "predictoors") {
      AddCompareAction(page, t, "user", "predictoors");
      page.pick_table = t.id;
    } else if (page.path == "/feeds" && t.id == "feeds") {
      AddCompareAction(page, t, "contract", "feeds");
      page.pick_table = t.id;
    }
  }
  return page;
}

}  // namespace predlake::serve
