// What the operating commands need to know about a lake's tables: which tables exist and of which
// kind, their columns, the column that gives a table's event time, the raw frontier, and a helper
// that runs a query and returns every value as DuckDB renders it.
//
// Thread safety: the functions use the connection they are given; one thread at a time per
// connection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "common/table_format.hpp"
#include "duck/duck.hpp"
#include "lake/lake.hpp"

namespace predlake::ops {

// Snapshot tables: fetched whole, no watermark (feed contracts).
inline constexpr std::string_view kContractsTable = lake::kContractsTable.name;

// The built tables the validate checks know by name (lake::kBuiltTables lists them all).
inline constexpr std::string_view kBronzePredictions = lake::kBronzePredictions;
inline constexpr std::string_view kBronzeSlots = lake::kBronzeSlots;

enum class TableKind {
  kRaw,          // append-only copies of source events, with a watermark
  kSnapshot,     // latest state of source entities (pdr_contracts)
  kBuilt,        // the ETL's output, covered by the checkpoint
  kBookkeeping,  // predlake_* tables
  kStaging,      // an ETL run's scratch tables; present between runs only when a run died
};

// The earliest start the lake records (its watermarks' and its checkpoint's start_ms), or nullopt
// when it records none. A start moved later than this changes nothing (docs/runs.md).
Result<std::optional<int64_t>> RecordedStart(lake::Lake& lake);

// "raw", "snapshot", "built", "bookkeeping", "staging".
std::string_view TableKindName(TableKind kind);

// True for names the ETL uses for its staging tables (etl_stage_*).
bool IsStagingTable(std::string_view name);

struct TableRef {
  std::string name;
  TableKind kind = TableKind::kBuilt;
  std::vector<std::string> columns;  // as declared, in order

  bool HasColumn(std::string_view column) const;
};

// Every table of the lake's own database, classified and ordered: raw tables in lake::kRawTables
// order (present or not in the file, they are listed only when they exist), the snapshot table,
// built tables (bronze_pdr_predictions and bronze_pdr_slots first, then by name), bookkeeping and
// staging tables by name. Errors are kData.
Result<std::vector<TableRef>> ListTables(duck::Connection& conn);

// The SQL expression giving a row's time in unix ms for `table`: `timestamp` when the table has it,
// else `slot * 1000` when it has `slot`, else the start of `day` (gold tables); "" otherwise.
std::string TimeExpression(const TableRef& table);

// A CTE body (no leading WITH) named `feed_epochs(contract, epoch_s)`: each feed contract's epoch
// length in seconds, from pdr_contracts.seconds_per_epoch, else from the timeframe ("5m", "1h",
// "1d", "30s") seen in pdr_predictions or pdr_subscriptions.
std::string FeedEpochsCte();

// Runs one SELECT and returns its rows with every value rendered by DuckDB's own cast to VARCHAR
// (decimals keep their scale; NULL stays nullopt, distinct from ""). `numeric` is set for integer,
// decimal and floating point columns. Errors are kData "step: DuckDB message".
// The contracts the newest successful fetch set aside (raw::UpdateReport::skipped_contracts, in
// its run's detail: at the top for `raw update`, under "raw" for `update`, whose runs that only
// build, the parts of a first update, have none), as rows of (kind = 'contract', name = its id,
// why).
inline constexpr std::string_view kContractsSetAsideSql =
    "SELECT 'contract' AS kind, c ->> '$.id' AS name, c ->> '$.reason' AS why FROM (SELECT "
    "unnest(CAST(s AS JSON[])) AS c FROM (SELECT coalesce(detail -> '$.skipped_contracts', "
    "detail -> '$.raw.skipped_contracts') AS s FROM (SELECT detail FROM predlake_runs WHERE "
    "status = 'succeeded' AND (command = 'raw update' OR (command = 'update' AND (detail -> "
    "'$.raw') IS NOT NULL)) AND detail IS NOT NULL ORDER BY run_id DESC LIMIT 1)) WHERE "
    "json_type(s) = 'ARRAY')";

Result<ResultSet> QueryText(duck::Connection& conn, std::string_view select_sql,
                            std::string_view step);

// Makes a DuckDB error message fit one readable line: collapses runs of white space and drops the
// "LINE n: ..." source excerpt with its caret.
std::string OneLine(std::string_view message);

}  // namespace predlake::ops
