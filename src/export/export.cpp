#include "export/export.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "common/time.hpp"
#include "duck/duck.hpp"
#include "duck/sql_text.hpp"
#include "export/embedded_sql.hpp"
#include "export/snapshot.hpp"
#include "fmt/format.h"
#include "lake/tables.hpp"

namespace predlake::exports {
namespace fs = std::filesystem;

ExportFaults ExportFaults::FromEnv() {
  constexpr std::string_view kPrefix = "export:";
  ExportFaults f;
  auto read = [&](const char* var, std::string& into) {
    const char* v = std::getenv(var);
    if (v != nullptr && std::string_view(v).substr(0, kPrefix.size()) == kPrefix) {
      into = std::string(v).substr(kPrefix.size());
    }
  };
  read("PREDLAKE_FAIL_AT", f.fail_at);
  read("PREDLAKE_KILL_AT", f.kill_at);
  return f;
}

namespace {

Status ReachStep(const ExportFaults& faults, std::string_view step) {
  if (!faults.kill_at.empty() && faults.kill_at == step) std::raise(SIGKILL);
  if (!faults.fail_at.empty() && faults.fail_at == step) {
    return Status::Internal("export: injected failure at step " + std::string(step) +
                            " (PREDLAKE_FAIL_AT)");
  }
  return Status::Ok();
}

// The text of src/export/sql/NAME.sql with its placeholders filled in.
Result<std::string> ExportSql(std::string_view name, const std::vector<duck::SqlValue>& values) {
  return duck::EmbeddedSqlText(EmbeddedSql(), name, values);
}

Status FileError(std::string_view what, const fs::path& path, int err) {
  return Status::Data(
      fmt::format("export: cannot {} {}: {}", what, path.string(), std::strerror(err)));
}

// CPU seconds of the process, every thread (DuckDB's too).
double ProcessCpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Adds the wall and CPU time of its scope to a phase of the report.
class PhaseTimer {
 public:
  PhaseTimer(double& wall, double& cpu)
      : wall_(wall),
        cpu_(cpu),
        start_(std::chrono::steady_clock::now()),
        cpu_start_(ProcessCpuSeconds()) {}
  ~PhaseTimer() {
    wall_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    cpu_ += ProcessCpuSeconds() - cpu_start_;
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  double& wall_;
  double& cpu_;
  std::chrono::steady_clock::time_point start_;
  double cpu_start_;
};

// Removes `name` (relative to the folder parent_fd) and everything under it with one unlink per
// entry, its kind taken from the listing (no stat per entry, as std::filesystem::remove_all
// does): a superseded snapshot of a large lake holds a thousand day folders. Returns false when
// something could not be removed (errno set); what is gone stays gone.
bool RemoveTreeAt(int parent_fd, const char* name) {
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return true;
    if (errno != ENOTDIR && errno != ELOOP) return false;
    return ::unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT;  // a file or a symlink
  }
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    ::close(fd);
    return false;
  }
  bool ok = true;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view entry(e->d_name);
    if (entry == "." || entry == "..") continue;
    if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) {
      ok = RemoveTreeAt(fd, e->d_name) && ok;
    } else {
      ok = (::unlinkat(fd, e->d_name, 0) == 0 || errno == ENOENT) && ok;
    }
  }
  ::closedir(dir);
  return (::unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT) && ok;
}

bool RemoveTree(const fs::path& path) { return RemoveTreeAt(AT_FDCWD, path.c_str()); }

// Hard-links each of `files` ("<prefix>FILE" below `from_root`: a previous snapshot's files of one
// day or hour, all in one folder) as the name that follows its first `strip` characters below
// `to_dir`. True when every file was linked; otherwise the links made are removed again and false
// is returned (a file gone, not in that folder, or on another file system).
bool LinkAll(int from_root, int to_dir, const std::vector<std::string>& files,
             const std::string& prefix, size_t strip) {
  if (from_root < 0 || to_dir < 0 || files.empty()) return false;
  size_t linked = 0;
  for (; linked < files.size(); ++linked) {
    const std::string& file = files[linked];
    const bool ok = file.size() > prefix.size() && file.compare(0, prefix.size(), prefix) == 0 &&
                    file.find('/', prefix.size()) == std::string::npos &&
                    ::linkat(from_root, file.c_str(), to_dir, file.c_str() + strip, 0) == 0;
    if (!ok) break;
  }
  if (linked == files.size()) return true;
  for (size_t i = 0; i < linked; ++i) ::unlinkat(to_dir, files[i].c_str() + strip, 0);
  return false;
}

