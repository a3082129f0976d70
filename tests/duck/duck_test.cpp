#include "duck/duck.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace predlake::duck {
namespace {

Connection MemoryConnection(Database& db) {
  auto conn = db.Connect();
  EXPECT_TRUE(conn.ok());
  return std::move(conn).value();
}

// DuckDB's worker thread setting as the connection reads it; -1 (and a test failure) when it
// cannot.
int64_t CurrentThreads(Connection& conn) {
  auto v = conn.QueryInt("SELECT CAST(current_setting('threads') AS BIGINT)", "threads");
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? v->value_or(-1) : -1;
}

TEST(Duck, QueryReadsTypedChunks) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok()) << db.status().message();
  Connection conn = MemoryConnection(*db);
  auto result = conn.Query(
      "SELECT i::BIGINT AS i, 'row' || i AS s, i % 2 = 0 AS b, CAST(i AS DECIMAL(38,18)) + "
      "0.000000000000000001 AS d, "
      "CASE WHEN i = 3 THEN NULL ELSE i END AS n FROM range(5000) t(i)",
      "test query");
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->column_names(), (std::vector<std::string>{"i", "s", "b", "d", "n"}));
  EXPECT_EQ(result->column_types()[3], Type::kDecimal);
  int64_t rows = 0, sum = 0;
  std::optional<std::string> third;
  bool null_seen = false;
  while (auto chunk = result->NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r, ++rows) {
      sum += chunk->GetInt64(0, r);
      EXPECT_EQ(chunk->GetString(1, r), "row" + std::to_string(chunk->GetInt64(0, r)));
      EXPECT_EQ(chunk->GetBool(2, r), chunk->GetInt64(0, r) % 2 == 0);
      if (chunk->GetInt64(0, r) == 1) third = chunk->GetText(3, r);
      if (chunk->GetInt64(0, r) == 3) null_seen = chunk->IsNull(4, r);
    }
  }
  EXPECT_EQ(rows, 5000);
  EXPECT_EQ(sum, 4999 * 5000 / 2);
  EXPECT_EQ(third, "1.000000000000000001");
  EXPECT_TRUE(null_seen);
}

TEST(Duck, StreamingResultsAndStatementCounts) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok()) << db.status().message();
  Connection conn = MemoryConnection(*db);
  auto result = conn.QueryStreaming("SELECT i FROM range(100000) t(i)", "stream");
  ASSERT_TRUE(result.ok()) << result.status().message();
  int64_t rows = 0;
  while (auto chunk = result->NextChunk()) rows += static_cast<int64_t>(chunk->size());
  EXPECT_EQ(rows, 100000);
  EXPECT_TRUE(result->error().ok());
  // An error while streaming ends the result and is reported, with the step.
  auto failing = conn.QueryStreaming(
      "SELECT CASE WHEN i < 50000 THEN i ELSE CAST('x' || i AS INTEGER) END FROM range(100000) "
      "t(i)",
      "stream");
  if (failing.ok()) {
    while (failing->NextChunk()) {
    }
    EXPECT_FALSE(failing->error().ok());
    EXPECT_EQ(failing->error().message().rfind("stream: ", 0), 0u) << failing->error().message();
  }
  auto count = conn.CountStatements("SELECT 1; SELECT 2; EXPORT DATABASE '/nonexistent/x'", "n");
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(*count, 3u);
  EXPECT_FALSE(conn.CountStatements("SELEC 1", "n").ok());
}

TEST(Duck, SealedDatabaseReachesNothingButItsFile) {
  const std::string dir =
      ::testing::TempDir() + "/predlake_duck_sealed_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/x.duckdb";
  {
    auto db = Database::Open(path);
    ASSERT_TRUE(db.ok());
    Connection conn = MemoryConnection(*db);
    ASSERT_TRUE(conn.Execute("CREATE TABLE t AS SELECT 1 AS a", "create").ok());
  }
  std::ofstream(dir + "/other.csv") << "a\n1\n";
  for (Reach reach : {Reach::kSealed, Reach::kSealedReadFiles}) {
    Options options;
    options.read_only = true;
    options.reach = reach;
    auto db = Database::Open(path, options);
    ASSERT_TRUE(db.ok()) << db.status().message();
    Connection conn = MemoryConnection(*db);
    EXPECT_TRUE(conn.Query("SELECT * FROM t", "read").ok());
    auto csv = conn.Query("SELECT * FROM read_csv('" + dir + "/other.csv')", "csv");
    EXPECT_EQ(csv.ok(), reach == Reach::kSealedReadFiles) << csv.status().message();
    EXPECT_FALSE(conn.Execute("SET enable_external_access = true", "set").ok());
    EXPECT_FALSE(conn.Execute("SET autoload_known_extensions = true", "set").ok());
    EXPECT_FALSE(conn.Query("SELECT * FROM sqlite_scan('x.db', 't')", "ext").ok());
  }
  std::filesystem::remove_all(dir);
}

