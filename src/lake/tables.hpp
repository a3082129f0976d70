// The one definition of the lake's source tables (the five raw event tables and the pdr_contracts
// snapshot): their names, columns in order, column types, key, timestamp column and nullability.
// The DDL (CreateTableSql), the fetchers, `raw import` and `sim dump` all read it; tests/lake
// checks that the schema a lake gets matches it column for column. Also defined here, once each:
// the built tables' names, the staging-table prefixes, and the nftData keys that fill
// pdr_contracts.
//
// Everything here is constexpr data; no function touches DuckDB.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace predlake::lake {

enum class ColumnType { kVarchar, kBoolean, kBigint, kDecimal };

// The type as written in DDL ("DECIMAL(38, 18)"): amounts are exact decimals.
std::string_view SqlTypeName(ColumnType type);

struct ColumnDef {
  std::string_view name;
  ColumnType type;
  // pdr-backend's CSV exports may lack the column; `raw import` leaves it NULL then.
  bool import_optional = false;
};

inline constexpr size_t kNoColumn = static_cast<size_t>(-1);

struct TableDef {
  std::string_view name;
  // In table order. columns[0] is `ID` (VARCHAR, NOT NULL), which names one row: the raw writes
  // store an ID once (raw::InsertNewIdsSql); no index enforces it (see CreateTableSql).
  std::span<const ColumnDef> columns;
  // Index of `timestamp` (unix ms, BIGINT NOT NULL); kNoColumn for a snapshot table. Every other
  // column is nullable.
  size_t timestamp_column = kNoColumn;
  // pdr_slots: rows hold an entity's latest state, so a newer copy replaces the stored one.
  bool upsert = false;
  // pdr_predictions: an entity the source re-wrote with a later timestamp (a re-submitted
  // prediction) replaces the stored row, and the superseded version moves to this table (see
  // kPredictionVersionsTable); nullptr for the other tables.
  const TableDef* versions = nullptr;
  // The key is (ID, timestamp) instead of ID alone (the versions table), a primary key in DuckDB.
  bool keyed_by_timestamp = false;

  // False for the key columns and the timestamp column.
  constexpr bool Nullable(size_t column) const { return column != 0 && column != timestamp_column; }
  // The primary key's columns, comma-separated ("ID" or "ID, timestamp").
  constexpr std::string_view KeySql() const { return keyed_by_timestamp ? "ID, timestamp" : "ID"; }
};

// The index of column `name` in `columns`. Used at compile time (see Col), where a name that is not
// there fails the build.
constexpr size_t ColumnIndex(std::span<const ColumnDef> columns, std::string_view name) {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return i;
  }
  return kNoColumn;
}

// The index of column `name` of `table`, checked when compiled: `row[Col(kPayoutsTable, "user")]`.
consteval size_t Col(const TableDef& table, std::string_view name) {
  const size_t index = ColumnIndex(table.columns, name);
  if (index == kNoColumn) throw "no such column";  // not a constant expression: a build error
  return index;
}

