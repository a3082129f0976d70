#include "raw/import.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "raw/csv.hpp"
#include "raw/store.hpp"
#include "source/exchange/exchange.hpp"

namespace predlake::raw {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBatchRows = 50'000;

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions or pdr_slots".
std::string RawTableChoice() {
  std::string list = lake::RawTableList();
  const size_t last = list.rfind(", ");
  return list.substr(0, last) + " or " + list.substr(last + 2);
}

// A DuckDB database file (pdr-backend's lake_data/duckdb.db): its header holds "DUCK" at byte 8.
bool IsDuckDbFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char header[12] = {};
  const size_t n = std::fread(header, 1, sizeof(header), f);
  std::fclose(f);
  return n == sizeof(header) && std::string_view(header + 8, 4) == "DUCK";
}

// Opens a pdr-backend database read-only and sealed (it reads nothing but that file).
Result<std::pair<duck::Database, duck::Connection>> OpenSource(const std::string& path) {
  duck::Options options;
  options.read_only = true;
  options.reach = duck::Reach::kSealed;
  auto db = duck::Database::Open(path, options);
  if (!db.ok()) {
    if (db.status().code() == StatusCode::kBusy) {
      return Status::Busy(path + ": another process writes to this database; stop it first");
    }
    return Status::Data(path + ": cannot open as a DuckDB database: " + db.status().message());
  }
  ASSIGN_OR_RETURN(duck::Connection conn, db->Connect());
  return std::make_pair(std::move(db).value(), std::move(conn));
}

// The raw tables a pdr-backend database holds (pdr-backend names its tables as we do).
Result<std::vector<const TableDef*>> TablesInDatabase(const std::string& path) {
  ASSIGN_OR_RETURN(auto source, OpenSource(path));
  ASSIGN_OR_RETURN(auto rs, source.second.Query("SELECT table_name FROM duckdb_tables() WHERE "
                                                "database_name = current_database() AND "
                                                "schema_name = 'main'",
                                                path + ": list tables"));
  std::set<std::string> names;
  for (const auto& row : rs.ToText()) names.insert(Lower(row[0].value_or("")));
  std::vector<const TableDef*> out;
  for (const TableDef& t : RawTables()) {
    if (names.count(std::string(t.name)) > 0) out.push_back(&t);
  }
  return out;
}

// Plain decimal text for a number DuckDB printed in exponent form (a DOUBLE's 1e-05): the
// same text a CSV export holds, so that both paths store the same decimal.
std::string PlainDecimal(const std::string& text) {
  const size_t e = text.find_first_of("eE");
  if (e == std::string::npos) return text;
  std::string mantissa = text.substr(0, e);
  int exponent = 0;
  auto [ptr, ec] = std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0),
                                   text.data() + text.size(), exponent);
  if (ec != std::errc() || ptr != text.data() + text.size()) return text;
  const bool negative = !mantissa.empty() && mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  size_t point = mantissa.find('.');
  std::string digits = mantissa;
  int int_digits = static_cast<int>(mantissa.size());
  if (point != std::string::npos) {
    digits.erase(point, 1);
    int_digits = static_cast<int>(point);
  }
  int_digits += exponent;
  std::string out;
  if (int_digits <= 0) {
    out = "0." + std::string(static_cast<size_t>(-int_digits), '0') + digits;
  } else if (static_cast<size_t>(int_digits) >= digits.size()) {
    out = digits + std::string(static_cast<size_t>(int_digits) - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<size_t>(int_digits)) + "." +
          digits.substr(static_cast<size_t>(int_digits));
  }
  return negative ? "-" + out : out;
}

// The table a file name names: <table>.csv or <table>_*.csv.
const TableDef* TableFromName(const fs::path& file) {
  std::string name = Lower(file.filename().string());
  if (!EndsWith(name, ".csv")) return nullptr;
  for (const TableDef& t : RawTables()) {
    std::string base(t.name);
    if (name == base + ".csv" || name.rfind(base + "_", 0) == 0) return &t;
  }
  return nullptr;
}

