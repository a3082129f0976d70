#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "common/log.hpp"
#include "common/progress.hpp"

namespace predlake {
namespace {

TEST(LoggerTest, TextLines) {
  std::ostringstream out;
  Logger log(out, LogFormat::kText, false);
  log.Info("fetched", {{"rows", "12"}});
  log.Warn("slow");
  log.Error("boom");
  EXPECT_EQ(out.str(), "predlake: fetched rows=12\npredlake: warning: slow\npredlake: boom\n");
}

TEST(LoggerTest, QuietDropsInfoOnly) {
  std::ostringstream out;
  Logger log(out, LogFormat::kText, true);
  log.Info("hidden");
  log.Warn("w");
  log.Error("e");
  EXPECT_EQ(out.str(), "predlake: warning: w\npredlake: e\n");
}

TEST(LoggerTest, DebugLinesOnlyWhenVerbose) {
  std::ostringstream plain;
  Logger normal(plain, LogFormat::kText, false);
  normal.Debug("hidden");
  normal.Info("i");
  EXPECT_EQ(plain.str(), "predlake: i\n");
  std::ostringstream text;
  Logger verbose(text, LogFormat::kText, false, true);
  verbose.Debug("retry 1 in 500ms (throttled): x");
  EXPECT_EQ(text.str(), "predlake: retry 1 in 500ms (throttled): x\n");
  EXPECT_TRUE(verbose.verbose());
  std::ostringstream json;
  FixedClock clock(1'721'955'600'000);  // 2024-07-26T01:00:00Z
  Logger verbose_json(json, LogFormat::kJson, false, true, &clock);
  verbose_json.Debug("d");
  EXPECT_EQ(json.str(),
            "{\"time\":\"2024-07-26T01:00:00.000Z\",\"level\":\"debug\",\"msg\":\"d\"}\n");
}

// A JSON line starts with the time it was written: the injected clock's, with milliseconds always;
// the system's by default.
TEST(LoggerTest, JsonLinesCarryTheTime) {
  std::ostringstream out;
  FixedClock clock(1'721'955'600'042);
  Logger log(out, LogFormat::kJson, false, false, &clock);
  log.Warn("w");
  EXPECT_EQ(out.str(),
            "{\"time\":\"2024-07-26T01:00:00.042Z\",\"level\":\"warn\",\"msg\":\"w\"}\n");

  std::ostringstream wall;
  const int64_t before = SystemClock().NowMs();
  Logger(wall, LogFormat::kJson, false).Info("i");
  const int64_t after = SystemClock().NowMs();
  Result<int64_t> at = ParseTime(nlohmann::json::parse(wall.str())["time"].get<std::string>(), 0);
  ASSERT_TRUE(at.ok()) << at.status().message();
  EXPECT_GE(*at, before);
  EXPECT_LE(*at, after);

  // Text lines stay as they were.
  std::ostringstream text;
  Logger(text, LogFormat::kText, false, false, &clock).Info("i");
  EXPECT_EQ(text.str(), "predlake: i\n");
}

TEST(LoggerTest, JsonOneObjectPerLine) {
  std::ostringstream out;
  Logger log(out, LogFormat::kJson, false);
  log.Info("quote \" and\nnewline", {{"table", "pdr_slots"}});
  log.Error("bad");
  std::istringstream lines(out.str());
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["level"], "info");
  EXPECT_EQ(j["msg"], "quote \" and\nnewline");
  EXPECT_EQ(j["table"], "pdr_slots");
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(nlohmann::json::parse(line)["level"], "error");
  EXPECT_FALSE(std::getline(lines, line));
}

TEST(LoggerTest, ParseLogFormat) {
  EXPECT_EQ(*ParseLogFormat("text"), LogFormat::kText);
  EXPECT_EQ(*ParseLogFormat("json"), LogFormat::kJson);
  EXPECT_EQ(ParseLogFormat("yaml").status().code(), StatusCode::kUsage);
}

TEST(ProgressTest, DisabledWritesNothing) {
  std::ostringstream out;
  {
    Progress p(out, false);
    p.Update("x");
    p.Update("pdr_slots", 3, 10);
    p.Finish();
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressTest, EnabledOverwritesAndClears) {
  std::ostringstream out;
  {
    Progress p(out, true);
    p.Update("pdr_slots", 3, 10);
    p.Update("pdr_slots", 7, 0);
  }
  EXPECT_EQ(out.str(), "\r\x1b[Kpdr_slots: 3/10\r\x1b[Kpdr_slots: 7\r\x1b[K");
}

TEST(ProgressTest, FinishWithoutUpdateWritesNothing) {
  std::ostringstream out;
  {
    Progress p(out, true);
    p.Finish();
  }
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace predlake