// DuckDB refuses to attach a file with a storage version lower than the file's own, so an attach at
// kStorageCompatibility succeeds exactly when the file is in that format or an older one.
TEST(Duck, NewFilesAreInTheStorageFormatThePreviousReleaseReadsOldOnesKeepTheirs) {
  const std::string dir =
      ::testing::TempDir() + "/predlake_duck_storage_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string ours = dir + "/ours.duckdb";
  const std::string newer = dir + "/newer.duckdb";
  {
    auto db = Database::Open(ours);
    ASSERT_TRUE(db.ok()) << db.status().message();
    Connection conn = MemoryConnection(*db);
    ASSERT_TRUE(conn.Execute("CREATE TABLE t AS SELECT 1 AS a", "create").ok());
    ASSERT_TRUE(conn.Execute("ATTACH " + QuoteString(newer) +
                                 " AS newer (STORAGE_VERSION 'v1.4.0'); "
                                 "CREATE TABLE newer.t AS SELECT 2 AS a; DETACH newer",
                             "create a newer file")
                    .ok());
  }
  {
    auto db = Database::Open(newer);
    ASSERT_TRUE(db.ok()) << db.status().message();
    Connection conn = MemoryConnection(*db);
    ASSERT_TRUE(conn.Execute("INSERT INTO t VALUES (3); CHECKPOINT", "write the newer file").ok());
  }
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok());
  Connection conn = MemoryConnection(*db);
  auto attach = [&](const std::string& path) {
    return conn.Execute("ATTACH " + QuoteString(path) + " AS f (STORAGE_VERSION '" +
                            kStorageCompatibility + "'); DETACH f",
                        "attach");
  };
  Status st = attach(ours);
  EXPECT_TRUE(st.ok()) << st.message();
  st = attach(newer);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot be lowered"), std::string::npos) << st.message();
  std::filesystem::remove_all(dir);
}

TEST(Duck, ErrorsNameTheStepAndAreOneLine) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok());
  Connection conn = MemoryConnection(*db);
  Status st = conn.Execute("SELEC 1", "my step");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kData);
  EXPECT_EQ(st.message().rfind("my step: ", 0), 0u) << st.message();
  EXPECT_EQ(st.message().find('\n'), std::string::npos);
  auto missing = conn.Query("SELECT * FROM nope", "read nope");
  EXPECT_FALSE(missing.ok());
}

TEST(Duck, TransactionRollsBackUnlessCommitted) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok());
  Connection conn = MemoryConnection(*db);
  ASSERT_TRUE(conn.Execute("CREATE TABLE t(x INT)", "create").ok());
  {
    auto tx = Transaction::Begin(conn);
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(conn.Execute("INSERT INTO t VALUES (1)", "insert").ok());
  }
  auto count = conn.QueryInt("SELECT count(*) FROM t", "count");
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(count.value(), 0);
  {
    auto tx = Transaction::Begin(conn);
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(conn.Execute("INSERT INTO t VALUES (2)", "insert").ok());
    ASSERT_TRUE(tx->Commit().ok());
  }
  EXPECT_EQ(*conn.QueryInt("SELECT sum(x) FROM t", "sum").value(), 2);
}

