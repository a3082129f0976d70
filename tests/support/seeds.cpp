#include "support/seeds.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace predlake::test_support {

int SeedCount(const char* env, int release, int sanitized) {
  const char* v = std::getenv(env);
  return v && *v ? std::atoi(v) : (kSanitized ? sanitized : release);
}

uint64_t SeedBase() {
  const char* v = std::getenv("PREDLAKE_SEED_BASE");
  if (v == nullptr || *v == '\0') return 0;
  const std::string_view text(v);
  uint64_t base = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), base);
  if (ec != std::errc() || end != text.data() + text.size()) {
    ADD_FAILURE() << "PREDLAKE_SEED_BASE is not a decimal integer: '" << text << "'";
    return 0;
  }
  return base;
}

uint64_t PropertySeed(int index) { return SeedBase() + static_cast<uint64_t>(index); }

std::string SeedNote(int index) {
  const std::string base = std::to_string(SeedBase());
  return "seed " + std::to_string(PropertySeed(index)) + " (case " + std::to_string(index) +
         " of seed base " + base + "; rerun with PREDLAKE_SEED_BASE=" + base + ")";
}

}  // namespace predlake::test_support