// A pdr-backend OHLCV file (ohlcv_data_factory: <exchange>_<BASE-QUOTE>_<timeframe>.parquet,
// columns timestamp (Int64, open time in ms) and open, high, low, close, volume (Float64)).
struct OhlcvFile {
  std::string path;
  std::string exchange, pair, timeframe;
};

std::optional<OhlcvFile> OhlcvFileFromName(const fs::path& file) {
  std::string name = file.filename().string();
  if (!EndsWith(Lower(name), ".parquet")) return std::nullopt;
  std::string stem = name.substr(0, name.size() - std::string_view(".parquet").size());
  size_t a = stem.find('_');
  size_t b = stem.rfind('_');
  if (a == std::string::npos || a == b) return std::nullopt;
  OhlcvFile f{file.string(), Lower(stem.substr(0, a)), stem.substr(a + 1, b - a - 1),
              stem.substr(b + 1)};
  std::replace(f.pair.begin(), f.pair.end(), '-', '/');
  if (f.exchange.empty() || !exchange::BinanceSymbol(f.pair) ||
      !exchange::TimeframeMs(f.timeframe)) {
    return std::nullopt;
  }
  return f;
}

// The table whose columns a header holds (all required ones, nothing from another table only).
Result<const TableDef*> TableFromHeader(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<CsvReader> reader, CsvReader::Open(path));
  std::vector<std::string> header;
  Status error;
  if (!reader->Next(header, error)) {
    return error.ok() ? Status::Data(path + ":1: empty file, expected a header row") : error;
  }
  std::set<std::string> names;
  for (const std::string& h : header) names.insert(Lower(h));
  const TableDef* found = nullptr;
  for (const TableDef& t : RawTables()) {
    bool all = std::all_of(t.columns.begin(), t.columns.end(), [&](const ColumnDef& c) {
      return c.import_optional || names.count(Lower(c.name)) > 0;
    });
    bool exact = all && std::all_of(names.begin(), names.end(), [&](const std::string& n) {
                   return std::any_of(t.columns.begin(), t.columns.end(),
                                      [&](const ColumnDef& c) { return Lower(c.name) == n; });
                 });
    if (exact) {
      if (found != nullptr)
        found = nullptr;  // ambiguous: require a telling file name
      else
        found = &t;
    }
  }
  if (found == nullptr) {
    return Status::Data(path +
                        ": cannot tell which raw table it holds; name it <table>.csv or "
                        "<table>_*.csv (" +
                        lake::RawTableList() + ")");
  }
  return found;
}

using FileSets = std::map<size_t, std::vector<std::string>>;  // RawTables() index -> files

size_t IndexOf(const TableDef* t) { return static_cast<size_t>(t - RawTables().data()); }

