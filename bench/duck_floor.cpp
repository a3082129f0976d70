// module: predlake_lake
// The floor of bench/scale.sh: what bare DuckDB costs on the benchmark's own lake, in the same run,
// so that each command's figure can be read as a ratio to it. One step per process (the process's
// start is part of what the binary pays too):
//   open        open the file and close it (read-only: nothing written)
//   commit      open, one transaction that changes one row of predlake_meta, commit, close without
//               a checkpoint (as predlake closes between checkpoints)
//   checkpoint  open (replaying the write-ahead log an `update` left pending), CHECKPOINT, close
//   write FILE  open, the statements of FILE in one transaction, commit, close (no checkpoint):
//               the least DuckDB does to commit one hour's change (the statements of `plan`); also
//               prints the rows it appended and updated
// and two helpers, which measure nothing (read-only):
//   counts      prints "TABLE ROWS" for every table of the lake
//   plan FILE   prints the statements of the hour's change that the newest run made, one per
//               line, for a copy of the lake from before that run (FILE holds its `counts`). Each
//               table whose rows the run changed (its ledger's rows_updated + rows_deleted: an
//               update replaces gold groups in place) gets that many of its newest rows updated in
//               one column; the checkpoint, the watermarks and one meta row are updated, as every
//               update moves them; and each table that grew by N rows gets N rows appended (typed
//               constants made by range(): nothing read from the lake). Fewer columns, none of
//               the reads, none of the staging: a floor, not a model of the update.
// Usage: bench_duck_floor DB_FILE STEP [FILE]. The measuring steps print "STEP_open_s X",
// "STEP_step_s Y" (wall seconds in this process: the open, and the step after it) and "STEP_cpu_s
// Z" (the process's CPU seconds). One thread, as `update` opens the lake.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "duck/duck.hpp"

