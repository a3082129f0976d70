// Loop mode (`update --every DURATION`): run a function again and again on a fixed cadence,
// surviving its failures, until a signal asks to stop. See docs/operations.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>

#include "common/log.hpp"
#include "common/status.hpp"
#include "common/time.hpp"
#include "ops/open.hpp"

namespace predlake::ops {

struct LoopOptions {
  int64_t every_ms = 0;                     // cadence: run starts are this far apart; must be > 0
  int64_t max_backoff_ms = 15 * 60 * 1000;  // cap of the wait after failures (never below every_ms)
  int64_t poll_ms = 100;                    // how often a wait looks at the cancellation flag
  std::optional<int64_t> max_runs;          // stop with OK after this many runs (tests)
  const Clock* clock = nullptr;             // not owned; nullptr: the system clock
  Sleeper* sleeper = nullptr;               // not owned; nullptr: really sleep
};

// The wait after `failures` consecutive failed runs (failures >= 1): every_ms * 2^failures, capped
// at max(every_ms, max_backoff_ms).
int64_t BackoffMs(int64_t every_ms, int64_t failures, int64_t max_backoff_ms);

// Calls `run` at once, then every options.every_ms (measured from the start of the previous run; a
// run longer than that is followed at once by the next, never by a pile-up). `run` opens the lake,
// does its work, records it in the ledger (a failed run records itself as failed) and closes the
// lake before returning, so that readers get in between runs.
//
// A run's error is logged as a warning and followed by an exponential back-off (BackoffMs), never
// fatal, except for errors that no retry can fix: kUsage and kConfig, and kBusy from the very first
// run (another writer is already running), which are returned at once.
//
// `cancelled` (Context::EnableCancellation's flag) is read between runs and during waits: once set,
// the current run is left to finish or roll back (it may watch the flag itself and return
// kCancelled), no new run starts, and RunEvery returns kCancelled. Returns OK only when
// options.max_runs is reached. every_ms <= 0 is kUsage.
Status RunEvery(const LoopOptions& options, const std::function<Status()>& run,
                const std::atomic<bool>& cancelled, Logger& log);

}  // namespace predlake::ops