// `databases` receives the paths that are DuckDB databases (read by table, not as CSV).
Status Discover(const std::vector<std::string>& paths, FileSets& out,
                std::set<std::string>& databases, std::vector<OhlcvFile>& candles) {
  std::set<std::string> seen;
  auto add = [&](const TableDef* t, const fs::path& p) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(p, ec);
    // A database holds several tables: one entry per table.
    std::string key = (ec ? p.string() : canonical.string()) + '\0' + std::string(t->name);
    if (seen.insert(key).second) out[IndexOf(t)].push_back(p.string());
  };
  if (paths.empty()) return Status::Usage("raw import: no PATH given");
  for (const std::string& path : paths) {
    std::error_code ec;
    fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) return Status::Usage(path + ": no such file or directory");
    auto add_database = [&](const std::string& db_path) -> Result<size_t> {
      ASSIGN_OR_RETURN(std::vector<const TableDef*> tables, TablesInDatabase(db_path));
      for (const TableDef* t : tables) add(t, db_path);
      databases.insert(db_path);
      return tables.size();
    };
    if (fs::is_regular_file(st) && IsDuckDbFile(path)) {
      ASSIGN_OR_RETURN(size_t tables, add_database(path));
      if (tables == 0) {
        return Status::Usage(path + ": a DuckDB database without raw tables (expected " +
                             RawTableChoice() + ")");
      }
      continue;
    }
    if (fs::is_regular_file(st) && EndsWith(Lower(path), ".parquet")) {
      std::optional<OhlcvFile> f = OhlcvFileFromName(path);
      if (!f) {
        return Status::Usage(path +
                             ": not a pdr-backend OHLCV file name "
                             "(<exchange>_<BASE-QUOTE>_<timeframe>.parquet)");
      }
      candles.push_back(std::move(*f));
      continue;
    }
    if (fs::is_regular_file(st)) {
      const TableDef* t = TableFromName(path);
      if (t == nullptr) {
        ASSIGN_OR_RETURN(t, TableFromHeader(path));
      }
      add(t, path);
      continue;
    }
    if (!fs::is_directory(st)) return Status::Usage(path + ": not a file or directory");
    size_t found = 0;
    for (const TableDef& t : RawTables()) {
      std::vector<fs::path> files;
      fs::path sub = fs::path(path) / std::string(t.name);
      if (fs::is_directory(sub, ec)) {
        for (const auto& e : fs::directory_iterator(sub, ec)) {
          if (e.is_regular_file() && EndsWith(Lower(e.path().filename().string()), ".csv")) {
            files.push_back(e.path());
          }
        }
      }
      for (const auto& e : fs::directory_iterator(path, ec)) {
        if (e.is_regular_file() && TableFromName(e.path()) == &t) files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) add(&t, f);
      found += files.size();
    }
    // pdr-backend's OHLCV files (ohlcv_data_factory), beside the rest.
    {
      std::vector<OhlcvFile> found_candles;
      for (const auto& e : fs::directory_iterator(path, ec)) {
        if (!e.is_regular_file()) continue;
        if (auto f = OhlcvFileFromName(e.path())) found_candles.push_back(std::move(*f));
      }
      std::sort(found_candles.begin(), found_candles.end(),
                [](const OhlcvFile& x, const OhlcvFile& y) { return x.path < y.path; });
      found += found_candles.size();
      for (OhlcvFile& f : found_candles) candles.push_back(std::move(f));
    }
    // pdr-backend's lake_data folder keeps its tables in duckdb.db.
    const fs::path db_file = fs::path(path) / "duckdb.db";
    std::error_code db_ec;  // a missing duckdb.db is no error
    if (fs::is_regular_file(db_file, db_ec) && IsDuckDbFile(db_file.string())) {
      ASSIGN_OR_RETURN(size_t tables, add_database(db_file.string()));
      found += tables;
    }
    if (ec) return Status::Data(path + ": cannot list: " + ec.message());
    if (found == 0) {
      return Status::Usage(path +
                           ": no pdr-format CSV files (expected <table>/*.csv, <table>.csv or "
                           "<table>_*.csv, or a duckdb.db holding the tables, for " +
                           RawTableChoice() + ")");
    }
  }
  return Status::Ok();
}

// Parses one field into `cell`; returns a description of what is wrong, or "".
std::string ParseCell(const std::string& text, ColumnType type, Cell& cell) {
  if (text.empty()) {
    cell = std::monostate();
    return "";
  }
  switch (type) {
    case ColumnType::kVarchar:
      cell = text;
      return "";
    case ColumnType::kBoolean: {
      std::string v = Lower(text);
      if (v == "true" || v == "1") {
        cell = true;
      } else if (v == "false" || v == "0") {
        cell = false;
      } else {
        return "expected true or false, got '" + text.substr(0, 40) + "'";
      }
      return "";
    }
    case ColumnType::kBigint: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size()) {
        return "expected an integer, got '" + text.substr(0, 40) + "'";
      }
      cell = v;
      return "";
    }
    case ColumnType::kDecimal:
      if (std::string problem = DecimalTextProblem(text); !problem.empty())
        return "'" + text.substr(0, 60) + "' " + problem;
      cell = text;
      return "";
  }
  return "unknown column type";
}

struct TableState {
  const TableDef* def = nullptr;
  ImportTableReport report;
  std::vector<Row> batch;
};

class Importer {
 public:
  Importer(Stager& stager, Progress* progress, const std::set<std::string>& databases)
      : stager_(stager), progress_(progress), databases_(databases) {}

