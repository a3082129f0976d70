#include "raw/record.hpp"

#include <gtest/gtest.h>

#include "raw/contracts.hpp"
#include "raw/fetch.hpp"

namespace predlake::raw {
namespace {

TEST(RecordReaderTest, ReadsTypedFieldsByPath) {
  auto rec = nlohmann::json::parse(R"({"id":"a","timestamp":1721952000,"big":"42","stake":"1.5",
    "ok":true,"none":null,"slot":{"slot":300,"predictContract":{"id":"0xc"}}})");
  RecordReader r(rec);
  EXPECT_EQ(r.String("id"), "a");
  EXPECT_EQ(r.Int("timestamp"), 1721952000);
  EXPECT_EQ(r.Int("big"), 42);
  EXPECT_EQ(r.Decimal("stake"), "1.5");
  EXPECT_TRUE(r.Bool("ok"));
  EXPECT_EQ(r.OptionalBool("none"), std::nullopt);
  EXPECT_EQ(r.OptionalBool("absent"), std::nullopt);
  EXPECT_EQ(r.Int("slot.slot"), 300);
  EXPECT_EQ(r.String("slot.predictContract.id"), "0xc");
  EXPECT_TRUE(r.ok()) << r.status().message();
}

TEST(RecordReaderTest, FirstErrorWins) {
  struct Case {
    std::string json;
    std::function<void(RecordReader&)> read;
    std::string message;
  };
  std::vector<Case> cases = {
      {R"({"stake":"12abc"})", [](RecordReader& r) { r.Decimal("stake"); },
       "field `stake` \"12abc\" is not a decimal number"},
      {R"({"stake":1.5})", [](RecordReader& r) { r.Decimal("stake"); },
       "field `stake` should be a decimal string, got number"},
      {R"({"user":null})", [](RecordReader& r) { r.String("user.id"); },
       "field `user.id` is missing or null"},
      {R"({"user":"0xu"})", [](RecordReader& r) { r.String("user.id"); },
       "field `user.id` is missing or null"},
      {R"({"ts":"12x"})", [](RecordReader& r) { r.Int("ts"); },
       "field `ts` should be an integer, got \"12x\""},
      {R"({"ts":1.5})", [](RecordReader& r) { r.Int("ts"); },
       "field `ts` should be an integer, got number"},
      {R"({"b":"true"})", [](RecordReader& r) { r.OptionalBool("b"); },
       "field `b` should be a boolean, got string"},
      {R"({"a":1,"b":"x"})",
       [](RecordReader& r) {
         r.String("a");
         r.Int("b");
       },
       "field `a` should be a string, got integer"},
  };
  for (const Case& c : cases) {
    auto rec = nlohmann::json::parse(c.json);
    RecordReader r(rec);
    c.read(r);
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_EQ(r.status().code(), StatusCode::kSource);
    EXPECT_EQ(r.status().message(), c.message);
  }
}

TEST(DecodeHexTextTest, DecodesNftValues) {
  EXPECT_EQ(DecodeHexText("0x4254432f55534454"), "BTC/USDT");
  EXPECT_EQ(DecodeHexText("0x356d"), "5m");
  EXPECT_EQ(DecodeHexText("0X62696E616E6365"), "binance");
  EXPECT_EQ(DecodeHexText("0x"), "");
  EXPECT_EQ(DecodeHexText("0x123"), std::nullopt);
  EXPECT_EQ(DecodeHexText("4254"), std::nullopt);
  EXPECT_EQ(DecodeHexText("0xzz"), std::nullopt);
}

TEST(CeilSecondsTest, MapsMsWindowsToSeconds) {
  EXPECT_EQ(CeilSeconds(0), 0);
  EXPECT_EQ(CeilSeconds(1), 1);
  EXPECT_EQ(CeilSeconds(1000), 1);
  EXPECT_EQ(CeilSeconds(1001), 2);
  EXPECT_EQ(CeilSeconds(-1), 0);
  EXPECT_EQ(CeilSeconds(-1000), -1);
  EXPECT_EQ(CeilSeconds(-1001), -1);
}

}  // namespace
}  // namespace predlake::raw
