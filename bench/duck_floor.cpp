// module: predlake_lake
// The floor of bench/scale.sh: what bare DuckDB costs on the benchmark's own lake, in the same run,
// so that each command's figure can be read as a ratio to it. One step per process (the process's
// start is part of what the binary pays too):
//   open        open the file and close it (read-only: nothing written)
//   commit      open, one transaction that changes one row of predlake_meta, commit, close without
//               a checkpoint (as predlake closes between checkpoints)
//   checkpoint  open (replaying the write-ahead log an `update` left pending), CHECKPOINT, close
// Usage: bench_duck_floor DB_FILE STEP. Prints "STEP_open_s X", "STEP_step_s Y" (wall seconds in
// this process: the open, and the step after it) and "STEP_cpu_s Z" (the process's CPU seconds).
// One thread, as `update` opens the lake.
#include <chrono>
#include <cstdio>
#include <string>

#include "bench_support.hpp"
#include "duck/duck.hpp"

namespace {

using namespace predlake;
using bench::Check;
using bench::Seconds;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_duck_floor DB_FILE open|commit|checkpoint\n");
    return 2;
  }
  const std::string path = argv[1];
  const std::string step = argv[2];
  if (step != "open" && step != "commit" && step != "checkpoint") {
    std::fprintf(stderr, "bench_duck_floor: unknown step %s\n", step.c_str());
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  double open_s = 0;
  double step_s = 0;
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
    } else if (step == "checkpoint") {
      Check(conn->Execute("CHECKPOINT", "floor"), "checkpoint");
    }
    step_s = Seconds(step_start);
  }
  std::printf("%s_open_s %.3f\n%s_step_s %.3f\n%s_cpu_s %.3f\n", step.c_str(), open_s, step.c_str(),
              step_s, step.c_str(), bench::CpuSeconds());
  return 0;
}
