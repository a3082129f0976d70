#include "raw/store.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "raw_test_util.hpp"
#include "support/seeds.hpp"

namespace predlake::raw {
namespace {

using rawtest::TempDir;

TEST(SplitDecimalTest, SplitsPlainTextOnly) {
  using P = std::pair<int64_t, std::string>;
  EXPECT_EQ(SplitDecimal("292.091212458287"), P(292, "0.091212458287"));
  EXPECT_EQ(SplitDecimal("-12.5"), P(-12, "-0.5"));
  EXPECT_EQ(SplitDecimal("-0.25"), P(0, "-0.25"));
  EXPECT_EQ(SplitDecimal("7"), P(7, "0.0"));
  EXPECT_EQ(SplitDecimal("0.000000000000000001"), P(0, "0.000000000000000001"));
  EXPECT_EQ(SplitDecimal("999999999999999999.999999999999999999"),
            P(999999999999999999, "0.999999999999999999"));
  EXPECT_EQ(SplitDecimal("1e-5"), std::nullopt);
  EXPECT_EQ(SplitDecimal("1234567890123456789"), std::nullopt);    // 19 integer digits
  EXPECT_EQ(SplitDecimal("0.1234567890123456789"), std::nullopt);  // 19 fraction digits
  EXPECT_EQ(SplitDecimal("1."), std::nullopt);
  EXPECT_EQ(SplitDecimal(""), std::nullopt);
  EXPECT_EQ(SplitDecimal("-"), std::nullopt);
}

TEST(IsDecimalTextTest, AcceptsWhatDuckDbCastsExactly) {
  for (const char* ok :
       {"0", "-1", "1.5", "292.091212458287", "1e-5", "2.5E+3", "12345678901234567890.5"}) {
    EXPECT_TRUE(IsDecimalText(ok)) << ok;
  }
  for (const char* bad : {"", "-", ".5", "1.", "1e", "1e999", "nan", "inf", "1,5", " 1", "0x10",
                          "123456789012345678901"}) {
    EXPECT_FALSE(IsDecimalText(bad)) << bad;
  }
}

TEST(IsDecimalTextTest, RefusesWhatTheLakeWouldRound) {
  // Exactness is decided on the value: trailing zeros and the exponent count.
  for (const char* ok : {"1.000000000000000000000", "0.123456789012345678", "1e-18", "1.5e-17",
                         "100e-20", "-0.000000000000000001", "0e-99", "12345678901234567890",
                         "1.2345678901234567890e19", "0.0"}) {
    EXPECT_EQ(DecimalTextProblem(ok), "") << ok;
  }
  EXPECT_EQ(DecimalTextProblem("0.1234567890123456789"),
            "needs 19 fractional digits; the lake keeps 18 (DECIMAL(38, 18)) and does not round "
            "amounts");
  EXPECT_EQ(DecimalTextProblem("1e-19").substr(0, 25), "needs 19 fractional digit");
  EXPECT_EQ(DecimalTextProblem("1.5e-18").substr(0, 25), "needs 19 fractional digit");
  EXPECT_EQ(DecimalTextProblem("1e-99").substr(0, 25), "needs 99 fractional digit");
  EXPECT_EQ(DecimalTextProblem("1e20"),
            "has 21 integer digits; the lake keeps at most 20 (DECIMAL(38, 18))");
  EXPECT_EQ(DecimalTextProblem("1e12345"),
            "has an exponent too large for the lake's DECIMAL(38, 18)");
}

struct StoreFixture {
  TempDir dir;
  std::unique_ptr<lake::Lake> lake = rawtest::OpenTestLake(dir.path());
  Stager stager = std::move(Stager::Create(lake->conn())).value();

