// Lakes for the tests: the one way a test opens a lake to write in, and runs SQL on it.
#pragma once

#include <memory>
#include <string>

#include "common/time.hpp"
#include "lake/lake.hpp"

namespace predlake::test_support {

struct TestLakeOptions {
  std::string command = "test";  // recorded in the lock file
  const Clock* clock = nullptr;  // the ledger's clock; nullptr = the system clock
  int threads = 1;               // DuckDB worker threads: one, so that -j2 runs two tests at once
};

// Opens (creating) the lake in `dir` for writing. On error fails the calling test and returns
// nullptr.
std::unique_ptr<lake::Lake> OpenTestLake(const std::string& dir,
                                         const TestLakeOptions& options = {});

// Opens the lake in `dir` to read it (no writer lock, no schema changes, no checkpoint at close),
// on one DuckDB thread: for a test that inspects what a writer left. A writer's WAL is replayed
// in memory and stays for the next writer, as for `query`. On error fails the calling test and
// returns nullptr.
std::unique_ptr<lake::Lake> OpenReadTestLake(const std::string& dir);

// Runs SQL on a lake; on error fails the calling test, naming the SQL.
void Exec(lake::Lake& lake, const std::string& sql);

}  // namespace predlake::test_support
