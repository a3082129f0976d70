// The seeds of the property tests: how many cases a suite runs, and the seed of each case.
//
// A case's seed is the run's seed base plus the case's index. CTest sets the base for every run
// from the commit being tested (tests/TestEnvironment.cmake.in prints it when the run starts), so
// that successive commits run new schedules instead of the same ones; PREDLAKE_SEED_BASE in the
// environment, of ctest or of a test binary run by hand, sets it to rerun a failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace predlake::test_support {

// Decided by the compiler, so that the tests CTest discovers are the tests that run. A block-map
// tree (support/block_map.hpp) runs the sanitizer tree's tests, to map what they cover.
#if defined(__SANITIZE_ADDRESS__) || defined(PREDLAKE_BLOCK_MAP)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// Whether a walk over `count` failure points (every step of a job, every phase of a chunk) fails
// point `index`: each of them in the release tree; under the sanitizers every
// kSanitizedWalkStride-th (the first among them) and the last. There a failure at any step runs the
// same C++ (the steps differ in their SQL, which DuckDB runs, and DuckDB is not instrumented): what
// the sanitizers can find is a memory error on that path, not a step whose failure is mishandled,
// which the release tree's walk over every point finds.
inline constexpr size_t kSanitizedWalkStride = 8;
constexpr bool Walked(size_t index, size_t count) {
  return !kSanitized || index % kSanitizedWalkStride == 0 || index + 1 == count;
}

// How many cases a property suite runs: the integer in environment variable `env` when it is set
// (set it for the build too: discovery lists the cases then), else `release`, or `sanitized` in a
// tree built with the sanitizers.
int SeedCount(const char* env, int release, int sanitized);

// PREDLAKE_SEED_BASE (a decimal integer) when it is set, else 0. A malformed value fails the
// calling test and gives 0.
uint64_t SeedBase();

// The seed of case `index`: SeedBase() + index, so that a suite's consecutive cases still cover
// every residue of a small modulus.
uint64_t PropertySeed(int index);

// How to rerun case `index`: "seed S (case I of seed base B; rerun with PREDLAKE_SEED_BASE=B)".
std::string SeedNote(int index);

}  // namespace predlake::test_support
