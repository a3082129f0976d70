#include "test_lake.hpp"

#include <gtest/gtest.h>

#include "etl/etl.hpp"

namespace predlake::ops::testing {

namespace fs = std::filesystem;

void LoadFixtures(lake::Lake& lake) {
  for (std::string_view table : lake::kRawTables) {
    Exec(lake, "INSERT INTO " + std::string(table) + " BY NAME SELECT * FROM " +
                   test_support::FixtureCsvSql(table));
  }
  Exec(lake,
       "UPDATE pdr_predictions SET predvalue = NULL, stake = NULL, truevalue = NULL, payout = "
       "NULL");
  for (std::string_view table : lake::kRawTables) {
    int64_t end = table == "pdr_slots" ? kFixtureEndMs + 1 : kFixtureEndMs;
    Status st = lake.SetWatermark(table, {kFixtureStartMs, end}, 0);
    ASSERT_TRUE(st.ok()) << st.message();
  }
}

namespace {

void BuildFixtureLake(const std::string& dir, bool build) {
  auto lake = OpenTestLake(dir);
  ASSERT_NE(lake, nullptr);
  LoadFixtures(*lake);
  if (!build) return;
  auto run = lake->BeginRun("etl update");
  ASSERT_TRUE(run.ok()) << run.status().message();
  etl::UpdateOptions options;
  options.st_ms = kFixtureStartMs;
  auto report = etl::Update(*lake, *run, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
}

}  // namespace

void MakeFixtureLake(const std::string& dir, bool build) {
  std::string shared = test_support::SharedFixtureDir(
      build ? "built_lake" : "raw_lake",
      [build](const std::string& into) { BuildFixtureLake(into, build); });
  ASSERT_FALSE(shared.empty());
  fs::create_directories(dir);
  fs::copy_file(fs::path(shared) / lake::kDatabaseFile, fs::path(dir) / lake::kDatabaseFile,
                fs::copy_options::overwrite_existing);
}

}  // namespace predlake::ops::testing
