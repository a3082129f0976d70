// `raw import`: loads pdr-backend CSV exports (a lake_data folder or single files) and pdr-backend
// DuckDB databases (lake_data/duckdb.db, opened read-only) into the raw tables, in one
// transaction, and records the window they cover as watermarks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.hpp"
#include "common/status.hpp"
#include "lake/lake.hpp"

namespace predlake::raw {

struct ImportOptions {
  // Folders (searched for <table>/*.csv, <table>.csv and <table>_*.csv per raw table, and for a
  // duckdb.db), CSV files (their table from the name <table>.csv / <table>_*.csv, else from the
  // header), or DuckDB database files (told by their header, whatever their name): every raw table
  // the database holds, by its name, read through the same column mapping as a CSV file (values
  // as DuckDB prints them; DOUBLE amounts in plain decimal notation).
  // pdr-backend's OHLCV files, <exchange>_<BASE-QUOTE>_<timeframe>.parquet (in a folder or
  // named), go to pdr_ohlcv, each with its stream's watermark (docs/ohlcv.md).
  std::vector<std::string> paths;
  // The window the files cover. Defaults: the smallest timestamp of the imported rows, and the
  // largest plus 1 ms (over all tables).
  std::optional<int64_t> from_ms;
  std::optional<int64_t> to_ms;
  // The network the files are imported for, recorded in the run's detail ("" leaves it out).
  std::string network;
  // The command's now: a window ending after it is refused (no event of the future can be in the
  // files). nullopt: not checked.
  std::optional<int64_t> now_ms;
};

struct ImportTableReport {
  std::string table;
  std::vector<std::string> files;
  lake::TableCounts counts;  // rows_in rows read, rows_out rows stored (the others were present)
  std::optional<lake::Watermark> before;
  lake::Watermark after;
};

struct ImportReport {
  int64_t run_id = 0;
  int64_t from_ms = 0;
  int64_t to_ms = 0;
  std::vector<ImportTableReport> tables;  // the tables that had files, in raw table order
};

// Imports everything or nothing. Columns are matched by header name (case-insensitive, any
// order; unknown columns are ignored); ID, timestamp and the table's other event columns are
// required, while pdr_predictions' predvalue/truevalue/payout and pdr_slots' status may be absent
// (NULL). Empty fields are NULL; booleans are true/false/1/0 in any case; amounts are decimal text
// stored exactly. Rows whose ID is present already are skipped.
//
// Watermarks: a table without one gets [from, to); a table whose coverage [start, W) overlaps or
// touches [from, to) gets [min, max); a window that would leave a gap is an error.
//
// The import is `run` (begun on `lake`): it finishes it in the import's transaction with the
// window, per-table counts and the detail {files, network}.
//
// Errors (nothing is imported, the run is failed with the requested window): kUsage for a path
// that does not exist or holds no CSV files (or a database without raw tables), from >= to, or a
// window ending after options.now_ms; kBusy for a database another process writes to;
// kData "FILE:LINE: what" for a
// malformed file, a missing column or a bad value, and for a gap between the window and a table's
// coverage.
Result<ImportReport> Import(lake::Lake& lake, lake::Run& run, const ImportOptions& options,
                            Progress* progress);

}  // namespace predlake::raw
