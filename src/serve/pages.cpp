#include "serve/pages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <variant>

#include "duck/duck.hpp"
#include "etl/etl.hpp"

namespace predlake::serve {
namespace {

// ---- SQL.

using BindValue = std::variant<int64_t, std::string>;

// The period's bounds are always $1 and $2 (VARCHAR days).
constexpr const char* kDayInPeriod = "day BETWEEN CAST($1 AS DATE) AND CAST($2 AS DATE)";
std::string SlotInPeriod(const std::string& slot_expr) {
  return "(" + slot_expr + " >= (CAST($1 AS DATE) - DATE '1970-01-01') * 86400 AND " + slot_expr +
         " < (CAST($2 AS DATE) - DATE '1970-01-01' + 1) * 86400)";
}
std::string IsoFromMs(const std::string& ms_expr) {
  return "strftime(epoch_ms(CAST(" + ms_expr + " AS BIGINT)), '%Y-%m-%dT%H:%M:%SZ')";
}
std::string IsoFromMsExact(const std::string& ms_expr) {
  return "strftime(epoch_ms(CAST(" + ms_expr + " AS BIGINT)), '%Y-%m-%dT%H:%M:%S.%gZ')";
}

// An exact sum that is NULL as soon as one summed value is unknown (the cash columns).
std::string StrictSum(const std::string& col) {
  return "CASE WHEN count(" + col + ") = count(*) THEN sum(" + col + ") END AS " + col;
}
std::string IntSum(const std::string& col) { return "CAST(sum(" + col + ") AS BIGINT) AS " + col; }

// Sums of the per-day metric columns of serve_pd / serve_fd over a group of rows.
std::string MetricSums() {
  return IntSum("predictions") + ", " + IntSum("resolved") + ", " + IntSum("unrevealed") + ", " +
         IntSum("correct") + ", sum(stake) AS stake, " + StrictSum("settled_stake") + ", " +
         StrictSum("settled_payout") + ", " + StrictSum("cash_pnl") + ", " +
         StrictSum("resolved_stake") + ", sum(profit) AS profit, " + StrictSum("unrevealed_stake") +
         ", " + StrictSum("refund_pending") + ", " + StrictSum("refund_claimed");
}

// Ratios over the sums above (DOUBLE; NULL when the denominator is 0).
constexpr const char* kRatios =
    "CASE WHEN resolved > 0 THEN correct / resolved END AS accuracy, "
    "CASE WHEN resolved + unrevealed > 0 THEN resolved / (resolved + unrevealed) END AS "
    "revealed_share, "
    "CASE WHEN resolved + unrevealed > 0 THEN correct / (resolved + unrevealed) END AS "
    "accuracy_low, "
    "CASE WHEN resolved + unrevealed > 0 THEN (correct + unrevealed) / (resolved + unrevealed) END "
    "AS accuracy_high, "
    "CASE WHEN resolved_stake > 0 THEN CAST(profit AS DOUBLE) / CAST(resolved_stake AS DOUBLE) END "
    "AS roi";

// The metric columns in display order (after the page's key columns).
constexpr const char* kMetricColumns =
    "predictions, resolved, unrevealed, correct, accuracy, revealed_share, accuracy_low, "
    "accuracy_high, stake, settled_stake, settled_payout, cash_pnl, resolved_stake, profit, roi, "
    "unrevealed_stake, refund_pending, refund_claimed";

const std::vector<std::string>& MetricSortKeys() {
  static const std::vector<std::string> keys = {
      "cash_pnl",       "predictions",    "resolved", "unrevealed",    "correct",
      "accuracy",       "revealed_share", "stake",    "settled_stake", "settled_payout",
      "resolved_stake", "profit",         "roi",      "refund_pending"};
  return keys;
}

// The cash columns computed from bronze_pdr_predictions, per group, with the gold definitions
// (docs/serve.md): used when the snapshot's gold tables predate them.
constexpr const char* kBronzeCashAggregates = R"(
  CASE WHEN count(*) FILTER (WHERE status = 'paying' AND stake IS NULL) = 0
       THEN coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0::DECIMAL(38, 18)) END
    AS settled_stake,
  coalesce(sum(payout) FILTER (WHERE status = 'paying'), 0::DECIMAL(38, 18)) AS settled_payout,
  CASE WHEN count(*) FILTER (WHERE status = 'paying' AND predvalue IS NOT NULL
                                   AND truevalue IS NOT NULL AND stake IS NULL) = 0
       THEN coalesce(sum(stake) FILTER (WHERE status = 'paying' AND predvalue IS NOT NULL
                                              AND truevalue IS NOT NULL), 0::DECIMAL(38, 18)) END
    AS resolved_stake,
  CASE WHEN count(*) FILTER (WHERE status = 'paying' AND predvalue IS NULL AND stake IS NULL) = 0
       THEN coalesce(sum(stake) FILTER (WHERE status = 'paying' AND predvalue IS NULL),
                     0::DECIMAL(38, 18)) END AS unrevealed_stake,
  CASE WHEN count(*) FILTER (WHERE status = 'canceled' AND payout IS NULL AND stake IS NULL) = 0
       THEN coalesce(sum(stake) FILTER (WHERE status = 'canceled' AND payout IS NULL),
                     0::DECIMAL(38, 18)) END AS refund_pending,
  coalesce(sum(payout) FILTER (WHERE status = 'canceled'), 0::DECIMAL(38, 18)) AS refund_claimed)";

