#include "support/test_lake.hpp"

#include <gtest/gtest.h>

namespace predlake::test_support {

std::unique_ptr<lake::Lake> OpenTestLake(const std::string& dir, const TestLakeOptions& options) {
  lake::OpenOptions open;
  open.mode = lake::Mode::kWrite;
  open.command = options.command;
  open.clock = options.clock;
  open.threads = options.threads;
  auto lake = lake::Lake::Open(dir, open);
  EXPECT_TRUE(lake.ok()) << lake.status().message();
  return lake.ok() ? std::move(lake).value() : nullptr;
}

std::unique_ptr<lake::Lake> OpenReadTestLake(const std::string& dir) {
  lake::OpenOptions open;
  open.mode = lake::Mode::kRead;
  open.command = "test";
  open.threads = 1;
  auto lake = lake::Lake::Open(dir, open);
  EXPECT_TRUE(lake.ok()) << lake.status().message();
  return lake.ok() ? std::move(lake).value() : nullptr;
}

void Exec(lake::Lake& lake, const std::string& sql) {
  Status st = lake.conn().Execute(sql, "test sql");
  ASSERT_TRUE(st.ok()) << st.message() << "\nSQL: " << sql;
}

}  // namespace predlake::test_support
