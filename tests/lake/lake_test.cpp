#include "lake/lake.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lake/embedded_sql.hpp"
#include "lake/tables.hpp"

namespace predlake::lake {
namespace {

namespace fs = std::filesystem;

class LakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("lake_test_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Lake> OpenWriter() {
    OpenOptions options{Mode::kWrite, "test", &clock_};
    auto lake = Lake::Open(dir_, options);
    EXPECT_TRUE(lake.ok()) << lake.status().message();
    return lake.ok() ? std::move(lake).value() : nullptr;
  }

  // The first column of `sql`'s rows on `lake`, each followed by a space ("NULL" for a NULL).
  static std::string Column(Lake& lake, const std::string& sql) {
    auto r = lake.conn().Query(sql, "t");
    EXPECT_TRUE(r.ok()) << r.status().message();
    std::string out;
    if (r.ok()) {
      for (const auto& row : r->ToText()) out += row[0].value_or("NULL") + " ";
    }
    return out;
  }

  // The full schema check re-inserts created_at_ms when it is missing; a skipped one does not, so
  // its row count after deleting it shows which of the two ran.
  static int64_t CreatedAtRows(Lake& lake) {
    auto n =
        lake.conn().QueryInt("SELECT count(*) FROM predlake_meta WHERE key = 'created_at_ms'", "t");
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? n->value_or(0) : -1;
  }

