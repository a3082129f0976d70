// Snapshots (src/export): for random schedules of raw updates, ETL updates with arbitrary ends, ETL
// rollbacks (some from a midnight: whole days deleted), raw drops with refills, rebuilds and a
// backfill (the start moved a day earlier), an incremental export after every step holds exactly
// the lake's rows, table for table and row for row (so it equals a full export, which is checked
// to hold them too), while it rewrites only changed days. The built tables' changed days are
// derived from run_id (with a fallback to the per-day signature when the counts do not add up);
// direct edits of built rows check that derivation on the cases it must catch: a day that only
// lost rows, a whole day deleted, a row of an old day re-stamped (a fold), rows of a day before
// the first one (a backfill); the append-only raw tables' days outside the previous coverage,
// checked the same way, on a late row inside it; the days the writes of pdr_predictions and
// pdr_slots record (predlake_raw_days), on writes through the raw store and raw drop and on
// direct deletes no write records. An injected failure at every export step leaves
// the previous snapshot current and nothing behind.
//
// PREDLAKE_EXPORT_SEEDS (schedules, default 3; 1 under the sanitizers) scales it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "../raw/raw_test_util.hpp"
#include "etl/etl.hpp"
#include "export/export.hpp"
#include "export/snapshot.hpp"
#include "fmt/format.h"
#include "raw/store.hpp"
#include "raw/update.hpp"
#include "schedule_steps.hpp"
#include "support/rng.hpp"
#include "support/seeds.hpp"

