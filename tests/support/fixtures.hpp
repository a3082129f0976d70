// pdr-backend's mainnet lake fixtures (two hours of 2024-07-26) and fixture lakes shared by every
// test of one test executable.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace predlake::test_support {

// The fixtures' window: 2024-07-26 00:00 to 02:00 UTC.
inline constexpr int64_t kFixtureStartMs = 1'721'952'000'000;
inline constexpr int64_t kFixtureEndMs = 1'721'959'200'000;

// The five raw tables the fixtures hold, one <table>.csv each.
inline constexpr std::string_view kFixtureTables[] = {
    "pdr_predictions", "pdr_truevals", "pdr_payouts", "pdr_subscriptions", "pdr_slots"};

// `read_csv('<ReferenceDir()>/<table>.csv', header = true, all_varchar = true)`: every column as
// text, so that amounts are parsed into DECIMAL exactly by the INSERT that reads it.
std::string FixtureCsvSql(std::string_view table);

// A directory filled once by `build` and then shared, read-only, by every later call with the same
// `key` from this executable -- also from other processes: CTest runs each test in its own process,
// so a fixture built "once per suite" in memory would still be built once per test. The directory
// lives in <folder of this executable>/fixture_cache/ and is keyed by the executable's modification
// time, so a rebuilt executable builds afresh (and removes the earlier builds' fixtures).
// Concurrent first calls build it once: the others wait on a lock. Returns "" (the running test has
// failed) when `build` fails the test.
std::string SharedFixtureDir(std::string_view key,
                             const std::function<void(const std::string&)>& build);

}  // namespace predlake::test_support
