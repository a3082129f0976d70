// Runs one ETL job in a child process (this test binary re-executed by test_support::RunChild with
// a gtest filter that selects EtlChildProcess.Run), so that a test can SIGKILL the job mid-run
// without fork-related hazards in the parent.
#pragma once

#include <cstdint>
#include <string>

namespace predlake::etl::testing {

struct ChildJob {
  std::string lake_dir;
  std::string job;     // "update", "rebuild", "drop", "raw_drop"
  int64_t arg_ms = 0;  // --to for update (0: none), --from for drop / raw_drop
  int64_t st_ms = 0;
  std::string kill_at;  // PREDLAKE_KILL_AT for the child
  // "rebuild" in parts of this length (UpdateOptions::in_parts); 0: one window.
  int64_t part_ms = 0;
};

enum class ChildOutcome { kSucceeded, kFailed, kKilled, kOther };

// Runs the job in a child process and waits for it.
ChildOutcome RunChild(const ChildJob& job);

}  // namespace predlake::etl::testing