  Status ReadFile(TableState& table, const std::string& path) {
    if (databases_.count(path) > 0) return ReadDatabase(table, path);
    ASSIGN_OR_RETURN(std::unique_ptr<CsvReader> reader, CsvReader::Open(path));
    std::vector<std::string> fields;
    Status error;
    if (!reader->Next(fields, error)) {
      return error.ok() ? Status::Data(path + ":1: empty file, expected a header row") : error;
    }
    ASSIGN_OR_RETURN(std::vector<int> target, MapColumns(*table.def, fields, path + ":1: "));
    while (reader->Next(fields, error)) {
      const std::string where = path + ":" + std::to_string(reader->line()) + ": ";
      if (fields.size() == 1 && fields[0].empty() && target.size() > 1) continue;  // blank line
      if (fields.size() != target.size()) {
        return Status::Data(where + "expected " + std::to_string(target.size()) + " fields, got " +
                            std::to_string(fields.size()));
      }
      std::vector<std::optional<std::string>> cells(fields.begin(), fields.end());
      RETURN_IF_ERROR(AddRow(table, target, cells, where));
    }
    RETURN_IF_ERROR(error);
    return Flush(table);
  }

  // One table of a pdr-backend DuckDB database: the same column mapping and parsing as a CSV
  // file, values as DuckDB prints them (DOUBLE amounts in plain decimal notation).
  Status ReadDatabase(TableState& table, const std::string& path) {
    const std::string name(table.def->name);
    const std::string where_table = path + " (table " + name + "): ";
    ASSIGN_OR_RETURN(auto source, OpenSource(path));
    duck::Connection& conn = source.second;
    ASSIGN_OR_RETURN(auto infos,
                     conn.Inspect("SELECT * FROM " + duck::QuoteIdent(name), where_table + "read"));
    if (infos.size() != 1) return Status::Internal(where_table + "expected one statement");
    const duck::StatementInfo& info = infos[0];
    ASSIGN_OR_RETURN(std::vector<int> target,
                     MapColumns(*table.def, info.column_names, where_table));
    std::string select;
    for (const std::string& column : info.column_names) {
      select += (select.empty() ? "" : ", ") + std::string("CAST(") + duck::QuoteIdent(column) +
                " AS VARCHAR)";
    }
    ASSIGN_OR_RETURN(auto result,
                     conn.QueryStreaming("SELECT " + select + " FROM " + duck::QuoteIdent(name),
                                         where_table + "read"));
    int64_t row_number = 0;
    std::vector<std::optional<std::string>> cells(info.column_names.size());
    while (auto chunk = result.NextChunk()) {
      for (size_t r = 0; r < chunk->size(); ++r) {
        ++row_number;
        for (size_t c = 0; c < cells.size(); ++c) {
          if (chunk->IsNull(c, r)) {
            cells[c].reset();
          } else {
            std::string text(chunk->GetString(c, r));
            cells[c] = info.column_types[c] == duck::Type::kDouble ? PlainDecimal(text) : text;
          }
        }
        RETURN_IF_ERROR(
            AddRow(table, target, cells, where_table + "row " + std::to_string(row_number) + ": "));
      }
    }
    RETURN_IF_ERROR(result.error());
    return Flush(table);
  }

  Status Flush(TableState& table) {
    if (table.batch.empty()) return Status::Ok();
    ASSIGN_OR_RETURN(lake::TableCounts counts, stager_.Store(*table.def, table.batch));
    table.report.counts += counts;
    table.batch.clear();
    if (progress_ != nullptr) {
      progress_->Update("raw import: " + table.report.table + " " +
                        std::to_string(table.report.counts.rows_in) + " rows");
    }
    return Status::Ok();
  }

  bool any_rows() const { return min_ts_ <= max_ts_; }
  int64_t min_ts() const { return min_ts_; }
  int64_t max_ts() const { return max_ts_; }

