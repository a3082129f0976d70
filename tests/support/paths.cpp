#include "paths.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace predlake::test_support {

namespace fs = std::filesystem;

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

// Reports a missing path once per call site's test: on stderr (also outside a test, e.g. while
// gtest lists the tests) and as a failure of the running test.
std::string Missing(const char* var, const std::string& why) {
  std::string line = "predlake tests: " + why + "; set " + var +
                     " (CTest sets it: run the tests through ctest, or export it)";
  std::cerr << line << "\n";
  if (::testing::UnitTest::GetInstance()->current_test_info() != nullptr) ADD_FAILURE() << line;
  return "";
}

// The value of `var`, else `fallback` (when it exists); "" with a failure otherwise.
std::string Resolve(const char* var, const std::string& fallback, const char* what) {
  std::string path = Env(var);
  if (path.empty()) path = fallback;
  if (path.empty()) return Missing(var, std::string("no ") + what + " (no build tree found)");
  std::error_code ec;
  if (!fs::exists(path, ec))
    return Missing(var, std::string(what) + " " + path + " does not exist");
  return path;
}

}  // namespace

std::string BuildDir() {
  static const std::string dir = [] {
    std::error_code ec;
    fs::path p = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return std::string();
    for (p = p.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
      if (fs::exists(p / "CMakeCache.txt", ec)) return p.string();
    }
    return std::string();
  }();
  return dir;
}

std::string SourceDir() {
  static const std::string from_cache = [] {
    std::string build = BuildDir();
    if (build.empty()) return std::string();
    std::ifstream in(fs::path(build) / "CMakeCache.txt");
    const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(key, 0) == 0) return line.substr(key.size());
    }
    return std::string();
  }();
  return Resolve("PREDLAKE_SOURCE_DIR", from_cache, "source tree");
}

std::string ReferenceDir() {
  std::string fallback;
  if (Env("PREDLAKE_REFERENCE_DIR").empty()) {
    std::string src = SourceDir();
    if (src.empty()) return "";
    fallback = (fs::path(src) / ".." / "shared" / "reference" / "pdr-backend-lake-fixtures")
                   .lexically_normal()
                   .string();
  }
  return Resolve("PREDLAKE_REFERENCE_DIR", fallback, "reference fixtures folder");
}

std::string ReferenceFile(std::string_view table) {
  std::string dir = ReferenceDir();
  return dir.empty() ? "" : dir + "/" + std::string(table) + ".csv";
}

std::string PredlakeBinary() {
  std::string build = BuildDir();
  return Resolve("PREDLAKE_BINARY", build.empty() ? "" : build + "/predlake", "predlake binary");
}

std::string HolderBinary() {
  std::string build = BuildDir();
  return Resolve("PREDLAKE_TEST_HOLDER", build.empty() ? "" : build + "/tests/predlake_test_holder",
                 "lake holder");
}

}  // namespace predlake::test_support
