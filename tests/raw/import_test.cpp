#include "raw/import.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "duck/duck.hpp"
#include "raw/csv.hpp"
#include "raw_test_util.hpp"
#include "support/paths.hpp"

namespace predlake::raw {
namespace {

namespace fs = std::filesystem;
using rawtest::TempDir;

// Fails the calling test when the reference fixtures cannot be found.
std::string Fixtures() { return test_support::ReferenceDir(); }

const std::map<std::string, int64_t> kFixtureRows = {{"pdr_predictions", 2369},
                                                     {"pdr_payouts", 2349},
                                                     {"pdr_truevals", 260},
                                                     {"pdr_slots", 260},
                                                     {"pdr_subscriptions", 2140}};

int64_t Count(lake::Lake& lake, const std::string& sql) {
  auto v = lake.conn().QueryInt(sql, "test");
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() && *v ? **v : -1;
}

std::string Text(lake::Lake& lake, const std::string& sql) {
  auto r = lake.conn().Query(sql, "test");
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return "";
  auto rows = r->ToText();
  return rows.empty() ? "(none)" : rows[0][0].value_or("NULL");
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Replaces line `n` (1-based) of `text`.
std::string ReplaceLine(const std::string& text, int n, const std::string& line) {
  std::stringstream in(text), out;
  std::string l;
  for (int i = 1; std::getline(in, l); ++i) out << (i == n ? line : l) << "\n";
  return out.str();
}

TEST(RawImportTest, FixturesGiveTheirRowCountsAndTwiceChangesNothing) {
  TempDir dir;
  auto lake = rawtest::OpenTestLake(dir.path());
  ImportOptions o;
  o.paths = {Fixtures()};
  auto r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->from_ms, 1721952002000);
  EXPECT_EQ(r->to_ms, 1721959200001);
  ASSERT_EQ(r->tables.size(), 5u);
  for (const auto& t : r->tables) {
    EXPECT_EQ(t.counts.rows_in, kFixtureRows.at(t.table)) << t.table;
    EXPECT_EQ(t.counts.rows_out, kFixtureRows.at(t.table)) << t.table;
    EXPECT_EQ(Count(*lake, "SELECT count(*) FROM " + t.table), kFixtureRows.at(t.table));
    auto w = lake->GetWatermark(t.table);
    ASSERT_TRUE(w.ok() && w->has_value());
    EXPECT_EQ((*w)->start_ms, 1721952002000);
    EXPECT_EQ((*w)->watermark_ms, 1721959200001);
    EXPECT_FALSE(t.before.has_value());
  }
  EXPECT_EQ(Text(*lake, "SELECT status FROM predlake_runs ORDER BY run_id DESC LIMIT 1"),
            "succeeded");
  EXPECT_EQ(Count(*lake, "SELECT sum(rows_out) FROM predlake_run_tables"), 7378);

  // Values: exact decimals, booleans, predictions' later columns kept as given, slots' status
  // NULL.
  EXPECT_EQ(Text(*lake,
                 "SELECT CAST(stake AS VARCHAR) FROM pdr_predictions WHERE ID = "
                 "'0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721952300-"
                 "0x35842372c513f8f217b968adc57a9296ba573d5c'"),
            "292.091212458287000000");
  EXPECT_EQ(Text(*lake,
                 "SELECT CAST(roundSumStakes AS VARCHAR) FROM pdr_slots WHERE ID = "
                 "'0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721952300'"),
            "1844.120000000000100000");
  EXPECT_EQ(Count(*lake,
                  "SELECT count(*) FROM pdr_predictions WHERE payout IS NOT NULL AND "
                  "predvalue IS NOT NULL AND truevalue IS NOT NULL"),
            2369);
  EXPECT_EQ(Count(*lake, "SELECT count(*) FROM pdr_slots WHERE status IS NULL"), 260);
  EXPECT_EQ(Count(*lake, "SELECT count(*) FROM pdr_slots WHERE truevalue"), 149);
  EXPECT_EQ(Text(*lake,
                 "SELECT CAST(revenue AS VARCHAR) || ' ' || slot || ' ' || truevalue FROM "
                 "pdr_truevals WHERE ID = '0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721952000'"),
            "0.928046072717180200 1721952000 false");

  auto again = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().message();
  for (const auto& t : again->tables) {
    EXPECT_EQ(t.counts.rows_in, kFixtureRows.at(t.table));
    EXPECT_EQ(t.counts.rows_out, 0) << t.table;
    EXPECT_EQ(Count(*lake, "SELECT count(*) FROM " + t.table), kFixtureRows.at(t.table));
    EXPECT_EQ(t.after.start_ms, 1721952002000);
    EXPECT_EQ(t.after.watermark_ms, 1721959200001);
  }
}

// A pdr-backend lake_data/duckdb.db: its tables typed as pdr-backend's polars frames leave them
// (DOUBLE amounts, BIGINT times, BOOLEAN), read read-only through the CSV mapping.
TEST(RawImportTest, PdrBackendDuckDbGivesTheSameRowsAsTheCsvFiles) {
  TempDir dir;
  const std::string db_path = dir.Sub("lake_data") + "/duckdb.db";
  fs::create_directories(dir.Sub("lake_data"));
  {
    auto db = duck::Database::Open(db_path);
    ASSERT_TRUE(db.ok()) << db.status().message();
    auto conn = db->Connect();
    ASSERT_TRUE(conn.ok());
    for (const auto& [table, rows] : kFixtureRows) {
      ASSERT_TRUE(conn->Execute("CREATE TABLE " + table + " AS SELECT * FROM read_csv(" +
                                    duck::QuoteString(Fixtures() + "/" + table + ".csv") + ")",
                                "create")
                      .ok());
    }
    ASSERT_TRUE(conn->Execute("CREATE TABLE other_table AS SELECT 1 AS x", "create").ok());
    auto type = conn->Query(
        "SELECT data_type FROM duckdb_columns() WHERE table_name = "
        "'pdr_predictions' AND column_name = 'stake'",
        "type");
    ASSERT_TRUE(type.ok());
    EXPECT_EQ(type->ToText()[0][0].value_or(""), "DOUBLE");
    // A small amount DuckDB prints in exponent form.
    ASSERT_TRUE(conn->Execute("UPDATE pdr_payouts SET stake = 0.00001 WHERE ID = (SELECT min(ID) "
                              "FROM pdr_payouts)",
                              "update")
                    .ok());
  }
  const std::string before = ReadAll(db_path);
  auto lake = rawtest::OpenTestLake(dir.Sub("lake"));
  ImportOptions o;
  o.paths = {dir.Sub("lake_data")};
  auto r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tables.size(), 5u);
  for (const auto& t : r->tables) EXPECT_EQ(t.counts.rows_out, kFixtureRows.at(t.table));
  EXPECT_EQ(ReadAll(db_path), before);
  EXPECT_EQ(Text(*lake,
                 "SELECT CAST(stake AS VARCHAR) FROM pdr_predictions WHERE ID = "
                 "'0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721952300-"
                 "0x35842372c513f8f217b968adc57a9296ba573d5c'"),
            "292.091212458287000000");
  EXPECT_EQ(Text(*lake, "SELECT CAST(stake AS VARCHAR) FROM pdr_payouts ORDER BY ID LIMIT 1"),
            "0.000010000000000000");
  EXPECT_EQ(Count(*lake, "SELECT count(*) FROM pdr_slots WHERE truevalue"), 149);
}

TEST(RawImportTest, DeclaredWindowAndCoverageRules) {
  TempDir dir;
  auto lake = rawtest::OpenTestLake(dir.path());
  ImportOptions o;
  o.paths = {Fixtures() + "/pdr_truevals.csv"};
  o.from_ms = 1721952000000;
  o.to_ms = 1721959200000;
  auto r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tables.size(), 1u);
  EXPECT_EQ(r->tables[0].after.start_ms, 1721952000000);
  EXPECT_EQ(r->tables[0].after.watermark_ms, 1721959200000);
  EXPECT_FALSE(lake->GetWatermark("pdr_predictions")->has_value());

