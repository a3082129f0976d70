// A rebuild in parts (etl::UpdateOptions::in_parts, the chunked `etl rebuild`): its parts together
// equal the rebuild in one window; a failure or a kill in any part loses only that part, and the
// same command run again resumes after the last committed one; another command in between makes it
// start over.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "etl/etl.hpp"
#include "etl/pipeline.hpp"
#include "etl_test_util.hpp"
#include "support/seeds.hpp"

namespace predlake::etl::testing {
namespace {

constexpr int64_t kPartMs = 40 * kMinute;  // three parts over the fixtures' two hours
constexpr int kParts = 3;

UpdateOptions PartOptions() {
  UpdateOptions o;
  o.in_parts = true;
  o.part_ms = kPartMs;
  return o;
}

// Runs parts until one publishes; returns the part_index of each, or stops at the first error.
Result<std::vector<int64_t>> RunParts(lake::Lake& lake, const UpdateOptions& options) {
  std::vector<int64_t> parts;
  while (true) {
    ASSIGN_OR_RETURN(RunReport r, Rebuild(lake, options));
    parts.push_back(r.part_index);
    if (!r.more) return parts;
  }
}

int64_t StagedTables(lake::Lake& lake) {
  return QueryInt(lake, "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '" +
                            std::string(lake::kEtlStagingPrefix) + "%'");
}

class RebuildParts : public ::testing::Test {
 protected:
  void SetUp() override {
    lake_ = dir_.Open();
    ASSERT_TRUE(lake_);
    LoadFixtureSources(*lake_);
    FeedAll(*lake_, kFixtureStart, kFixtureEnd);
    ASSERT_TRUE(Rebuild(*lake_, {}).ok());
    Snapshot(*lake_, "one");
    checkpoint_ = CheckpointMs(*lake_);
  }
  TempLake dir_{"rebuild_parts"};
  std::unique_ptr<lake::Lake> lake_;
  int64_t checkpoint_ = 0;
};

TEST_F(RebuildParts, PartsEqualOneWindowEachARunOfTheLedger) {
  const int64_t runs_before = QueryInt(*lake_, "SELECT count(*) FROM predlake_runs");
  auto parts = RunParts(*lake_, PartOptions());
  ASSERT_TRUE(parts.ok()) << parts.status().message();
  EXPECT_EQ(*parts, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(DiffSnapshot(*lake_, "one"), "");
  EXPECT_EQ(CheckpointMs(*lake_), checkpoint_);
  EXPECT_EQ(StagedTables(*lake_), 0);
  EXPECT_FALSE(lake_->GetMeta(kMetaRebuildParts)->has_value());
  // Every part a succeeded `etl rebuild` run with its index; only the last publishes.
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM predlake_runs WHERE run_id > " +
                                 std::to_string(runs_before) +
                                 " AND command = 'etl rebuild' AND status = 'succeeded' AND "
                                 "json_extract(detail, '$.chunk.of')::INT = " +
                                 std::to_string(kParts)),
            kParts);
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM predlake_runs WHERE run_id > " +
                                 std::to_string(runs_before) +
                                 " AND json_extract(detail, '$.changed')::BOOLEAN"),
            1);
}

// Every step of the rebuild fails once, in the first part that reaches it (the first part for most,
// a later one for the steps of the last part only); the rerun resumes after the last committed
// part, and the end equals one window. In kShards CTest entries, by step index; under the
// sanitizers one, over a sample of the steps (test_support::Walked).
constexpr int kShards = test_support::kSanitized ? 1 : 3;
class RebuildPartsFailures : public RebuildParts, public ::testing::WithParamInterface<int> {};

