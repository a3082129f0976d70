// In a block-map tree (support/block_map.hpp), each test executable appends one line per test to
// the file named by PREDLAKE_BLOCKS_OUT, when it is set:
//   <executable>\t<Suite.Test>\t<milliseconds>\t<hex offset> <hex offset> ...
// A child process the test starts from the same executable (a kill test's child) inherits
// PREDLAKE_BLOCKS_TEST and writes its blocks under its parent's test, with 0 milliseconds (the
// parent's time holds the child's). Each line is one write(2)
// to a file opened with O_APPEND, so the lines of concurrent processes do not interleave.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/block_map.hpp"

namespace predlake::test_support {
namespace {

constexpr const char* kBlocksTestEnv = "PREDLAKE_BLOCKS_TEST";

class BlockMapWriter : public testing::EmptyTestEventListener {
 public:
  explicit BlockMapWriter(std::string path) : path_(std::move(path)) {
    if (const char* parent = std::getenv(kBlocksTestEnv)) parent_ = parent;
  }

  void OnTestStart(const testing::TestInfo& info) override {
    if (parent_.empty()) setenv(kBlocksTestEnv, FullName(info).c_str(), 1);
  }

  // Blocks run between two tests (a suite's set-up) count for the test that follows them.
  void OnTestEnd(const testing::TestInfo& info) override {
    const bool child = !parent_.empty();
    std::string line = Executable() + "\t" + (child ? parent_ : FullName(info)) + "\t" +
                       std::to_string(child ? 0 : info.result()->elapsed_time()) + "\t";
    char hex[24];
    for (uintptr_t block : TakeBlocks()) {
      std::snprintf(hex, sizeof hex, "%lx ", static_cast<unsigned long>(block));
      line += hex;
    }
    line += "\n";
    const int fd = open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0 || write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      std::fprintf(stderr, "block map: cannot append to %s\n", path_.c_str());
      std::abort();
    }
    close(fd);
  }

 private:
  static std::string FullName(const testing::TestInfo& info) {
    return std::string(info.test_suite_name()) + "." + info.name();
  }
  static std::string Executable() {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    std::string path(buf, n > 0 ? static_cast<size_t>(n) : 0);
    return path.substr(path.rfind('/') + 1);
  }

  std::string path_;
  std::string parent_;
};

const bool kBlockMapRegistered = [] {
  if (const char* out = std::getenv("PREDLAKE_BLOCKS_OUT")) {
    testing::UnitTest::GetInstance()->listeners().Append(new BlockMapWriter(out));
  }
  return true;
}();

}  // namespace
}  // namespace predlake::test_support
