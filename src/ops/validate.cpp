#include "ops/validate.hpp"

#include <fmt/ranges.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "common/time.hpp"
#include "duck/duck.hpp"
#include "etl/etl.hpp"
#include "ops/embedded_sql.hpp"
#include "ops/lake_info.hpp"

namespace predlake::ops {

namespace {

using duck::QuoteIdent;
using duck::QuoteString;

// A statement (or the fragment a check composes) of src/ops/sql/, its ${name} placeholders filled.
std::string CheckSql(
    std::string_view stem,
    std::initializer_list<std::pair<std::string_view, std::string_view>> values = {}) {
  return FillSql(EmbeddedSql(), stem, values);
}

// A condition for SQL: `condition`, or TRUE (every row) when there is none.
std::string Where(const std::optional<std::string>& condition) {
  return condition.value_or("TRUE");
}

// A range of slots [lo, hi] that a whole-lake check reads at a time; lo > hi stands for the rows
// whose slot is NULL, and `all` for no bound at all (a check already narrowed, e.g. incremental).
struct SlotRange {
  int64_t lo = 0;
  int64_t hi = -1;
  bool all = false;
  bool nulls() const { return !all && lo > hi; }
};

// The condition that `column` lies in `range`.
std::string InRange(const std::string& column, const SlotRange& range) {
  if (range.all) return "TRUE";
  if (range.nulls()) return column + " IS NULL";
  return column + " BETWEEN " + std::to_string(range.lo) + " AND " + std::to_string(range.hi);
}

// `table`'s `columns` (they must include what the caller filters on) as a subquery that holds the
// rows of the other side of a ranged join: its rows in `range` and its rows without a slot, in a
// UNION ALL so that each part keeps its filter in the table scan (DuckDB does not push `slot
// BETWEEN .. OR slot IS NULL` into the scan, and a check then read the whole table for every
// range: 60M predictions, 100 ranges); for the NULL range, the rows whose ID is one of
// `ids_without_slot` (a query), which may have a slot; for `all`, the table.
std::string SlotSide(const std::string& table, const std::string& columns, const SlotRange& range,
                     const std::string& ids_without_slot) {
  if (range.all) return table;
  if (range.nulls()) {
    return CheckSql("slot_side_ids",
                    {{"columns", columns}, {"table", table}, {"ids", ids_without_slot}});
  }
  return CheckSql("slot_side_range",
                  {{"columns", columns}, {"table", table}, {"in_range", InRange("slot", range)}});
}

// CPU milliseconds of the process so far, every thread (DuckDB's too).
double ProcessCpuMs() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

class Checker {
 public:
  Checker(lake::Lake& lake, const ValidateOptions& options)
      : lake_(lake), conn_(lake.conn()), options_(options) {}

  Result<ValidationReport> Run();

 private:
  // Counts the rows of `bad_sql` (a query listing the findings) and keeps the first few, ordered by
  // `order_by`, as examples. No findings is kPass (kInfo stays kInfo); otherwise `on_found`.
  Status Fill(CheckResult& check, const std::string& bad_sql, const std::string& order_by,
              CheckStatus on_found = CheckStatus::kFail);
  // Fill over parts of one check (each a query listing findings, e.g. one slot range each): the
  // counts add up; the examples come from the first parts with findings, each part's ordered by
  // `order_by`.
  Status FillParts(CheckResult& check, const std::vector<std::string>& parts,
                   const std::string& order_by, CheckStatus on_found = CheckStatus::kFail);
  // FillParts' reads, adding to the check's count and examples (its status is left alone).
  Status AddParts(CheckResult& check, const std::vector<std::string>& parts,
                  const std::string& order_by);
  // Appends the first findings of `bad_sql`, ordered by `order_by`, while the check has room for
  // examples (ValidateOptions::max_examples).
  Status AddExamples(CheckResult& check, const std::string& bad_sql, const std::string& order_by);
  // kPass when the check found nothing (kInfo stays kInfo); otherwise `on_found`.
  static void SetStatus(CheckResult& check, CheckStatus on_found) {
    check.status =
        check.count > 0 || on_found == CheckStatus::kInfo ? on_found : CheckStatus::kPass;
  }
  // The slot ranges in which the whole-lake checks join and group, so that their memory follows
  // the range, not the lake: ranges of ValidateOptions::range_slots covering every slot of the raw
  // and bronze tables, lowest first, then the NULL-slot range. One `all` range when `whole` is
  // false (the check is narrowed otherwise, e.g. incremental) or range_slots is 0 or less.
  Result<std::vector<SlotRange>> SlotRanges(bool whole);
  // The slot ranges of a check narrowed to the rows from `from_slot` on (incremental), so that
  // what it holds in memory follows a range even when the change since the mark is large (a
  // rebuild changes every built row): the slots below from_slot's range as one range first (the
  // check's own filters leave few rows there, if any), then ranges of range_slots (aligned to
  // multiples of it) up to the lake's highest watermark, the last one open-ended, then the
  // NULL-slot range. They cover every slot, so a check that reads them all misses nothing. One
  // `all` range when range_slots is 0 or less.
  Result<std::vector<SlotRange>> SlotRangesFrom(int64_t from_slot);

  // The certificates of a slot range (range_sums.sql): counts and sums of hashes of the raw
  // predictions, the bronze predictions and the payouts of the range, from one plain scan of each,
  // which spare three checks their joins on ID where they agree.
  struct RangeSums {
    int64_t raw_rows = 0;     // raw predictions whose first submission is in [start, checkpoint)
    int64_t bronze_rows = 0;  // bronze predictions in [start, checkpoint)
    bool parity_same = false;
    bool payouts_reached = false;
    bool payouts_in_bronze = false;
    bool bronze_in_window = false;  // every bronze row of the range is in [start, checkpoint)
  };
  // The certificates of `range` over the whole processed window, computed once per range;
  // nullopt where they do not apply (the NULL-slot range, no checkpoint, no bronze or payouts).
  Result<std::optional<RangeSums>> RangeSumsOf(const SlotRange& range);
  // True when the certificates of `range` (RangeSumsOf, waiting_sums.sql) show that no update
  // event of the range waits for its row, from raw or in the maintained set: every payout and
  // trueval of the window reached its built row in the range, and none is maintained as waiting.
  Result<bool> NothingWaitsIn(const SlotRange& range);

  const TableRef* Find(std::string_view name) const {
    for (const TableRef& t : tables_) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }

  // Runs `body` and records its time in report_.steps under `name`, or (empty) the name of the
  // first check it added.
  template <typename Body>
  Status Step(std::string name, Body&& body) {
    const size_t first = report_.checks.size();
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ProcessCpuMs();
    Status status = body();
    ValidationReport::StepTime t;
    t.wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    t.cpu_ms = ProcessCpuMs() - cpu_start;
    if (name.empty() && report_.checks.size() > first) name = report_.checks[first].name;
    t.name = std::move(name);
    report_.steps.push_back(std::move(t));
    return status;
  }

  Status DuplicateIds();
  Status RawRowsOutsideWatermark();
  Status BuiltRowsPastCheckpoint();
  Status CheckpointPastFrontier();
  Status SlotGaps();
  Status PayoutsWithoutPrediction();
  Status BronzePayoutFieldsNull();
  Status BuiltRowsWithoutFeed();
  Status BronzeRawParity();
  Status StaleWaitingUpdates();
  Status WaitingUpdatesMaintained();
  Status OrphanStagingTables();
  Status TruevalVsExchange();
  Status OhlcvStreamsBehind();
  Status CandleGaps();
  Status SourcesSetAside();
  Status RawTablesNeverFetched();
  Status NegativeAmounts();

  CheckResult& Add(std::string name, std::string description) {
    CheckResult c;
    c.name = std::move(name);
    c.description = std::move(description);
    report_.checks.push_back(std::move(c));
    return report_.checks.back();
  }

  void Skip(CheckResult& check, std::string why) {
    check.status = CheckStatus::kSkipped;
    check.note = std::move(why);
  }

  // Incremental mode (options_.since): what changed since the mark. Raw rows with timestamp at or
  // after raw_since_[table] (no entry: every row), built rows with run_id > the mark's run, the
  // processed window from processed_since_ (nullopt: from the start).
  bool incremental() const { return options_.since.has_value(); }
  // "feed_epochs AS (...)" for a WITH clause: the feeds' epoch lengths (FeedEpochsCte), computed
  // once per run into a TEMP table on first use (they scan pdr_predictions, three times a run
  // before: 2-3 s at 60M predictions).
  Result<std::string> FeedEpochs();
  // Incremental slot_gaps: the lowest slot that a prediction the check looks at can have (the
  // changed predictions' lowest slot, and the slots' watermark at the mark); nullopt when every
  // prediction or every slot window counts as changed.
  Result<std::optional<int64_t>> SlotGapsChangedFrom();
  // Incremental duplicate_ids: the lowest time a candle written since the mark can have (the
  // lowest watermark of any stream since); nullopt when a stream is new since the mark (all of
  // its candles are) or there are none.
  Result<std::optional<int64_t>> CandlesChangedFrom();
  Status ResolveSince();
  // The condition that a raw row of `table` changed since the mark; nullopt: every row counts.
  std::optional<std::string> RawChanged(std::string_view table,
                                        const std::string& alias = "") const {
    auto it = raw_since_.find(std::string(table));
    if (it == raw_since_.end()) return std::nullopt;
    return (alias.empty() ? "" : alias + ".") + "timestamp >= " + std::to_string(it->second);
  }
  // The condition that a built row was written since the mark; nullopt: every row counts.
  std::optional<std::string> BuiltChanged() const {
    if (!incremental()) return std::nullopt;
    return "run_id > " + std::to_string(options_.since->run_id);
  }
  // " AND <BuiltChanged>" for a built table with a run_id column, else "".
  std::string AndBuiltChanged(const TableRef& table) const {
    return table.HasColumn("run_id") ? " AND " + Where(BuiltChanged()) : std::string();
  }
  // The lowest slot of the changed rows of a raw table, or nullopt when none changed (or every
  // row did): bounds the other side of a join.
  Result<std::optional<int64_t>> ChangedMinSlot(std::string_view table);
  // A note for checks that incremental mode narrows.
  void NoteIncremental(CheckResult& check, const std::string& what) {
    if (!incremental()) return;
    std::string n = "incremental: " + what;
    check.note = check.note.empty() ? n : check.note + "; " + n;
  }

