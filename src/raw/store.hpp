// Storing rows into the raw tables exactly once: rows go through an Appender into a per-connection
// staging table, then one INSERT ... SELECT moves the IDs not stored yet into the raw table. A
// stored copy of an ID is looked for only where one can be (lake::IdRangeColumn: the staged rows'
// slot or timestamp range), so a repeated ID costs a read of the recent row groups, not of the
// table.
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
  // A staged ID the table holds already is skipped (insert-only tables) or replaces the stored
  // values where they differ (upsert tables: pdr_slots); an ID staged twice is stored once (which
  // copy, unspecified). Stored rows are read only in the staged rows' StoredIdRange.
  //
  // A table with versions (pdr_predictions): a staged row whose ID is stored with another
  // timestamp is merged: of all versions known of an ID (stored, superseded, staged) the latest
  // becomes the row and every earlier one a row of the versions table with the next one's
  // timestamp as superseded_at (rows_updated counts the replaced rows). The same versions offered
  // again change nothing, in any order. Stored rows are read only in the staged slot range.
  Result<lake::TableCounts> Flush(const TableDef& table);

  // Stage + Flush.
  Result<lake::TableCounts> Store(const TableDef& table, const std::vector<Row>& rows);

  // Empties every staging table (after a rolled-back transaction, for instance).
  Status Clear();

 private:
  explicit Stager(duck::Connection* conn) : conn_(conn) {}
  // The merge of Flush for a table with versions; takes the merged IDs off the staging table.
  // `stored_range`: StoredIdRange of the staged rows (the table is aliased `stored` in it).
  Result<lake::TableCounts> MergeVersions(const TableDef& table, const std::string& stored_range);
  duck::Connection* conn_;
  std::vector<int64_t> staged_;  // rows staged per table, RawTables() order
};

// The staging table's name for a raw table.
std::string StagingName(const TableDef& table);

// Where `table` can hold a stored copy of an ID among the rows of `rows_sql` (a query or table
// with the table's columns): a condition on the rows of `table` aliased `stored`, namely
// lake::IdRangeColumn BETWEEN the rows' least and greatest value, as literal constants so that
// DuckDB's zone maps skip the other row groups. "TRUE" (read the whole table) when the table has
// no such column, or a row of `rows_sql` or of the table lacks the value (a stored row without it
// could be a copy of any ID); "FALSE" when `rows_sql` has no row. Errors name `step`.
Result<std::string> StoredIdRange(duck::Connection& conn, const TableDef& table,
                                  std::string_view rows_sql, const std::string& step);

// An INSERT into `table` of the rows of `rows_sql` (a query with the table's columns, in order)
// whose ID the table does not hold where `stored_range` (StoredIdRange) holds: one row per ID
// (which copy of a repeated one, unspecified), in timestamp order. Stored IDs are left alone.
std::string InsertNewIdsSql(const TableDef& table, std::string_view rows_sql,
                            std::string_view stored_range);

// An UPDATE of the rows of `table` (where `stored_range` holds) whose ID is among the rows of
// `rows_sql` and whose values differ from that row's (one row per ID, as InsertNewIdsSql), to
// those values. With InsertNewIdsSql after it, an upsert by ID.
std::string UpdateStoredIdsSql(const TableDef& table, std::string_view rows_sql,
                               std::string_view stored_range);

// A TEMP table with the columns of one lake table ("<table>_stage"), for rows that reach it through
// an appender and one INSERT ... SELECT (the contracts, the candles), created on first use. Errors
// name `step`. The connection must outlive the object.
class TableStage {
 public:
  static Result<TableStage> Open(duck::Connection& conn, std::string_view table, std::string step);
  // Appends to the stage; valid until Write or until it is closed (closing twice is harmless).
  duck::Appender& appender() { return appender_; }
  const std::string& name() const { return name_; }
  // Closes the appender, runs `statements` in order (they read name()), empties the stage;
  // returns the rows they changed, summed. With a `count_sql` (one BIGINT, reading name()) that
  // counts no row to write, the statements are skipped: the stage is only emptied and 0 returned.
  Result<int64_t> Write(const std::string& count_sql, const std::vector<std::string>& statements);

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