// The gold columns the fallback computes (a snapshot written before them reads them as NULL).
constexpr const char* kGoldCashNames =
    "settled_stake, settled_payout, cash_pnl, resolved_stake, unrevealed_stake, refund_pending, "
    "refund_claimed";

constexpr const char* kCashColumns =
    "c.settled_stake, c.settled_payout, c.settled_payout - c.settled_stake AS cash_pnl, "
    "c.resolved_stake, c.unrevealed_stake, c.refund_pending, c.refund_claimed";

// What the pages read, made once per snapshot (its files never change) as in-memory tables:
// serve_pd / serve_fd, the gold tables with the dashboard's columns (docs/serve.md);
// serve_unclaimed, the unclaimed payouts and refunds per (day, predictoor, feed); serve_recent,
// each predictoor's newest 50 predictions (every period ends at the checkpoint's day, so a
// period's newest 50 are among them).
Status CreateServeTables(duck::Connection& conn, bool gold_has_columns) {
  RETURN_IF_ERROR(conn.Execute(
      "CREATE TABLE serve_unclaimed AS SELECT DATE '1970-01-01' + CAST(slot // 86400 AS INTEGER) "
      "AS day, user, contract, min(pair) AS pair, min(timeframe) AS timeframe, count(*) FILTER "
      "(WHERE status = 'paying') AS unclaimed_predictions, sum(stake) FILTER (WHERE status = "
      "'paying') AS unclaimed_stake, count(*) FILTER (WHERE status = 'canceled') AS "
      "refunds_pending, sum(stake) FILTER (WHERE status = 'canceled') AS refund_pending FROM "
      "bronze_pdr_predictions WHERE payout IS NULL AND status IN ('paying', 'canceled') GROUP BY "
      "ALL ORDER BY day; "
      // The newest 50 per predictoor without a window over every prediction: per predictoor the
      // newest day from which on it has at least 50, then the window over those days only.
      "CREATE TABLE serve_recent AS WITH d AS (SELECT user, slot // 86400 AS dn, count(*) AS n "
      "FROM bronze_pdr_predictions GROUP BY ALL), c AS (SELECT user, dn, sum(n) OVER (PARTITION "
      "BY user ORDER BY dn DESC) AS cum FROM d), t AS (SELECT user, coalesce(max(dn) FILTER "
      "(WHERE cum >= 50), min(dn)) AS from_dn FROM c GROUP BY user) SELECT b.ID, b.slot, b.user, "
      "b.contract, b.pair, b.timeframe, b.status, b.stake, b.predvalue, b.truevalue, b.payout "
      "FROM bronze_pdr_predictions AS b JOIN t ON b.user = t.user AND b.slot >= t.from_dn * "
      "86400 QUALIFY row_number() OVER (PARTITION BY b.user ORDER BY b.slot DESC, b.ID) <= 50; "
      // The small tables the feed pages read, in memory.
      "CREATE TABLE serve_sales AS SELECT * FROM gold_feed_sales_daily ORDER BY day; "
      "CREATE TABLE serve_subs AS SELECT split_part(ID, '-', 1) AS contract, user, "
      "last_price_value, timestamp FROM pdr_subscriptions ORDER BY timestamp; "
      "CREATE TABLE serve_slots AS SELECT contract, slot, status, n_predictions, predicted_stake, "
      "deadline_timestamp, trueval_timestamp, seconds_per_epoch FROM bronze_pdr_slots ORDER BY "
      "slot;",
      "serve: the snapshot's tables"));
  if (gold_has_columns) {
    return conn.Execute(
        "CREATE TABLE serve_pd AS SELECT * FROM gold_predictoor_daily ORDER BY day; "
        "CREATE TABLE serve_fd AS SELECT * FROM gold_feed_daily ORDER BY day;",
        "serve: the metric views");
  }
  const std::string day = "DATE '1970-01-01' + CAST(slot // 86400 AS INTEGER)";
  const std::string sql =
      std::string("CREATE TABLE serve_pd AS SELECT g.* EXCLUDE (") + kGoldCashNames + "), " +
      kCashColumns + " FROM gold_predictoor_daily AS g LEFT JOIN (SELECT " + day +
      " AS day, user, contract, " + kBronzeCashAggregates +
      " FROM bronze_pdr_predictions GROUP BY ALL) AS c ON c.day = g.day AND c.user = g.user AND "
      "c.contract IS NOT DISTINCT FROM g.contract ORDER BY g.day; "
      "CREATE TABLE serve_fd AS SELECT g.* EXCLUDE (" +
      kGoldCashNames +
      ", consensus_slots, consensus_correct_slots, consensus_stake, "
      "consensus_correct_stake), " +
      kCashColumns +
      ", coalesce(k.consensus_slots, 0) AS consensus_slots, coalesce(k.consensus_correct_slots, 0) "
      "AS consensus_correct_slots, coalesce(k.consensus_stake, 0::DECIMAL(38, 18)) AS "
      "consensus_stake, coalesce(k.consensus_correct_stake, 0::DECIMAL(38, 18)) AS "
      "consensus_correct_stake FROM gold_feed_daily AS g LEFT JOIN (SELECT " +
      day + " AS day, contract, " + kBronzeCashAggregates +
      " FROM bronze_pdr_predictions GROUP BY ALL) AS c ON c.day = g.day AND c.contract IS NOT "
      "DISTINCT FROM g.contract LEFT JOIN (SELECT " +
      day +
      " AS day, contract, count(*) AS consensus_slots, count(*) FILTER (WHERE (truevalue AND "
      "roundSumStakesUp * 2 > roundSumStakes) OR (NOT truevalue AND roundSumStakesUp * 2 < "
      "roundSumStakes)) AS consensus_correct_slots, sum(roundSumStakes) AS consensus_stake, "
      "sum(CASE WHEN truevalue THEN roundSumStakesUp ELSE roundSumStakes - roundSumStakesUp END) "
      "AS consensus_correct_stake FROM bronze_pdr_slots WHERE status = 'paying' AND truevalue IS "
      "NOT NULL AND roundSumStakes > 0 GROUP BY ALL) AS k ON k.day = g.day AND k.contract IS NOT "
      "DISTINCT FROM g.contract ORDER BY g.day;";
  return conn.Execute(sql, "serve: the metric views");
}

