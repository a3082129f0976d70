#include "lake/lake.hpp"

#include <fcntl.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "lake/bookkeeping_sql.hpp"
#include "lake/embedded_sql.hpp"

namespace predlake::lake {

namespace fs = std::filesystem;

namespace {

// A statement of src/lake/sql/bookkeeping/, its ${name} placeholders filled.
std::string BookSql(
    std::string_view stem,
    std::initializer_list<std::pair<std::string_view, std::string_view>> values = {}) {
  return FillSql(BookkeepingSql(), stem, values);
}

// What Lake::Open reads of the catalog (inspect_catalog.sql): whether the database holds
// predlake_meta, and the catalog's tables as they are now, each table's name and the DDL DuckDB
// renders for it (its columns' names, order, types, nullability and defaults, and its
// constraints: what EnsureSchema's DDL and column checks look at).
struct Inspection {
  bool has_meta = false;
  std::string catalog;
};

Result<Inspection> Inspect(duck::Connection& conn) {
  ASSIGN_OR_RETURN(auto result, conn.Query(BookSql("inspect_catalog"), "inspect lake"));
  const auto rows = result.ToText();
  Inspection out;
  if (rows.size() == 1 && rows[0].size() == 2) {
    out.has_meta = rows[0][0].value_or("0") != "0";
    out.catalog = rows[0][1].value_or("");
  }
  return out;
}

// predlake_meta key: a fingerprint of the schema the last full schema check left (this build's
// DDL and the catalog's tables, columns and constraints as they then were), recorded by that
// check. A writer whose build and catalog give the same fingerprint skips the check's DDL
// (docs/lake.md); any changed, added or missing table or column changes the catalog part, so
// such a lake still gets the full check.
constexpr std::string_view kMetaSchemaFingerprint = "schema_fingerprint";

// What a predlake lake records of its schema (read_schema_record.sql).
struct SchemaRecord {
  std::optional<int64_t> version;
  std::optional<std::string> fingerprint;
};

Result<SchemaRecord> ReadSchemaRecord(duck::Connection& conn) {
  ASSIGN_OR_RETURN(
      auto result,
      conn.Query(BookSql("read_schema_record",
                         {{"fingerprint_key", duck::QuoteString(kMetaSchemaFingerprint)}}),
                 "read schema version"));
  const auto rows = result.ToText();
  SchemaRecord out;
  if (rows.size() == 1 && rows[0].size() == 2) {
    if (rows[0][0]) out.version = std::stoll(*rows[0][0]);
    out.fingerprint = rows[0][1];
  }
  return out;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Takes the writer lock: an flock on lake.lock, which the kernel releases when the process dies, so
// a killed writer never leaves a stale lock. The file's contents name the holder for a second
// writer.
Result<int> TakeLockFile(const fs::path& dir, std::string_view file, const std::string& command,
                         int64_t now_ms, const std::string& busy_what);

Result<int> TakeWriterLock(const fs::path& dir, const std::string& command, int64_t now_ms) {
  return TakeLockFile(dir, kLockFile, command, now_ms, "another predlake writes to it");
}

// The holder recorded in dir/file ("pid 123, `update`, since ..."), "" when none is alive.
std::string DescribeHolderIn(const fs::path& dir, std::string_view file);

// An flock on dir/file, its contents naming the holder; kBusy "the lake at DIR is busy: BUSY_WHAT
// (holder)" when another process holds it.
Result<int> TakeLockFile(const fs::path& dir, std::string_view file, const std::string& command,
                         int64_t now_ms, const std::string& busy_what) {
  fs::path path = dir / file;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    std::string msg = "cannot open lock file " + path.string() + ": " + std::strerror(err);
    // A folder the user may not write in is a setting to fix, not a data problem.
    return err == EACCES || err == EPERM || err == EROFS ? Status::Config(msg) : Status::Data(msg);
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    std::string holder = DescribeHolderIn(dir, file);
    return Status::Busy("the lake at " + dir.string() + " is busy: " + busy_what +
                        (holder.empty() ? "" : " (" + holder + ")"));
  }
  nlohmann::json info = {{"pid", static_cast<int64_t>(::getpid())},
                         {"command", command},
                         {"since", FormatTime(now_ms)}};
  std::string text = info.dump() + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) < 0) {
    ::close(fd);
    return Status::Data("cannot write lock file " + path.string() + ": " + std::strerror(errno));
  }
  return fd;
}

// DuckDB expands a leading `~` of a database path to the home folder itself; predlake expands only
// `~` and `~/` (config::ExpandHome), so any other leading `~` (`~x`) names a folder `~x` in the
// working directory, for the lock and the database alike.
std::string DuckPath(const fs::path& file) {
  std::string path = file.string();
  if (!path.empty() && path[0] == '~') path = "./" + path;
  return path;
}

}  // namespace