  std::vector<std::string> Column(const std::string& sql) {
    std::vector<std::string> out;
    auto r = lake->conn().Query(sql, "t");
    EXPECT_TRUE(r.ok()) << r.status().message();
    for (auto& row : r->ToText()) out.push_back(row[0].value_or("NULL"));
    return out;
  }
};

Row Payout(const std::string& id, const std::string& payout, int64_t ts = 1000) {
  return {id,     std::string("BTC/USDT"), std::string("0xu"), int64_t{1}, ts, payout, true,
          Cell(), std::string("1")};
}

TEST(StagerTest, DecimalsAreExactWhicheverWayTheyAreStaged) {
  StoreFixture f;
  std::vector<Row> rows = {
      Payout("a", "292.091212458287"),
      Payout("b", "-12.5"),
      Payout("c", "1e-5"),
      Payout("d", "12345678901234567890.123456789012345678"),
      Payout("e", "0.1234567890123456789"),  // rounded to the column's 18 digits by DuckDB
      Payout("f", "0"),
      Payout("g", "-0.000000000000000001")};
  rows.push_back(Payout("h", "5"));
  rows.back()[8] = Cell();  // NULL stake
  auto counts = f.stager.Store(*FindTable("pdr_payouts"), rows);
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  EXPECT_EQ(counts->rows_in, 8);
  EXPECT_EQ(counts->rows_out, 8);
  EXPECT_EQ(f.Column("SELECT CAST(payout AS VARCHAR) FROM pdr_payouts ORDER BY ID"),
            (std::vector<std::string>{
                "292.091212458287000000", "-12.500000000000000000", "0.000010000000000000",
                "12345678901234567890.123456789012345678", "0.123456789012345679",
                "0.000000000000000000", "-0.000000000000000001", "5.000000000000000000"}));
  EXPECT_EQ(f.Column("SELECT coalesce(CAST(stake AS VARCHAR), 'NULL') FROM pdr_payouts WHERE "
                     "ID = 'h'"),
            std::vector<std::string>{"NULL"});
}

TEST(StagerTest, RepeatedIdsAreStoredOnce) {
  StoreFixture f;
  const TableDef& payouts = *FindTable("pdr_payouts");
  auto first = f.stager.Store(payouts, {Payout("a", "1"), Payout("b", "2"), Payout("a", "1")});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->rows_in, 3);
  EXPECT_EQ(first->rows_out, 2);
  auto second = f.stager.Store(payouts, {Payout("b", "2"), Payout("c", "3")});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->rows_out, 1);
  EXPECT_EQ(f.Column("SELECT ID FROM pdr_payouts ORDER BY ID"),
            (std::vector<std::string>{"a", "b", "c"}));
  // Insert-only: a stored event is never rewritten.
  auto changed = f.stager.Store(payouts, {Payout("a", "99")});
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed->rows_out, 0);
  EXPECT_EQ(f.Column("SELECT CAST(payout AS INTEGER) FROM pdr_payouts WHERE ID = 'a'"),
            std::vector<std::string>{"1"});
}

TEST(StagerTest, SlotsKeepTheirLatestState) {
  StoreFixture f;
  const TableDef& slots = *FindTable("pdr_slots");
  auto slot = [](const std::string& id, Cell truevalue, const std::string& status) {
    return Row{id,        int64_t{300000},  int64_t{300},
               truevalue, std::string("0"), std::string("10.5"),
               status};
  };
  auto a =
      f.stager.Store(slots, {slot("x-300", Cell(), "Pending"), slot("y-300", Cell(), "Pending")});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->rows_out, 2);
  EXPECT_EQ(a->rows_updated, 0);
  auto b = f.stager.Store(slots, {slot("x-300", true, "Paying"), slot("y-300", Cell(), "Pending"),
                                  slot("x-300", true, "Paying")});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->rows_out, 0);
  EXPECT_EQ(b->rows_updated, 1);
  EXPECT_EQ(f.Column("SELECT ID || ' ' || coalesce(CAST(truevalue AS VARCHAR), '-') || ' ' || "
                     "status FROM pdr_slots ORDER BY ID"),
            (std::vector<std::string>{"x-300 true Paying", "y-300 - Pending"}));
}