Result<Table> RunTable(duck::Connection& conn, const std::string& id, const std::string& title,
                       const std::string& sql, const std::vector<BindValue>& binds) {
  ASSIGN_OR_RETURN(duck::Prepared stmt, conn.Prepare(sql, "serve: table " + id));
  for (size_t i = 0; i < binds.size(); ++i) {
    if (std::holds_alternative<int64_t>(binds[i])) {
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

struct SeriesSpec {
  std::string column;
  std::string label;
  bool cumulative = false;
};

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
    all.push_back(Json{{"label", spec.label}, {"values", std::move(values)}});
  }
  chart.data = Json{{"x", std::move(x)}, {"series", std::move(all)}};
  return chart;
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
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

// Resolves the page's sort against the sortable table's fixed list. kUsage for another key.
Status ResolveSort(Page& page, const std::vector<std::string>& keys, const std::string& def_key,
                   const std::string& def_dir) {
  page.sort = page.params.sort.empty() ? def_key : page.params.sort;
  if (std::find(keys.begin(), keys.end(), page.sort) == keys.end()) {
    std::string list;
    for (const std::string& k : keys) list += (list.empty() ? "" : ", ") + k;
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

// ---- The pages.

Status OverviewPage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Overview";
  RETURN_IF_ERROR(ResolveSort(page, {"day"}, "day", "asc"));
  ASSIGN_OR_RETURN(
      Table network,
      RunTable(cx.conn(), "network", "Network",
               "WITH p AS (SELECT count(DISTINCT user) AS predictoors, count(DISTINCT contract) AS "
               "active_feeds, " +
                   MetricSums() + " FROM serve_pd WHERE " + kDayInPeriod +
                   "), f AS (SELECT CAST(coalesce(sum(slots), 0) AS BIGINT) AS slots, "
                   "CAST(coalesce(sum(slots_canceled), 0) AS BIGINT) AS slots_canceled, "
                   "sum(revenue) AS revenue FROM serve_fd WHERE " +
                   kDayInPeriod +
                   "), s AS (SELECT CAST(coalesce(sum(subscriptions), 0) AS BIGINT) AS "
                   "subscriptions, coalesce(sum(sales), 0::DECIMAL(38, 18)) AS sales FROM "
                   "serve_sales WHERE " +
                   kDayInPeriod + "), r AS (SELECT p.*, " + kRatios +
                   " FROM p) SELECT predictoors, active_feeds, slots, slots_canceled, " +
                   kMetricColumns + ", revenue, subscriptions, sales FROM r, f, s",
               cx.period_binds()));
  network.note =
      "Cash P&L = payouts received minus stakes of predictions in paying slots; unclaimed refunds "
      "are apart (refund_pending). Accuracy counts revealed predictions only: see the revealed "
      "share and the bounds.";
  const std::string order = page.dir == "asc" ? "ASC" : "DESC";
  ASSIGN_OR_RETURN(
      Table daily,
      RunTable(
          cx.conn(), "daily", "Per day",
          "WITH d AS (SELECT day FROM serve_fd WHERE " + std::string(kDayInPeriod) +
              " UNION SELECT day FROM serve_sales WHERE " + kDayInPeriod +
              "), p AS (SELECT day, count(DISTINCT user) AS predictoors, " + MetricSums() +
              " FROM serve_pd WHERE " + kDayInPeriod +
              " GROUP BY day), f AS (SELECT day, CAST(sum(slots) AS BIGINT) AS slots, "
              "CAST(sum(slots_canceled) AS BIGINT) AS slots_canceled, sum(revenue) AS "
              "revenue FROM serve_fd WHERE " +
              kDayInPeriod +
              " GROUP BY day), s AS (SELECT day, CAST(sum(subscriptions) AS BIGINT) AS "
              "subscriptions, sum(sales) AS sales FROM serve_sales WHERE " +
              kDayInPeriod + " GROUP BY day), r AS (SELECT d.day, p.* EXCLUDE (day), " + kRatios +
              ", f.slots, f.slots_canceled, f.revenue, coalesce(s.subscriptions, 0) AS "
              "subscriptions, coalesce(s.sales, 0::DECIMAL(38, 18)) AS sales FROM d LEFT "
              "JOIN p ON p.day = d.day LEFT JOIN f ON f.day = d.day LEFT JOIN s ON s.day = "
              "d.day) SELECT CAST(day AS VARCHAR) AS day, predictoors, slots, "
              "slots_canceled, " +
              kMetricColumns + ", revenue, subscriptions, sales FROM r ORDER BY r.day " + order,
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
  page.charts.push_back(ChartFromTable(
      ordered, "pnl_daily", "Network cash P&L (OCEAN)",
      {{"cash_pnl", "cash P&L per day"}, {"cash_pnl", "cumulative cash P&L", true}}));
  page.charts.push_back(ChartFromTable(ordered, "revenue_daily", "Revenue per day (OCEAN)",
                                       {{"revenue", "slot revenue"}, {"sales", "sales"}}));
  page.charts.push_back(ChartFromTable(ordered, "accuracy_daily",
                                       "Accuracy per day, with its bounds",
                                       {{"accuracy", "accuracy (revealed)"},
                                        {"accuracy_low", "lower bound"},
                                        {"accuracy_high", "upper bound"}}));
  page.tables.push_back(std::move(network));
  page.tables.push_back(std::move(daily));
  return Status::Ok();
}

constexpr const char* kPredictoorColumns =
    "\"rank\", user, mine, feeds, predictions, resolved, unrevealed, correct, accuracy, "
    "revealed_share, accuracy_low, accuracy_high, stake, settled_stake, settled_payout, cash_pnl, "
    "resolved_stake, profit, roi, unrevealed_stake, refund_pending, refund_claimed";

Status PredictoorsPage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Predictoors";
  std::vector<std::string> keys = {"rank", "user", "feeds"};
  for (const std::string& k : MetricSortKeys()) keys.push_back(k);
  RETURN_IF_ERROR(ResolveSort(page, keys, "rank", "asc"));
  std::vector<BindValue> binds = cx.period_binds();
  binds.emplace_back(JoinComma(cx.options.my_addresses));
  const std::string with =
      "WITH a AS (SELECT user, CAST(count(DISTINCT contract) AS BIGINT) AS feeds, " + MetricSums() +
      " FROM serve_pd WHERE " + kDayInPeriod + " GROUP BY user), b AS (SELECT *, " + kRatios +
      ", user IN (SELECT unnest(string_split($3, ','))) AS mine, row_number() OVER "
      "(ORDER BY cash_pnl DESC NULLS LAST, user) AS \"rank\" FROM a) ";
  ASSIGN_OR_RETURN(Table board,
                   RunTable(cx.conn(), "predictoors", "Leaderboard (ranked by cash P&L)",
                            with + "SELECT " + kPredictoorColumns + " FROM b ORDER BY mine DESC, " +
                                OrderTerm(page) + ", user",
                            binds));
  board.sort_keys = keys;
  board.note =
      "Ranked by cash P&L: payouts received minus the stakes of predictions in paying slots. "
      "profit and ROI (profit / resolved stake) count revealed predictions only; on Sapphire a "
      "prediction is revealed when claimed, and losses are rarely claimed. Your addresses "
      "(predictoor_ss.my_addresses) come first.";
  page.tables.push_back(std::move(board));
  if (!cx.options.my_addresses.empty()) {
    ASSIGN_OR_RETURN(
        Table total,
        RunTable(cx.conn(), "my_total", "Total of my addresses",
                 "WITH a AS (SELECT CAST(count(DISTINCT contract) AS BIGINT) AS feeds, " +
                     MetricSums() + " FROM serve_pd WHERE " + kDayInPeriod +
                     " AND user IN (SELECT unnest(string_split($3, ',')))), b AS (SELECT "
                     "'total' AS user, *, " +
                     kRatios + ", true AS mine, CAST(NULL AS BIGINT) AS \"rank\" FROM a) SELECT " +
                     kPredictoorColumns + " FROM b",
                 binds));
    page.tables.push_back(std::move(total));
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
  page.title = "Predictoor " + address;
  {
    ASSIGN_OR_RETURN(duck::Prepared exists,
                     cx.conn().Prepare("SELECT count(*) FROM serve_pd WHERE user = $1",
                                       "serve: find the predictoor"));
    RETURN_IF_ERROR(exists.Bind(1, std::string_view(address)));
    ASSIGN_OR_RETURN(duck::QueryResult r, exists.Execute());
    auto rows = r.ToText();
    if (rows.empty() || !rows[0][0] || *rows[0][0] == "0") {
      return NotFound("no predictoor " + address + " in the snapshot");
    }
  }
  std::vector<std::string> keys = {"contract", "pair", "timeframe"};
  for (const std::string& k : MetricSortKeys()) keys.push_back(k);
  RETURN_IF_ERROR(ResolveSort(page, keys, "cash_pnl", "desc"));
  std::vector<BindValue> binds = cx.period_binds();
  binds.emplace_back(address);
  const std::string where = std::string(" WHERE ") + kDayInPeriod + " AND user = $3";
  ASSIGN_OR_RETURN(
      Table summary,
      RunTable(cx.conn(), "summary", "Summary",
               "WITH a AS (SELECT CAST(count(DISTINCT contract) AS BIGINT) AS feeds, " +
                   MetricSums() + " FROM serve_pd" + where + "), b AS (SELECT *, " + kRatios +
                   " FROM a) SELECT feeds, " + kMetricColumns + " FROM b",
               binds));
  summary.note =
      "Cash P&L counts payouts received; profit and ROI only revealed (claimed) predictions. The "
      "accuracy bounds assume every unrevealed prediction wrong (low) or right (high).";
  ASSIGN_OR_RETURN(
      Table feeds,
      RunTable(cx.conn(), "feeds", "Per feed",
               "WITH a AS (SELECT contract, min(pair) AS pair, min(timeframe) AS timeframe, "
               "min(source) AS source, " +
                   MetricSums() + " FROM serve_pd" + where +
                   " GROUP BY contract), b AS (SELECT *, " + kRatios +
                   " FROM a) SELECT contract, pair, timeframe, source, " + kMetricColumns +
                   " FROM b ORDER BY " + OrderTerm(page) + ", contract",
               binds));
  feeds.sort_keys = keys;
  ASSIGN_OR_RETURN(Table daily,
                   RunTable(cx.conn(), "daily", "Per day",
                            "WITH a AS (SELECT day, " + MetricSums() + " FROM serve_pd" + where +
                                " GROUP BY day), b AS (SELECT *, " + kRatios +
                                " FROM a) SELECT CAST(day AS VARCHAR) AS day, " + kMetricColumns +
                                " FROM b ORDER BY b.day",
                            binds));
  ASSIGN_OR_RETURN(
      Table recent,
      RunTable(cx.conn(), "recent", "Recent predictions (newest 50)",
               "SELECT ID AS id, " + IsoFromMs("slot * 1000") +
                   " AS slot_at, contract, pair, timeframe, status, stake, predvalue, truevalue, "
                   "payout FROM serve_recent WHERE " +
                   SlotInPeriod("slot") + " AND user = $3 ORDER BY slot DESC, ID LIMIT 50",
               binds));
  ASSIGN_OR_RETURN(
      Table unclaimed,
      RunTable(cx.conn(), "unclaimed", "Unclaimed payouts and refunds",
               "SELECT contract, min(pair) AS pair, min(timeframe) AS timeframe, "
               "CAST(sum(unclaimed_predictions) AS BIGINT) AS unclaimed_predictions, "
               "coalesce(sum(unclaimed_stake), 0::DECIMAL(38, 18)) AS unclaimed_stake, "
               "CAST(sum(refunds_pending) AS BIGINT) AS refunds_pending, "
               "coalesce(sum(refund_pending), 0::DECIMAL(38, 18)) AS refund_pending FROM "
               "serve_unclaimed" +
                   where + " GROUP BY contract ORDER BY contract",
               binds));
  unclaimed.note =
      "Paying slots without a claim: the payout, if the prediction was right, is unknown until "
      "claimed (unclaimed_stake is their stake, not a payout). Canceled slots without a claim: "
      "the refund (the stake) is still to collect.";
  page.charts.push_back(ChartFromTable(
      daily, "cumulative_pnl", "Cumulative P&L (OCEAN)",
      {{"cash_pnl", "cash P&L", true}, {"profit", "profit on revealed predictions", true}}));
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
  return Status::Ok();
}

constexpr const char* kFeedColumns =
    "contract, pair, timeframe, source, predictoors, slots, slots_canceled, predictions, "
    "resolved, unrevealed, correct, accuracy, revealed_share, accuracy_low, accuracy_high, stake, "
    "settled_payout, cash_pnl, consensus_slots, consensus_accuracy, consensus_slot_accuracy, "
    "subscriptions, buyers, sales, revenue";

// Every feed (pdr_contracts and any contract with predictions or sales, so that none is dropped by
// a join), with the period's figures; `extra_where` narrows the feeds (uses $3).
std::string FeedsSql(bool one_feed) {
  const std::string extra_where = one_feed ? " WHERE contract = $3" : "";
  const std::string and_feed = one_feed ? " AND contract = $3" : "";
  return "WITH k AS (SELECT ID AS contract, pair, timeframe, source FROM pdr_contracts UNION "
         "SELECT contract, min(pair), min(timeframe), min(source) FROM serve_fd WHERE "
         "contract NOT IN (SELECT ID FROM pdr_contracts) GROUP BY contract UNION SELECT "
         "contract, min(pair), min(timeframe), min(source) FROM serve_sales WHERE "
         "contract NOT IN (SELECT ID FROM pdr_contracts) AND contract NOT IN (SELECT contract "
         "FROM serve_fd) GROUP BY contract), "
         "kk AS (SELECT contract, min(pair) AS pair, min(timeframe) AS timeframe, min(source) AS "
         "source FROM k" +
         extra_where +
         " GROUP BY contract), "
         "f AS (SELECT contract, CAST(sum(slots) AS BIGINT) AS slots, CAST(sum(slots_canceled) AS "
         "BIGINT) AS slots_canceled, " +
         MetricSums() +
         ", sum(revenue) AS revenue, CAST(sum(consensus_slots) AS BIGINT) AS consensus_slots, "
         "CAST(sum(consensus_correct_slots) AS BIGINT) AS consensus_correct_slots, "
         "sum(consensus_stake) AS consensus_stake, sum(consensus_correct_stake) AS "
         "consensus_correct_stake FROM serve_fd WHERE " +
         kDayInPeriod + and_feed +
         " GROUP BY contract), "
         "u AS (SELECT contract, CAST(count(DISTINCT user) AS BIGINT) AS predictoors FROM "
         "serve_pd WHERE " +
         kDayInPeriod + and_feed +
         " GROUP BY contract), "
         "s AS (SELECT contract, CAST(count(*) AS BIGINT) AS "
         "subscriptions, CAST(count(DISTINCT user) AS BIGINT) AS buyers, sum(last_price_value) "
         "AS sales FROM serve_subs WHERE " +
         SlotInPeriod("timestamp // 1000") + and_feed +
         " GROUP BY 1), "
         "j AS (SELECT kk.*, coalesce(u.predictoors, 0) AS predictoors, coalesce(f.slots, 0) AS "
         "slots, coalesce(f.slots_canceled, 0) AS slots_canceled, coalesce(f.predictions, 0) AS "
         "predictions, coalesce(f.resolved, 0) AS resolved, coalesce(f.unrevealed, 0) AS "
         "unrevealed, coalesce(f.correct, 0) AS correct, f.stake, f.settled_payout, f.cash_pnl, "
         "f.resolved_stake, f.profit, f.revenue, coalesce(f.consensus_slots, 0) AS "
         "consensus_slots, f.consensus_correct_slots, f.consensus_stake, "
         "f.consensus_correct_stake, coalesce(s.subscriptions, 0) AS subscriptions, "
         "coalesce(s.buyers, 0) AS buyers, coalesce(s.sales, 0::DECIMAL(38, 18)) AS sales FROM kk "
         "LEFT JOIN f ON f.contract = kk.contract LEFT JOIN u ON u.contract = kk.contract LEFT "
         "JOIN s ON s.contract = kk.contract), "
         "r AS (SELECT *, " +
         kRatios +
         ", CASE WHEN consensus_stake > 0 THEN CAST(consensus_correct_stake AS DOUBLE) / "
         "CAST(consensus_stake AS DOUBLE) END AS consensus_accuracy, CASE WHEN consensus_slots > 0 "
         "THEN consensus_correct_slots / consensus_slots END AS consensus_slot_accuracy FROM j) ";
}

const std::vector<std::string>& FeedSortKeys() {
  static const std::vector<std::string> keys = {
      "contract",    "pair",     "timeframe",          "predictoors",  "slots",
      "predictions", "accuracy", "revealed_share",     "stake",        "cash_pnl",
      "sales",       "revenue",  "consensus_accuracy", "subscriptions"};
  return keys;
}

constexpr const char* kFeedsNote =
    "Every feed, with or without sales. Consensus accuracy: the stake on the true side over the "
    "stake of the feed's paying slots with a trueval (canceled and zero-stake slots excluded); "
    "consensus_slot_accuracy: the share of those slots whose stake majority was right.";

Status FeedsPage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Feeds";
  RETURN_IF_ERROR(ResolveSort(page, FeedSortKeys(), "sales", "desc"));
  std::vector<BindValue> binds = cx.period_binds();
  ASSIGN_OR_RETURN(Table feeds, RunTable(cx.conn(), "feeds", "Feeds",
                                         FeedsSql(false) + "SELECT " + kFeedColumns +
                                             " FROM r ORDER BY " + OrderTerm(page) + ", contract",
                                         binds));
  feeds.sort_keys = FeedSortKeys();
  feeds.note = kFeedsNote;
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
  std::vector<std::string> keys = {"user"};
  for (const std::string& k : MetricSortKeys()) keys.push_back(k);
  RETURN_IF_ERROR(ResolveSort(page, keys, "cash_pnl", "desc"));
  std::vector<BindValue> binds = cx.period_binds();
  binds.emplace_back(contract);
  ASSIGN_OR_RETURN(Table summary,
                   RunTable(cx.conn(), "summary", "Summary",
                            FeedsSql(true) + "SELECT " + kFeedColumns + " FROM r", binds));
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
  ASSIGN_OR_RETURN(
      Table daily,
      RunTable(cx.conn(), "daily", "Per day",
               "WITH d AS (SELECT day FROM serve_fd WHERE " + std::string(kDayInPeriod) +
                   " AND contract = $3 UNION SELECT day FROM serve_sales WHERE " + kDayInPeriod +
                   " AND contract = $3), f AS (SELECT * FROM serve_fd WHERE " + kDayInPeriod +
                   " AND contract = $3), s AS (SELECT day, CAST(sum(subscriptions) AS "
                   "BIGINT) AS subscriptions, CAST(sum(buyers) AS BIGINT) AS buyers, sum(sales) "
                   "AS sales FROM serve_sales WHERE " +
                   kDayInPeriod +
                   " AND contract = $3 GROUP BY day) SELECT CAST(d.day AS VARCHAR) AS day, "
                   "coalesce(f.slots, 0) AS slots, coalesce(f.slots_canceled, 0) AS "
                   "slots_canceled, coalesce(f.predictions, 0) AS predictions, f.accuracy, "
                   "CASE WHEN f.consensus_stake > 0 THEN CAST(f.consensus_correct_stake AS DOUBLE) "
                   "/ CAST(f.consensus_stake AS DOUBLE) END AS consensus_accuracy, f.stake, "
                   "f.cash_pnl, coalesce(s.subscriptions, 0) AS subscriptions, coalesce(s.buyers, "
                   "0) AS buyers, coalesce(s.sales, 0::DECIMAL(38, 18)) AS sales, f.revenue FROM d "
                   "LEFT JOIN f ON f.day = d.day LEFT JOIN s ON s.day = d.day ORDER BY d.day",
               binds));
  daily.note = "buyers: distinct buyers of each day.";
  const std::string sub_where =
      " WHERE " + SlotInPeriod("timestamp // 1000") + " AND contract = $3";
  ASSIGN_OR_RETURN(
      Table buyers,
      RunTable(cx.conn(), "buyers", "Buyers",
               "SELECT user, CAST(count(*) AS BIGINT) AS subscriptions, sum(last_price_value) AS "
               "sales, " +
                   IsoFromMs("min(timestamp)") + " AS first_at, " + IsoFromMs("max(timestamp)") +
                   " AS last_at FROM serve_subs" + sub_where +
                   " GROUP BY user ORDER BY sales DESC NULLS LAST, user",
               binds));
  const std::string slot_where = " WHERE " + SlotInPeriod("slot") + " AND contract = $3";
  ASSIGN_OR_RETURN(
      Table canceled,
      RunTable(cx.conn(), "canceled", "Canceled slots (newest 100)",
               "SELECT " + IsoFromMs("slot * 1000") +
                   " AS slot_at, n_predictions, "
                   "predicted_stake, " +
                   IsoFromMs("deadline_timestamp") + " AS deadline_at FROM serve_slots" +
                   slot_where + " AND status = 'canceled' ORDER BY slot DESC LIMIT 100",
               binds));
  canceled.note = "A slot without a trueval by its deadline is canceled; its stakes are refunded.";
  ASSIGN_OR_RETURN(
      Table delay,
      RunTable(cx.conn(), "trueval_delay", "Trueval delay (seconds after the epoch's end)",
               "WITH d AS (SELECT (trueval_timestamp - (slot + seconds_per_epoch) * 1000) / "
               "1000.0 AS s FROM serve_slots" +
                   slot_where +
                   " AND trueval_timestamp IS NOT NULL) SELECT CAST(count(*) AS BIGINT) AS "
                   "slots, CAST(avg(s) AS DOUBLE) AS mean_s, CAST(quantile_cont(s, 0.5) AS "
                   "DOUBLE) AS median_s, CAST(quantile_cont(s, 0.95) AS DOUBLE) AS p95_s, "
                   "CAST(max(s) AS DOUBLE) AS max_s FROM d",
               binds));
  ASSIGN_OR_RETURN(
      Table top, RunTable(cx.conn(), "top_predictoors", "Top predictoors (by cash P&L)",
                          "WITH a AS (SELECT user, " + MetricSums() + " FROM serve_pd WHERE " +
                              kDayInPeriod + " AND contract = $3 GROUP BY user), b AS (SELECT *, " +
                              kRatios + " FROM a) SELECT user, " + kMetricColumns +
                              " FROM b ORDER BY " + OrderTerm(page) + ", user LIMIT 50",
                          binds));
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

Status RunsPage(PageContext& cx) {
  Page& page = cx.page;
  page.title = "Runs";
  const std::vector<std::string> keys = {"run_id", "command", "status", "started_at", "duration_s"};
  RETURN_IF_ERROR(ResolveSort(page, keys, "run_id", "desc"));
  page.notes.push_back(
      "The ledger as of the snapshot (the export that made it is the next run). Runs are listed "
      "whatever the period (the newest 200).");
  ASSIGN_OR_RETURN(
      Table runs,
      RunTable(cx.conn(), "runs", "Runs (newest 200)",
               "WITH r AS (SELECT run_id, command, status, " + IsoFromMsExact("started_at_ms") +
                   " AS started_at, " + IsoFromMsExact("ended_at_ms") +
                   " AS ended_at, (ended_at_ms - started_at_ms) / 1000.0 AS duration_s, " +
                   IsoFromMs("window_start_ms") + " AS window_start, " +
                   IsoFromMs("window_end_ms") + " AS window_end, " +
                   IsoFromMs("checkpoint_after_ms") +
                   " AS checkpoint_after, error FROM predlake_runs ORDER BY run_id DESC LIMIT 200) "
                   "SELECT run_id, command, status, started_at, ended_at, CAST(duration_s AS "
                   "DOUBLE) AS duration_s, window_start, window_end, checkpoint_after, error FROM "
                   "r ORDER BY " +
                   OrderTerm(page) + ", run_id DESC",
               {}));
  runs.sort_keys = keys;
  ASSIGN_OR_RETURN(
      Table failures,
      RunTable(cx.conn(), "failures", "Failed and aborted runs (newest 50)",
               "SELECT run_id, command, status, " + IsoFromMsExact("started_at_ms") +
                   " AS started_at, error FROM predlake_runs WHERE status IN ('failed', "
                   "'aborted') ORDER BY run_id DESC LIMIT 50",
               {}));
  ASSIGN_OR_RETURN(
      Table marks,
      RunTable(cx.conn(), "watermarks", "Raw tables: watermarks",
               "SELECT table_name, " + IsoFromMs("start_ms") + " AS start_at, " +
                   IsoFromMs("watermark_ms") + " AS watermark_at, " +
                   IsoFromMsExact("updated_at_ms") +
                   " AS updated_at, run_id FROM predlake_watermarks ORDER BY table_name",
               {}));
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

}  // namespace

Status NotFound(std::string message) { return Status(StatusCode::kValidation, std::move(message)); }

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

Result<PageParams> ParseParams(const std::multimap<std::string, std::string>& params, bool csv) {
  PageParams out;
  std::set<std::string> seen;
  for (const auto& [name, value] : params) {
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
    } else if (name == "table" && csv) {
      out.table = value;
    } else {
      return Status::Usage("unknown parameter '" + name + "' (period, sort, dir" +
                           (csv ? ", table" : "") + ")");
    }
  }
  if (csv && out.table.empty()) return Status::Usage("table: missing (the id of a table)");
  return out;
}

Period PeriodFor(const std::string& name, std::optional<int64_t> checkpoint_ms,
                 int64_t created_at_ms) {
  Period p;
  p.name = name;
  if (name == "all") {
    p.from_day = "1970-01-01";
    p.to_day = "9999-12-31";
    return p;
  }
  const int64_t anchor_ms = checkpoint_ms ? *checkpoint_ms - 1 : created_at_ms;
  const int64_t last = DayStartMs(anchor_ms);
  const int64_t days = name == "1d" ? 1 : name == "1m" ? 30 : 7;
  p.from_day = FormatDay(last - (days - 1) * kDayMs);
  p.to_day = FormatDay(last);
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
  ASSIGN_OR_RETURN(
      duck::QueryResult streams,
      lake.conn().Query(
          "SELECT w.table_name, coalesce(s.status, 'not fetched'), w.watermark_ms, s.error, "
          "s.failing_since_ms, (SELECT count(*) FROM predlake_candle_gaps AS g WHERE g.stream = "
          "w.table_name) FROM predlake_watermarks AS w LEFT JOIN predlake_ohlcv_streams AS s ON "
          "s.stream = w.table_name WHERE w.table_name LIKE 'pdr_ohlcv:%' ORDER BY 1",
          "serve: the candle streams"));
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
  ASSIGN_OR_RETURN(
      duck::QueryResult last,
      lake.conn().Query("SELECT run_id, command, status, coalesce(ended_at_ms, started_at_ms) "
                        "FROM predlake_runs ORDER BY run_id DESC LIMIT 1",
                        "serve: the last run"));
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

// The snapshot's tables as views, like exports::OpenSnapshot, except that a column this build's
// lake has and the snapshot's files lack (a snapshot written before a column was added, which the
// layout allows: docs/export.md, "Compatibility") reads as NULL instead of failing the snapshot.
Result<std::unique_ptr<lake::Lake>> OpenSnapshotTolerant(const std::string& lake_dir,
                                                         const exports::Snapshot& snapshot,
                                                         const Clock* clock) {
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake, lake::Lake::OpenEmpty(lake_dir, clock));
  duck::Connection& conn = lake->conn();
  for (const auto& t : exports::ManifestArray(snapshot.manifest, "tables")) {
    const std::string name = t.value("name", "");
    std::vector<std::string> files = exports::SnapshotFiles(snapshot, name);
    if (name.empty() || files.empty()) continue;  // the empty table of the lake's schema stays
    std::set<std::string> in_files;
    for (const auto& c : exports::ManifestArray(t, "schema")) {
      in_files.insert(c.value("name", ""));
    }
    std::error_code ec;
    std::string list;
    for (const std::string& file : files) {
      if (!std::filesystem::exists(file, ec)) {
        return Status::Data("the snapshot " + snapshot.dir + " lacks " + file +
                            " (removed after its grace period?)");
      }
      list += (list.empty() ? "" : ", ") + duck::QuoteString(file);
    }
    ASSIGN_OR_RETURN(duck::Prepared cols_stmt,
                     conn.Prepare("SELECT column_name, data_type FROM information_schema.columns "
                                  "WHERE table_schema = 'main' AND table_name = $1 ORDER BY "
                                  "ordinal_position",
                                  "serve: read the schema of " + name));
    RETURN_IF_ERROR(cols_stmt.Bind(1, std::string_view(name)));
    ASSIGN_OR_RETURN(duck::QueryResult cols, cols_stmt.Execute());
    std::string select;
    for (const auto& row : cols.ToText()) {
      if (row.size() < 2 || !row[0]) continue;
      const std::string col = duck::QuoteIdent(*row[0]);
      const bool known = in_files.empty() || in_files.count(*row[0]) > 0;
      select += (select.empty() ? "" : ", ") +
                (known ? col : "CAST(NULL AS " + row[1].value_or("VARCHAR") + ") AS " + col);
    }
    if (select.empty()) select = "*";
    RETURN_IF_ERROR(conn.Execute("DROP TABLE IF EXISTS " + duck::QuoteIdent(name) +
                                     "; CREATE VIEW " + duck::QuoteIdent(name) + " AS SELECT " +
                                     select + " FROM read_parquet([" + list +
                                     "], hive_partitioning = false)",
                                 "serve: open the snapshot's " + name));
  }
  return lake;
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

Result<std::shared_ptr<SnapshotEntry>> OpenEntry(const std::string& lake_dir,
                                                 exports::Snapshot snapshot, const Clock* clock,
                                                 const std::string& exports_dir) {
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake,
                   OpenSnapshotTolerant(lake_dir, snapshot, clock));
  duck::Connection& conn = lake->conn();
  // Before the seal locks the configuration: a bounded database, Parquet footers cached.
  RETURN_IF_ERROR(
      conn.Execute("SET threads = 2; SET memory_limit = '2GB'; SET parquet_metadata_cache = true;",
                   "serve: configure the snapshot's database"));
  RETURN_IF_ERROR(CreateServeTables(
      conn, SnapshotHasColumn(snapshot, "gold_predictoor_daily", "cash_pnl") &&
                SnapshotHasColumn(snapshot, "gold_feed_daily", "consensus_stake")));
  RETURN_IF_ERROR(duck::Seal(conn, duck::Reach::kSealedReadFiles, {exports_dir}));
  auto entry = std::make_shared<SnapshotEntry>();
  ASSIGN_OR_RETURN(entry->freshness, SnapshotFacts(*lake, snapshot));
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
                 PeriodFor(params.period, checkpoint, view.snapshot().created_at_ms)};
  page.period =
      Json{{"name", cx.period.name},
           {"from_day", cx.period.name == "all" ? Json(nullptr) : Json(cx.period.from_day)},
           {"to_day", cx.period.name == "all" ? Json(nullptr) : Json(cx.period.to_day)}};
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
  } else {
    return NotFound("no page " + p);
  }
  return page;
}

}  // namespace predlake::serve
