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
  int64_t now_ms = 0;  // candles closing after it are never stored
  gql::RetryPolicy retry;
  Sleeper* sleeper = nullptr;
  const std::atomic<bool>* cancel = nullptr;
};

struct OhlcvReport {
  lake::TableCounts counts;  // over every stream
  int64_t pages = 0;
  int64_t requests = 0;
  int64_t retries = 0;
  std::map<std::string, int64_t> retries_by_kind;
  int64_t streams = 0;
};

// Fetches every stream of `streams` in turn, on the calling thread. Streams without a watermark
// first get one at options.start_ms (in one transaction, before any fetch), so that a stream that
// fails holds the ETL frontier back instead of leaving a silent gap. A stream's window ends at
// min(end_ms, the open time of the first candle not closed by now_ms). On failure returns kSource
// "pdr_ohlcv binance BTC/USDT 5m [from, end): ..." (what was stored stays, with its watermark),
// kCancelled when options.cancel is set, kData for a lake error; `report` holds what was done.
Status FetchOhlcv(lake::Lake& lake, int64_t run_id, const std::vector<OhlcvStream>& streams,
                  const OhlcvOptions& options, const ExchangeFactory& factory, OhlcvReport& report);

}  // namespace predlake::raw