 private:
  // Which table column each source column fills (-1: ignored), by header name.
  static Result<std::vector<int>> MapColumns(const TableDef& def,
                                             const std::vector<std::string>& names,
                                             const std::string& where) {
    std::vector<int> target(names.size(), -1);
    std::vector<bool> present(def.columns.size(), false);
    for (size_t i = 0; i < names.size(); ++i) {
      std::string name = Lower(names[i]);
      for (size_t c = 0; c < def.columns.size(); ++c) {
        if (Lower(def.columns[c].name) != name) continue;
        if (present[c]) return Status::Data(where + "column `" + names[i] + "` appears twice");
        present[c] = true;
        target[i] = static_cast<int>(c);
      }
    }
    for (size_t c = 0; c < def.columns.size(); ++c) {
      if (!present[c] && !def.columns[c].import_optional) {
        return Status::Data(where + "missing column `" + std::string(def.columns[c].name) +
                            "` for " + std::string(def.name));
      }
    }
    return target;
  }

  // Parses one source row (nullopt: NULL, as an empty CSV field) and batches it.
  Status AddRow(TableState& table, const std::vector<int>& target,
                const std::vector<std::optional<std::string>>& cells, const std::string& where) {
    const TableDef& def = *table.def;
    Row row(def.columns.size());
    static const std::string kEmpty;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (target[i] < 0) continue;
      const ColumnDef& col = def.columns[static_cast<size_t>(target[i])];
      std::string what =
          ParseCell(cells[i] ? *cells[i] : kEmpty, col.type, row[static_cast<size_t>(target[i])]);
      if (!what.empty())
        return Status::Data(where + "column `" + std::string(col.name) + "`: " + what);
    }
    if (!std::holds_alternative<std::string>(row[0])) return Status::Data(where + "empty ID");
    const Cell& ts = row[def.timestamp_column];
    if (!std::holds_alternative<int64_t>(ts)) return Status::Data(where + "empty timestamp");
    min_ts_ = std::min(min_ts_, std::get<int64_t>(ts));
    max_ts_ = std::max(max_ts_, std::get<int64_t>(ts));
    table.batch.push_back(std::move(row));
    if (table.batch.size() >= kBatchRows) RETURN_IF_ERROR(Flush(table));
    return Status::Ok();
  }

  Stager& stager_;
  Progress* progress_;
  const std::set<std::string>& databases_;
  int64_t min_ts_ = INT64_MAX;
  int64_t max_ts_ = INT64_MIN;
};

