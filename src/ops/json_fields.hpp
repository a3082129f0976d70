// Values as the readers print them (describe, runs): times as ISO strings, absent values as null.
// Internal to ops.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/time.hpp"

namespace predlake::ops {

inline std::optional<std::string> IsoOrNull(std::optional<int64_t> ms) {
  if (!ms) return std::nullopt;
  return FormatTime(*ms);
}

inline nlohmann::ordered_json OptJson(std::optional<int64_t> v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

inline nlohmann::ordered_json TextJson(const std::optional<std::string>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

inline nlohmann::ordered_json TimeJson(std::optional<int64_t> ms) {
  return ms ? nlohmann::ordered_json(FormatTime(*ms)) : nlohmann::ordered_json(nullptr);
}

}  // namespace predlake::ops
