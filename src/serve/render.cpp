// The pages as HTML (the conventions docs/serve.md lists, which src/web's dashboard.js and the
// browser test rely on), JSON (the API) and CSV.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "serve/pages.hpp"

namespace predlake::serve {
namespace {

const std::map<std::string, std::string>& RenderLabels() {
  static const std::map<std::string, std::string> labels = {
      {"rank", "Rank"},
      {"user", "Predictoor"},
      {"mine", "Mine"},
      {"feeds", "Feeds"},
      {"predictions", "Predictions"},
      {"resolved", "Resolved"},
      {"unrevealed", "Unrevealed"},
      {"correct", "Correct"},
      {"accuracy", "Accuracy (revealed)"},
      {"revealed_share", "Revealed share"},
      {"accuracy_low", "Accuracy low bound"},
      {"accuracy_high", "Accuracy high bound"},
      {"stake", "Stake"},
      {"settled_stake", "Stake in paying slots"},
      {"settled_payout", "Payouts received"},
      {"cash_pnl", "Cash P&L"},
      {"resolved_stake", "Resolved stake"},
      {"profit", "Profit (revealed)"},
      {"roi", "ROI (revealed)"},
      {"cash_roi", "ROI"},
      {"apr", "Annualised ROI"},
      {"days_active", "Days active"},
      {"match", "Match"},
      {"unrevealed_stake", "Unrevealed stake"},
      {"refund_pending", "Unclaimed refunds"},
      {"refund_claimed", "Claimed refunds"},
      {"contract", "Feed contract"},
      {"pair", "Pair"},
      {"timeframe", "Timeframe"},
      {"source", "Source"},
      {"predictoors", "Predictoors"},
      {"active_feeds", "Feeds with predictions"},
      {"slots", "Slots"},
      {"slots_canceled", "Canceled slots"},
      {"consensus_slots", "Consensus slots"},
      {"consensus_accuracy", "Consensus accuracy (stake)"},
      {"consensus_slot_accuracy", "Consensus accuracy (slots)"},
      {"subscriptions", "Subscriptions"},
      {"buyers", "Buyers"},
      {"sales", "Sales"},
      {"revenue", "Slot revenue"},
      {"day", "Day"},
      {"run_id", "Run"},
      {"command", "Command"},
      {"status", "Status"},
      {"started_at", "Started"},
      {"ended_at", "Ended"},
      {"duration_s", "Seconds"},
      {"window_start", "Window start"},
      {"window_end", "Window end"},
      {"checkpoint_after", "Checkpoint after"},
      {"error", "Error"},
      {"table_name", "Table"},
      {"start_at", "Start"},
      {"watermark_at", "Watermark"},
      {"updated_at", "Updated"},
      {"kind", "Kind"},
      {"rows", "Rows"},
      {"slot_at", "Slot"},
      {"predvalue", "Predicted up"},
      {"truevalue", "True up"},
      {"payout", "Payout"},
      {"unclaimed_predictions", "Unclaimed predictions"},
      {"unclaimed_stake", "Their stake"},
      {"awaiting_trueval", "Awaiting trueval"},
      {"awaiting_trueval_stake", "Their stake"},
      {"awaiting_claim", "Awaiting claim"},
      {"awaiting_claim_stake", "Their stake"},
      {"refunds_pending", "Unclaimed refunds (count)"},
      {"first_at", "First"},
      {"last_at", "Last"},
      {"n_predictions", "Predictions"},
      {"predicted_stake", "Stake"},
      {"deadline_at", "Deadline"},
      {"mean_s", "Mean"},
      {"median_s", "Median"},
      {"p95_s", "95th percentile"},
      {"max_s", "Max"},
      {"id", "Prediction"},
  };
  return labels;
}

std::string LabelFor(const std::string& col) {
  auto it = RenderLabels().find(col);
  return it != RenderLabels().end() ? it->second : col;
}

bool IsRatioColumn(const std::string& col) {
  return col == "accuracy" || col == "revealed_share" || col == "accuracy_low" ||
         col == "accuracy_high" || col == "roi" || col == "cash_roi" || col == "apr" ||
         col == "consensus_accuracy" || col == "consensus_slot_accuracy";
}

bool LooksDecimal(const std::string& s) {
  if (s.empty()) return false;
  bool dot = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '-' && i == 0) continue;
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') return false;
  }
  return dot;
}