TEST(StagerTest, AStoredCopyIsLookedForInTheStagedSlotsOnly) {
  StoreFixture f;
  const TableDef& payouts = *FindTable("pdr_payouts");
  auto range = [&](const std::string& rows) {
    auto r = StoredIdRange(f.lake->conn(), payouts, rows, "t");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : std::string();
  };
  ASSERT_TRUE(f.stager.Store(payouts, {Payout("a", "1")}).ok());
  // Literal constants (zone maps skip the other row groups); NULL or no rows bound nothing.
  EXPECT_EQ(range("SELECT 5 AS slot UNION ALL SELECT 9"), "stored.\"slot\" BETWEEN 5 AND 9");
  EXPECT_EQ(range("SELECT 5 AS slot UNION ALL SELECT NULL"), "TRUE");
  EXPECT_EQ(range("SELECT 5 AS slot WHERE false"), "FALSE");
  // A subscription's ID holds its transaction, so its timestamp bounds the search.
  auto subscriptions = StoredIdRange(f.lake->conn(), *FindTable("pdr_subscriptions"),
                                     "SELECT 7 AS \"timestamp\"", "t");
  ASSERT_TRUE(subscriptions.ok()) << subscriptions.status().message();
  EXPECT_EQ(*subscriptions, "stored.\"timestamp\" BETWEEN 7 AND 7");
  auto contracts = StoredIdRange(f.lake->conn(), lake::kContractsTable, "SELECT 1 AS x", "t");
  ASSERT_TRUE(contracts.ok());
  EXPECT_EQ(*contracts, "TRUE");
  // The same ID (same slot) at another time is the stored event: not stored twice.
  auto later = f.stager.Store(payouts, {Payout("a", "1", 999'000'000)});
  ASSERT_TRUE(later.ok()) << later.status().message();
  EXPECT_EQ(later->rows_out, 0);
  EXPECT_EQ(f.Column("SELECT count(*) FROM pdr_payouts"), std::vector<std::string>{"1"});
  // A row without a slot has no bound: the whole table is read, the copy still found.
  Row no_slot = Payout("a", "1");
  no_slot[3] = Cell();
  auto unbounded = f.stager.Store(payouts, {no_slot});
  ASSERT_TRUE(unbounded.ok()) << unbounded.status().message();
  EXPECT_EQ(unbounded->rows_out, 0);
}

TEST(StagerTest, RawTablesHaveNoIndexAndStoreInTimestampOrder) {
  StoreFixture f;
  EXPECT_EQ(f.Column("SELECT count(*) FROM duckdb_indexes() UNION ALL SELECT count(*) FROM "
                     "duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' AND table_name "
                     "NOT LIKE 'predlake%'"),
            (std::vector<std::string>{"0", "0"}));
  const TableDef& payouts = *FindTable("pdr_payouts");
  ASSERT_TRUE(f.stager
                  .Store(payouts, {Payout("c", "1", 3000), Payout("a", "1", 1000),
                                   Payout("b", "1", 2000), Payout("a", "1", 1000)})
                  .ok());
  EXPECT_EQ(f.Column("SELECT ID FROM pdr_payouts ORDER BY rowid"),
            (std::vector<std::string>{"a", "b", "c"}));
}

