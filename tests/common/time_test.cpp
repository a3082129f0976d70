#include "common/time.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace predlake {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kNow = 1721959200000;  // 2024-07-26T02:00:00Z
constexpr int64_t kDay = kDayMs;

int64_t Parse(std::string_view s) {
  Result<int64_t> r = ParseTime(s, kNow);
  EXPECT_TRUE(r.ok()) << s << ": " << r.status().message();
  return r.ok() ? *r : -1;
}

Status ParseError(std::string_view s) {
  Result<int64_t> r = ParseTime(s, kNow);
  EXPECT_FALSE(r.ok()) << s << " parsed as " << (r.ok() ? *r : 0);
  return r.status();
}

TEST(ParseTimeTest, Now) {
  EXPECT_EQ(Parse("now"), kNow);
  EXPECT_EQ(Parse("NOW"), kNow);
  EXPECT_EQ(Parse("  now "), kNow);
}

TEST(ParseTimeTest, RelativeForms) {
  EXPECT_EQ(Parse("1 minute ago"), kNow - 60'000);
  EXPECT_EQ(Parse("5 minutes ago"), kNow - 300'000);
  EXPECT_EQ(Parse("5 min ago"), kNow - 300'000);
  EXPECT_EQ(Parse("5 mins ago"), kNow - 300'000);
  EXPECT_EQ(Parse("1 hour ago"), kNow - 3'600'000);
  EXPECT_EQ(Parse("2 hours ago"), kNow - 7'200'000);
  EXPECT_EQ(Parse("1 day ago"), kNow - kDay);
  EXPECT_EQ(Parse("30 days ago"), kNow - 30 * kDay);
  EXPECT_EQ(Parse("30 Days Ago"), kNow - 30 * kDay);
  EXPECT_EQ(Parse("45 seconds ago"), kNow - 45'000);
  EXPECT_EQ(Parse("2 weeks ago"), kNow - 14 * kDay);
  EXPECT_EQ(Parse("0 days ago"), kNow);
  EXPECT_EQ(Parse("7days ago"), kNow - 7 * kDay);
}

TEST(ParseTimeTest, DateOnly) {
  EXPECT_EQ(Parse("2024-07-26"), 1721952000000);
  EXPECT_EQ(Parse("1970-01-01"), 0);
  EXPECT_EQ(Parse("2024-02-29"), 1709164800000);  // leap day
  EXPECT_EQ(Parse("2000-02-29"), 951782400000);   // century leap year
}

TEST(ParseTimeTest, PdrBackendUnderscoreForms) {
  EXPECT_EQ(Parse("2024-07-26_01:00"), 1721955600000);
  EXPECT_EQ(Parse("2024-07-26_01:00:30"), 1721955630000);
  EXPECT_EQ(Parse("2024-07-26_01:00:30.5"), 1721955630500);
  EXPECT_EQ(Parse("2024-07-26_01:00:30.123"), 1721955630123);
  EXPECT_EQ(Parse("2024-07-26_23:59:59.999"), 1721952000000 + kDay - 1);
}

TEST(ParseTimeTest, Iso8601) {
  EXPECT_EQ(Parse("2024-07-26T01:00:00Z"), 1721955600000);
  EXPECT_EQ(Parse("2024-07-26t01:00:00z"), 1721955600000);
  EXPECT_EQ(Parse("2024-07-26T01:00:00.123Z"), 1721955600123);
  EXPECT_EQ(Parse("2024-07-26T01:00:00.123456789Z"), 1721955600123);  // sub-ms truncated
  EXPECT_EQ(Parse("2024-07-26T01:00:00+00:00"), 1721955600000);
  EXPECT_EQ(Parse("2024-07-26T03:00:00+02:00"), 1721955600000);
  EXPECT_EQ(Parse("2024-07-25T20:30:00-04:30"), 1721955600000);
  EXPECT_EQ(Parse("2024-07-26T03:00:00+0200"), 1721955600000);
  EXPECT_EQ(Parse("2024-07-26 01:00:00"), 1721955600000);
  EXPECT_EQ(Parse("2024-07-26T01:00"), 1721955600000);
  EXPECT_EQ(Parse("2024-07-26T01:00:00"), 1721955600000);  // no zone: UTC
}

TEST(ParseTimeTest, UnixMilliseconds) {
  EXPECT_EQ(Parse("1721955600000"), 1721955600000);
  EXPECT_EQ(Parse("0"), 0);
  EXPECT_EQ(Parse("9223372036854775807"), INT64_MAX);
}

TEST(ParseTimeTest, GarbageListsAcceptedForms) {
  for (std::string_view bad : {"", "   ", "yesterday", "12:00", "tomorrow at noon", "now!", "-5",
                               "1e12", "0x10", "2024/07/26", "26-07-2024", "2024-7-26",
                               "2024-07-26Z", "2024-07-26T1:00", "ago", "5 ago", "minutes ago"}) {
    Status st = ParseError(bad);
    EXPECT_EQ(st.code(), StatusCode::kUsage) << bad;
    const std::string quoted = std::string("'").append(bad).append("'");
    EXPECT_THAT(st.message(), HasSubstr(quoted));
    EXPECT_THAT(st.message(), HasSubstr("YYYY-MM-DD_HH:MM"));
    EXPECT_THAT(st.message(), HasSubstr("unix milliseconds"));
  }
}

TEST(ParseTimeTest, TrailingJunk) {
  for (std::string_view bad : {"2024-07-26x", "2024-07-26T01:00:00Zjunk", "2024-07-26_01:00:00.",
                               "2024-07-26 01:00:00 UTC", "now now", "123abc", "2024-07-26_01:00:",
                               "2024-07-26T01:00:00+02", "2024-07-26T01:00:00.1234567890Z"}) {
    EXPECT_EQ(ParseError(bad).code(), StatusCode::kUsage) << bad;
  }
}

TEST(ParseTimeTest, OutOfRangeFieldsNameTheProblem) {
  EXPECT_THAT(ParseError("2024-13-01").message(), HasSubstr("month 13"));
  EXPECT_THAT(ParseError("2024-00-10").message(), HasSubstr("month 0"));
  EXPECT_THAT(ParseError("2024-02-30").message(), HasSubstr("day 30"));
  EXPECT_THAT(ParseError("2023-02-29").message(), HasSubstr("day 29"));
  EXPECT_THAT(ParseError("2024-04-31").message(), HasSubstr("day 31"));
  EXPECT_THAT(ParseError("2024-07-00").message(), HasSubstr("day 0"));
  EXPECT_THAT(ParseError("2024-07-26_24:00").message(), HasSubstr("hour 24"));
  EXPECT_THAT(ParseError("2024-07-26_12:60").message(), HasSubstr("minute 60"));
  EXPECT_THAT(ParseError("2024-07-26T12:00:60Z").message(), HasSubstr("second 60"));
  EXPECT_THAT(ParseError("2024-07-26T12:00:00+24:00").message(), HasSubstr("offset"));
  EXPECT_THAT(ParseError("1969-12-31").message(), HasSubstr("before 1970"));
  EXPECT_THAT(ParseError("1970-01-01T00:30:00+01:00").message(), HasSubstr("before 1970"));
}

TEST(ParseTimeTest, RelativeErrors) {
  EXPECT_THAT(ParseError("5 parsecs ago").message(), HasSubstr("unknown unit 'parsecs'"));
  EXPECT_THAT(ParseError("99999999999999999999 days ago").message(), HasSubstr("too large"));
  EXPECT_THAT(ParseError("9999999999999 days ago").message(), HasSubstr("too large"));
  EXPECT_THAT(ParseError("100000 days ago").message(), HasSubstr("before 1970"));
}

TEST(ParseTimeTest, OverflowingMilliseconds) {
  EXPECT_THAT(ParseError("9223372036854775808").message(), HasSubstr("out of range"));
  EXPECT_THAT(ParseError("99999999999999999999999").message(), HasSubstr("out of range"));
}

TEST(FormatTimeTest, Forms) {
  EXPECT_EQ(FormatTime(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatTime(1721955600000), "2024-07-26T01:00:00Z");
  EXPECT_EQ(FormatTime(1721955600123), "2024-07-26T01:00:00.123Z");
  EXPECT_EQ(FormatTime(1721955600007), "2024-07-26T01:00:00.007Z");
  EXPECT_EQ(FormatTime(1709164800000), "2024-02-29T00:00:00Z");
  EXPECT_EQ(FormatTimeMs(1721955600000), "2024-07-26T01:00:00.000Z");
  EXPECT_EQ(FormatTimeMs(1721955600007), "2024-07-26T01:00:00.007Z");
  EXPECT_EQ(Parse(FormatTimeMs(1721955600000)), 1721955600000);
}

TEST(FormatTimeTest, RoundTrips) {
  for (int64_t ms : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1721955600123},
                     int64_t{951782400000}, int64_t{4102444799999}, int64_t{253402300799999}}) {
    EXPECT_EQ(Parse(FormatTime(ms)), ms) << FormatTime(ms);
  }
  // Every ms of a day boundary and a spread of times across decades.
  for (int64_t ms = 0; ms < 4102444800000; ms += 7'919'993'917) {
    ASSERT_EQ(Parse(FormatTime(ms)), ms) << FormatTime(ms);
  }
}

TEST(ParseDurationTest, Units) {
  EXPECT_EQ(*ParseDuration("500ms"), 500);
  EXPECT_EQ(*ParseDuration("30s"), 30'000);
  EXPECT_EQ(*ParseDuration("5m"), 300'000);
  EXPECT_EQ(*ParseDuration("2h"), 7'200'000);
  EXPECT_EQ(*ParseDuration("1d"), kDay);
  EXPECT_EQ(*ParseDuration("0s"), 0);
  EXPECT_EQ(*ParseDuration(" 5M "), 300'000);
}

TEST(ParseDurationTest, BadInput) {
  for (std::string_view bad : {"", "5", "m", "5 m", "-5m", "5x", "1.5h", "5mins", "5m5s", "ms"}) {
    Result<int64_t> r = ParseDuration(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kUsage);
    EXPECT_THAT(r.status().message(), HasSubstr("500ms, 30s, 5m, 2h, 1d")) << bad;
  }
  Result<int64_t> big = ParseDuration("9999999999999999d");
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.status().message(), HasSubstr("too large"));
}

TEST(FormatDurationTest, ShortestExactUnit) {
  EXPECT_EQ(FormatDuration(300'000), "5m");
  EXPECT_EQ(FormatDuration(1500), "1500ms");
  EXPECT_EQ(FormatDuration(30'000), "30s");
  EXPECT_EQ(FormatDuration(kDay), "1d");
  EXPECT_EQ(FormatDuration(90 * 60'000), "90m");
  EXPECT_EQ(FormatDuration(0), "0s");
  for (int64_t ms :
       {int64_t{1}, int64_t{500}, int64_t{61'000}, int64_t{3 * kDay}, int64_t{7'200'000}}) {
    EXPECT_EQ(*ParseDuration(FormatDuration(ms)), ms);
  }
}

TEST(ClockTest, FixedAndSystem) {
  FixedClock fixed(kNow);
  EXPECT_EQ(fixed.NowMs(), kNow);
  SystemClock system;
  EXPECT_GT(system.NowMs(), 1'700'000'000'000);  // after 2023
}

TEST(Days, NumbersStartsAndNamesAlsoBefore1970) {
  EXPECT_EQ(DayNumber(0), 0);
  EXPECT_EQ(DayNumber(kDay - 1), 0);
  EXPECT_EQ(DayNumber(-1), -1);
  EXPECT_EQ(DayNumber(-kDay), -1);
  EXPECT_EQ(DayNumber(-kDay - 1), -2);
  EXPECT_EQ(DayStartMs(kNow), 1721952000000);  // 2024-07-26T00:00:00Z
  EXPECT_EQ(DayStartMs(-1), -kDay);
  EXPECT_EQ(FormatDay(kNow), "2024-07-26");
  EXPECT_EQ(FormatDay(-1), "1969-12-31");
  EXPECT_EQ(FormatDay(0), "1970-01-01");
  EXPECT_EQ(DayNumberOf(1970, 1, 1), 0);
  EXPECT_EQ(DayNumberOf(2024, 2, 29), 19782);
  EXPECT_EQ(DayNumberOf(2023, 2, 29), std::nullopt);
  EXPECT_EQ(DayNumberOf(2024, 13, 1), std::nullopt);
  EXPECT_EQ(ParseDay("2024-07-26"), 1721952000000);
  EXPECT_EQ(ParseDay("1969-12-31"), -kDay);
  EXPECT_EQ(ParseDay("9999-12-31"), *DayNumberOf(9999, 12, 31) * kDay);
  for (const char* bad :
       {"2024-7-26", "2024-07-26T00:00", "2024-02-30", "2024/07/26", "", "20x4-07-26"}) {
    EXPECT_EQ(ParseDay(bad), std::nullopt) << bad;
  }
  // Every day of four centuries (leap years included) names itself and parses back.
  for (int64_t day = -800; day < 146097; day += 1) {
    const std::string name = FormatDay(day * kDay + 123);
    ASSERT_EQ(ParseDay(name), day * kDay) << name;
  }
}

}  // namespace
}  // namespace predlake
