// Lakes for the ops tests: empty ones, and ones filled with the real mainnet fixtures
// (test_support::ReferenceDir()) and built by the ETL, which every check must pass before a test
// corrupts them on purpose.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "lake/lake.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"
#include "support/test_lake.hpp"

namespace predlake::ops::testing {

// The fixtures' window: 2024-07-26 00:00 to 02:00 UTC.
using test_support::kFixtureEndMs;
using test_support::kFixtureStartMs;

using test_support::Exec;
using test_support::OpenTestLake;
using test_support::TempDir;

// Loads the five fixture CSV files into the raw tables (predictions with predvalue, stake,
// truevalue and payout set to NULL, as a fresh fetch has them, like pdr-backend's tests) and sets
// every raw watermark to [kFixtureStartMs, kFixtureEndMs) (pdr_slots to kFixtureEndMs + 1, so that
// the last slots of the window are covered).
void LoadFixtures(lake::Lake& lake);

// Puts into `dir` a copy of the lake LoadFixtures makes, followed by one ETL update over the whole
// window when `build` is true. Each of the two lakes is made once per test executable (see
// test_support::SharedFixtureDir) and copied per call.
void MakeFixtureLake(const std::string& dir, bool build);

}  // namespace predlake::ops::testing
