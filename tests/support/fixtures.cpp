#include "fixtures.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>

#include "paths.hpp"

namespace predlake::test_support {

namespace fs = std::filesystem;

std::string FixtureCsvSql(std::string_view table) {
  std::string quoted;
  for (char c : ReferenceFile(table)) {
    quoted += c;
    if (c == '\'') quoted += '\'';
  }
  return "read_csv('" + quoted + "', header = true, all_varchar = true)";
}

std::string SharedFixtureDir(std::string_view key,
                             const std::function<void(const std::string&)>& build) {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  EXPECT_FALSE(ec) << "cannot read /proc/self/exe";
  if (ec) return "";
  auto stamp = fs::last_write_time(exe, ec).time_since_epoch().count();
  fs::path cache = exe.parent_path() / "fixture_cache";
  fs::path dir =
      cache / (exe.filename().string() + "_" + std::to_string(stamp) + "_" + std::string(key));
  if (fs::is_directory(dir, ec)) return dir.string();
  fs::create_directories(cache, ec);
  EXPECT_FALSE(ec) << "cannot create " << cache << ": " << ec.message();
  if (ec) return "";
  // One builder at a time: a concurrent first call waits for the fixture instead of building it
  // too. The lock goes with the process, also when it is killed.
  const fs::path lock_path = cache / (".lock_" + exe.filename().string() + "_" + std::string(key));
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  EXPECT_GE(lock_fd, 0) << "cannot open " << lock_path;
  if (lock_fd < 0) return "";
  struct LockGuard {
    int fd;
    ~LockGuard() { ::close(fd); }
  } guard{lock_fd};
  while (::flock(lock_fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      ADD_FAILURE() << "cannot lock " << lock_path;
      return "";
    }
  }
  if (fs::is_directory(dir, ec)) return dir.string();
  fs::path tmp = cache / (".tmp_" + std::to_string(::getpid()) + "_" + std::string(key));
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  EXPECT_FALSE(ec) << "cannot create " << tmp << ": " << ec.message();
  if (ec) return "";
  build(tmp.string());
  if (::testing::Test::HasFailure()) {
    fs::remove_all(tmp, ec);
    return "";
  }
  fs::rename(tmp, dir, ec);
  EXPECT_FALSE(ec) << "cannot publish " << dir << ": " << ec.message();
  if (ec) {
    fs::remove_all(tmp, ec);
    return "";
  }
  // Fixtures of earlier builds of this executable are of no further use.
  const std::string mine = exe.filename().string() + "_";
  const std::string current = mine + std::to_string(stamp) + "_";
  for (const auto& entry : fs::directory_iterator(cache, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(mine, 0) == 0 && name.rfind(current, 0) != 0) fs::remove_all(entry.path(), ec);
  }
  return dir.string();
}

}  // namespace predlake::test_support