namespace predlake::jobs {
namespace {

namespace fs = std::filesystem;
using raw::rawtest::Ms;
using raw::rawtest::TempDir;
using test_support::Rng;

int ExportSeedCount() { return test_support::SeedCount("PREDLAKE_EXPORT_SEEDS", 2, 1); }

config::SimConfig ExportWorld() {
  // Four days, so that a snapshot has days to link and days to rewrite.
  config::SimConfig c;
  c.seed = 11;
  c.start = "2024-07-20";
  c.now = "2024-07-23_12:00";
  c.num_predictoors = 3;
  c.pairs = {"BTC/USDT", "ETH/USDT"};
  // Re-submissions replace stored prediction rows in place (each fetch reads a subgraph whose
  // now is the fetch's end, so a head between two submissions stores the first).
  c.resubmitted_predictions = 0.2;
  return c;
}

int64_t Int(lake::Lake& lake, const std::string& sql) {
  auto v = lake.conn().QueryInt(sql, "test");
  EXPECT_TRUE(v.ok()) << v.status().message() << "\n" << sql;
  return v.ok() ? v->value_or(-1) : -1;
}

std::string FileList(const std::vector<std::string>& files) {
  std::string list;
  for (const std::string& f : files) list += (list.empty() ? "'" : ", '") + f + "'";
  return "[" + list + "]";
}

// Rows of `table` in the lake and not in the snapshot's files, plus the reverse (multisets).
int64_t Difference(lake::Lake& lake, const exports::Snapshot& snapshot, std::string_view table,
                   const std::string& where = "") {
  const std::string t(table);
  std::vector<std::string> files = exports::SnapshotFiles(snapshot, t);
  if (files.empty()) return Int(lake, "SELECT count(*) FROM " + t + where);
  auto cols = lake.conn()
                  .Query("SELECT column_name FROM information_schema.columns WHERE table_name = '" +
                             t + "' ORDER BY ordinal_position",
                         "test")
                  .value()
                  .ToText();
  std::string select;
  for (const auto& c : cols) select += (select.empty() ? "\"" : ", \"") + *c[0] + "\"";
  // One pass over each side (two EXCEPT ALLs read both twice): each distinct row's count in the
  // lake less its count in the files, summed in absolute value.
  return Int(lake,
             "SELECT coalesce(sum(abs(n)), 0)::BIGINT FROM (SELECT sum(side_) AS n FROM (SELECT " +
                 select + ", 1 AS side_ FROM " + t + where + " UNION ALL SELECT " + select +
                 ", -1 FROM read_parquet(" + FileList(files) + ")) GROUP BY " + select +
                 " HAVING n <> 0)");
}

// The current snapshot holds exactly the lake's data and ledger.
void ExpectSnapshotEqualsLake(lake::Lake& lake, int64_t export_run, const std::string& what) {
  auto current = exports::ReadCurrent(lake.dir());
  ASSERT_TRUE(current.ok()) << current.status().message();
  ASSERT_TRUE(current->has_value()) << what;
  const exports::Snapshot& snap = **current;
  EXPECT_EQ(snap.run_id, export_run);
  for (const exports::ExportTable& table : exports::DataTables()) {
    EXPECT_EQ(Difference(lake, snap, table.name), 0) << what << ": " << table.name;
  }
  EXPECT_EQ(
      Difference(lake, snap, "predlake_runs", " WHERE run_id <> " + std::to_string(export_run)), 0)
      << what;
  EXPECT_EQ(Difference(lake, snap, "predlake_watermarks"), 0) << what;
  EXPECT_EQ(Difference(lake, snap, "predlake_checkpoint"), 0) << what;
}

Result<exports::ExportReport> RunOneExport(lake::Lake& lake, const exports::ExportOptions& o) {
  ASSIGN_OR_RETURN(lake::Run run, lake.BeginRun("export"));
  Result<exports::ExportReport> r = exports::Export(lake, run, o);
  if (!r.ok()) return run.Fail(r.status());
  return r;
}

class ExportProperty : public ::testing::TestWithParam<int> {};

TEST_P(ExportProperty, IncrementalSnapshotsHoldExactlyTheLake) {
  const config::SimConfig world = ExportWorld();
  SCOPED_TRACE(test_support::SeedNote(GetParam()));
  const uint64_t seed = test_support::PropertySeed(GetParam());
  Rng rng(seed * 104729 + 3);
  auto engine = raw::rawtest::MakeEngine(world);
  ASSERT_NE(engine, nullptr);
  const int64_t start = Ms(world.start);
  const int64_t head = engine->HeadMs();
  raw::rawtest::NoSleep sleep;
  TempDir dir;
  auto lake = raw::rawtest::OpenTestLake(dir.path());
  ASSERT_NE(lake, nullptr);

  // Mostly a few hours past the lake's end, so that late truevals and payouts change rows of
  // earlier days whose row counts stay the same (what a row-count signature would miss).
  int64_t lake_end = start;
  // The lake starts a day after the world; a backfill step moves its start to the world's.
  int64_t lake_start = start + 86'400'000;
  auto random_time = [&]() {
    if (rng.Chance(70)) return std::min(head, lake_end + rng.Uniform(1, 12) * 3'600'000);
    return start + rng.Uniform(0, (head - start) / 60'000) * 60'000;
  };
  int64_t seen_head = 0;
  auto fetch = [&](int64_t end_ms) {
    lake_end = std::max(lake_end, std::min(end_ms, head));
    raw::UpdateOptions o;
    o.start_ms = lake_start;
    o.end_ms = end_ms;
    o.sleeper = &sleep;
    // The subgraph as of the fetch: its head never goes back (raw::Update refuses an older head
    // than the lake's newest), but after a raw drop, which forgets it.
    config::SimConfig at = world;
    seen_head = std::max(seen_head, std::min(end_ms, Ms(world.now)));
    at.now = std::to_string(seen_head);
    auto r = raw::rawtest::RunUpdate(
        *lake, o, raw::rawtest::SimFactory(raw::rawtest::MakeEngine(at)), nullptr);
    ASSERT_TRUE(r.ok()) << r.status().message();
  };
  auto build = [&](std::optional<int64_t> to_ms) {
    auto run = lake->BeginRun("etl update");
    ASSERT_TRUE(run.ok()) << run.status().message();
    etl::UpdateOptions o;
    o.to_ms = to_ms;
    o.st_ms = lake_start;
    auto r = etl::Update(*lake, *run, o);
    ASSERT_TRUE(r.ok()) << r.status().message();
  };

  // A first lake up to a random time, and its full snapshot.
  // Up to a midnight: later runs add rows to later days and only change those of earlier days.
  fetch(Ms("2024-07-22"));
  build(std::nullopt);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  exports::ExportOptions options;
  auto first = RunOneExport(*lake, options);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->days_linked, 0);
  ExpectSnapshotEqualsLake(*lake, first->run_id, "first export");

  int64_t linked = 0, derived = 0, recorded = 0;
  // Each step costs a few seconds: within the 120 s of a CTest unit entry. Four under the
  // sanitizers (the fourth backfills for odd seeds), where a step runs the same code slower.
  const int steps = test_support::kSanitized ? 4 : 5;
  for (int step = 0; step < steps; ++step) {
    std::string what;
    const int64_t t = random_time();
    // Odd seeds backfill at the fourth step for sure (the choice is random otherwise).
    const int64_t choice = step == 3 && seed % 2 == 1 ? 6 : rng.Uniform(0, 8);
    switch (choice) {
      case 0:
        what = "raw update --to " + FormatTime(t);
        fetch(t);
        break;
      case 1:
        what = "etl update --to " + FormatTime(t);
        build(t);
        break;
      case 2: {
        // From a midnight half of the time: whole days of the built tables go.
        const int64_t from = rng.Chance(50) ? t - t % 86'400'000 : t;
        what = "etl drop --from " + FormatTime(from);
        ASSERT_TRUE(EtlDropFrom(*lake, from));
        break;
      }
      case 3: {
        what = "raw drop --from " + FormatTime(t) + ", then raw update and etl update";
        ASSERT_TRUE(RawDropFrom(*lake, t));
        seen_head = 0;
        fetch(random_time());
        build(std::nullopt);
        break;
      }
      case 4: {
        what = "etl rebuild";
        auto run = lake->BeginRun("etl rebuild");
        ASSERT_TRUE(run.ok());
        etl::UpdateOptions o;
        o.st_ms = lake_start;
        auto r = etl::Rebuild(*lake, *run, o);
        ASSERT_TRUE(r.ok()) << r.status().message();
        break;
      }
      case 6:
        what = "backfill: the start moved to " + FormatTime(start) + ", then update";
        lake_start = start;
        fetch(lake_end);
        build(std::nullopt);
        break;
      case 5:
        what = "nothing";
        break;
      default:
        what = "update to " + FormatTime(t);
        fetch(t);
        build(std::nullopt);
        break;
    }
    ASSERT_FALSE(::testing::Test::HasFatalFailure()) << what;
    auto report = RunOneExport(*lake, options);
    ASSERT_TRUE(report.ok()) << what << ": " << report.status().message();
    linked += report->days_linked;
    derived += report->tables_derived - report->signature_fallbacks;
    for (const std::string& t : report->derived_tables) {
      recorded += t == "pdr_predictions" || t == "pdr_slots" ? 1 : 0;
    }
    ExpectSnapshotEqualsLake(
        *lake, report->run_id,
        "seed " + std::to_string(seed) + " step " + std::to_string(step) + " (" + what + ")");
  }
  EXPECT_GT(linked, 0) << "no export linked a day: the schedule never tested the incremental path";
  EXPECT_GT(derived, 0) << "no export derived a built table's changed days from run_id";
  EXPECT_GT(recorded, 0) << "no export took the changed days of pdr_predictions or pdr_slots "
                            "from the days their writes recorded";

  // A full export of the final lake holds the same rows.
  exports::ExportOptions full = options;
  full.full = true;
  auto last = RunOneExport(*lake, full);
  ASSERT_TRUE(last.ok()) << last.status().message();
  EXPECT_EQ(last->days_linked, 0);
  ExpectSnapshotEqualsLake(*lake, last->run_id, "full export");
  // The comparison sees a difference when there is one: one row left out of the lake's side is
  // one row of difference (whatever the schedule left in the table, when it left any).
  auto current = exports::ReadCurrent(lake->dir());
  ASSERT_TRUE(current.ok() && current->has_value());
  if (Int(*lake, "SELECT count(*) FROM bronze_pdr_predictions") > 0) {
    EXPECT_EQ(Difference(*lake, **current, "bronze_pdr_predictions",
                         " WHERE ID <> (SELECT min(ID) FROM bronze_pdr_predictions)"),
              1);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, ExportProperty, ::testing::Range(0, ExportSeedCount()));

// The days of `table` the export `run` wrote (its files are named part-<run>-*), the others being
// linked from earlier snapshots.
std::vector<std::string> DaysWrittenBy(const exports::Snapshot& snap, std::string_view table,
                                       int64_t run) {
  std::vector<std::string> out;
  const std::string mark = fmt::format("/part-{:06d}-", run);
  for (const auto& t : snap.manifest["tables"]) {
    if (t["name"] != table) continue;
    for (const auto& p : t["parts"]) {
      for (const auto& f : p["files"]) {
        if (f.get<std::string>().find(mark) != std::string::npos) {
          out.push_back(p["day"].get<std::string>());
          break;
        }
      }
    }
  }
  return out;
}

// The export world's raw tables in a new lake, fetched from the world's start up to a day.
class Export : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = raw::rawtest::MakeEngine(world_);
    ASSERT_NE(engine_, nullptr);
    lake_ = raw::rawtest::OpenTestLake(dir_.path());
    ASSERT_NE(lake_, nullptr);
    fetch_.start_ms = Ms(world_.start);
    fetch_.sleeper = &sleep_;
  }