TEST_P(RebuildPartsFailures, AFailureInEveryStepOfAPartThenARerunResumesAndEqualsOneWindow) {
  size_t failed = 0;
  const std::vector<std::string> steps = JobStepNames(Job::kRebuild);
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string& step = steps[i];
    if (static_cast<int>(i % kShards) != GetParam() || !test_support::Walked(i, steps.size())) {
      continue;
    }
    if (step == "drop_staging") continue;  // after the commit: its failure is ignored
    SCOPED_TRACE(step);
    UpdateOptions clean = PartOptions();
    UpdateOptions failing = PartOptions();
    failing.faults.fail_at = step;
    auto first = Rebuild(*lake_, failing);
    int64_t committed = 0;
    if (first.ok()) {
      ASSERT_TRUE(first->more);
      committed = 1;
      // Then the step fails in a later part.
      while (true) {
        auto r = Rebuild(*lake_, failing);
        if (!r.ok()) {
          EXPECT_NE(r.status().message().find(step), std::string::npos) << r.status().message();
          break;
        }
        ASSERT_TRUE(r->more) << "the walk ended without reaching " << step;
        committed = r->part_index;
      }
    } else {
      EXPECT_NE(first.status().message().find(step), std::string::npos);
    }
    ++failed;
    EXPECT_EQ(QueryInt(*lake_,
                       "SELECT status = 'failed' FROM predlake_runs ORDER BY run_id DESC "
                       "LIMIT 1"),
              1);
    auto rest = RunParts(*lake_, clean);
    ASSERT_TRUE(rest.ok()) << rest.status().message();
    // A failure in the last part's publish: its staging had committed, and the rerun publishes it.
    EXPECT_EQ(rest->front(), std::min<int64_t>(committed + 1, kParts));
    EXPECT_EQ(rest->back(), kParts);
    EXPECT_EQ(DiffSnapshot(*lake_, "one"), "");
    EXPECT_EQ(CheckpointMs(*lake_), checkpoint_);
    EXPECT_EQ(StagedTables(*lake_), 0);
  }
  EXPECT_GT(failed, test_support::kSanitized ? 1u : 4u);
}
INSTANTIATE_TEST_SUITE_P(Shards, RebuildPartsFailures, ::testing::Range(0, kShards));

TEST_F(RebuildParts, AKillInAPartThenARerunResumesAndEqualsOneWindow) {
  for (const std::string step : {"compute_predictions", "commit", "publish_bronze_rebuild"}) {
    SCOPED_TRACE(step);
    auto first = Rebuild(*lake_, PartOptions());
    ASSERT_TRUE(first.ok() && first->more);
    lake_.reset();
    // The child runs the next parts until the kill.
    ChildOutcome outcome = ChildOutcome::kSucceeded;
    for (int i = 0; i < kParts && outcome == ChildOutcome::kSucceeded; ++i) {
      ChildJob job{dir_.dir(), "rebuild", 0, 0, step, kPartMs};
      outcome = RunChild(job);
    }
    ASSERT_EQ(outcome, ChildOutcome::kKilled);
    lake_ = dir_.Open();
    ASSERT_TRUE(lake_);
    auto rest = RunParts(*lake_, PartOptions());
    ASSERT_TRUE(rest.ok()) << rest.status().message();
    EXPECT_GT(rest->front(), 1);  // resumed, not started over
    EXPECT_EQ(DiffSnapshot(*lake_, "one"), "");
    EXPECT_EQ(StagedTables(*lake_), 0);
  }
}

TEST_F(RebuildParts, AnotherCommandBetweenPartsMakesItStartOver) {
  ASSERT_TRUE(Rebuild(*lake_, PartOptions()).ok());
  ASSERT_TRUE(Rebuild(*lake_, PartOptions()).ok());
  // An `etl update` drops the staged tables of the rebuild in parts (the ledger would refuse the
  // resume anyway).
  ASSERT_TRUE(Update(*lake_, {}).ok());
  auto rest = RunParts(*lake_, PartOptions());
  ASSERT_TRUE(rest.ok()) << rest.status().message();
  EXPECT_EQ(rest->front(), 1);
  EXPECT_EQ(DiffSnapshot(*lake_, "one"), "");
}

TEST_F(RebuildParts, AFirstUpdateInPartsEqualsOneWindow) {
  ASSERT_TRUE(Drop(*lake_, kFixtureStart, {}).ok());  // nothing built, no checkpoint
  ASSERT_EQ(CheckpointMs(*lake_), -1);
  UpdateOptions o = PartOptions();
  int parts = 0;
  while (true) {
    auto r = Update(*lake_, o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->command, "etl update");
    ++parts;
    if (!r->more) break;
  }
  EXPECT_EQ(parts, kParts);
  EXPECT_EQ(DiffSnapshot(*lake_, "one"), "");
}

}  // namespace
}  // namespace predlake::etl::testing
