// Running a writing command: the lake opened as its writer (waiting briefly while another process
// holds it), one run begun in the ledger per step of work, the job, and the run's failure
// recorded. This is the only place that opens the lake for writing and begins runs: every command
// that writes goes through Writer (RunWriter for the one-run commands), so that each records its
// runs the same way (docs/runs.md).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/status.hpp"
#include "common/time.hpp"
#include "export/export.hpp"
#include "lake/lake.hpp"
#include "ops/open.hpp"

namespace predlake::jobs {

// Where and how a writer opens the lake.
struct WriterEnv {
  std::string lake_dir;
  const Clock* clock = nullptr;  // ledger times; not owned; nullptr: the system clock
  ops::RetryOptions retry;       // the wait for a busy lake (ops::BusyRetry for commands)
  // lake_ss.export_after_publish: after a successful job, an export run ("export") on the same
  // open lake. Its outcome goes to on_export (may be empty); a failure is recorded in the ledger
  // and never changes the job's result.
  std::optional<exports::ExportOptions> export_after;
  std::function<void(const Result<exports::ExportReport>&)> on_export;
  // false: a missing lake is kData "no lake at DIR" and nothing is created (writers that only
  // change what is there).
  bool create = true;
  // The network the command works on; the lake must hold that network's data (ClaimNetwork).
  // Empty: not checked.
  std::string network;
  // DuckDB's memory limit while the command runs (lake_ss.memory_limit; lake::OpenOptions). Empty:
  // DuckDB's default.
  std::string memory_limit;
  // lake::OpenOptions::close_checkpoint and ::threads (`update` keeps the WAL and one thread).
  lake::CloseCheckpoint close_checkpoint = lake::CloseCheckpoint::kAlways;
  int threads = 0;
};

// ops::OpenWithRetry in Mode::kWrite with env's options, the lock file naming `command`. `create`
// false: a missing lake is kData "no lake at DIR" and nothing is created.
Result<std::unique_ptr<lake::Lake>> OpenForWrite(const WriterEnv& env, const std::string& command);

// The lake knows its network (predlake_meta kMetaNetwork). A lake that has none yet (new, or made
// before networks were recorded) gets `network` recorded; a lake of another network is refused
// with kUsage naming both. Needs a lake opened for writing.
Status ClaimNetwork(lake::Lake& lake, const std::string& network);

// The lake opened as one command's writer, for one run or a sequence of runs (chunks) on the same
// open lake. Move-only; the lake is closed when it goes (or by Close).
class Writer {
 public:
  // Opens env.lake_dir for writing as `command` (OpenForWrite) and, when env.network is set,
  // claims the lake for it (ClaimNetwork). Errors: kBusy naming the holder, kData, kConfig from
  // the open; kUsage from the claim. No run is begun.
  static Result<Writer> Open(const WriterEnv& env, std::string command);

  lake::Lake& lake() { return *lake_; }
  const std::string& command() const { return command_; }

  // Begins a run named `run_command` and calls job(lake, run). The job finishes the run inside
  // its publish transaction; when it fails, the run is failed with its error (lake::Run::Fail,
  // which does nothing when the job failed it already) and that error is returned. kData when the
  // run cannot be begun.
  template <typename Report>
  Result<Report> Run(const std::string& run_command,
                     const std::function<Result<Report>(lake::Lake&, lake::Run&)>& job) {
    ASSIGN_OR_RETURN(lake::Run run, lake_->BeginRun(run_command));
    Result<Report> report = job(*lake_, run);
    if (!report.ok()) return run.Fail(report.status());
    return report;
  }

  // When env.export_after is set: the export after a publish, as its own run ("export") on the
  // open lake, its outcome passed to env.on_export. Never fails the caller. Nothing otherwise.
  void ExportAfterPublish();

  // lake::Lake::Close (its CloseReport); idempotent.
  lake::Lake::CloseReport Close() { return lake_->Close(); }

  // For a walk of several chunks (runs) on this open lake: DuckDB checkpoints inside a commit once
  // its write-ahead log passes wal_autocheckpoint (16 MB), which a chunk of a day's history does,
  // so every chunk paid a checkpoint; from here on it checkpoints once the log passes
  // kChunkWalkWalBytes instead (and the close checkpoints the rest). Every commit is in the log
  // either way: a kill loses nothing committed, and the next open replays at most that much.
  // Errors: kData from DuckDB.
  Status RaiseWalCheckpointForChunks();

 private:
  Writer(WriterEnv env, std::string command, std::unique_ptr<lake::Lake> lake)
      : env_(std::move(env)), command_(std::move(command)), lake_(std::move(lake)) {}

  WriterEnv env_;
  std::string command_;
  std::unique_ptr<lake::Lake> lake_;
};

// The write-ahead log size at which a chunk walk's commit checkpoints
// (RaiseWalCheckpointForChunks): a few days of the history at mainnet's rate. docs/scale.md has the
// measurements.
inline constexpr int64_t kChunkWalkWalBytes = 256LL << 20;

// The one-run writer: Writer::Open(env, command), one Run named `command`, and, when it
// succeeds, the export after the publish (Writer::ExportAfterPublish). The lake is closed before
// returning, so that readers get in between runs. Opening errors (kBusy naming the holder, kData)
// are returned without a run, and so is kUsage when env.network is not the lake's network.
template <typename Report>
Result<Report> RunWriter(const WriterEnv& env, const std::string& command,
                         const std::function<Result<Report>(lake::Lake&, lake::Run&)>& job) {
  ASSIGN_OR_RETURN(Writer writer, Writer::Open(env, command));
  Result<Report> report = writer.Run<Report>(command, job);
  if (report.ok()) writer.ExportAfterPublish();
  return report;
}

}  // namespace predlake::jobs