TEST(Duck, PreparedAndAppender) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok());
  Connection conn = MemoryConnection(*db);
  ASSERT_TRUE(
      conn.Execute("CREATE TABLE t(id VARCHAR, n BIGINT, amount DECIMAL(38,18), ok BOOLEAN)",
                   "create")
          .ok());
  auto app = conn.MakeAppender("t");
  ASSERT_TRUE(app.ok()) << app.status().message();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(app->Append(std::string_view("id" + std::to_string(i))).ok());
    ASSERT_TRUE(app->Append(int64_t{i}).ok());
    ASSERT_TRUE(app->Append(std::string_view("1.000000000000000001")).ok());
    ASSERT_TRUE(app->AppendNull().ok());
    ASSERT_TRUE(app->EndRow().ok());
  }
  ASSERT_TRUE(app->Close().ok());
  auto prep = conn.Prepare("SELECT sum(amount)::VARCHAR FROM t WHERE n >= $1", "sum amounts");
  ASSERT_TRUE(prep.ok());
  ASSERT_TRUE(prep->Bind(1, int64_t{1}).ok());
  auto result = prep->Execute();
  ASSERT_TRUE(result.ok());
  auto rows = result->ToText();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "2.000000000000000002");

  auto bad = conn.MakeAppender("no_such_table");
  EXPECT_FALSE(bad.ok());
  auto app2 = conn.MakeAppender("t");
  ASSERT_TRUE(app2.ok());
  ASSERT_TRUE(app2->Append(std::string_view("x")).ok());
  ASSERT_TRUE(app2->Append(int64_t{1}).ok());
  Status st = app2->Append(std::string_view("not a number"));
  if (st.ok()) st = app2->AppendNull();
  if (st.ok()) st = app2->EndRow();
  if (st.ok()) st = app2->Close();
  EXPECT_FALSE(st.ok());
}

TEST(Duck, RefusesAFileThatIsNotADatabase) {
  auto dir = std::filesystem::temp_directory_path() / ("duck_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto path = (dir / "junk.duckdb").string();
  {
    std::ofstream out(path);
    out << "this is not a database, it is a shopping list\n";
  }
  auto db = Database::Open(path);
  EXPECT_FALSE(db.ok());
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "this is not a database, it is a shopping list");
  std::filesystem::remove_all(dir);
}

TEST(Duck, InspectClassifiesStatementsWithoutRunningThem) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok());
  Connection conn = MemoryConnection(*db);
  ASSERT_TRUE(conn.Execute("CREATE TABLE t (a INTEGER, b VARCHAR)", "setup").ok());
  auto infos = conn.Inspect(
      "SELECT a, b AS bee FROM t; INSERT INTO t VALUES (1, 'x'); DROP TABLE t", "inspect");
  ASSERT_TRUE(infos.ok()) << infos.status().message();
  ASSERT_EQ(infos->size(), 3u);
  EXPECT_EQ((*infos)[0].kind, "SELECT");
  EXPECT_EQ((*infos)[0].column_names, (std::vector<std::string>{"a", "bee"}));
  EXPECT_EQ((*infos)[0].column_types, (std::vector<Type>{Type::kInteger, Type::kVarchar}));
  EXPECT_EQ((*infos)[1].kind, "INSERT");
  EXPECT_EQ((*infos)[2].kind, "DROP");
  // Nothing ran: the table is still there and empty.
  auto rows = conn.QueryInt("SELECT count(*) FROM t", "count");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->value_or(-1), 0);

  for (auto [sql, kind] :
       std::vector<std::pair<std::string, std::string>>{{"EXPLAIN SELECT 1", "EXPLAIN"},
                                                        {"DESCRIBE t", "SELECT"},
                                                        {"COPY t TO '/nonexistent/x.csv'", "COPY"},
                                                        {"ATTACH ':memory:' AS m", "ATTACH"},
                                                        {"SET threads = 1", "SET"},
                                                        {"CHECKPOINT", "CALL"},
                                                        {"UPDATE t SET a = 2", "UPDATE"},
                                                        {"DELETE FROM t", "DELETE"},
                                                        {"CREATE TABLE u (x INTEGER)", "CREATE"}}) {
    auto one = conn.Inspect(sql, "inspect");
    ASSERT_TRUE(one.ok()) << sql << ": " << one.status().message();
    ASSERT_EQ(one->size(), 1u) << sql;
    EXPECT_EQ((*one)[0].kind, kind) << sql;
  }

  auto empty = conn.Inspect("  ", "inspect");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());

  auto syntax = conn.Inspect("SELEC 1", "inspect");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.status().code(), StatusCode::kData);
  EXPECT_EQ(syntax.status().message().find('\n'), std::string::npos);
  EXPECT_NE(syntax.status().message().find("syntax error"), std::string::npos);

  auto unknown = conn.Inspect("SELECT * FROM nope", "inspect");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("nope"), std::string::npos);
  EXPECT_EQ(unknown.status().message().find('\n'), std::string::npos);
}

