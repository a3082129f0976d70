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

// The ledger's command text of an update's runs (and the writer lock's).
inline constexpr std::string_view kUpdateCommand = "update";

struct UpdateRequest {
  WriterEnv writer;
  int64_t start_ms = 0;  // lake_ss.st_timestr resolved
  // The requested end of a run whose "now" is the argument (`--to` or lake_ss.fin_timestr resolved
  // against it; a loop resolves it again for every run). Its error is returned unchanged.
  std::function<Result<int64_t>(int64_t now_ms)> end_ms;
  raw::TransportFactory factory;  // the subgraph
  // The exchange (empty: no candles are fetched), its name, and lake_ss.ohlcv for the ETL (the
  // candle columns).
  raw::ExchangeFactory exchange;
  std::string ohlcv_exchange = "binance";
  bool ohlcv = true;
  int64_t ohlcv_gap_after_ms = 86'400'000;    // lake_ss.ohlcv_gap_after
  std::string fallback_source = "binance";    // lake_ss.feed_source
  gql::RetryPolicy retry;                     // of the fetch's GraphQL clients
  Sleeper* sleeper = nullptr;                 // the fetch's waits; not owned; nullptr: really sleep
  const std::atomic<bool>* cancel = nullptr;  // polled by the fetch; set: the run stops, aborted
  Progress* progress = nullptr;               // not owned; may be null
  etl::FaultInjection faults;                 // for the ETL step
  // Called between the fetch and the ETL of every chunk (e.g. to print what was fetched); may be
  // empty.
  std::function<void(const raw::UpdateReport&)> after_fetch;
  // lake_ss.checkpoint_period: the window runs in chunks of this length (see Update); 0: one
  // window.
  int64_t chunk_ms = 0;
  // The length of a part of a first update's rebuild in parts (see Update); 0: a pass of the
  // rebuild (etl::Pipeline::kPassMs, 7 days). Shorter parts are for tests.
  int64_t part_ms = 0;
  bool note_later_start = true;  // raw::UpdateOptions::note_later_start
};

// Where an update's wall time went, in milliseconds (`predlake -v update` prints it:
// DescribePhases). fetch and etl are summed over the chunks.
struct UpdatePhases {
  double open_ms = 0;    // the writer's open (lock, DuckDB's open and WAL replay, schema check)
  double fetch_ms = 0;   // the raw fetch, with its commits
  double etl_ms = 0;     // the ETL and its publish
  double export_ms = 0;  // the export after the publish (lake_ss.export_after_publish); 0: none
  double close_ms = 0;   // the close (lake::Lake::Close), with its checkpoint when one ran
  bool checkpointed = false;  // the close checkpointed (lake::CloseCheckpoint::kWhenWalLarge)
  int64_t wal_bytes = 0;      // the WAL's size at the close
};

struct UpdateReport {
  raw::UpdateReport raw;  // of the last chunk
  etl::RunReport etl;     // of the last chunk
  int64_t chunks = 0;     // runs done (one per chunk)
  int64_t rows = 0;       // raw rows stored new plus built rows new, over every chunk
  double seconds = 0;     // wall time of all chunks
  UpdatePhases phases;
};

// "open 80, fetch 610, etl 420, close 12 (WAL 1.9 MB kept)" or "..., close 310 (checkpoint of a
// WAL of 4.2 MB)"; export only when one ran.
std::string DescribePhases(const UpdatePhases& phases);

// Where a chunked update stands after a chunk, for progress lines.
struct ChunkProgress {
  int64_t done = 0;  // chunks done, this one included
  int64_t left = 0;  // chunks still planned (an estimate: the head may end the window earlier)
  int64_t window_start_ms = 0;  // this chunk's window
  int64_t window_end_ms = 0;
  int64_t rows = 0;                      // rows stored so far (UpdateReport::rows)
  double rows_per_second = 0;            // so far
  double eta_seconds = 0;                // left chunks at the mean chunk time so far
  const UpdateReport* report = nullptr;  // this chunk's (chunks, rows, seconds: so far)
};

// "chunk 3/12 [2024-07-25T00:00:00Z, 2024-07-26T00:00:00Z) done: 181k rows, 52k rows/s, 9 chunks
// left, ETA 1m05s".
std::string DescribeChunk(const ChunkProgress& chunk);

// Opens the lake as writer "update" (Writer) and runs the window up to request.end_ms in
// chunks, one ledger run ("update") per chunk. A chunk's run fetches every raw table (raw::Update
// with finishes_run = false: the run records the raw tables' counts and, under detail "raw", the
// head, end, contracts and any backfill) up to the chunk's end and runs the ETL up to the same end
// under the same run, which the ETL finishes in its publish transaction; its detail gets "chunk"
// {index, of} when there is more than one. A failing fetch fails the run with what it fetched (the
// ETL does not run); a failing ETL fails it with the raw and built counts; either ends the update
// with that error, every earlier chunk committed (a kill loses at most one chunk, and the next
// update resumes from the watermarks and checkpoint).
//
// A chunk ends at min(end, P + chunk_ms), where P is the lowest of the input tables' watermarks
// and the ETL's position (its checkpoint; the start before the first run or when the start moved
// earlier, which rebuilds from raw); the last chunk is the one that reaches the end or the indexed
// head. A backfill (the start moved earlier) is fetched in the first chunk's raw step, in chunks of
// its own (raw::UpdateOptions::chunk_ms). on_chunk (may be empty) is called after every chunk but
// the last. An export (request.writer.export_after) follows the last chunk. The lake is closed
// before returning, checkpointing only when its WAL has grown large
// (lake::CloseCheckpoint::kWhenWalLarge; docs/lake.md, "The write-ahead log").
// The raw steps' fault points (raw::UpdateOptions::at_step) for the ETL's fault injection, so that
// PREDLAKE_FAIL_AT / PREDLAKE_KILL_AT / PREDLAKE_STALL_AT reach every phase of a chunk: a kill_at
// step raises SIGKILL, a fail_at step returns kInternal naming it, a stall_at step waits until the
// process is interrupted (duck::InterruptAll) and returns kCancelled. Empty when none is set.
std::function<Status(std::string_view)> RawFaultHook(const etl::FaultInjection& faults);

Result<UpdateReport> Update(const UpdateRequest& request, int64_t now_ms,
                            const std::function<void(const ChunkProgress&)>& on_chunk = {});

// `update --every`: Update on loop's cadence (ops::RunEvery, with its back-off and fatal errors)
// until `cancelled` is set, holding the lake's loop lock (lake::LoopLock) throughout: a second
// loop on the same lake gets its kBusy before any run. `now` gives each run's now; `on_run` (may be
// empty) is called after each successful run.
Status UpdateEvery(const UpdateRequest& request, const ops::LoopOptions& loop,
                   const std::function<int64_t()>& now, const std::atomic<bool>& cancelled,
                   Logger& log, const std::function<void(const UpdateReport&)>& on_run);

}  // namespace predlake::jobs