  std::string dir_;
  FixedClock clock_{1'721'952'000'000};
};

TEST_F(LakeTest, CreatesEveryRawAndBookkeepingTable) {
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  for (auto table : kRawTables) {
    auto n = lake->conn().QueryInt("SELECT count(*) FROM " + std::string(table), "count");
    ASSERT_TRUE(n.ok()) << table << ": " << n.status().message();
    EXPECT_EQ(n.value(), 0);
  }
  auto version = lake->conn().QueryInt(
      "SELECT value::BIGINT FROM predlake_meta WHERE key = 'schema_version'", "version");
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(version.value(), kSchemaVersion);
}

TEST_F(LakeTest, ReadingAMissingLakeIsAClearError) {
  auto lake = Lake::Open(dir_, OpenOptions{Mode::kRead, "describe", &clock_});
  ASSERT_FALSE(lake.ok());
  EXPECT_EQ(lake.status().code(), StatusCode::kData);
  EXPECT_NE(lake.status().message().find("no lake at"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(LakeTest, AnEmptyLakeHasEveryTableAndTouchesNoDisk) {
  auto lake = Lake::OpenEmpty(dir_, &clock_);
  ASSERT_TRUE(lake.ok()) << lake.status().message();
  for (auto table : kRawTables) {
    auto n = (*lake)->conn().QueryInt("SELECT count(*) FROM " + std::string(table), "count");
    ASSERT_TRUE(n.ok()) << n.status().message();
    EXPECT_EQ(n.value(), 0);
  }
  auto checkpoint = (*lake)->GetCheckpoint();
  ASSERT_TRUE(checkpoint.ok());
  EXPECT_FALSE(checkpoint->has_value());
  EXPECT_FALSE(fs::exists(dir_));
}

// OpenEmpty runs the DDL without the writer's checks: its tables, columns, types, defaults and
// constraints, and its schema version, are those of a new lake on disk.
TEST_F(LakeTest, AnEmptyLakeHasTheSchemaOfANewOne) {
  const std::string catalog =
      "SELECT table_name || '(' || string_agg(column_name || ' ' || data_type || ' ' || "
      "is_nullable::VARCHAR || ' ' || coalesce(column_default, ''), ', ' ORDER BY column_index) "
      "|| ')' FROM duckdb_columns() WHERE database_name = current_database() GROUP BY table_name "
      "UNION ALL SELECT table_name || ' ' || constraint_text FROM duckdb_constraints() WHERE "
      "database_name = current_database() UNION ALL SELECT key || '=' || value FROM predlake_meta "
      "WHERE key = 'schema_version' ORDER BY 1";
  auto empty = Lake::OpenEmpty(dir_, &clock_);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  const std::string in_memory = Column(**empty, catalog);
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  EXPECT_EQ(in_memory, Column(*lake, catalog));
  EXPECT_NE(in_memory.find("settled_stake"), std::string::npos);
}

TEST_F(LakeTest, RefusesAFileThatIsNotALake) {
  fs::create_directories(dir_);
  std::string file = (fs::path(dir_) / kDatabaseFile).string();
  { std::ofstream(file) << "garbage that is not a database"; }
  auto lake = Lake::Open(dir_, OpenOptions{Mode::kWrite, "update", &clock_});
  ASSERT_FALSE(lake.ok());
  std::ifstream in(file);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "garbage that is not a database");
}

TEST_F(LakeTest, RefusesALakeFromANewerSchema) {
  {
    auto lake = OpenWriter();
    ASSERT_TRUE(lake);
    ASSERT_TRUE(
        lake->conn()
            .Execute("UPDATE predlake_meta SET value = '999' WHERE key = 'schema_version'", "bump")
            .ok());
  }
  auto lake = Lake::Open(dir_, OpenOptions{Mode::kWrite, "update", &clock_});
  ASSERT_FALSE(lake.ok());
  EXPECT_NE(lake.status().message().find("newer predlake"), std::string::npos);
}

TEST_F(LakeTest, AnOlderLakeGetsAColumnAppendedToASourceTable) {
  {
    auto lake = OpenWriter();
    ASSERT_NE(lake, nullptr);
    ASSERT_TRUE(lake->conn()
                    .Execute("INSERT INTO pdr_contracts VALUES ('0xc1', 'BTC/USDT', '5m', "
                             "'binance', 300, 60, 'nft'); ALTER TABLE pdr_contracts DROP COLUMN "
                             "metadata_from",
                             "t")
                    .ok());
  }
  auto lake = OpenWriter();
  ASSERT_NE(lake, nullptr);
  auto n = lake->conn().QueryInt(
      "SELECT count(*) FROM pdr_contracts WHERE ID = '0xc1' AND metadata_from IS NULL", "t");
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(**n, 1);
}

TEST_F(LakeTest, ASchemaOneLakeLosesTheKeysOfTheTablesThatGrowEveryRunAndKeepsTheirRows) {
  {
    auto lake = OpenWriter();
    ASSERT_NE(lake, nullptr);
    auto run = lake->BeginRun("update");
    ASSERT_TRUE(run.ok()) << run.status().message();
    ASSERT_TRUE(run->Finish().ok());
    // What predlake 1 made: ID and run_id primary keys, rows in an order that is not the key's.
    ASSERT_TRUE(
        lake->conn()
            .Execute("CREATE TABLE keyed AS FROM pdr_payouts LIMIT 0; DROP TABLE pdr_payouts; "
                     "CREATE TABLE pdr_payouts (ID VARCHAR PRIMARY KEY, token VARCHAR, user "
                     "VARCHAR, slot BIGINT, timestamp BIGINT NOT NULL, payout DECIMAL(38, 18), "
                     "predvalue BOOLEAN, truevalue BOOLEAN, stake DECIMAL(38, 18)); "
                     "INSERT INTO pdr_payouts (ID, slot, timestamp) VALUES ('c', 3, 3000), "
                     "('a', 1, 1000), ('b', 2, 2000); DROP TABLE keyed; "
                     "CREATE TABLE runs_copy AS FROM predlake_runs; DROP TABLE predlake_runs; "
                     "CREATE TABLE predlake_runs AS FROM runs_copy LIMIT 0; "
                     "ALTER TABLE predlake_runs ADD PRIMARY KEY (run_id); "
                     "INSERT INTO predlake_runs FROM runs_copy; DROP TABLE runs_copy; "
                     "UPDATE predlake_meta SET value = '1' WHERE key = 'schema_version'",
                     "t")
            .ok());
  }
  std::vector<std::string> notices;
  OpenOptions options{Mode::kWrite, "test", &clock_};
  options.notice = [&](const std::string& n) { notices.push_back(n); };
  auto opened = Lake::Open(dir_, options);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  std::unique_ptr<Lake> lake = std::move(opened).value();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("upgrading the lake to schema 2"), std::string::npos) << notices[0];
  auto text = [&](const std::string& sql) { return Column(*lake, sql); };
  EXPECT_EQ(text("SELECT ID FROM pdr_payouts ORDER BY rowid"), "c a b ");
  EXPECT_EQ(text("SELECT is_nullable::VARCHAR FROM duckdb_columns() WHERE table_name = "
                 "'pdr_payouts' AND column_name = 'ID'"),
            "false ");
  EXPECT_EQ(text("SELECT count(*) FROM predlake_runs WHERE command = 'update' AND status = "
                 "'succeeded'"),
            "1 ");
  EXPECT_EQ(text("SELECT value FROM predlake_meta WHERE key = 'schema_version'"), "2 ");
  EXPECT_EQ(text("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '%__keyed'"), "0 ");
  lake.reset();
  // Upgraded once: the next writer has nothing to say.
  auto again = Lake::Open(dir_, options);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(notices.size(), 1u);
  lake = std::move(again).value();
  // No table of kUnkeyedTables has a key, as in a new lake; every one of them exists.
  for (std::string_view name : kUnkeyedTables) {
    SCOPED_TRACE(std::string(name));
    const std::string quoted = "'" + std::string(name) + "'";
    EXPECT_EQ(text("SELECT count(*) FROM duckdb_tables() WHERE table_name = " + quoted), "1 ");
    EXPECT_EQ(text("SELECT count(*) FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY "
                   "KEY' AND table_name = " +
                   quoted),
              "0 ");
  }
}

// An upgrade that fails part-way (here a row the new table refuses; on a user's machine, a full
// disk) leaves the schema-1 lake as it was and says so in one line.
TEST_F(LakeTest, AFailedUpgradeChangesNothingAndSaysSo) {
  {
    auto lake = OpenWriter();
    ASSERT_NE(lake, nullptr);
    ASSERT_TRUE(
        lake->conn()
            .Execute("DROP TABLE pdr_payouts; "
                     "CREATE TABLE pdr_payouts (ID VARCHAR PRIMARY KEY, token VARCHAR, user "
                     "VARCHAR, slot BIGINT, timestamp BIGINT NOT NULL, payout VARCHAR, "
                     "predvalue BOOLEAN, truevalue BOOLEAN, stake DECIMAL(38, 18)); "
                     "INSERT INTO pdr_payouts (ID, slot, timestamp, payout) VALUES "
                     "('a', 1, 1000, '1.5'), ('b', 2, 2000, 'not a number'); "
                     "UPDATE predlake_meta SET value = '1' WHERE key = 'schema_version'",
                     "t")
            .ok());
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto opened = Lake::Open(dir_, OpenOptions{Mode::kWrite, "test", &clock_});
    ASSERT_FALSE(opened.ok());
    const std::string& message = opened.status().message();
    EXPECT_EQ(message.rfind("upgrading the lake to schema 2 failed and changed nothing", 0), 0u)
        << message;
    EXPECT_NE(message.find("copy pdr_payouts without its primary key"), std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  auto read = Lake::Open(dir_, OpenOptions{Mode::kRead, "test", &clock_});
  ASSERT_TRUE(read.ok()) << read.status().message();
  auto text = [&](const std::string& sql) { return Column(**read, sql); };
  EXPECT_EQ(text("SELECT value FROM predlake_meta WHERE key = 'schema_version'"), "1 ");
  EXPECT_EQ(text("SELECT ID || ':' || payout FROM pdr_payouts ORDER BY ID"),
            "a:1.5 b:not a number ");
  EXPECT_EQ(text("SELECT count(*) FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY "
                 "KEY' AND table_name = 'pdr_payouts'"),
            "1 ");
  EXPECT_EQ(text("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '%__keyed'"), "0 ");
}

TEST_F(LakeTest, BuiltColumnsAreAppendedInTheirDefinedOrder) {
  auto lake = OpenWriter();
  ASSERT_NE(lake, nullptr);
  for (std::string_view table : {kGoldPredictoorDaily, kGoldFeedDaily}) {
    auto result = lake->conn().Query(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = "
        "current_database() AND table_name = '" +
            std::string(table) +
            "' AND column_index > (SELECT column_index FROM "
            "duckdb_columns() WHERE database_name = current_database() AND "
            "table_name = '" +
            std::string(table) + "' AND column_name = 'run_id') ORDER BY column_index",
        "t");
    ASSERT_TRUE(result.ok()) << result.status().message();
    std::vector<std::vector<std::optional<std::string>>> want;
    for (const BuiltColumnDef& column : kBuiltColumnsAdded) {
      if (column.table != table) continue;
      std::string type(SqlTypeName(column.type));
      std::erase(type, ' ');
      want.push_back({std::string(column.name), std::move(type)});
    }
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(result->ToText(), want) << table;
  }
  // A new lake has nothing to rebuild.
  auto stale = lake->GetMeta(kMetaRebuildRequired);
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->has_value());
}

TEST_F(LakeTest, AnOlderLakeWithEmptyGoldTablesGetsTheColumnsWithoutARebuild) {
  {
    auto lake = OpenWriter();
    ASSERT_NE(lake, nullptr);
    for (const BuiltColumnDef& column : kBuiltColumnsAdded) {
      ASSERT_TRUE(lake->conn()
                      .Execute("ALTER TABLE " + std::string(column.table) + " DROP COLUMN " +
                                   std::string(column.name),
                               "t")
                      .ok());
    }
  }
  auto lake = OpenWriter();
  ASSERT_NE(lake, nullptr);
  auto n = lake->conn().QueryInt(
      "SELECT count(*) FROM duckdb_columns() WHERE database_name = current_database() AND "
      "column_name IN ('cash_pnl', 'consensus_stake')",
      "t");
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(**n, 3);
  auto stale = lake->GetMeta(kMetaRebuildRequired);
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->has_value());
}

TEST_F(LakeTest, AnUnchangedLakeSkipsTheSchemaCheckAndAChangedOneGetsIt) {
  auto created = [](Lake& lake) { return CreatedAtRows(lake); };
  std::string fingerprint;
  {
    auto lake = OpenWriter();
    ASSERT_NE(lake, nullptr);
    auto recorded = lake->GetMeta("schema_fingerprint");
    ASSERT_TRUE(recorded.ok());
    ASSERT_TRUE(recorded->has_value());
    fingerprint = **recorded;
    ASSERT_TRUE(
        lake->conn().Execute("DELETE FROM predlake_meta WHERE key = 'created_at_ms'", "t").ok());
  }
  {
    auto lake = OpenWriter();  // same build, same catalog: the check is skipped
    ASSERT_NE(lake, nullptr);
    EXPECT_EQ(created(*lake), 0);
    // A column changed behind predlake's back: its type, then another one dropped.
    ASSERT_TRUE(lake->conn()
                    .Execute("ALTER TABLE pdr_contracts ALTER COLUMN source TYPE VARCHAR[] "
                             "USING [source]",
                             "t")
                    .ok());
  }
  {
    auto lake = OpenWriter();  // the catalog changed: the full check runs
    ASSERT_NE(lake, nullptr);
    EXPECT_EQ(created(*lake), 1);
    auto recorded = lake->GetMeta("schema_fingerprint");
    ASSERT_TRUE(recorded.ok());
    ASSERT_TRUE(recorded->has_value());
    EXPECT_NE(**recorded, fingerprint);
    ASSERT_TRUE(lake->conn()
                    .Execute("DELETE FROM predlake_meta WHERE key = 'created_at_ms'; ALTER TABLE "
                             "pdr_payouts DROP COLUMN payout",
                             "t")
                    .ok());
  }
  auto lake = OpenWriter();  // a missing column: the full check runs and appends it
  ASSERT_NE(lake, nullptr);
  EXPECT_EQ(created(*lake), 1);
  auto n = lake->conn().QueryInt(
      "SELECT count(*) FROM duckdb_columns() WHERE database_name = current_database() AND "
      "table_name = 'pdr_payouts' AND column_name = 'payout'",
      "t");
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(**n, 1);
}

// Builds up to b9fde48 embedded an empty src/lake/sql/02_raw_tables.sql, a step of its own in the
// schema text their fingerprint hashes. A lake such a build checked has the schema this build
// creates: its writer skips the check and only brings the record up to date, unless its catalog
// changed since.
TEST_F(LakeTest, ALakeCheckedByABuildWithTheEmptyStepSkipsTheSchemaCheck) {
  // The fingerprint as those builds recorded it: "VERSION:SCHEMA:CATALOG", each hash FNV-1a 64 in
  // hex, SCHEMA over every DDL step's name and text in name order, then the appended built columns.
  auto fnv_hex = [](std::string_view text) {
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : text) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
    char out[17];
    std::snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(hash));
    return std::string(out);
  };
  auto schema_text = [](bool with_empty_step) {
    std::vector<std::pair<std::string, std::string>> steps;
    for (const auto& [name, sql] : EmbeddedSql()) steps.emplace_back(name, sql);
    std::string source_ddl;
    for (const TableDef* table : kSourceTableDefs) source_ddl += CreateTableSql(*table);
    steps.emplace_back("02_raw_tables", source_ddl);
    if (with_empty_step) steps.emplace_back("02_raw_tables", "");
    std::sort(steps.begin(), steps.end());
    std::string text;
    for (const auto& [name, sql] : steps) text += name + "\n" + sql;
    for (const BuiltColumnDef& column : kBuiltColumnsAdded) {
      text += std::string(column.table) + "." + std::string(column.name) + " " +
              std::string(SqlTypeName(column.type)) + "\n";
    }
    return text;
  };
  const std::string version = std::to_string(kSchemaVersion) + ":";
  std::string current, old;
  auto record_old = [&](Lake& lake) {
    ASSERT_TRUE(lake.SetMeta("schema_fingerprint", old).ok());
    ASSERT_TRUE(
        lake.conn().Execute("DELETE FROM predlake_meta WHERE key = 'created_at_ms'", "t").ok());
  };
  {
    auto lake = OpenWriter();
    ASSERT_NE(lake, nullptr);
    auto recorded = lake->GetMeta("schema_fingerprint");
    ASSERT_TRUE(recorded.ok() && recorded->has_value());
    current = **recorded;
    // The text above is the one this build hashes; with the empty step it is the old builds'.
    ASSERT_EQ(current.substr(0, version.size() + 17), version + fnv_hex(schema_text(false)) + ":");
    old = version + fnv_hex(schema_text(true)) + current.substr(version.size() + 16);
    ASSERT_NE(old, current);
    record_old(*lake);
  }
  {
    auto lake = OpenWriter();  // the old record, the same schema: no check, the record updated
    ASSERT_NE(lake, nullptr);
    EXPECT_EQ(CreatedAtRows(*lake), 0);
    auto recorded = lake->GetMeta("schema_fingerprint");
    ASSERT_TRUE(recorded.ok() && recorded->has_value());
    EXPECT_EQ(**recorded, current);
    record_old(*lake);
    ASSERT_TRUE(lake->conn().Execute("ALTER TABLE pdr_payouts DROP COLUMN payout", "t").ok());
  }
  auto lake = OpenWriter();  // the old record and a column missing since: the full check runs
  ASSERT_NE(lake, nullptr);
  EXPECT_EQ(CreatedAtRows(*lake), 1);
  EXPECT_EQ(Column(*lake,
                   "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'pdr_payouts' "
                   "AND column_name = 'payout'"),
            "1 ");
  // Recorded anew: this build's schema part, the catalog part of the column's new place.
  auto recorded = lake->GetMeta("schema_fingerprint");
  ASSERT_TRUE(recorded.ok() && recorded->has_value());
  EXPECT_EQ((*recorded)->substr(0, version.size() + 17), current.substr(0, version.size() + 17));
  EXPECT_NE(**recorded, old);
}