int released = 0;
void CountRelease(int* /*raw*/) noexcept { ++released; }
using CountingHandle = Handle<int, &CountRelease>;

TEST(Duck, HandleReleasesExactlyOnceAcrossMoves) {
  int a = 0, b = 0;
  released = 0;
  {
    CountingHandle first(&a);
    CountingHandle second(std::move(first));
    EXPECT_FALSE(first);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    EXPECT_EQ(second.Get(), &a);
    EXPECT_EQ(released, 0);
    CountingHandle third(&b);
    third = std::move(second);  // releases b, takes a
    EXPECT_EQ(released, 1);
    EXPECT_EQ(third.Get(), &a);
    CountingHandle& alias = third;
    third = std::move(alias);  // self-move keeps it
    EXPECT_EQ(third.Get(), &a);
    EXPECT_EQ(released, 1);
    third.Reset();
    EXPECT_EQ(released, 2);
    EXPECT_FALSE(third);
    third.Reset();  // releasing an empty handle does nothing
    EXPECT_EQ(released, 2);
  }
  EXPECT_EQ(released, 2);  // the moved-from and reset handles released nothing at scope end
}

TEST(Duck, MovedObjectsKeepWorkingAndMovedFromOnesDestroyCleanly) {
  auto opened = Database::Open(":memory:");
  ASSERT_TRUE(opened.ok());
  Database db = std::move(opened).value();
  Database other = std::move(db);
  Connection conn = MemoryConnection(other);
  Connection moved = std::move(conn);
  ASSERT_TRUE(moved
                  .Execute("CREATE TABLE t AS SELECT range AS i, 'v' || range AS s FROM "
                           "range(3000)",
                           "create")
                  .ok());
  auto second = other.Connect();
  ASSERT_TRUE(second.ok());
  conn = std::move(second).value();  // assigning over a moved-from connection
  EXPECT_EQ(conn.QueryInt("SELECT count(*) FROM t", "count").value(), 3000);

  // A chunk stays valid when its result is moved, and earlier chunks when the next is fetched.
  auto result = moved.Query("SELECT i, s FROM t ORDER BY i", "read");
  ASSERT_TRUE(result.ok());
  auto first = result->NextChunk();
  ASSERT_TRUE(first.has_value());
  QueryResult kept = std::move(result).value();
  auto next = kept.NextChunk();
  ASSERT_TRUE(next.has_value());
  std::optional<DataChunk> first_moved = std::move(first);
  EXPECT_EQ(first_moved->GetInt64(0, 1), 1);
  EXPECT_EQ(first_moved->GetString(1, 2), "v2");
  EXPECT_EQ(first_moved->GetText(0, 3), "3");
  const int64_t base = static_cast<int64_t>(first_moved->size());
  EXPECT_EQ(next->GetInt64(0, 0), base);
  std::string expected = "v";  // appended, not "v" + ...: GCC 12 warns falsely on the latter
  expected += std::to_string(base);
  EXPECT_EQ(next->GetString(1, 0), expected);
}

TEST(Duck, AppenderErrorsNameTheTableAndAreOneLine) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok());
  Connection conn = MemoryConnection(*db);
  ASSERT_TRUE(conn.Execute("CREATE TABLE t(n BIGINT)", "create").ok());

  auto missing = conn.MakeAppender("no_such_table");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kData);
  EXPECT_EQ(missing.status().message().rfind("appender for no_such_table: ", 0), 0u)
      << missing.status().message();
  EXPECT_NE(missing.status().message().find("no_such_table", 28), std::string::npos)
      << missing.status().message();
  EXPECT_EQ(missing.status().message().find('\n'), std::string::npos);

  auto app = conn.MakeAppender("t");
  ASSERT_TRUE(app.ok()) << app.status().message();
  Status st = app->Append(std::string_view("not a number"));
  if (st.ok()) st = app->EndRow();
  if (st.ok()) st = app->Close();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kData);
  EXPECT_EQ(st.message().rfind("append to t (", 0), 0u) << st.message();
  EXPECT_NE(st.message().find("not a number"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("unknown"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find('\n'), std::string::npos);
}

TEST(Duck, BindingAParameterThatDoesNotExistIsABug) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok());
  Connection conn = MemoryConnection(*db);
  auto prep = conn.Prepare("SELECT $1::BIGINT", "one parameter");
  ASSERT_TRUE(prep.ok()) << prep.status().message();
  Status st = prep->Bind(2, int64_t{7});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_EQ(st.message().rfind("one parameter: cannot bind parameter 2", 0), 0u) << st.message();
  EXPECT_EQ(st.message().find('\n'), std::string::npos);
  ASSERT_TRUE(prep->Bind(1, int64_t{7}).ok());
  auto rows = prep->Execute();
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(rows->ToText()[0][0], "7");

  auto bad = conn.Prepare("SELEC 1", "bad prepare");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kData);
  EXPECT_EQ(bad.status().message().rfind("bad prepare: ", 0), 0u);
  EXPECT_EQ(bad.status().message().find('\n'), std::string::npos);
}