namespace {

using namespace predlake;
using bench::Check;
using bench::Seconds;

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bench_duck_floor: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::vector<std::vector<std::optional<std::string>>> Rows(duck::Connection& conn,
                                                          const std::string& sql) {
  auto result = conn.Query(sql, "floor");
  Check(result.status(), "query");
  return result->ToText();
}

// The lake's tables (schema main) and their rows.
std::map<std::string, int64_t> Counts(duck::Connection& conn) {
  std::map<std::string, int64_t> counts;
  for (const auto& row : Rows(conn,
                              "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
                              "AND NOT temporary ORDER BY table_name")) {
    auto n = conn.QueryInt("SELECT count(*) FROM " + duck::QuoteIdent(*row[0]), "floor");
    Check(n.status(), "count");
    counts[*row[0]] = n->value_or(0);
  }
  return counts;
}

// One typed constant per column of `table`, from the range's i (lists and maps NULL).
std::string ConstantRow(duck::Connection& conn, const std::string& table) {
  const auto rows =
      Rows(conn,
           "SELECT string_agg(CASE WHEN data_type IN ('BIGINT', 'INTEGER', 'DOUBLE', 'UBIGINT') OR "
           "data_type LIKE 'DECIMAL%' THEN 'CAST(i AS ' || data_type || ')' "
           "WHEN data_type = 'VARCHAR' THEN '''0x'' || lpad(CAST(i AS VARCHAR), 40, ''0'')' "
           "WHEN data_type = 'BOOLEAN' THEN 'i % 2 = 0' "
           "WHEN data_type = 'DATE' THEN 'DATE ''2024-01-01''' "
           "WHEN data_type LIKE 'TIMESTAMP%' THEN 'TIMESTAMPTZ ''2024-01-01 00:00:00+00''' "
           "ELSE 'CAST(NULL AS ' || data_type || ')' END, ', ' ORDER BY column_index) "
           "FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = " +
               duck::QuoteString(table));
  return rows.empty() || !rows[0][0] ? "" : *rows[0][0];
}

void PrintPlan(duck::Connection& conn, const std::string& before_path) {
  std::map<std::string, int64_t> before;
  for (const std::string& line : Lines(before_path)) {
    const auto space = line.rfind(' ');
    before[line.substr(0, space)] = std::stoll(line.substr(space + 1));
  }
  for (const auto& row : Rows(conn,
                              "SELECT t.table_name, t.rows_updated + t.rows_deleted, "
                              "(SELECT column_name FROM duckdb_columns() AS c WHERE c.schema_name "
                              "= 'main' AND c.table_name = t.table_name ORDER BY column_index DESC "
                              "LIMIT 1) FROM predlake_run_tables AS t WHERE t.run_id = (SELECT "
                              "max(run_id) FROM predlake_runs) AND t.rows_updated + "
                              "t.rows_deleted > 0 ORDER BY 1")) {
    if (!row[2]) continue;
    const std::string table = duck::QuoteIdent(*row[0]);
    const std::string column = duck::QuoteIdent(*row[2]);
    // Its newest rows on the copy `write` runs on (its own max(rowid): a checkpoint may renumber
    // the rows after deletes, so a bound taken here could miss).
    std::printf("UPDATE %s SET %s = %s WHERE rowid > (SELECT max(rowid) FROM %s) - %s\n",
                table.c_str(), column.c_str(), column.c_str(), table.c_str(), row[1]->c_str());
  }
  std::printf("UPDATE predlake_checkpoint SET checkpoint_ms = checkpoint_ms\n");
  std::printf("UPDATE predlake_watermarks SET watermark_ms = watermark_ms\n");
  std::printf(
      "UPDATE predlake_meta SET value = value WHERE key = (SELECT min(key) FROM predlake_meta)\n");
  // The appends after the updates, whose max(rowid) must be the stored rows' (a transaction's
  // own new rows have row ids of their own, far above them).
  for (const auto& [table, rows] : Counts(conn)) {
    const auto it = before.find(table);
    if (it == before.end() || rows <= it->second) continue;
    std::printf("INSERT INTO %s SELECT %s FROM range(%lld) AS r(i)\n",
                duck::QuoteIdent(table).c_str(), ConstantRow(conn, table).c_str(),
                static_cast<long long>(rows - it->second));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string step = argc >= 3 ? argv[2] : "";
  const bool with_file = step == "write" || step == "plan";
  if (argc != (with_file ? 4 : 3)) {
    std::fprintf(stderr,
                 "usage: bench_duck_floor DB_FILE open|commit|checkpoint|counts|write FILE|plan "
                 "FILE\n");
    return 2;
  }
  const std::string path = argv[1];
  if (step == "counts" || step == "plan") {
    duck::Options options;
    options.threads = 1;
    options.read_only = true;
    auto db = duck::Database::Open(path, options);
    Check(db.status(), "open");
    auto conn = db->Connect();
    Check(conn.status(), "connect");
    if (step == "counts") {
      for (const auto& [table, rows] : Counts(*conn)) {
        std::printf("%s %lld\n", table.c_str(), static_cast<long long>(rows));
      }
    } else {
      PrintPlan(*conn, argv[3]);
    }
    return 0;
  }
  if (step != "open" && step != "commit" && step != "checkpoint" && step != "write") {
    std::fprintf(stderr, "bench_duck_floor: unknown step %s\n", step.c_str());
    return 2;
  }
  const std::vector<std::string> statements =
      step == "write" ? Lines(argv[3]) : std::vector<std::string>{};
  const auto start = std::chrono::steady_clock::now();
  double open_s = 0;
  double step_s = 0;
  int64_t appended = 0;
  int64_t updated = 0;
  {
    duck::Options options;
    options.threads = 1;
    options.read_only = step == "open";
    auto db = duck::Database::Open(path, options);
    Check(db.status(), "open");
    auto conn = db->Connect();
    Check(conn.status(), "connect");
    if (step != "open") {
      // predlake leaves the checkpoint to its own policy, not to the close.
      Check(conn->Execute("PRAGMA disable_checkpoint_on_shutdown", "floor"), "pragma");
    }
    open_s = Seconds(start);
    const auto step_start = std::chrono::steady_clock::now();
    if (step == "commit") {
      Check(conn->Execute("BEGIN TRANSACTION", "floor"), "begin");
      Check(conn->Execute("UPDATE predlake_meta SET value = value WHERE key = "
                          "(SELECT min(key) FROM predlake_meta)",
                          "floor"),
            "update");
      Check(conn->Execute("COMMIT", "floor"), "commit");
    } else if (step == "write") {
      Check(conn->Execute("BEGIN TRANSACTION", "floor"), "begin");
      for (const std::string& sql : statements) {
        auto result = conn->Query(sql, "floor");
        Check(result.status(), "write");
        (sql.rfind("INSERT", 0) == 0 ? appended : updated) += result->rows_changed();
      }
      Check(conn->Execute("COMMIT", "floor"), "commit");
    } else if (step == "checkpoint") {
      Check(conn->Execute("CHECKPOINT", "floor"), "checkpoint");
    }
    step_s = Seconds(step_start);
  }
  const double cpu_s = bench::CpuSeconds();
  if (step == "write") {
    std::printf("write_rows_appended %lld\nwrite_rows_updated %lld\n",
                static_cast<long long>(appended), static_cast<long long>(updated));
  }
  std::printf("%s_open_s %.3f\n%s_step_s %.3f\n%s_cpu_s %.3f\n", step.c_str(), open_s, step.c_str(),
              step_s, step.c_str(), cpu_s);
  return 0;
}