TEST_F(LakeTest, SecondWriterIsBusyAndNamesTheHolder) {
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  // flock is per open file description, so a child process sees the conflict as another writer
  // would.
  pid_t child = fork();
  if (child == 0) {
    FixedClock clock(0);
    auto second = Lake::Open(dir_, OpenOptions{Mode::kWrite, "raw update", &clock});
    bool ok =
        !second.ok() && second.status().code() == StatusCode::kBusy &&
        second.status().message().find("pid " + std::to_string(getppid())) != std::string::npos &&
        second.status().message().find("`test`") != std::string::npos;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(LakeTest, WatermarksCheckpointAndRunLedger) {
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  auto run = lake->BeginRun("raw update");
  ASSERT_TRUE(run.ok()) << run.status().message();
  {
    auto tx = duck::Transaction::Begin(lake->conn());
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(lake->SetWatermark("pdr_predictions", {100, 5000}, run->id()).ok());
    ASSERT_TRUE(lake->SetCheckpoint({100, 4000}, run->id()).ok());
    run->SetWindow(100, 5000);
    run->tables()["pdr_predictions"] = {10, 10, 0, 0};
    run->detail()["pages"] = 3;
    ASSERT_TRUE(run->Finish().ok());
    ASSERT_TRUE(tx->Commit().ok());
  }
  auto mark = lake->GetWatermark("pdr_predictions");
  ASSERT_TRUE(mark.ok());
  ASSERT_TRUE(mark->has_value());
  EXPECT_EQ((*mark)->watermark_ms, 5000);
  auto rows = lake->conn()
                  .Query(
                      "SELECT status, window_end_ms, checkpoint_after_ms, watermarks_after, "
                      "detail FROM predlake_runs WHERE run_id = " +
                          std::to_string(run->id()),
                      "read run")
                  .value()
                  .ToText();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "succeeded");
  EXPECT_EQ(rows[0][1], "5000");
  EXPECT_EQ(rows[0][2], "4000");
  EXPECT_EQ(rows[0][3], "{\"pdr_predictions\":5000}");
  EXPECT_EQ(rows[0][4], "{\"pages\":3}");

  auto failed = lake->BeginRun("etl update");
  ASSERT_TRUE(failed.ok());
  Status error = failed->Fail(Status::Source("boom"));
  EXPECT_EQ(error.code(), StatusCode::kSource);
  EXPECT_EQ(error.message(), "boom");
  // A second Fail records nothing more and passes the error on.
  EXPECT_EQ(failed->Fail(Status::Data("again")).message(), "again");
  auto status = lake->conn()
                    .Query("SELECT status, error FROM predlake_runs WHERE run_id = " +
                               std::to_string(failed->id()),
                           "read run")
                    .value()
                    .ToText();
  EXPECT_EQ(status[0][0], "failed");
  EXPECT_EQ(status[0][1], "boom");

  auto cancelled = lake->BeginRun("raw update");
  ASSERT_TRUE(cancelled.ok());
  EXPECT_EQ(cancelled->Fail(Status::Cancelled("interrupted")).code(), StatusCode::kCancelled);
  EXPECT_EQ(lake->conn()
                .Query("SELECT status FROM predlake_runs WHERE run_id = " +
                           std::to_string(cancelled->id()),
                       "read run")
                .value()
                .ToText()[0][0],
            "aborted");
}

TEST_F(LakeTest, ARunDroppedWithoutAnOutcomeIsRecordedAborted) {
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  {
    auto run = lake->BeginRun("etl update");
    ASSERT_TRUE(run.ok());
    lake::Run moved = std::move(run).value();
    EXPECT_FALSE(moved.ended());
  }
  auto rows =
      lake->conn().Query("SELECT status, error FROM predlake_runs", "read").value().ToText();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "aborted");
  EXPECT_EQ(rows[0][1], "the run ended without recording its outcome");
}