Status CheckLakeDir(const std::string& lake_dir, Mode mode) {
  std::error_code ec;
  const fs::file_status st = fs::status(lake_dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::Config("'" + lake_dir + "' cannot be used: " + ec.message());
  }
  if (!fs::exists(st)) return Status::Ok();
  if (!fs::is_directory(st)) return Status::Config("'" + lake_dir + "' is not a folder");
  const bool write = mode == Mode::kWrite;
  if (::access(lake_dir.c_str(), write ? (R_OK | W_OK | X_OK) : (R_OK | X_OK)) != 0) {
    return Status::Config("'" + lake_dir + "' cannot be " + (write ? "read and written" : "read") +
                          ": " + std::strerror(errno));
  }
  return Status::Ok();
}

std::string DescribeLockHolder(const std::string& lake_dir) {
  return DescribeHolderIn(lake_dir, kLockFile);
}

namespace {
std::string DescribeHolderIn(const fs::path& dir, std::string_view file) {
  fs::path path = dir / file;
  std::string text = ReadFile(path);
  if (text.empty()) return "";
  auto info = nlohmann::json::parse(text, nullptr, false);
  if (info.is_discarded() || !info.is_object()) return "";
  int64_t pid = info.value("pid", int64_t{0});
  // A recorded holder that is no longer alive is not holding anything.
  if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) return "";
  return "pid " + std::to_string(pid) + ", `" + info.value("command", std::string("?")) +
         "`, since " + info.value("since", std::string("?"));
}
}  // namespace

Result<LoopLock> LoopLock::Take(const std::string& lake_dir, const std::string& command,
                                int64_t now_ms) {
  if (Status usable = CheckLakeDir(lake_dir, Mode::kWrite); !usable.ok()) {
    return usable.WithContext("lake_dir");
  }
  std::error_code ec;
  fs::create_directories(lake_dir, ec);
  if (ec) return Status::Config("cannot create lake_dir " + lake_dir + ": " + ec.message());
  ASSIGN_OR_RETURN(int fd, TakeLockFile(lake_dir, kLoopLockFile, command, now_ms,
                                        "another `update --every` loop runs on it"));
  LoopLock lock;
  lock.fd_ = fd;
  return lock;
}

LoopLock::LoopLock(LoopLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

LoopLock::~LoopLock() {
  if (fd_ < 0) return;
  if (::ftruncate(fd_, 0) != 0) {
  }
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

std::string DescribeFileUsers(const std::string& file) {
  std::error_code ec;
  const fs::path target = fs::canonical(file, ec);
  if (ec) return "";
  const std::string self = std::to_string(::getpid());
  std::vector<std::string> users;
  for (const fs::directory_entry& proc : fs::directory_iterator("/proc", ec)) {
    const std::string pid = proc.path().filename().string();
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), ::isdigit) || pid == self) continue;
    std::error_code fd_ec;
    for (const fs::directory_entry& fd : fs::directory_iterator(proc.path() / "fd", fd_ec)) {
      std::error_code link_ec;
      if (fs::read_symlink(fd.path(), link_ec) != target || link_ec) continue;
      std::string cmdline = ReadFile(proc.path() / "cmdline");
      std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
      while (!cmdline.empty() && cmdline.back() == ' ') cmdline.pop_back();
      if (cmdline.size() > 80) cmdline = cmdline.substr(0, 77) + "...";
      // The program's own path says little; its name and arguments say what it does.
      if (size_t space = cmdline.find(' '), slash = cmdline.rfind('/', space);
          slash != std::string::npos) {
        cmdline = cmdline.substr(slash + 1);
      }
      users.push_back("pid " + pid + (cmdline.empty() ? "" : " (`" + cmdline + "`)"));
      break;
    }
  }
  if (users.empty()) return "";
  std::sort(users.begin(), users.end());
  return users.front() +
         (users.size() > 1 ? " and " + std::to_string(users.size() - 1) + " more" : "");
}