  lake::Lake& lake_;
  duck::Connection& conn_;
  ValidateOptions options_;
  std::map<std::string, int64_t> raw_since_;
  std::optional<int64_t> processed_since_;
  std::vector<TableRef> tables_;
  std::optional<lake::Checkpoint> checkpoint_;
  bool has_bronze_ = false;
  bool feed_epochs_ready_ = false;                     // validate_feed_epochs exists (FeedEpochs)
  std::optional<std::vector<SlotRange>> slot_ranges_;  // SlotRanges(true), once computed
  std::map<std::tuple<int64_t, int64_t, bool>, RangeSums> range_sums_;  // RangeSumsOf, by range
  ValidationReport report_;
};

Status Checker::Fill(CheckResult& check, const std::string& bad_sql, const std::string& order_by,
                     CheckStatus on_found) {
  return FillParts(check, {bad_sql}, order_by, on_found);
}

Status Checker::AddExamples(CheckResult& check, const std::string& bad_sql,
                            const std::string& order_by) {
  const int64_t room =
      std::max(options_.max_examples, 0) - static_cast<int64_t>(check.examples.rows.size());
  if (room <= 0) return Status::Ok();
  ASSIGN_OR_RETURN(ResultSet examples,
                   QueryText(conn_,
                             CheckSql("findings_examples", {{"findings", bad_sql},
                                                            {"order_by", order_by},
                                                            {"limit", std::to_string(room)}}),
                             "validate " + check.name));
  if (check.examples.columns.empty()) {
    check.examples = std::move(examples);
  } else {
    for (auto& row : examples.rows) check.examples.rows.push_back(std::move(row));
  }
  return Status::Ok();
}

Status Checker::FillParts(CheckResult& check, const std::vector<std::string>& parts,
                          const std::string& order_by, CheckStatus on_found) {
  check.count = 0;
  RETURN_IF_ERROR(AddParts(check, parts, order_by));
  // Informational checks never pass or fail: they report what they found, even nothing.
  SetStatus(check, on_found);
  return Status::Ok();
}

Status Checker::AddParts(CheckResult& check, const std::vector<std::string>& parts,
                         const std::string& order_by) {
  for (const std::string& part : parts) {
    ASSIGN_OR_RETURN(auto count, conn_.QueryInt(CheckSql("findings_count", {{"findings", part}}),
                                                "validate " + check.name));
    check.count += count.value_or(0);
    // Nothing found, nothing to show: the examples query would read the same rows again (on a
    // large lake most of a passing check's time).
    if (count.value_or(0) > 0) RETURN_IF_ERROR(AddExamples(check, part, order_by));
  }
  return Status::Ok();
}

Result<std::vector<SlotRange>> Checker::SlotRanges(bool whole) {
  if (!whole || options_.range_slots <= 0) return std::vector<SlotRange>{SlotRange{0, -1, true}};
  if (slot_ranges_) return *slot_ranges_;
  std::string bounds;
  for (const TableRef& t : tables_) {
    if ((t.kind != TableKind::kRaw && t.kind != TableKind::kBuilt) || !t.HasColumn("slot")) {
      continue;
    }
    bounds += (bounds.empty() ? "" : " UNION ALL ") +
              CheckSql("slot_bounds_of_table", {{"table", QuoteIdent(t.name)}});
  }
  std::vector<SlotRange> ranges;
  if (!bounds.empty()) {
    ASSIGN_OR_RETURN(auto result, conn_.Query(CheckSql("slot_bounds", {{"bounds", bounds}}),
                                              "validate: slot ranges"));
    auto chunk = result.NextChunk();
    if (chunk && chunk->size() == 1 && !chunk->IsNull(0, 0) && !chunk->IsNull(1, 0)) {
      const int64_t hi = chunk->GetInt64(1, 0);
      const int64_t width = options_.range_slots;
      for (int64_t lo = chunk->GetInt64(0, 0); lo <= hi; lo += width) {
        if (hi - lo < width) {  // the last range (and no overflow past it)
          ranges.push_back(SlotRange{lo, hi});
          break;
        }
        ranges.push_back(SlotRange{lo, lo + width - 1});
      }
    }
  }
  ranges.push_back(SlotRange{});  // the rows whose slot is NULL
  slot_ranges_ = ranges;
  return ranges;
}

Result<std::vector<SlotRange>> Checker::SlotRangesFrom(int64_t from_slot) {
  const int64_t width = options_.range_slots;
  if (width <= 0) return std::vector<SlotRange>{SlotRange{0, -1, true}};
  ASSIGN_OR_RETURN(auto marks, lake_.Watermarks());
  int64_t top = from_slot;
  for (const auto& [table, mark] : marks) top = std::max(top, mark.watermark_ms / 1000);
  constexpr int64_t kLowest = std::numeric_limits<int64_t>::min() / 2;
  constexpr int64_t kHighest = std::numeric_limits<int64_t>::max() / 2;
  from_slot = std::clamp(from_slot, kLowest + 1, kHighest - width);
  int64_t lo = from_slot - ((from_slot % width) + width) % width;
  std::vector<SlotRange> ranges{SlotRange{kLowest, lo - 1}};
  for (; lo + width <= top; lo += width) ranges.push_back(SlotRange{lo, lo + width - 1});
  ranges.push_back(SlotRange{lo, kHighest});
  ranges.push_back(SlotRange{});  // the rows whose slot is NULL
  return ranges;
}

Result<std::optional<Checker::RangeSums>> Checker::RangeSumsOf(const SlotRange& range) {
  if (range.nulls() || !has_bronze_ || !checkpoint_ || !Find(lake::kPredictionsTable.name) ||
      !Find(lake::kPayoutsTable.name)) {
    return std::optional<RangeSums>();
  }
  const TableRef& bronze = *Find(kBronzePredictions);
  for (const char* col : {"ID", "slot", "timestamp", "payout"}) {
    if (!bronze.HasColumn(col)) return std::optional<RangeSums>();
  }
  const auto key = std::make_tuple(range.lo, range.hi, range.all);
  if (auto it = range_sums_.find(key); it != range_sums_.end()) return std::optional(it->second);
  const std::string in_range = InRange("slot", range);
  const std::string start_ms = std::to_string(checkpoint_->start_ms);
  const std::string versions(lake::kPredictionVersionsTable.name);
  const std::string versions_in_range =
      Find(versions) != nullptr
          ? CheckSql("parity_versions",
                     {{"versions", versions}, {"from_ms", start_ms}, {"in_range", in_range}})
          : CheckSql("parity_no_versions");
  ASSIGN_OR_RETURN(
      auto result,
      conn_.Query(
          CheckSql("range_sums", {{"versions", versions_in_range},
                                  {"start_ms", start_ms},
                                  {"checkpoint_ms", std::to_string(checkpoint_->checkpoint_ms)},
                                  {"in_range", in_range},
                                  {"bronze", QuoteIdent(kBronzePredictions)}}),
          "validate: range sums"));
  auto chunk = result.NextChunk();
  if (!chunk || chunk->size() != 1) return Status::Internal("validate: no range sums");
  auto flag = [&](size_t col) { return !chunk->IsNull(col, 0) && chunk->GetBool(col, 0); };
  RangeSums sums{chunk->GetInt64(0, 0), chunk->GetInt64(1, 0), flag(2), flag(3), flag(4), flag(5)};
  range_sums_.emplace(key, sums);
  return std::optional(sums);
}

Result<bool> Checker::NothingWaitsIn(const SlotRange& range) {
  if (range.all || range.nulls()) return false;
  ASSIGN_OR_RETURN(std::optional<RangeSums> sums, RangeSumsOf(range));
  if (!sums || !sums->payouts_reached) return false;
  const TableRef* slots = Find(kBronzeSlots);
  if (slots == nullptr || !slots->HasColumn("trueval_timestamp") || !Find("pdr_truevals") ||
      !Find("predlake_waiting")) {
    return false;
  }
  ASSIGN_OR_RETURN(
      auto result,
      conn_.Query(
          CheckSql("waiting_sums", {{"start_ms", std::to_string(checkpoint_->start_ms)},
                                    {"checkpoint_ms", std::to_string(checkpoint_->checkpoint_ms)},
                                    {"in_range", InRange("slot", range)},
                                    {"bronze_slots", QuoteIdent(kBronzeSlots)}}),
          "validate: waiting sums"));
  auto chunk = result.NextChunk();
  if (!chunk || chunk->size() != 1) return Status::Internal("validate: no waiting sums");
  return !chunk->IsNull(0, 0) && chunk->GetBool(0, 0) && chunk->GetInt64(1, 0) == 0;
}

Status Checker::ResolveSince() {
  if (!incremental()) return Status::Ok();
  const ValidateMark& mark = *options_.since;
  const std::string run_id = std::to_string(mark.run_id);
  // The raw tables and the candle streams (each its own watermark) the mark saw.
  std::vector<std::string> tables(lake::kRawTables.begin(), lake::kRawTables.end());
  for (const auto& [table, watermark] : mark.watermarks) {
    if (table.starts_with(lake::kOhlcvStreamPrefix)) tables.push_back(table);
  }
  for (const std::string& table : tables) {
    auto it = mark.watermarks.find(table);
    if (it == mark.watermarks.end()) continue;  // no watermark then: every row is new
    // The lowest watermark a run since left (a raw drop moves it back) and the start of any import
    // since (it may load rows below the watermark).
    ASSIGN_OR_RETURN(auto lowest,
                     conn_.QueryInt(CheckSql("since_lowest_watermark",
                                             {{"json_path", QuoteString("$.\"" + table + "\"")},
                                              {"run_id", run_id},
                                              {"table_name", QuoteString(table)}}),
                                    "validate: changed since"));
    raw_since_[table] = lowest ? std::min(it->second, *lowest) : it->second;
  }
  if (!mark.checkpoint_ms || !checkpoint_) return Status::Ok();
  ASSIGN_OR_RETURN(auto cleared,
                   conn_.QueryInt(CheckSql("since_checkpoint_cleared", {{"run_id", run_id}}),
                                  "validate: changed since"));
  if (cleared.value_or(0) > 0) return Status::Ok();  // rebuilt from the start since
  ASSIGN_OR_RETURN(auto lowest,
                   conn_.QueryInt(CheckSql("since_lowest_checkpoint", {{"run_id", run_id}}),
                                  "validate: changed since"));
  processed_since_ = std::min(
      {*mark.checkpoint_ms, lowest.value_or(*mark.checkpoint_ms), checkpoint_->checkpoint_ms});
  return Status::Ok();
}

Result<std::optional<int64_t>> Checker::ChangedMinSlot(std::string_view table) {
  return conn_.QueryInt(CheckSql("changed_min_slot", {{"table", QuoteIdent(std::string(table))},
                                                      {"changed", Where(RawChanged(table))}}),
                        "validate: changed slots");
}

Status Checker::DuplicateIds() {
  CheckResult& check = Add("duplicate_ids", "IDs stored more than once (count: duplicated IDs)");
  // A table whose primary key is its ID cannot hold a copy: DuckDB refuses one at every insert.
  ASSIGN_OR_RETURN(auto keyed, QueryText(conn_, CheckSql("primary_keys_on_id"),
                                         "validate duplicate_ids: primary keys"));
  auto has_key = [&](const std::string& name) {
    for (const auto& row : keyed.rows) {
      if (row[0] == name) return true;
    }
    return false;
  };
  // Per table, the rows to look at (`from`, the table or a subquery of its ID and slot), the
  // condition that a row changed since the mark (none: every row counts) and whether they are read
  // by slot range.
  struct Scan {
    const TableRef* table;
    std::string from;
    std::optional<std::string> changed;
    bool by_slot;
    // The lowest slot `from` holds besides the rows without a slot (ids_from_slot), if it is so
    // narrowed.
    std::optional<int64_t> slot_lo;
  };
  std::vector<Scan> scans;
  size_t keyed_tables = 0;
  bool id_tables = false;
  // Incremental: the lowest slot of the changed rows of any table read by slot range.
  std::optional<int64_t> changed_lo;
  for (const TableRef& t : tables_) {
    if (t.kind == TableKind::kBookkeeping || t.kind == TableKind::kStaging) continue;
    if (!t.HasColumn("ID")) continue;
    id_tables = true;
    if (has_key(t.name)) {
      ++keyed_tables;
      continue;
    }
    std::optional<std::string> changed;
    if (t.kind == TableKind::kRaw && t.HasColumn("timestamp")) changed = RawChanged(t.name);
    if (t.kind == TableKind::kBuilt && t.HasColumn("run_id")) changed = BuiltChanged();
    std::string from = QuoteIdent(t.name);
    std::optional<int64_t> slot_lo;
    if (t.name == lake::kOhlcvTable.name && t.HasColumn("timestamp") && incremental()) {
      // A candle's ID holds its stream and its time, so every copy of a changed candle's ID has
      // its time: both sides are read from the lowest time a changed candle can have on.
      ASSIGN_OR_RETURN(std::optional<int64_t> lo, CandlesChangedFrom());
      if (lo) {
        changed = "timestamp >= " + std::to_string(*lo);
        from = CheckSql("ids_from_time", {{"table", from}, {"lo", std::to_string(*lo)}});
      }
    }
    if (changed && t.HasColumn("slot")) {
      // An ID holds its slot (contract-slot[-user]), so every copy of a changed row's ID has its
      // slot or none: the copies are looked for from the changed rows' lowest slot on and among
      // the rows without a slot, each part with its own filter in the scan, which DuckDB's zone
      // maps and statistics turn into a read of the recent row groups instead of every ID of the
      // table. A changed row without a slot leaves the table unbounded; no changed row, nothing
      // to look for.
      ASSIGN_OR_RETURN(auto range,
                       conn_.Query(CheckSql("changed_slot_range",
                                            {{"table", QuoteIdent(t.name)}, {"changed", *changed}}),
                                   "validate duplicate_ids: the changed rows' slots"));
      auto chunk = range.NextChunk();
      if (!chunk || chunk->size() != 1) {
        return Status::Internal("validate duplicate_ids: no slot range for " + t.name);
      }
      if (chunk->GetInt64(0, 0) == 0) continue;
      const int64_t lo = chunk->GetInt64(2, 0);
      if (chunk->GetInt64(1, 0) == 0) {
        from = CheckSql("ids_from_slot", {{"table", from}, {"lo", std::to_string(lo)}});
        slot_lo = lo;
      }
      changed_lo = std::min(changed_lo.value_or(lo), lo);
    }
    // A table with slots is grouped one slot range at a time (the copies of an ID share its slot,
    // or one lacks it: below), incremental or not: a rebuild changes every built row.
    scans.push_back({&t, from, changed, t.HasColumn("slot"), slot_lo});
  }
  if (!id_tables) {
    check.note = "no table with an ID column";
    return Status::Ok();
  }
  if (keyed_tables > 0) {
    check.note = std::to_string(keyed_tables) +
                 " table(s) with a primary key on ID not read: DuckDB refuses a copy";
  }
  NoteIncremental(check, "IDs of the rows changed since the last run, from their lowest slot on");
  // The full check groups the integer hashes first and the IDs' text only where a hash repeats
  // (a third less CPU at 1.5M, a tenth at 10M); the incremental one reads few rows, through a
  // filter on the changed IDs that the first grouping would evaluate again.
  const char* stem = incremental() ? "duplicate_ids" : "duplicate_ids_hashed";
  auto part = [stem](const Scan& s, const std::string& where, const std::string& having) {
    return CheckSql(stem, {{"table_name", QuoteString(s.table->name)},
                           {"from", s.from},
                           {"where", where},
                           {"having", having}});
  };
  // The rows whose ID is one of those of the changed rows that meet `condition`; TRUE when every
  // row counts.
  auto changed_ids = [](const Scan& s, const std::string& condition) -> std::string {
    if (!s.changed) return "TRUE";
    return CheckSql("changed_ids", {{"table", QuoteIdent(s.table->name)},
                                    {"changed", "(" + *s.changed + ") AND " + condition}});
  };
  const bool by_slot =
      std::any_of(scans.begin(), scans.end(), [](const Scan& s) { return s.by_slot; });
  std::vector<SlotRange> ranges;
  if (by_slot && !incremental()) {
    ASSIGN_OR_RETURN(ranges, SlotRanges(true));
  } else if (by_slot && changed_lo) {
    ASSIGN_OR_RETURN(ranges, SlotRangesFrom(*changed_lo));
  } else if (by_slot) {  // only changed rows without a slot
    ranges = {SlotRange{0, -1, true}};
  }
  // A slot range groups the copies of the IDs in it that have no copy without a slot; the NULL
  // range groups every copy of the IDs that have one (read by ID, so a copy with a slot is counted
  // with it; with no row without a slot, DuckDB's statistics skip both reads). One range of the
  // whole table groups every copy. Incremental: of the IDs of the changed rows in the range.
  auto ranged_part = [&](const Scan& s, const SlotRange& r) {
    // From the table itself: `from` holds all of its rows without a slot, and a second `slot IS
    // NULL` over ids_from_slot's part that already has one makes DuckDB scan the whole table (a
    // conjunction of the two is not checked against the zone maps: 0.9 s at 10M predictions).
    const std::string without_slot =
        CheckSql("ids_without_slot", {{"from", QuoteIdent(s.table->name)}});
    if (r.all) return part(s, changed_ids(s, "TRUE"), "");
    if (r.nulls()) {
      return part(
          s, changed_ids(s, "ID IN (" + without_slot + ")") + " AND ID IN (" + without_slot + ")",
          "");
    }
    // A slot range reads the table itself with both bounds on `slot`: over ids_from_slot, the
    // range's bound would also reach its part without a slot, and DuckDB checks `slot IS NULL AND
    // slot BETWEEN ..` against no zone map (a read of the whole table, 0.5 s at 10M predictions).
    Scan ranged = s;
    std::string in_range = InRange("slot", r);
    if (s.slot_lo) {
      ranged.from = QuoteIdent(s.table->name);
      in_range += " AND slot >= " + std::to_string(*s.slot_lo);
    }
    return part(ranged, in_range + " AND " + changed_ids(s, InRange("slot", r)),
                " AND ID NOT IN (" + without_slot + ")");
  };
  // The full check groups the raw predictions first. Where they hold no copy, a range whose
  // certificates (RangeSumsOf) show bronze equal to raw, every bronze row in the window and every
  // payout among the paid bronze rows has no copy in bronze or the payouts either: those two, most
  // of the rows the check read, are grouped only in the other ranges.
  const std::string raw_predictions(lake::kPredictionsTable.name);
  auto is_raw = [&](const Scan& s) { return s.by_slot && s.table->name == raw_predictions; };
  const bool raw_first = !incremental() && !ranges.empty() && !ranges.front().all &&
                         std::any_of(scans.begin(), scans.end(), is_raw);
  check.count = 0;
  if (raw_first) {
    std::vector<std::string> raw_parts;
    for (const SlotRange& r : ranges) {
      for (const Scan& s : scans) {
        if (is_raw(s)) raw_parts.push_back(ranged_part(s, r));
      }
    }
    RETURN_IF_ERROR(AddParts(check, raw_parts, "table_name, ID"));
  }
  const bool raw_has_no_copy = raw_first && check.count == 0;
  std::vector<std::string> parts;
  std::string whole;
  for (const Scan& s : scans) {
    if (!s.by_slot)
      whole += (whole.empty() ? "" : " UNION ALL ") + part(s, changed_ids(s, "TRUE"), "");
  }
  if (!whole.empty()) parts.push_back(whole);
  for (const SlotRange& r : ranges) {
    bool bronze_vouched = false;
    bool payouts_vouched = false;
    if (raw_has_no_copy && !r.nulls()) {
      ASSIGN_OR_RETURN(std::optional<RangeSums> sums, RangeSumsOf(r));
      bronze_vouched = sums && sums->parity_same && sums->bronze_in_window;
      payouts_vouched = bronze_vouched && sums->payouts_in_bronze;
    }
    std::string ranged;
    for (const Scan& s : scans) {
      if (!s.by_slot || (raw_first && is_raw(s))) continue;
      if (bronze_vouched && s.table->name == kBronzePredictions) continue;
      if (payouts_vouched && s.table->name == lake::kPayoutsTable.name) continue;
      ranged += (ranged.empty() ? "" : " UNION ALL ") + ranged_part(s, r);
    }
    if (!ranged.empty()) parts.push_back(ranged);
  }
  RETURN_IF_ERROR(AddParts(check, parts, "table_name, ID"));
  SetStatus(check, CheckStatus::kFail);
  return Status::Ok();
}

Status Checker::RawRowsOutsideWatermark() {
  // A fetch stores its rows and moves the watermark in one transaction, never past the last stored
  // timestamp: when a page ends inside a run of equal timestamps, the watermark stays on that
  // timestamp (events there may be missing) while the rows at it are already stored. Such rows,
  // exactly at the watermark, are expected after an interrupted fetch; rows beyond it are not.
  ASSIGN_OR_RETURN(auto marks, lake_.Watermarks());
  auto rows_where = [&](const std::string& condition) {
    std::string sql;
    for (std::string_view name : lake::kRawTables) {
      if (!Find(name)) continue;
      std::string table(name);
      // Incremental: the rows from the lowest watermark since the mark, and those before the
      // table's start. Each as its own part with a constant bound, which DuckDB's zone maps turn
      // into a read of the few row groups concerned (an OR of the two, or a bound taken from the
      // join, reads the whole table).
      std::vector<std::string> and_changed{std::string()};
      if (incremental()) {
        auto since = raw_since_.find(table);
        auto mark = marks.find(table);
        if (since != raw_since_.end() && mark != marks.end()) {
          and_changed = {" AND r.timestamp >= " + std::to_string(since->second),
                         " AND r.timestamp < " +
                             std::to_string(std::min(since->second, mark->second.start_ms))};
        } else {
          and_changed = {" AND (" + Where(RawChanged(table, "r")) +
                         " OR r.timestamp < w.start_ms)"};
        }
      }
      for (const std::string& part : and_changed) {
        sql += (sql.empty() ? "" : " UNION ALL ") +
               CheckSql("raw_rows_vs_watermark", {{"table_name", QuoteString(table)},
                                                  {"table", QuoteIdent(table)},
                                                  {"condition", condition},
                                                  {"and_changed", part}});
      }
    }
    return sql;
  };
  CheckResult& outside =
      Add("raw_rows_outside_watermark",
          "raw rows after their table's watermark, before its start, or in a table with no "
          "watermark (count: rows)");
  std::string bad = rows_where(
      "w.table_name IS NULL OR r.timestamp < w.start_ms OR r.timestamp > w.watermark_ms");
  if (bad.empty()) {
    Skip(outside, "no raw tables");
    return Status::Ok();
  }
  NoteIncremental(outside, "rows from the lowest watermark since the last run");
  RETURN_IF_ERROR(Fill(outside, bad, "table_name, timestamp, ID"));
  CheckResult& at = Add("raw_rows_at_watermark",
                        "raw rows exactly at their table's watermark, left by a fetch that stopped "
                        "inside a run of equal timestamps; the next update covers them; "
                        "informational (count: rows)");
  return Fill(at, rows_where("r.timestamp = w.watermark_ms"), "table_name, ID", CheckStatus::kInfo);
}

Status Checker::BuiltRowsPastCheckpoint() {
  CheckResult& check =
      Add("built_rows_past_checkpoint",
          "built rows whose event time, or the time of the last event folded into them, is at or "
          "after the checkpoint or before its start (count: rows)");
  if (!has_bronze_) {
    Skip(check, "no built tables yet");
    return Status::Ok();
  }
  std::string bad;
  std::vector<std::string> unchecked;
  for (const TableRef& t : tables_) {
    if (t.kind != TableKind::kBuilt) continue;
    bool has_ts = t.HasColumn("timestamp");
    bool has_last = t.HasColumn("last_event_timestamp");
    if (!has_ts && !has_last) {
      unchecked.push_back(t.name);
      continue;
    }
    std::string ts = has_ts ? "\"timestamp\"" : "NULL::BIGINT";
    std::string last = has_last ? "last_event_timestamp" : "NULL::BIGINT";
    std::string where = "TRUE";
    if (checkpoint_) {
      std::string c = std::to_string(checkpoint_->checkpoint_ms);
      std::string s = std::to_string(checkpoint_->start_ms);
      where = ts + " >= " + c + " OR " + ts + " < " + s + " OR " + last + " >= " + c;
    }
    std::string id = t.HasColumn("ID") ? "CAST(ID AS VARCHAR)" : "NULL::VARCHAR";
    bad += (bad.empty() ? "" : " UNION ALL ") +
           CheckSql("built_rows_past_checkpoint", {{"table_name", QuoteString(t.name)},
                                                   {"id", id},
                                                   {"ts", ts},
                                                   {"last", last},
                                                   {"table", QuoteIdent(t.name)},
                                                   {"outside", where},
                                                   {"and_changed", AndBuiltChanged(t)}});
  }
  NoteIncremental(check, "rows written by the runs since the last run");
  if (!unchecked.empty()) {
    const std::string list = fmt::format("{}", fmt::join(unchecked, ", "));
    check.note = "not checked (no event time column): " + list;
  }
  if (!checkpoint_) {
    std::string why = "no checkpoint: every built row counts";
    check.note = check.note.empty() ? why : why + "; " + check.note;
  }
  if (bad.empty()) return Status::Ok();
  return Fill(check, bad, "table_name, timestamp, ID");
}

Status Checker::CheckpointPastFrontier() {
  CheckResult& check = Add("checkpoint_past_frontier",
                           "the checkpoint is ahead of the frontier (the lowest raw watermark)");
  check.examples.columns = {"checkpoint", "frontier", "held_back_by"};
  if (!checkpoint_) {
    check.note = "no checkpoint yet";
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(etl::Frontier f, etl::ComputeFrontier(lake_));
  bool past = f.frontier_ms ? checkpoint_->checkpoint_ms > *f.frontier_ms
                            : checkpoint_->checkpoint_ms > checkpoint_->start_ms;
  if (!past) return Status::Ok();
  check.status = CheckStatus::kFail;
  check.count = 1;
  std::string holder = f.frontier_ms ? f.held_by : (f.missing.empty() ? "" : f.missing.front());
  check.examples.rows.push_back(
      {FormatTime(checkpoint_->checkpoint_ms),
       f.frontier_ms ? std::optional<std::string>(FormatTime(*f.frontier_ms)) : std::nullopt,
       holder});
  return Status::Ok();
}

Status Checker::SlotGaps() {
  // The subgraph creates a slot entity with the slot's first prediction (or its trueval), so an
  // epoch nobody predicted and no trueval settled has no slot at all: a calendar gap is not a
  // fault. A slot is missing only when a stored prediction proves the source has it: a prediction
  // precedes its slot, so the fetch that moved the slots' watermark past the slot saw it. Truevals
  // prove nothing here: pdr-backend's lakes (raw import) leave out the slot at their start even
  // where its trueval is in the window.
  CheckResult& check =
      Add("slot_gaps",
          "slots that a stored prediction refers to but pdr_slots lacks, inside the slots' "
          "covered window (count: slots)");
  if (!Find("pdr_slots")) {
    Skip(check, "no pdr_slots table");
    return Status::Ok();
  }
  // A prediction refers to the slot of its own `slot`, so the full check reads one slot range at a
  // time; a slot row without a slot is looked at in every range.
  auto missing = [&](const SlotRange& r) {
    return CheckSql(
        "slot_gaps",
        {{"in_range", InRange("p.slot", r)},
         {"predictions_changed", Where(RawChanged(lake::kPredictionsTable.name, "p"))},
         {"slots_changed", raw_since_.count("pdr_slots")
                               ? "p.slot * 1000 >= " + std::to_string(raw_since_["pdr_slots"])
                               : std::string("TRUE")},
         {"slots", SlotSide("pdr_slots", "ID, timestamp, slot", r, "SELECT NULL")}});
  };
  NoteIncremental(check, "predictions and slot windows changed since the last run");
  ASSIGN_OR_RETURN(std::vector<SlotRange> ranges, SlotRanges(!incremental()));
  if (incremental()) {
    ASSIGN_OR_RETURN(std::optional<int64_t> lo, SlotGapsChangedFrom());
    // Both sides read from the lowest slot a changed row can have on: a constant bound on `slot`
    // that DuckDB's zone maps turn into a read of the recent row groups (the change's filters are
    // an OR that no scan can use, and the slots' lookup had no bound: the whole of both tables).
    // A slot row holds the slot of its ID, as the full check's ranges assume.
    if (lo) ranges = {SlotRange{*lo, std::numeric_limits<int64_t>::max() / 2}};
  }
  std::vector<std::string> parts;
  for (const SlotRange& r : ranges) {
    if (!r.nulls()) parts.push_back(missing(r));  // a prediction without a slot refers to none
  }
  RETURN_IF_ERROR(FillParts(check, parts, "feed, slot"));

  // Epochs without a slot entity, per feed, measured with the feed's own epoch length: normal on
  // sparse feeds, worth knowing on busy ones.
  CheckResult& empty =
      Add("epochs_without_slot",
          "epochs between consecutive slots of a feed that have no slot (nobody predicted and no "
          "trueval), inside the slots' covered window; informational (count: gaps)");
  if (incremental()) {
    Skip(empty, "informational; not run in incremental mode (`validate` runs it)");
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(std::string feed_epochs, FeedEpochs());
  ASSIGN_OR_RETURN(auto unknown,
                   conn_.QueryInt(CheckSql("feeds_without_epoch", {{"feed_epochs", feed_epochs}}),
                                  "validate epochs_without_slot"));
  if (unknown.value_or(0) > 0) {
    empty.note = std::to_string(*unknown) + " feed(s) not checked: epoch length unknown";
  }
  return Fill(empty, CheckSql("epochs_without_slot", {{"feed_epochs", feed_epochs}}),
              "feed, after_slot", CheckStatus::kInfo);
}

Result<std::optional<int64_t>> Checker::CandlesChangedFrom() {
  ASSIGN_OR_RETURN(auto marks, lake_.Watermarks());
  std::optional<int64_t> lo;
  for (const auto& [table, mark] : marks) {
    if (!table.starts_with(lake::kOhlcvStreamPrefix)) continue;
    auto since = raw_since_.find(table);
    if (since == raw_since_.end()) return std::optional<int64_t>();  // new since the mark
    lo = std::min(lo.value_or(since->second), since->second);
  }
  return lo;
}

Result<std::optional<int64_t>> Checker::SlotGapsChangedFrom() {
  std::optional<int64_t> lo;
  if (RawChanged(lake::kPredictionsTable.name)) {
    ASSIGN_OR_RETURN(lo, ChangedMinSlot(lake::kPredictionsTable.name));
  } else {
    return std::optional<int64_t>();  // every prediction counts as changed
  }
  if (auto it = raw_since_.find("pdr_slots"); it != raw_since_.end()) {
    // slot * 1000 >= since holds only from floor(since / 1000) on.
    const int64_t from = it->second >= 0 ? it->second / 1000 : -((-it->second + 999) / 1000);
    lo = std::min(lo.value_or(from), from);
  } else {
    return std::optional<int64_t>();  // every slot window counts as changed
  }
  return lo;
}

Result<std::string> Checker::FeedEpochs() {
  if (!feed_epochs_ready_) {
    RETURN_IF_ERROR(
        conn_.Execute(CheckSql("feed_epochs_table", {{"feed_epochs_cte", FeedEpochsCte()}}),
                      "validate: feed epochs"));
    feed_epochs_ready_ = true;
  }
  return std::string("feed_epochs AS (FROM validate_feed_epochs)");
}

Status Checker::PayoutsWithoutPrediction() {
  const std::optional<std::string> changed = RawChanged(lake::kPayoutsTable.name, "p");
  std::string bound;
  if (changed) {
    ASSIGN_OR_RETURN(auto lo, ChangedMinSlot(lake::kPayoutsTable.name));
    // A payout's prediction has the payout's slot.
    bound = " AND r.slot >= " + std::to_string(lo.value_or(0));
  }
  // A prediction for slot S is made before S, at most two epochs ahead (mainnet's pdr-backend bots
  // submit in [S - 2E, S - E), the simulated network in [S - E, S)). A payout's missing prediction
  // is a fault only when that whole span lies inside the predictions' covered window.
  // The feeds' epochs only decide which of the two checks an orphan counts in, and computing them
  // reads every prediction's feed: an incremental run, whose few changed payouts have no orphan
  // as a rule, first counts the orphans without them (every orphan then counts as outside) and
  // computes them only when there is one.
  std::string feed_epochs = CheckSql("feed_epochs_none");
  if (!incremental()) {
    ASSIGN_OR_RETURN(feed_epochs, FeedEpochs());
  }
  // The full check reads one slot range of payouts at a time, and their predictions in the same
  // range (a payout's prediction has its slot; one stored without a slot is read in every range,
  // and the payouts without a slot look their predictions up by ID).
  auto base = [&](const SlotRange& range) {
    const std::string predictions =
        SlotSide("pdr_predictions", "ID, slot", range, CheckSql("payout_ids_without_slot"));
    return CheckSql("payouts_without_prediction", {{"feed_epochs", feed_epochs},
                                                   {"changed", Where(changed)},
                                                   {"in_range", InRange("p.slot", range)},
                                                   {"predictions", predictions},
                                                   {"and_bound", bound}});
  };
  NoteIncremental(Add("payouts_without_prediction",
                      "payouts whose prediction lies inside the predictions' covered window but "
                      "is missing (count: payouts)"),
                  "payouts from the lowest watermark since the last run");
  Add("payouts_without_prediction_outside_window",
      "payouts whose prediction was made before the predictions' start or after their "
      "watermark; informational (count: payouts)");
  // The two checks, by index (a reference into report_.checks would not survive the second Add).
  const size_t inside_at = report_.checks.size() - 2;
  ASSIGN_OR_RETURN(std::vector<SlotRange> ranges, SlotRanges(!incremental()));
  for (const SlotRange& r : ranges) {
    // A full range whose certificates show every payout's prediction stored has no orphan of
    // either kind (RangeSumsOf: the anti-join below was most of the check's time).
    if (!incremental()) {
      ASSIGN_OR_RETURN(std::optional<RangeSums> sums, RangeSumsOf(r));
      if (sums && sums->parity_same && sums->payouts_in_bronze) continue;
    }
    // One read of the range counts both kinds.
    auto count = [&]() -> Result<std::array<int64_t, 2>> {
      ASSIGN_OR_RETURN(auto counts, conn_.Query(CheckSql("payouts_without_prediction_counts",
                                                         {{"orphans", base(r)}}),
                                                "validate payouts_without_prediction"));
      auto chunk = counts.NextChunk();
      if (!chunk || chunk->size() != 1) {
        return Status::Internal("validate payouts_without_prediction: no counts");
      }
      return std::array<int64_t, 2>{chunk->GetInt64(0, 0), chunk->GetInt64(1, 0)};
    };
    ASSIGN_OR_RETURN(auto counts, count());
    if (!feed_epochs_ready_ && counts[0] + counts[1] > 0) {
      ASSIGN_OR_RETURN(feed_epochs, FeedEpochs());
      ASSIGN_OR_RETURN(counts, count());
    }
    for (size_t kind = 0; kind < 2; ++kind) {
      CheckResult& check = report_.checks[inside_at + kind];
      const int64_t found = counts[kind];
      check.count += found;
      if (found == 0) continue;
      RETURN_IF_ERROR(AddExamples(
          check,
          CheckSql("payouts_without_prediction_examples",
                   {{"orphans", base(r)}, {"inside", kind == 0 ? "inside" : "NOT inside"}}),
          "timestamp, ID"));
    }
  }
  SetStatus(report_.checks[inside_at], CheckStatus::kFail);
  SetStatus(report_.checks[inside_at + 1], CheckStatus::kInfo);
  return Status::Ok();
}

Status Checker::BronzePayoutFieldsNull() {
  CheckResult& check = Add("bronze_payout_fields_null",
                           "bronze predictions whose payout is known but whose predvalue or "
                           "truevalue is NULL, canceled slots excepted (count: rows)");
  if (!has_bronze_) {
    Skip(check, "no built tables yet");
    return Status::Ok();
  }
  const TableRef& bronze = *Find(kBronzePredictions);
  for (const char* col : {"payout", "predvalue", "truevalue"}) {
    if (!bronze.HasColumn(col)) {
      Skip(check, std::string(kBronzePredictions) + " has no column " + col);
      return Status::Ok();
    }
  }
  // A canceled slot has no trueval, yet its predictions are refunded: a payout with a NULL
  // truevalue is then expected.
  std::string not_canceled = "TRUE";
  if (bronze.HasColumn("canceled")) {
    not_canceled = "NOT coalesce(canceled, FALSE)";
  } else if (bronze.HasColumn("status")) {
    not_canceled = "lower(coalesce(status, '')) <> 'canceled'";
  }
  std::string id = bronze.HasColumn("ID") ? "ID" : "NULL::VARCHAR AS ID";
  std::string slot = bronze.HasColumn("slot") ? "slot" : "NULL::BIGINT AS slot";
  const std::string bad =
      CheckSql("bronze_payout_fields_null", {{"id", id},
                                             {"slot", slot},
                                             {"table", QuoteIdent(kBronzePredictions)},
                                             {"not_canceled", not_canceled},
                                             {"and_changed", AndBuiltChanged(bronze)}});
  NoteIncremental(check, "rows written by the runs since the last run");
  return Fill(check, bad, "slot, ID");
}

Status Checker::BuiltRowsWithoutFeed() {
  CheckResult& check = Add("built_rows_without_feed",
                           "built rows without a pair or timeframe: their feed's metadata was "
                           "neither in its NFT data nor given by the fallback (count: rows)");
  std::string bad;
  for (const TableRef& t : tables_) {
    if (t.kind != TableKind::kBuilt || !t.HasColumn("pair") || !t.HasColumn("timeframe")) continue;
    std::string id = t.HasColumn("ID") ? "CAST(ID AS VARCHAR)" : "NULL::VARCHAR";
    std::string contract = t.HasColumn("contract") ? "CAST(contract AS VARCHAR)" : "NULL::VARCHAR";
    bad += (bad.empty() ? "" : " UNION ALL ") +
           CheckSql("built_rows_without_feed", {{"table_name", QuoteString(t.name)},
                                                {"contract", contract},
                                                {"id", id},
                                                {"table", QuoteIdent(t.name)},
                                                {"and_changed", AndBuiltChanged(t)}});
  }
  NoteIncremental(check, "rows written by the runs since the last run");
  if (bad.empty()) {
    Skip(check, "no built tables yet");
    return Status::Ok();
  }
  return Fill(check, bad, "table_name, contract, ID");
}

Status Checker::BronzeRawParity() {
  CheckResult& check =
      Add("bronze_raw_parity",
          "predictions with a time in [start, checkpoint) that are in pdr_predictions but not in "
          "bronze_pdr_predictions, or the reverse (count: rows)");
  if (!has_bronze_) {
    Skip(check, "no built tables yet");
    return Status::Ok();
  }
  if (!checkpoint_) {
    check.note = "no checkpoint yet: nothing processed";
    return Status::Ok();
  }
  const TableRef& bronze = *Find(kBronzePredictions);
  if (!bronze.HasColumn("ID") || !bronze.HasColumn("timestamp")) {
    Skip(check, std::string(kBronzePredictions) + " has no ID or timestamp column");
    return Status::Ok();
  }
  const int64_t from = std::max(checkpoint_->start_ms, processed_since_.value_or(0));
  const bool whole = from == checkpoint_->start_ms;
  // The window is compared one slot range at a time (a prediction's built row has its raw row's
  // slot); a narrower one (incremental) from the window's start on (a prediction's slot follows
  // its submission).
  std::vector<SlotRange> ranges;
  if (whole) {
    ASSIGN_OR_RETURN(ranges, SlotRanges(true));
  } else {
    ASSIGN_OR_RETURN(ranges, SlotRangesFrom(from / 1000));
  }
  const std::string versions(lake::kPredictionVersionsTable.name);
  const bool has_versions = Find(versions) != nullptr;
  int64_t raw_count = 0;
  int64_t built_count = 0;
  const std::string from_ms = std::to_string(from);
  const std::string to_ms = std::to_string(checkpoint_->checkpoint_ms);
  for (const SlotRange& r : ranges) {
    const std::string in_range = InRange("slot", r);
    // The whole window's ranges are first compared by their certificates (RangeSumsOf; the
    // anti-joins of parity_counts were most of the check's time); only a range where they differ
    // is read again to count and name its findings.
    if (whole) {
      ASSIGN_OR_RETURN(std::optional<RangeSums> sums, RangeSumsOf(r));
      if (sums && sums->parity_same) {
        raw_count += sums->raw_rows;
        built_count += sums->bronze_rows;
        continue;
      }
    }
    // A prediction's built row has its first submission's time; a re-submitted one's raw row has
    // the latest, and its earlier versions are in the versions table.
    std::string raw =
        CheckSql("parity_raw", {{"from_ms", from_ms}, {"to_ms", to_ms}, {"in_range", in_range}});
    if (has_versions) {
      // Incremental: the IDs with a submission in the window; their first one may be older.
      const std::string and_ids =
          whole ? std::string()
                : " AND " + CheckSql("parity_ids_in_window", {{"from_ms", from_ms},
                                                              {"to_ms", to_ms},
                                                              {"in_range", in_range},
                                                              {"versions", versions}});
      raw = CheckSql("parity_raw_first_submissions",
                     {{"start_ms", std::to_string(checkpoint_->start_ms)},
                      {"in_range", in_range},
                      {"and_ids", and_ids},
                      {"versions", versions},
                      {"to_ms", to_ms},
                      {"from_ms", from_ms}});
    }
    const std::string built = CheckSql("parity_bronze", {{"table", QuoteIdent(kBronzePredictions)},
                                                         {"from_ms", from_ms},
                                                         {"to_ms", to_ms},
                                                         {"in_range", in_range}});
    ASSIGN_OR_RETURN(auto counts,
                     conn_.Query(CheckSql("parity_counts", {{"raw", raw}, {"bronze", built}}),
                                 "validate parity"));
    auto chunk = counts.NextChunk();
    if (!chunk || chunk->size() != 1) return Status::Internal("validate parity: no counts");
    raw_count += chunk->GetInt64(0, 0);
    built_count += chunk->GetInt64(1, 0);
    // The counts and the findings' count come from one read of the range (two reads before, half
    // of the check's time); the findings themselves are read again only when there are some.
    const int64_t found = chunk->GetInt64(2, 0);
    check.count += found;
    if (found > 0) {
      RETURN_IF_ERROR(AddExamples(check,
                                  CheckSql("parity_findings", {{"raw", raw}, {"bronze", built}}),
                                  "problem, timestamp, ID"));
    }
  }
  check.note = "in [" + FormatTime(from) + ", " + FormatTime(checkpoint_->checkpoint_ms) +
               "): " + std::to_string(raw_count) + " raw, " + std::to_string(built_count) +
               " bronze";
  SetStatus(check, CheckStatus::kFail);
  return Status::Ok();
}

Status Checker::StaleWaitingUpdates() {
  CheckResult& check =
      Add("stale_waiting_updates",
          "update events of the processed window not applied although their row exists: payouts "
          "and truevals whose prediction or slot is in raw before the checkpoint but not built, or "
          "built without the update (count: events)");
  if (!has_bronze_ || !Find(kBronzeSlots)) {
    Skip(check, "no built tables yet");
    return Status::Ok();
  }
  if (!checkpoint_) {
    check.note = "no checkpoint yet: nothing processed";
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(auto waiting, etl::Waiting(lake_));
  int64_t waiting_total = 0;
  std::optional<int64_t> oldest;
  for (const etl::WaitingEvents& w : waiting) {
    waiting_total += w.events;
    if (w.oldest_ms && (!oldest || *w.oldest_ms < *oldest)) oldest = w.oldest_ms;
  }
  check.note = std::to_string(waiting_total) + " update event(s) wait for a row not built";
  if (oldest) check.note += " (oldest " + FormatTime(*oldest) + ")";
  std::string s = std::to_string(checkpoint_->start_ms);
  std::string c = std::to_string(checkpoint_->checkpoint_ms);
  // Incremental: the events of the window processed since the last run.
  std::string e = std::to_string(std::max(checkpoint_->start_ms, processed_since_.value_or(0)));
  if (incremental()) {
    check.note += "; incremental: events from " +
                  FormatTime(std::max(checkpoint_->start_ms, processed_since_.value_or(0)));
  }
  // An update whose target is in raw inside [S, C) must have reached the built row: either the
  // row is missing (it waits forever) or the row lacks what the event carries.
  if (!Find(kBronzeSlots)->HasColumn("trueval_timestamp")) {
    Skip(check, std::string(kBronzeSlots) + " has no trueval_timestamp column");
    return Status::Ok();
  }
  // The whole window is read one slot range at a time: an event, its prediction or slot in raw and
  // its built row share the slot (rows stored without one are read in every range, and payouts
  // without one look their prediction and built row up by ID).
  // The whole window's ranges first look at their certificates (RangeSumsOf; the three-way join
  // of stale_waiting_payouts was most of the check's time): where every payout of the window
  // reached a built prediction with a payout, only the truevals are read.
  auto payouts_reached = [&](const SlotRange& range) -> Result<bool> {
    if (e != s) return false;
    ASSIGN_OR_RETURN(std::optional<RangeSums> sums, RangeSumsOf(range));
    return sums && sums->payouts_reached;
  };
  auto part = [&](const SlotRange& range, bool reached) {
    const std::string no_slot = CheckSql("payout_ids_without_slot");
    const std::string truevals = CheckSql(
        "stale_waiting_truevals",
        {{"bronze", SlotSide(QuoteIdent(kBronzeSlots), "ID, trueval_timestamp", range, no_slot)},
         {"from_ms", e},
         {"checkpoint_ms", c},
         {"t_in_range", InRange("t.slot", range)},
         {"start_ms", s},
         {"r_in_range", InRange("r.slot", range)}});
    if (reached) return truevals;
    std::string sql = CheckSql(
        "stale_waiting_payouts",
        {{"predictions", SlotSide("pdr_predictions", "ID, timestamp", range, no_slot)},
         {"start_ms", s},
         {"checkpoint_ms", c},
         {"bronze", SlotSide(QuoteIdent(kBronzePredictions), "ID, payout", range, no_slot)},
         {"from_ms", e},
         {"in_range", InRange("y.slot", range)}});
    if (range.nulls()) return sql;  // a trueval without a slot has no prediction to wait for
    return sql + " UNION ALL " + truevals;
  };
  std::vector<SlotRange> ranges;
  if (e == s) {
    ASSIGN_OR_RETURN(ranges, SlotRanges(true));
  } else {
    // Incremental: the ranges from the lowest slot of the window's events on (the slots below it
    // hold none of them).
    ASSIGN_OR_RETURN(auto lowest, conn_.QueryInt(CheckSql("stale_events_min_slot",
                                                          {{"from_ms", e}, {"checkpoint_ms", c}}),
                                                 "validate " + check.name));
    const int64_t from_slot = lowest.value_or(checkpoint_->checkpoint_ms / 1000);
    ASSIGN_OR_RETURN(ranges, SlotRangesFrom(from_slot));
    if (!ranges.front().all) ranges.erase(ranges.begin());  // the slots below from_slot's range
  }
  std::vector<std::string> parts;
  for (const SlotRange& r : ranges) {
    ASSIGN_OR_RETURN(bool reached, payouts_reached(r));
    parts.push_back(part(r, reached));
  }
  return FillParts(check, parts, "timestamp, ID");
}

Status Checker::WaitingUpdatesMaintained() {
  CheckResult& check =
      Add("waiting_updates_maintained",
          "the waiting updates every publish maintains (what describe shows) differ from their "
          "computation from raw (count: events that differ)");
  check.examples.columns = {"table_name", "maintained", "from_raw", "oldest_maintained",
                            "oldest_from_raw"};
  check.examples.numeric = {false, true, true, false, false};
  if (!checkpoint_) {
    check.note = "no checkpoint yet: nothing processed";
    return Status::Ok();
  }
  if (incremental()) {
    Skip(check, "counts the whole lake; not run in incremental mode (`validate` runs it)");
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(bool current, etl::WaitingIsCurrent(lake_));
  if (!current) {
    Skip(check,
         "not maintained for this checkpoint (set by an older predlake): describe counts "
         "from raw until the next ETL run");
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(auto kept, etl::Waiting(lake_));
  // From raw one slot range at a time (their sum is etl::WaitingFromRaw), leaving out the ranges
  // whose certificates show that nothing waits in them, from raw or maintained (NothingWaitsIn:
  // the anti-joins of the computation from raw were most of the check's time).
  std::vector<etl::WaitingEvents> full = {{"pdr_payouts", 0, std::nullopt},
                                          {"pdr_truevals", 0, std::nullopt}};
  ASSIGN_OR_RETURN(std::vector<SlotRange> ranges, SlotRanges(true));
  for (const SlotRange& r : ranges) {
    ASSIGN_OR_RETURN(bool nothing_waits, NothingWaitsIn(r));
    if (nothing_waits) continue;
    std::vector<etl::WaitingEvents> part;
    if (r.all) {
      ASSIGN_OR_RETURN(part, etl::WaitingFromRaw(lake_));
    } else {
      ASSIGN_OR_RETURN(part, etl::WaitingFromRawInSlots(lake_, r.lo, r.hi));
    }
    for (const etl::WaitingEvents& p : part) {
      auto it = std::find_if(full.begin(), full.end(),
                             [&](const etl::WaitingEvents& f) { return f.table == p.table; });
      if (it == full.end()) it = full.insert(full.end(), {p.table, 0, std::nullopt});
      it->events += p.events;
      if (p.oldest_ms && (!it->oldest_ms || *p.oldest_ms < *it->oldest_ms)) {
        it->oldest_ms = p.oldest_ms;
      }
    }
  }
  auto text = [](std::optional<int64_t> ms) -> std::optional<std::string> {
    if (!ms) return std::nullopt;
    return FormatTime(*ms);
  };
  for (const etl::WaitingEvents& f : full) {
    etl::WaitingEvents k;
    for (const etl::WaitingEvents& e : kept) {
      if (e.table == f.table) k = e;
    }
    if (k.events == f.events && k.oldest_ms == f.oldest_ms) continue;
    check.count += std::max<int64_t>(std::abs(k.events - f.events), 1);
    check.examples.rows.push_back({f.table, std::to_string(k.events), std::to_string(f.events),
                                   text(k.oldest_ms), text(f.oldest_ms)});
  }
  check.status = check.count > 0 ? CheckStatus::kFail : CheckStatus::kPass;
  return Status::Ok();
}

Status Checker::OrphanStagingTables() {
  CheckResult& check = Add("orphan_staging_tables",
                           "staging tables left behind by a run that died; the next ETL run drops "
                           "them (count: tables)");
  check.examples.columns = {"table_name", "rows"};
  check.examples.numeric = {false, true};
  // validate holds the lake open, so no ETL run is alive: every staging table is an orphan.
  for (const TableRef& t : tables_) {
    if (t.kind != TableKind::kStaging) continue;
    ++check.count;
    if (static_cast<int>(check.examples.rows.size()) >= options_.max_examples) continue;
    ASSIGN_OR_RETURN(auto rows,
                     conn_.QueryInt(CheckSql("count_rows", {{"table", QuoteIdent(t.name)}}),
                                    "validate orphan_staging_tables"));
    check.examples.rows.push_back({t.name, std::to_string(rows.value_or(0))});
  }
  check.status = check.count > 0 ? CheckStatus::kFail : CheckStatus::kPass;
  return Status::Ok();
}

Status Checker::TruevalVsExchange() {
  CheckResult& check =
      Add("trueval_vs_exchange",
          "slots whose on-chain trueval disagrees with the exchange's candles (Predictoor's "
          "definition, docs/ohlcv.md: the closes of the candles opening at slot - 2 epochs and "
          "slot - 1 epoch; a tie cancels the round) (count: slots)");
  const TableRef* slots = Find(lake::kBronzeSlots);
  if (slots == nullptr || !slots->HasColumn("trueval_agrees")) {
    Skip(check, "no built tables yet");
    return Status::Ok();
  }
  // Incremental: the slots a run since the mark wrote (a slot's outcome is set by the run that
  // builds or folds it).
  const std::string changed = Where(BuiltChanged());
  ASSIGN_OR_RETURN(auto checked, conn_.QueryInt(CheckSql("trueval_checked", {{"changed", changed}}),
                                                "validate " + check.name));
  check.note = std::to_string(checked.value_or(0)) + " slots checked against the exchange";
  NoteIncremental(check, "slots written by the runs since the last run");
  return Fill(check, CheckSql("trueval_disagrees", {{"changed", changed}}), "slot, ID");
}

// How far a candle stream may trail the subgraph's frontier before ohlcv_streams_behind reports it:
// a 1h stream trails it by up to an hour and a candle by the finality margin; more than this is an
// exchange that has failed for hours.
constexpr int64_t kStreamBehindMs = 6 * 3'600'000;

Status Checker::OhlcvStreamsBehind() {
  CheckResult& check =
      Add("ohlcv_streams_behind",
          "candle streams more than 6 hours behind the subgraph's frontier: the exchange has "
          "failed for that long (the error says why; docs/ohlcv.md); their slots lack the "
          "exchange columns until the candles arrive (count: streams)");
  if (!Find("predlake_ohlcv_streams")) {
    Skip(check, "this lake has not been written by this version yet");
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(auto built_with, lake_.GetMeta(etl::kMetaBuiltWithOhlcv));
  if (built_with && *built_with == "off") {
    Skip(check, "lake_ss.ohlcv is false");
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(etl::Frontier f, etl::ComputeFrontier(lake_));
  if (!f.frontier_ms) {
    Skip(check, "no frontier yet");
    return Status::Ok();
  }
  return Fill(check,
              CheckSql("ohlcv_streams_behind",
                       {{"candle_streams", CheckSql("candle_streams")},
                        {"before_ms", std::to_string(*f.frontier_ms - kStreamBehindMs)}}),
              "stream");
}

Status Checker::CandleGaps() {
  CheckResult& check =
      Add("candle_gaps",
          "candles missing below their stream's watermark that are not recorded as known gaps "
          "(the watermark must never pass a candle that should exist) (count: candles)");
  if (!Find("predlake_candle_gaps")) {
    Skip(check, "this lake has not been written by this version yet");
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(auto known,
                   conn_.QueryInt(CheckSql("count_rows", {{"table", "predlake_candle_gaps"}}),
                                  "validate " + check.name));
  if (known.value_or(0) > 0) {
    check.note = std::to_string(*known) +
                 " known gaps (candles the exchange never served; `describe` lists them)";
  }
  // Incremental: each stream from the lowest watermark a run since the mark left (a stream the
  // mark did not know, from its start).
  std::string cases;
  for (const auto& [table, from] : raw_since_) {
    if (!table.starts_with(lake::kOhlcvStreamPrefix)) continue;
    cases += " WHEN " + QuoteString(table) + " THEN " + std::to_string(from);
  }
  const std::string since =
      cases.empty() ? "start_ms" : "coalesce(CASE stream" + cases + " END, start_ms)";
  NoteIncremental(check, "candles from the lowest watermark of each stream since the last run");
  return Fill(
      check,
      CheckSql("candle_gaps", {{"candle_streams", CheckSql("candle_streams")}, {"since", since}}),
      "stream, open_ms");
}

Status Checker::SourcesSetAside() {
  CheckResult& check =
      Add("sources_set_aside",
          "parts of a source set aside so that the rest goes on (docs/ohlcv.md, docs/raw.md): "
          "candle streams the exchange cannot serve, and contracts the last fetch could not use "
          "(count: streams and contracts)");
  std::vector<std::string> parts;
  if (Find("predlake_ohlcv_streams")) {
    parts.push_back(CheckSql("streams_set_aside"));
  }
  // The contracts the newest fetch skipped (raw::UpdateReport::skipped_contracts, in its detail).
  parts.push_back(std::string(kContractsSetAsideSql));
  RETURN_IF_ERROR(FillParts(check, parts, "kind, name", CheckStatus::kInfo));
  // Nothing set aside is a pass: the line then says so plainly.
  if (check.count == 0) check.status = CheckStatus::kPass;
  return Status::Ok();
}

Status Checker::RawTablesNeverFetched() {
  CheckResult& check = Add("raw_tables_never_fetched",
                           "raw tables without a watermark after the newest run failed: the "
                           "lake holds no data of them (count: tables)");
  ASSIGN_OR_RETURN(
      auto last, QueryText(conn_,
                           CheckSql("last_data_run", {{"validate_command",
                                                       QuoteString(kValidateIncrementalCommand)}}),
                           "validate " + check.name));
  if (last.rows.empty() || last.rows[0][0].value_or("") == "succeeded" ||
      last.rows[0][0].value_or("") == "running") {
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(auto marks, lake_.Watermarks());
  check.examples.columns = {"table_name", "last_run_error"};
  for (std::string_view table : lake::kRawTables) {
    if (marks.count(std::string(table))) continue;
    ++check.count;
    if (static_cast<int>(check.examples.rows.size()) < options_.max_examples) {
      check.examples.rows.push_back({std::string(table), last.rows[0][1]});
    }
  }
  check.status = check.count > 0 ? CheckStatus::kFail : CheckStatus::kPass;
  return Status::Ok();
}

Status Checker::NegativeAmounts() {
  CheckResult& check =
      Add("negative_amounts",
          "raw rows with a negative amount (stake, payout, revenue, stake totals, prices): "
          "on-chain amounts and exchange prices are never below zero (count: rows)");
  // Every DECIMAL column of the source tables (lake/tables.hpp) is an amount or a price.
  std::vector<std::string> parts;
  std::vector<const lake::TableDef*> defs;
  for (const lake::TableDef& t : lake::kRawTableDefs) defs.push_back(&t);
  defs.push_back(&lake::kOhlcvTable);
  for (const lake::TableDef* t : defs) {
    if (!Find(t->name)) continue;
    for (const lake::ColumnDef& c : t->columns) {
      if (c.type != lake::ColumnType::kDecimal) continue;
      const std::string col = QuoteIdent(std::string(c.name));
      parts.push_back(CheckSql("negative_amounts", {{"table_name", QuoteString(t->name)},
                                                    {"column_name", QuoteString(c.name)},
                                                    {"column", col},
                                                    {"table", t->name},
                                                    {"changed", Where(RawChanged(t->name))}}));
    }
  }
  NoteIncremental(check, "raw rows from the lowest watermark the runs since left");
  return FillParts(check, parts, "table_name, timestamp, ID", CheckStatus::kFail);
}

Result<ValidationReport> Checker::Run() {
  // The whole-lake checks group and join every ID: capped, DuckDB spills to disk (beside the lake
  // file) instead of growing with the lake.
  if (!options_.memory_limit.empty()) {
    RETURN_IF_ERROR(
        conn_.Execute(CheckSql("set_memory_limit", {{"limit", QuoteString(options_.memory_limit)}}),
                      "validate: memory limit"));
  }
  auto setup = [&]() -> Status {
    ASSIGN_OR_RETURN(tables_, ListTables(conn_));
    ASSIGN_OR_RETURN(checkpoint_, lake_.GetCheckpoint());
    has_bronze_ = Find(kBronzePredictions) != nullptr;
    return ResolveSince();
  };
  RETURN_IF_ERROR(Step("setup", setup));
  for (Status (Checker::*check)() :
       {&Checker::DuplicateIds, &Checker::RawRowsOutsideWatermark,
        &Checker::BuiltRowsPastCheckpoint, &Checker::CheckpointPastFrontier, &Checker::SlotGaps,
        &Checker::PayoutsWithoutPrediction, &Checker::BronzePayoutFieldsNull,
        &Checker::BuiltRowsWithoutFeed, &Checker::BronzeRawParity, &Checker::StaleWaitingUpdates,
        &Checker::WaitingUpdatesMaintained, &Checker::OrphanStagingTables,
        &Checker::TruevalVsExchange, &Checker::OhlcvStreamsBehind, &Checker::CandleGaps,
        &Checker::SourcesSetAside, &Checker::RawTablesNeverFetched, &Checker::NegativeAmounts}) {
    RETURN_IF_ERROR(Step("", [&] { return (this->*check)(); }));
  }
  return std::move(report_);
}

// Integers of numeric columns become JSON numbers; everything else (decimals included, to keep
// their exact digits) stays a string.
nlohmann::ordered_json ExampleJson(const ResultSet& rs, size_t col,
                                   const std::optional<std::string>& v) {
  if (!v) return nullptr;
  bool numeric = col < rs.numeric.size() && rs.numeric[col];
  if (numeric && !v->empty() && v->size() < 19) {
    size_t start = (*v)[0] == '-' ? 1 : 0;
    bool digits = start < v->size() && std::all_of(v->begin() + start, v->end(),
                                                   [](char ch) { return ch >= '0' && ch <= '9'; });
    if (digits) return std::stoll(*v);
  }
  return *v;
}

}  // namespace

std::string_view CheckStatusName(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kFail:
      return "FAIL";
    case CheckStatus::kInfo:
      return "info";
    case CheckStatus::kSkipped:
      return "skipped";
  }
  return "?";
}

std::vector<std::string> ValidationReport::Failed() const {
  std::vector<std::string> out;
  for (const CheckResult& c : checks) {
    if (c.status == CheckStatus::kFail) out.push_back(c.name);
  }
  return out;
}

std::string ValidateMark::ToJson() const {
  nlohmann::ordered_json j = {{"run_id", run_id}};
  j["checkpoint_ms"] = checkpoint_ms ? nlohmann::ordered_json(*checkpoint_ms) : nullptr;
  j["watermarks"] = watermarks;
  return j.dump();
}

std::optional<ValidateMark> ValidateMark::FromJson(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("run_id") || !j["run_id"].is_number_integer() ||
      !j.contains("watermarks") || !j["watermarks"].is_object()) {
    return std::nullopt;
  }
  ValidateMark m;
  m.run_id = j["run_id"].get<int64_t>();
  if (j.contains("checkpoint_ms") && j["checkpoint_ms"].is_number_integer()) {
    m.checkpoint_ms = j["checkpoint_ms"].get<int64_t>();
  }
  for (const auto& [table, mark] : j["watermarks"].items()) {
    if (!mark.is_number_integer()) return std::nullopt;
    m.watermarks[table] = mark.get<int64_t>();
  }
  return m;
}

Result<ValidateMark> CurrentMark(lake::Lake& lake) {
  ValidateMark m;
  ASSIGN_OR_RETURN(auto last, lake.conn().QueryInt(CheckSql("last_run_id"), "validate mark"));
  m.run_id = last.value_or(0);
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  if (checkpoint) m.checkpoint_ms = checkpoint->checkpoint_ms;
  ASSIGN_OR_RETURN(auto marks, lake.Watermarks());
  for (const auto& [table, mark] : marks) m.watermarks[table] = mark.watermark_ms;
  return m;
}

Result<ValidationReport> Validate(lake::Lake& lake, const ValidateOptions& options) {
  Checker checker(lake, options);
  return checker.Run();
}

void WriteValidationText(std::ostream& out, const ValidationReport& report, int width) {
  ResultSet summary;
  summary.columns = {"check", "status", "count", "note"};
  summary.numeric = {false, false, true, false};
  for (const CheckResult& c : report.checks) {
    summary.rows.push_back(
        {c.name, std::string(CheckStatusName(c.status)), std::to_string(c.count), c.note});
  }
  WriteTable(out, summary, width);
  for (const CheckResult& c : report.checks) {
    if (c.count == 0 || c.examples.rows.empty()) continue;
    out << "\n"
        << c.name << " (" << CheckStatusName(c.status) << ", " << c.count << "): " << c.description
        << "\n";
    WriteTable(out, c.examples, width);
    if (static_cast<int64_t>(c.examples.rows.size()) < c.count) {
      out << "(" << c.examples.rows.size() << " of " << c.count << " shown)\n";
    }
  }
  std::vector<std::string> failed = report.Failed();
  int skipped = 0;
  int info = 0;
  for (const CheckResult& c : report.checks) {
    skipped += c.status == CheckStatus::kSkipped;
    info += c.status == CheckStatus::kInfo;
  }
  const size_t judged = report.checks.size() - skipped - info;
  out << "\n";
  if (failed.empty()) {
    out << "validate: all " << judged << " checks passed";
  } else {
    out << "validate: " << failed.size() << " of " << judged << " checks failed:";
    for (const std::string& name : failed) out << " " << name;
  }
  if (info > 0) out << " (" << info << " informational";
  if (skipped > 0) out << (info > 0 ? ", " : " (") << skipped << " skipped";
  if (info > 0 || skipped > 0) out << ")";
  out << "\n";
}

std::string DescribeStepTimes(const ValidationReport& report) {
  std::string steps;
  for (const ValidationReport::StepTime& t : report.steps) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "=%.0f/%.0f", t.wall_ms, t.cpu_ms);
    steps += (steps.empty() ? "" : " ") + t.name + buf;
  }
  return steps;
}

void WriteValidationJson(std::ostream& out, const ValidationReport& report) {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const CheckResult& c : report.checks) {
    nlohmann::ordered_json examples = nlohmann::ordered_json::array();
    for (const auto& row : c.examples.rows) {
      nlohmann::ordered_json obj = nlohmann::ordered_json::object();
      for (size_t i = 0; i < c.examples.columns.size() && i < row.size(); ++i) {
        obj[c.examples.columns[i]] = ExampleJson(c.examples, i, row[i]);
      }
      examples.push_back(std::move(obj));
    }
    checks.push_back(
        {{"name", c.name},
         {"status", c.status == CheckStatus::kFail ? std::string("fail")
                                                   : std::string(CheckStatusName(c.status))},
         {"count", c.count},
         {"description", c.description},
         {"note",
          c.note.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.note)},
         {"examples", std::move(examples)}});
  }
  std::vector<std::string> failed = report.Failed();
  nlohmann::ordered_json j = {
      {"ok", failed.empty()}, {"failed", failed}, {"checks", std::move(checks)}};
  out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace predlake::ops
