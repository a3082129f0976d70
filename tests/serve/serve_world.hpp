// The lake both serve suites read: three simulated days and their snapshot (the export after the
// update), built once per build of the test executable (test_support::SharedFixtureDir: CTest runs
// each test in its own process) and copied into each suite's own folder.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../raw/raw_test_util.hpp"
#include "jobs/update.hpp"
#include "support/fixtures.hpp"

namespace predlake::serve::servetest {

inline void BuildServeWorld(const std::string& into) {
  using raw::rawtest::Ms;
  auto world = raw::rawtest::SmallWorld("2024-07-23", "2024-07-26_02:00");
  auto engine = raw::rawtest::MakeEngine(world);
  raw::rawtest::NoSleep sleep;
  jobs::UpdateRequest r;
  r.writer.lake_dir = into;
  r.writer.export_after = exports::ExportOptions{};
  r.start_ms = Ms(world.start);
  r.end_ms = [](int64_t now_ms) -> Result<int64_t> { return now_ms; };
  r.factory = raw::rawtest::SimFactory(engine);
  r.sleeper = &sleep;
  r.retry.jitter_seed = 1;
  auto report = jobs::Update(r, Ms(world.now));
  ASSERT_TRUE(report.ok()) << report.status().message();
}

// Copies the shared world into `into`, an empty folder the caller owns. Fails the running test
// when the world cannot be built or copied.
inline void CopyServeWorld(const std::string& into) {
  namespace fs = std::filesystem;
  const std::string shared = test_support::SharedFixtureDir("serve_world", BuildServeWorld);
  ASSERT_FALSE(shared.empty());
  std::error_code ec;
  fs::copy(shared, into,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks |
               fs::copy_options::overwrite_existing,
           ec);
  ASSERT_FALSE(ec) << "cannot copy " << shared << ": " << ec.message();
}

}  // namespace predlake::serve::servetest
