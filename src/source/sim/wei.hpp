// Exact token amounts: integers in wei (1e-18 OCEAN), formatted as The Graph formats BigDecimal.
#pragma once

#include <string>

namespace predlake::sim {

using Wei = unsigned __int128;

inline constexpr Wei kWeiPerToken = 1'000'000'000'000'000'000ULL;

// Plain decimal notation, no exponent, trailing zeros dropped: 0 -> "0", 285 tokens -> "285",
// 292.0912 tokens -> "292.0912".
std::string FormatWei(Wei wei);

// Appends FormatWei(wei) to `out`.
void AppendWei(std::string& out, Wei wei);

// floor(a * b / c) computed exactly with a 256-bit intermediate. Requires c > 0 and a result that
// fits in 128 bits (true whenever a <= c or b <= c).
Wei MulDiv(Wei a, Wei b, Wei c);

}  // namespace predlake::sim
