// Time strings and durations (docs/design.md section 5). All times are UTC unix milliseconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.hpp"

namespace predlake {

// Parses a time string relative to `now_ms` (the command's frozen "now"). Accepted forms: `now`,
// `N minute(s)|hour(s)|day(s) ago`, `YYYY-MM-DD`, `YYYY-MM-DD_HH:MM[:SS[.fff]]`, ISO-8601
// (`2024-07-26T01:00:00Z`, `2024-07-26T01:00:00.123Z`, `+00:00` offsets, a space instead of `T`),
// integer unix milliseconds; also `min`/`mins`, seconds and weeks in `N ... ago`. Case-insensitive,
// surrounding spaces ignored, digits past milliseconds truncated. Invalid dates (2024-02-30, hour
// 24) and times before 1970 are kUsage errors naming the problem. On garbage returns a kUsage
// status whose message names the input and lists the accepted forms.
Result<int64_t> ParseTime(std::string_view text, int64_t now_ms);

// Parses a duration: `500ms`, `30s`, `5m`, `2h`, `1d` (a non-negative integer and a unit; `0s` is
// allowed, callers that need a positive duration check it). Returns ms; garbage or overflow is a
// kUsage status.
Result<int64_t> ParseDuration(std::string_view text);

// Formats unix ms as `2024-07-26T01:00:00Z`, or with `.123` when the milliseconds are not zero.
std::string FormatTime(int64_t ms);
// The same with the milliseconds always (`2024-07-26T01:00:00.000Z`): one width, so that such times
// sort as text (log lines).
std::string FormatTimeMs(int64_t ms);

// Formats a duration in ms as its shortest exact unit string (`5m`, `1500ms`).
std::string FormatDuration(int64_t ms);

// ---- UTC days: the one calendar arithmetic of the code base (proleptic Gregorian, also before
// 1970; no time zones, no libc).

inline constexpr int64_t kDayMs = 86'400'000;

// The number of the UTC day holding unix ms `ms`: days since 1970-01-01, negative before it.
int64_t DayNumber(int64_t ms);

// The start (unix ms) of the UTC day holding unix ms `ms`.
inline int64_t DayStartMs(int64_t ms) { return DayNumber(ms) * kDayMs; }

// The number (as DayNumber) of the civil date `year`-`month`-`day`; nullopt when it is no date
// (month 13, 2023-02-29).
std::optional<int64_t> DayNumberOf(int year, unsigned month, unsigned day);

// `YYYY-MM-DD` of the UTC day holding unix ms `ms`.
std::string FormatDay(int64_t ms);

// The start (unix ms) of the day `YYYY-MM-DD` names; nullopt unless `text` is exactly that form
// and a valid date.
std::optional<int64_t> ParseDay(std::string_view text);

// The milliseconds of a monotonic clock since `start` (step and phase timings).
inline double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The source of "now". Injected so that tests are deterministic. Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMs() const = 0;
};

// The system's wall clock.
class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override;
};

// A clock that always answers the same time (tests, and the simulated network's pinned "now").
class FixedClock final : public Clock {
 public:
  explicit FixedClock(int64_t now_ms) : now_ms_(now_ms) {}
  int64_t NowMs() const override { return now_ms_; }

 private:
  int64_t now_ms_;
};

}  // namespace predlake