Result<std::unique_ptr<Lake>> Lake::Open(const std::string& lake_dir, const OpenOptions& options) {
  std::unique_ptr<Lake> lake(new Lake());
  lake->dir_ = lake_dir;
  lake->mode_ = options.mode;
  lake->close_checkpoint_ = options.close_checkpoint;
  lake->notice_ = options.notice;
  if (options.clock) {
    lake->clock_ = options.clock;
  } else {
    lake->owned_clock_ = std::make_unique<SystemClock>();
    lake->clock_ = lake->owned_clock_.get();
  }
  fs::path dir(lake_dir);
  fs::path file = dir / kDatabaseFile;
  std::error_code ec;
  if (Status usable = CheckLakeDir(lake_dir, options.mode); !usable.ok()) {
    return usable.WithContext("lake_dir");
  }
  if (options.mode == Mode::kRead || !options.create) {
    if (!fs::exists(file, ec)) {
      return Status::Data("no lake at " + lake_dir + " (run `predlake update` to create it)");
    }
  }
  if (options.mode == Mode::kWrite) {
    fs::create_directories(dir, ec);
    if (ec) return Status::Config("cannot create lake_dir " + lake_dir + ": " + ec.message());
    ASSIGN_OR_RETURN(lake->lock_fd_, TakeWriterLock(dir, options.command, lake->clock_->NowMs()));
  }

  duck::Options db_options;
  db_options.read_only = options.mode == Mode::kRead;
  db_options.threads = options.threads;
  db_options.memory_limit = options.memory_limit;
  db_options.reach = options.mode == Mode::kRead ? options.reach : duck::Reach::kFull;
  auto db = duck::Database::Open(DuckPath(file), db_options);
  if (!db.ok()) {
    if (db.status().code() == StatusCode::kBusy) {
      if (options.mode == Mode::kWrite) {
        // This process holds the writer lock, so whoever holds the file is a reader (or another
        // program): name it, not the lock file, which names this very process.
        std::string users = DescribeFileUsers(file.string());
        return Status::Busy(
            "the lake at " + lake_dir + " is busy: " +
            (users.empty() ? "another process reads it" : "a reader holds it (" + users + ")"));
      }
      std::string holder = DescribeLockHolder(lake_dir);
      if (holder.empty()) holder = DescribeFileUsers(file.string());
      return Status::Busy("the lake at " + lake_dir + " is busy: another predlake writes to it" +
                          (holder.empty() ? "" : " (" + holder + ")"));
    }
    return Status::Data("cannot open the lake at " + file.string() +
                        " (not a DuckDB database, or damaged): " + db.status().message());
  }
  lake->db_ = std::make_unique<duck::Database>(std::move(db).value());
  ASSIGN_OR_RETURN(auto conn, lake->db_->Connect());
  lake->conn_ = std::make_unique<duck::Connection>(std::move(conn));
  if (options.mode == Mode::kWrite) {
    // The checkpoint at close is Close's (close_checkpoint), not DuckDB's shutdown's.
    RETURN_IF_ERROR(
        lake->conn_->Execute("PRAGMA disable_checkpoint_on_shutdown", "configure the lake"));
  }

  // Refuse a database that is not ours, or is from a newer predlake, before touching it.
  ASSIGN_OR_RETURN(Inspection inspected, Inspect(*lake->conn_));
  const bool has_meta = inspected.has_meta;
  SchemaRecord record;
  if (!has_meta) {
    ASSIGN_OR_RETURN(auto table_count,
                     lake->conn_->QueryInt(BookSql("count_tables"), "inspect lake"));
    if (table_count.value_or(0) > 0) {
      return Status::Data(file.string() +
                          " is a DuckDB database but not a predlake lake; refusing to "
                          "touch it");
    }
    if (options.mode == Mode::kRead) {
      return Status::Data("the lake at " + lake_dir +
                          " is empty (run `predlake update` to fill it)");
    }
  } else {
    ASSIGN_OR_RETURN(record, ReadSchemaRecord(*lake->conn_));
    if (record.version.value_or(0) > kSchemaVersion) {
      return Status::Data("the lake at " + lake_dir + " was written by a newer predlake (schema " +
                          std::to_string(*record.version) + ", this build knows " +
                          std::to_string(kSchemaVersion) + "); upgrade predlake");
    }
  }
  if (options.mode == Mode::kWrite) {
    RETURN_IF_ERROR(lake->EnsureSchema(has_meta, record.fingerprint, inspected.catalog));
    RETURN_IF_ERROR(lake->ReconcileAbandonedRuns());
  }
  lake->opened_ = true;
  return lake;
}

Result<std::unique_ptr<Lake>> Lake::OpenEmpty(const std::string& lake_dir, const Clock* clock) {
  std::unique_ptr<Lake> lake(new Lake());
  lake->dir_ = lake_dir;
  lake->mode_ = Mode::kRead;
  if (clock) {
    lake->clock_ = clock;
  } else {
    lake->owned_clock_ = std::make_unique<SystemClock>();
    lake->clock_ = lake->owned_clock_.get();
  }
  ASSIGN_OR_RETURN(auto db, duck::Database::Open(":memory:"));
  lake->db_ = std::make_unique<duck::Database>(std::move(db));
  ASSIGN_OR_RETURN(auto conn, lake->db_->Connect());
  lake->conn_ = std::make_unique<duck::Connection>(std::move(conn));
  RETURN_IF_ERROR(lake->CreateEmptySchema());
  return lake;
}

