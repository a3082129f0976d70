#include "common/table_format.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace predlake {
namespace {

using ::testing::HasSubstr;

ResultSet Sample() {
  ResultSet rs;
  rs.columns = {"name", "amount", "note"};
  rs.numeric = {false, true, false};
  rs.rows = {
      {std::string("alice"), std::string("12.500"), std::string("plain")},
      {std::string("bob"), std::nullopt, std::string("has, comma")},
      {std::string("carol \"c\""), std::string("-3"), std::string("")},
      {std::string("dave"), std::string("7"), std::string("line1\nline2")},
  };
  return rs;
}

template <typename Fn>
std::string Capture(Fn fn) {
  std::ostringstream out;
  fn(out);
  return out.str();
}

TEST(OutputFormatTest, Parse) {
  EXPECT_EQ(*ParseOutputFormat("table"), OutputFormat::kTable);
  EXPECT_EQ(*ParseOutputFormat("csv"), OutputFormat::kCsv);
  EXPECT_EQ(*ParseOutputFormat("json"), OutputFormat::kJson);
  Result<OutputFormat> bad = ParseOutputFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kUsage);
  EXPECT_THAT(bad.status().message(), HasSubstr("'xml'"));
}

TEST(CsvTest, Rfc4180QuotingAndNull) {
  std::string csv = Capture([](std::ostream& o) { WriteCsv(o, Sample()); });
  EXPECT_EQ(csv,
            "name,amount,note\n"
            "alice,12.500,plain\n"
            "bob,,\"has, comma\"\n"
            "\"carol \"\"c\"\"\",-3,\"\"\n"
            "dave,7,\"line1\nline2\"\n");
}

TEST(CsvTest, HeaderOnlyWhenEmpty) {
  ResultSet rs;
  rs.columns = {"a", "b c", "d,e"};
  EXPECT_EQ(Capture([&](std::ostream& o) { WriteCsv(o, rs); }), "a,b c,\"d,e\"\n");
}

TEST(CsvTest, LeadingAndTrailingSpacesAreQuoted) {
  ResultSet rs;
  rs.columns = {"a"};
  rs.rows = {{std::string(" x")}, {std::string("y ")}};
  EXPECT_EQ(Capture([&](std::ostream& o) { WriteCsv(o, rs); }), "a\n\" x\"\n\"y \"\n");
}

TEST(JsonTest, TypedValuesAndEscaping) {
  std::string text = Capture([](std::ostream& o) { WriteJson(o, Sample()); });
  nlohmann::json j = nlohmann::json::parse(text);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[0]["name"], "alice");
  EXPECT_TRUE(j[0]["amount"].is_number());
  EXPECT_DOUBLE_EQ(j[0]["amount"].get<double>(), 12.5);
  EXPECT_TRUE(j[1]["amount"].is_null());
  EXPECT_EQ(j[2]["name"], "carol \"c\"");
  EXPECT_EQ(j[2]["amount"], -3);
  EXPECT_EQ(j[2]["note"], "");
  EXPECT_EQ(j[3]["note"], "line1\nline2");
  // Exact decimal text is kept, not rounded through a double.
  EXPECT_THAT(text, HasSubstr("\"amount\": 12.500"));
}

TEST(JsonTest, NonNumbersInNumericColumnsBecomeStrings) {
  ResultSet rs;
  rs.columns = {"x"};
  rs.numeric = {true};
  rs.rows = {{std::string("inf")}, {std::string("nan")},
             {std::string("007")}, {std::string("1.")},
             {std::string("1e5")}, {std::string("123456789012345678901234567890")}};
  nlohmann::json j = nlohmann::json::parse(Capture([&](std::ostream& o) { WriteJson(o, rs); }));
  EXPECT_EQ(j[0]["x"], "inf");
  EXPECT_EQ(j[1]["x"], "nan");
  EXPECT_EQ(j[2]["x"], "007");
  EXPECT_EQ(j[3]["x"], "1.");
  EXPECT_TRUE(j[4]["x"].is_number());
  EXPECT_TRUE(j[5]["x"].is_number());
}

TEST(JsonTest, EmptyAndInvalidUtf8) {
  ResultSet rs;
  rs.columns = {"x"};
  EXPECT_EQ(Capture([&](std::ostream& o) { WriteJson(o, rs); }), "[]\n");
  rs.rows = {{std::string("bad\xff")}};
  nlohmann::json j = nlohmann::json::parse(Capture([&](std::ostream& o) { WriteJson(o, rs); }));
  EXPECT_EQ(j[0]["x"], "bad\xEF\xBF\xBD");
}

TEST(TableTest, AlignedWithNull) {
  std::string t = Capture([](std::ostream& o) { WriteTable(o, Sample(), 0); });
  EXPECT_EQ(t,
            "name       amount  note\n"
            "---------  ------  ------------\n"
            "alice      12.500  plain\n"
            "bob          NULL  has, comma\n"
            "carol \"c\"      -3\n"
            "dave            7  line1\\nline2\n");
}

