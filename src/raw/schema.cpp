#include "raw/schema.hpp"

#include <cctype>

#include "common/time.hpp"

namespace predlake::raw {

std::string DecimalTextProblem(std::string_view s) {
  constexpr const char* kNotDecimal = "is not a decimal number";
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  std::string digits;  // integer and fraction digits, without the point
  size_t int_digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    digits += s[i++], ++int_digits;
  if (int_digits == 0) return kNotDecimal;
  int64_t exponent = 0;  // value = digits * 10^exponent
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t frac = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) digits += s[i++], ++frac;
    if (frac == 0) return kNotDecimal;
    exponent -= static_cast<int64_t>(frac);
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    size_t exp_digits = 0;
    int64_t e = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (++exp_digits > 4) return "has an exponent too large for the lake's DECIMAL(38, 18)";
      e = e * 10 + (s[i++] - '0');
    }
    if (exp_digits == 0) return kNotDecimal;
    exponent += negative ? -e : e;
  }
  if (i != s.size()) return kNotDecimal;
  // The exact value's shape: significant digits without leading or trailing zeros.
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return "";  // zero
  size_t last = digits.find_last_not_of('0');
  exponent += static_cast<int64_t>(digits.size() - 1 - last);
  const int64_t significant = static_cast<int64_t>(last - first + 1);
  const int64_t fraction_digits = exponent < 0 ? -exponent : 0;
  const int64_t integer_digits = significant + exponent;
  if (fraction_digits > kDecimalScale) {
    return "needs " + std::to_string(fraction_digits) + " fractional digits; the lake keeps " +
           std::to_string(kDecimalScale) + " (DECIMAL(38, 18)) and does not round amounts";
  }
  if (integer_digits > kDecimalIntegerDigits) {
    return "has " + std::to_string(integer_digits) + " integer digits; the lake keeps at most " +
           std::to_string(kDecimalIntegerDigits) + " (DECIMAL(38, 18))";
  }
  return "";
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
