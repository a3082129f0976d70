// Steps of the randomised schedules in tests/jobs that roll a lake back: each begins its ledger run
// and calls the ETL job, as the command would.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "etl/etl.hpp"
#include "lake/lake.hpp"

namespace predlake::jobs {

// `etl drop --from from_ms`.
inline ::testing::AssertionResult EtlDropFrom(lake::Lake& lake, int64_t from_ms) {
  auto run = lake.BeginRun("etl drop");
  if (!run.ok()) return ::testing::AssertionFailure() << run.status().message();
  auto r = etl::Drop(lake, *run, from_ms, {});
  if (!r.ok()) return ::testing::AssertionFailure() << r.status().message();
  return ::testing::AssertionSuccess();
}

// `raw drop --from from_ms`.
inline ::testing::AssertionResult RawDropFrom(lake::Lake& lake, int64_t from_ms) {
  auto run = lake.BeginRun("raw drop");
  if (!run.ok()) return ::testing::AssertionFailure() << run.status().message();
  auto r = etl::RawDrop(lake, *run, from_ms, {});
  if (!r.ok()) return ::testing::AssertionFailure() << r.status().message();
  return ::testing::AssertionSuccess();
}

}  // namespace predlake::jobs