  // Fetches every raw table up to `day` (from where it stands).
  void Fetch(const std::string& day) {
    fetch_.end_ms = Ms(day);
    ASSERT_TRUE(
        raw::rawtest::RunUpdate(*lake_, fetch_, raw::rawtest::SimFactory(engine_), nullptr).ok());
  }

  const config::SimConfig world_ = ExportWorld();
  std::shared_ptr<const sim::Engine> engine_;
  raw::rawtest::NoSleep sleep_;
  TempDir dir_;
  std::unique_ptr<lake::Lake> lake_;
  raw::UpdateOptions fetch_;
};

TEST_F(Export, DerivedChangedDaysCatchEveryKindOfEditOfABuiltTable) {
  // Direct edits of the built tables, each the smallest form of what an ETL run may do, with an
  // incremental export after each: the snapshot must hold exactly the lake.
  Fetch("2024-07-23");
  {
    auto run = lake_->BeginRun("etl update");
    ASSERT_TRUE(run.ok());
    etl::UpdateOptions o;
    o.st_ms = Ms(world_.start);
    ASSERT_TRUE(etl::Update(*lake_, *run, o).ok());
  }
  ASSERT_TRUE(RunOneExport(*lake_, {}).ok());
  ASSERT_GT(Int(*lake_, "SELECT count(*) FROM bronze_pdr_predictions WHERE timestamp < " +
                            std::to_string(Ms("2024-07-21"))),
            0);
  const std::string newer = "(SELECT max(run_id) + 1 FROM predlake_runs)";
  struct Edit {
    std::string what, sql;
    bool falls_back;  // rows left a day without a newer row: only the counts can tell
  };
  const std::vector<Edit> edits = {
      {"a fold into the first day (one row re-stamped)",
       "UPDATE bronze_pdr_predictions SET payout = 1.5, run_id = " + newer +
           " WHERE ID = (SELECT min(ID) FROM bronze_pdr_predictions WHERE timestamp < " +
           std::to_string(Ms("2024-07-21")) + ")",
       false},
      {"rows gone from a day that has no newer row",
       "DELETE FROM bronze_pdr_slots WHERE ID IN (SELECT ID FROM bronze_pdr_slots WHERE "
       "timestamp < " +
           std::to_string(Ms("2024-07-21")) + " ORDER BY ID LIMIT 3)",
       true},
      {"a whole day deleted", "DELETE FROM gold_feed_daily WHERE day = DATE '2024-07-21'", true},
      {"a row gone from one day and a row re-stamped in another",
       "DELETE FROM bronze_pdr_predictions WHERE ID = (SELECT max(ID) FROM bronze_pdr_predictions "
       "WHERE timestamp < " +
           std::to_string(Ms("2024-07-21")) + "); UPDATE bronze_pdr_predictions SET run_id = " +
           newer + " WHERE ID = (SELECT min(ID) FROM bronze_pdr_predictions WHERE timestamp >= " +
           std::to_string(Ms("2024-07-22")) + ")",
       true},
      {"a late raw row inside a day the previous snapshot covered",
       "INSERT INTO pdr_payouts SELECT * REPLACE (ID || '-late' AS ID) FROM pdr_payouts WHERE "
       "timestamp >= " +
           std::to_string(Ms("2024-07-21")) + " AND timestamp < " +
           std::to_string(Ms("2024-07-22")) + " ORDER BY ID LIMIT 1",
       true},
      {"days before the first one (a backfill)",
       "INSERT INTO gold_feed_daily SELECT * REPLACE (day - 3 AS day, " + newer +
           " AS run_id) FROM gold_feed_daily WHERE day = DATE '2024-07-20'",
       false},
  };
  for (const Edit& edit : edits) {
    SCOPED_TRACE(edit.what);
    ASSERT_TRUE(lake_->conn().Execute(edit.sql, "test").ok()) << edit.sql;
    auto report = RunOneExport(*lake_, {});
    ASSERT_TRUE(report.ok()) << report.status().message();
    // Bronze, gold and the append-only raw tables: none was rewritten whole.
    EXPECT_EQ(report->tables_derived, 10);  // not pdr_ohlcv (watermarks per stream)
    EXPECT_EQ(report->signature_fallbacks, edit.falls_back ? 1 : 0);
    EXPECT_GT(report->days_linked, 0);
    ExpectSnapshotEqualsLake(*lake_, report->run_id, edit.what);
  }
  auto current = exports::ReadCurrent(lake_->dir());
  ASSERT_TRUE(current.ok() && current->has_value());
  // The last edit wrote the new day of gold_feed_daily and nothing else of it.
  EXPECT_EQ(DaysWrittenBy(**current, "gold_feed_daily", (*current)->run_id),
            (std::vector<std::string>{"2024-07-17"}));
}

// The stored row of `table` that `where` selects first (by ID), as the store takes it.
raw::Row StoredRow(lake::Lake& lake, const lake::TableDef& table, const std::string& where) {
  auto result = lake.conn().Query(
      "SELECT * FROM " + std::string(table.name) + " WHERE " + where + " ORDER BY ID LIMIT 1", "t");
  EXPECT_TRUE(result.ok()) << result.status().message();
  raw::Row row;
  if (!result.ok()) return row;
  auto text = result->ToText();
  EXPECT_EQ(text.size(), 1u) << where;
  if (text.size() != 1) return row;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const std::optional<std::string>& v = text[0][i];
    if (!v) {
      row.emplace_back();
    } else if (table.columns[i].type == lake::ColumnType::kBigint) {
      row.emplace_back(int64_t{std::stoll(*v)});
    } else if (table.columns[i].type == lake::ColumnType::kBoolean) {
      row.emplace_back(*v == "true");
    } else {
      row.emplace_back(*v);
    }
  }
  return row;
}