  // A window that touches the coverage extends it.
  o.from_ms = 1721959200000;
  o.to_ms = 1721962800000;
  r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tables[0].after.start_ms, 1721952000000);
  EXPECT_EQ(r->tables[0].after.watermark_ms, 1721962800000);
  EXPECT_EQ(r->tables[0].counts.rows_out, 0);

  // One that would leave a gap is refused and changes nothing.
  o.from_ms = 1721970000000;
  o.to_ms = 1721980000000;
  r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kData);
  EXPECT_EQ(r.status().message(),
            "pdr_truevals: the import covers [2024-07-26T05:00:00Z, 2024-07-26T07:46:40Z) but the "
            "table holds [2024-07-26T00:00:00Z, 2024-07-26T03:00:00Z); importing would leave a gap "
            "between them (declare a window that touches it with --from/--to, or fetch the gap "
            "first)");
  EXPECT_EQ((*lake->GetWatermark("pdr_truevals"))->watermark_ms, 1721962800000);
  EXPECT_EQ(Text(*lake, "SELECT status FROM predlake_runs ORDER BY run_id DESC LIMIT 1"), "failed");

  o.from_ms = 1721959200000;
  o.to_ms = 1721959200000;
  r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
}

TEST(RawImportTest, MalformedCsvImportsNothing) {
  struct Case {
    std::string file;
    int line;
    std::string replacement;
    std::string expect;
  };
  const std::string payout_row =
      "0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721952000-0xabc,ADA/USDT,0xabc,1721952000,"
      "1721952155000,285.0,";
  std::vector<Case> cases = {
      {"pdr_payouts.csv", 57, payout_row + "maybe,true,285.0",
       "pdr_payouts.csv:57: column `predvalue`: expected true or false, got 'maybe'"},
      {"pdr_payouts.csv", 1000, payout_row + "true,true",
       "pdr_payouts.csv:1000: expected 9 fields, got 8"},
      {"pdr_payouts.csv", 3, payout_row + "true,true,1.5.5",
       "pdr_payouts.csv:3: column `stake`: '1.5.5' is not a decimal number"},
      {"pdr_payouts.csv", 4, payout_row + "true,true,0.1234567890123456789",
       "pdr_payouts.csv:4: column `stake`: '0.1234567890123456789' needs 19 fractional digits; "
       "the lake keeps 18 (DECIMAL(38, 18)) and does not round amounts"},
      {"pdr_slots.csv", 200, "x-1,17219523000x,1721952300,true,1,2",
       "pdr_slots.csv:200: column `timestamp`: expected an integer, got '17219523000x'"},
      {"pdr_subscriptions.csv", 12, "a,b\"c,d,e,f,1,2,g",
       "pdr_subscriptions.csv:12: quote inside an unquoted field 2"},
      {"pdr_truevals.csv", 9, "\"x-1,ADA/USDT,1,true,1,1,1,1",
       "pdr_truevals.csv:9: unterminated quoted field (it runs to the end of the file)"},
      {"pdr_truevals.csv", 1, "ID,token,timestamp,truevalue,revenue,roundSumStakesUp,slot",
       "pdr_truevals.csv:1: missing column `roundSumStakes` for pdr_truevals"},
      {"pdr_predictions.csv", 44, ",0xc,ADA/USDT,5m,,1,,1721952002000,binance,,1721952300,0xu",
       "pdr_predictions.csv:44: empty ID"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    const std::string data = dir.Sub("lake_data");
    for (const auto& [table, rows] : kFixtureRows) {
      std::string text = ReadAll(Fixtures() + "/" + table + ".csv");
      if (table + ".csv" == c.file) text = ReplaceLine(text, c.line, c.replacement);
      Write(data + "/" + table + "/" + table + "_part1.csv", text);
    }
    auto lake = rawtest::OpenTestLake(dir.Sub("lake"));
    ImportOptions o;
    o.paths = {data};
    auto r = rawtest::RunImport(*lake, o, nullptr);
    ASSERT_FALSE(r.ok()) << c.expect;
    EXPECT_EQ(r.status().code(), StatusCode::kData);
    EXPECT_EQ(r.status().exit_status(), 3);
    const std::string& m = r.status().message();
    std::string file_only = m.substr(m.rfind('/') + 1);
    std::string want = c.expect;
    want.insert(want.find(".csv"), "_part1");
    EXPECT_EQ(file_only, want);
    EXPECT_EQ(m.find('\n'), std::string::npos);
    for (const auto& [table, rows] : kFixtureRows) {
      EXPECT_EQ(Count(*lake, "SELECT count(*) FROM " + table), 0) << table;
      EXPECT_FALSE(lake->GetWatermark(table)->has_value());
    }
    EXPECT_EQ(Text(*lake, "SELECT status || ': ' || error FROM predlake_runs"), "failed: " + m);
  }
}

TEST(RawImportTest, LayoutsAndTableDetection) {
  TempDir dir;
  const std::string preds = ReadAll(Fixtures() + "/pdr_predictions.csv");
  // pdr-backend's per-table folders with several files, and a loose <table>_*.csv file.
  std::stringstream in(preds);
  std::string header, line;
  std::getline(in, header);
  std::string a = header + "\n", b = header + "\r\n";
  for (int i = 0; std::getline(in, line); ++i)
    (i < 1000 ? a : b) += line + (i < 1000 ? "\n" : "\r\n");
  Write(dir.Sub("lake_data/pdr_predictions/pdr_predictions_from_1_to_2.csv"), a);
  Write(dir.Sub("lake_data/pdr_predictions/pdr_predictions_from_2_to_3.csv"), b);
  Write(dir.Sub("lake_data/pdr_slots_2024.csv"), ReadAll(Fixtures() + "/pdr_slots.csv"));
  Write(dir.Sub("lake_data/notes.txt"), "not a table");
  // A file whose name does not tell, recognised by its header.
  Write(dir.Sub("export/tv.csv"), "\xEF\xBB\xBF" + ReadAll(Fixtures() + "/pdr_truevals.csv"));
  auto lake = rawtest::OpenTestLake(dir.Sub("lake"));
  ImportOptions o;
  o.paths = {dir.Sub("lake_data"), dir.Sub("export/tv.csv")};
  auto r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tables.size(), 3u);
  EXPECT_EQ(r->tables[0].table, "pdr_predictions");
  EXPECT_EQ(r->tables[0].files.size(), 2u);
  EXPECT_EQ(r->tables[0].counts.rows_out, 2369);
  EXPECT_EQ(r->tables[1].table, "pdr_truevals");
  EXPECT_EQ(r->tables[1].counts.rows_out, 260);
  EXPECT_EQ(r->tables[2].table, "pdr_slots");
  EXPECT_EQ(r->tables[2].counts.rows_out, 260);

  Write(dir.Sub("odd/mystery.csv"), "a,b\n1,2\n");
  o.paths = {dir.Sub("odd/mystery.csv")};
  r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            dir.Sub("odd/mystery.csv") +
                ": cannot tell which raw table it holds; name it <table>.csv or <table>_*.csv "
                "(pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions, pdr_slots)");
  o.paths = {dir.Sub("odd")};
  r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  EXPECT_EQ(r.status().message(),
            dir.Sub("odd") +
                ": no pdr-format CSV files (expected <table>/*.csv, <table>.csv or <table>_*.csv, "
                "or a duckdb.db holding the tables, "
                "for pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions or pdr_slots)");
  o.paths = {dir.Sub("missing")};
  r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), dir.Sub("missing") + ": no such file or directory");
}

