// Storing rows into the raw tables exactly once: rows go through an Appender into a per-connection
// staging table, then one `INSERT ... SELECT ... ON CONFLICT` moves them into the raw table, so
// that a repeated ID costs a primary-key lookup, not a scan of the table.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.hpp"
#include "duck/duck.hpp"
#include "raw/schema.hpp"

namespace predlake::raw {

struct StoreCounts {
  int64_t rows_in = 0;       // rows offered
  int64_t rows_out = 0;      // new IDs stored
  int64_t rows_updated = 0;  // stored IDs whose values changed (upsert tables only)
};

// Owns the staging tables of one connection (TEMP tables, so they are private to it and never
// reach the database file). Not thread-safe; the connection must outlive the Stager.
class Stager {
 public:
  // Creates the staging tables (empty copies of the raw tables without their key). kData on a
  // DuckDB error.
  static Result<Stager> Create(duck::Connection& conn);

  // Appends `rows` to the staging table of `table`. Rows accumulate until Flush.
  Status Stage(const TableDef& table, const std::vector<Row>& rows);

  // Moves the staged rows of `table` into it and empties the staging table. Insert-only tables
  // skip IDs already present (ON CONFLICT DO NOTHING); upsert tables (pdr_slots) replace the
  // stored values of a present ID when they differ. Call inside the transaction that also records
  // the watermark covering the rows.
  Result<StoreCounts> Flush(const TableDef& table);

  // Stage + Flush.
  Result<StoreCounts> Store(const TableDef& table, const std::vector<Row>& rows);

  // Empties every staging table (after a rolled-back transaction, for instance).
  Status Clear();

 private:
  explicit Stager(duck::Connection* conn) : conn_(conn) {}
  duck::Connection* conn_;
  std::vector<int64_t> staged_;  // rows staged per table, RawTables() order
};

// The staging table's name for a raw table.
std::string StagingName(const TableDef& table);

}  // namespace predlake::raw
