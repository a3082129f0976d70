#include "common/log.hpp"

#include <nlohmann/json.hpp>

namespace predlake {

Result<LogFormat> ParseLogFormat(std::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return Status::Usage("unknown log format '" + std::string(name) + "' (expected text or json)");
}

void Logger::Log(LogLevel level, std::string_view message, const LogFields& fields) {
  if (level == LogLevel::kDebug && !verbose_) return;
  if (quiet_ && level == LogLevel::kInfo) return;
  std::string line;
  if (format_ == LogFormat::kJson) {
    nlohmann::ordered_json j;
    j["time"] = FormatTimeMs(clock_ != nullptr ? clock_->NowMs() : SystemClock().NowMs());
    j["level"] = level == LogLevel::kDebug  ? "debug"
                 : level == LogLevel::kInfo ? "info"
                 : level == LogLevel::kWarn ? "warn"
                                            : "error";
    j["msg"] = message;
    for (const auto& [k, v] : fields) j[k] = v;
    // Replacement keeps a line valid JSON even if a message carries invalid UTF-8 (e.g. a file
    // name).
    line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    line = "predlake: ";
    if (level == LogLevel::kWarn) line += "warning: ";
    line += message;
    for (const auto& [k, v] : fields) line += " " + k + "=" + v;
  }
  line += '\n';
  std::lock_guard<std::mutex> lock(mu_);
  out_ << line << std::flush;
}

}  // namespace predlake