Lake::CloseReport Lake::Close() {
  CloseReport report;
  if (db_ == nullptr && lock_fd_ < 0) return report;
  // A lake refused while opening (not ours, newer) is left exactly as it was.
  if (mode_ == Mode::kWrite && opened_ && conn_ != nullptr) {
    std::error_code ec;
    const auto size = fs::file_size(fs::path(dir_) / kWalFile, ec);
    report.wal_bytes = ec ? 0 : static_cast<int64_t>(size);
    const bool due = close_checkpoint_ == CloseCheckpoint::kAlways
                         ? report.wal_bytes > 0
                         : report.wal_bytes >= kCloseCheckpointWalBytes;
    // A failure (a full disk) leaves the WAL, which holds every commit, for the next checkpoint.
    if (due) {
      // The checkpoint of a large WAL spreads its row groups over DuckDB's workers; one of a few
      // MB is as fast on one (95-97 ms either way on the 1.5M lake), so a lake opened with fewer
      // threads (OpenOptions::threads) keeps them then.
      std::optional<duck::ThreadsSetting> threads;
      if (report.wal_bytes >= kParallelCheckpointWalBytes) {
        auto all = duck::ThreadsSetting::AtDefault(*conn_);
        if (all.ok()) threads.emplace(std::move(all).value());
      }
      report.checkpointed = conn_->Execute("CHECKPOINT", "checkpoint").ok();
    }
  }
  conn_.reset();
  db_.reset();
  if (lock_fd_ >= 0) {
    // Empty the file before unlocking so that nobody reads a stale holder.
    if (::ftruncate(lock_fd_, 0) != 0) {
    }
    ::flock(lock_fd_, LOCK_UN);
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
  return report;
}

Lake::~Lake() { Close(); }

namespace {

// FNV-1a, 64 bits: stable across builds and platforms (std::hash is not promised to be).
uint64_t SchemaHash(std::string_view text, uint64_t hash = 14695981039346656037ull) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

// The schema text of a build: each DDL step's name and text, in order, then the built columns it
// appends.
std::string BuildSchemaText(const std::vector<std::pair<std::string, std::string>>& steps) {
  std::string text;
  for (const auto& [name, sql] : steps) text.append(name).append("\n").append(sql);
  for (const BuiltColumnDef& column : kBuiltColumnsAdded) {
    text.append(column.table).append(".").append(column.name).append(" ");
    text.append(SqlTypeName(column.type)).append("\n");
  }
  return text;
}

// The catalog's tables as they are now (Inspection::catalog).
Result<std::string> CatalogText(duck::Connection& conn) {
  ASSIGN_OR_RETURN(Inspection inspected, Inspect(conn));
  return std::move(inspected.catalog);
}

// The fingerprint of a build's schema text and a catalog.
std::string SchemaFingerprint(std::string_view build_schema, std::string_view catalog) {
  char out[40];
  std::snprintf(out, sizeof(out), "%d:%016llx:%016llx", kSchemaVersion,
                static_cast<unsigned long long>(SchemaHash(build_schema)),
                static_cast<unsigned long long>(SchemaHash(catalog)));
  return std::string(out);
}

// The schema's DDL steps, by name, in the order they run. The source tables' DDL is generated from
// lake/tables.hpp, as the step 02_raw_tables between the bookkeeping (01_) and the built tables
// (03_).
std::vector<std::pair<std::string, std::string>> SchemaSteps() {
  std::vector<std::pair<std::string, std::string>> steps;
  for (const auto& [name, sql] : EmbeddedSql()) steps.emplace_back(name, sql);
  std::string source_ddl;
  for (const TableDef* table : kSourceTableDefs) source_ddl += CreateTableSql(*table);
  steps.emplace_back("02_raw_tables", std::move(source_ddl));
  std::sort(steps.begin(), steps.end());
  return steps;
}

// The DDL that appends a column to a table (NULL in its rows).
std::string AddColumnSql(std::string_view table, std::string_view column, ColumnType type) {
  return BookSql("add_column", {{"table", table},
                                {"column", duck::QuoteIdent(std::string(column))},
                                {"type", SqlTypeName(type)}});
}

}  // namespace

Status Lake::CreateEmptySchema() {
  // Nothing to upgrade, set aside or fingerprint in a database no writer opens again: the DDL runs
  // as one call (a third of a snapshot query's CPU went to EnsureSchema's checks before).
  std::string ddl;
  for (const auto& [name, sql] : SchemaSteps()) ddl += sql + "\n";
  for (const BuiltColumnDef& column : kBuiltColumnsAdded) {
    ddl += AddColumnSql(column.table, column.name, column.type) + ";\n";
  }
  RETURN_IF_ERROR(conn_->Execute(ddl, "create schema"));
  RETURN_IF_ERROR(SetMeta("schema_version", std::to_string(kSchemaVersion)));
  return conn_->Execute(BookSql("record_created_at", {{"now_ms", std::to_string(clock_->NowMs())}}),
                        "record creation time");
}

Status Lake::EnsureSchema(bool has_meta, const std::optional<std::string>& recorded,
                          const std::string& catalog_now) {
  const std::vector<std::pair<std::string, std::string>> steps = SchemaSteps();
  // What this build's check would do: its DDL and the built columns it appends.
  const std::string build_schema = BuildSchemaText(steps);
  // A lake the same build last checked, unchanged since: nothing to create or append. The
  // fingerprint covers the catalog, so a table or column changed behind predlake's back (or
  // missing) still gets the full check below.
  if (has_meta) {
    if (recorded) {
      const std::string now = SchemaFingerprint(build_schema, catalog_now);
      if (now == *recorded) return Status::Ok();
      // Builds up to b9fde48 also embedded an empty file 02_raw_tables.sql: a step of its own in
      // their schema text that ran nothing. A lake such a build checked, whose schema is the one
      // this build would create, needs no check either; only its record is brought up to date.
      auto with_empty_step = steps;
      with_empty_step.emplace_back("02_raw_tables", "");
      std::sort(with_empty_step.begin(), with_empty_step.end());
      if (SchemaFingerprint(BuildSchemaText(with_empty_step), catalog_now) == *recorded) {
        return SetMeta(kMetaSchemaFingerprint, now);
      }
    }
  }
  ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(*conn_));
  ASSIGN_OR_RETURN(std::vector<std::string> set_aside, SetAsideKeyed());
  // An upgrade that fails (a full disk, most likely: the copies need room beside the tables they
  // replace until the next checkpoint) rolls back with the transaction; the error says so.
  auto rewrite = [&]() -> Status {
    for (const auto& [name, sql] : steps) {
      RETURN_IF_ERROR(conn_->Execute(sql, "create schema (" + name + ")"));
    }
    return RefillUnkeyed(set_aside);
  };
  if (Status st = rewrite(); !st.ok()) {
    if (set_aside.empty()) return st;
    return st.WithContext("upgrading the lake to schema " + std::to_string(kSchemaVersion) +
                          " failed and changed nothing (it needs free disk of about a third of "
                          "the lake's file)");
  }
  RETURN_IF_ERROR(AddMissingColumns());
  RETURN_IF_ERROR(SetMeta("schema_version", std::to_string(kSchemaVersion)));
  RETURN_IF_ERROR(
      conn_->Execute(BookSql("record_created_at", {{"now_ms", std::to_string(clock_->NowMs())}}),
                     "record creation time"));
  ASSIGN_OR_RETURN(std::string catalog, CatalogText(*conn_));
  RETURN_IF_ERROR(SetMeta(kMetaSchemaFingerprint, SchemaFingerprint(build_schema, catalog)));
  return tx.Commit();
}