// The text a cell shows (the exact value is in data-value).
std::string DisplayText(const std::string& col, const Json& v) {
  if (v.is_null()) return "\xE2\x80\x94";  // an em dash
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number()) {
    const double d = v.get<double>();
    if (IsRatioColumn(col)) return fmt::format("{:.1f}%", d * 100);
    return fmt::format("{:.2f}", d);
  }
  const std::string s = v.get<std::string>();
  if (LooksDecimal(s)) {
    try {
      return fmt::format("{:.4f}", std::stod(s));
    } catch (...) {
      return s;
    }
  }
  return s;
}

// The exact value as text: a JSON string's content, or a number's JSON text.
std::string DataValue(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string UrlEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string ApiPath(const std::string& prefix, const std::string& path) {
  return prefix + (path == "/" ? "/" : path);
}

std::string WithQuery(const std::string& path, const std::string& query) {
  return query.empty() ? path : path + "?" + query;
}

// A JSON text safe inside <script>: "</" cannot close the element.
std::string ScriptJson(const Json& j) {
  std::string text = j.dump();
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '!')) {
      out += "\\u003c";
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string FreshnessText(const Json& f, const char* key) {
  if (!f.contains(key) || f[key].is_null()) return "none";
  if (f[key].is_string()) return f[key].get<std::string>();
  return f[key].dump();
}

void RenderFreshness(const Page& page, std::string& out) {
  const Json& f = page.freshness;
  std::string last_run = "none";
  if (f.contains("last_run") && f["last_run"].is_object()) {
    const Json& r = f["last_run"];
    last_run = fmt::format("#{} {} {}", r.value("run_id", int64_t{0}), r.value("command", ""),
                           r.value("status", ""));
    if (r.contains("at") && r["at"].is_string()) last_run += " at " + r["at"].get<std::string>();
  }
  const int64_t age = f.value("snapshot_age_s", int64_t{0});
  const std::string age_text = age >= 3600 ? fmt::format("{}h {}m", age / 3600, age / 60 % 60)
                               : age >= 60 ? fmt::format("{}m {}s", age / 60, age % 60)
                                           : fmt::format("{}s", age);
  out += "<header class=\"pl-freshness\">";
  out += "<span class=\"pl-fact\">Checkpoint <span data-field=\"checkpoint\">" +
         HtmlEscape(FreshnessText(f, "checkpoint")) + "</span></span> ";
  out += "<span class=\"pl-fact\">Frontier <span data-field=\"frontier\">" +
         HtmlEscape(FreshnessText(f, "frontier")) +
         "</span>, held back by <span "
         "data-field=\"holding_back\">" +
         HtmlEscape(FreshnessText(f, "holding_back")) + "</span></span> ";
  out += "<span class=\"pl-fact\">Last run <span data-field=\"last_run\">" + HtmlEscape(last_run) +
         "</span></span> ";
  if (f.contains("candle_streams") && f["candle_streams"].is_array() &&
      !f["candle_streams"].empty()) {
    // A failing exchange never stops the lake (docs/ohlcv.md): say which streams lack candles.
    const Json& streams = f["candle_streams"];
    int64_t failing = 0, aside = 0;
    std::string first_error, since;
    for (const Json& c : streams) {
      const std::string status = c.value("status", "");
      if (status == "ok") continue;
      (status == "set_aside" ? aside : failing) += 1;
      if (first_error.empty() && c["error"].is_string())
        first_error = c["error"].get<std::string>();
      if (since.empty() && c["failing_since"].is_string()) {
        since = c["failing_since"].get<std::string>();
      }
    }
    const int64_t total = static_cast<int64_t>(streams.size());
    std::string text;
    if (failing == 0 && aside == 0) {
      text = fmt::format("all {} streams ok", total);
    } else {
      text = fmt::format("{} of {} streams failing", failing, total);
      if (aside > 0) text += fmt::format(", {} set aside", aside);
      if (!since.empty()) text += " since " + since;
      if (!first_error.empty()) text += ": " + first_error.substr(0, 160);
    }
    out += std::string("<span class=\"pl-fact") + (failing + aside > 0 ? " pl-warn" : "") +
           "\">Candles <span data-field=\"candle_streams\">" + HtmlEscape(text) + "</span></span> ";
  }
  out += "<span class=\"pl-fact\">Snapshot <span data-field=\"snapshot_run\">run " +
         std::to_string(f.value("snapshot_run", int64_t{0})) +
         "</span>, age <span data-field=\"snapshot_age\">" + HtmlEscape(age_text) +
         "</span></span>";
  out += "</header>\n";
}

void RenderPeriods(const Page& page, std::string& out) {
  out += "<nav class=\"pl-period\">";
  const std::pair<const char*, const char*> periods[] = {
      {"1d", "1D"}, {"1w", "1W"}, {"1m", "1M"}, {"all", "All"}};
  for (const auto& [name, label] : periods) {
    out += "<a href=\"" + HtmlEscape(WithQuery(page.path, QueryString(page, {{"period", name}}))) +
           "\"" + (page.params.period == name ? " aria-current=\"true\"" : "") + ">" + label +
           "</a> ";
  }
  const Json& p = page.period;
  if (p.contains("label") && p["label"].is_string() && !p["label"].get<std::string>().empty()) {
    out +=
        "<span class=\"pl-period-days\">" + HtmlEscape(p["label"].get<std::string>()) + "</span>";
  } else if (p.contains("from_day") && p["from_day"].is_string()) {
    out += "<span class=\"pl-period-days\">" + HtmlEscape(p["from_day"].get<std::string>()) +
           " to " + HtmlEscape(p["to_day"].get<std::string>()) + " (UTC slot days)</span>";
  } else {
    out += "<span class=\"pl-period-days\">every day</span>";
  }
  out += "</nav>\n";
}

void RenderChart(const Chart& c, std::string& out) {
  out += "<figure class=\"pl-chart\" id=\"" + HtmlEscape(c.id) + "\"><figcaption>" +
         HtmlEscape(c.title) + "</figcaption><script type=\"application/json\">" +
         ScriptJson(c.data) + "</script>";
  // What the chart holds that is not final, said in words (also without the script).
  if (c.data.contains("partial") && c.data["partial"].is_object()) {
    const std::string to = c.data["partial"].value("to", "");
    out += "<p class=\"pl-chart-note pl-partial-note\">The last day holds data to " +
           HtmlEscape(to.size() >= 16 ? to.substr(11, 5) + " UTC" : to) +
           " (partial): drawn dashed; a per-day total there is drawn at its pace for a whole day "
           "(the legend and the tables give the value so far).</p>";
  }
  if (c.data.contains("note") && c.data["note"].is_string()) {
    out += "<p class=\"pl-chart-note\">" + HtmlEscape(c.data["note"].get<std::string>()) + "</p>";
  }
  out += "</figure>\n";
}

// Links to related views (e.g. compare the first rows), above the tables.
void RenderActions(const Page& page, std::string& out) {
  if (page.actions.empty()) return;
  out += "<p class=\"pl-actions\">";
  for (const auto& [href, text] : page.actions) {
    out += "<a class=\"pl-action\" href=\"" + HtmlEscape(href) + "\">" + HtmlEscape(text) + "</a> ";
  }
  out += "</p>\n";
}

// The partial last day in a `day` cell: the minute its data holds to.
std::string PartialDayMark(const Page& page, const std::string& col, const Json& v) {
  const Json& p = page.period;
  if (col != "day" || !v.is_string() || !p.contains("partial_day") ||
      !p["partial_day"].is_string() || p["partial_day"] != v) {
    return "";
  }
  const std::string to = p.value("holds_to", "");
  return " <span class=\"pl-partial\" title=\"This day's data ends at " + HtmlEscape(to) +
         "\">to " + HtmlEscape(to.size() >= 16 ? to.substr(11, 5) : to) + " UTC (partial)</span>";
}

// ---- The tables' parts: column definitions, "more columns", paging, filters, search.

// A table the HTML pages itself (no page= in the URL, more rows than a page): its data-api and
// data-csv name page 1, the rows it shows.
bool PagedByHtml(const Page& page, const Table& t) {
  return t.total_rows > t.per_page && t.per_page > 0 && page.params.page_no == 0;
}

std::string TableQuery(const Page& page, const Table& t) {
  return PagedByHtml(page, t) ? QueryString(page, {{"page", "1"}}) : QueryString(page);
}

std::pair<size_t, size_t> ShownRows(const Page& page, const Table& t) {
  if (!PagedByHtml(page, t)) return {0, t.rows.size()};
  return {0, std::min(t.rows.size(), static_cast<size_t>(t.per_page))};
}

// Whether `col` waits behind "more columns": not one the table shows first, and not the column the
// page is sorted by (a sorted column is always shown).
bool IsMoreColumn(const Page& page, const Table& t, const std::string& col) {
  if (IsMainColumn(page.path, t.id, col)) return false;
  return !(col == page.sort &&
           std::find(t.sort_keys.begin(), t.sort_keys.end(), col) != t.sort_keys.end());
}

std::string MoreClass(const Page& page, const Table& t, const std::string& col) {
  return IsMoreColumn(page, t, col) ? " class=\"pl-more\"" : "";
}

std::string DefinitionId(const Table& t, const std::string& col) {
  return "def-" + t.id + "-" + col;
}

std::string DescribedBy(const Table& t, const std::string& col) {
  if (FindColumnDef(col) == nullptr) return "";
  return " aria-describedby=\"" + HtmlEscape(DefinitionId(t, col)) + "\"";
}

// The column's definition (columns.cpp, the same text as docs/serve.md), shown on hover and focus.
std::string ColumnDefinition(const Table& t, const std::string& col) {
  const ColumnDef* def = FindColumnDef(col);
  if (def == nullptr) return "";
  return "<span class=\"pl-def\" role=\"tooltip\" id=\"" + HtmlEscape(DefinitionId(t, col)) +
         "\">" + HtmlEscape(def->definition) + "</span>";
}

// "0x1234…cdef" (the full address is the link's title and the cell's data-value).
std::string ShortAddress(const std::string& address) {
  if (address.size() != 42) return address;
  return address.substr(0, 6) + "\xE2\x80\xA6" + address.substr(38);
}

std::string NoPredictionsBadge(const Page& page, const std::string& address) {
  if (std::find(page.unknown_mine.begin(), page.unknown_mine.end(), address) ==
      page.unknown_mine.end()) {
    return "";
  }
  return " <span class=\"pl-badge\">no predictions yet</span>";
}

// "<tr>", or "<tr class=\"pl-mine\">" for a row of predictoor_ss.my_addresses (pinned first).
std::string RowOpen(const Table& t, const std::vector<Json>& row) {
  for (size_t c = 0; c < t.columns.size() && c < row.size(); ++c) {
    if (t.columns[c] == "mine" && row[c].is_boolean() && row[c].get<bool>()) {
      return "<tr class=\"pl-mine\">";
    }
  }
  return "<tr>";
}

// The "more columns" switch: a checkbox before the table that CSS reads (no script needed);
// cols=all starts it on.
void RenderMoreToggle(const Page& page, const Table& t, std::string& out) {
  size_t more = 0;
  for (const std::string& col : t.columns) more += IsMoreColumn(page, t, col) ? 1 : 0;
  if (more == 0) return;
  const std::string id = "more-" + t.id;
  out += "<input type=\"checkbox\" class=\"pl-more-toggle\" id=\"" + HtmlEscape(id) + "\"" +
         (page.params.all_columns ? " checked" : "") + "><label class=\"pl-more-label\" for=\"" +
         HtmlEscape(id) + "\">" + fmt::format("More columns ({})", more) + "</label>\n";
}

// Picking rows for /compare (Page::pick_table): a GET form above the table, which each row's
// checkbox joins through its form attribute (a form cannot hold the table's other forms and
// links). More than kMaxCompared, or none, is /compare's 400; dashboard.js disables the rest at
// kMaxCompared and the button at none.
std::string PickFormId(const Table& t) { return "compare-" + t.id; }

void RenderPickForm(const Page& page, const Table& t, std::string& out) {
  if (page.pick_table != t.id) return;
  out += "<form class=\"pl-compare\" id=\"" + HtmlEscape(PickFormId(t)) +
         "\" method=\"get\" action=\"/compare\" data-max=\"" + std::to_string(kMaxCompared) + "\">";
  if (page.params.period != "1w") {
    out +=
        "<input type=\"hidden\" name=\"period\" value=\"" + HtmlEscape(page.params.period) + "\">";
  }
  out += fmt::format(
      "<button type=\"submit\">Compare selected</button> <span class=\"pl-compare-hint\">tick "
      "up to {} rows</span></form>\n",
      kMaxCompared);
}

// The checkbox of a row's `col` cell holding `address`, when the table's rows can be picked.
std::string PickBox(const Page& page, const Table& t, const std::string& col,
                    const std::string& address) {
  const bool item =
      (t.id == "predictoors" && col == "user") || (t.id == "feeds" && col == "contract");
  if (page.pick_table != t.id || !item ||
      std::find(page.unknown_mine.begin(), page.unknown_mine.end(), address) !=
          page.unknown_mine.end()) {
    return "";
  }
  return "<input type=\"checkbox\" class=\"pl-pick\" name=\"a\" value=\"" + HtmlEscape(address) +
         "\" form=\"" + HtmlEscape(PickFormId(t)) + "\" aria-label=\"Compare " +
         HtmlEscape(address) + "\"> ";
}

void RenderPaging(const Page& page, const Table& t, std::string& out) {
  if (t.total_rows < 0) return;
  const auto [from, to] = ShownRows(page, t);
  const int64_t first = (t.page_no - 1) * t.per_page;
  const int64_t shown = static_cast<int64_t>(to - from);
  const int64_t pages = std::max<int64_t>(1, (t.total_rows + t.per_page - 1) / t.per_page);
  out += "<nav class=\"pl-paging\" aria-label=\"" + HtmlEscape(t.title) + " pages\">";
  out += "<span class=\"pl-count\" data-total=\"" + std::to_string(t.total_rows) + "\">";
  out += shown == t.total_rows
             ? fmt::format("{} row{}", t.total_rows, t.total_rows == 1 ? "" : "s")
             : fmt::format("Rows {} to {} of {}", first + 1, first + shown, t.total_rows);
  out += "</span>";
  if (pages > 1) {
    auto link = [&](int64_t n, const std::string& text, const char* rel) {
      const std::string href =
          WithQuery(page.path, QueryString(page, {{"page", std::to_string(n)}}));
      out += std::string(" <a href=\"") + HtmlEscape(href) + "\"" +
             (n == t.page_no ? " aria-current=\"page\"" : "") +
             (*rel ? std::string(" rel=\"") + rel + "\"" : "") + ">" + text + "</a>";
    };
    if (t.page_no > 1) link(t.page_no - 1, "\xE2\x80\xB9 Previous", "prev");
    for (int64_t n = 1; n <= pages; ++n) {
      if (pages > 9 && n > 2 && n < pages - 1 && std::abs(n - t.page_no) > 2) {
        if (n == 3 || n == pages - 2) out += " \xE2\x80\xA6";
        continue;
      }
      link(n, std::to_string(n), "");
    }
    if (t.page_no < pages) link(t.page_no + 1, "Next \xE2\x80\xBA", "next");
  }
  out += "</nav>\n";
}

std::string GivenParam(const Page& page, const char* name) {
  auto it = page.params.given.find(name);
  return it == page.params.given.end() ? "" : it->second;
}

// The Predictoors and Feeds pages' filters: a GET form with the current values; the page's other
// state rides along in hidden fields.
void RenderFilters(const Page& page, std::string& out) {
  if (!page.filters) return;
  // Folded away until a filter is set (the form is long on a phone).
  bool any = false;
  for (const char* name :
       {"min_predictions", "min_stake", "acc_min", "acc_max", "pair", "timeframe", "exchange"}) {
    any = any || !GivenParam(page, name).empty();
  }
  out += std::string("<details class=\"pl-filters-box\"") + (any ? " open" : "") +
         "><summary>Filters</summary>";
  out += "<form class=\"pl-filters\" method=\"get\" action=\"" + HtmlEscape(page.path) + "\">";
  auto hidden = [&](const char* name, const std::string& value) {
    if (value.empty()) return;
    out += std::string("<input type=\"hidden\" name=\"") + name + "\" value=\"" +
           HtmlEscape(value) + "\">";
  };
  hidden("period", page.params.period == "1w" ? "" : page.params.period);
  hidden("sort", page.params.sort);
  hidden("dir", page.params.dir);
  hidden("cols", GivenParam(page, "cols"));
  auto field = [&](const char* name, const char* label, const char* attrs, const char* after) {
    out += std::string("<label>") + label + " <input name=\"" + name + "\" " + attrs + " value=\"" +
           HtmlEscape(GivenParam(page, name)) + "\">" + after + "</label> ";
  };
  field("min_predictions", "Min. predictions", "type=\"number\" min=\"0\" step=\"1\" size=\"6\"",
        "");
  field("min_stake", "Min. stake", "inputmode=\"decimal\" size=\"8\" placeholder=\"OCEAN\"", "");
  field("acc_min", "Accuracy from", "type=\"number\" min=\"0\" max=\"100\" step=\"any\" size=\"4\"",
        "%");
  field("acc_max", "to", "type=\"number\" min=\"0\" max=\"100\" step=\"any\" size=\"4\"", "%");
  field("pair", "Pair", "size=\"9\" placeholder=\"BTC/USDT\"", "");
  field("timeframe", "Timeframe", "size=\"3\" placeholder=\"5m\"", "");
  field("exchange", "Exchange", "size=\"8\" placeholder=\"binance\"", "");
  out +=
      "<button type=\"submit\">Filter</button> <a class=\"pl-clear\" href=\"" +
      HtmlEscape(WithQuery(
          page.path, page.params.period == "1w" ? "" : "period=" + UrlEncode(page.params.period))) +
      "\">Clear</a></form></details>\n";
}

void RenderTable(const Page& page, const Table& t, std::string& out) {
  const std::string query = TableQuery(page, t);
  const std::string api = WithQuery(ApiPath("/api", page.path), query);
  const std::string csv = WithQuery(
      ApiPath("/csv", page.path), "table=" + UrlEncode(t.id) + (query.empty() ? "" : "&" + query));
  out += "<section class=\"pl-section\"><h2>" + HtmlEscape(t.title) + "</h2>";
  if (!t.note.empty()) out += "<p class=\"pl-note\">" + HtmlEscape(t.note) + "</p>";
  out += "<a class=\"pl-csv\" href=\"" + HtmlEscape(csv) + "\">CSV</a>\n";
  RenderPickForm(page, t, out);
  RenderMoreToggle(page, t, out);
  out += "<table class=\"pl-table\" id=\"" + HtmlEscape(t.id) + "\" data-api=\"" + HtmlEscape(api) +
         "\" data-csv=\"" + HtmlEscape(csv) + "\"><thead><tr>";
  for (const std::string& col : t.columns) {
    out += "<th data-col=\"" + HtmlEscape(col) + "\"" + MoreClass(page, t, col) + ">";
    const bool sortable =
        std::find(t.sort_keys.begin(), t.sort_keys.end(), col) != t.sort_keys.end();
    if (sortable) {
      const bool current = page.sort == col;
      const std::string dir = current && page.dir == "desc" ? "asc" : "desc";
      const std::string href =
          WithQuery(page.path, QueryString(page, {{"sort", col}, {"dir", dir}}));
      out += "<a href=\"" + HtmlEscape(href) + "\"" +
             (current ? std::string(" aria-sort=\"") +
                            (page.dir == "asc" ? "ascending" : "descending") + "\""
                      : "") +
             DescribedBy(t, col) + ">" + HtmlEscape(LabelFor(col)) +
             (current ? (page.dir == "asc" ? " ▲" : " ▼") : "") + "</a>";
    } else {
      out += "<span class=\"pl-colname\" tabindex=\"0\"" + DescribedBy(t, col) + ">" +
             HtmlEscape(LabelFor(col)) + "</span>";
    }
    out += ColumnDefinition(t, col) + "</th>";
  }
  out += "</tr></thead><tbody>\n";
  const std::string period_query =
      page.params.period == "1w" ? "" : "?period=" + UrlEncode(page.params.period);
  const auto [row_from, row_to] = ShownRows(page, t);
  for (size_t r = row_from; r < row_to; ++r) {
    const auto& row = t.rows[r];
    out += RowOpen(t, row);
    for (size_t c = 0; c < t.columns.size() && c < row.size(); ++c) {
      const std::string& col = t.columns[c];
      const Json& v = row[c];
      out += "<td data-col=\"" + HtmlEscape(col) + "\"" + MoreClass(page, t, col);
      if (v.is_null()) {
        out += " data-null=\"true\">";
      } else {
        out += " data-value=\"" + HtmlEscape(DataValue(v)) + "\">";
      }
      std::string text = HtmlEscape(DisplayText(col, v));
      if (v.is_string() && v.get<std::string>().rfind("0x", 0) == 0 &&
          v.get<std::string>().size() == 42 &&
          ((col == "user" && t.id != "buyers") || col == "contract")) {  // buyers need not predict
        const std::string base = col == "user" ? "/predictoor/" : "/feed/";
        text = PickBox(page, t, col, v.get<std::string>()) + "<a href=\"" +
               HtmlEscape(base + v.get<std::string>() + period_query) + "\" title=\"" + text +
               "\">" + ShortAddress(text) + "</a>";
        if (col == "user") text += NoPredictionsBadge(page, v.get<std::string>());
      }
      out += text + PartialDayMark(page, col, v) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>";
  RenderPaging(page, t, out);
  out += "</section>\n";
}

// The nav link of the section `path` belongs to (a detail page to its list).
std::string NavCurrent(const std::string& path, const std::string& link) {
  const bool current = link == "/"
                           ? path == "/"
                           : path == link ||
                                 (link == "/predictoors" && path.rfind("/predictoor/", 0) == 0) ||
                                 (link == "/feeds" && path.rfind("/feed/", 0) == 0);
  return current ? " aria-current=\"page\"" : "";
}

// The search box of every page: a GET form to /search (docs/serve.md, "Search").
std::string SearchForm(const std::string& period, const std::string& q) {
  return "<form class=\"pl-search\" role=\"search\" method=\"get\" action=\"/search\">"
         "<input type=\"search\" name=\"q\" value=\"" +
         HtmlEscape(q) +
         "\" placeholder=\"Address (4+ hex) or pair\" aria-label=\"Find a predictoor or a feed: an "
         "address (at least 4 hexadecimal digits) or a pair\">" +
         (period.empty() || period == "1w"
              ? ""
              : "<input type=\"hidden\" name=\"period\" value=\"" + HtmlEscape(period) + "\">") +
         "<button type=\"submit\">Find</button></form>";
}

void RenderHead(const std::string& title, const std::string& period, std::string& out,
                const std::string& path = "", const std::string& q = "") {
  // The nav keeps the period (the pages' other state belongs to one page).
  const std::string query = period.empty() || period == "1w" ? "" : "?period=" + UrlEncode(period);
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>" +
      HtmlEscape(title) +
      " · predlake</title><link rel=\"icon\" href=\"data:,\">"
      "<link rel=\"stylesheet\" href=\"/assets/uplot.css\">"
      "<link rel=\"stylesheet\" href=\"/assets/dashboard.css\">"
      "<script src=\"/assets/uplot.js\" defer></script>"
      "<script src=\"/assets/dashboard.js\" defer></script>"
      "</head><body>\n"
      "<nav class=\"pl-nav\"><a href=\"/" +
      query + "\"" + NavCurrent(path, "/") + ">Overview</a> <a href=\"/predictoors" + query + "\"" +
      NavCurrent(path, "/predictoors") + ">Predictoors</a> <a href=\"/feeds" + query + "\"" +
      NavCurrent(path, "/feeds") + ">Feeds</a> <a href=\"/runs" + query + "\"" +
      NavCurrent(path, "/runs") + ">Runs</a> " + SearchForm(period, q) + "</nav>\n";
}

std::string CsvField(const Json& v) {
  if (v.is_null()) return "";
  const std::string s = DataValue(v);
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string QueryString(const Page& page, const std::map<std::string, std::string>& override) {
  std::map<std::string, std::string> state;
  state["period"] = page.params.period;
  if (!page.params.sort.empty()) state["sort"] = page.params.sort;
  if (!page.params.dir.empty()) state["dir"] = page.params.dir;
  for (const auto& [k, v] : page.params.given) state[k] = v;
  // A new sort or period starts at the first page.
  if (override.count("sort") != 0 || override.count("period") != 0) state.erase("page");
  for (const auto& [k, v] : override) state[k] = v;
  std::vector<std::string> keys = {"period", "sort", "dir"};
  for (const std::string& name : TableParamNames()) keys.push_back(name);
  std::string out;
  for (const std::string& key : keys) {
    auto it = state.find(key);
    if (it == state.end() || it->second.empty()) continue;  // "" removes
    out += (out.empty() ? "" : "&") + key + "=" + UrlEncode(it->second);
  }
  for (const std::string& a : page.params.compare) out += "&a=" + UrlEncode(a);
  return out;
}

std::string RenderHtml(const Page& page) {
  std::string out;
  out.reserve(64 * 1024);
  RenderHead(page.title, page.params.period, out, page.path, page.params.q);
  RenderFreshness(page, out);
  out += "<main><h1>" + HtmlEscape(page.title) + "</h1>\n";
  RenderPeriods(page, out);
  RenderFilters(page, out);
  for (const std::string& note : page.notes) {
    out += "<p class=\"pl-note\">" + HtmlEscape(note) + "</p>\n";
  }
  RenderActions(page, out);
  for (const Chart& c : page.charts) RenderChart(c, out);
  for (const Table& t : page.tables) RenderTable(page, t, out);
  out += "</main></body></html>\n";
  return out;
}

Json RenderJson(const Page& page) {
  Json j = Json::object();
  j["page"] = page.path;
  j["title"] = page.title;
  j["period"] = page.period;
  j["sort"] = Json{{"key", page.sort}, {"dir", page.dir}};
  j["freshness"] = page.freshness;
  Json tables = Json::object();
  for (const Table& t : page.tables) {
    Json rows = Json::array();
    for (const auto& row : t.rows) rows.push_back(Json(row));
    tables[t.id] = Json{{"columns", t.columns}, {"rows", std::move(rows)}};
    if (t.total_rows >= 0) {
      tables[t.id]["paging"] = Json{{"page", page.params.page_no == 0 ? 0 : t.page_no},
                                    {"per_page", t.per_page},
                                    {"total_rows", t.total_rows}};
    }
  }
  j["tables"] = std::move(tables);
  Json charts = Json::object();
  for (const Chart& c : page.charts) charts[c.id] = c.data;
  j["charts"] = std::move(charts);
  return j;
}

Result<std::string> RenderCsv(const Page& page, const std::string& table_id) {
  for (const Table& t : page.tables) {
    if (t.id != table_id) continue;
    std::string out;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (c) out += ',';
      out += CsvField(Json(t.columns[c]));
    }
    out += "\r\n";
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size(); ++c) {
        if (c) out += ',';
        out += CsvField(row[c]);
      }
      out += "\r\n";
    }
    return out;
  }
  std::string ids;
  for (const Table& t : page.tables) ids += (ids.empty() ? "" : ", ") + t.id;
  return Status::Usage("table: no table '" + table_id + "' on this page (one of " + ids + ")");
}

std::string ErrorHtml(int status, const std::string& message) {
  std::string out;
  RenderHead(status == 503 ? "Not available" : "Error", "", out);
  out += "<main><h1>" + std::to_string(status) + "</h1><p class=\"pl-error\">" +
         HtmlEscape(message) + "</p></main></body></html>\n";
  return out;
}

}  // namespace predlake::serve
