// A second process holding a lake open for writing, for the reader/writer tests (a real second
// process: DuckDB's file lock is per process): the support executable predlake_test_holder
// (tests/support/holder_main.cpp), found through test_support::HolderBinary().
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace predlake::ops::testing {

class Holder {
 public:
  enum class As { kWriter, kReader };
  // Starts the helper on `lake_dir` and waits until it holds the lake, as a writer or a reader
  // (fails the test when it does not within 20 s).
  Holder(const std::string& lake_dir, int64_t hold_ms, As as = As::kWriter);
  // Stops the helper (if still running) and reaps it.
  ~Holder();
  Holder(const Holder&) = delete;
  Holder& operator=(const Holder&) = delete;

  pid_t pid() const { return pid_; }
  // Waits for the helper to exit; returns its exit status (-1 on error).
  int Wait();

 private:
  std::string dir_;
  pid_t pid_ = -1;
};

}  // namespace predlake::ops::testing