Result<std::vector<std::string>> Lake::SetAsideKeyed() {
  ASSIGN_OR_RETURN(auto keyed, conn_->Query(BookSql("keyed_tables"), "find keyed tables"));
  std::vector<std::string> out;
  for (const auto& row : keyed.ToText()) {
    const std::string name = row[0].value_or("");
    if (std::find(kUnkeyedTables.begin(), kUnkeyedTables.end(), name) == kUnkeyedTables.end()) {
      continue;
    }
    if (out.empty() && notice_) {
      notice_("upgrading the lake to schema " + std::to_string(kSchemaVersion) +
              ": rewriting its raw tables without their primary keys, once (about 2 s per million "
              "predictions)");
    }
    RETURN_IF_ERROR(conn_->Execute(BookSql("set_aside_keyed", {{"table", name}}),
                                   "set aside " + name + " to drop its primary key"));
    out.push_back(name);
  }
  return out;
}

Status Lake::RefillUnkeyed(const std::vector<std::string>& tables) {
  for (const std::string& name : tables) {
    const std::string step = "copy " + name + " without its primary key";
    ASSIGN_OR_RETURN(
        auto cols,
        conn_->Query(
            BookSql("table_column_names", {{"table", duck::QuoteString(name + "__keyed")}}), step));
    std::string columns;
    for (const auto& row : cols.ToText()) {
      columns += (columns.empty() ? "" : ", ") + duck::QuoteIdent(row[0].value_or(""));
    }
    RETURN_IF_ERROR(
        conn_->Execute(BookSql("refill_unkeyed", {{"table", name}, {"columns", columns}}), step));
  }
  return Status::Ok();
}

Status Lake::AddMissingColumns() {
  // A lake made before a column was appended to a source table's definition gets it (NULL in the
  // old rows); columns are only ever appended, so the order still matches lake/tables.hpp.
  ASSIGN_OR_RETURN(auto result,
                   conn_->Query(BookSql("table_columns"), "inspect source table columns"));
  std::set<std::pair<std::string, std::string>> have;
  while (auto chunk = result.NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      have.emplace(std::string(chunk->GetString(0, r)), std::string(chunk->GetString(1, r)));
    }
  }
  for (const TableDef* table : kSourceTableDefs) {
    for (const ColumnDef& column : table->columns) {
      if (have.count({std::string(table->name), std::string(column.name)})) continue;
      RETURN_IF_ERROR(conn_->Execute(
          AddColumnSql(table->name, column.name, column.type),
          "add column " + std::string(column.name) + " to " + std::string(table->name)));
    }
  }
  // A built column is a function of raw data that the old rows never computed: NULL there would
  // read as "unknown" and the incremental ETL would add its deltas to it. When a table that already
  // has rows gains one, the ETL must rebuild the built tables before it builds on them
  // (kMetaRebuildRequired says so until a rebuild publishes).
  std::vector<std::string> stale_tables;
  int stale_columns = 0;
  for (const BuiltColumnDef& column : kBuiltColumnsAdded) {
    if (have.count({std::string(column.table), std::string(column.name)})) continue;
    const std::string table(column.table);
    RETURN_IF_ERROR(conn_->Execute(AddColumnSql(table, column.name, column.type),
                                   "add column " + std::string(column.name) + " to " + table));
    ASSIGN_OR_RETURN(auto rows, conn_->QueryInt(BookSql("table_has_rows", {{"table", table}}),
                                                "inspect " + table));
    if (rows.value_or(0) > 0) {
      ++stale_columns;
      if (std::find(stale_tables.begin(), stale_tables.end(), table) == stale_tables.end()) {
        stale_tables.push_back(table);
      }
    }
  }
  if (stale_columns > 0) {
    const std::string tables = fmt::format("{}", fmt::join(stale_tables, ", "));
    RETURN_IF_ERROR(SetMeta(kMetaRebuildRequired, std::to_string(stale_columns) + " column" +
                                                      (stale_columns > 1 ? "s" : "") +
                                                      " added to " + tables));
  }
  return Status::Ok();
}

