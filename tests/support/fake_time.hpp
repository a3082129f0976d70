// A clock that moves only when its sleeper sleeps or the test advances it: loops, retries and
// back-offs run at once and deterministically. Not thread-safe; one test thread uses it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "common/sleeper.hpp"
#include "common/time.hpp"

namespace predlake::test_support {

class FakeTime final : public Clock, public Sleeper {
 public:
  explicit FakeTime(int64_t now_ms = 1'721'952'000'000) : now_(now_ms) {}
  int64_t NowMs() const override { return now_; }
  // Moves the clock by `ms`, counts the sleep, then calls `on_sleep` (a test may act during a
  // wait there, e.g. deliver a "signal").
  void SleepMs(int64_t ms, const std::atomic<bool>*) override {
    now_ += ms;
    slept_ += ms;
    ++sleeps_;
    if (on_sleep) on_sleep();
  }
  void Advance(int64_t ms) { now_ += ms; }
  int64_t slept() const { return slept_; }
  int sleeps() const { return sleeps_; }
  std::function<void()> on_sleep;

 private:
  int64_t now_;
  int64_t slept_ = 0;
  int sleeps_ = 0;
};

}  // namespace predlake::test_support
