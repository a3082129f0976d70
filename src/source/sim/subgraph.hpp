// The simulated subgraph: answers GraphQL requests over the simulated world like ocean-subgraph on
// The Graph (entities predictPredictions, predictTrueVals, predictPayouts, predictSubscriptions,
// predictSlots, predictContracts and _meta; docs/design.md section 2), with its limits (first <=
// 1000, skip <= 5000) and an indexed head that trails "now" by the configured lag. Nothing with a
// timestamp after the head is visible; mutable entities (slots) show their state as of the head.
//
// Sorting: orderBy id | timestamp (| slot for predictSlots), asc or desc; ties are always broken by
// id ascending. Serving a query costs in proportion to the window of time (or slots) its filters
// leave, and an ordered query stops generating once it has `skip + first` rows.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.hpp"
#include "common/time.hpp"
#include "config/config.hpp"
#include "source/gql/transport.hpp"
#include "source/sim/graphql.hpp"
#include "source/sim/world.hpp"

namespace predlake::sim {

// Request bodies larger than this get a 400.
inline constexpr size_t kMaxRequestBytes = 1 << 20;
// A query with more root fields (aliases included) than this, or more fields in all, is answered
// with a GraphQL error before anything is collected.
inline constexpr size_t kMaxRootFields = 32;
inline constexpr size_t kMaxFields = 2000;

// How one answer departs from the engine's normal one (fault injection).
struct AnswerOptions {
  int64_t head_behind_ms = 0;        // answer as a replica whose head is this far behind
  bool null_head_timestamp = false;  // `_meta.block.timestamp` is null
};

class Engine {
 public:
  // Builds the world for `config`; `now_ms` is the resolved simulated now (SimConfig.now, resolved
  // by the caller), against which SimConfig.start is resolved. With `live_clock`, the head follows
  // the clock (clock now minus the lag) instead of staying at now_ms minus the lag. Returns
  // kConfig/kUsage for a bad start time or world configuration.
  static Result<std::shared_ptr<const Engine>> Create(
      const config::SimConfig& config, int64_t now_ms,
      std::shared_ptr<const Clock> live_clock = nullptr);

  // Answers one HTTP request body (`{"query": "...", "variables": {...}}`). Never throws. Status
  // 400 with a JSON `errors` body for a body that is not such a JSON object; 200 with `{"data":
  // ...}` or
  // `{"errors": [{"message": ...}]}` otherwise. Thread-safe.
  gql::HttpResponse Handle(std::string_view body, const AnswerOptions& answer = {}) const;

  // Executes a query with bound variables (a kObject or kNull Value). Returns the `{"data": ...}`
  // JSON text, or a kSource status whose message is the GraphQL error. Thread-safe.
  Result<std::string> Execute(std::string_view query, const graphql::Value& variables,
                              const AnswerOptions& answer = {}) const;

  // The indexed head in unix ms (now minus the lag); events with timestamp (s) * 1000 <= head are
  // visible.
  int64_t HeadMs() const;
  // The simulated now in unix ms (the clock's with a live clock).
  int64_t NowMs() const;
  // Answers one GET of the simulated exchange (`/api/v3/klines?...`, Binance's shape and limits):
  // the closed and the current candle of the feed; `/api/v3/time`: {"serverTime": NowMs()}; 400
  // with Binance's error body for a bad symbol, interval or parameter. Thread-safe.
  gql::HttpResponse HandleExchange(std::string_view path_and_query) const;
  const World& world() const { return *world_; }
  const config::SimConfig& config() const { return config_; }

 private:
  Engine() = default;
  config::SimConfig config_;
  int64_t now_ms_ = 0;
  std::shared_ptr<const Clock> clock_;
  std::shared_ptr<const World> world_;
};

}  // namespace predlake::sim