TEST(RawImportTest, RowsRepeatedAcrossFilesAreStoredOnce) {
  TempDir dir;
  const std::string payouts = ReadAll(Fixtures() + "/pdr_payouts.csv");
  Write(dir.Sub("lake_data/pdr_payouts/pdr_payouts_a.csv"), payouts);
  Write(dir.Sub("lake_data/pdr_payouts/pdr_payouts_b.csv"), payouts);
  auto lake = rawtest::OpenTestLake(dir.Sub("lake"));
  ImportOptions o;
  o.paths = {dir.Sub("lake_data")};
  auto r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tables[0].counts.rows_in, 2 * 2349);
  EXPECT_EQ(r->tables[0].counts.rows_out, 2349);
  EXPECT_EQ(Count(*lake, "SELECT count(*) FROM pdr_payouts"), 2349);
  EXPECT_EQ(Count(*lake, "SELECT count(*) FROM predlake_runs WHERE status = 'succeeded'"), 1);
}

TEST(RawImportTest, OnlyTheColumnsPdrBackendMayLackAreOptional) {
  TempDir dir;
  // Told by their headers alone (the file names name no table), without the optional columns.
  Write(dir.Sub("a.csv"),
        "ID,contract,pair,timeframe,stake,timestamp,source,slot,user\n"
        "p1,0xc,BTC/USDT,5m,1.5,1000,binance,300,0xu\n");
  Write(dir.Sub("b.csv"),
        "ID,timestamp,slot,truevalue,roundSumStakesUp,roundSumStakes\n"
        "s1,300000,300,true,1,2\n");
  auto lake = rawtest::OpenTestLake(dir.Sub("lake"));
  ImportOptions o;
  o.paths = {dir.Sub("a.csv"), dir.Sub("b.csv")};
  auto r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(*lake,
                  "SELECT count(*) FROM pdr_predictions WHERE predvalue IS NULL AND truevalue IS "
                  "NULL AND payout IS NULL AND stake = 1.5"),
            1);
  EXPECT_EQ(Count(*lake, "SELECT count(*) FROM pdr_slots WHERE status IS NULL"), 1);

  Write(dir.Sub("pdr_payouts.csv"),
        "ID,token,user,slot,timestamp,payout,truevalue,stake\n"
        "x,T,u,1,1000,2,true,1\n");
  o.paths = {dir.Sub("pdr_payouts.csv")};
  r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            dir.Sub("pdr_payouts.csv") + ":1: missing column `predvalue` for pdr_payouts");
}