namespace columns {
using T = ColumnType;
inline constexpr bool kImportOptional = true;  // see ColumnDef::import_optional
// Timestamps are unix milliseconds, slots unix seconds, amounts exact decimals.
inline constexpr ColumnDef kPredictions[] = {{"ID", T::kVarchar},
                                             {"contract", T::kVarchar},
                                             {"pair", T::kVarchar},
                                             {"timeframe", T::kVarchar},
                                             {"predvalue", T::kBoolean, kImportOptional},
                                             {"stake", T::kDecimal},
                                             {"truevalue", T::kBoolean, kImportOptional},
                                             {"timestamp", T::kBigint},
                                             {"source", T::kVarchar},
                                             {"payout", T::kDecimal, kImportOptional},
                                             {"slot", T::kBigint},
                                             {"user", T::kVarchar}};
inline constexpr ColumnDef kTruevals[] = {{"ID", T::kVarchar},
                                          {"token", T::kVarchar},
                                          {"timestamp", T::kBigint},
                                          {"truevalue", T::kBoolean},
                                          {"slot", T::kBigint},
                                          {"revenue", T::kDecimal},
                                          {"roundSumStakesUp", T::kDecimal},
                                          {"roundSumStakes", T::kDecimal}};
inline constexpr ColumnDef kPayouts[] = {
    {"ID", T::kVarchar},        {"token", T::kVarchar},     {"user", T::kVarchar},
    {"slot", T::kBigint},       {"timestamp", T::kBigint},  {"payout", T::kDecimal},
    {"predvalue", T::kBoolean}, {"truevalue", T::kBoolean}, {"stake", T::kDecimal}};
inline constexpr ColumnDef kSubscriptions[] = {
    {"ID", T::kVarchar},       {"pair", T::kVarchar},  {"timeframe", T::kVarchar},
    {"source", T::kVarchar},   {"tx_id", T::kVarchar}, {"last_price_value", T::kDecimal},
    {"timestamp", T::kBigint}, {"user", T::kVarchar}};
// timestamp = slot * 1000.
inline constexpr ColumnDef kSlots[] = {{"ID", T::kVarchar},
                                       {"timestamp", T::kBigint},
                                       {"slot", T::kBigint},
                                       {"truevalue", T::kBoolean},
                                       {"roundSumStakesUp", T::kDecimal},
                                       {"roundSumStakes", T::kDecimal},
                                       {"status", T::kVarchar, kImportOptional}};
inline constexpr ColumnDef kContracts[] = {{"ID", T::kVarchar},
                                           {"pair", T::kVarchar},
                                           {"timeframe", T::kVarchar},
                                           {"source", T::kVarchar},
                                           {"seconds_per_epoch", T::kBigint},
                                           {"trueval_submit_timeout", T::kBigint},
                                           // where pair/timeframe/source came from (raw::Contract)
                                           {"metadata_from", T::kVarchar}};
// Exchange candles (pdr_ohlcv, the lake's second source; docs/ohlcv.md). ID is
// "exchange|pair|timeframe|timestamp", so that the key on those four is the ID the raw machinery
// keys every table on; timestamp is the candle's open time (ms). Prices are exact decimals as the
// exchange writes them.
inline constexpr ColumnDef kOhlcv[] = {{"ID", T::kVarchar},       {"exchange", T::kVarchar},
                                       {"pair", T::kVarchar},     {"timeframe", T::kVarchar},
                                       {"timestamp", T::kBigint}, {"open", T::kDecimal},
                                       {"high", T::kDecimal},     {"low", T::kDecimal},
                                       {"close", T::kDecimal},    {"volume", T::kDecimal}};
// A superseded version of a prediction: its columns as they were, and the timestamp of the version
// that replaced it.
inline constexpr auto kPredictionVersions = [] {
  std::array<ColumnDef, std::size(kPredictions) + 1> all{};
  for (size_t i = 0; i < std::size(kPredictions); ++i) all[i] = kPredictions[i];
  all.back() = {"superseded_at", T::kBigint};
  return all;
}();
}  // namespace columns

// The superseded versions of re-submitted predictions (a bookkeeping table, keyed by (ID,
// timestamp)): the subgraph overwrites the entity, so pdr_predictions holds the latest version and
// this table every earlier one the lake saw, each with `superseded_at`, the next version's
// timestamp. Written by the raw fetch in the transaction that stores the newer version; `raw drop`
// restores from it; the ETL reads it to build a prediction as of any time.
inline constexpr TableDef kPredictionVersionsTable = {
    "predlake_prediction_versions",
    columns::kPredictionVersions,
    ColumnIndex(columns::kPredictionVersions, "timestamp"),
    false,
    nullptr,
    true};

// The raw tables, in the order they are fetched and reported. Raw tables are append-only copies of
// source events, one row per entity id (a repeated ID is not inserted again: raw::InsertNewIdsSql).
// A re-submitted prediction replaces its row (`versions`).
inline constexpr std::array<TableDef, 5> kRawTableDefs = {{
    {"pdr_predictions", columns::kPredictions, ColumnIndex(columns::kPredictions, "timestamp"),
     false, &kPredictionVersionsTable},
    {"pdr_truevals", columns::kTruevals, ColumnIndex(columns::kTruevals, "timestamp")},
    {"pdr_payouts", columns::kPayouts, ColumnIndex(columns::kPayouts, "timestamp")},
    {"pdr_subscriptions", columns::kSubscriptions,
     ColumnIndex(columns::kSubscriptions, "timestamp")},
    // Slot entities hold their latest state (status and totals change after a slot first
    // appears).
    {"pdr_slots", columns::kSlots, ColumnIndex(columns::kSlots, "timestamp"), true},
}};
inline constexpr const TableDef& kPredictionsTable = kRawTableDefs[0];
inline constexpr const TableDef& kTruevalsTable = kRawTableDefs[1];
inline constexpr const TableDef& kPayoutsTable = kRawTableDefs[2];
inline constexpr const TableDef& kSubscriptionsTable = kRawTableDefs[3];
inline constexpr const TableDef& kSlotsTable = kRawTableDefs[4];