TEST_F(Export, RecordedChangedDaysCatchEveryWriteOfPredictionsAndSlots) {
  // pdr_predictions and pdr_slots change in place; their writes record the days they touch
  // (predlake_raw_days). Each edit is the smallest form of a write (through the raw store, or
  // `raw drop`), or a change no write makes (a direct delete), with an incremental export after
  // each: the snapshot must hold exactly the lake, and the table falls back to its signature only
  // when a row left a day nothing recorded.
  Fetch("2024-07-23");
  ASSERT_TRUE(RunOneExport(*lake_, {}).ok());
  auto stager = raw::Stager::Create(lake_->conn());
  ASSERT_TRUE(stager.ok()) << stager.status().message();
  auto store = [&](const lake::TableDef& table, raw::Row row) {
    auto tx = duck::Transaction::Begin(lake_->conn());
    ASSERT_TRUE(tx.ok());
    auto r = stager->Store(table, {std::move(row)});
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_TRUE(tx->Commit().ok());
  };
  // Days inside the previous snapshot's coverage (the world starts on the 20th: its first day is
  // counted anyway, as a backfill's would be).
  const std::string day21 = std::to_string(Ms("2024-07-21"));
  const std::string day22 = std::to_string(Ms("2024-07-22"));
  const std::string day23 = std::to_string(Ms("2024-07-23"));
  const lake::TableDef& slots = lake::kSlotsTable;
  const lake::TableDef& preds = lake::kPredictionsTable;
  const size_t slot_ts = lake::Col(lake::kSlotsTable, "timestamp");
  const size_t slot_status = lake::Col(lake::kSlotsTable, "status");
  const size_t pred_ts = lake::Col(lake::kPredictionsTable, "timestamp");
  const size_t pred_stake = lake::Col(lake::kPredictionsTable, "stake");
  int64_t resubmitted_at = 0;  // the new timestamp of the re-submitted prediction
  struct Edit {
    std::string what;
    std::function<void()> apply;
    std::vector<std::string> fallbacks;  // the tables whose counts cannot add up
    std::string table;                   // when set: the only days of it the export writes
    std::vector<std::string> days;
  };
  const std::vector<Edit> edits = {
      {"a slot of an old day upserted in place (its status)",
       [&] {
         raw::Row row = StoredRow(
             *lake_, slots,
             "timestamp >= " + day21 + " AND timestamp < " + day22 + " AND status IS NOT NULL");
         ASSERT_FALSE(row.empty());
         row[slot_status] = std::get<std::string>(row[slot_status]) + "-changed";
         store(slots, std::move(row));
       },
       {},
       "pdr_slots",
       {"2024-07-21"}},
      {"a prediction of an old day re-submitted into a later old day",
       [&] {
         raw::Row row =
             StoredRow(*lake_, preds, "timestamp >= " + day21 + " AND timestamp < " + day22);
         ASSERT_FALSE(row.empty());
         resubmitted_at = std::get<int64_t>(row[pred_ts]) + 86'400'000;
         row[pred_ts] = resubmitted_at;
         row[pred_stake] = std::string("123.5");
         store(preds, std::move(row));
       },
       {},
       "pdr_predictions",
       {"2024-07-21", "2024-07-22"}},
      {"a slot moved to another old day by the store (its old day is not recorded)",
       [&] {
         raw::Row row =
             StoredRow(*lake_, slots, "timestamp >= " + day21 + " AND timestamp < " + day22);
         ASSERT_FALSE(row.empty());
         row[slot_ts] = std::get<int64_t>(row[slot_ts]) + 86'400'000;
         store(slots, std::move(row));
       },
       {"pdr_slots"},
       "",
       {}},
      {"a slot row deleted directly (no write records it)",
       [&] {
         ASSERT_TRUE(lake_->conn()
                         .Execute("DELETE FROM pdr_slots WHERE ID = (SELECT min(ID) FROM pdr_slots "
                                  "WHERE timestamp >= " +
                                      day22 + " AND timestamp < " + day23 + ")",
                                  "test")
                         .ok());
       },
       {"pdr_slots"},
       "",
       {}},
      {"a prediction row deleted directly (no write records it)",
       [&] {
         ASSERT_TRUE(lake_->conn()
                         .Execute("DELETE FROM pdr_predictions WHERE ID = (SELECT max(ID) FROM "
                                  "pdr_predictions WHERE timestamp >= " +
                                      day21 + " AND timestamp < " + day22 + ")",
                                  "test")
                         .ok());
       },
       {"pdr_predictions"},
       "",
       {}},
      {"a raw drop between the two versions of the re-submitted prediction (restored)",
       [&] { ASSERT_TRUE(RawDropFrom(*lake_, resubmitted_at)); },
       {},
       "",
       {}},
  };
  for (const Edit& edit : edits) {
    SCOPED_TRACE(edit.what);
    edit.apply();
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    auto report = RunOneExport(*lake_, {});
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(report->signature_fallbacks, static_cast<int64_t>(edit.fallbacks.size()));
    for (const std::string t : {"pdr_predictions", "pdr_slots"}) {
      const bool derived =
          std::count(report->derived_tables.begin(), report->derived_tables.end(), t) > 0;
      const bool falls_back = std::count(edit.fallbacks.begin(), edit.fallbacks.end(), t) > 0;
      EXPECT_EQ(derived, !falls_back) << t;
    }
    EXPECT_GT(report->days_linked, 0);
    ExpectSnapshotEqualsLake(*lake_, report->run_id, edit.what);
    if (!edit.table.empty()) {
      auto current = exports::ReadCurrent(lake_->dir());
      ASSERT_TRUE(current.ok() && current->has_value());
      EXPECT_EQ(DaysWrittenBy(**current, edit.table, (*current)->run_id), edit.days);
    }
  }
  // The drop put the first version back.
  EXPECT_EQ(Int(*lake_, "SELECT count(*) FROM pdr_predictions WHERE stake = 123.5"), 0);
}

