#include "common/backoff.hpp"

#include <algorithm>

namespace predlake {

Backoff::Backoff(int64_t base_ms, int64_t max_ms, uint64_t seed)
    : base_ms_(base_ms), max_ms_(max_ms), rng_(seed != 0 ? seed : std::random_device{}()) {}

int64_t Backoff::CeilingMs(int64_t base_ms, int64_t max_ms, int64_t retry) {
  int64_t ceiling = base_ms;
  for (int64_t i = 1; i < retry && ceiling < max_ms; ++i) ceiling *= 2;
  return std::min(ceiling, max_ms);
}

int64_t Backoff::DelayMs(int retry) {
  const int64_t ceiling = CeilingMs(base_ms_, max_ms_, retry);
  if (ceiling <= 1) return std::max<int64_t>(ceiling, 0);
  std::uniform_int_distribution<int64_t> dist(ceiling / 2, ceiling);
  return dist(rng_);
}

}  // namespace predlake