// Feed contracts as last fetched (a snapshot, no watermark): what each feed is and its epoch rules.
inline constexpr TableDef kContractsTable = {"pdr_contracts", columns::kContracts, kNoColumn, true};

// Exchange candles: a raw table of the exchange source, not of the subgraph (so not one of
// kRawTableDefs, which the subgraph fetch walks). Insert-only. Its watermarks are per stream, one
// per (exchange, pair, timeframe), named by OhlcvStreamName.
inline constexpr TableDef kOhlcvTable = {"pdr_ohlcv", columns::kOhlcv,
                                         ColumnIndex(columns::kOhlcv, "timestamp")};
// Every watermark row of a candle stream starts with this ("pdr_ohlcv:binance:BTC/USDT:5m").
inline constexpr std::string_view kOhlcvStreamPrefix = "pdr_ohlcv:";
// The watermark name of the stream (exchange, pair, timeframe).
std::string OhlcvStreamName(std::string_view exchange, std::string_view pair,
                            std::string_view timeframe);
// The ID of a candle row.
std::string OhlcvId(std::string_view exchange, std::string_view pair, std::string_view timeframe,
                    int64_t open_ms);

// Their names, in the same order.
inline constexpr std::array<std::string_view, kRawTableDefs.size()> kRawTables = [] {
  std::array<std::string_view, kRawTableDefs.size()> names{};
  for (size_t i = 0; i < names.size(); ++i) names[i] = kRawTableDefs[i].name;
  return names;
}();

// Every table defined here: the raw tables, pdr_contracts, the prediction versions, then the
// candles.
inline constexpr std::array<const TableDef*, kRawTableDefs.size() + 3> kSourceTableDefs = [] {
  std::array<const TableDef*, kRawTableDefs.size() + 3> all{};
  for (size_t i = 0; i < kRawTableDefs.size(); ++i) all[i] = &kRawTableDefs[i];
  all[kRawTableDefs.size()] = &kContractsTable;
  all[kRawTableDefs.size() + 1] = &kPredictionVersionsTable;
  all[kRawTableDefs.size() + 2] = &kOhlcvTable;
  return all;
}();

// The bookkeeping table of the candles stored or corrected since the last ETL publish
// (src/lake/sql/01_bookkeeping.sql): candles are late data for a slot (they never hold the ETL
// frontier back), so the ETL folds into the built slots what these rows say changed.
inline constexpr std::string_view kCandleChangesTable = "predlake_candle_changes";

// One statement that records, for a write of candles, the open-time range of each stream's rows
// that `rows_sql` selects (a query with exchange, pair, timeframe and timestamp columns) in
// predlake_candle_changes. Run it in the write's transaction.
std::string RecordCandleChangesSql(std::string_view rows_sql);

// The UTC day of a row's unix-ms `timestamp`, as SQL (a DATE): the day the exports partition the
// raw and bronze tables by, and the day predlake_raw_days records.
inline constexpr std::string_view kTimestampDaySql = "CAST(epoch_ms(\"timestamp\") AS DATE)";

// The bookkeeping table of the days written in place (src/lake/sql/01_bookkeeping.sql).
inline constexpr std::string_view kRawDaysTable = "predlake_raw_days";

// Whether the writes of `table` record the days they touch in predlake_raw_days: the raw tables
// whose stored rows change in place (pdr_predictions, pdr_slots). The others only gain rows.
constexpr bool RecordsWrittenDays(const TableDef& table) {
  return table.upsert || table.versions != nullptr;
}

