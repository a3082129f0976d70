// Counter-based hashing for the simulated world: every random choice is a pure function of (seed,
// keys), so any slot, claim or subscription can be generated on its own, in any order, on any
// thread.
#pragma once

#include <cstdint>
#include <string_view>

namespace predlake::sim {

// The splitmix64 finalizer: a bijective mix of 64 bits.
constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Hashes any number of 64-bit keys; the order of keys matters.
template <typename... Keys>
constexpr uint64_t Hash(uint64_t first, Keys... rest) {
  uint64_t h = Mix64(first);
  ((h = Mix64(h ^ static_cast<uint64_t>(rest))), ...);
  return h;
}

// A uniform double in [0, 1) from a hash.
constexpr double Unit(uint64_t h) {
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

// A stable 64-bit hash of a string (FNV-1a, then mixed).
constexpr uint64_t HashString(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return Mix64(h);
}

}  // namespace predlake::sim
