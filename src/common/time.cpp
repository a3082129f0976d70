#include "common/time.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <chrono>
#include <limits>
#include <optional>

namespace predlake {
namespace {

using std::chrono::days;
using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::sys_days;

constexpr int64_t kMsPerSecond = 1000;
constexpr int64_t kMsPerMinute = 60 * kMsPerSecond;
constexpr int64_t kMsPerHour = 60 * kMsPerMinute;
constexpr int64_t kMsPerDay = kDayMs;
constexpr int64_t kMsPerWeek = 7 * kMsPerDay;

constexpr const char* kAcceptedTimes =
    "expected now, 'N minutes|hours|days ago', YYYY-MM-DD, YYYY-MM-DD_HH:MM[:SS[.fff]], ISO-8601 "
    "(2024-07-26T01:00:00Z) or unix milliseconds";
constexpr const char* kAcceptedDurations = "expected an integer and a unit: 500ms, 30s, 5m, 2h, 1d";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Parses a run of decimal digits into a non-negative int64; nullopt on overflow or no digits.
std::optional<int64_t> ParseDigits(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
    if (v > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// A cursor over the text for the fixed-width calendar forms.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  bool AtEnd() const { return pos_ == s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  // Exactly `n` digits.
  std::optional<int> Digits(size_t n) {
    if (pos_ + n > s_.size()) return std::nullopt;
    int v = 0;
    for (size_t i = 0; i < n; ++i) {
      char c = s_[pos_ + i];
      if (!IsDigit(c)) return std::nullopt;
      v = v * 10 + (c - '0');
    }
    pos_ += n;
    return v;
  }
  // One or more digits; returns them as text.
  std::string_view DigitRun() {
    size_t start = pos_;
    while (!AtEnd() && IsDigit(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

Status Garbage(std::string_view text) {
  return Status::Usage(fmt::format("cannot parse time '{}': {}", text, kAcceptedTimes));
}

Status Invalid(std::string_view text, std::string_view why) {
  return Status::Usage(fmt::format("invalid time '{}': {}", text, why));
}

// Unit names for `N <unit> ago`, in ms.
std::optional<int64_t> RelativeUnitMs(std::string_view unit) {
  struct Unit {
    std::string_view name;
    int64_t ms;
  };
  static constexpr std::array<Unit, 18> kUnits = {{
      {"second", kMsPerSecond},
      {"seconds", kMsPerSecond},
      {"sec", kMsPerSecond},
      {"secs", kMsPerSecond},
      {"s", kMsPerSecond},
      {"minute", kMsPerMinute},
      {"minutes", kMsPerMinute},
      {"min", kMsPerMinute},
      {"mins", kMsPerMinute},
      {"hour", kMsPerHour},
      {"hours", kMsPerHour},
      {"hr", kMsPerHour},
      {"hrs", kMsPerHour},
      {"day", kMsPerDay},
      {"days", kMsPerDay},
      {"week", kMsPerWeek},
      {"weeks", kMsPerWeek},
      {"d", kMsPerDay},
  }};
  for (const Unit& u : kUnits) {
    if (u.name == unit) return u.ms;
  }
  return std::nullopt;
}

// `N <unit> ago`; nullopt when the text is not of that shape at all.
std::optional<Result<int64_t>> ParseRelative(std::string_view original, const std::string& lower,
                                             int64_t now_ms) {
  std::string_view s = lower;
  constexpr std::string_view kAgo = "ago";
  if (s.size() < kAgo.size() || s.substr(s.size() - kAgo.size()) != kAgo) return std::nullopt;
  s.remove_suffix(kAgo.size());
  if (s.empty() || !std::isspace(static_cast<unsigned char>(s.back()))) return std::nullopt;
  s = Trim(s);
  size_t digits = 0;
  while (digits < s.size() && IsDigit(s[digits])) ++digits;
  if (digits == 0) return std::nullopt;
  std::string_view unit = Trim(s.substr(digits));
  if (unit.empty()) return std::nullopt;
  std::optional<int64_t> unit_ms = RelativeUnitMs(unit);
  if (!unit_ms) {
    return Result<int64_t>(Invalid(
        original,
        fmt::format("unknown unit '{}' (use seconds, minutes, hours, days or weeks)", unit)));
  }
  std::optional<int64_t> n = ParseDigits(s.substr(0, digits));
  if (!n || *n > std::numeric_limits<int64_t>::max() / *unit_ms) {
    return Result<int64_t>(Invalid(original, "number too large"));
  }
  int64_t delta = *n * *unit_ms;
  if (delta > now_ms) return Result<int64_t>(Invalid(original, "before 1970-01-01"));
  return Result<int64_t>(now_ms - delta);
}

// The calendar forms: YYYY-MM-DD with an optional time of day and UTC offset.
Result<int64_t> ParseCalendar(std::string_view text, std::string_view s) {
  Scanner sc(s);
  std::optional<int> year = sc.Digits(4);
  if (!year || !sc.Consume('-')) return Garbage(text);
  std::optional<int> month = sc.Digits(2);
  if (!month || !sc.Consume('-')) return Garbage(text);
  std::optional<int> day = sc.Digits(2);
  if (!day) return Garbage(text);

  int hour = 0, minute = 0, second = 0;
  int64_t millis = 0;
  int64_t offset_ms = 0;
  if (!sc.AtEnd()) {
    char sep = sc.Peek();
    if (sep != '_' && sep != 'T' && sep != 't' && sep != ' ') return Garbage(text);
    sc.Consume(sep);
    std::optional<int> h = sc.Digits(2);
    if (!h || !sc.Consume(':')) return Garbage(text);
    std::optional<int> m = sc.Digits(2);
    if (!m) return Garbage(text);
    hour = *h;
    minute = *m;
    if (sc.Consume(':')) {
      std::optional<int> sec = sc.Digits(2);
      if (!sec) return Garbage(text);
      second = *sec;
      if (sc.Consume('.')) {
        std::string_view frac = sc.DigitRun();
        if (frac.empty() || frac.size() > 9) return Garbage(text);
        // Sub-millisecond digits are truncated: the lake's resolution is 1 ms.
        for (size_t i = 0; i < 3; ++i) millis = millis * 10 + (i < frac.size() ? frac[i] - '0' : 0);
      }
    }
    if (sc.Consume('Z') || sc.Consume('z')) {
      // UTC.
    } else if (sc.Peek() == '+' || sc.Peek() == '-') {
      int sign = sc.Peek() == '+' ? 1 : -1;
      sc.Consume(sc.Peek());
      std::optional<int> oh = sc.Digits(2);
      if (!oh) return Garbage(text);
      sc.Consume(':');
      std::optional<int> om = sc.Digits(2);
      if (!om) return Garbage(text);
      if (*oh > 23 || *om > 59) return Invalid(text, "UTC offset out of range");
      offset_ms = sign * (*oh * kMsPerHour + *om * kMsPerMinute);
    }
  }
  if (!sc.AtEnd()) return Garbage(text);

  if (*month < 1 || *month > 12) return Invalid(text, fmt::format("month {} out of range", *month));
  const std::optional<int64_t> day_number =
      DayNumberOf(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
  if (!day_number) {
    return Invalid(text, fmt::format("day {} out of range for {:04}-{:02}", *day, *year, *month));
  }
  if (hour > 23) return Invalid(text, fmt::format("hour {} out of range", hour));
  if (minute > 59) return Invalid(text, fmt::format("minute {} out of range", minute));
  if (second > 59) return Invalid(text, fmt::format("second {} out of range", second));

  int64_t ms = *day_number * kDayMs + hour * kMsPerHour + minute * kMsPerMinute +
               second * kMsPerSecond + millis - offset_ms;
  if (ms < 0) return Invalid(text, "before 1970-01-01");
  return ms;
}

}  // namespace

Result<int64_t> ParseTime(std::string_view text, int64_t now_ms) {
  std::string_view s = Trim(text);
  if (s.empty()) return Garbage(text);
  std::string lower = Lower(s);
  if (lower == "now") return now_ms;
  if (std::optional<Result<int64_t>> rel = ParseRelative(text, lower, now_ms)) return *rel;

  bool all_digits = true;
  for (char c : s) all_digits = all_digits && IsDigit(c);
  if (all_digits) {
    std::optional<int64_t> ms = ParseDigits(s);
    if (!ms) return Invalid(text, "unix milliseconds out of range");
    return *ms;
  }
  if (s.size() >= 10 && IsDigit(s[0])) return ParseCalendar(text, s);
  return Garbage(text);
}

Result<int64_t> ParseDuration(std::string_view text) {
  std::string lower = Lower(Trim(text));
  std::string_view s = lower;
  size_t digits = 0;
  while (digits < s.size() && IsDigit(s[digits])) ++digits;
  std::string_view unit = s.substr(digits);
  int64_t unit_ms = 0;
  if (unit == "ms") {
    unit_ms = 1;
  } else if (unit == "s") {
    unit_ms = kMsPerSecond;
  } else if (unit == "m") {
    unit_ms = kMsPerMinute;
  } else if (unit == "h") {
    unit_ms = kMsPerHour;
  } else if (unit == "d") {
    unit_ms = kMsPerDay;
  }
  if (digits == 0 || unit_ms == 0) {
    return Status::Usage(fmt::format("cannot parse duration '{}': {}", text, kAcceptedDurations));
  }
  std::optional<int64_t> n = ParseDigits(s.substr(0, digits));
  if (!n || *n > std::numeric_limits<int64_t>::max() / unit_ms) {
    return Status::Usage(fmt::format("invalid duration '{}': number too large", text));
  }
  return *n * unit_ms;
}

std::string FormatTimeMs(int64_t ms) {
  std::string out = FormatTime(ms);
  if (out.size() == 20) out.insert(19, ".000");  // whole seconds: YYYY-MM-DDTHH:MM:SSZ
  return out;
}

std::string FormatTime(int64_t ms) {
  using namespace std::chrono;
  sys_time<milliseconds> tp{milliseconds{ms}};
  sys_days day = floor<days>(tp);
  year_month_day ymd{day};
  hh_mm_ss<milliseconds> tod{tp - day};
  std::string out =
      fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  tod.hours().count(), tod.minutes().count(), tod.seconds().count());
  if (tod.subseconds().count() != 0) out += fmt::format(".{:03}", tod.subseconds().count());
  out += 'Z';
  return out;
}

int64_t DayNumber(int64_t ms) { return ms / kDayMs - (ms % kDayMs < 0 ? 1 : 0); }

std::optional<int64_t> DayNumberOf(int year, unsigned month, unsigned day) {
  const std::chrono::year_month_day ymd{std::chrono::year{year}, std::chrono::month{month},
                                        std::chrono::day{day}};
  if (!ymd.ok()) return std::nullopt;
  return sys_days{ymd}.time_since_epoch().count();
}

std::string FormatDay(int64_t ms) {
  const std::chrono::year_month_day ymd{sys_days{days{DayNumber(ms)}}};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
}

std::optional<int64_t> ParseDay(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(text[i])) return std::nullopt;
  }
  auto number = [&](size_t at, size_t n) {
    int v = 0;
    for (size_t i = at; i < at + n; ++i) v = v * 10 + (text[i] - '0');
    return v;
  };
  const std::optional<int64_t> day = DayNumberOf(number(0, 4), static_cast<unsigned>(number(5, 2)),
                                                 static_cast<unsigned>(number(8, 2)));
  if (!day) return std::nullopt;
  return *day * kDayMs;
}

std::string FormatDuration(int64_t ms) {
  struct Unit {
    int64_t ms;
    const char* suffix;
  };
  static constexpr std::array<Unit, 4> kUnits = {
      {{kMsPerDay, "d"}, {kMsPerHour, "h"}, {kMsPerMinute, "m"}, {kMsPerSecond, "s"}}};
  if (ms == 0) return "0s";
  for (const Unit& u : kUnits) {
    if (ms % u.ms == 0) return fmt::format("{}{}", ms / u.ms, u.suffix);
  }
  return fmt::format("{}ms", ms);
}

int64_t SystemClock::NowMs() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace predlake
