// Every command that writes the lake records exactly one run in the ledger, named as the command
// table says (CommandSpec::writer_run), through the binary's own command table and in-process runs
// on a lake of the simulated network.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/cli.hpp"
#include "common/time.hpp"

namespace predlake::cli {
namespace {

// What a writing command needs besides its words, for the ones that need something. A writer
// added to the table without its arguments here fails below with its error.
const std::map<std::string, std::vector<std::string>>& ExtraArgs() {
  static const std::map<std::string, std::vector<std::string>> extra = {
      {"raw drop", {"--from", "2024-07-26_01:30"}},
      {"etl drop", {"--from", "2024-07-26_01:30"}},
      {"raw import", {"pdr_slots.csv", "--from", "2024-07-26", "--to", "2024-07-26_01:00"}},
  };
  return extra;
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

class WritersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("predlake_writers_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    old_cwd_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_);
    // Each command's own run: the export that follows a publish by default is off here (see
    // PublishesAreFollowedByAnExportByDefault).
    WriteConfig("  export_after_publish: false\n");
  }
  static void WriteConfig(const std::string& extra) {
    std::ofstream("ppss.yaml") << "lake_ss:\n  lake_dir: lake\n  st_timestr: 2024-07-26\n"
                               << extra
                               << "sim_ss:\n  now: 2024-07-26_02:00\n  start: 2024-07-25\n";
  }
  void TearDown() override {
    std::filesystem::current_path(old_cwd_);
    std::filesystem::remove_all(dir_);
  }

  int Exec(std::vector<std::string> args, std::string* out = nullptr) {
    std::ostringstream o, e;
    Io io;
    io.out = &o;
    io.err = &e;
    io.clock = &clock_;
    args.insert(args.begin(), {"-q", "-c", "ppss.yaml"});
    const int rc = cli::Run(args, io);
    last_err_ = e.str();
    if (out != nullptr) *out = o.str();
    return rc;
  }

  // The ledger's rows as "command:status", oldest first; empty without a lake.
  std::vector<std::string> Runs() {
    if (!std::filesystem::exists("lake")) return {};
    std::string out;
    EXPECT_EQ(Exec({"query", "SELECT command || ':' || status FROM predlake_runs ORDER BY run_id",
                    "--format", "csv"},
                   &out),
              0)
        << last_err_;
    std::vector<std::string> rows;
    std::istringstream in(out);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) rows.push_back(line);
    return rows;
  }

  std::filesystem::path dir_;
  std::filesystem::path old_cwd_;
  FixedClock clock_{1'800'000'000'000};
  std::string last_err_;
};

TEST_F(WritersTest, EveryWritingCommandRecordsExactlyOneRun) {
  // raw import's files: the simulated network's slots.
  std::string slots;
  ASSERT_EQ(Exec({"sim", "dump", "pdr_slots", "--from", "2024-07-26", "--to", "2024-07-26_01:00"},
                 &slots),
            0)
      << last_err_;
  std::ofstream("pdr_slots.csv") << slots;

  int writers = 0;
  for (const CommandSpec& spec : AllCommands()) {
    if (spec.writer_run.empty()) continue;
    ++writers;
    SCOPED_TRACE(spec.writer_run);
    // What a user types to make it write starts with the command's path.
    EXPECT_EQ(spec.writer_run.rfind(spec.path, 0), 0u);
    std::vector<std::string> args = Words(spec.writer_run);
    auto extra = ExtraArgs().find(spec.path);
    if (extra != ExtraArgs().end())
      args.insert(args.end(), extra->second.begin(), extra->second.end());
    const std::vector<std::string> before = Runs();
    ASSERT_EQ(Exec(args), 0) << last_err_;
    const std::vector<std::string> after = Runs();
    ASSERT_EQ(after.size(), before.size() + 1);
    EXPECT_EQ(after.back(), spec.writer_run + ":succeeded");
  }
  // update, raw update, raw drop, raw import, etl update, etl drop, etl rebuild, validate
  // --incremental, export: the table marks them all.
  EXPECT_EQ(writers, 9);
}

// By default a publishing run is followed by an export run (lake_ss.export_after_publish), and so
// is it with pdr-backend's key; validate --incremental and export itself are not.
TEST_F(WritersTest, PublishesAreFollowedByAnExportByDefault) {
  WriteConfig("");
  ASSERT_EQ(Exec({"update"}), 0) << last_err_;
  EXPECT_EQ(Runs(), (std::vector<std::string>{"update:succeeded", "export:succeeded"}));
  ASSERT_EQ(Exec({"validate", "--incremental"}), 0) << last_err_;
  ASSERT_EQ(Exec({"export"}), 0) << last_err_;
  EXPECT_EQ(Runs().size(), 4u);
  EXPECT_TRUE(std::filesystem::exists("lake/exports/current"));
  WriteConfig("  export_db_data_to_parquet_files: False\n");
  ASSERT_EQ(Exec({"etl", "update"}), 0) << last_err_;
  EXPECT_EQ(Runs().back(), "etl update:succeeded");
  WriteConfig("  export_db_data_to_parquet_files: True\n");
  ASSERT_EQ(Exec({"etl", "update"}), 0) << last_err_;
  EXPECT_EQ(Runs().back(), "export:succeeded");
}

// A command that writes only with a flag records nothing without it; a failing writer records
// its one run as failed.
TEST_F(WritersTest, ReadersRecordNothingAndFailuresOneRun) {
  ASSERT_EQ(Exec({"update"}), 0) << last_err_;
  const std::vector<std::string> before = Runs();
  ASSERT_EQ(before.size(), 1u);
  ASSERT_EQ(Exec({"validate"}), 0) << last_err_;
  ASSERT_EQ(Exec({"describe"}), 0) << last_err_;
  ASSERT_EQ(Exec({"runs"}), 0) << last_err_;
  EXPECT_EQ(Runs(), before);
  // A job that fails inside its run (an injected failure at an ETL step).
  ::setenv("PREDLAKE_FAIL_AT", "publish_bronze_rebuild", 1);
  const int rc = Exec({"etl", "rebuild"});
  ::unsetenv("PREDLAKE_FAIL_AT");
  EXPECT_EQ(rc, 70) << last_err_;
  const std::vector<std::string> after = Runs();
  ASSERT_EQ(after.size(), 2u) << last_err_;
  EXPECT_EQ(after.back(), "etl rebuild:failed") << last_err_;
}

}  // namespace
}  // namespace predlake::cli
