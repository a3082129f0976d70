// Fetching exchange candles into pdr_ohlcv (docs/ohlcv.md): one stream per (exchange, pair,
// timeframe) of the feeds the lake knows, each with its own watermark row
// (lake::OhlcvStreamName), fetched from the watermark to the last closed candle in pages of at
// most 1000 candles, every page stored in the transaction that advances its stream's watermark
// (docs/design.md rules 1 and 2).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/sleeper.hpp"
#include "common/status.hpp"
#include "lake/lake.hpp"
#include "raw/contracts.hpp"
#include "source/exchange/exchange.hpp"

namespace predlake::raw {

// Makes a transport to the exchange for the run `run_id` (the simulator mixes it into its fault
// draws). Must be thread-safe.
using ExchangeFactory = std::function<std::unique_ptr<exchange::Transport>(int64_t run_id)>;

struct OhlcvStream {
  std::string exchange, pair, timeframe;
  std::string name;  // the watermark's name
  bool operator==(const OhlcvStream&) const = default;
};

// The streams of the usable contracts whose source is `exchange` (lower-case compare), one per
// (pair, timeframe), sorted by name. Feeds of another source get no candles.
std::vector<OhlcvStream> OhlcvStreams(const ContractMap& contracts, const std::string& exchange);

struct OhlcvOptions {
  // Where a stream without a watermark starts; a stream whose recorded start is later is
  // backfilled to it first (one transaction per stream).
  int64_t start_ms = 0;
  int64_t end_ms = 0;  // requested end (raw::Update: capped at the subgraph's head)
  int64_t now_ms = 0;  // this machine's now: when the lake records a failure, gap or ban
  // A candle missing this long after it closed (by the exchange's clock) becomes a known gap.
  int64_t gap_after_ms = 86'400'000;
  gql::RetryPolicy retry;
  Sleeper* sleeper = nullptr;
  const std::atomic<bool>* cancel = nullptr;
};

// A candle is final once the exchange's clock (GET /api/v3/time) is this far past its close: an
// exchange may revise the candle that just closed for a moment. Never our clock.
inline constexpr int64_t kCandleFinalityMarginMs = 30'000;
// Each run reads the newest stored candle of a stream again (this many) and corrects it when the
// exchange now answers it differently (a change the ETL folds into the slots it decides). One: a
// candle is stored only once final by the exchange's clock, and a revision after that is rare and
// of the newest.
inline constexpr int kCandleOverlap = 1;

// A stream whose candles this run could not fetch (the lake records it in predlake_ohlcv_streams).
struct OhlcvStreamFailure {
  std::string stream;      // the watermark's name
  std::string error;       // one line
  bool set_aside = false;  // the exchange cannot serve the stream itself (not a transient failure)
};

struct OhlcvReport {
  lake::TableCounts counts;  // over every stream (rows_updated: candles corrected)
  int64_t pages = 0;
  int64_t requests = 0;
  int64_t retries = 0;
  std::map<std::string, int64_t> retries_by_kind;
  int64_t streams = 0;
  std::optional<int64_t> server_time_ms;  // the exchange's clock, when it answered
  std::vector<OhlcvStreamFailure> failures;
  int64_t gaps_recorded = 0;  // candles recorded as known gaps by this run
  // The exchange blocked us (418/429 with a long Retry-After): no request before this (unix ms).
  std::optional<int64_t> blocked_until_ms;
  // One line each for the user: the failing streams, what it means and the remedy.
  std::vector<std::string> warnings;
};

// Fetches every stream of `streams` in turn, on the calling thread. The exchange never stops the
// run: a stream that fails is set aside for this run, named in report.failures and in one warning
// line, and recorded in predlake_ohlcv_streams (its candles are late data that the ETL folds in
// when they arrive). A failure of the whole host (unreachable, 5xx, 451, a ban) ends the candle
// part at once for every stream left. A stream the exchange cannot serve (a pair it cannot name or
// does not list: 400 "Invalid symbol.") is set aside the same way.
//
// Candles are final by the exchange's clock (kCandleFinalityMarginMs). A stream's window is
// [watermark - kCandleOverlap candles, min(end_ms, the last final candle)); a stored candle the
// exchange answers differently is corrected. The watermark never passes a candle that should exist
// and is missing, unless it is a known gap (predlake_candle_gaps: missing gap_after_ms after its
// close). Every candle stored or corrected is recorded in predlake_candle_changes in the same
// transaction. Returns kCancelled when options.cancel is set and kData for a lake error; `report`
// holds what was done.
Status FetchOhlcv(lake::Lake& lake, int64_t run_id, const std::vector<OhlcvStream>& streams,
                  const OhlcvOptions& options, const ExchangeFactory& factory, OhlcvReport& report);

}  // namespace predlake::raw