// One statement that records, for a write of `table`, the days of the rows `rows_sql` selects (a
// query with a `timestamp` column; NULL timestamps are skipped) in predlake_raw_days, numbered
// above every day recorded before. Run it in the write's transaction, before the rows it names
// are gone.
std::string RecordWrittenDaysSql(const TableDef& table, std::string_view rows_sql);

// The raw table called `name`, or nullptr (pdr_contracts is not a raw table).
const TableDef* FindRawTable(std::string_view name);

// "pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions, pdr_slots", for messages.
std::string RawTableList(std::string_view separator = ", ");

// `CREATE TABLE IF NOT EXISTS name (ID VARCHAR NOT NULL, ..., timestamp BIGINT NOT NULL, ...)`.
// Only a table keyed_by_timestamp gets a PRIMARY KEY; the others are lake::kUnkeyedTables.
std::string CreateTableSql(const TableDef& table);

// The column every copy of an ID agrees on, which bounds where a stored copy of a row can be:
// `slot` where the table has one (an ID holds its slot: contract-slot[-user]); else `timestamp`
// (a candle's ID holds its open time; a subscription's, contract-txId-eventIndex, its transaction,
// whose block time is the timestamp: Sapphire's blocks are final, so a transaction's block never
// changes); kNoColumn for the pdr_contracts snapshot (a few rows, read whole).
size_t IdRangeColumn(const TableDef& table);

// The built tables (the ETL's output, created by src/lake/sql/03_built_tables.sql), in publish
// order.
inline constexpr std::string_view kBronzeSlots = "bronze_pdr_slots";
inline constexpr std::string_view kBronzePredictions = "bronze_pdr_predictions";
inline constexpr std::array<std::string_view, 5> kBuiltTables = {
    kBronzeSlots, kBronzePredictions, "gold_predictoor_daily", "gold_feed_daily",
    "gold_feed_sales_daily"};

// Columns appended to a built table after its first definition in src/lake/sql/03_built_tables.sql,
// in order (the one definition of each: Lake::EnsureSchema appends them to a new lake and to an
// older one alike, so both end with the same column order). docs/etl.md defines the metrics.
struct BuiltColumnDef {
  std::string_view table;
  std::string_view name;
  ColumnType type;
};
inline constexpr std::string_view kGoldPredictoorDaily = "gold_predictoor_daily";
inline constexpr std::string_view kGoldFeedDaily = "gold_feed_daily";
inline constexpr BuiltColumnDef kBuiltColumnsAdded[] = {
    // The honest metrics (issue 12): cash received against stakes in paying slots, the stakes
    // behind the resolved / unrevealed counts, refunds apart.
    {kGoldPredictoorDaily, "settled_stake", ColumnType::kDecimal},
    {kGoldPredictoorDaily, "settled_payout", ColumnType::kDecimal},
    {kGoldPredictoorDaily, "cash_pnl", ColumnType::kDecimal},
    {kGoldPredictoorDaily, "resolved_stake", ColumnType::kDecimal},
    {kGoldPredictoorDaily, "unrevealed_stake", ColumnType::kDecimal},
    {kGoldPredictoorDaily, "refund_pending", ColumnType::kDecimal},
    {kGoldPredictoorDaily, "refund_claimed", ColumnType::kDecimal},
    // How many stakes of each stake sum above are unknown (the sum is NULL when any is), and the
    // sum of the known ones, which the incremental ETL adds its deltas to.
    {kGoldPredictoorDaily, "settled_stake_unknown", ColumnType::kBigint},
    {kGoldPredictoorDaily, "resolved_stake_unknown", ColumnType::kBigint},
    {kGoldPredictoorDaily, "unrevealed_stake_unknown", ColumnType::kBigint},
    {kGoldPredictoorDaily, "refund_pending_unknown", ColumnType::kBigint},
    {kGoldPredictoorDaily, "settled_stake_known_sum", ColumnType::kDecimal},
    {kGoldPredictoorDaily, "resolved_stake_known_sum", ColumnType::kDecimal},
    {kGoldPredictoorDaily, "unrevealed_stake_known_sum", ColumnType::kDecimal},
    {kGoldPredictoorDaily, "refund_pending_known_sum", ColumnType::kDecimal},
    {kGoldFeedDaily, "settled_stake", ColumnType::kDecimal},
    {kGoldFeedDaily, "settled_payout", ColumnType::kDecimal},
    {kGoldFeedDaily, "cash_pnl", ColumnType::kDecimal},
    {kGoldFeedDaily, "resolved_stake", ColumnType::kDecimal},
    {kGoldFeedDaily, "unrevealed_stake", ColumnType::kDecimal},
    {kGoldFeedDaily, "refund_pending", ColumnType::kDecimal},
    {kGoldFeedDaily, "refund_claimed", ColumnType::kDecimal},
    // Stake-weighted consensus over the feed's paying slots with a trueval and stake.
    {kGoldFeedDaily, "consensus_slots", ColumnType::kBigint},
    {kGoldFeedDaily, "consensus_correct_slots", ColumnType::kBigint},
    {kGoldFeedDaily, "consensus_stake", ColumnType::kDecimal},
    {kGoldFeedDaily, "consensus_correct_stake", ColumnType::kDecimal},
    // The exchange's own outcome of each slot (issue 14, docs/ohlcv.md): the two candle closes
    // Predictoor's trueval compares, the move ('up', 'down', 'flat') and whether the on-chain
    // trueval agrees; per feed day, the slots whose trueval disagrees.
    {kBronzeSlots, "exchange_init_close", ColumnType::kDecimal},
    {kBronzeSlots, "exchange_end_close", ColumnType::kDecimal},
    {kBronzeSlots, "exchange_move", ColumnType::kVarchar},
    {kBronzeSlots, "trueval_agrees", ColumnType::kBoolean},
    {kGoldFeedDaily, "trueval_disagreements", ColumnType::kBigint},
};

