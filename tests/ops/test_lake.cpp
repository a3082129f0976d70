#include "test_lake.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>

#include "etl/etl.hpp"

namespace predlake::ops::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = (fs::temp_directory_path() /
           ("predlake_ops_" + std::to_string(getpid()) + "_" + std::to_string(counter++)))
              .string();
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::unique_ptr<lake::Lake> OpenWriter(const std::string& dir) {
  lake::OpenOptions options;
  options.mode = lake::Mode::kWrite;
  options.command = "ops test";
  options.threads = 1;
  auto lake = lake::Lake::Open(dir, options);
  EXPECT_TRUE(lake.ok()) << lake.status().message();
  return lake.ok() ? std::move(lake).value() : nullptr;
}

void Exec(lake::Lake& lake, const std::string& sql) {
  Status st = lake.conn().Execute(sql, "test sql");
  ASSERT_TRUE(st.ok()) << st.message();
}

void LoadFixtures(lake::Lake& lake) {
  const std::string dir = PREDLAKE_REFERENCE_DIR;
  for (std::string_view table : lake::kRawTables) {
    std::string file = dir + "/" + std::string(table) + ".csv";
    Exec(lake, "INSERT INTO " + std::string(table) + " BY NAME SELECT * FROM read_csv('" + file +
                   "', header = true, all_varchar = true)");
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

void MakeFixtureLake(const std::string& dir, bool build) {
  auto lake = OpenWriter(dir);
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

}  // namespace predlake::ops::testing
