// Waiting, injected so that tests of retries, back-offs and loops never sleep.
#pragma once

#include <atomic>
#include <cstdint>

namespace predlake {

// Waits for a while. Implementations used from several threads say so.
class Sleeper {
 public:
  virtual ~Sleeper() = default;
  // Waits `ms` milliseconds (nothing when ms <= 0), returning early once `*stop` becomes true
  // (when stop is not null).
  virtual void SleepMs(int64_t ms, const std::atomic<bool>* stop) = 0;
};

// Sleeps for real, in short slices so that a stop request is noticed within ~50 ms. Thread-safe.
class RealSleeper final : public Sleeper {
 public:
  void SleepMs(int64_t ms, const std::atomic<bool>* stop) override;
};

// The process-wide RealSleeper.
Sleeper& DefaultSleeper();

}  // namespace predlake
