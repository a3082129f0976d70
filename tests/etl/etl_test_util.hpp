// Helpers for the ETL tests: a lake in a temporary folder, raw "sources" (the reference fixtures,
// with the fetch-time NULLs) kept in the same database as test_src_* tables, raw feeding up to a
// watermark, and snapshots/comparisons of the built tables.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "etl/etl.hpp"
#include "lake/lake.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"
#include "support/test_lake.hpp"

namespace predlake::etl::testing {

// The two hours of the reference fixtures.
inline constexpr int64_t kMinute = 60'000;
inline constexpr int64_t kFixtureStart = test_support::kFixtureStartMs;
inline constexpr int64_t kFixtureEnd = test_support::kFixtureEndMs;

// A lake folder (under /dev/shm when there is one) removed at destruction.
class TempLake {
 public:
  explicit TempLake(const std::string& tag);
  TempLake(const TempLake&) = delete;
  TempLake& operator=(const TempLake&) = delete;

  const std::string& dir() const { return dir_; }
  // Opens the lake for writing; fails the test (and returns null) on error.
  std::unique_ptr<lake::Lake> Open();

 private:
  test_support::TempDir temp_;
  std::string dir_;
  FixedClock clock_{kFixtureEnd};
};

using test_support::Exec;
int64_t QueryInt(lake::Lake& lake, const std::string& sql);

struct SourceOptions {
  bool null_prediction_late_fields = true;  // predvalue, truevalue, payout as at fetch time
  bool null_some_stakes = false;            // also null ~1/5 of prediction stakes (deterministic)
};

// Creates test_src_<raw table> from the reference fixtures (amounts parsed from text, exactly).
void LoadFixtureSources(lake::Lake& lake, const SourceOptions& options = {});

// Opens `dir` for writing as a copy of a lake that holds the fixture sources (default options)
// fed into the raw tables over the fixtures' two hours, nothing built. The lake is built once per
// build of the test executable (test_support::SharedFixtureDir) and copied; fails the test and
// returns null when that fails.
std::unique_ptr<lake::Lake> OpenFedFixtureLake(TempLake& dir);

// The span of a simulated world loaded by LoadSimSources.
struct SimWorld {
  int64_t begin_ms = 0;  // the world's start: no event before it
  int64_t end_ms = 0;    // the simulated now (the dump's end)
};

// Creates test_src_<raw table> from `sim dump` of a small simulated world (2 pairs x {5m, 1h}, 12
// predictoors, two days ending 2024-07-26 02:00, seed `seed`), written as CSV files into `dir`,
// and fills pdr_contracts with the world's feeds (epochs and trueval timeouts).
// With `resubmitted` > 0 (sim_ss.resubmitted_predictions) the first versions of the re-submitted
// predictions go to kSourceVersions (with superseded_at, the re-submission's time), and Feed
// stores pdr_predictions as a fetch with its head at the window's end would.
SimWorld LoadSimSources(lake::Lake& lake, const std::string& dir, uint64_t seed,
                        double resubmitted = 0);
inline constexpr std::string_view kSourceVersions = "test_src_prediction_versions";

// The candle streams of test_src_pdr_ohlcv (a simulated world's, from its dump), as watermark
// names; empty without it (the fixtures have no candles).
std::vector<std::string> CandleStreams(lake::Lake& lake);
// The raw tables, then the candle streams: every watermark the ETL reads.
std::vector<std::string> InputNames(lake::Lake& lake);

// Inserts the source rows of `table` with timestamp in [from, to) into the raw table and sets its
// watermark to {start, to}. `table` may be a candle stream (pdr_ohlcv:exchange:pair:timeframe).
void Feed(lake::Lake& lake, const std::string& table, int64_t start, int64_t from, int64_t to);
// Feeds every raw table from its current watermark to `to` (a table without a watermark starts
// at `start`).
void FeedAll(lake::Lake& lake, int64_t start, int64_t to);

// A copy of every built table without run_id, as test_snap_<table>.
void Snapshot(lake::Lake& lake, const std::string& tag);
// Differences between a snapshot and the live built tables: "" when identical, else a description
// with a few differing rows.
std::string DiffSnapshot(lake::Lake& lake, const std::string& tag);

// A cheap fingerprint of every built table's rows (every column but run_id, as a multiset): equal
// fingerprints mean, with overwhelming probability, equal tables.
std::string Fingerprint(lake::Lake& lake);

// The ETL jobs as their commands run them: under a run begun for the command ("etl update", "etl
// rebuild", "etl drop", "raw drop"). Unqualified calls in the tests find these (the etl:: functions
// take the run as well).
Result<RunReport> Update(lake::Lake& lake, const UpdateOptions& options);
Result<RunReport> Rebuild(lake::Lake& lake, const UpdateOptions& options);
Result<RunReport> Drop(lake::Lake& lake, int64_t from_ms, const RunOptions& options);
Result<RunReport> RawDrop(lake::Lake& lake, int64_t from_ms, const RunOptions& options);

// Checkpoint, or -1 when none.
int64_t CheckpointMs(lake::Lake& lake);

}  // namespace predlake::etl::testing