TEST(Duck, ThreadsAtMostLowersTheSettingForItsLifetimeOnly) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok()) << db.status().message();
  Connection conn = MemoryConnection(*db);
  auto threads = [&] { return CurrentThreads(conn); };
  ASSERT_TRUE(conn.Execute("SET threads = 3", "set").ok());
  {
    auto limit = ThreadsSetting::AtMost(conn, 1);
    ASSERT_TRUE(limit.ok()) << limit.status().message();
    EXPECT_EQ(threads(), 1);
    ThreadsSetting moved = std::move(limit).value();  // the moved-from one restores nothing
    EXPECT_EQ(threads(), 1);
  }
  EXPECT_EQ(threads(), 3);
  {
    // At or under the limit already: left alone, and nothing is restored over a later change.
    auto limit = ThreadsSetting::AtMost(conn, 4);
    ASSERT_TRUE(limit.ok()) << limit.status().message();
    EXPECT_EQ(threads(), 3);
    ASSERT_TRUE(conn.Execute("SET threads = 2", "set").ok());
  }
  EXPECT_EQ(threads(), 2);
}

TEST(Duck, ThreadsAtDefaultRaisesAFewerThreadsDatabaseForItsLifetime) {
  Options one;
  one.threads = 1;
  auto db = Database::Open(":memory:", one);
  ASSERT_TRUE(db.ok()) << db.status().message();
  Connection conn = MemoryConnection(*db);
  auto threads = [&] { return CurrentThreads(conn); };
  ASSERT_TRUE(conn.Execute("RESET threads", "reset").ok());
  const int64_t all = threads();
  ASSERT_TRUE(conn.Execute("SET threads = 1", "set").ok());
  {
    auto raised = ThreadsSetting::AtDefault(conn);
    ASSERT_TRUE(raised.ok()) << raised.status().message();
    EXPECT_EQ(threads(), all);
    // Lowering inside it is restored by its own guard first.
    {
      auto lowered = ThreadsSetting::AtMost(conn, 1);
      ASSERT_TRUE(lowered.ok());
      EXPECT_EQ(threads(), 1);
    }
    EXPECT_EQ(threads(), all);
  }
  EXPECT_EQ(threads(), 1);
  {
    // Already at the default: left alone, and nothing is restored over a later change.
    ASSERT_TRUE(conn.Execute("RESET threads", "reset").ok());
    auto raised = ThreadsSetting::AtDefault(conn);
    ASSERT_TRUE(raised.ok());
    EXPECT_EQ(threads(), all);
    ASSERT_TRUE(conn.Execute("SET threads = 1", "set").ok());
  }
  EXPECT_EQ(threads(), 1);
}

TEST(Duck, DecimalsRenderExactlyWithTheirScale) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok());
  Connection conn = MemoryConnection(*db);
  auto result = conn.Query(
      "SELECT 0.005::DECIMAL(4,3), (-0.005)::DECIMAL(4,3), (-12.5)::DECIMAL(18,2), "
      "123456789012345678.000000000000000001::DECIMAL(38,18), 42::DECIMAL(10,0)",
      "decimals");
  ASSERT_TRUE(result.ok()) << result.status().message();
  auto rows = result->ToText();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "0.005");
  EXPECT_EQ(rows[0][1], "-0.005");
  EXPECT_EQ(rows[0][2], "-12.50");
  EXPECT_EQ(rows[0][3], "123456789012345678.000000000000000001");
  EXPECT_EQ(rows[0][4], "42");
}

}  // namespace
}  // namespace predlake::duck