Status Lake::ReconcileAbandonedRuns() {
  // Holding the writer lock means no other process is running: a "running" row is a run that was
  // killed.
  return conn_->Execute(
      BookSql("mark_abandoned_runs", {{"now_ms", std::to_string(clock_->NowMs())}}),
      "mark abandoned runs aborted");
}

Result<std::optional<std::string>> Lake::GetMeta(std::string_view key) {
  ASSIGN_OR_RETURN(auto result, conn_->Query(BookSql("get_meta", {{"key", duck::QuoteString(key)}}),
                                             "read lake meta " + std::string(key)));
  auto rows = result.ToText();
  if (rows.empty() || rows[0].empty()) return std::optional<std::string>();
  return rows[0][0];
}

Status Lake::SetMeta(std::string_view key, std::string_view value) {
  return conn_->Execute(
      BookSql("set_meta", {{"key", duck::QuoteString(key)}, {"value", duck::QuoteString(value)}}),
      "record lake meta " + std::string(key));
}

Status Lake::DeleteMeta(std::string_view key) {
  return conn_->Execute(BookSql("delete_meta", {{"key", duck::QuoteString(key)}}),
                        "delete lake meta " + std::string(key));
}

Result<std::map<std::string, Watermark>> Lake::Watermarks() {
  ASSIGN_OR_RETURN(auto result, conn_->Query(BookSql("read_watermarks"), "read watermarks"));
  std::map<std::string, Watermark> out;
  while (auto chunk = result.NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      out[std::string(chunk->GetString(0, r))] = {chunk->GetInt64(1, r), chunk->GetInt64(2, r)};
    }
  }
  return out;
}

Result<std::optional<Watermark>> Lake::GetWatermark(std::string_view table) {
  ASSIGN_OR_RETURN(auto all, Watermarks());
  auto it = all.find(std::string(table));
  if (it == all.end()) return std::optional<Watermark>();
  return std::optional<Watermark>(it->second);
}

Status Lake::SetWatermarks(const std::vector<std::pair<std::string, Watermark>>& watermarks,
                           int64_t run_id) {
  if (watermarks.empty()) return Status::Ok();
  if (watermarks.size() == 1) {
    return SetWatermark(watermarks[0].first, watermarks[0].second, run_id);
  }
  std::string rows;
  const std::string tail =
      ", " + std::to_string(run_id) + ", " + std::to_string(clock_->NowMs()) + ")";
  for (size_t i = 0; i < watermarks.size(); ++i) {
    const auto& [table, w] = watermarks[i];
    rows += (i == 0 ? "(" : ", (") + duck::QuoteString(table) + ", " + std::to_string(w.start_ms) +
            ", " + std::to_string(w.watermark_ms) + tail;
  }
  return conn_->Execute(BookSql("set_watermarks", {{"rows", rows}}), "set watermarks");
}

Status Lake::SetWatermark(std::string_view table, const Watermark& watermark, int64_t run_id) {
  ASSIGN_OR_RETURN(auto stmt, conn_->Prepare(BookSql("set_watermark"), "set watermark"));
  RETURN_IF_ERROR(stmt.Bind(1, table));
  RETURN_IF_ERROR(stmt.Bind(2, watermark.start_ms));
  RETURN_IF_ERROR(stmt.Bind(3, watermark.watermark_ms));
  RETURN_IF_ERROR(stmt.Bind(4, run_id));
  RETURN_IF_ERROR(stmt.Bind(5, clock_->NowMs()));
  return stmt.Execute().status();
}

Result<std::optional<Checkpoint>> Lake::GetCheckpoint() {
  ASSIGN_OR_RETURN(auto result, conn_->Query(BookSql("read_checkpoint"), "read checkpoint"));
  auto chunk = result.NextChunk();
  if (!chunk || chunk->size() == 0) return std::optional<Checkpoint>();
  return std::optional<Checkpoint>(Checkpoint{chunk->GetInt64(0, 0), chunk->GetInt64(1, 0)});
}