// Random batches of rows from a small pool of IDs, each batch its own transaction, against a
// model: an insert-only table keeps an ID's first stored values, an upsert table its latest; every
// ID is stored once; the counts say which IDs were new and which changed. An ID's slot is fixed
// (the ID holds it) while its timestamp and values vary, and some rows have no slot at all.
TEST(StagerTest, RandomBatchesStoreEachIdOnceAsTheModelSays) {
  for (int i = 1; i <= 6; ++i) {
    SCOPED_TRACE(test_support::SeedNote(i));
    StoreFixture f;
    std::mt19937 rng(static_cast<uint32_t>(test_support::PropertySeed(i)));
    const TableDef& payouts = *FindTable("pdr_payouts");
    const TableDef& slots = *FindTable("pdr_slots");
    std::map<std::string, std::string> payout_model, slot_model;  // ID -> value
    for (int batch = 0; batch < 12; ++batch) {
      const int n = 1 + static_cast<int>(rng() % 40);
      std::vector<Row> payout_rows, slot_rows;
      std::map<std::string, std::string> payout_batch, slot_batch;  // this batch's values
      for (int i = 0; i < n; ++i) {
        const int id = static_cast<int>(rng() % 60);
        const int64_t slot = 1000 + (id % 9) * 300;
        const std::string value = std::to_string(batch * 100 + id);  // one value per (ID, batch)
        Row payout = Payout("c-" + std::to_string(slot) + "-u" + std::to_string(id), value,
                            int64_t{1000} + static_cast<int64_t>(rng() % 100'000));
        payout[3] = rng() % 10 == 0 ? Cell() : Cell(slot);
        payout_batch[std::get<std::string>(payout[0])] = value;
        payout_rows.push_back(std::move(payout));
        const std::string slot_id = "c-" + std::to_string(slot + id);
        slot_rows.push_back(Row{slot_id, (slot + id) * 1000, slot + id, Cell(), std::string("0"),
                                value, std::string("Pending")});
        slot_batch[slot_id] = value;
      }
      int64_t new_payouts = 0, new_slots = 0, changed_slots = 0;
      for (const auto& [id, value] : payout_batch)
        new_payouts += payout_model.emplace(id, value).second;
      for (const auto& [id, value] : slot_batch) {
        auto [it, added] = slot_model.emplace(id, value);
        new_slots += added;
        if (!added && it->second != value) ++changed_slots, it->second = value;
      }
      auto tx = std::move(duck::Transaction::Begin(f.lake->conn())).value();
      auto p = f.stager.Store(payouts, payout_rows);
      ASSERT_TRUE(p.ok()) << p.status().message();
      auto s = f.stager.Store(slots, slot_rows);
      ASSERT_TRUE(s.ok()) << s.status().message();
      ASSERT_TRUE(tx.Commit().ok());
      EXPECT_EQ(p->rows_out, new_payouts) << "batch " << batch;
      EXPECT_EQ(s->rows_out, new_slots) << "batch " << batch;
      EXPECT_EQ(s->rows_updated, changed_slots) << "batch " << batch;
    }
    auto stored = [&](const std::string& sql) {
      std::map<std::string, std::string> out;
      auto r = f.lake->conn().Query(sql, "t");
      EXPECT_TRUE(r.ok()) << r.status().message();
      if (!r.ok()) return out;
      for (const auto& row : r->ToText()) {
        EXPECT_TRUE(out.emplace(*row[0], *row[1]).second) << "stored twice: " << *row[0];
      }
      return out;
    };
    EXPECT_EQ(stored("SELECT ID, CAST(CAST(payout AS BIGINT) AS VARCHAR) FROM pdr_payouts"),
              payout_model);
    EXPECT_EQ(stored("SELECT ID, CAST(CAST(roundSumStakes AS BIGINT) AS VARCHAR) FROM pdr_slots"),
              slot_model);
  }
}

// A stored prediction without a slot could be a copy of any staged one: the versions' merge then
// reads the whole table, so the ID is still stored once (and a later version still replaces it).
TEST(StagerTest, AStoredPredictionWithoutASlotIsStillFound) {
  StoreFixture f;
  const TableDef& predictions = *FindTable("pdr_predictions");
  auto prediction = [](Cell slot, int64_t ts, const std::string& stake) {
    return Row{std::string("0xc-300-0xu"),
               std::string("0xc"),
               std::string("BTC/USDT"),
               std::string("5m"),
               true,
               stake,
               Cell(),
               ts,
               std::string("binance"),
               Cell(),
               slot,
               std::string("0xu")};
  };
  ASSERT_TRUE(f.stager.Store(predictions, {prediction(Cell(), 1000, "1")}).ok());
  auto same = f.stager.Store(predictions, {prediction(int64_t{300}, 1000, "1")});
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same->rows_out, 0);
  auto newer = f.stager.Store(predictions, {prediction(int64_t{300}, 2000, "2")});
  ASSERT_TRUE(newer.ok()) << newer.status().message();
  EXPECT_EQ(newer->rows_out, 0);
  EXPECT_EQ(newer->rows_updated, 1);
  EXPECT_EQ(f.Column("SELECT timestamp || ' ' || CAST(CAST(stake AS INTEGER) AS VARCHAR) FROM "
                     "pdr_predictions"),
            std::vector<std::string>{"2000 2"});
  EXPECT_EQ(f.Column("SELECT timestamp || ' ' || superseded_at FROM predlake_prediction_versions"),
            std::vector<std::string>{"1000 2000"});
}

TEST(StagerTest, RolledBackStoreLeavesNothing) {
  StoreFixture f;
  {
    auto tx = std::move(duck::Transaction::Begin(f.lake->conn())).value();
    ASSERT_TRUE(f.stager.Store(*FindTable("pdr_payouts"), {Payout("a", "1")}).ok());
  }
  EXPECT_EQ(f.Column("SELECT count(*) FROM pdr_payouts"), std::vector<std::string>{"0"});
  ASSERT_TRUE(f.stager.Clear().ok());
  auto again = f.stager.Store(*FindTable("pdr_payouts"), {Payout("a", "1")});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->rows_out, 1);
}

