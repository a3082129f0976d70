#include "support/test_lake.hpp"

#include <gtest/gtest.h>

namespace predlake::test_support {

namespace {

std::unique_ptr<lake::Lake> Open(const std::string& dir, lake::Mode mode,
                                 const TestLakeOptions& options) {
  lake::OpenOptions open;
  open.mode = mode;
  open.command = options.command;
  open.clock = options.clock;
  open.threads = options.threads;
  auto lake = lake::Lake::Open(dir, open);
  EXPECT_TRUE(lake.ok()) << lake.status().message();
  return lake.ok() ? std::move(lake).value() : nullptr;
}

}  // namespace

std::unique_ptr<lake::Lake> OpenTestLake(const std::string& dir, const TestLakeOptions& options) {
  return Open(dir, lake::Mode::kWrite, options);
}

std::unique_ptr<lake::Lake> OpenReadTestLake(const std::string& dir) {
  return Open(dir, lake::Mode::kRead, {});
}

void Exec(lake::Lake& lake, const std::string& sql) {
  Status st = lake.conn().Execute(sql, "test sql");
  ASSERT_TRUE(st.ok()) << st.message() << "\nSQL: " << sql;
}

}  // namespace predlake::test_support
