#include "raw/schema.hpp"

#include <cctype>

#include "common/time.hpp"

namespace predlake::raw {

bool IsDecimalText(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  size_t int_digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++int_digits;
  if (int_digits == 0 || int_digits > 20) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t frac = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++frac;
    if (frac == 0) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp;
    // Bounded so that the value still fits DECIMAL(38, 18) after scaling.
    if (exp == 0 || exp > 2) return false;
  }
  return i == s.size();
}

std::string FormatWindow(int64_t from_ms, int64_t to_ms) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) about "literal" + std::string.
  std::string out = "[";
  out += FormatTime(from_ms);
  out += ", ";
  out += FormatTime(to_ms);
  out += ')';
  return out;
}

Status AppendCell(duck::Appender& appender, const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return appender.AppendNull();
  if (const auto* i = std::get_if<int64_t>(&cell)) return appender.Append(*i);
  if (const auto* b = std::get_if<bool>(&cell)) return appender.Append(*b);
  return appender.Append(std::string_view(std::get<std::string>(cell)));
}

Status AppendRow(duck::Appender& appender, const Row& row) {
  for (const Cell& cell : row) RETURN_IF_ERROR(AppendCell(appender, cell));
  return appender.EndRow();
}

}  // namespace predlake::raw
