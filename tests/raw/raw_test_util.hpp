// Helpers shared by the raw ingestion tests: temporary lakes, small simulated worlds, and the
// lake's raw tables rendered like `predlake sim dump` for comparison.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "config/config.hpp"
#include "lake/lake.hpp"
#include "raw/import.hpp"
#include "raw/schema.hpp"
#include "raw/update.hpp"
#include "source/sim/dump.hpp"
#include "source/sim/faults.hpp"
#include "source/sim/subgraph.hpp"
#include "source/sim/transport.hpp"
#include "support/temp_dir.hpp"
#include "support/test_lake.hpp"

namespace predlake::raw::rawtest {

// A fresh directory, removed with its contents on destruction.
using test_support::TempDir;

inline int64_t Ms(const std::string& time) {
  Result<int64_t> t = ParseTime(time, 0);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : 0;
}

// A small world: 3 pairs x (5m, 1h), 12 predictoors.
inline config::SimConfig SmallWorld(const std::string& start = "2024-07-25",
                                    const std::string& now = "2024-07-25_06:00") {
  config::SimConfig c;
  c.start = start;
  c.now = now;
  c.pairs = {"BTC/USDT", "ETH/USDT", "SOL/USDT"};
  c.num_predictoors = 12;
  return c;
}

inline std::shared_ptr<const sim::Engine> MakeEngine(const config::SimConfig& c) {
  auto e = sim::Engine::Create(c, Ms(c.now));
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? *e : nullptr;
}

inline TransportFactory SimFactory(std::shared_ptr<const sim::Engine> engine) {
  return [engine](const TransportUse& use) -> std::unique_ptr<gql::Transport> {
    return std::make_unique<sim::InProcessTransport>(engine,
                                                     sim::FaultSalt(use.run_id, use.stream));
  };
}

using test_support::Exec;
using test_support::OpenTestLake;

// raw::Update and raw::Import as their commands run them: under a run begun for the command.
inline Result<UpdateReport> RunUpdate(lake::Lake& lake, const UpdateOptions& options,
                                      const TransportFactory& factory, Progress* progress) {
  ASSIGN_OR_RETURN(lake::Run run, lake.BeginRun("raw update"));
  return Update(lake, run, options, factory, progress);
}
inline Result<ImportReport> RunImport(lake::Lake& lake, const ImportOptions& options,
                                      Progress* progress) {
  ASSIGN_OR_RETURN(lake::Run run, lake.BeginRun("raw import"));
  return Import(lake, run, options, progress);
}

// Never sleeps; counts what it was asked.
class NoSleep final : public Sleeper {
 public:
  void SleepMs(int64_t ms, const std::atomic<bool>*) override { total += ms; }
  std::atomic<int64_t> total{0};
};

// Decimal text without trailing zeros ("10.500000" -> "10.5", "0.000" -> "0").
inline std::string NormalizeDecimal(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

using Table = std::vector<std::vector<std::string>>;

// The rows of a raw table ordered by (timestamp, ID), rendered like sim dump.
inline Table LakeRows(lake::Lake& lake, const std::string& table) {
  const TableDef* def = FindTable(table);
  EXPECT_NE(def, nullptr);
  auto r = lake.conn().Query("SELECT * FROM " + table + " ORDER BY timestamp, ID", "test read");
  EXPECT_TRUE(r.ok()) << r.status().message();
  Table out;
  if (!r.ok()) return out;
  for (auto& row : r->ToText()) {
    std::vector<std::string> line;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string v = row[i].value_or("");
      if (def->columns[i].type == ColumnType::kDecimal) v = NormalizeDecimal(v);
      line.push_back(std::move(v));
    }
    out.push_back(std::move(line));
  }
  return out;
}

inline Table SimRows(const sim::Engine& engine, const std::string& table, int64_t to_ms) {
  auto d = sim::DumpRows(engine, table, to_ms);
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.ok() ? d->rows : Table{};
}

inline int64_t WatermarkOf(lake::Lake& lake, const std::string& table) {
  auto w = lake.GetWatermark(table);
  EXPECT_TRUE(w.ok());
  return w.ok() && *w ? (*w)->watermark_ms : -1;
}

// Asserts that every raw table equals the dump up to its watermark, and returns the row count.
// Slots hold their state as of the head they were fetched at, so pdr_slots is compared with the
// dump at the engine's head, cut at the watermark (valid when every slot still changing was
// fetched from `engine`).
inline int64_t ExpectEqualsDump(lake::Lake& lake, const sim::Engine& engine) {
  int64_t rows = 0;
  for (const TableDef& t : RawTables()) {
    const std::string name(t.name);
    int64_t w = WatermarkOf(lake, name);
    Table got = LakeRows(lake, name);
    Table want;
    if (t.upsert) {
      for (auto& row : SimRows(engine, name, engine.HeadMs())) {
        if (std::stoll(row[t.timestamp_column]) < w) want.push_back(std::move(row));
      }
    } else {
      want = SimRows(engine, name, w);
    }
    // Rows past the watermark may be present (a re-read tie group); compare up to it.
    Table got_below;
    for (auto& row : got) {
      if (std::stoll(row[t.timestamp_column]) < w) got_below.push_back(row);
    }
    EXPECT_EQ(got_below.size(), want.size()) << name << " up to " << FormatTime(w);
    size_t n = std::min(got_below.size(), want.size());
    for (size_t i = 0; i < n; ++i) {
      if (got_below[i] != want[i]) {
        ADD_FAILURE() << name << " row " << i << " differs: got "
                      << ::testing::PrintToString(got_below[i]) << " want "
                      << ::testing::PrintToString(want[i]);
        break;
      }
    }
    rows += static_cast<int64_t>(got.size());
  }
  return rows;
}

}  // namespace predlake::raw::rawtest
