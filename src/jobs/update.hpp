// `update`: raw update, then etl update, recorded as ONE run in the ledger (command "update"), once
// or on a cadence (`update --every`). See docs/operations.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "common/log.hpp"
#include "common/progress.hpp"
#include "common/status.hpp"
#include "etl/etl.hpp"
#include "jobs/writer.hpp"
#include "ops/loop.hpp"
#include "raw/update.hpp"

namespace predlake::jobs {

struct UpdateRequest {
  WriterEnv writer;
  int64_t start_ms = 0;  // lake_ss.st_timestr resolved
  // The requested end of a run whose "now" is the argument (`--to` or lake_ss.fin_timestr resolved
  // against it; a loop resolves it again for every run). Its error is returned unchanged.
  std::function<Result<int64_t>(int64_t now_ms)> end_ms;
  raw::TransportFactory factory;  // the subgraph
  // The exchange (empty: no candles are fetched), its name, and lake_ss.ohlcv for the ETL (the
  // candle columns and the candle watermarks in the frontier).
  raw::ExchangeFactory exchange;
  std::string ohlcv_exchange = "binance";
  bool ohlcv = true;
  std::string fallback_source = "binance";    // lake_ss.feed_source
  gql::RetryPolicy retry;                     // of the fetch's GraphQL clients
  Sleeper* sleeper = nullptr;                 // the fetch's waits; not owned; nullptr: really sleep
  const std::atomic<bool>* cancel = nullptr;  // polled by the fetch; set: the run stops, aborted
  Progress* progress = nullptr;               // not owned; may be null
  etl::FaultInjection faults;                 // for the ETL step
  // Called between the fetch and the ETL (e.g. to print what was fetched); may be empty.
  std::function<void(const raw::UpdateReport&)> after_fetch;
};

struct UpdateReport {
  raw::UpdateReport raw;
  etl::RunReport etl;
};

// One run: opens the lake as writer "update" (RunWriter), fetches every raw table (raw::Update with
// finishes_run = false: the run records the raw tables' counts and, under detail "raw", the head,
// end and contracts) and runs the ETL up to the same end under the same run, which the ETL
// finishes in its publish transaction. A failing fetch fails the run with what it fetched (the ETL
// does not run); a failing ETL fails it with the raw and built counts. The lake is closed before
// returning.
Result<UpdateReport> Update(const UpdateRequest& request, int64_t now_ms);

// `update --every`: Update on loop's cadence (ops::RunEvery, with its back-off and fatal errors)
// until `cancelled` is set, holding the lake's loop lock (lake::LoopLock) throughout: a second
// loop on the same lake gets its kBusy before any run. `now` gives each run's now; `on_run` (may be
// empty) is called after each successful run.
Status UpdateEvery(const UpdateRequest& request, const ops::LoopOptions& loop,
                   const std::function<int64_t()>& now, const std::atomic<bool>& cancelled,
                   Logger& log, const std::function<void(const UpdateReport&)>& on_run);

}  // namespace predlake::jobs
