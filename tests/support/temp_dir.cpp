#include "temp_dir.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>

namespace predlake::test_support {

namespace fs = std::filesystem;

TempDir::TempDir(std::string_view tag, TempBase base) {
  static std::atomic<int> counter{0};
  fs::path root = base == TempBase::kMemory && fs::is_directory("/dev/shm")
                      ? fs::path("/dev/shm")
                      : fs::temp_directory_path();
  path_ = (root / ("predlake_" + std::string(tag) + "_" + std::to_string(::getpid()) + "_" +
                   std::to_string(counter++)))
              .string();
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::Sub(std::string_view name) const {
  return (fs::path(path_) / std::string(name)).string();
}

}  // namespace predlake::test_support