TEST(TableTest, TruncatesToWidthWithEllipsis) {
  ResultSet rs;
  rs.columns = {"id", "text"};
  rs.numeric = {true, false};
  rs.rows = {{std::string("1"), std::string(100, 'x')}, {std::string("22"), std::string("short")}};
  std::string t = Capture([&](std::ostream& o) { WriteTable(o, rs, 30); });
  std::istringstream lines(t);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    size_t cps = 0;
    for (char c : line) cps += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    EXPECT_LE(cps, 30u) << line;
  }
  EXPECT_EQ(n, 4);
  EXPECT_THAT(t, HasSubstr("xxx…"));
  EXPECT_THAT(t, HasSubstr("22  short"));
}

TEST(TableTest, CountsUtf8CodePoints) {
  ResultSet rs;
  rs.columns = {"a", "b"};
  rs.rows = {{std::string("ééé"), std::string("x")}, {std::string("e"), std::string("y")}};
  EXPECT_EQ(Capture([&](std::ostream& o) { WriteTable(o, rs, 0); }),
            "a    b\n---  -\nééé  x\ne    y\n");
}

TEST(TableTest, EscapesControlCharacters) {
  ResultSet rs;
  rs.columns = {"a"};
  rs.rows = {
      {std::string("x\ty\r\x1b[31mred\x7f\xc2\x85"
                   "end")}};
  EXPECT_EQ(Capture([&](std::ostream& o) { WriteTable(o, rs, 0); }),
            "a\n------------------------------\nx\\ty\\r\\x1b[31mred\\x7f\\u0085end\n");
}

TEST(TableTest, ShrinksFreeTextFirstAndNeverCutsNamesOrTimes) {
  ResultSet rs;
  rs.columns = {"table_name", "at", "id", "note"};
  rs.kinds = {ColumnKind::kText, ColumnKind::kText, ColumnKind::kText, ColumnKind::kText};
  rs.rows = {
      {std::string("bronze_pdr_predictions"), std::string("2024-07-26 00:05:00"),
       std::string("0xabc-1721952000-0xdef0123456789"),
       std::string("a long note that says a lot of things about nothing")},
      {std::string("pdr_slots"), std::nullopt, std::string("0x1-2-0x3"), std::string("short")}};
  // The note gives way first, down to 4 columns.
  std::string t = Capture([&](std::ostream& o) { WriteTable(o, rs, 86); });
  EXPECT_THAT(
      t,
      HasSubstr("bronze_pdr_predictions  2024-07-26 00:05:00  0xabc-1721952000-0xdef0123456789"));
  EXPECT_THAT(t, HasSubstr("  a long…\n"));
  // Then the ids; the name and the time stay whole even when the line cannot fit.
  t = Capture([&](std::ostream& o) { WriteTable(o, rs, 40); });
  EXPECT_THAT(t, HasSubstr("bronze_pdr_predictions  2024-07-26 00:05:00  0xa…  a l…"));
}

TEST(JsonTest, BooleansAreBooleansAndDecimalsStrings) {
  ResultSet rs;
  rs.columns = {"b", "d", "n", "f", "t"};
  rs.kinds = {ColumnKind::kBoolean, ColumnKind::kDecimal, ColumnKind::kNumber, ColumnKind::kNumber,
              ColumnKind::kTime};
  rs.rows = {
      {std::string("true"), std::string("285.000000000000000001"), std::string("12"),
       std::string("inf"), std::string("2024-07-26 00:00:00")},
      {std::string("false"), std::nullopt, std::string("-3"), std::string("0.5"), std::nullopt}};
  EXPECT_EQ(
      Capture([&](std::ostream& o) { WriteJson(o, rs); }),
      "[\n  {\"b\": true, \"d\": \"285.000000000000000001\", \"n\": 12, \"f\": \"inf\", \"t\": "
      "\"2024-07-26 00:00:00\"},\n  {\"b\": false, \"d\": null, \"n\": -3, \"f\": 0.5, \"t\": "
      "null}\n]\n");
}

TEST(RowWriterTest, StreamsCsvAndCapsTables) {
  ResultSet header;
  header.columns = {"i"};
  header.kinds = {ColumnKind::kNumber};
  std::ostringstream csv;
  auto writer = MakeRowWriter(csv, OutputFormat::kCsv, 0);
  writer->Begin(header);
  writer->Add({std::string("1")});
  EXPECT_EQ(csv.str(), "i\n1\n");  // written at once, before End
  writer->End();
  std::ostringstream table;
  writer = MakeRowWriter(table, OutputFormat::kTable, 0, 2);
  writer->Begin(header);
  for (int i = 0; i < 5; ++i) writer->Add({std::to_string(i)});
  writer->End();
  EXPECT_EQ(table.str(),
            "i\n-\n0\n1\n(3 more rows not shown: a table shows the first 2; --format csv or json "
            "prints every row)\n");
}

TEST(WriteResultSetTest, Dispatches) {
  ResultSet rs = Sample();
  EXPECT_EQ(Capture([&](std::ostream& o) { WriteResultSet(o, rs, OutputFormat::kCsv, 0); }),
            Capture([&](std::ostream& o) { WriteCsv(o, rs); }));
  EXPECT_EQ(Capture([&](std::ostream& o) { WriteResultSet(o, rs, OutputFormat::kJson, 0); }),
            Capture([&](std::ostream& o) { WriteJson(o, rs); }));
  EXPECT_EQ(Capture([&](std::ostream& o) { WriteResultSet(o, rs, OutputFormat::kTable, 0); }),
            Capture([&](std::ostream& o) { WriteTable(o, rs, 0); }));
}

}  // namespace
}  // namespace predlake
