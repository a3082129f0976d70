// The serve module's pages as data (internal to src/serve): what each page shows, computed from one
// snapshot, then rendered as HTML, JSON or CSV (render.cpp). docs/serve.md lists the pages, tables,
// columns and metric definitions.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "common/time.hpp"
#include "duck/duck.hpp"
#include "export/snapshot.hpp"
#include "lake/lake.hpp"
#include "serve/serve.hpp"

namespace predlake::serve {

using Json = nlohmann::ordered_json;

// The text of the embedded query `name` (src/serve/sql/NAME.sql) with its parts filled in: the
// shared column lists (`${metric_sums}`, `${ratios}`, ...: the files part_*.sql) and the page's
// resolved sort (`${order}`: a key from the page's fixed list, quoted, and its direction; `${dir}`:
// the direction alone). Everything else a query takes is bound ($1, $2: the period's days).
// kInternal when the file or a part is missing.
Result<std::string> PageSql(std::string_view name, const std::string& order = "",
                            const std::string& dir = "");

// Errors carry their HTTP status in the code: kUsage 400, kValidation 404 (NotFound), kData 503
// (no snapshot, or a damaged one), anything else 500.
Status NotFound(std::string message);
int HttpStatusFor(const Status& status);

// The parameters a page takes (state in the URL). Checked by ParseParams: unknown names or values
// are kUsage.
struct PageParams {
  std::string period = "1w";         // 1d | 1w | 1m | all
  std::string sort;                  // a key of the page's sortable table; "" = its default
  std::string dir;                   // asc | desc; "" = the sort key's default
  std::string table;                 // /csv only
  std::vector<std::string> compare;  // /compare: the `a` values, in order (several allowed)
  // The tables' state (docs/serve.md, "Parameters"): the "more columns" switch, the page of a long
  // table, the search text and the filters of the Predictoors and Feeds pages. `given` holds each
  // of these as the URL had it (checked), to keep them in the page's links.
  bool all_columns = false;  // cols=all
  int64_t page_no = 0;       // page=N (1-based); 0: not given (HTML shows page 1, API/CSV all)
  int64_t per_page = 50;     // per_page=N, rows a page (1 to kMaxRowsPerPage)
  std::string q;             // /search
  std::optional<int64_t> min_predictions;
  std::string min_stake;                   // a non-negative decimal, "" = none
  std::optional<double> acc_min, acc_max;  // percent, 0..100
  std::string pair, timeframe, exchange;
  std::map<std::string, std::string> given;
};
// The names of PageParams' table state, in the order links write them.
const std::vector<std::string>& TableParamNames();
Result<PageParams> ParseParams(const std::multimap<std::string, std::string>& params, bool csv);

// The UTC slot days a period covers, anchored at the snapshot's checkpoint (the newest instant the
// built tables cover; the snapshot's creation time when it has no checkpoint): the last day is the
// one holding checkpoint - 1 ms, partial unless the checkpoint is a UTC midnight. 1d is the last 24
// hours, shown as the (one or two) slot days they touch; 1w the 7 days ending with the last day,
// 1m 30 days, all every day. A start before the lake's (`lake_start_ms`, the first day of its
// data) is clamped to it (`clamped`).
struct Period {
  std::string name;
  std::string from_day;                    // YYYY-MM-DD, inclusive ("1970-01-01" for all)
  std::string to_day;                      // YYYY-MM-DD, inclusive ("9999-12-31" for all)
  int64_t holds_to_ms = 0;                 // the checkpoint: the data holds up to (excluding) it
  std::optional<std::string> partial_day;  // the last day when the data ends inside it
  bool clamped = false;                    // from_day raised to the lake's first day
  std::string label;                       // what the period selector says it shows
};
Period PeriodFor(const std::string& name, std::optional<int64_t> checkpoint_ms,
                 int64_t created_at_ms, std::optional<int64_t> lake_start_ms = std::nullopt);

struct Table {
  std::string id;
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<Json>> rows;  // string (decimals, times, text), number, bool or null
  std::vector<std::string> sort_keys;   // sortable columns (the page's sort applies here)
  std::string note;                     // shown under the title
  // Paged tables (the leaderboard, Feeds): the rows are one page's; total_rows is every row's
  // count.
  int64_t total_rows = -1;  // -1: not paged
  int64_t page_no = 1;
  int64_t per_page = 0;
};

struct Chart {
  std::string id;
  std::string title;
  // {"x": [unix seconds], "series": [{"label", "values", "kind"?, "axis"?}], "partial"?, "note"?}
  // (docs/serve.md, "Charts").
  Json data;
};

struct Page {
  std::string title;
  std::string path;  // "/", "/predictoors", "/predictoor/0x..", ...
  PageParams params;
  std::string sort, dir;  // resolved (the sortable table's key and direction)
  Json freshness;
  Json period;
  std::vector<std::string> notes;
  std::vector<std::pair<std::string, std::string>> actions;  // links above the tables: (href, text)
  std::vector<Chart> charts;
  std::vector<Table> tables;
  std::string redirect;  // /search with one match: the page to open (HTML answers 303)
  bool filters = false;  // the page shows the filter form (Predictoors, Feeds)
  // The table whose rows can be picked for /compare (Predictoors, Feeds): a checkbox per row in
  // its user or contract cell, and a "Compare selected" form above it; "" for none.
  std::string pick_table;
  std::vector<std::string> unknown_mine;  // my_addresses without any prediction in the snapshot
};

// One snapshot opened for reading: an in-memory DuckDB whose tables are views over the snapshot's
// files, sealed (kSealedReadFiles with only the exports folder readable), shared by the requests
// that resolved `current` to this snapshot (its files never change), each on a connection of its
// own. Facts that cannot change for the snapshot are computed once, when it is opened.
struct SnapshotEntry {
  exports::Snapshot snapshot;
  std::unique_ptr<lake::Lake> lake;  // owns the database; lake->conn() only under `mu`
  std::mutex mu;
  Json freshness;                        // Freshness() without the age
  std::optional<int64_t> lake_start_ms;  // the first day of the lake's data (periods are clamped)
  std::optional<std::vector<std::pair<std::string, int64_t>>> waiting;  // /metrics, under mu
  bool waiting_tried = false;  // under mu: computed (or failed) once per snapshot
};

// The update events waiting for their target row (/metrics), computed on the first call for
// `entry` (a scan of the snapshot's payouts and truevals against the bronze rows: seconds at 10M
// predictions) and remembered, failure included (then nullopt: /metrics leaves the gauge out).
// Thread-safe (takes entry.mu).
std::optional<std::vector<std::pair<std::string, int64_t>>> WaitingOnce(SnapshotEntry& entry);

// One request's view: `current` resolved once (to `entry`'s snapshot), and a connection of its own.
// kData when there is no snapshot or it cannot be read.
struct SnapshotView {
  std::shared_ptr<SnapshotEntry> entry;
  std::optional<duck::Connection> conn;  // destroyed before `entry` (declared after it)
  int64_t now_ms = 0;
  const exports::Snapshot& snapshot() const { return entry->snapshot; }
};
Result<SnapshotView> OpenView(const ServeOptions& options);

// The freshness facts every page shows (checkpoint, frontier and the table holding it back, last
// run, snapshot age).
Json Freshness(const SnapshotView& view);

// Builds the page at `path` ("/" .. "/runs"); NotFound for another path or an unknown address.
Result<Page> BuildPage(const ServeOptions& options, SnapshotView& view, std::string_view path,
                       const PageParams& params);

// render.cpp
std::string RenderHtml(const Page& page);
Json RenderJson(const Page& page);
// kUsage when the page has no table `table_id`.
Result<std::string> RenderCsv(const Page& page, const std::string& table_id);
// "period=1w&sort=..&dir=.." of the page's state (only what is set), with `override` applied.
std::string QueryString(const Page& page, const std::map<std::string, std::string>& override = {});
std::string HtmlEscape(std::string_view text);
std::string ErrorHtml(int status, const std::string& message);

// columns.cpp: one definition per column name (docs/serve.md, "Column definitions", holds the same
// text; tests/serve checks it), and the columns each table shows before "more columns".
struct ColumnDef {
  std::string_view name;
  std::string_view definition;
};
const std::vector<ColumnDef>& ColumnDefs();
const ColumnDef* FindColumnDef(std::string_view name);  // nullptr for an unknown name
// nullptr: the table shows every column.
const std::vector<std::string>* MainColumns(std::string_view page_path, std::string_view table_id);
bool IsMainColumn(std::string_view page_path, std::string_view table_id, const std::string& col);
// The most items /compare takes (a=).
inline constexpr size_t kMaxCompared = 5;
// The most rows a page of a paged table may hold (per_page=).
inline constexpr int64_t kMaxRowsPerPage = 500;

// metrics.cpp
Response MetricsResponse(const ServeOptions& options, uint64_t requests);
Response HealthResponse(const ServeOptions& options);

}  // namespace predlake::serve
