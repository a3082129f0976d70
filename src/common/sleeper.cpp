#include "common/sleeper.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace predlake {

void RealSleeper::SleepMs(int64_t ms, const std::atomic<bool>* stop) {
  constexpr int64_t kSliceMs = 50;
  auto until =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max<int64_t>(ms, 0));
  while (stop == nullptr || !stop->load()) {
    auto now = std::chrono::steady_clock::now();
    if (now >= until) return;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        until - now, std::chrono::milliseconds(kSliceMs)));
  }
}

Sleeper& DefaultSleeper() {
  static RealSleeper sleeper;
  return sleeper;
}

}  // namespace predlake