Status Lake::SetCheckpoint(const Checkpoint& checkpoint, int64_t run_id) {
  return conn_->Execute(
      BookSql("set_checkpoint", {{"start_ms", std::to_string(checkpoint.start_ms)},
                                 {"checkpoint_ms", std::to_string(checkpoint.checkpoint_ms)},
                                 {"run_id", std::to_string(run_id)},
                                 {"now_ms", std::to_string(clock_->NowMs())}}),
      "set checkpoint");
}

Status Lake::ClearCheckpoint() {
  return conn_->Execute(BookSql("clear_checkpoint"), "clear checkpoint");
}

Result<std::string> Lake::WatermarksJson() {
  ASSIGN_OR_RETURN(auto marks, Watermarks());
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [table, mark] : marks) j[table] = mark.watermark_ms;
  return j.dump();
}

TableCounts& TableCounts::operator+=(const TableCounts& other) {
  rows_in += other.rows_in;
  rows_out += other.rows_out;
  rows_updated += other.rows_updated;
  rows_deleted += other.rows_deleted;
  return *this;
}

Result<Run> Lake::BeginRun(std::string command) {
  ASSIGN_OR_RETURN(auto marks, WatermarksJson());
  ASSIGN_OR_RETURN(auto checkpoint, GetCheckpoint());
  ASSIGN_OR_RETURN(auto last, conn_->QueryInt(BookSql("last_run_id"), "next run id"));
  int64_t run_id = last.value_or(0) + 1;
  ASSIGN_OR_RETURN(auto stmt, conn_->Prepare(BookSql("begin_run"), "record run start"));
  RETURN_IF_ERROR(stmt.Bind(1, run_id));
  RETURN_IF_ERROR(stmt.Bind(2, std::string_view(command)));
  RETURN_IF_ERROR(stmt.Bind(3, clock_->NowMs()));
  RETURN_IF_ERROR(checkpoint ? stmt.Bind(4, checkpoint->checkpoint_ms) : stmt.BindNull(4));
  RETURN_IF_ERROR(stmt.Bind(5, std::string_view(marks)));
  RETURN_IF_ERROR(stmt.Bind(6, static_cast<int64_t>(::getpid())));
  RETURN_IF_ERROR(stmt.Execute().status());
  return Run(this, run_id, std::move(command));
}

Run::Run(Run&& other) noexcept
    : lake_(std::exchange(other.lake_, nullptr)),
      id_(other.id_),
      command_(std::move(other.command_)),
      state_(other.state_),
      window_start_ms_(other.window_start_ms_),
      window_end_ms_(other.window_end_ms_),
      tables_(std::move(other.tables_)),
      detail_(std::move(other.detail_)) {}

Run::~Run() {
  if (lake_ == nullptr || state_ != State::kRunning) return;
  // Best effort: a run that left without an outcome must not look alive; if this fails too, the
  // next writer's open marks it aborted.
  duck::Uninterruptible shield(lake_->conn());
  auto tx = duck::Transaction::Begin(lake_->conn());
  if (!tx.ok()) return;
  if (Record("aborted", "the run ended without recording its outcome").ok()) (void)tx->Commit();
}

void Run::SetWindow(std::optional<int64_t> start_ms, std::optional<int64_t> end_ms) {
  window_start_ms_ = start_ms;
  window_end_ms_ = end_ms;
}

Status Run::Record(std::string_view status, const std::string& error) {
  ASSIGN_OR_RETURN(auto marks, lake_->WatermarksJson());
  ASSIGN_OR_RETURN(auto checkpoint, lake_->GetCheckpoint());
  duck::Connection& conn = lake_->conn();
  ASSIGN_OR_RETURN(auto stmt, conn.Prepare(BookSql("end_run"), "record run end"));
  RETURN_IF_ERROR(stmt.Bind(1, id_));
  RETURN_IF_ERROR(stmt.Bind(2, status));
  RETURN_IF_ERROR(stmt.Bind(3, lake_->NowMs()));
  RETURN_IF_ERROR(window_start_ms_ ? stmt.Bind(4, *window_start_ms_) : stmt.BindNull(4));
  RETURN_IF_ERROR(window_end_ms_ ? stmt.Bind(5, *window_end_ms_) : stmt.BindNull(5));
  RETURN_IF_ERROR(checkpoint ? stmt.Bind(6, checkpoint->checkpoint_ms) : stmt.BindNull(6));
  RETURN_IF_ERROR(stmt.Bind(7, std::string_view(marks)));
  RETURN_IF_ERROR(error.empty() ? stmt.BindNull(8) : stmt.Bind(8, std::string_view(error)));
  const std::string detail = detail_.empty() ? "" : detail_.dump();
  RETURN_IF_ERROR(detail.empty() ? stmt.BindNull(9) : stmt.Bind(9, std::string_view(detail)));
  RETURN_IF_ERROR(stmt.Execute().status());
  RETURN_IF_ERROR(conn.Execute(BookSql("clear_run_tables", {{"run_id", std::to_string(id_)}}),
                               "record run tables"));
  if (tables_.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(auto app, conn.MakeAppender("predlake_run_tables"));
  for (const auto& [table, counts] : tables_) {
    RETURN_IF_ERROR(app.Append(id_));
    RETURN_IF_ERROR(app.Append(std::string_view(table)));
    RETURN_IF_ERROR(app.Append(counts.rows_in));
    RETURN_IF_ERROR(app.Append(counts.rows_out));
    RETURN_IF_ERROR(app.Append(counts.rows_updated));
    RETURN_IF_ERROR(app.Append(counts.rows_deleted));
    RETURN_IF_ERROR(app.EndRow());
  }
  return app.Close();
}

Status Run::Finish() {
  if (state_ == State::kFailed) {
    return Status::Internal("run " + std::to_string(id_) + " finished after it failed");
  }
  RETURN_IF_ERROR(Record("succeeded", ""));
  state_ = State::kFinished;
  return Status::Ok();
}

Status Run::Fail(const Status& error) {
  if (state_ == State::kFailed) return error;
  state_ = State::kFailed;
  const std::string status = error.code() == StatusCode::kCancelled ? "aborted" : "failed";
  // After an interrupt (duck::InterruptAll) the outcome must still be written.
  duck::Uninterruptible shield(lake_->conn());
  Status recorded = [&]() -> Status {
    // The failed work's transaction may still be open (an interrupted statement leaves it aborted
    // until rolled back): it cannot commit anyway, so roll it back before recording.
    // A probe that could begin rolls its empty transaction back when it goes.
    if (!duck::Transaction::Begin(lake_->conn()).ok()) {
      (void)lake_->conn().Execute("ROLLBACK", "rollback the failed work");
    }
    ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake_->conn()));
    RETURN_IF_ERROR(Record(status, error.message()));
    return tx.Commit();
  }();
  if (recorded.ok()) return error;
  return Status(error.code(), error.message() + " (and the failure could not be recorded: " +
                                  recorded.message() + ")");
}

