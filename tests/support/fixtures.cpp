#include "fixtures.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

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
  // Another process published the same fixture first: use theirs.
  if (ec) fs::remove_all(tmp, ec);
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
