#include "source/sim/wei.hpp"

#include <cassert>
#include <cstdint>

namespace predlake::sim {

void AppendWei(std::string& out, Wei wei) {
  Wei whole = wei / kWeiPerToken;
  uint64_t frac = static_cast<uint64_t>(wei % kWeiPerToken);
  char buf[64];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + static_cast<int>(whole % 10));
    whole /= 10;
  } while (whole != 0);
  while (n > 0) out.push_back(buf[--n]);
  if (frac == 0) return;
  char digits[18];
  for (int i = 17; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  int len = 18;
  while (digits[len - 1] == '0') --len;
  out.push_back('.');
  out.append(digits, static_cast<size_t>(len));
}

std::string FormatWei(Wei wei) {
  std::string s;
  AppendWei(s, wei);
  return s;
}

Wei MulDiv(Wei a, Wei b, Wei c) {
  assert(c != 0);
  if (a == 0 || b == 0) return 0;
  const Wei kMax = ~static_cast<Wei>(0);
  if (a <= kMax / b) return a * b / c;
  // Schoolbook 128x128 -> 256-bit product in 64-bit limbs, then restoring binary long division;
  // only taken when the product overflows 128 bits, which amounts of a few thousand tokens
  // routinely do.
  const uint64_t a0 = static_cast<uint64_t>(a), a1 = static_cast<uint64_t>(a >> 64);
  const uint64_t b0 = static_cast<uint64_t>(b), b1 = static_cast<uint64_t>(b >> 64);
  Wei p00 = static_cast<Wei>(a0) * b0, p01 = static_cast<Wei>(a0) * b1;
  Wei p10 = static_cast<Wei>(a1) * b0, p11 = static_cast<Wei>(a1) * b1;
  Wei mid = (p00 >> 64) + static_cast<uint64_t>(p01) + static_cast<uint64_t>(p10);
  Wei lo = (mid << 64) | static_cast<uint64_t>(p00);
  Wei hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  assert(hi < c);  // the quotient fits in 128 bits
  Wei rem = hi;
  Wei quotient = 0;
  for (int i = 127; i >= 0; --i) {
    const bool carry = (rem >> 127) != 0;
    rem = (rem << 1) | ((lo >> i) & 1);
    quotient <<= 1;
    if (carry || rem >= c) {
      rem -= c;
      quotient |= 1;
    }
  }
  return quotient;
}

}  // namespace predlake::sim