Result<TableCountsMap> Lake::DeleteRawFrom(int64_t from_ms) {
  TableCountsMap counts;
  const std::string from = std::to_string(from_ms);
  for (const TableDef& table : kRawTableDefs) {
    const std::string name(table.name);
    if (RecordsWrittenDays(table)) {
      // The days that lose rows, and those that get an earlier version back.
      RETURN_IF_ERROR(
          conn_->Execute(RecordWrittenDaysSql(
                             table, BookSql("raw_rows_from", {{"table", name}, {"from_ms", from}})),
                         "record the days dropped from " + name));
      if (table.versions != nullptr) {
        RETURN_IF_ERROR(conn_->Execute(
            RecordWrittenDaysSql(table,
                                 BookSql("versions_restored_from",
                                         {{"versions", table.versions->name}, {"from_ms", from}})),
            "record the days restored in " + name));
      }
    }
    if (table.versions != nullptr) {
      // A row re-written at or after T whose earlier version is before T goes back to the
      // version valid at T (an update, so the key is never deleted and re-inserted); every
      // version from T on is forgotten with it.
      const std::string versions(table.versions->name);
      std::string set;
      for (const ColumnDef& c : table.columns.subspan(1)) {
        const std::string col = duck::QuoteIdent(std::string(c.name));
        set += (set.empty() ? "" : ", ") + col + " = v." + col;
      }
      ASSIGN_OR_RETURN(
          auto restored,
          conn_->Query(
              BookSql("restore_versions_from",
                      {{"table", name}, {"set", set}, {"versions", versions}, {"from_ms", from}}),
              "restore earlier versions in " + name));
      counts[name].rows_updated = restored.rows_changed();
      RETURN_IF_ERROR(
          conn_->Execute(BookSql("drop_versions_from", {{"versions", versions}, {"from_ms", from}}),
                         "drop versions of " + name));
    }
    ASSIGN_OR_RETURN(auto result,
                     conn_->Query(BookSql("drop_rows_from", {{"table", name}, {"from_ms", from}}),
                                  "drop raw rows from " + name));
    counts[name].rows_deleted = result.rows_changed();
  }
  {
    // The candles (insert-only); their per-stream watermarks move back with the others below.
    const std::string name(kOhlcvTable.name);
    ASSIGN_OR_RETURN(auto result,
                     conn_->Query(BookSql("drop_rows_from", {{"table", name}, {"from_ms", from}}),
                                  "drop raw rows from " + name));
    counts[name].rows_deleted = result.rows_changed();
  }
  RETURN_IF_ERROR(
      conn_->Execute(BookSql("move_watermarks_back",
                             {{"from_ms", from}, {"now_ms", std::to_string(clock_->NowMs())}}),
                     "move watermarks back"));
  // The lake forgets what it read from then on, the newest head included: a later fetch may read
  // a head before it (raw::Update refuses an older head only while the lake holds its data).
  RETURN_IF_ERROR(
      conn_->Execute(BookSql("forget_head", {{"head_block", duck::QuoteString(kMetaHeadBlock)},
                                             {"head_ms", duck::QuoteString(kMetaHeadMs)}}),
                     "forget the newest head"));
  return counts;
}

}  // namespace predlake::lake
