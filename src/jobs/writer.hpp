// Running a writing command: the lake opened as its writer (waiting briefly while another process
// holds it), one run begun in the ledger, the job, and the run's failure recorded. Every command
// that writes goes through RunWriter, so that each records exactly one run.
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
  // The network the command works on; the lake must hold that network's data (ops::ClaimNetwork).
  // Empty: not checked.
  std::string network;
  // DuckDB's memory limit while the command runs (lake_ss.memory_limit; lake::OpenOptions). Empty:
  // DuckDB's default.
  std::string memory_limit;
};

// The export after a publish (env.export_after), as its own run on `lake`. Never fails the caller.
void ExportAfterPublish(const WriterEnv& env, lake::Lake& lake);

// Opens env.lake_dir for writing as `command` (ops::OpenForWrite), begins a run of `command` and
// calls job(lake, run). The job finishes the run inside its publish transaction; when it fails, the
// run is failed with its error (lake::Run::Fail, which does nothing when the job failed it
// already) and that error is returned; when it succeeds and env.export_after is set, an export run
// follows (ExportAfterPublish). The lake is closed before returning, so that readers get in
// between runs. Opening errors (kBusy naming the holder, kData) are returned without a run, and so
// is kUsage when env.network is not the lake's network (ops::ClaimNetwork).
template <typename Report>
Result<Report> RunWriter(const WriterEnv& env, const std::string& command,
                         const std::function<Result<Report>(lake::Lake&, lake::Run&)>& job) {
  ASSIGN_OR_RETURN(
      std::unique_ptr<lake::Lake> lake,
      ops::OpenForWrite(env.lake_dir, command, env.clock, env.retry, env.create, env.memory_limit));
  if (!env.network.empty()) RETURN_IF_ERROR(ops::ClaimNetwork(*lake, env.network));
  ASSIGN_OR_RETURN(lake::Run run, lake->BeginRun(command));
  Result<Report> report = job(*lake, run);
  if (!report.ok()) return run.Fail(report.status());
  if (env.export_after) ExportAfterPublish(env, *lake);
  return report;
}

}  // namespace predlake::jobs