TEST_F(LakeTest, AFailureThatCannotBeRecordedSaysSo) {
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  auto run = lake->BeginRun("etl update");
  ASSERT_TRUE(run.ok());
  // Without its per-table counts table the failure cannot be written.
  ASSERT_TRUE(lake->conn().Execute("DROP TABLE predlake_run_tables", "test").ok());
  Status error = run->Fail(Status::Source("boom"));
  EXPECT_EQ(error.code(), StatusCode::kSource);
  EXPECT_EQ(error.message().rfind("boom (and the failure could not be recorded: ", 0), 0u)
      << error.message();
}

TEST_F(LakeTest, AFailureLeftInsideTheFailedWorksTransactionIsStillRecorded) {
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  auto run = lake->BeginRun("etl update");
  ASSERT_TRUE(run.ok());
  // The failed work's transaction is still open (as after an interrupted statement): it is rolled
  // back, and the failure recorded.
  ASSERT_TRUE(lake->conn().Execute("BEGIN TRANSACTION", "test").ok());
  ASSERT_TRUE(lake->SetCheckpoint({1, 2}, run->id()).ok());
  Status error = run->Fail(Status::Cancelled("etl step x: cancelled"));
  EXPECT_EQ(error.message(), "etl step x: cancelled");
  auto checkpoint = lake->GetCheckpoint();
  ASSERT_TRUE(checkpoint.ok());
  EXPECT_FALSE(checkpoint->has_value());
  auto rows = lake->conn().Query("SELECT status, error FROM predlake_runs", "test")->ToText();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "aborted");
  EXPECT_EQ(rows[0][1], "etl step x: cancelled");
}