TEST(StagerTest, RowOfTheWrongWidthIsAnInternalError) {
  StoreFixture f;
  auto r = f.stager.Store(*FindTable("pdr_payouts"), {Row{std::string("a")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(TableStageTest, WriteSkipsTheStatementsWhenTheCountIsZeroAndEmptiesTheStageEitherWay) {
  StoreFixture f;
  ASSERT_TRUE(
      f.lake->conn().Execute("CREATE TABLE kv (k VARCHAR PRIMARY KEY, v BIGINT)", "t").ok());
  ASSERT_TRUE(f.lake->conn().Execute("INSERT INTO kv VALUES ('a', 1)", "t").ok());
  auto fill = [&](int64_t v) {
    auto stage = TableStage::Open(f.lake->conn(), "kv", "store kv");
    EXPECT_TRUE(stage.ok()) << stage.status().message();
    EXPECT_TRUE(stage->appender().Append(std::string_view("a")).ok());
    EXPECT_TRUE(stage->appender().Append(v).ok());
    EXPECT_TRUE(stage->appender().EndRow().ok());
    return std::move(stage).value();
  };
  const std::string changed = "FROM kv_stage EXCEPT FROM kv";
  const std::vector<std::string> upsert = {
      "UPDATE kv SET v = s.v FROM kv_stage AS s WHERE kv.k = s.k AND kv.v <> s.v",
      "INSERT INTO kv SELECT * FROM kv_stage AS s WHERE s.k NOT IN (SELECT k FROM kv)"};
  {
    // Unchanged: counted 0, not written (the statement would fail: the count says what to skip).
    TableStage stage = fill(1);
    auto n = stage.Write("SELECT count(*) FROM (" + changed + ")", {"INSERT INTO nowhere"});
    ASSERT_TRUE(n.ok()) << n.status().message();
    EXPECT_EQ(*n, 0);
  }
  EXPECT_EQ(f.Column("SELECT count(*) FROM kv_stage"), std::vector<std::string>{"0"});
  {
    TableStage stage = fill(2);
    auto n = stage.Write("SELECT count(*) FROM (" + changed + ")", upsert);
    ASSERT_TRUE(n.ok()) << n.status().message();
    EXPECT_EQ(*n, 1);
  }
  EXPECT_EQ(f.Column("SELECT v FROM kv"), std::vector<std::string>{"2"});
  EXPECT_EQ(f.Column("SELECT count(*) FROM kv_stage"), std::vector<std::string>{"0"});
}

}  // namespace
}  // namespace predlake::raw
