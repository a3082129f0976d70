// A small deterministic random source for randomised test schedules (splitmix64): the same seed
// gives the same sequence on every platform and standard library.
#pragma once

#include <cstdint>

namespace predlake::test_support {

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) { s_ = Next() ^ 0xD1B54A32D192ED03ull; }
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }

 private:
  uint64_t s_;
};

}  // namespace predlake::test_support