TEST(RawImportTest, BooleansAndEmptyFiles) {
  TempDir dir;
  Write(dir.Sub("pdr_payouts.csv"),
        "stake,ID,token,user,slot,timestamp,payout,predvalue,truevalue,extra\n"
        "1,a,T,u,1,1000,2,True,FALSE,x\n"
        "1,b,T,u,1,2000,2,1,0,x\n"
        "1,c,T,u,1,3000,2,,,x\n");
  Write(dir.Sub("pdr_truevals.csv"),
        "ID,token,timestamp,truevalue,slot,revenue,roundSumStakesUp,roundSumStakes\n");
  auto lake = rawtest::OpenTestLake(dir.Sub("lake"));
  ImportOptions o;
  o.paths = {dir.Sub("pdr_payouts.csv"), dir.Sub("pdr_truevals.csv")};
  auto r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Text(*lake,
                 "SELECT string_agg(coalesce(CAST(predvalue AS VARCHAR), 'null') || '/' || "
                 "coalesce(CAST(truevalue AS VARCHAR), "
                 "'null'), ' ' ORDER BY ID) FROM pdr_payouts"),
            "true/false true/false null/null");
  // The empty truevals file still covers the window.
  EXPECT_EQ((*lake->GetWatermark("pdr_truevals"))->watermark_ms, 3001);

  Write(dir.Sub("empty/pdr_slots.csv"), "");
  o.paths = {dir.Sub("empty")};
  r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("pdr_slots.csv:1: empty file"), std::string::npos);
}

