#include "ops/open.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "holder.hpp"
#include "support/fake_time.hpp"
#include "test_lake.hpp"

namespace predlake::ops {
namespace {

using testing::Holder;
using testing::TempDir;

TEST(OpenForRead, MissingLakeIsADataErrorAtOnce) {
  TempDir dir;
  auto lake = OpenForRead(dir.path() + "/nothing_here");
  ASSERT_FALSE(lake.ok());
  EXPECT_EQ(lake.status().code(), StatusCode::kData);
  EXPECT_NE(lake.status().message().find("no lake at"), std::string::npos);
}

TEST(OpenForRead, BusyLakeNamesTheWriterAfterABoundedWait) {
  TempDir dir;
  { ASSERT_NE(testing::OpenTestLake(dir.path()), nullptr); }
  Holder holder(dir.path(), 20000);
  ASSERT_GT(holder.pid(), 0);
  // The wait on an injected clock: an open that itself takes longer than the whole wait (a loaded
  // machine, the sanitizers) must not decide how often the reader waits.
  test_support::FakeTime time;
  RetryOptions retry;
  retry.max_wait_ms = 300;
  retry.clock = &time;
  retry.sleeper = &time;
  int waits = 0;
  retry.on_wait = [&](const Status& st) {
    ++waits;
    EXPECT_EQ(st.code(), StatusCode::kBusy);
  };
  auto lake = OpenForRead(dir.path(), retry);
  ASSERT_FALSE(lake.ok());
  EXPECT_EQ(lake.status().code(), StatusCode::kBusy);
  const std::string& msg = lake.status().message();
  EXPECT_NE(msg.find("pid " + std::to_string(holder.pid())), std::string::npos) << msg;
  EXPECT_NE(msg.find("`ops holder`"), std::string::npos) << msg;
  EXPECT_NE(msg.find("gave up after waiting 300ms"), std::string::npos) << msg;
  EXPECT_EQ(waits, 1);
  EXPECT_EQ(time.slept(), 300);
  EXPECT_GT(time.sleeps(), 1);
}

TEST(OpenWithRetry, WriterKeptOutByAReaderNamesTheReaderNotItself) {
  TempDir dir;
  { ASSERT_NE(testing::OpenTestLake(dir.path()), nullptr); }
  Holder reader(dir.path(), 20000, Holder::As::kReader);
  ASSERT_GT(reader.pid(), 0);
  RetryOptions retry;
  retry.max_wait_ms = 300;
  retry.poll_ms = 50;
  lake::OpenOptions options;
  options.mode = lake::Mode::kWrite;
  options.command = "etl update";
  auto lake = OpenWithRetry(dir.path(), options, retry);
  ASSERT_FALSE(lake.ok());
  EXPECT_EQ(lake.status().code(), StatusCode::kBusy);
  const std::string& msg = lake.status().message();
  EXPECT_NE(msg.find("a reader holds it (pid " + std::to_string(reader.pid()) + " (`"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("predlake_test_holder --read"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("pid " + std::to_string(::getpid())), std::string::npos) << msg;
  EXPECT_EQ(msg.find("`etl update`"), std::string::npos) << msg;
  EXPECT_NE(msg.find("gave up after waiting 300ms"), std::string::npos) << msg;
}

TEST(OpenForRead, ReaderGetsInOnceTheWriterLetsGo) {
  TempDir dir;
  { ASSERT_NE(testing::OpenTestLake(dir.path()), nullptr); }
  Holder holder(dir.path(), 400);
  ASSERT_GT(holder.pid(), 0);
  RetryOptions retry;
  retry.max_wait_ms = 15000;
  retry.poll_ms = 20;
  auto lake = OpenForRead(dir.path(), retry);
  ASSERT_TRUE(lake.ok()) << lake.status().message();
  EXPECT_EQ(holder.Wait(), 0);
}

TEST(OpenForRead, ManyReadersAtOnce) {
  TempDir dir;
  { ASSERT_NE(testing::OpenTestLake(dir.path()), nullptr); }
  auto a = OpenForRead(dir.path());
  ASSERT_TRUE(a.ok()) << a.status().message();
  auto b = OpenForRead(dir.path());
  ASSERT_TRUE(b.ok()) << b.status().message();
}

using test_support::FakeTime;

TEST(OpenWithRetry, NonBusyErrorsAreNotRetried) {
  FakeTime time;
  RetryOptions retry;
  retry.clock = &time;
  retry.sleeper = &time;
  lake::OpenOptions options;
  auto lake = OpenWithRetry("/nonexistent/predlake", options, retry);
  ASSERT_FALSE(lake.ok());
  EXPECT_EQ(time.sleeps(), 0);
}

TEST(OpenWithRetry, WriterWaitsForTheHolderWithInjectedTime) {
  TempDir dir;
  { ASSERT_NE(testing::OpenTestLake(dir.path()), nullptr); }
  Holder holder(dir.path(), 20000);
  FakeTime time;
  RetryOptions retry;
  retry.clock = &time;
  retry.sleeper = &time;
  retry.max_wait_ms = 1000;
  retry.poll_ms = 100;
  lake::OpenOptions options;
  options.mode = lake::Mode::kWrite;
  options.command = "second writer";
  auto lake = OpenWithRetry(dir.path(), options, retry);
  ASSERT_FALSE(lake.ok());
  EXPECT_EQ(lake.status().code(), StatusCode::kBusy);
  EXPECT_EQ(time.sleeps(), 10);
  EXPECT_NE(lake.status().message().find("`ops holder`"), std::string::npos);
}

}  // namespace
}  // namespace predlake::ops