TEST_F(LakeTest, RunsLeftRunningAreMarkedAbortedByTheNextWriter) {
  {
    auto lake = OpenWriter();
    ASSERT_TRUE(lake);
    auto run = lake->BeginRun("etl update");
    ASSERT_TRUE(run.ok());
    // As if killed: the handle's own recording on destruction never happens.
    ASSERT_TRUE(lake->conn().Execute("BEGIN TRANSACTION", "test").ok());
  }
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  auto rows = lake->conn().Query("SELECT status FROM predlake_runs", "read").value().ToText();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "aborted");
}

TEST_F(LakeTest, DeleteRawFromMovesWatermarksBack) {
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  ASSERT_TRUE(
      lake->conn()
          .Execute("INSERT INTO pdr_truevals (ID, timestamp) VALUES ('a', 1000), ('b', 2000), "
                   "('c', 3000)",
                   "seed")
          .ok());
  ASSERT_TRUE(lake->SetWatermark("pdr_truevals", {500, 4000}, 1).ok());
  ASSERT_TRUE(lake->SetWatermark("pdr_payouts", {500, 1500}, 1).ok());
  auto counts = lake->DeleteRawFrom(2000);
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  EXPECT_EQ((*counts)["pdr_truevals"].rows_deleted, 2);
  auto marks = lake->Watermarks().value();
  EXPECT_EQ(marks["pdr_truevals"].watermark_ms, 2000);
  EXPECT_EQ(marks["pdr_payouts"].watermark_ms, 1500);
  ASSERT_TRUE(lake->DeleteRawFrom(0).ok());
  marks = lake->Watermarks().value();
  EXPECT_EQ(marks["pdr_truevals"].watermark_ms, 500);
}

