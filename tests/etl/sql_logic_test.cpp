// A sqllogictest-style runner for tests/sql/*.test: each file runs against a fresh lake and is a
// sequence of records separated by blank lines:
//
//   # a comment
//   statement ok                      the SQL (until a blank line) must succeed
//   statement error <text>            the SQL must fail with a message containing <text>
//   query                             the SQL's rows, as text (NULL for null), columns separated
//   SELECT ...                        by a tab, must equal the rows after `----`, in order
//   ----
//   a<TAB>b
//   watermarks <start> <watermark>    sets the watermark of every raw table
//   etl update [<to>]                 ETL runs (times in unix ms); each must succeed unless
//   etl rebuild [<to>]                followed by `error <text>` on the same line
//   etl drop <from>
//   raw drop <from>
//   waiting                           Waiting()'s rows (table, events, oldest) after `----`
//
// The lake's clock is fixed; the first ETL run starts at the raw tables' start.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "etl_test_util.hpp"
#include "support/paths.hpp"

namespace predlake::etl::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> TestFiles() {
  std::vector<std::string> files;
  fs::path dir = fs::path(test_support::SourceDir()) / "tests" / "sql";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(text);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

class SqlLogic : public ::testing::TestWithParam<std::string> {
 protected:
  // One record: its header line, its body lines, and the line number of the header.
  struct Record {
    int line = 0;
    std::string header;
    std::vector<std::string> body;
  };

  std::vector<Record> Parse(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in) << "cannot read " << path;
    std::vector<Record> records;
    std::string line;
    int n = 0;
    Record cur;
    auto flush = [&] {
      if (!cur.header.empty()) records.push_back(cur);
      cur = Record{};
    };
    while (std::getline(in, line)) {
      ++n;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (Trim(line).empty()) {
        flush();
        continue;
      }
      if (cur.header.empty()) {
        if (line[0] == '#') continue;
        cur.header = Trim(line);
        cur.line = n;
      } else {
        cur.body.push_back(line);
      }
    }
    flush();
    return records;
  }

  std::string Where(const Record& r) { return GetParam() + ":" + std::to_string(r.line); }

  void RunStatement(const Record& r) {
    std::string sql;
    for (const auto& l : r.body) sql += l + "\n";
    Status st = lake_->conn().Execute(sql, "statement");
    if (r.header == "statement ok") {
      EXPECT_TRUE(st.ok()) << Where(r) << ": " << st.message();
      return;
    }
    std::string expected = Trim(r.header.substr(std::string("statement error").size()));
    EXPECT_FALSE(st.ok()) << Where(r) << ": expected an error";
    EXPECT_NE(st.message().find(expected), std::string::npos)
        << Where(r) << ": error '" << st.message() << "' lacks '" << expected << "'";
  }

  void RunQuery(const Record& r) {
    std::string sql;
    std::vector<std::string> expected;
    bool rows = false;
    for (const auto& l : r.body) {
      if (l == "----") {
        rows = true;
      } else if (rows) {
        expected.push_back(l);
      } else {
        sql += l + "\n";
      }
    }
    auto result = lake_->conn().Query(sql, "query");
    ASSERT_TRUE(result.ok()) << Where(r) << ": " << result.status().message();
    std::vector<std::string> actual;
    for (const auto& row : result->ToText()) {
      std::string line;
      for (size_t c = 0; c < row.size(); ++c) {
        line += (c ? "\t" : "") + (row[c] ? *row[c] : std::string("NULL"));
      }
      actual.push_back(line);
    }
    std::string want, got;
    for (const auto& l : expected) want += l + "\n";
    for (const auto& l : actual) got += l + "\n";
    EXPECT_EQ(got, want) << Where(r) << ": query\n" << sql;
  }

  // `waiting`: Waiting()'s entries as rows (table, events, oldest) after `----`.
  void RunWaiting(const Record& r) {
    auto waiting = Waiting(*lake_);
    ASSERT_TRUE(waiting.ok()) << Where(r) << ": " << waiting.status().message();
    std::string got, want;
    for (const WaitingEvents& w : *waiting) {
      got += w.table + "\t" + std::to_string(w.events) + "\t" +
             (w.oldest_ms ? std::to_string(*w.oldest_ms) : "NULL") + "\n";
    }
    bool rows = false;
    for (const auto& l : r.body) {
      if (rows) want += l + "\n";
      if (l == "----") rows = true;
    }
    EXPECT_EQ(got, want) << Where(r);
  }

  void RunCommand(const Record& r, const std::string& line) {
    std::vector<std::string> words = Split(line, ' ');
    std::string error;
    auto at = std::find(words.begin(), words.end(), "error");
    if (at != words.end()) {
      for (auto it = at + 1; it != words.end(); ++it) error += (error.empty() ? "" : " ") + *it;
      words.erase(at, words.end());
    }
    auto arg = [&](size_t i) -> std::optional<int64_t> {
      if (words.size() <= i) return std::nullopt;
      return std::stoll(words[i]);
    };
    Result<RunReport> result = Status::Internal("unknown command");
    UpdateOptions options;
    options.faults = {};
    if (words[0] == "watermarks") {
      for (std::string_view t : lake::kRawTables) {
        Status st = lake_->SetWatermark(t, {*arg(1), *arg(2)}, 0);
        ASSERT_TRUE(st.ok()) << Where(r) << ": " << st.message();
      }
      return;
    }
    std::string cmd = words[0] + " " + (words.size() > 1 ? words[1] : "");
    if (cmd == "etl update") {
      options.to_ms = arg(2);
      result = Update(*lake_, options);
    } else if (cmd == "etl rebuild") {
      options.to_ms = arg(2);
      result = Rebuild(*lake_, options);
    } else if (cmd == "etl drop") {
      result = Drop(*lake_, *arg(2), options);
    } else if (cmd == "raw drop") {
      result = RawDrop(*lake_, *arg(2), options);
    } else {
      FAIL() << Where(r) << ": unknown record '" << line << "'";
    }
    if (error.empty()) {
      EXPECT_TRUE(result.ok()) << Where(r) << ": " << result.status().message();
    } else {
      ASSERT_FALSE(result.ok()) << Where(r) << ": expected an error";
      EXPECT_NE(result.status().message().find(error), std::string::npos)
          << Where(r) << ": error '" << result.status().message() << "' lacks '" << error << "'";
    }
  }

  TempLake dir_{"sql"};
  std::unique_ptr<lake::Lake> lake_;
};

TEST_P(SqlLogic, File) {
  lake_ = dir_.Open();
  ASSERT_TRUE(lake_);
  std::string path = test_support::SourceDir() + "/tests/sql/" + GetParam();
  std::vector<Record> records = Parse(path);
  ASSERT_FALSE(records.empty()) << path;
  for (const Record& r : records) {
    if (r.header.rfind("statement", 0) == 0) {
      RunStatement(r);
    } else if (r.header == "query" || r.header.rfind("query ", 0) == 0) {
      RunQuery(r);
    } else if (r.header == "waiting") {
      RunWaiting(r);
    } else {
      // Command lines may follow each other without blank lines.
      RunCommand(r, r.header);
      for (const std::string& line : r.body) {
        if (!HasFatalFailure() && line[0] != '#') RunCommand(r, Trim(line));
      }
    }
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Files, SqlLogic, ::testing::ValuesIn(TestFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.find('.'));
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(SqlLogicFiles, Exist) { EXPECT_GE(TestFiles().size(), 4u); }

}  // namespace
}  // namespace predlake::etl::testing
