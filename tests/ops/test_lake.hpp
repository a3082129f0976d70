// Lakes for the ops tests: empty ones, and ones filled with the real mainnet fixtures
// (PREDLAKE_REFERENCE_DIR) and built by the ETL, which every check must pass before a test corrupts
// them on purpose.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "lake/lake.hpp"

namespace predlake::ops::testing {

// The fixtures' window: 2024-07-26 00:00 to 02:00 UTC.
inline constexpr int64_t kFixtureStartMs = 1721952000000;
inline constexpr int64_t kFixtureEndMs = 1721959200000;

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Opens (creating) the lake in `dir` for writing; fails the calling test on error.
std::unique_ptr<lake::Lake> OpenWriter(const std::string& dir);

// Runs SQL on a lake; fails the calling test on error.
void Exec(lake::Lake& lake, const std::string& sql);

// Loads the five fixture CSV files into the raw tables (predictions with predvalue, stake,
// truevalue and payout set to NULL, as a fresh fetch has them, like pdr-backend's tests) and sets
// every raw watermark to [kFixtureStartMs, kFixtureEndMs) (pdr_slots to kFixtureEndMs + 1, so that
// the last slots of the window are covered).
void LoadFixtures(lake::Lake& lake);

// LoadFixtures, then one ETL update over the whole window when `build` is true.
void MakeFixtureLake(const std::string& dir, bool build);

}  // namespace predlake::ops::testing