// Stores the candles of pdr-backend OHLCV files (prices through their shortest decimal text, so
// that 43012.01 stays 43012.01) and gives each file's stream the window [from, to): the import's
// when declared, else the file's first open time to its last plus one timeframe. A stream's
// existing coverage must touch the window, as for the tables. Inside the caller's transaction.
Status ImportCandles(lake::Lake& lake, const ImportOptions& options,
                     const std::vector<OhlcvFile>& files, int64_t run_id,
                     std::vector<ImportTableReport>& reports) {
  for (const OhlcvFile& f : files) {
    const std::string stream = lake::OhlcvStreamName(f.exchange, f.pair, f.timeframe);
    const int64_t tf = *exchange::TimeframeMs(f.timeframe);
    const std::string source = "read_parquet(" + duck::QuoteString(f.path) + ")";
    auto dec = [](const char* col) {
      return std::string("CAST(CAST(\"") + col + "\" AS VARCHAR) AS DECIMAL(38, 18))";
    };
    ASSIGN_OR_RETURN(auto range, lake.conn().Query("SELECT count(*), min(\"timestamp\")::BIGINT, "
                                                   "max(\"timestamp\")::BIGINT FROM " +
                                                       source,
                                                   f.path));
    auto rows = range.ToText();
    ImportTableReport report;
    report.table = stream;
    report.files = {f.path};
    report.counts.rows_in = rows.empty() ? 0 : std::stoll(rows[0][0].value_or("0"));
    if (report.counts.rows_in == 0 && (!options.from_ms || !options.to_ms)) {
      return Status::Data(f.path + ": no candles; pass --from and --to to record the window");
    }
    const int64_t from =
        options.from_ms.value_or(report.counts.rows_in ? std::stoll(*rows[0][1]) : 0);
    const int64_t to =
        options.to_ms.value_or(report.counts.rows_in ? std::stoll(*rows[0][2]) + tf : 0);
    if (from >= to) {
      return Status::Usage(f.path + ": the window " + FormatWindow(from, to) + " is empty");
    }
    const std::string id_prefix = f.exchange + "|" + f.pair + "|" + f.timeframe + "|";
    const std::string candles =
        "SELECT " + duck::QuoteString(id_prefix) +
        " || CAST(\"timestamp\"::BIGINT AS VARCHAR) AS ID, " + duck::QuoteString(f.exchange) +
        " AS exchange, " + duck::QuoteString(f.pair) + " AS pair, " +
        duck::QuoteString(f.timeframe) + " AS timeframe, \"timestamp\"::BIGINT AS \"timestamp\", " +
        dec("open") + " AS open, " + dec("high") + " AS high, " + dec("low") + " AS low, " +
        dec("close") + " AS close, " + dec("volume") + " AS volume FROM " + source +
        " WHERE \"timestamp\" >= " + std::to_string(from) + " AND \"timestamp\" < " +
        std::to_string(to);
    ASSIGN_OR_RETURN(std::string stored,
                     StoredIdRange(lake.conn(), lake::kOhlcvTable, candles, f.path));
    ASSIGN_OR_RETURN(
        auto inserted,
        lake.conn().Query(InsertNewIdsSql(lake::kOhlcvTable, candles, stored), f.path));
    report.counts.rows_out = inserted.rows_changed();
    // Candles are late data for the built slots: the next `etl update` folds them in.
    if (report.counts.rows_out > 0) {
      RETURN_IF_ERROR(lake.conn().Execute(lake::RecordCandleChangesSql(candles), f.path));
    }
    ASSIGN_OR_RETURN(std::optional<lake::Watermark> before, lake.GetWatermark(stream));
    report.before = before;
    lake::Watermark after{from, to};
    if (before) {
      if (from > before->watermark_ms || to < before->start_ms) {
        return Status::Data(stream + ": the import covers " + FormatWindow(from, to) +
                            " but the stream holds " +
                            FormatWindow(before->start_ms, before->watermark_ms) +
                            "; importing would leave a gap between them");
      }
      after = {std::min(before->start_ms, from), std::max(before->watermark_ms, to)};
    }
    report.after = after;
    RETURN_IF_ERROR(lake.SetWatermark(stream, after, run_id));
    reports.push_back(std::move(report));
  }
  return Status::Ok();
}

