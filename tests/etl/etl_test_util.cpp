#include "etl_test_util.hpp"

#include <fstream>

#include "config/config.hpp"
#include "duck/duck.hpp"
#include "source/sim/dump.hpp"
#include "source/sim/subgraph.hpp"
#include "source/sim/wei.hpp"
#include "source/sim/world.hpp"
#include "support/fixtures.hpp"

namespace predlake::etl::testing {

namespace fs = std::filesystem;

namespace {

std::string SourceTable(const std::string& table) { return "test_src_" + table; }

bool HasSourceVersions(lake::Lake& lake) {
  return QueryInt(lake, "SELECT count(*) FROM duckdb_tables() WHERE table_name = '" +
                            std::string(kSourceVersions) + "'") > 0;
}

// Feeds pdr_predictions as a fetch with its head at `to` would: each prediction as the version
// visible there, a newer version of a stored one replacing it and recording it as superseded.
void FeedPredictionVersions(lake::Lake& lake, int64_t from, int64_t to) {
  const std::string f = std::to_string(from), t = std::to_string(to);
  const std::string table(lake::kPredictionsTable.name);
  const std::string versions(lake::kPredictionVersionsTable.name);
  Exec(lake,
       "CREATE OR REPLACE TEMP TABLE test_fetched AS SELECT * EXCLUDE (superseded_at) FROM "
       "(SELECT *, CAST(NULL AS BIGINT) AS superseded_at FROM " +
           SourceTable(table) + " UNION ALL BY NAME SELECT * FROM " + std::string(kSourceVersions) +
           ") WHERE timestamp >= " + f + " AND timestamp < " + t +
           " AND coalesce(superseded_at >= " + t + ", true)");
  Exec(lake, "INSERT INTO " + versions + " SELECT p.*, n.timestamp FROM " + table +
                 " AS p JOIN test_fetched AS n ON n.ID = p.ID WHERE n.timestamp > p.timestamp");
  std::string set;
  for (const lake::ColumnDef& c : lake::kPredictionsTable.columns.subspan(1)) {
    const std::string col = duck::QuoteIdent(std::string(c.name));
    set += (set.empty() ? "" : ", ") + col + " = n." + col;
  }
  Exec(lake, "UPDATE " + table + " AS p SET " + set +
                 " FROM test_fetched AS n WHERE n.ID = p.ID AND n.timestamp > p.timestamp");
  Exec(lake, "INSERT INTO " + table +
                 " SELECT * FROM test_fetched AS n WHERE NOT EXISTS "
                 "(SELECT 1 FROM " +
                 table + " AS p WHERE p.ID = n.ID) ORDER BY timestamp, ID");
}

}  // namespace

// tmpfs keeps the many small commits of the randomised tests fast; any folder works.
TempLake::TempLake(const std::string& tag)
    : temp_("etl_" + tag, test_support::TempBase::kMemory), dir_(temp_.path()) {}

std::unique_ptr<lake::Lake> TempLake::Open() {
  return test_support::OpenTestLake(dir_, {.clock = &clock_});
}

int64_t QueryInt(lake::Lake& lake, const std::string& sql) {
  auto v = lake.conn().QueryInt(sql, "test");
  EXPECT_TRUE(v.ok()) << v.status().message() << "\nSQL: " << sql;
  return v.ok() ? v->value_or(-1) : -1;
}

void LoadFixtureSources(lake::Lake& lake, const SourceOptions& options) {
  for (std::string_view t : lake::kRawTables) {
    std::string table(t);
    Exec(lake, "DROP TABLE IF EXISTS " + SourceTable(table));
    Exec(lake, "CREATE TABLE " + SourceTable(table) + " AS FROM " + table + " LIMIT 0");
    // Everything is read as text so that amounts are parsed into DECIMAL exactly.
    Exec(lake, "INSERT INTO " + SourceTable(table) + " BY NAME SELECT * FROM " +
                   test_support::FixtureCsvSql(table));
  }
  if (options.null_prediction_late_fields) {
    Exec(lake,
         "UPDATE test_src_pdr_predictions SET predvalue = NULL, truevalue = NULL, "
         "payout = NULL");
  }
  if (options.null_some_stakes) {
    Exec(lake, "UPDATE test_src_pdr_predictions SET stake = NULL WHERE hash(ID) % 5 = 0");
  }
}

std::unique_ptr<lake::Lake> OpenFedFixtureLake(TempLake& dir) {
  const std::string shared =
      test_support::SharedFixtureDir("etl_fed_fixtures", [](const std::string& into) {
        TempLake build_dir("fed_fixtures");
        {
          auto lake = build_dir.Open();
          ASSERT_NE(lake, nullptr);
          LoadFixtureSources(*lake);
          FeedAll(*lake, kFixtureStart, kFixtureEnd);
        }
        fs::copy_file(fs::path(build_dir.dir()) / lake::kDatabaseFile,
                      fs::path(into) / lake::kDatabaseFile);
      });
  if (shared.empty()) return nullptr;
  fs::copy_file(fs::path(shared) / lake::kDatabaseFile, fs::path(dir.dir()) / lake::kDatabaseFile,
                fs::copy_options::overwrite_existing);
  return dir.Open();
}

SimWorld LoadSimSources(lake::Lake& lake, const std::string& dir, uint64_t seed,
                        double resubmitted) {
  config::SimConfig cfg;
  cfg.seed = seed;
  cfg.now = "2024-07-26_02:00";
  cfg.start = "2024-07-24";
  cfg.indexing_lag_ms = 0;
  cfg.num_predictoors = 12;
  cfg.pairs = {"BTC/USDT", "ETH/USDT"};
  cfg.timeframes = {"5m", "1h"};
  cfg.resubmitted_predictions = resubmitted;
  // Some truevals disagree with the candles, so that trueval_agrees takes both values.
  cfg.wrong_truevals = 0.1;
  SimWorld world;
  auto now = ParseTime(cfg.now, 0);
  EXPECT_TRUE(now.ok());
  if (!now.ok()) return world;
  auto engine = sim::Engine::Create(cfg, *now);
  EXPECT_TRUE(engine.ok()) << engine.status().message();
  if (!engine.ok()) return world;
  world.begin_ms = (*engine)->world().start_s() * 1000;
  world.end_ms = *now;
  for (const std::string& table : sim::DumpTableNames()) {
    std::string path = (fs::path(dir) / (table + ".csv")).string();
    {
      std::ofstream out(path);
      Status st = sim::Dump(**engine, table, *now, out);
      EXPECT_TRUE(st.ok()) << st.message();
    }
    Exec(lake, "DROP TABLE IF EXISTS " + SourceTable(table));
    Exec(lake, "CREATE TABLE " + SourceTable(table) + " AS FROM " + table + " LIMIT 0");
    Exec(lake, "INSERT INTO " + SourceTable(table) + " BY NAME SELECT * FROM read_csv(" +
                   duck::QuoteString(path) + ", header = true, all_varchar = true)");
  }
  if (resubmitted > 0) {
    // The first versions of the re-submitted predictions, which the dump at the end no longer
    // shows: (ID, first time and stake, the re-submission's time).
    const sim::World& w = (*engine)->world();
    std::string values;
    for (const sim::Feed& f : w.feeds()) {
      for (int64_t slot = f.first_slot; slot < *now / 1000 + f.epoch; slot += f.epoch) {
        for (int p : f.predictoors) {
          std::optional<sim::Prediction> made = w.MakePrediction(f.index, slot, p);
          if (!made || !made->resubmitted || made->ts * 1000 >= *now) continue;
          values += std::string(values.empty() ? "" : ", ") + "(" +
                    duck::QuoteString(f.contract + "-" + std::to_string(slot) + "-" +
                                      w.predictoors()[static_cast<size_t>(p)].address) +
                    ", " + std::to_string(made->first_ts * 1000) + ", " +
                    sim::FormatWei(made->first_stake) + ", " + std::to_string(made->ts * 1000) +
                    ")";
        }
      }
    }
    EXPECT_FALSE(values.empty()) << "no re-submitted prediction";
    Exec(lake,
         "CREATE OR REPLACE TEMP TABLE test_first (ID VARCHAR, ts BIGINT, stake "
         "DECIMAL(38, 18), superseded_at BIGINT)");
    if (!values.empty()) Exec(lake, "INSERT INTO test_first VALUES " + values);
    Exec(lake, "DROP TABLE IF EXISTS " + std::string(kSourceVersions));
    Exec(lake, "CREATE TABLE " + std::string(kSourceVersions) +
                   " AS SELECT p.* REPLACE (v.ts AS timestamp, v.stake AS stake), v.superseded_at "
                   "FROM " +
                   SourceTable("pdr_predictions") + " AS p JOIN test_first AS v USING (ID)");
    EXPECT_EQ(QueryInt(lake, "SELECT count(*) FROM " + std::string(kSourceVersions)),
              QueryInt(lake, "SELECT count(*) FROM test_first"));
  }
  for (const sim::Feed& f : (*engine)->world().feeds()) {
    Exec(lake, "INSERT INTO pdr_contracts VALUES (" + duck::QuoteString(f.contract) + ", " +
                   duck::QuoteString(f.pair) + ", " + duck::QuoteString(f.timeframe) + ", " +
                   duck::QuoteString(f.source) + ", " + std::to_string(f.epoch) + ", " +
                   std::to_string(f.timeout) + ", 'nft')");
  }
  return world;
}

std::vector<std::string> CandleStreams(lake::Lake& lake) {
  std::vector<std::string> out;
  auto exists = lake.conn().QueryInt(
      "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'test_src_pdr_ohlcv'", "test");
  if (!exists.ok() || exists->value_or(0) == 0) return out;
  auto r = lake.conn().Query(
      "SELECT DISTINCT exchange, pair, timeframe FROM test_src_pdr_ohlcv ORDER BY ALL", "test");
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return out;
  for (const auto& row : r->ToText()) {
    out.push_back(
        lake::OhlcvStreamName(row[0].value_or(""), row[1].value_or(""), row[2].value_or("")));
  }
  return out;
}

std::vector<std::string> InputNames(lake::Lake& lake) {
  std::vector<std::string> out(lake::kRawTables.begin(), lake::kRawTables.end());
  for (std::string& s : CandleStreams(lake)) out.push_back(std::move(s));
  return out;
}

void Feed(lake::Lake& lake, const std::string& table, int64_t start, int64_t from, int64_t to) {
  if (table.rfind(lake::kOhlcvStreamPrefix, 0) == 0) {
    if (to > from) {
      // As the fetch stores them: the candles and, in the same transaction, the record of the
      // change that the next ETL run folds into the slots they decide (candles are late data).
      const std::string rows =
          "SELECT * FROM test_src_pdr_ohlcv WHERE " +
          duck::QuoteString(std::string(lake::kOhlcvStreamPrefix)) +
          " || exchange || ':' || pair || ':' || timeframe = " + duck::QuoteString(table) +
          " AND timestamp >= " + std::to_string(from) + " AND timestamp < " + std::to_string(to);
      Exec(lake, "BEGIN");
      Exec(lake, "INSERT INTO pdr_ohlcv " + rows + " ORDER BY timestamp, ID");
      Exec(lake, lake::RecordCandleChangesSql(rows));
      Exec(lake, "COMMIT");
    }
  } else if (to > from && table == lake::kPredictionsTable.name && HasSourceVersions(lake)) {
    FeedPredictionVersions(lake, from, to);
  } else if (to > from) {
    Exec(lake, "INSERT INTO " + table + " SELECT * FROM " + SourceTable(table) +
                   " WHERE timestamp >= " + std::to_string(from) + " AND timestamp < " +
                   std::to_string(to) + " ORDER BY timestamp, ID");
  }
  Status st = lake.SetWatermark(table, {start, to}, 0);
  ASSERT_TRUE(st.ok()) << st.message();
}

void FeedAll(lake::Lake& lake, int64_t start, int64_t to) {
  auto marks = lake.Watermarks();
  ASSERT_TRUE(marks.ok()) << marks.status().message();
  for (const std::string& table : InputNames(lake)) {
    auto it = marks->find(table);
    if (it == marks->end()) {
      Feed(lake, table, start, start, to);
    } else if (to > it->second.watermark_ms) {
      Feed(lake, table, it->second.start_ms, it->second.watermark_ms, to);
    }
  }
}

void Snapshot(lake::Lake& lake, const std::string& tag) {
  for (std::string_view t : kBuiltTables) {
    std::string snap = "test_snap_" + tag + "_" + std::string(t);
    Exec(lake, "DROP TABLE IF EXISTS " + snap);
    Exec(lake, "CREATE TABLE " + snap + " AS SELECT * EXCLUDE (run_id) FROM " + std::string(t));
  }
}

std::string DiffSnapshot(lake::Lake& lake, const std::string& tag) {
  std::string out;
  for (std::string_view t : kBuiltTables) {
    std::string table(t);
    std::string snap = "test_snap_" + tag + "_" + table;
    std::string live = "(SELECT * EXCLUDE (run_id) FROM " + table + ")";
    auto names = lake.conn().Query(
        "SELECT column_name FROM information_schema.columns WHERE table_name = '" + snap +
            "' ORDER BY ordinal_position",
        "diff");
    if (!names.ok()) return table + ": " + names.status().message();
    std::string cols;
    for (const auto& c : names->ToText()) cols += (cols.empty() ? "\"" : ", \"") + *c[0] + "\"";
    // The count reads each side once (each distinct row's count in the snapshot less its count in
    // the live table, in absolute value); the rows that differ, when some do, come from EXCEPT ALL.
    auto n = lake.conn().QueryInt(
        "SELECT coalesce(sum(abs(n)), 0)::BIGINT FROM (SELECT sum(side_) AS n FROM (SELECT " +
            cols + ", 1 AS side_ FROM " + snap + " UNION ALL SELECT " + cols + ", -1 FROM " + live +
            ") GROUP BY " + cols + " HAVING n <> 0)",
        "diff");
    if (!n.ok()) return table + ": " + n.status().message();
    if (n->value_or(0) == 0) continue;
    std::string diff = "(SELECT 'snapshot only' AS side, * FROM (FROM " + snap +
                       " EXCEPT ALL FROM " + live +
                       ")) UNION ALL (SELECT 'live only' AS side, * FROM (FROM " + live +
                       " EXCEPT ALL FROM " + snap + "))";
    out += table + ": " + std::to_string(*n.value()) + " differing rows\n";
    auto rows = lake.conn().Query("SELECT * FROM (" + diff + ") ORDER BY 2, 1 LIMIT 6", "diff");
    if (!rows.ok()) continue;
    for (const auto& row : rows->ToText()) {
      out += "  ";
      for (const auto& v : row) out += (v ? *v : "NULL") + " | ";
      out += "\n";
    }
  }
  return out;
}

std::string Fingerprint(lake::Lake& lake) {
  std::string out;
  for (std::string_view t : kBuiltTables) {
    auto rows = lake.conn().Query(
        "SELECT count(*)::VARCHAR || '/' || coalesce(sum(hash(r)), 0)::VARCHAR "
        "FROM (SELECT * EXCLUDE (run_id) FROM " +
            std::string(t) + ") AS r",
        "fingerprint");
    EXPECT_TRUE(rows.ok()) << rows.status().message();
    if (!rows.ok()) return "error";
    auto text = rows->ToText();
    out += std::string(t) + "=" + (text.empty() || !text[0][0] ? "?" : *text[0][0]) + " ";
  }
  return out;
}

Result<RunReport> Update(lake::Lake& lake, const UpdateOptions& options) {
  ASSIGN_OR_RETURN(lake::Run run, lake.BeginRun("etl update"));
  return etl::Update(lake, run, options);
}

Result<RunReport> Rebuild(lake::Lake& lake, const UpdateOptions& options) {
  ASSIGN_OR_RETURN(lake::Run run, lake.BeginRun("etl rebuild"));
  return etl::Rebuild(lake, run, options);
}

Result<RunReport> Drop(lake::Lake& lake, int64_t from_ms, const RunOptions& options) {
  ASSIGN_OR_RETURN(lake::Run run, lake.BeginRun("etl drop"));
  return etl::Drop(lake, run, from_ms, options);
}

Result<RunReport> RawDrop(lake::Lake& lake, int64_t from_ms, const RunOptions& options) {
  ASSIGN_OR_RETURN(lake::Run run, lake.BeginRun("raw drop"));
  return etl::RawDrop(lake, run, from_ms, options);
}

int64_t CheckpointMs(lake::Lake& lake) {
  auto c = lake.GetCheckpoint();
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() && c.value() ? c.value()->checkpoint_ms : -1;
}

}  // namespace predlake::etl::testing
