// The exchange source: candles (OHLCV) from an exchange's public REST API in Binance's spot klines
// shape (GET /api/v3/klines?symbol=BTCUSDT&interval=5m&startTime=..&endTime=..&limit=1000), through
// an injected GET transport (libcurl for real networks, the simulator in-process), with the
// subgraph client's retry policy (gql::RetryPolicy): 429 and 418 answers wait their Retry-After,
// 5xx, transport failures and malformed bodies are retried a few times, any other 4xx fails at
// once. docs/ohlcv.md describes the source.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/backoff.hpp"
#include "common/sleeper.hpp"
#include "common/status.hpp"
#include "source/gql/client.hpp"
#include "source/gql/http_transport.hpp"
#include "source/gql/transport.hpp"

namespace predlake::exchange {

// Binance's limit on candles per klines request.
inline constexpr int kMaxKlines = 1000;
inline constexpr std::string_view kKlinesPath = "/api/v3/klines";
// The exchange's clock: {"serverTime": 1499827319559} (unix ms). Candles are final by this clock.
inline constexpr std::string_view kTimePath = "/api/v3/time";
// Binance counts each client address's request weight per minute and reports the count so far in
// this header on every answer; past its limit it answers 429, and bans (418) those who go on.
inline constexpr std::string_view kUsedWeightHeader = "x-mbx-used-weight-1m";
// The lowest per-minute weight limit among the exchanges that serve this API (binance.com allows
// 6000, binance.us 1200): staying under it is safe on all of them. A client whose last answer
// reported at least kWeightPauseAt waits a whole window, kWeightWindowMs, before it asks again.
inline constexpr int64_t kRequestWeightPerMinute = 1200;
inline constexpr int64_t kWeightPauseAt = kRequestWeightPerMinute * 9 / 10;
inline constexpr int64_t kWeightWindowMs = 60'000;

// One GET of a path and query against the exchange. A non-OK Result means no answer came (kSource);
// any HTTP status is an answer. Implementations need not be thread-safe; use one per thread.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual Result<gql::HttpResponse> Get(const std::string& path_and_query) = 0;
  // For error messages: the base URL, or "sim exchange (in-process)".
  virtual std::string Describe() const = 0;
  // Asks Get to give up early once `*stop` turns true (nullptr clears). Not owned.
  virtual void SetStopFlag(const std::atomic<bool>* stop) { (void)stop; }
};

// GETs over libcurl (gql::HttpTransport::Get) from `base_url` ("https://api.binance.com").
class HttpTransport final : public Transport {
 public:
  explicit HttpTransport(std::string base_url);
  Result<gql::HttpResponse> Get(const std::string& path_and_query) override;
  std::string Describe() const override { return base_url_; }
  void SetStopFlag(const std::atomic<bool>* stop) override { http_.SetStopFlag(stop); }

 private:
  std::string base_url_;
  gql::HttpTransport http_;
};

// One closed candle as the exchange reports it: open time (ms) and the five decimals as text.
struct Candle {
  int64_t open_ms = 0;
  std::string open, high, low, close, volume;
  bool operator==(const Candle&) const = default;
};

struct KlinesRequest {
  std::string symbol;    // "BTCUSDT"
  std::string interval;  // "5m"
  int64_t start_ms = 0;  // first open time asked for (inclusive)
  int64_t end_ms = 0;    // last open time asked for (inclusive, as Binance reads endTime)
  int limit = kMaxKlines;
};

// "BTC/USDT" (or "btc-usdt") -> "BTCUSDT"; nullopt unless both sides are letters and digits.
std::optional<std::string> BinanceSymbol(std::string_view pair);
// The milliseconds of a timeframe "5m", "1h", "1d" (N s|m|h|d); nullopt otherwise.
std::optional<int64_t> TimeframeMs(std::string_view timeframe);
// "/api/v3/klines?symbol=BTCUSDT&interval=5m&startTime=..&endTime=..&limit=1000".
std::string KlinesPathAndQuery(const KlinesRequest& request);
// The request a path and query asks for (the simulator's side); kUsage naming what is wrong.
Result<KlinesRequest> ParseKlinesPathAndQuery(std::string_view path_and_query);
// A klines body: an array of [openTime, "open", "high", "low", "close", "volume", closeTime, ...].
// kSource naming the first bad entry (a price that is not a plain decimal, a missing field).
Result<std::vector<Candle>> ParseKlines(std::string_view body);
// The serverTime of a /api/v3/time body; kSource naming what is wrong.
Result<int64_t> ParseServerTime(std::string_view body);
// True for a plain non-negative decimal ("43012.01000000"), the only text stored as a price.
bool IsPlainDecimal(std::string_view text);

// What the last failed request of a Client met, so that its caller can tell what to set aside: one
// stream (the exchange refuses this request: 400 "Invalid symbol.") or every stream of the host (it
// is unreachable, answers 5xx or garbage, or blocks us: 418, 429, 451).
struct Failure {
  bool host_wide = false;
  int http_status = 0;  // 0: no answer
  // 418/429: how long the exchange asked us to wait (Retry-After), when that was longer than the
  // retry budget or lake_ss's cap allowed waiting; no request may reach it before then.
  std::optional<int64_t> blocked_for_ms;
};

struct ClientStats {
  int64_t requests = 0;
  int64_t retries = 0;
  // "http_429", "http_418", "http", ..., and "weight_pause": the waits of kWeightWindowMs
  // because the used weight neared the limit (the ledger's retry counts carry them).
  std::map<std::string, int64_t> retries_by_kind;
};

// The klines client. Not thread-safe: one per thread. The sleeper must outlive it.
class Client {
 public:
  Client(std::unique_ptr<Transport> transport, gql::RetryPolicy policy, Sleeper* sleeper);
  void set_stop_flag(const std::atomic<bool>* stop) {
    stop_ = stop;
    transport_->SetStopFlag(stop);
  }
  // The candles of the request, in open-time order. Retried as the header says; on failure kSource
  // "<describe>: GET /api/v3/klines?...: <what happened> (after N attempts)" (and last_failure()
  // says what it was), kCancelled when stopped.
  Result<std::vector<Candle>> Klines(const KlinesRequest& request);
  // The exchange's clock (GET /api/v3/time), retried and failing like Klines.
  Result<int64_t> ServerTimeMs();
  // Before each request: when the last answer's kUsedWeightHeader reported kWeightPauseAt or more,
  // the client waits kWeightWindowMs first (so that the exchange's window has rolled over), unless
  // that wait would pass the policy's budget, in which case the request fails at once as blocked
  // (last_failure().blocked_for_ms = kWeightWindowMs). The weight is the host's, whichever client
  // of this process spent it, so the clients of one run see each other's use through the header.
  // A 418 or 429 whose Retry-After is longer than the policy's max_retry_after_ms, or than what is
  // left of its budget, is never waited out in part and asked again inside the ban: the request
  // fails at once with last_failure().blocked_for_ms set.
  const Failure& last_failure() const { return failure_; }
  const ClientStats& stats() const { return stats_; }

 private:
  // GETs `path` until `parse` accepts a 200 body, as Klines describes.
  template <typename T, typename Parse>
  Result<T> GetParsed(const std::string& path, Parse parse);
  std::unique_ptr<Transport> transport_;
  gql::RetryPolicy policy_;
  Sleeper* sleeper_;
  const std::atomic<bool>* stop_ = nullptr;
  ClientStats stats_;
  Failure failure_;
  int64_t used_weight_ = 0;  // the last answer's kUsedWeightHeader (0 before any)
  Backoff backoff_;
};

}  // namespace predlake::exchange