// Bookkeeping tables (src/lake/sql/01_bookkeeping.sql) all start with this.
inline constexpr std::string_view kBookkeepingPrefix = "predlake_";

// Every staging table of an ETL run starts with this (the ETL's SQL spells it; tests/etl checks
// that they agree). Such a table in the lake between runs is a dead run's leftover.
inline constexpr std::string_view kEtlStagingPrefix = "etl_stage_";
// The per-connection TEMP tables raw ingestion stages rows in: prefix + raw table name.
inline constexpr std::string_view kRawStagingPrefix = "predlake_stage_";

// keccak256 of "pair", "timeframe" and "source": the nftData keys of a feed's data NFT, whose
// values fill pdr_contracts' pair, timeframe and source.
inline constexpr std::string_view kNftPairKey =
    "0x2cef5778d97683b4f64607f72e862fc0c92376e44cc61195ef72a634c0b1793e";
inline constexpr std::string_view kNftTimeframeKey =
    "0x49435d2ff85f9f3594e40e887943d562765d026d50b7383e76891f8190bff4c9";
inline constexpr std::string_view kNftSourceKey =
    "0xf7e3126f87228afb82c9b18537eed25aaeb8171a78814781c26ed2cfeff27e69";
inline constexpr std::array<std::string_view, 3> kNftDataKeys = {kNftPairKey, kNftTimeframeKey,
                                                                 kNftSourceKey};

// What the code relies on, checked at compile time.
constexpr bool WellFormed(const TableDef& t) {
  if (t.columns.empty() || t.columns[0].name != "ID" || t.columns[0].type != ColumnType::kVarchar)
    return false;
  if (t.timestamp_column == kNoColumn) return true;
  return t.timestamp_column < t.columns.size() &&
         t.columns[t.timestamp_column].name == "timestamp" &&
         t.columns[t.timestamp_column].type == ColumnType::kBigint;
}
static_assert([] {
  for (const TableDef& t : kRawTableDefs) {
    if (!WellFormed(t) || t.timestamp_column == kNoColumn) return false;
  }
  return WellFormed(kContractsTable) && WellFormed(kPredictionVersionsTable) &&
         WellFormed(kOhlcvTable);
}());
// A version has every column of its table, in the same order.
static_assert([] {
  const TableDef& t = kPredictionsTable;
  const TableDef& v = kPredictionVersionsTable;
  if (v.columns.size() != t.columns.size() + 1) return false;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (v.columns[i].name != t.columns[i].name || v.columns[i].type != t.columns[i].type)
      return false;
  }
  return true;
}());

}  // namespace predlake::lake
