#include "common/progress.hpp"

#include <fmt/format.h>

namespace predlake {

namespace {
// Carriage return, then ANSI "erase to end of line" so that a shorter line leaves no residue.
constexpr std::string_view kRewind = "\r\x1b[K";
}  // namespace

void Progress::Update(std::string_view line) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  out_ << kRewind << line << std::flush;
  shown_ = true;
}

void Progress::Update(std::string_view label, int64_t done, int64_t total) {
  if (!enabled_) return;
  if (total > 0) {
    Update(fmt::format("{}: {}/{}", label, done, total));
  } else {
    Update(fmt::format("{}: {}", label, done));
  }
}

void Progress::Finish() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!shown_) return;
  out_ << kRewind << std::flush;
  shown_ = false;
}

}  // namespace predlake
