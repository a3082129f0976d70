// `raw update`: fetches every raw table from its watermark up to min(end, the subgraph's indexed
// head), five tables at once, storing each page exactly once together with the watermark it
// justifies (docs/design.md rules 1 and 2; docs/raw.md explains the approach).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.hpp"
#include "common/status.hpp"
#include "lake/lake.hpp"
#include "raw/ohlcv.hpp"
#include "source/gql/client.hpp"
#include "source/gql/transport.hpp"

namespace predlake::raw {

// What a transport is made for: the run it fetches for, and its stream within the run (0: the
// head and the contracts; 1 + i: the i-th table fetched). A real subgraph ignores both; the
// simulated one mixes them into its fault injection, so that a rerun (a new run id) meets other
// faults than the run before it while a given lake history stays reproducible.
struct TransportUse {
  int64_t run_id = 0;
  int stream = 0;
};

// Makes a fresh Transport to the subgraph; called once per fetching thread (and once for the
// head and contracts), possibly from several threads at once, so it must be thread-safe.
using TransportFactory = std::function<std::unique_ptr<gql::Transport>(const TransportUse& use)>;

struct UpdateOptions {
  // lake_ss.st_timestr resolved: where a table without a watermark starts. A table whose recorded
  // start is later is backfilled: [start_ms, its start) is fetched (see Update). A later start
  // changes nothing.
  int64_t start_ms = 0;
  int64_t end_ms = 0;  // requested end (--to or lake_ss.fin_timestr); capped at the head
  std::vector<std::string> tables;  // empty: all five raw tables
  // False when the fetch is the first step of a larger run (`update`): its detail goes under
  // "raw", and on success the run is left running for the next step to finish.
  bool finishes_run = true;

  // The source of a feed whose NFT data names none (lake_ss.feed_source).
  std::string fallback_source = "binance";

  // The exchange candles (pdr_ohlcv, docs/ohlcv.md): fetched after the subgraph tables for the
  // feeds whose source is ohlcv_exchange when `exchange` is set (lake_ss.ohlcv) and the table is
  // wanted (`tables` empty or naming pdr_ohlcv), up to min(end, the head), final by the exchange's
  // clock (raw::FetchOhlcv). A failing stream never fails the run: it is a warning, in the ledger
  // and in predlake_ohlcv_streams.
  ExchangeFactory exchange;
  std::string ohlcv_exchange = "binance";
  int64_t now_ms = 0;
  int64_t ohlcv_gap_after_ms = 86'400'000;  // lake_ss.ohlcv_gap_after
  // A backfill runs backwards in chunks of this length (lake_ss.checkpoint_period), each fetched
  // whole and stored in one transaction that also moves the table's start down to the chunk's
  // start, so that a kill loses at most one chunk and its rows are held once per chunk.
  int64_t chunk_ms = 86'400'000;
  // Whether a start later than the lake's gets its warning (see Update). False for a relative
  // lake_ss.st_timestr ("30 days ago"), which moves later with every run and is not a request.
  bool note_later_start = true;
  // Called with "backfill_commit" (inside a backfill chunk's transaction, before it commits) and
  // "fetch_commit" (inside each forward transaction): a non-OK result fails the transaction and the
  // run with it (tests and PREDLAKE_FAIL_AT / PREDLAKE_KILL_AT inject faults here). May be empty.
  std::function<Status(std::string_view step)> at_step;

