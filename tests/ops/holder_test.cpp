#include "holder.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "lake/lake.hpp"

extern char** environ;

namespace predlake::ops::testing {

namespace fs = std::filesystem;

Holder::Holder(const std::string& lake_dir, int64_t hold_ms) : dir_(lake_dir) {
  fs::remove(fs::path(dir_) / "holder.ready");
  fs::remove(fs::path(dir_) / "holder.stop");
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  env_strings.push_back("PREDLAKE_HOLD_LAKE=" + lake_dir);
  env_strings.push_back("PREDLAKE_HOLD_MS=" + std::to_string(hold_ms));
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::string filter = "--gtest_filter=LakeHolder.Hold";
  std::vector<char*> argv = {exe.data(), filter.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  int rc = posix_spawn(&pid_, exe.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    pid_ = -1;
    ADD_FAILURE() << "cannot start the holder: " << rc;
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
  int status = 0;
  pid_t done = waitpid(pid_, &status, 0);
  pid_ = -1;
  if (done < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

namespace {

TEST(LakeHolder, Hold) {
  const char* dir = std::getenv("PREDLAKE_HOLD_LAKE");
  if (dir == nullptr) GTEST_SKIP() << "helper process for the reader/writer tests";
  const char* ms_text = std::getenv("PREDLAKE_HOLD_MS");
  int64_t hold_ms = ms_text ? std::atoll(ms_text) : 10000;
  hold_ms = std::min<int64_t>(std::max<int64_t>(hold_ms, 0), 60000);
  lake::OpenOptions options;
  options.mode = lake::Mode::kWrite;
  options.command = "ops holder";
  auto lake = lake::Lake::Open(dir, options);
  ASSERT_TRUE(lake.ok()) << lake.status().message();
  std::ofstream(fs::path(dir) / "holder.ready") << getpid() << "\n";
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(hold_ms);
  while (std::chrono::steady_clock::now() < until && !fs::exists(fs::path(dir) / "holder.stop")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  fs::remove(fs::path(dir) / "holder.ready");
}

}  // namespace
}  // namespace predlake::ops::testing
