// Progress lines for long work. On a terminal each Update overwrites the previous line (`\r` and an
// erase); when disabled (not a terminal, or -q) nothing is written at all, so pipes and logs stay
// clean.
#pragma once

#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

namespace predlake {

class Progress {
 public:
  // `out` (normally stderr) is not owned and must outlive the Progress. `enabled` is typically
  // "stderr is a terminal and not quiet".
  Progress(std::ostream& out, bool enabled) : out_(out), enabled_(enabled) {}
  ~Progress() { Finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Replaces the current progress line with `line`. Thread-safe.
  void Update(std::string_view line);
  // "label: done/total" (or "label: done" when total is 0).
  void Update(std::string_view label, int64_t done, int64_t total);
  // Erases the progress line so that the next output starts on a clean line. Idempotent.
  void Finish();

  bool enabled() const { return enabled_; }

 private:
  std::ostream& out_;
  bool enabled_;
  bool shown_ = false;
  std::mutex mu_;
};

}  // namespace predlake