  int page_size = 1000;
  // pdr_slots is re-read from its watermark minus (the longest epoch + trueval timeout of the
  // feeds) minus this margin, so that slots still changing at the last fetch are refreshed.
  int64_t slot_margin_ms = 15 * 60 * 1000;
  int max_pages_per_commit = 16;  // most pages per transaction (those of 2 s share one)
  int queue_pages = 4;            // pages each fetcher may have waiting for the writer
  gql::RetryPolicy retry;
  Sleeper* sleeper = nullptr;                 // nullptr: real sleeping
  const std::atomic<bool>* cancel = nullptr;  // polled; when set the run stops as kCancelled
};

struct TableReport {
  std::string table;
  int64_t from_ms = 0;  // window fetched
  int64_t end_ms = 0;
  lake::Watermark before;  // {0, 0} for a table fetched for the first time
  // The backfill window [backfill_from_ms, before.start_ms) when the start moved earlier (its rows
  // are in `counts` too), and the backfill chunks stored.
  std::optional<int64_t> backfill_from_ms;
  int64_t backfill_chunks = 0;
  lake::Watermark after;
  int64_t pages = 0;
  // rows_in records fetched, rows_out new rows stored, rows_updated pdr_slots rows whose state
  // changed.
  lake::TableCounts counts;
  int64_t requests = 0;  // HTTP requests, retries included
  int64_t retries = 0;
  std::map<std::string, int64_t> retries_by_kind;  // gql::ErrorKindName -> retries
  int64_t smaller_pages = 0;                       // pages asked again with a smaller `first`
};

struct UpdateReport {
  int64_t run_id = 0;
  int64_t head_ms = 0;     // the subgraph's indexed head
  int64_t head_block = 0;  // its block: every query of the run is pinned to it or later
  std::string deployment;  // _meta.deployment
  // The deployment recorded before, when this run saw another one (the data may be re-indexed).
  std::optional<std::string> previous_deployment;
  bool has_indexing_errors = false;  // _meta.hasIndexingErrors
  bool head_time_from_data = false;  // _meta.block.timestamp stayed null (raw::Head)
  // Retries of the head and contracts queries (the tables' are in their reports).
  std::map<std::string, int64_t> head_retries_by_kind;
  // What the caller should tell the user (indexing errors, a changed deployment).
  std::vector<std::string> warnings;
  int64_t end_ms = 0;     // min(requested end, head)
  int64_t contracts = 0;  // usable feeds stored in pdr_contracts
  // Contracts that are not usable feeds yet (raw::Contract::unusable): skipped, not stored, and
  // recorded in the run's detail under "skipped_contracts"; a later run picks them up.
  struct Skipped {
    std::string id;
    std::string reason;
  };
  std::vector<Skipped> skipped_contracts;
  std::vector<TableReport> tables;
  OhlcvReport ohlcv;  // the candles (streams 0 when none were fetched)
  double seconds = 0;
};

// Runs one raw update on `lake` (opened for writing) as `run` (begun on it). Each table gets a
// fetching thread with its own Client over a Transport from `factory`; the calling thread stores
// pages (a transaction per few pages, each advancing the table's watermark to where its stored rows
// end). Every query after the head is pinned to the head's block (gql::Client::set_min_block), so
// that a node behind it cannot answer with older data. The lake records the deployment
// (lake::kMetaDeployment, and the previous one when it changed). The run gets the window fetched,
// per-table counts and the detail {head_ms, end_ms, contracts, head_block, deployment,
// has_indexing_errors, retries {kind: n}, smaller_pages[, deployment_changed_from]}; unless
// options.finishes_run is false it is finished in the same transaction as the last pages.
//
// Backfill: a table whose watermark's start is after options.start_ms first gets the events of
// [options.start_ms, start), fetched in chunks from the start backwards (each chunk forwards, by
// the same cursor as any window, so ties at a chunk's edge are read whole), each chunk stored in
// one transaction with the watermark {chunk start, watermark}: the table always covers one
// contiguous interval. The forward fetch follows.
//
// On failure the run is failed (Run::Fail: aborted when cancelled) with what was fetched so far,
// watermarks stay where the stored rows end, and the error is returned: kSource naming the table,
// the window and the page ("pdr_payouts [2024-07-26T00:00:00Z, 2024-07-26T02:00:00Z) page 3: ..."),
// kData for a lake error, kCancelled when options.cancel was set, kUsage for an unknown table.
// `progress` may be null.
Result<UpdateReport> Update(lake::Lake& lake, lake::Run& run, const UpdateOptions& options,
                            const TransportFactory& factory, Progress* progress);

// One warning line per skipped contract of `report`, for the command to print.
std::vector<std::string> SkippedContractWarnings(const UpdateReport& report);

}  // namespace predlake::raw
