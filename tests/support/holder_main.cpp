// predlake_test_holder [--read] LAKE_DIR [HOLD_MS]: a second process holding a lake open, for the
// reader/writer tests in tests/ops and tests/e2e (a real second process: DuckDB's file lock is per
// process).
//
// Opens LAKE_DIR for writing (command "ops holder"; with --read, read-only, as a reader), creates
// LAKE_DIR/holder.ready (holding its pid), and keeps the lake open until LAKE_DIR/holder.stop
// appears or HOLD_MS (default 10000, at most 60000) has passed; then removes holder.ready and exits
// 0. Exits 1 (one line on stderr) when the lake cannot be opened, 2 on bad arguments.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "lake/lake.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  const bool read = argc > 1 && std::string(argv[1]) == "--read";
  if (read) {
    --argc;
    ++argv;
  }
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: predlake_test_holder [--read] LAKE_DIR [HOLD_MS]\n";
    return 2;
  }
  const std::string dir = argv[1];
  int64_t hold_ms = argc == 3 ? std::atoll(argv[2]) : 10000;
  hold_ms = std::clamp<int64_t>(hold_ms, 0, 60000);
  predlake::lake::OpenOptions options;
  options.mode = read ? predlake::lake::Mode::kRead : predlake::lake::Mode::kWrite;
  options.command = "ops holder";
  auto lake = predlake::lake::Lake::Open(dir, options);
  if (!lake.ok()) {
    std::cerr << "predlake_test_holder: " << lake.status().message() << "\n";
    return 1;
  }
  std::ofstream(fs::path(dir) / "holder.ready") << getpid() << "\n";
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(hold_ms);
  while (std::chrono::steady_clock::now() < until && !fs::exists(fs::path(dir) / "holder.stop")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  fs::remove(fs::path(dir) / "holder.ready");
  return 0;
}
