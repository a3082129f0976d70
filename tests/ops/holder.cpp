#include "holder.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/paths.hpp"
#include "support/self_exec.hpp"

namespace predlake::ops::testing {

namespace fs = std::filesystem;

Holder::Holder(const std::string& lake_dir, int64_t hold_ms, As as) : dir_(lake_dir) {
  fs::remove(fs::path(dir_) / "holder.ready");
  fs::remove(fs::path(dir_) / "holder.stop");
  test_support::ChildSpec spec;
  spec.program = test_support::HolderBinary();
  if (spec.program.empty()) return;
  spec.args = {lake_dir, std::to_string(hold_ms)};
  if (as == As::kReader) spec.args.insert(spec.args.begin(), "--read");
  spec.quiet = false;  // it writes nothing but its error line
  pid_ = test_support::StartChild(spec);
  if (pid_ < 0) {
    ADD_FAILURE() << "cannot start the holder " << spec.program;
    return;
  }
  for (int i = 0; i < 400; ++i) {
    if (fs::exists(fs::path(dir_) / "holder.ready")) return;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      ADD_FAILURE() << "the holder exited before holding the lake";
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "the holder did not get the lake within 20 s";
}

Holder::~Holder() {
  if (pid_ <= 0) return;
  std::ofstream(fs::path(dir_) / "holder.stop") << "stop\n";
  Wait();
}

int Holder::Wait() {
  if (pid_ <= 0) return -1;
  test_support::ChildStatus status = test_support::WaitChild(pid_);
  pid_ = -1;
  return status.started && status.signal == 0 ? status.exit_code : -1;
}

}  // namespace predlake::ops::testing
