// A fresh directory for one test, removed with everything in it on destruction.
#pragma once

#include <string>
#include <string_view>

namespace predlake::test_support {

enum class TempBase {
  kSystem,  // the system temp dir
  kMemory,  // /dev/shm when present (fast for many small commits), else the system temp dir
};

class TempDir {
 public:
  // <base>/predlake_<tag>_<pid>_<n>, created empty.
  explicit TempDir(std::string_view tag = "test", TempBase base = TempBase::kSystem);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // <path>/<name>
  std::string Sub(std::string_view name) const;

 private:
  std::string path_;
};

}  // namespace predlake::test_support