TEST_F(Export, AFailureAtAnyStepLeavesThePreviousSnapshotCurrentAndNothingBehind) {
  Fetch("2024-07-21");
  auto first = RunOneExport(*lake_, {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  Fetch("2024-07-22");

  const fs::path exports = exports::ExportsDir(dir_.path());
  for (const char* step : {"copy", "manifest", "fsync", "rename", "switch"}) {
    SCOPED_TRACE(step);
    exports::ExportOptions o;
    o.faults.fail_at = step;
    auto r = RunOneExport(*lake_, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInternal);
    EXPECT_NE(r.status().message().find(step), std::string::npos) << r.status().message();
    auto current = exports::ReadCurrent(dir_.path());
    ASSERT_TRUE(current.ok() && current->has_value());
    EXPECT_EQ((*current)->run_id, first->run_id);
    // Only the current snapshot and its link: the failed export removed its folder.
    std::vector<std::string> entries;
    for (const auto& e : fs::directory_iterator(exports)) {
      entries.push_back(e.path().filename().string());
    }
    std::sort(entries.begin(), entries.end());
    EXPECT_EQ(entries,
              (std::vector<std::string>{"current", exports::SnapshotFolderName(first->run_id)}));
    EXPECT_EQ(Int(*lake_,
                  "SELECT count(*) FROM predlake_runs WHERE command = 'export' AND status "
                  "= 'failed' AND error LIKE '%" +
                      std::string(step) + "%'"),
              1);
  }
  // A dead export's folder (a kill) is removed by the next one, which then becomes current.
  fs::create_directories(exports / ".tmp-run-000999" / "pdr_predictions");
  auto next = RunOneExport(*lake_, {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_FALSE(fs::exists(exports / ".tmp-run-000999"));
  ExpectSnapshotEqualsLake(*lake_, next->run_id, "after the failures");
  EXPECT_GT(next->days_linked, 0);
}

// The manifest part of `day` of `table` in `snap` (null when there is none).
nlohmann::json PartOf(const exports::Snapshot& snap, std::string_view table, std::string_view day) {
  for (const auto& t : snap.manifest["tables"]) {
    if (t["name"] != table) continue;
    for (const auto& p : t["parts"]) {
      if (p.value("day", "") == day) return p;
    }
  }
  return nullptr;
}

TEST_F(Export, AnHourlyExportRewritesOnlyTheChangedHoursOfTheNewestDay) {
  Fetch("2024-07-21_12:00");
  auto first = RunOneExport(*lake_, {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  Fetch("2024-07-21_14:00");
  auto second = RunOneExport(*lake_, {});
  ASSERT_TRUE(second.ok()) << second.status().message();
  ExpectSnapshotEqualsLake(*lake_, second->run_id, "two hours later");
  EXPECT_GT(second->hours_linked, 0);
  EXPECT_GT(second->hours_written, 0);
  auto current = exports::ReadCurrent(dir_.path());
  ASSERT_TRUE(current.ok() && current->has_value());
  // pdr_truevals is append-only: the hours before the first export's end are linked, the two
  // new ones written, each hour's files in the day's folder.
  const nlohmann::json part = PartOf(**current, "pdr_truevals", "2024-07-21");
  ASSERT_TRUE(part.is_object());
  ASSERT_TRUE(part.contains("hours")) << part.dump();
  const std::string mark = fmt::format("/part-{:06d}-h", second->run_id);
  int64_t rows = 0;
  for (const auto& h : part["hours"]) {
    const int64_t hour = h["hour"].get<int64_t>();
    rows += h["rows"].get<int64_t>();
    ASSERT_FALSE(h["files"].empty()) << h.dump();
    const std::string file = h["files"][0].get<std::string>();
    EXPECT_EQ(file.rfind("pdr_truevals/day=2024-07-21/", 0), 0u) << file;
    if (hour < 11) {
      EXPECT_EQ(file.find(mark), std::string::npos) << file;
    }
    if (hour >= 12) {
      EXPECT_NE(file.find(mark), std::string::npos) << file;
    }
  }
  EXPECT_EQ(rows, part["rows"].get<int64_t>());
  // The newest two days are held in hours. Once the day has left them, it is written as one file
  // set when it changes (here: the rest of its rows).
  Fetch("2024-07-23_02:00");
  auto third = RunOneExport(*lake_, {});
  ASSERT_TRUE(third.ok()) << third.status().message();
  ExpectSnapshotEqualsLake(*lake_, third->run_id, "two days later");
  current = exports::ReadCurrent(dir_.path());
  ASSERT_TRUE(current.ok() && current->has_value());
  const nlohmann::json old_day = PartOf(**current, "pdr_truevals", "2024-07-21");
  EXPECT_FALSE(old_day.contains("hours")) << old_day.dump();
  EXPECT_EQ(old_day["files"].size(), 1u) << old_day.dump();
  EXPECT_TRUE(PartOf(**current, "pdr_truevals", "2024-07-22").contains("hours"));
  EXPECT_TRUE(PartOf(**current, "pdr_truevals", "2024-07-23").contains("hours"));
}

TEST_F(Export, ADayWhoseFilesCannotBeLinkedIsWrittenAgain) {
  Fetch("2024-07-22");
  auto first = RunOneExport(*lake_, {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto current = exports::ReadCurrent(dir_.path());
  ASSERT_TRUE(current.ok() && current->has_value());
  // One day's files of pdr_payouts gone from the previous snapshot (a user's mistake, a disk
  // error): nothing changed in the lake, yet that day cannot be shared and is written again.
  const std::vector<std::string> files = exports::SnapshotFiles(**current, "pdr_payouts");
  ASSERT_FALSE(files.empty());
  const fs::path gone = files.front();
  const std::string day = gone.parent_path().filename().string();
  for (const auto& f : fs::directory_iterator(gone.parent_path())) fs::remove(f.path());
  auto next = RunOneExport(*lake_, {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->days_written, 1);
  EXPECT_GT(next->days_linked, 0);
  auto after = exports::ReadCurrent(dir_.path());
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ(DaysWrittenBy(**after, "pdr_payouts", next->run_id),
            std::vector<std::string>{day.substr(std::string_view("day=").size())});
  ExpectSnapshotEqualsLake(*lake_, next->run_id, "after a lost day");
}

TEST_F(Export, ADamagedCurrentManifestIsReportedAndReplacedByAFullSnapshot) {
  Fetch("2024-07-22");
  auto first = RunOneExport(*lake_, {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  const fs::path manifest = fs::path(first->dir) / "manifest.json";
  const auto size = fs::file_size(manifest);
  fs::resize_file(manifest, size / 2);  // a torn write by a foreign tool
  auto current = exports::ReadCurrent(dir_.path());
  ASSERT_FALSE(current.ok());
  EXPECT_EQ(current.status().code(), StatusCode::kData);
  EXPECT_NE(current.status().message().find("malformed"), std::string::npos)
      << current.status().message();
  fs::remove(manifest);
  current = exports::ReadCurrent(dir_.path());
  ASSERT_FALSE(current.ok());
  EXPECT_NE(current.status().message().find("cannot read"), std::string::npos)
      << current.status().message();
  // The next export cannot share that snapshot's files: it writes every day.
  auto next = RunOneExport(*lake_, {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->days_linked, 0);
  ExpectSnapshotEqualsLake(*lake_, next->run_id, "after a damaged manifest");
}

TEST_F(Export, AColumnAddedSinceThePreviousSnapshotRewritesItsTable) {
  Fetch("2024-07-22");
  ASSERT_TRUE(RunOneExport(*lake_, {}).ok());
  ASSERT_TRUE(lake_->conn()
                  .Execute("ALTER TABLE pdr_truevals ADD COLUMN extra INTEGER DEFAULT 7", "t")
                  .ok());
  auto next = RunOneExport(*lake_, {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_GT(next->days_linked, 0);  // the other tables' days
  ExpectSnapshotEqualsLake(*lake_, next->run_id, "after ALTER TABLE");
}

TEST_F(Export, ASnapshotFromBeforeAColumnWasAddedStillOpens) {
  // The layout only grows: a snapshot written by an older build, without a column this build has,
  // opens with that column NULL and every other one as written.
  Fetch("2024-07-22");
  ASSERT_TRUE(RunOneExport(*lake_, {}).ok());
  auto current = exports::ReadCurrent(dir_.path());
  ASSERT_TRUE(current.ok() && current->has_value());
  exports::Snapshot old = **current;
  // What an older build wrote: pdr_truevals without `revenue`, in its files and its manifest.
  const std::vector<std::string> files = exports::SnapshotFiles(old, "pdr_truevals");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    ASSERT_TRUE(lake_->conn()
                    .Execute("COPY (SELECT * EXCLUDE (revenue) FROM read_parquet('" + f +
                                 "')) TO '" + f + ".old' (FORMAT parquet)",
                             "t")
                    .ok());
    fs::rename(f + ".old", f);
  }
  for (auto& t : old.manifest["tables"]) {
    if (t["name"] != "pdr_truevals") continue;
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& c : t["schema"]) {
      if (c["name"] != "revenue") kept.push_back(c);
    }
    t["schema"] = kept;
  }
  auto opened = exports::OpenSnapshot(dir_.path(), old, nullptr);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_EQ(Int(**opened, "SELECT count(*) FROM pdr_truevals WHERE revenue IS NOT NULL"), 0);
  EXPECT_EQ(Int(**opened, "SELECT count(*) FROM pdr_truevals"),
            Int(*lake_, "SELECT count(*) FROM pdr_truevals"));
  EXPECT_EQ(Int(**opened, "SELECT count(DISTINCT ID) FROM pdr_truevals WHERE slot > 0"),
            Int(*lake_, "SELECT count(DISTINCT ID) FROM pdr_truevals WHERE slot > 0"));
  EXPECT_GT(Int(**opened, "SELECT count(*) FROM pdr_truevals"), 0);
}

TEST_F(Export, SupersededSnapshotsGoAfterTheGracePeriod) {
  exports::ExportOptions keep;
  keep.grace_ms = 3'600'000;
  auto a = RunOneExport(*lake_, keep);
  auto b = RunOneExport(*lake_, keep);
  ASSERT_TRUE(a.ok() && b.ok());
  const fs::path exports = exports::ExportsDir(dir_.path());
  EXPECT_TRUE(fs::exists(exports / exports::SnapshotFolderName(a->run_id)));
  exports::ExportOptions drop;
  drop.grace_ms = 0;
  auto c = RunOneExport(*lake_, drop);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->snapshots_removed, 2);
  exports::WaitForRemovals();  // they go in the background, after the run
  EXPECT_FALSE(fs::exists(exports / exports::SnapshotFolderName(a->run_id)));
  EXPECT_FALSE(fs::exists(exports / exports::SnapshotFolderName(b->run_id)));
  EXPECT_TRUE(fs::exists(exports / exports::SnapshotFolderName(c->run_id) / "manifest.json"));
}

}  // namespace
}  // namespace predlake::jobs