TEST(CsvReaderTest, QuotesLineEndsAndLineNumbers) {
  TempDir dir;
  Write(dir.Sub("a.csv"), "h1,h2\r\n\"x,1\",\"say \"\"hi\"\"\"\n\"multi\nline\",2\r\n,\nlast,3");
  auto reader = CsvReader::Open(dir.Sub("a.csv"));
  ASSERT_TRUE(reader.ok());
  std::vector<std::string> f;
  Status err;
  std::vector<std::pair<int64_t, std::vector<std::string>>> got;
  while ((*reader)->Next(f, err)) got.push_back({(*reader)->line(), f});
  ASSERT_TRUE(err.ok()) << err.message();
  using V = std::vector<std::string>;
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0], std::make_pair(int64_t{1}, V{"h1", "h2"}));
  EXPECT_EQ(got[1], std::make_pair(int64_t{2}, V{"x,1", "say \"hi\""}));
  EXPECT_EQ(got[2], std::make_pair(int64_t{3}, V{"multi\nline", "2"}));
  EXPECT_EQ(got[3], std::make_pair(int64_t{5}, V{"", ""}));
  EXPECT_EQ(got[4], std::make_pair(int64_t{6}, V{"last", "3"}));

  Write(dir.Sub("b.csv"), "a,\"b\"c\n");
  reader = CsvReader::Open(dir.Sub("b.csv"));
  ASSERT_TRUE(reader.ok());
  EXPECT_FALSE((*reader)->Next(f, err));
  EXPECT_EQ(err.message(),
            dir.Sub("b.csv") + ":1: unexpected character after a closing quote in field 2");
  EXPECT_FALSE(CsvReader::Open(dir.Sub("none.csv")).ok());
}

}  // namespace
}  // namespace predlake::raw
