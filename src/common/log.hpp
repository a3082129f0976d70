// Minimal logging for commands: informational lines, warnings and errors on one stream (stderr), as
// text (`predlake: message`) or as one JSON object per line (`--log-format json`), which starts
// with the time it was written.
#pragma once

#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "common/time.hpp"

namespace predlake {

enum class LogFormat { kText, kJson };
enum class LogLevel { kDebug, kInfo, kWarn, kError };

// Parses "text" or "json"; anything else is a kUsage status.
Result<LogFormat> ParseLogFormat(std::string_view name);

// Extra key/value pairs attached to a log line (shown as ` key=value` in text, as members in JSON).
using LogFields = std::vector<std::pair<std::string, std::string>>;

// Writes log lines to `out` (not owned; must outlive the Logger). kDebug lines are written only by
// a verbose logger (`-v`); quiet loggers drop kInfo lines; warnings and errors are always written.
// A JSON line's first member is `"time"`: `clock`'s now as ISO-8601 UTC with milliseconds
// (`2024-07-26T01:00:00.000Z`); `clock` (not owned; must outlive the Logger) defaults to the
// system's. Each line is written whole under a mutex, so the Logger is thread-safe.
class Logger {
 public:
  Logger(std::ostream& out, LogFormat format, bool quiet, bool verbose = false,
         const Clock* clock = nullptr)
      : out_(out), format_(format), quiet_(quiet), verbose_(verbose), clock_(clock) {}

  void Log(LogLevel level, std::string_view message, const LogFields& fields = {});
  void Debug(std::string_view message, const LogFields& fields = {}) {
    Log(LogLevel::kDebug, message, fields);
  }
  void Info(std::string_view message, const LogFields& fields = {}) {
    Log(LogLevel::kInfo, message, fields);
  }
  void Warn(std::string_view message, const LogFields& fields = {}) {
    Log(LogLevel::kWarn, message, fields);
  }
  void Error(std::string_view message, const LogFields& fields = {}) {
    Log(LogLevel::kError, message, fields);
  }

  LogFormat format() const { return format_; }
  bool quiet() const { return quiet_; }
  bool verbose() const { return verbose_; }

 private:
  std::ostream& out_;
  LogFormat format_;
  bool quiet_;
  bool verbose_;
  const Clock* clock_;
  std::mutex mu_;
};

}  // namespace predlake
