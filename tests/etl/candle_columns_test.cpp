// The exchange columns of bronze_pdr_slots (docs/ohlcv.md, "Built columns"): all four stay NULL
// unless both candles of the slot (opening at s - 2E and s - E) are stored, the stored one's close
// included; the docs' column table says so, once.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "etl_test_util.hpp"
#include "support/paths.hpp"

namespace predlake::etl::testing {
namespace {

TEST(CandleColumns, AllFourAreNullUnlessBothCandlesAreStored) {
  TempLake dir("candle_columns");
  std::unique_ptr<lake::Lake> lake = dir.Open();
  ASSERT_TRUE(lake);
  SimWorld world = LoadSimSources(*lake, dir.dir(), 3);
  FeedAll(*lake, world.begin_ms, world.end_ms);
  // One 5m feed; slot S at noon of the world's first day. Without the candle opening at S - 600
  // (S's first, S - 300's second), slots S - 300 and S have one candle each, S + 300 both.
  const int64_t s = world.begin_ms / 1000 + 12 * 3600;
  Exec(*lake,
       "CREATE TEMP TABLE test_feed AS SELECT pair, source FROM pdr_contracts "
       "WHERE timeframe = '5m' ORDER BY pair LIMIT 1");
  const std::string feed =
      "(pair, timeframe, source) IN (SELECT pair, '5m', source FROM test_feed)";
  const std::string candle =
      "(pair, timeframe, exchange) IN (SELECT pair, '5m', source FROM test_feed)";
  ASSERT_EQ(QueryInt(*lake, "SELECT count(*) FROM pdr_ohlcv WHERE " + candle +
                                " AND timestamp = " + std::to_string((s - 600) * 1000)),
            1);
  Exec(*lake, "DELETE FROM pdr_ohlcv WHERE " + candle +
                  " AND timestamp = " + std::to_string((s - 600) * 1000));
  UpdateOptions options;
  options.ohlcv = true;
  auto report = Update(*lake, options);
  ASSERT_TRUE(report.ok()) << report.status().message();

  auto slots = [&](const std::string& where) {
    return QueryInt(*lake, "SELECT count(*) FROM bronze_pdr_slots WHERE " + feed + " AND " + where);
  };
  const std::string before = std::to_string(s - 300), at = std::to_string(s),
                    after = std::to_string(s + 300);
  ASSERT_EQ(slots("slot IN (" + before + ", " + at + ", " + after + ") AND truevalue IS NOT NULL"),
            3);
  // The slots with a candle missing: every exchange column NULL, also the close of the candle
  // that is stored (S - 300 for S, S - 900 for S - 300).
  EXPECT_EQ(slots("slot IN (" + before + ", " + at +
                  ") AND exchange_init_close IS NULL AND exchange_end_close IS NULL AND "
                  "exchange_move IS NULL AND trueval_agrees IS NULL"),
            2);
  EXPECT_EQ(QueryInt(*lake, "SELECT count(*) FROM pdr_ohlcv WHERE " + candle +
                                " AND timestamp IN (" + std::to_string((s - 900) * 1000) + ", " +
                                std::to_string((s - 300) * 1000) + ")"),
            2);
  // Both candles stored: every column set.
  EXPECT_EQ(slots("slot = " + after +
                  " AND exchange_init_close IS NOT NULL AND exchange_end_close IS NOT NULL AND "
                  "exchange_move IS NOT NULL AND trueval_agrees IS NOT NULL"),
            1);
}

// The docs' column table states the rule in one place: its introduction, not a row.
TEST(CandleColumns, TheDocsTableSaysSo) {
  std::ifstream in(test_support::SourceDir() + "/docs/ohlcv.md");
  ASSERT_TRUE(in) << "cannot read docs/ohlcv.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t begin = doc.find("## Built columns");
  ASSERT_NE(begin, std::string::npos);
  const std::string section = doc.substr(begin, doc.find("\n## ", begin + 1) - begin);
  const std::string rule = "all four are NULL unless both candles of the slot are stored";
  const size_t table = section.find("| column | value |");
  const size_t said = section.find(rule);
  ASSERT_NE(said, std::string::npos) << section;
  EXPECT_LT(said, table);
  EXPECT_EQ(section.find(rule, said + 1), std::string::npos);
  for (const char* column :
       {"exchange_init_close", "exchange_end_close", "exchange_move", "trueval_agrees"}) {
    EXPECT_NE(section.find(std::string("| `") + column + "` |"), std::string::npos) << column;
  }
  EXPECT_EQ(section.find("candles are unknown"), std::string::npos)
      << "a row repeats the rule in other words";
}

}  // namespace
}  // namespace predlake::etl::testing
