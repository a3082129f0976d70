// The ETL's SQL spells its staging tables' names; lake::kEtlStagingPrefix is what the rest of
// predlake (ops' table kinds, validate's orphan check) recognises them by. These tests keep the two
// in agreement.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "etl/embedded_sql.hpp"
#include "lake/tables.hpp"

namespace predlake::etl {
namespace {

// The tables the ETL's SQL creates or renames away (CREATE ... TABLE x, ALTER TABLE x RENAME).
std::set<std::string> CreatedTables() {
  static const std::regex kCreate(
      R"((?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\s+|TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?|ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?)([A-Za-z_][A-Za-z0-9_]*))",
      std::regex::icase);
  std::set<std::string> names;
  for (const auto& [stem, sql] : EmbeddedSql()) {
    const std::string text(sql);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kCreate);
         it != std::sregex_iterator(); ++it) {
      names.insert((*it)[1].str());
    }
  }
  return names;
}

TEST(StagingNamesTest, EveryTableTheEtlCreatesCarriesTheStagingPrefix) {
  const std::set<std::string> created = CreatedTables();
  ASSERT_FALSE(created.empty());
  for (const std::string& name : created) {
    EXPECT_TRUE(name.starts_with(lake::kEtlStagingPrefix)) << name;
  }
}

TEST(StagingNamesTest, EveryStagingNameInTheSqlIsOneItCreates) {
  // A name with the prefix that no step creates would be a typo, or a second spelling.
  const std::set<std::string> created = CreatedTables();
  const std::regex kName(std::string(lake::kEtlStagingPrefix) + "[A-Za-z0-9_]+");
  for (const auto& [stem, sql] : EmbeddedSql()) {
    const std::string text(sql);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kName);
         it != std::sregex_iterator(); ++it) {
      EXPECT_TRUE(created.count(it->str()) > 0) << stem << ": " << it->str();
    }
  }
}

TEST(StagingNamesTest, TheCleanupLooksForThePrefix) {
  // orphans.sql finds the tables to drop with LIKE, where '_' must be escaped.
  std::string pattern;
  for (char c : lake::kEtlStagingPrefix) {
    if (c == '_') pattern += '\\';
    pattern += c;
  }
  pattern = "LIKE '" + pattern + "%' ESCAPE";
  bool found = false;
  for (const auto& [stem, sql] : EmbeddedSql()) {
    if (stem == "orphans") found = sql.find(pattern) != std::string_view::npos;
  }
  EXPECT_TRUE(found) << pattern;
}

}  // namespace
}  // namespace predlake::etl