Result<ImportReport> ImportInTransaction(lake::Lake& lake, const ImportOptions& options,
                                         const FileSets& sets,
                                         const std::set<std::string>& databases,
                                         const std::vector<OhlcvFile>& candles, lake::Run& run,
                                         Progress* progress) {
  ImportReport report;
  report.run_id = run.id();
  ASSIGN_OR_RETURN(Stager stager, Stager::Create(lake.conn()));
  ASSIGN_OR_RETURN(duck::Transaction tx, duck::Transaction::Begin(lake.conn()));
  Importer importer(stager, progress, databases);
  std::vector<TableState> tables;
  for (const auto& [index, files] : sets) {
    TableState state;
    state.def = &RawTables()[index];
    state.report.table = std::string(state.def->name);
    state.report.files = files;
    tables.push_back(std::move(state));
  }
  for (TableState& t : tables) {
    for (const std::string& file : t.report.files) RETURN_IF_ERROR(importer.ReadFile(t, file));
  }
  std::vector<ImportTableReport> candle_reports;
  RETURN_IF_ERROR(ImportCandles(lake, options, candles, run.id(), candle_reports));
  if (!importer.any_rows() && !candles.empty()) {
    // Only candles: the window is theirs.
    report.from_ms = INT64_MAX;
    report.to_ms = INT64_MIN;
    for (const ImportTableReport& r : candle_reports) {
      report.from_ms = std::min(report.from_ms, r.after.start_ms);
      report.to_ms = std::max(report.to_ms, r.after.watermark_ms);
    }
    if (sets.empty()) {
      run.SetWindow(report.from_ms, report.to_ms);
      int64_t in = 0, out = 0;
      for (const ImportTableReport& r : candle_reports) {
        in += r.counts.rows_in;
        out += r.counts.rows_out;
      }
      run.tables()[std::string(lake::kOhlcvTable.name)] = {in, out, 0, 0};
      run.detail()["files"] = candle_reports.size();
      if (!options.network.empty()) run.detail()["network"] = options.network;
      RETURN_IF_ERROR(run.Finish());
      RETURN_IF_ERROR(tx.Commit());
      report.tables = std::move(candle_reports);
      return report;
    }
  }
  if (!options.from_ms && !importer.any_rows()) {
    return Status::Data(
        "raw import: the files hold no rows; pass --from and --to to record the "
        "window they cover");
  }
  report.from_ms = options.from_ms.value_or(importer.min_ts());
  report.to_ms = options.to_ms.value_or(importer.any_rows() ? importer.max_ts() + 1 : 0);
  if (report.from_ms >= report.to_ms) {
    return Status::Usage("raw import: the window " + FormatWindow(report.from_ms, report.to_ms) +
                         " is empty (--from must be before --to)");
  }
  if (options.now_ms && report.to_ms > *options.now_ms + 1) {
    return Status::Usage("raw import: the window " + FormatWindow(report.from_ms, report.to_ms) +
                         " ends after now (" + FormatTime(*options.now_ms) +
                         "): the files cannot hold events of the future");
  }
  for (TableState& t : tables) {
    ASSIGN_OR_RETURN(std::optional<lake::Watermark> before, lake.GetWatermark(t.report.table));
    t.report.before = before;
    lake::Watermark after{report.from_ms, report.to_ms};
    if (before) {
      if (report.from_ms > before->watermark_ms || report.to_ms < before->start_ms) {
        return Status::Data(
            t.report.table + ": the import covers " + FormatWindow(report.from_ms, report.to_ms) +
            " but the table holds " + FormatWindow(before->start_ms, before->watermark_ms) +
            "; importing would leave a gap between them (declare a window that touches it with "
            "--from/--to, or fetch the gap first)");
      }
      after = {std::min(before->start_ms, report.from_ms),
               std::max(before->watermark_ms, report.to_ms)};
    }
    t.report.after = after;
    RETURN_IF_ERROR(lake.SetWatermark(t.report.table, after, run.id()));
  }
  run.SetWindow(report.from_ms, report.to_ms);
  size_t files = 0;
  for (const TableState& t : tables) {
    run.tables()[t.report.table] = t.report.counts;
    files += t.report.files.size();
  }
  if (!candle_reports.empty()) {
    lake::TableCounts& c = run.tables()[std::string(lake::kOhlcvTable.name)];
    for (const ImportTableReport& r : candle_reports) {
      c.rows_in += r.counts.rows_in;
      c.rows_out += r.counts.rows_out;
    }
    files += candle_reports.size();
  }
  run.detail()["files"] = files;
  if (!options.network.empty()) run.detail()["network"] = options.network;
  RETURN_IF_ERROR(run.Finish());
  RETURN_IF_ERROR(tx.Commit());
  for (TableState& t : tables) report.tables.push_back(t.report);
  for (ImportTableReport& r : candle_reports) report.tables.push_back(std::move(r));
  return report;
}

}  // namespace

Result<ImportReport> Import(lake::Lake& lake, lake::Run& run, const ImportOptions& options,
                            Progress* progress) {
  auto imported = [&]() -> Result<ImportReport> {
    if (options.from_ms && options.to_ms && *options.from_ms >= *options.to_ms) {
      return Status::Usage("raw import: --from must be before --to");
    }
    FileSets sets;
    std::set<std::string> databases;
    std::vector<OhlcvFile> candles;
    RETURN_IF_ERROR(Discover(options.paths, sets, databases, candles));
    return ImportInTransaction(lake, options, sets, databases, candles, run, progress);
  }();
  if (progress != nullptr) progress->Finish();
  if (imported.ok()) return imported;
  // Nothing was imported: the run records the requested window and no counts.
  run.tables().clear();
  run.detail() = nlohmann::ordered_json::object();
  run.SetWindow(options.from_ms, options.to_ms);
  return run.Fail(imported.status());
}

}  // namespace predlake::raw
