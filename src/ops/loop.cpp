#include "ops/loop.hpp"

#include <algorithm>

#include "common/backoff.hpp"

namespace predlake::ops {

namespace {

bool IsFatal(const Status& st, int64_t runs_done) {
  switch (st.code()) {
    case StatusCode::kUsage:
    case StatusCode::kConfig:
      return true;
    case StatusCode::kBusy:
      return runs_done == 0;
    default:
      return false;
  }
}

}  // namespace

int64_t BackoffMs(int64_t every_ms, int64_t failures, int64_t max_backoff_ms) {
  return Backoff::CeilingMs(std::max<int64_t>(every_ms, 1), std::max(every_ms, max_backoff_ms),
                            failures + 1);
}

Status RunEvery(const LoopOptions& options, const std::function<Status()>& run,
                const std::atomic<bool>& cancelled, Logger& log) {
  if (options.every_ms <= 0) return Status::Usage("--every must be a positive duration");
  SystemClock system_clock;
  const Clock& clock = options.clock ? *options.clock : system_clock;
  Sleeper& sleeper = options.sleeper ? *options.sleeper : DefaultSleeper();

  // Waits until `until` (clock ms) or a signal; false when a signal cut the wait short.
  auto wait_until = [&](int64_t until) {
    while (!cancelled.load()) {
      int64_t now = clock.NowMs();
      if (now >= until) return true;
      sleeper.SleepMs(std::min(until - now, std::max<int64_t>(options.poll_ms, 1)), &cancelled);
    }
    return false;
  };
  // The returned status is the one line the command ends with; nothing else to log.
  auto stopped = [&](int64_t runs) {
    return Status::Cancelled("update --every stopped by a signal after " + std::to_string(runs) +
                             " run(s)");
  };

  int64_t runs = 0;
  int64_t failures = 0;
  while (true) {
    if (cancelled.load()) return stopped(runs);
    const int64_t started = clock.NowMs();
    Status st = run();
    ++runs;
    const int64_t ended = clock.NowMs();
    // "loop_run", not "run": the ledger's run ids appear in the same log as `run=`.
    const LogFields timing = {{"loop_run", std::to_string(runs)},
                              {"duration", FormatDuration(std::max<int64_t>(ended - started, 0))}};
    if (st.code() == StatusCode::kCancelled || (cancelled.load() && st.ok())) {
      if (st.ok()) log.Info("run finished", timing);
      return stopped(runs);
    }
    if (!st.ok() && IsFatal(st, runs - 1)) return st;
    int64_t next;
    if (st.ok()) {
      failures = 0;
      next = std::max(started + options.every_ms, ended);
      LogFields fields = timing;
      fields.emplace_back("next", FormatTime(next));
      log.Info("run finished", fields);
    } else {
      ++failures;
      int64_t wait = BackoffMs(options.every_ms, failures, options.max_backoff_ms);
      next = ended + wait;
      LogFields fields = timing;
      fields.emplace_back("failures", std::to_string(failures));
      fields.emplace_back("retry_in", FormatDuration(wait));
      log.Warn("run failed: " + st.message(), fields);
    }
    if (options.max_runs && runs >= *options.max_runs) return Status::Ok();
    if (!wait_until(next)) return stopped(runs);
  }
}

}  // namespace predlake::ops
