#include "ops/loop.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "support/fake_time.hpp"

namespace predlake::ops {
namespace {

using test_support::FakeTime;

struct Harness {
  FakeTime time;
  std::atomic<bool> cancelled{false};
  std::ostringstream log_text;
  Logger log{log_text, LogFormat::kText, false};
  std::vector<int64_t> starts;  // offsets of run starts from the first

  LoopOptions Options(int64_t every_ms) {
    LoopOptions o;
    o.every_ms = every_ms;
    o.clock = &time;
    o.sleeper = &time;
    return o;
  }
  // A run that records its start, takes `duration_ms` and returns the next status of `results`
  // (OK once they run out).
  std::function<Status()> Run(std::vector<Status> results, int64_t duration_ms = 0) {
    return [this, results, duration_ms, i = size_t{0}]() mutable {
      if (first_ < 0) first_ = time.NowMs();
      starts.push_back(time.NowMs() - first_);
      time.Advance(duration_ms);
      return i < results.size() ? results[i++] : Status::Ok();
    };
  }

 private:
  int64_t first_ = -1;
};

TEST(Loop, RunsOnAFixedCadence) {
  Harness h;
  LoopOptions o = h.Options(1000);
  o.max_runs = 4;
  Status st = RunEvery(o, h.Run({}, 250), h.cancelled, h.log);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(h.starts, (std::vector<int64_t>{0, 1000, 2000, 3000}));
  EXPECT_NE(h.log_text.str().find("run finished"), std::string::npos);
}

TEST(Loop, ALongRunIsFollowedAtOnceWithoutPileUp) {
  Harness h;
  LoopOptions o = h.Options(1000);
  o.max_runs = 3;
  Status st = RunEvery(o, h.Run({}, 2500), h.cancelled, h.log);
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(h.starts, (std::vector<int64_t>{0, 2500, 5000}));
}

TEST(Loop, FailuresAreLoggedAndBackedOffExponentiallyThenTheCadenceResumes) {
  Harness h;
  LoopOptions o = h.Options(1000);
  o.max_runs = 6;
  o.max_backoff_ms = 5000;
  Status st = RunEvery(o,
                       h.Run({Status::Source("subgraph answered 502"), Status::Data("bad page"),
                              Status::Source("timeout"), Status::Ok(), Status::Source("again")}),
                       h.cancelled, h.log);
  EXPECT_TRUE(st.ok()) << st.message();
  // Waits: 2s, 4s, 5s (capped), then the 1s cadence, then 2s after the new failure.
  EXPECT_EQ(h.starts, (std::vector<int64_t>{0, 2000, 6000, 11000, 12000, 14000}));
  const std::string text = h.log_text.str();
  EXPECT_NE(text.find("run failed: subgraph answered 502"), std::string::npos) << text;
  EXPECT_NE(text.find("retry_in=4s"), std::string::npos) << text;
}

TEST(Loop, BackoffIsExponentialAndCapped) {
  EXPECT_EQ(BackoffMs(1000, 1, 60000), 2000);
  EXPECT_EQ(BackoffMs(1000, 3, 60000), 8000);
  EXPECT_EQ(BackoffMs(1000, 40, 60000), 60000);
  EXPECT_EQ(BackoffMs(3600000, 2, 60000), 3600000);  // never below the cadence
  EXPECT_EQ(BackoffMs(300000, 1000000, 900000), 900000);
}

TEST(Loop, ErrorsNoRetryCanFixAreReturned) {
  for (Status fatal : {Status::Config("ppss.yaml:3: bad key"), Status::Usage("bad --to")}) {
    Harness h;
    Status st = RunEvery(h.Options(1000), h.Run({Status::Ok(), fatal}), h.cancelled, h.log);
    EXPECT_EQ(st.code(), fatal.code());
    EXPECT_EQ(h.starts.size(), 2u);
  }
}

TEST(Loop, BusyOnTheFirstRunIsFatalButLaterOnlyRetried) {
  Harness first;
  Status st = RunEvery(first.Options(1000), first.Run({Status::Busy("held by pid 7")}),
                       first.cancelled, first.log);
  EXPECT_EQ(st.code(), StatusCode::kBusy);
  EXPECT_EQ(first.starts.size(), 1u);

  Harness later;
  LoopOptions o = later.Options(1000);
  o.max_runs = 3;
  st = RunEvery(o, later.Run({Status::Ok(), Status::Busy("a reader")}), later.cancelled, later.log);
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(later.starts, (std::vector<int64_t>{0, 1000, 3000}));
}

TEST(Loop, SignalDuringAWaitStopsBeforeTheNextRun) {
  Harness h;
  int sleeps = 0;
  h.time.on_sleep = [&] {
    if (++sleeps == 3) h.cancelled = true;
  };
  LoopOptions o = h.Options(60000);
  o.poll_ms = 100;
  Status st = RunEvery(o, h.Run({}), h.cancelled, h.log);
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  EXPECT_EQ(h.starts.size(), 1u);
  // The wait noticed the flag within one poll interval.
  EXPECT_EQ(h.time.slept(), 300);
  EXPECT_NE(h.log_text.str().find("run finished loop_run=1"), std::string::npos)
      << h.log_text.str();
}

TEST(Loop, SignalDuringARunLetsItFinishThenStops) {
  Harness h;
  auto inner = h.Run({});
  auto run = [&] {
    h.cancelled = true;  // the signal arrives while the run works
    return inner();
  };
  Status st = RunEvery(h.Options(1000), run, h.cancelled, h.log);
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  EXPECT_EQ(h.starts.size(), 1u);
  EXPECT_NE(h.log_text.str().find("run finished"), std::string::npos);
}

TEST(Loop, ARunInterruptedBySignalStopsTheLoop) {
  Harness h;
  Status st =
      RunEvery(h.Options(1000), h.Run({Status::Cancelled("interrupted")}), h.cancelled, h.log);
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  EXPECT_EQ(h.starts.size(), 1u);
}

TEST(Loop, SignalBeforeTheStartRunsNothing) {
  Harness h;
  h.cancelled = true;
  Status st = RunEvery(h.Options(1000), h.Run({}), h.cancelled, h.log);
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  EXPECT_TRUE(h.starts.empty());
}

TEST(Loop, ZeroCadenceIsAUsageError) {
  Harness h;
  Status st = RunEvery(h.Options(0), h.Run({}), h.cancelled, h.log);
  EXPECT_EQ(st.code(), StatusCode::kUsage);
  EXPECT_TRUE(h.starts.empty());
}

TEST(Loop, JsonLogsAreOneObjectPerLine) {
  Harness h;
  Logger json_log(h.log_text, LogFormat::kJson, false);
  LoopOptions o = h.Options(1000);
  o.max_runs = 2;
  Status st = RunEvery(o, h.Run({Status::Source("boom")}), h.cancelled, json_log);
  EXPECT_TRUE(st.ok());
  std::istringstream lines(h.log_text.str());
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    EXPECT_EQ(line.front(), '{') << line;
    EXPECT_EQ(line.back(), '}') << line;
  }
  EXPECT_EQ(n, 2);
}

}  // namespace
}  // namespace predlake::ops