// The removal of superseded snapshots, off the export's path: the new snapshot is current and its
// run committed before it starts. One at a time per process; the next Export, WaitForRemovals and
// the process's exit (the static's destructor) wait for it. A process killed meanwhile leaves the
// rest to the next export, which finds those folders superseded still.
class BackgroundRemoval {
 public:
  ~BackgroundRemoval() { Wait(); }
  void Start(std::vector<fs::path> folders) {
    std::lock_guard<std::mutex> lock(mu_);
    if (thread_.joinable()) thread_.join();
    try {
      thread_ = std::thread([folders = std::move(folders)] {
        for (const fs::path& f : folders) RemoveTree(f);
      });
    } catch (const std::system_error&) {
      for (const fs::path& f : folders) RemoveTree(f);  // no thread: remove them here
    }
  }
  void Wait() {
    std::lock_guard<std::mutex> lock(mu_);
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mu_;
  std::thread thread_;
};

BackgroundRemoval& Removal() {
  static BackgroundRemoval removal;
  return removal;
}

// An open folder, closed when it goes; fd() is -1 when the open failed.
class DirFd {
 public:
  explicit DirFd(const fs::path& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  ~DirFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  DirFd(const DirFd&) = delete;
  DirFd& operator=(const DirFd&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// mkdir(2) of one folder whose parent exists; an existing folder is fine.
Status MakeDir(const fs::path& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return FileError("create", path, errno);
  return Status::Ok();
}

Status FsyncPath(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) return FileError("open", path, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return FileError("fsync", path, err);
  return Status::Ok();
}

// fsync of every path, by many threads at once: a folder's fsync mostly waits for the file system's
// journal commit and the device's cache flush, which concurrent fsyncs share (an incremental
// snapshot of a large lake has a folder per table and day, a thousand at 10M predictions: 42-59 ms
// with 8 threads, 22-30 ms with 32, 27-51 ms with 128). Returns the first failure.
Status FsyncAll(const std::vector<fs::path>& paths, bool directories) {
  constexpr size_t kSyncThreads = 32;
  std::atomic<size_t> next{0};
  std::mutex mu;
  Status first = Status::Ok();
  auto work = [&] {
    for (size_t i = next++; i < paths.size(); i = next++) {
      Status st = FsyncPath(paths[i], directories);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (first.ok()) first = std::move(st);
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < std::min(kSyncThreads, paths.size()); ++t) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // fewer threads: this one does the rest
    }
  }
  work();
  for (std::thread& t : threads) t.join();
  return first;
}

// Asks the kernel to start writing `path` back now (Linux), so that the fsyncs at the end find
// most of the snapshot on disk already, written while the next tables were being encoded. Best
// effort: the fsyncs remain what makes the snapshot durable.
void StartWriteback(const fs::path& path) {
#if defined(__linux__)
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  ::close(fd);
#else
  (void)path;
#endif
}

// The per-day facts an incremental export compares with the previous manifest.
struct DayStats {
  int64_t rows = 0;
  std::string signature;
};

// An hour of the day a table's newest day is held in (see Part::hours): its files hold exactly
// the rows of that UTC hour of `timestamp`.
struct HourPiece {
  int64_t hour = 0;
  int64_t rows = 0;
  std::string signature;
  std::vector<std::string> files;  // relative to the snapshot folder, in the day's folder
};

// One partition of a table in a manifest: a day (or the whole table when day is empty).
struct Part {
  std::string day;
  int64_t rows = 0;
  std::string signature;
  std::vector<std::string> files;  // relative to the snapshot folder
  // Non-empty when the day is held as a set of files per hour (the newest day of a table
  // partitioned by the day of `timestamp`), in hour order; `files` is then their union.
  std::vector<HourPiece> hours;
  bool linked = false;
};

enum class Signature { kRunId, kRowHash, kRowsOnly, kRowsAndTimes };

Signature SignatureOf(const ExportTable& table) {
  if (table.kind == "built") return Signature::kRunId;
  const lake::TableDef* raw = lake::FindRawTable(table.name);
  if (raw != nullptr && raw->versions != nullptr) return Signature::kRowsAndTimes;
  return raw != nullptr && raw->upsert ? Signature::kRowHash : Signature::kRowsOnly;
}

// pdr_predictions and pdr_slots: their writes record the days they touch (lake::kRawDaysTable).
bool RecordsDays(const ExportTable& table) {
  const lake::TableDef* raw = lake::FindRawTable(table.name);
  return raw != nullptr && lake::RecordsWrittenDays(*raw);
}

// The previous snapshot's parts of `table`, by day.
std::map<std::string, Part> PreviousParts(const std::optional<Snapshot>& previous,
                                          std::string_view table) {
  std::map<std::string, Part> out;
  if (!previous) return out;
  for (const auto& t : ManifestArray(previous->manifest, "tables")) {
    if (t.value("name", "") != table) continue;
    for (const auto& p : ManifestArray(t, "parts")) {
      Part part;
      part.day = p.value("day", "");
      part.rows = p.value("rows", int64_t{0});
      part.signature = p.value("signature", "");
      for (const auto& f : ManifestArray(p, "files")) {
        part.files.push_back(f.get<std::string>());
      }
      for (const auto& h : ManifestArray(p, "hours")) {
        HourPiece piece;
        piece.hour = h.value("hour", int64_t{-1});
        piece.rows = h.value("rows", int64_t{0});
        piece.signature = h.value("signature", "");
        for (const auto& f : ManifestArray(h, "files")) piece.files.push_back(f.get<std::string>());
        part.hours.push_back(std::move(piece));
      }
      out[part.day] = std::move(part);
    }
  }
  return out;
}

nlohmann::json SchemaJson(const std::vector<std::pair<std::string, std::string>>& schema) {
  nlohmann::json cols = nlohmann::json::array();
  for (const auto& [col, type] : schema) cols.push_back({{"name", col}, {"type", type}});
  return cols;
}

// The schema the previous manifest recorded for `table` (null when it has none).
nlohmann::json PreviousSchema(const std::optional<Snapshot>& previous, std::string_view table) {
  if (!previous) return nullptr;
  for (const auto& t : ManifestArray(previous->manifest, "tables")) {
    if (t.value("name", "") == table) return t.value("schema", nlohmann::json());
  }
  return nullptr;
}

class Exporter {
 public:
  Exporter(lake::Lake& lake, lake::Run& run, const ExportOptions& options)
      : lake_(lake), conn_(lake.conn()), run_(run), options_(options) {}

  Result<ExportReport> Run();

 private:
  Status CleanLeftovers();
  Result<std::set<std::string>> TablesWithDeletes();
  Result<std::vector<std::pair<std::string, std::string>>> Schema(std::string_view table);
  Result<std::map<std::string, DayStats>> Stats(const ExportTable& table);
  Result<std::optional<std::map<std::string, DayStats>>> DerivedStats(
      const ExportTable& table, const std::map<std::string, Part>& before);
  Result<std::optional<std::map<std::string, DayStats>>> AppendedStats(
      const ExportTable& table, const std::map<std::string, Part>& before);
  Result<std::optional<std::map<std::string, DayStats>>> RecordedStats(
      const ExportTable& table, const std::map<std::string, Part>& before);
  Result<std::optional<std::map<std::string, DayStats>>> CheckCounts(
      std::string_view table, std::map<std::string, DayStats> stats);
  Result<nlohmann::json> ExportPartitioned(const ExportTable& table, bool rewrite_all);
  Result<nlohmann::json> ExportWhole(std::string_view table, std::string_view kind);
  Status CopyDays(const ExportTable& table, const std::vector<std::string>& days, bool all_days,
                  std::map<std::string, Part>& parts);
  // One COPY of CopyDays: `days` (sorted; every day of the table when `all_days`) through the
  // staging folder .copy/STAGING_NAME.
  Status CopyDayBatch(const ExportTable& table, const std::vector<std::string>& days, bool all_days,
                      const std::string& staging_name, std::map<std::string, Part>& parts);
  Status WriteHours(const ExportTable& table, const std::string& day,
                    const std::map<std::string, Part>& before, Part& part,
                    lake::TableCounts& counts);
  Status ReachCopyStep();
  Status SyncTree(const fs::path& root);
  Status Switch();
  int64_t RemoveSuperseded();
  nlohmann::json TableJson(std::string_view name, std::string_view kind, std::string_view part_by,
                           const std::vector<std::pair<std::string, std::string>>& schema,
                           const std::map<std::string, Part>& parts);

  lake::Lake& lake_;
  duck::Connection& conn_;
  lake::Run& run_;
  const ExportOptions& options_;
  fs::path exports_;
  fs::path tmp_;
  std::string name_;
  std::optional<Snapshot> previous_;
  std::vector<fs::path> written_files_;
  std::vector<fs::path> dirs_;  // every folder of the new snapshot below tmp_, for the fsyncs
  ExportReport report_;
  bool copy_step_reached_ = false;
  int64_t created_at_ms_ = 0;  // the new manifest's
  int64_t raw_days_seq_ = 0;   // the highest write_seq of predlake_raw_days (the new manifest's)
};

Status Exporter::CleanLeftovers() {
  // The caller holds the writer lock, so any temporary entry is a dead export's.
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(exports_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kTempPrefix, 0) != 0) continue;
    if (!RemoveTree(entry.path())) return FileError("remove the leftover", entry.path(), errno);
  }
  if (ec) return FileError("list", exports_, ec.value());
  return Status::Ok();
}

Result<std::set<std::string>> Exporter::TablesWithDeletes() {
  // Append-only raw tables lose rows only to `raw drop`; the ledger says which, since the
  // previous snapshot (failed and aborted runs were rolled back).
  std::set<std::string> out;
  if (!previous_) return out;
  ASSIGN_OR_RETURN(
      std::string sql,
      ExportSql("tables_with_deletes", {{"previous_run", std::to_string(previous_->run_id)}}));
  ASSIGN_OR_RETURN(duck::QueryResult result,
                   conn_.Query(sql, "export: read the deletes since the previous snapshot"));
  for (const auto& row : result.ToText()) {
    if (!row.empty() && row[0]) out.insert(*row[0]);
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> Exporter::Schema(std::string_view table) {
  ASSIGN_OR_RETURN(std::string sql,
                   ExportSql("table_schema", {{"table_name", duck::QuoteString(table)}}));
  ASSIGN_OR_RETURN(duck::QueryResult result,
                   conn_.Query(sql, "export: read the schema of " + std::string(table)));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& row : result.ToText())
    out.emplace_back(row[0].value_or(""), row[1].value_or(""));
  return out;
}

// The aggregate (a VARCHAR) a day's signature is made of, beside its row count.
std::string SignatureSql(const ExportTable& table) {
  switch (SignatureOf(table)) {
    case Signature::kRunId:
      return "CAST(max(run_id) AS VARCHAR)";
    case Signature::kRowHash:
      // *COLUMNS(*) passes every column to one hash() (COLUMNS(*) alone would make one
      // aggregate per column, of which only the first, the ID's, was read).
      return "CAST(bit_xor(hash(*COLUMNS(*))) AS VARCHAR)";
    case Signature::kRowsOnly:
      break;
    case Signature::kRowsAndTimes:
      // A stored row changes only with its timestamp (a re-submission replaces it with a newer
      // version, a raw drop restores an older one), so the sum of the day's timestamps moves.
      return "CAST(sum(\"timestamp\") AS VARCHAR)";
  }
  return "''";
}

Result<std::map<std::string, DayStats>> Exporter::Stats(const ExportTable& table) {
  const std::string signature = SignatureSql(table);
  const std::string day = DayExpression(table.partitioning);
  PhaseTimer timer(report_.signature_s, report_.signature_cpu_s);
  ASSIGN_OR_RETURN(std::string sql, ExportSql("day_stats", {{"day", day},
                                                            {"signature", signature},
                                                            {"table", duck::QuoteIdent(table.name)},
                                                            {"rows", "TRUE"}}));
  ASSIGN_OR_RETURN(duck::QueryResult result,
                   conn_.Query(sql, "export: per-day signatures of " + std::string(table.name)));
  std::map<std::string, DayStats> out;
  for (const auto& row : result.ToText()) {
    DayStats s;
    s.rows = std::stoll(row[1].value_or("0"));
    s.signature = row[2].value_or("");
    out[row[0].value_or("")] = std::move(s);
  }
  return out;
}

// A condition selecting exactly the rows of `days` (YYYY-MM-DD, sorted) of `table`: one range
// per run of consecutive days, on the column the rows are appended by (`timestamp`, or the gold
// tables' `day`), so that DuckDB's zone maps skip the row groups of other days.
Result<std::string> DaysFilter(const ExportTable& table, const std::vector<std::string>& days) {
  std::vector<std::pair<int64_t, int64_t>> ranges;  // [first, last] day starts, unix ms
  for (const std::string& d : days) {
    const std::optional<int64_t> ms = ParseDay(d);
    if (!ms) return Status::Internal("export: bad day " + d);
    if (!ranges.empty() && ranges.back().second + kDayMs == *ms) {
      ranges.back().second = *ms;
    } else {
      ranges.emplace_back(*ms, *ms);
    }
  }
  std::string where;
  for (const auto& [lo, hi] : ranges) {
    where += where.empty() ? "" : " OR ";
    if (table.partitioning == Partitioning::kByDayColumn) {
      where += fmt::format("\"day\" BETWEEN epoch_ms({})::DATE AND epoch_ms({})::DATE", lo, hi);
    } else {
      where += fmt::format("(\"timestamp\" >= {} AND \"timestamp\" < {})", lo, hi + kDayMs);
    }
  }
  return where;
}

Result<std::optional<std::map<std::string, DayStats>>> Exporter::DerivedStats(
    const ExportTable& table, const std::map<std::string, Part>& before) {
  PhaseTimer timer(report_.signature_s, report_.signature_cpu_s);
  const std::string day = DayExpression(table.partitioning);
  const std::string name = duck::QuoteIdent(table.name);
  ASSIGN_OR_RETURN(
      std::string newer_sql,
      ExportSql(
          "days_changed_since",
          {{"day", day}, {"table", name}, {"previous_run", std::to_string(previous_->run_id)}}));
  ASSIGN_OR_RETURN(
      duck::QueryResult newer,
      conn_.Query(newer_sql, "export: the days changed since the previous snapshot in " +
                                 std::string(table.name)));
  std::vector<std::string> changed;
  for (const auto& row : newer.ToText()) {
    if (!row[0]) return std::optional<std::map<std::string, DayStats>>();  // a row without a day
    changed.push_back(*row[0]);
  }
  std::sort(changed.begin(), changed.end());
  std::map<std::string, DayStats> out;
  for (const auto& [d, part] : before) out[d] = DayStats{part.rows, part.signature};
  for (const std::string& d : changed) out.erase(d);
  if (!changed.empty()) {
    ASSIGN_OR_RETURN(std::string where, DaysFilter(table, changed));
    ASSIGN_OR_RETURN(std::string counts_sql,
                     ExportSql("day_stats", {{"day", day},
                                             {"signature", "CAST(max(run_id) AS VARCHAR)"},
                                             {"table", name},
                                             {"rows", where}}));
    ASSIGN_OR_RETURN(
        duck::QueryResult counts,
        conn_.Query(counts_sql, "export: count the changed days of " + std::string(table.name)));
    for (const auto& row : counts.ToText()) {
      out[row[0].value_or("")] = DayStats{std::stoll(row[1].value_or("0")), row[2].value_or("")};
    }
  }
  // A day without a newer row can only have lost rows: the counts add up exactly when none did.
  return CheckCounts(table.name, std::move(out));
}

Result<std::optional<std::map<std::string, DayStats>>> Exporter::CheckCounts(
    std::string_view table, std::map<std::string, DayStats> stats) {
  int64_t total = 0;
  for (const auto& [d, s] : stats) total += s.rows;
  ASSIGN_OR_RETURN(std::string sql,
                   ExportSql("count_rows", {{"table", duck::QuoteIdent(table)}, {"rows", "TRUE"}}));
  ASSIGN_OR_RETURN(auto rows, conn_.QueryInt(sql, "export: count " + std::string(table)));
  if (rows.value_or(0) != total) return std::optional<std::map<std::string, DayStats>>();
  return std::optional<std::map<std::string, DayStats>>(std::move(stats));
}

Result<std::optional<std::map<std::string, DayStats>>> Exporter::AppendedStats(
    const ExportTable& table, const std::map<std::string, Part>& before) {
  // Append-only by ID and no delete since the previous snapshot (the caller checked the ledger):
  // a day's rows only grow, and a day with as many rows has the same rows. The days that can
  // have grown cheaply are those outside what the table covered at the previous snapshot (its
  // watermark's day and after, its start's day and before: a backfill); their counts plus the
  // previous counts of the others add up to count(*) exactly when no other day grew (a late row
  // inside the old coverage), and otherwise the table falls back to its signature.
  const nlohmann::json marks = previous_->manifest.value("watermarks", nlohmann::json::object());
  const auto mark = marks.find(std::string(table.name));
  if (mark == marks.end() || !mark->is_object()) {
    return std::optional<std::map<std::string, DayStats>>();
  }
  const int64_t lo =  // days before
      DayStartMs(mark->value("start_ms", int64_t{0})) + kDayMs;
  const int64_t hi = DayStartMs(mark->value("watermark_ms", int64_t{0}));  // days from
  PhaseTimer timer(report_.signature_s, report_.signature_cpu_s);
  const std::string day = DayExpression(table.partitioning);
  ASSIGN_OR_RETURN(
      std::string sql,
      ExportSql("day_stats",
                {{"day", day},
                 {"signature", "''"},
                 {"table", duck::QuoteIdent(table.name)},
                 {"rows", fmt::format("\"timestamp\" < {} OR \"timestamp\" >= {}", lo, hi)}}));
  ASSIGN_OR_RETURN(duck::QueryResult counts,
                   conn_.Query(sql, "export: count the new days of " + std::string(table.name)));
  const std::string lo_day = FormatDay(lo), hi_day = FormatDay(hi);
  std::map<std::string, DayStats> out;
  for (const auto& [d, part] : before) {
    if (d < lo_day || d >= hi_day) continue;  // counted again below
    out[d] = DayStats{part.rows, part.signature};
  }
  for (const auto& row : counts.ToText()) {
    out[row[0].value_or("")] = DayStats{std::stoll(row[1].value_or("0")), ""};
  }
  return CheckCounts(table.name, std::move(out));
}

Result<std::optional<std::map<std::string, DayStats>>> Exporter::RecordedStats(
    const ExportTable& table, const std::map<std::string, Part>& before) {
  // pdr_predictions and pdr_slots change in place, but every write of them (the raw store: a
  // fetch, an import; `raw drop`) records the days of the rows it offers, merges, drops or
  // restores in predlake_raw_days, numbered above all earlier writes, in its transaction. The
  // changed days are those recorded above the number the previous snapshot saw, plus the days
  // outside the previous watermark's coverage (new rows, as for the append-only tables: they
  // also catch rows inserted by anything that does not record). Their counts plus the previous
  // counts of the other days add up to count(*) exactly when no other day lost a row (a delete
  // or a move that was not recorded); otherwise the table falls back to its signature.
  const auto seq = previous_->manifest.find("raw_days_seq");
  const nlohmann::json marks = previous_->manifest.value("watermarks", nlohmann::json::object());
  const auto mark = marks.find(std::string(table.name));
  if (seq == previous_->manifest.end() || !seq->is_number_integer() || mark == marks.end() ||
      !mark->is_object()) {
    return std::optional<std::map<std::string, DayStats>>();  // an older snapshot: no number
  }
  PhaseTimer timer(report_.signature_s, report_.signature_cpu_s);
  ASSIGN_OR_RETURN(
      std::string recorded_sql,
      ExportSql("raw_days_written", {{"raw_days", std::string(lake::kRawDaysTable)},
                                     {"table_name", duck::QuoteString(table.name)},
                                     {"write_seq", std::to_string(seq->get<int64_t>())}}));
  ASSIGN_OR_RETURN(
      duck::QueryResult recorded,
      conn_.Query(recorded_sql, "export: the days written in " + std::string(table.name) +
                                    " since the previous snapshot"));
  std::vector<std::string> changed;
  for (const auto& row : recorded.ToText()) changed.push_back(row[0].value_or(""));
  const int64_t lo = DayStartMs(mark->value("start_ms", int64_t{0})) + kDayMs;
  const int64_t hi = DayStartMs(mark->value("watermark_ms", int64_t{0}));
  const std::string lo_day = FormatDay(lo), hi_day = FormatDay(hi);
  std::string where = fmt::format("(\"timestamp\" < {} OR \"timestamp\" >= {})", lo, hi);
  if (!changed.empty()) {
    ASSIGN_OR_RETURN(std::string days, DaysFilter(table, changed));
    where += " OR " + days;
  }
  ASSIGN_OR_RETURN(std::string counts_sql,
                   ExportSql("day_stats", {{"day", DayExpression(table.partitioning)},
                                           {"signature", SignatureSql(table)},
                                           {"table", duck::QuoteIdent(table.name)},
                                           {"rows", where}}));
  ASSIGN_OR_RETURN(
      duck::QueryResult counts,
      conn_.Query(counts_sql, "export: count the changed days of " + std::string(table.name)));
  std::map<std::string, DayStats> out;
  for (const auto& [d, part] : before) {
    if (d < lo_day || d >= hi_day) continue;  // counted again below
    out[d] = DayStats{part.rows, part.signature};
  }
  for (const std::string& d : changed) out.erase(d);  // counted below if it still has rows
  for (const auto& row : counts.ToText()) {
    out[row[0].value_or("")] = DayStats{std::stoll(row[1].value_or("0")), row[2].value_or("")};
  }
  return CheckCounts(table.name, std::move(out));
}

// Row groups of 20,000 rows instead of DuckDB's 122,880: a day of a table holds ~10,000 rows at
// any lake size in the benchmark (bench/export.cpp), and DuckDB's partitioned write then spends
// ~10-15% less CPU on a full export (6.0-6.4 s against 7.1-9.0 s for the big tables of the 1M
// lake; 10,000 and 50,000 did no better). Not part of the layout: readers take any row groups.
constexpr int64_t kPartitionedRowGroupRows = 20'000;
constexpr int64_t kHourMs = 3'600'000;
// How many days one partitioned COPY writes (CopyDays): what it holds in memory follows this, not
// the length of the history. A week: the first export of the 1.5M lake (18 days) peaked at
// 716 MB in one COPY.
constexpr size_t kCopyDaysAtOnce = 7;
// How many of a table's newest days are held in hours (ExportPartitioned).
constexpr int64_t kHourDays = 2;

Status Exporter::CopyDays(const ExportTable& table, const std::vector<std::string>& days,
                          bool all_days, std::map<std::string, Part>& parts) {
  if (days.empty()) return Status::Ok();
  RETURN_IF_ERROR(ReachCopyStep());
  std::vector<std::string> sorted = days;
  std::sort(sorted.begin(), sorted.end());
  // A few days per COPY: DuckDB's partitioned write holds the rows of every day it has open until
  // it flushes them, so one COPY of a whole table held most of the table (the first export of
  // the 10M lake peaked at 1,061 MB at the default 1 GB memory_limit).
  const size_t batches = (sorted.size() + kCopyDaysAtOnce - 1) / kCopyDaysAtOnce;
  for (size_t b = 0; b < batches; ++b) {
    const auto first = sorted.begin() + static_cast<std::ptrdiff_t>(b * kCopyDaysAtOnce);
    const auto last = sorted.begin() + static_cast<std::ptrdiff_t>(
                                           std::min(sorted.size(), (b + 1) * kCopyDaysAtOnce));
    RETURN_IF_ERROR(CopyDayBatch(
        table, std::vector<std::string>(first, last), all_days && batches == 1,
        std::string(table.name) + (batches == 1 ? "" : "." + std::to_string(b)), parts));
  }
  return Status::Ok();
}

Status Exporter::CopyDayBatch(const ExportTable& table, const std::vector<std::string>& days,
                              bool all_days, const std::string& staging_name,
                              std::map<std::string, Part>& parts) {
  // DuckDB writes a partitioned COPY into an empty folder; the days it writes are then moved
  // beside the linked ones.
  const fs::path staging = tmp_ / ".copy" / staging_name;
  std::error_code ec;
  fs::create_directories(staging.parent_path(), ec);
  if (ec) return FileError("create", staging.parent_path(), ec.value());
  const std::string day = DayExpression(table.partitioning);
  const bool own_day = table.partitioning == Partitioning::kByDayColumn;
  std::string where = "TRUE";
  if (!all_days) {
    ASSIGN_OR_RETURN(where, DaysFilter(table, days));
  }
  PhaseTimer timer(report_.write_s, report_.write_cpu_s);
  ASSIGN_OR_RETURN(
      std::string sql,
      ExportSql("copy_days", {{"table", duck::QuoteIdent(table.name)},
                              {"day_column", own_day ? "" : ", " + day + " AS \"day\""},
                              {"rows", where},
                              {"folder", duck::QuoteString(staging.string())},
                              {"own_day", own_day ? "true" : "false"},
                              {"row_group_rows", std::to_string(kPartitionedRowGroupRows)},
                              {"file_pattern",
                               duck::QuoteString(fmt::format("part-{:06d}-{{i}}", run_.id()))}}));
  RETURN_IF_ERROR(conn_.Execute(sql, "export: write " + std::string(table.name)));
  const fs::path target = tmp_ / std::string(table.name);
  RETURN_IF_ERROR(MakeDir(target));
  for (const std::string& d : days) {
    const std::string folder = "day=" + d;
    const fs::path from = staging / folder;
    const fs::path to = target / folder;
    if (::rename(from.c_str(), to.c_str()) != 0) {
      if (errno == ENOENT) continue;  // a day whose rows all went meanwhile: nothing to write
      return FileError("move into place", from, errno);
    }
    dirs_.push_back(to);
    Part& part = parts[d];
    part.day = d;
    part.files.clear();
    const std::string prefix = std::string(table.name) + "/" + folder + "/";
    for (const auto& f : fs::directory_iterator(to, ec)) {
      part.files.push_back(prefix + f.path().filename().string());
      written_files_.push_back(f.path());
      StartWriteback(f.path());
    }
    if (ec) return FileError("list", to, ec.value());
    std::sort(part.files.begin(), part.files.end());
  }
  return Status::Ok();
}

Status Exporter::ReachCopyStep() {
  if (copy_step_reached_) return Status::Ok();
  copy_step_reached_ = true;
  return ReachStep(options_.faults, "copy");
}

Status Exporter::WriteHours(const ExportTable& table, const std::string& day,
                            const std::map<std::string, Part>& before, Part& part,
                            lake::TableCounts& counts) {
  // The newest days change every hour, mostly in their last hours (new rows, and the truevals and
  // claims that update the rows of the hours before), so they are held as one file set per UTC
  // hour of `timestamp`: an hour whose rows and signature (the day's kind, per hour) are those the
  // previous snapshot recorded is linked, the others are rewritten. The signature tells a changed
  // hour exactly as it tells a changed day (built tables: max(run_id), which an edit raises and a
  // delete without an edit leaves with fewer rows).
  const std::optional<int64_t> day_ms = ParseDay(day);
  if (!day_ms) return Status::Internal("export: bad day " + day);
  const std::string name = duck::QuoteIdent(table.name);
  std::map<int64_t, DayStats> hours;
  {
    PhaseTimer timer(report_.signature_s, report_.signature_cpu_s);
    ASSIGN_OR_RETURN(
        std::string sql,
        ExportSql("hour_stats", {{"signature", SignatureSql(table)},
                                 {"table", name},
                                 {"rows", fmt::format("\"timestamp\" >= {} AND \"timestamp\" < {}",
                                                      *day_ms, *day_ms + kDayMs)}}));
    ASSIGN_OR_RETURN(duck::QueryResult result,
                     conn_.Query(sql, "export: per-hour signatures of " + std::string(table.name)));
    for (const auto& row : result.ToText()) {
      hours[std::stoll(row[0].value_or("0"))] =
          DayStats{std::stoll(row[1].value_or("0")), row[2].value_or("")};
    }
  }
  std::map<int64_t, const HourPiece*> old_hours;
  if (auto old = before.find(day); old != before.end()) {
    for (const HourPiece& h : old->second.hours) old_hours[h.hour] = &h;
  }
  const std::string day_name = "day=" + day;
  const fs::path day_dir = tmp_ / std::string(table.name) / day_name;
  RETURN_IF_ERROR(MakeDir(day_dir));
  dirs_.push_back(day_dir);
  const std::string prefix = std::string(table.name) + "/" + day_name + "/";
  ++report_.days_written;
  part.hours.clear();
  std::vector<int64_t> changed;
  {
    PhaseTimer link_timer(report_.link_s, report_.link_cpu_s);
    std::optional<DirFd> previous_root, new_day;
    if (!old_hours.empty()) {
      previous_root.emplace(fs::path(previous_->dir));
      new_day.emplace(day_dir);
    }
    for (const auto& [hour, s] : hours) {
      HourPiece piece;
      piece.hour = hour;
      piece.rows = s.rows;
      piece.signature = s.signature;
      auto old = old_hours.find(hour);
      // A file that cannot be linked makes the hour rewritten.
      const bool same =
          old != old_hours.end() && old->second->rows == s.rows &&
          old->second->signature == s.signature &&
          LinkAll(previous_root->fd(), new_day->fd(), old->second->files, prefix, prefix.size());
      if (same) {
        piece.files = old->second->files;
        ++report_.hours_linked;
        report_.rows_linked += s.rows;
        counts.rows_in += s.rows;
      } else {
        changed.push_back(hour);
        ++report_.hours_written;
        report_.rows_written += s.rows;
        counts.rows_out += s.rows;
      }
      part.hours.push_back(std::move(piece));
    }
  }
  if (!changed.empty()) {
    RETURN_IF_ERROR(ReachCopyStep());
    const fs::path staging = tmp_ / ".copy" / (std::string(table.name) + ".hours");
    std::error_code ec;
    fs::create_directories(staging.parent_path(), ec);
    if (ec) return FileError("create", staging.parent_path(), ec.value());
    std::string where;
    for (size_t i = 0; i < changed.size();) {
      size_t j = i;
      while (j + 1 < changed.size() && changed[j + 1] == changed[j] + 1) ++j;
      where += where.empty() ? "" : " OR ";
      where += fmt::format("(\"timestamp\" >= {} AND \"timestamp\" < {})",
                           *day_ms + changed[i] * kHourMs, *day_ms + (changed[j] + 1) * kHourMs);
      i = j + 1;
    }
    const std::string run_prefix = fmt::format("part-{:06d}-", run_.id());
    PhaseTimer timer(report_.write_s, report_.write_cpu_s);
    ASSIGN_OR_RETURN(
        std::string sql,
        ExportSql("copy_hours", {{"table", name},
                                 {"rows", where},
                                 {"folder", duck::QuoteString(staging.string())},
                                 {"row_group_rows", std::to_string(kPartitionedRowGroupRows)},
                                 {"file_pattern", duck::QuoteString(run_prefix + "{i}")}}));
    RETURN_IF_ERROR(conn_.Execute(sql, "export: write the hours of " + std::string(table.name)));
    for (HourPiece& piece : part.hours) {
      if (!std::binary_search(changed.begin(), changed.end(), piece.hour)) continue;
      const fs::path from = staging / fmt::format("predlake_hour={}", piece.hour);
      std::vector<std::string> files;
      for (const auto& f : fs::directory_iterator(from, ec)) files.push_back(f.path().filename());
      if (ec) return FileError("list", from, ec.value());
      for (const std::string& f : files) {
        // part-RUN-i -> part-RUN-hHH-i: unique within the day among the hours and the runs.
        const std::string to_name =
            f.rfind(run_prefix, 0) == 0
                ? run_prefix + fmt::format("h{:02d}-", piece.hour) + f.substr(run_prefix.size())
                : fmt::format("h{:02d}-", piece.hour) + f;
        const fs::path to = day_dir / to_name;
        if (::rename((from / f).c_str(), to.c_str()) != 0) {
          return FileError("move into place", from / f, errno);
        }
        piece.files.push_back(prefix + to_name);
        written_files_.push_back(to);
        StartWriteback(to);
      }
      std::sort(piece.files.begin(), piece.files.end());
    }
  }
  part.files.clear();
  for (const HourPiece& h : part.hours) {
    part.files.insert(part.files.end(), h.files.begin(), h.files.end());
  }
  return Status::Ok();
}

nlohmann::json Exporter::TableJson(std::string_view name, std::string_view kind,
                                   std::string_view part_by,
                                   const std::vector<std::pair<std::string, std::string>>& schema,
                                   const std::map<std::string, Part>& parts) {
  nlohmann::json t = nlohmann::json::object();
  t["name"] = name;
  t["kind"] = kind;
  t["partitioned_by"] = part_by.empty() ? nlohmann::json() : nlohmann::json(part_by);
  int64_t rows = 0;
  nlohmann::json j_parts = nlohmann::json::array();
  for (const auto& [day, part] : parts) {
    rows += part.rows;
    nlohmann::json p = nlohmann::json::object();
    if (!part_by.empty()) p["day"] = day;
    p["rows"] = part.rows;
    if (!part.signature.empty()) p["signature"] = part.signature;
    p["files"] = part.files;
    if (!part.hours.empty()) {
      nlohmann::json hours = nlohmann::json::array();
      for (const HourPiece& h : part.hours) {
        nlohmann::json j = {{"hour", h.hour}, {"rows", h.rows}, {"files", h.files}};
        if (!h.signature.empty()) j["signature"] = h.signature;
        hours.push_back(std::move(j));
      }
      p["hours"] = std::move(hours);
    }
    j_parts.push_back(std::move(p));
  }
  t["rows"] = rows;
  t["schema"] = SchemaJson(schema);
  t["parts"] = std::move(j_parts);
  return t;
}

Result<nlohmann::json> Exporter::ExportPartitioned(const ExportTable& table, bool rewrite_all) {
  ASSIGN_OR_RETURN(auto schema, Schema(table.name));
  // Files of another schema (a column added by a newer build) cannot be shared: rewrite all.
  if (!rewrite_all && PreviousSchema(previous_, table.name) != SchemaJson(schema)) {
    rewrite_all = true;
  }
  std::map<std::string, Part> before =
      rewrite_all ? std::map<std::string, Part>() : PreviousParts(previous_, table.name);
  std::optional<std::map<std::string, DayStats>> derived;
  if (!rewrite_all && SignatureOf(table) == Signature::kRunId) {
    ++report_.tables_derived;
    ASSIGN_OR_RETURN(derived, DerivedStats(table, before));
    if (!derived) ++report_.signature_fallbacks;
  } else if (!rewrite_all && RecordsDays(table)) {
    ++report_.tables_derived;
    ASSIGN_OR_RETURN(derived, RecordedStats(table, before));
    if (!derived) ++report_.signature_fallbacks;
  } else if (!rewrite_all && SignatureOf(table) == Signature::kRowsOnly &&
             previous_->manifest.value("watermarks", nlohmann::json::object())
                 .contains(std::string(table.name))) {
    // (pdr_ohlcv's watermarks are per stream, not under its name: it keeps its signature.)
    ++report_.tables_derived;
    ASSIGN_OR_RETURN(derived, AppendedStats(table, before));
    if (!derived) ++report_.signature_fallbacks;
  }
  if (derived) report_.derived_tables.emplace_back(table.name);
  std::map<std::string, DayStats> stats;
  if (derived) {
    stats = std::move(*derived);
  } else {
    ASSIGN_OR_RETURN(stats, Stats(table));
  }
  const fs::path table_dir = tmp_ / std::string(table.name);
  RETURN_IF_ERROR(MakeDir(table_dir));
  dirs_.push_back(table_dir);
  std::map<std::string, Part> parts;
  std::vector<std::string> changed;
  lake::TableCounts& counts = run_.tables()[std::string(table.name)];
  // The unchanged days are linked relative to two open folders (the previous snapshot's and this
  // table's new one), so that each link resolves a short path: a snapshot of a large lake links a
  // thousand day folders. Opened only when the previous snapshot has parts to share.
  std::optional<DirFd> previous_root, new_table;
  if (!before.empty()) {
    previous_root.emplace(fs::path(previous_->dir));
    new_table.emplace(table_dir);
  }
  const std::string table_prefix = std::string(table.name) + "/";
  // The newest two days of a table partitioned by the day of `timestamp` (the newest day with
  // rows and the day before it) are held in hours (WriteHours): they are the days an hourly
  // update changes, with new rows and with the truevals and claims that update the rows of the
  // hours before, yesterday's among them. A day held in hours that has left them is compacted
  // into one file set when it changes again, and is linked as it is while it does not (at most
  // 24 file sets).
  std::string first_hour_day;  // days from this one on are held in hours; empty: none
  if (table.partitioning == Partitioning::kByTimestampDay && !stats.empty()) {
    const std::optional<int64_t> newest = ParseDay(stats.rbegin()->first);
    if (newest) first_hour_day = FormatDay(*newest - (kHourDays - 1) * kDayMs);
  }
  std::vector<std::string> hour_days;
  {
    PhaseTimer link_timer(report_.link_s, report_.link_cpu_s);
    for (const auto& [day, s] : stats) {
      Part part;
      part.day = day;
      part.rows = s.rows;
      part.signature = s.signature;
      auto old = before.find(day);
      bool same = old != before.end() && old->second.rows == s.rows &&
                  old->second.signature == s.signature && !old->second.files.empty();
      if (same) {
        // Hard links: the new snapshot shares the unchanged files (all in the day's folder). A
        // file that cannot be linked (gone, another file system) makes the day rewritten instead.
        const std::string day_name = "day=" + day;
        const std::string day_prefix = table_prefix + day_name + "/";
        const fs::path day_dir = table_dir / day_name;
        same = previous_root->fd() >= 0 && new_table->fd() >= 0 &&
               ::mkdirat(new_table->fd(), day_name.c_str(), 0755) == 0;
        if (same) dirs_.push_back(day_dir);
        // "TABLE/day=D/FILE" in the previous snapshot, "day=D/FILE" below the new table folder.
        same = same && LinkAll(previous_root->fd(), new_table->fd(), old->second.files, day_prefix,
                               table_prefix.size());
        if (!same) {
          if (!dirs_.empty() && dirs_.back() == day_dir) dirs_.pop_back();
          RemoveTree(day_dir);
        }
      }
      if (same) {
        part.files = old->second.files;
        part.hours = old->second.hours;
        part.linked = true;
        ++report_.days_linked;
        report_.rows_linked += s.rows;
        counts.rows_in += s.rows;
      } else if (!first_hour_day.empty() && day >= first_hour_day) {
        hour_days.push_back(day);
      } else {
        changed.push_back(day);
        ++report_.days_written;
        report_.rows_written += s.rows;
        counts.rows_out += s.rows;
      }
      parts[day] = std::move(part);
    }
  }
  RETURN_IF_ERROR(CopyDays(table, changed, changed.size() == stats.size(), parts));
  for (const std::string& day : hour_days) {
    RETURN_IF_ERROR(WriteHours(table, day, before, parts[day], counts));
  }
  return TableJson(table.name, table.kind, "day", schema, parts);
}

Result<nlohmann::json> Exporter::ExportWhole(std::string_view table, std::string_view kind) {
  ASSIGN_OR_RETURN(auto schema, Schema(table));
  bool has_run_id = false;
  for (const auto& [col, type] : schema) has_run_id = has_run_id || col == "run_id";
  // The ledger as of the snapshot: without this export's own row, still "running".
  const std::string rows =
      table == "predlake_runs" && has_run_id ? "run_id <> " + std::to_string(run_.id()) : "TRUE";
  const fs::path folder = tmp_ / std::string(table);
  RETURN_IF_ERROR(MakeDir(folder));
  dirs_.push_back(folder);
  const std::string file = fmt::format("part-{:06d}-0.parquet", run_.id());
  PhaseTimer timer(report_.write_s, report_.write_cpu_s);
  const std::vector<duck::SqlValue> values = {
      {"table", duck::QuoteIdent(table)},
      {"rows", rows},
      {"file", duck::QuoteString((folder / file).string())}};
  ASSIGN_OR_RETURN(std::string copy_sql, ExportSql("copy_table", values));
  RETURN_IF_ERROR(conn_.Execute(copy_sql, "export: write " + std::string(table)));
  written_files_.push_back(folder / file);
  StartWriteback(folder / file);
  ASSIGN_OR_RETURN(std::string count_sql, ExportSql("count_rows", values));
  ASSIGN_OR_RETURN(auto count, conn_.QueryInt(count_sql, "export: count " + std::string(table)));
  Part part;
  part.rows = count.value_or(0);
  part.files = {std::string(table) + "/" + file};
  if (kind != "bookkeeping") run_.tables()[std::string(table)].rows_out += part.rows;
  report_.rows_written += part.rows;
  return TableJson(table, kind, "", schema, {{"", part}});
}

Status Exporter::SyncTree(const fs::path& root) {
  // Everything written, then every folder (new ones, and those holding new links). The order
  // among them does not matter: nothing names the tree until Switch() renames it, after all of
  // them. Linked files were made durable by the export that wrote them.
  // The export made each folder itself and kept the list (dirs_), so the tree is not walked.
  std::vector<fs::path> dirs = dirs_;
  dirs.push_back(root);
  RETURN_IF_ERROR(FsyncAll(written_files_, false));
  return FsyncAll(dirs, true);
}

Status Exporter::Switch() {
  const fs::path final_dir = exports_ / name_;
  RETURN_IF_ERROR(ReachStep(options_.faults, "rename"));
  if (::rename(tmp_.c_str(), final_dir.c_str()) != 0) {
    return FileError("rename into place", tmp_, errno);
  }
  RETURN_IF_ERROR(FsyncPath(exports_, true));
  RETURN_IF_ERROR(ReachStep(options_.faults, "switch"));
  // A relative target, so that the lake folder can be moved or mounted elsewhere.
  const fs::path link = exports_ / (std::string(kTempPrefix) + std::string(kCurrentLink));
  ::unlink(link.c_str());
  if (::symlink(name_.c_str(), link.c_str()) != 0) return FileError("create", link, errno);
  const fs::path current = exports_ / std::string(kCurrentLink);
  if (::rename(link.c_str(), current.c_str()) != 0) return FileError("switch", current, errno);
  return FsyncPath(exports_, true);
}

int64_t Exporter::RemoveSuperseded() {
  // A snapshot stopped being current when the next one was made; readers that resolved it before
  // have grace_ms to finish.
  std::map<int64_t, std::pair<fs::path, int64_t>> snapshots;  // run -> (folder, created_at_ms)
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(exports_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kSnapshotPrefix, 0) != 0 || !entry.is_directory(ec)) continue;
    char* end = nullptr;
    const long long run = std::strtoll(name.c_str() + kSnapshotPrefix.size(), &end, 10);
    if (end == nullptr || *end != '\0') continue;
    int64_t created = 0;
    if (previous_ && run == previous_->run_id) {
      snapshots[run] = {entry.path(), previous_->created_at_ms};  // read once already
      continue;
    }
    if (run == run_.id()) {
      snapshots[run] = {entry.path(), created_at_ms_};
      continue;
    }
    // No readable manifest: superseded whenever a later one exists.
    Result<nlohmann::json> m = ReadManifest(entry.path().string());
    if (m.ok() && m->is_object()) {
      const auto at = m->find("created_at_ms");
      if (at != m->end() && at->is_number_integer()) created = at->get<int64_t>();
    }
    snapshots[run] = {entry.path(), created};
  }
  const int64_t now = lake_.NowMs();
  std::vector<fs::path> folders;
  for (auto it = snapshots.begin(); it != snapshots.end(); ++it) {
    auto next = std::next(it);
    if (next == snapshots.end() || it->first == run_.id()) break;
    if (now - next->second.second < options_.grace_ms) continue;
    folders.push_back(it->second.first);
  }
  const auto removed = static_cast<int64_t>(folders.size());
  if (!folders.empty()) Removal().Start(std::move(folders));
  return removed;
}

