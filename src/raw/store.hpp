// Storing rows into the raw tables exactly once: rows go through an Appender into a per-connection
// staging table, then one `INSERT ... SELECT ... ON CONFLICT` moves them into the raw table, so
// that a repeated ID costs a primary-key lookup, not a scan of the table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "duck/duck.hpp"
#include "lake/lake.hpp"
#include "raw/schema.hpp"

namespace predlake::raw {

// Owns the staging tables of one connection (TEMP tables, so they are private to it and never
// reach the database file). Not thread-safe; the connection must outlive the Stager.
class Stager {
 public:
  // Creates the staging tables (empty copies of the raw tables without their key). kData on a
  // DuckDB error.
  static Result<Stager> Create(duck::Connection& conn);

  // Appends `rows` to the staging table of `table`. Rows accumulate until Flush.
  Status Stage(const TableDef& table, const std::vector<Row>& rows);

  // Moves the staged rows of `table` into it and empties the staging table. Call inside the
  // transaction that also records the watermark covering the rows. Counts: rows_in rows offered,
  // rows_out new IDs stored, rows_updated stored IDs whose values changed (upsert tables only).
  //
  // Rows with timestamp <= `conflicts_up_to` may already be stored: insert-only tables skip such
  // IDs (ON CONFLICT DO NOTHING); upsert tables (pdr_slots) replace the stored values when they
  // differ. Rows after it (all rows when nullopt) are known to be new and take a plain INSERT:
  // DuckDB 1.4's ON CONFLICT costs time in proportion to the table, a plain INSERT into a keyed
  // table only in proportion to the rows. Should such a row exist after all, the primary key
  // refuses it: the call fails, plain_insert_failed() turns true, and the caller rolls back and
  // repeats with conflicts_up_to = kAllMayConflict.
  //
  // A table with versions (pdr_predictions): a staged row whose ID is stored with another
  // timestamp is merged, whatever conflicts_up_to says: of all versions known of an ID (stored,
  // superseded, staged) the latest becomes the row and every earlier one a row of the versions
  // table with the next one's timestamp as superseded_at (rows_updated counts the replaced rows).
  // The same versions offered again change nothing, in any order. Stored rows are read only in
  // the staged slot range.
  Result<lake::TableCounts> Flush(const TableDef& table, std::optional<int64_t> conflicts_up_to);

  // Stage + Flush.
  Result<lake::TableCounts> Store(const TableDef& table, const std::vector<Row>& rows,
                                  std::optional<int64_t> conflicts_up_to = kAllMayConflict);

  // True once a plain INSERT (of rows expected to be new) failed.
  bool plain_insert_failed() const { return plain_insert_failed_; }

  static constexpr int64_t kAllMayConflict = INT64_MAX;

  // Empties every staging table (after a rolled-back transaction, for instance).
  Status Clear();

 private:
  explicit Stager(duck::Connection* conn) : conn_(conn) {}
  // The merge of Flush for a table with versions; takes the merged IDs off the staging table.
  Result<lake::TableCounts> MergeVersions(const TableDef& table);
  duck::Connection* conn_;
  std::vector<int64_t> staged_;  // rows staged per table, RawTables() order
  std::vector<int64_t> min_ts_;  // smallest staged timestamp per table
  bool plain_insert_failed_ = false;
};

// The staging table's name for a raw table.
std::string StagingName(const TableDef& table);

// A TEMP table with the columns of one lake table ("<table>_stage"), for rows that reach it through
// an appender and one INSERT ... SELECT (the contracts, the candles), created on first use. Errors
// name `step`. The connection must outlive the object.
class TableStage {
 public:
  static Result<TableStage> Open(duck::Connection& conn, std::string_view table, std::string step);
  // Appends to the stage; valid until Insert.
  duck::Appender& appender() { return appender_; }
  const std::string& name() const { return name_; }
  // Closes the appender, runs `insert_sql` (which reads name()), empties the stage; returns the
  // rows the INSERT changed.
  Result<int64_t> Insert(const std::string& insert_sql);
  // Insert, unless `count_sql` (one BIGINT, reading name()) counts no row to insert: then the
  // stage is only emptied and 0 returned.
  Result<int64_t> InsertIfAny(const std::string& count_sql, const std::string& insert_sql);

 private:
  TableStage(duck::Connection* conn, std::string name, std::string step, duck::Appender appender)
      : conn_(conn),
        name_(std::move(name)),
        step_(std::move(step)),
        appender_(std::move(appender)) {}
  duck::Connection* conn_;
  std::string name_;
  std::string step_;
  duck::Appender appender_;
};

// Splits decimal text into its integer part and its signed fraction ("-12.5" -> {-12, "-0.5"};
// "7" -> {7, "0.0"}), or nullopt when the text has an exponent or more than 18 digits before or
// after the point (such values are staged as text). Exposed for tests.
std::optional<std::pair<int64_t, std::string>> SplitDecimal(std::string_view text);

}  // namespace predlake::raw