// The close of an `update` (CloseCheckpoint::kWhenWalLarge) leaves a small WAL for readers to
// replay and the next checkpoint to fold in; every other writer's close, and a kWhenWalLarge close
// once the WAL has grown past kCloseCheckpointWalBytes, checkpoints (docs/lake.md).
TEST_F(LakeTest, AnUpdateCloseKeepsASmallWalAndCheckpointsALargeOne) {
  const fs::path wal = fs::path(dir_) / kWalFile;
  auto write = [&](CloseCheckpoint policy, int rows, int first) {
    OpenOptions options{Mode::kWrite, "test", &clock_};
    options.close_checkpoint = policy;
    auto lake = Lake::Open(dir_, options);
    EXPECT_TRUE(lake.ok()) << lake.status().message();
    if (!lake.ok()) return Lake::CloseReport{};
    // Commits of up to 2,000 rows: small enough for the WAL (DuckDB writes large ones to the file).
    for (int from = first; from < first + rows; from += 2000) {
      const int to = std::min(first + rows, from + 2000);
      EXPECT_TRUE((*lake)
                      ->conn()
                      .Execute("INSERT INTO pdr_truevals (ID, timestamp) SELECT 't' || i || "
                               "repeat('x', 100), i FROM range(" +
                                   std::to_string(from) + ", " + std::to_string(to) + ") AS r(i)",
                               "insert")
                      .ok());
    }
    return (*lake)->Close();
  };
  auto count = [&]() -> int64_t {
    auto lake = Lake::Open(dir_, OpenOptions{Mode::kRead, "test", &clock_});
    EXPECT_TRUE(lake.ok()) << lake.status().message();
    if (!lake.ok()) return -1;
    return (*lake)->conn().QueryInt("SELECT count(*) FROM pdr_truevals", "count")->value_or(-1);
  };
  // A new lake, closed by another writer: checkpointed, no WAL left.
  Lake::CloseReport closed = write(CloseCheckpoint::kAlways, 10, 0);
  EXPECT_TRUE(closed.checkpointed);
  EXPECT_FALSE(fs::exists(wal));
  // A small update: the WAL stays, and a reader (which replays it) sees every committed row.
  closed = write(CloseCheckpoint::kWhenWalLarge, 10, 10);
  EXPECT_FALSE(closed.checkpointed);
  EXPECT_GT(closed.wal_bytes, 0);
  EXPECT_TRUE(fs::exists(wal));
  EXPECT_EQ(count(), 20);
  EXPECT_TRUE(fs::exists(wal)) << "a reader must not checkpoint";
  // A second small update appends to the same WAL.
  const int64_t before = closed.wal_bytes;
  closed = write(CloseCheckpoint::kWhenWalLarge, 10, 20);
  EXPECT_FALSE(closed.checkpointed);
  EXPECT_GT(closed.wal_bytes, before);
  EXPECT_EQ(count(), 30);
  // An update whose WAL passes the bound checkpoints at its close (fewer rows than a row group,
  // which DuckDB would write to the file directly, not the WAL).
  closed = write(CloseCheckpoint::kWhenWalLarge, 60'000, 30);
  EXPECT_GE(closed.wal_bytes, kCloseCheckpointWalBytes);
  EXPECT_TRUE(closed.checkpointed);
  EXPECT_FALSE(fs::exists(wal));
  EXPECT_EQ(count(), 60'030);
  // A writer that changes nothing has nothing to checkpoint; Close is idempotent.
  auto lake = Lake::Open(dir_, OpenOptions{Mode::kWrite, "test", &clock_});
  ASSERT_TRUE(lake.ok()) << lake.status().message();
  EXPECT_FALSE((*lake)->Close().checkpointed);
  EXPECT_FALSE((*lake)->Close().checkpointed);
}

// A committed update survives a kill before its close: the WAL holds it (rule: a committed run is
// never lost).
TEST_F(LakeTest, ACommitWithoutACheckpointSurvivesAKill) {
  ASSERT_TRUE(OpenWriter());  // the lake, created and closed
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    OpenOptions options{Mode::kWrite, "test", &clock_};
    options.close_checkpoint = CloseCheckpoint::kWhenWalLarge;
    auto lake = Lake::Open(dir_, options);
    if (!lake.ok()) _exit(1);
    if (!(*lake)
             ->conn()
             .Execute("INSERT INTO pdr_truevals (ID, timestamp) VALUES ('k', 1)", "insert")
             .ok())
      _exit(1);
    ::kill(getpid(), SIGKILL);
    _exit(1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  auto lake = Lake::Open(dir_, OpenOptions{Mode::kRead, "test", &clock_});
  ASSERT_TRUE(lake.ok()) << lake.status().message();
  EXPECT_EQ((*lake)->conn().QueryInt("SELECT count(*) FROM pdr_truevals", "count")->value_or(-1),
            1);
}

TEST_F(LakeTest, SetWatermarksSetsSeveralInOneStatement) {
  auto lake = OpenWriter();
  ASSERT_TRUE(lake);
  ASSERT_TRUE(lake->SetWatermark("pdr_truevals", {500, 4000}, 1).ok());
  ASSERT_TRUE(
      lake->SetWatermarks({{"pdr_truevals", {400, 4500}}, {"pdr_ohlcv:a", {100, 200}}}, 2).ok());
  ASSERT_TRUE(lake->SetWatermarks({{"pdr_payouts", {1, 2}}}, 3).ok());
  ASSERT_TRUE(lake->SetWatermarks({}, 4).ok());
  auto marks = lake->Watermarks();
  ASSERT_TRUE(marks.ok()) << marks.status().message();
  ASSERT_EQ(marks->size(), 3u);
  EXPECT_EQ(marks->at("pdr_truevals").start_ms, 400);
  EXPECT_EQ(marks->at("pdr_truevals").watermark_ms, 4500);
  EXPECT_EQ(marks->at("pdr_ohlcv:a").watermark_ms, 200);
  EXPECT_EQ(marks->at("pdr_payouts").watermark_ms, 2);
}

}  // namespace
}  // namespace predlake::lake