Result<ExportReport> Exporter::Run() {
  // The previous export's removals are done before this one lists the folder.
  Removal().Wait();
  exports_ = fs::path(ExportsDir(lake_.dir()));
  std::error_code ec;
  fs::create_directories(exports_, ec);
  if (ec) return FileError("create", exports_, ec.value());
  {
    PhaseTimer timer(report_.clean_s, report_.clean_cpu_s);
    RETURN_IF_ERROR(CleanLeftovers());
  }
  if (!options_.full) {
    Result<std::optional<Snapshot>> current = ReadCurrent(lake_.dir());
    // A damaged current snapshot is replaced by a full one.
    if (current.ok()) previous_ = std::move(current).value();
  }
  name_ = SnapshotFolderName(run_.id());
  tmp_ = exports_ / (std::string(kTempPrefix) + name_);
  fs::create_directories(tmp_, ec);
  if (ec) return FileError("create", tmp_, ec.value());
  report_.run_id = run_.id();

  ASSIGN_OR_RETURN(std::set<std::string> deleted, TablesWithDeletes());
  ASSIGN_OR_RETURN(
      std::string seq_sql,
      ExportSql("last_raw_days_seq", {{"raw_days", std::string(lake::kRawDaysTable)}}));
  ASSIGN_OR_RETURN(auto raw_days_seq,
                   conn_.QueryInt(seq_sql, "export: read the number of the last written raw days"));
  raw_days_seq_ = raw_days_seq.value_or(0);
  nlohmann::json tables = nlohmann::json::array();
  for (const ExportTable& table : DataTables()) {
    if (options_.progress) options_.progress->Update("export " + std::string(table.name));
    if (table.partitioning == Partitioning::kNone) {
      ASSIGN_OR_RETURN(nlohmann::json t, ExportWhole(table.name, table.kind));
      tables.push_back(std::move(t));
      continue;
    }
    // After a raw drop the append-only tables are rewritten whole, and so is pdr_predictions
    // when the previous snapshot knows no written days (an older one): its signature cannot
    // tell a dropped row from a restored version of the same time.
    const bool recorded_days = previous_ && previous_->manifest.contains("raw_days_seq");
    const bool rewrite_all =
        options_.full || !previous_ ||
        ((SignatureOf(table) == Signature::kRowsOnly ||
          (SignatureOf(table) == Signature::kRowsAndTimes && !recorded_days)) &&
         deleted.count(std::string(table.name)) > 0);
    ASSIGN_OR_RETURN(nlohmann::json t, ExportPartitioned(table, rewrite_all));
    tables.push_back(std::move(t));
  }
  ASSIGN_OR_RETURN(std::string books_sql,
                   ExportSql("bookkeeping_tables",
                             {{"bookkeeping_prefix", duck::QuoteString(lake::kBookkeepingPrefix)},
                              {"staging_prefix", duck::QuoteString(lake::kRawStagingPrefix)}}));
  ASSIGN_OR_RETURN(duck::QueryResult books,
                   conn_.Query(books_sql, "export: list the bookkeeping tables"));
  for (const auto& row : books.ToText()) {
    ASSIGN_OR_RETURN(nlohmann::json t, ExportWhole(row[0].value_or(""), "bookkeeping"));
    tables.push_back(std::move(t));
  }
  if (!RemoveTree(tmp_ / ".copy")) return FileError("remove", tmp_ / ".copy", errno);
  report_.tables = static_cast<int64_t>(tables.size());

  // The manifest: what the snapshot holds, and the state of the lake it shows.
  nlohmann::json manifest = nlohmann::json::object();
  manifest["layout_version"] = kLayoutVersion;
  manifest["run"] = run_.id();
  created_at_ms_ = lake_.NowMs();
  manifest["created_at_ms"] = created_at_ms_;
  manifest["full"] = options_.full || !previous_;
  manifest["previous_run"] = previous_ ? nlohmann::json(previous_->run_id) : nlohmann::json();
  ASSIGN_OR_RETURN(auto checkpoint, lake_.GetCheckpoint());
  manifest["checkpoint"] = checkpoint ? nlohmann::json{{"start_ms", checkpoint->start_ms},
                                                       {"checkpoint_ms", checkpoint->checkpoint_ms}}
                                      : nlohmann::json();
  ASSIGN_OR_RETURN(auto marks, lake_.Watermarks());
  nlohmann::json j_marks = nlohmann::json::object();
  for (const auto& [table, mark] : marks) {
    j_marks[table] = {{"start_ms", mark.start_ms}, {"watermark_ms", mark.watermark_ms}};
  }
  manifest["watermarks"] = std::move(j_marks);
  manifest["raw_days_seq"] = raw_days_seq_;
  ASSIGN_OR_RETURN(std::string last_run_sql,
                   ExportSql("last_run", {{"run", std::to_string(run_.id())}}));
  ASSIGN_OR_RETURN(auto last_run, conn_.QueryInt(last_run_sql, "export: read the last run"));
  manifest["last_run"] = last_run ? nlohmann::json(*last_run) : nlohmann::json();
  manifest["tables"] = std::move(tables);

  RETURN_IF_ERROR(ReachStep(options_.faults, "manifest"));
  const fs::path manifest_path = tmp_ / kManifestFile;
  {
    const std::string text = manifest.dump(1) + "\n";
    std::FILE* f = std::fopen(manifest_path.c_str(), "wb");
    if (f == nullptr) return FileError("create", manifest_path, errno);
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const int err = errno;
    if (std::fclose(f) != 0 || !ok) return FileError("write", manifest_path, ok ? errno : err);
  }
  written_files_.push_back(manifest_path);
  RETURN_IF_ERROR(ReachStep(options_.faults, "fsync"));
  {
    PhaseTimer timer(report_.sync_s, report_.sync_cpu_s);
    RETURN_IF_ERROR(SyncTree(tmp_));
  }
  RETURN_IF_ERROR(Switch());
  report_.dir = (exports_ / name_).string();

  run_.detail()["snapshot"] = name_;
  run_.detail()["full"] = manifest["full"];
  run_.detail()["days_written"] = report_.days_written;
  run_.detail()["days_linked"] = report_.days_linked;
  {
    ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(conn_));
    RETURN_IF_ERROR(run_.Finish());
    RETURN_IF_ERROR(tx.Commit());
  }
  {
    PhaseTimer timer(report_.clean_s, report_.clean_cpu_s);
    report_.snapshots_removed = RemoveSuperseded();
  }
  report_.message = fmt::format(
      "export: snapshot {} ({}): {} days written ({} rows), {} days linked ({} rows), {} tables",
      name_, manifest["full"].get<bool>() ? "full" : "incremental", report_.days_written,
      report_.rows_written, report_.days_linked, report_.rows_linked, report_.tables);
  return report_;
}

}  // namespace

void WaitForRemovals() { Removal().Wait(); }

std::string DayExpression(Partitioning p) {
  return p == Partitioning::kByDayColumn ? "\"day\"" : std::string(lake::kTimestampDaySql);
}

Result<ExportReport> Export(lake::Lake& lake, lake::Run& run, const ExportOptions& options) {
  Exporter exporter(lake, run, options);
  Result<ExportReport> report = exporter.Run();
  if (!report.ok()) {
    // Best effort: a failed export (a full disk) gives its space back at once; a killed one is
    // removed by the next export.
    std::error_code ec;
    const fs::path exports(ExportsDir(lake.dir()));
    const std::string name = SnapshotFolderName(run.id());
    fs::remove_all(exports / (std::string(kTempPrefix) + name), ec);
    // Renamed into place but never made current (the switch failed): nobody can be reading it.
    if (fs::read_symlink(exports / kCurrentLink, ec).string() != name) {
      fs::remove_all(exports / name, ec);
    }
  }
  return report;
}

}  // namespace predlake::exports
