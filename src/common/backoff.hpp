// Exponential backoff with jitter, for every client that retries a remote party (the subgraph, the
// exchange). One definition, so that every retry loop spreads and caps its waits the same way.
#pragma once

#include <cstdint>
#include <random>

namespace predlake {

// Not thread-safe: one per client (each client is used from one thread).
class Backoff {
 public:
  // `base_ms`: the wait before the 2nd attempt, doubling per retry up to `max_ms`. `seed` 0 seeds
  // from std::random_device; any other value makes the waits reproducible (tests).
  Backoff(int64_t base_ms, int64_t max_ms, uint64_t seed);

  // The wait before retry number `retry` (1 = before the 2nd attempt): uniformly drawn from the
  // upper half of min(base * 2^(retry-1), max), so that concurrent clients spread out yet never
  // retry sooner than half the ceiling. Never negative.
  int64_t DelayMs(int retry);

  // The ceiling alone, without jitter: min(base * 2^(retry-1), max), at least base when retry < 1.
  // For waits that must be predictable (the loop's pause after failing runs).
  static int64_t CeilingMs(int64_t base_ms, int64_t max_ms, int64_t retry);

 private:
  int64_t base_ms_;
  int64_t max_ms_;
  std::mt19937_64 rng_;
};

}  // namespace predlake
