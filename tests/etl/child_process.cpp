#include "child_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>

#include "etl/etl.hpp"
#include "etl_test_util.hpp"
#include "lake/lake.hpp"
#include "support/self_exec.hpp"
#include "support/test_lake.hpp"

namespace predlake::etl::testing {

ChildOutcome RunChild(const ChildJob& job) {
  test_support::ChildSpec spec;
  spec.args = {"--gtest_filter=EtlChildProcess.Run"};
  spec.drop_env = {"PREDLAKE_KILL_AT=", "PREDLAKE_FAIL_AT=", "PREDLAKE_ETL_CHILD", "GTEST_"};
  spec.env = {"PREDLAKE_ETL_CHILD_DIR=" + job.lake_dir, "PREDLAKE_ETL_CHILD_JOB=" + job.job,
              "PREDLAKE_ETL_CHILD_ARG=" + std::to_string(job.arg_ms),
              "PREDLAKE_ETL_CHILD_ST=" + std::to_string(job.st_ms),
              "PREDLAKE_ETL_CHILD_PART=" + std::to_string(job.part_ms)};
  if (!job.kill_at.empty()) spec.env.push_back("PREDLAKE_KILL_AT=" + job.kill_at);
  spec.quiet = !std::getenv("PREDLAKE_ETL_VERBOSE");
  test_support::ChildStatus status = test_support::RunChild(spec);
  if (!status.started) return ChildOutcome::kOther;
  if (status.signal == SIGKILL) return ChildOutcome::kKilled;
  if (status.signal == 0) {
    return status.exit_code == 0 ? ChildOutcome::kSucceeded : ChildOutcome::kFailed;
  }
  return ChildOutcome::kOther;
}

namespace {

// The child side: does nothing in a normal test run.
TEST(EtlChildProcess, Run) {
  const char* dir = std::getenv("PREDLAKE_ETL_CHILD_DIR");
  if (!dir) GTEST_SKIP() << "only runs as the child of a kill test";
  std::string job = std::getenv("PREDLAKE_ETL_CHILD_JOB");
  int64_t arg = std::atoll(std::getenv("PREDLAKE_ETL_CHILD_ARG"));
  int64_t st = std::atoll(std::getenv("PREDLAKE_ETL_CHILD_ST"));
  test_support::TestLakeOptions open;
  open.command = "test child";
  open.threads = 2;
  auto lake = test_support::OpenTestLake(dir, open);
  ASSERT_NE(lake, nullptr);
  UpdateOptions options;
  options.faults = FaultInjection::FromEnv();
  options.st_ms = st;
  if (arg != 0) options.to_ms = arg;
  if (const char* part = std::getenv("PREDLAKE_ETL_CHILD_PART"); part && std::atoll(part) > 0) {
    options.in_parts = true;
    options.part_ms = std::atoll(part);
  }
  Result<RunReport> report = Status::Internal("unknown child job " + job);
  if (job == "update") report = Update(*lake, options);
  if (job == "rebuild") report = Rebuild(*lake, options);
  if (job == "drop") report = Drop(*lake, arg, options);
  if (job == "raw_drop") report = RawDrop(*lake, arg, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
}

}  // namespace
}  // namespace predlake::etl::testing
