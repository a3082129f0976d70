// A GraphQL client for subgraphs: posts a query through a Transport and returns its `data`,
// retrying what The Graph's hosted services get wrong now and then.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>

#include "common/sleeper.hpp"
#include "common/status.hpp"
#include "source/gql/transport.hpp"

namespace predlake::gql {

struct RetryPolicy {
  // Attempts in all (the first try included) for transport errors, HTTP 5xx/429 and malformed JSON.
  int max_attempts = 6;
  // Attempts when the body is well-formed but reports GraphQL `errors` (often transient on The
  // Graph, but a bad query fails the same way every time, so give up sooner).
  int graphql_error_attempts = 3;
  int64_t base_delay_ms = 500;           // backoff before the 2nd attempt; doubles each time
  int64_t max_delay_ms = 30'000;         // cap of the exponential backoff
  int64_t max_retry_after_ms = 120'000;  // a longer Retry-After is shortened to this
  uint64_t jitter_seed = 0;              // 0: seeded from std::random_device
};

// What happened so far, for progress and benchmarks.
struct ClientStats {
  int64_t requests = 0;  // Post calls
  int64_t retries = 0;
  int64_t slept_ms = 0;
  int64_t bytes_received = 0;
};

// Not thread-safe: one Client (and Transport) per thread. The sleeper must outlive the client.
class Client {
 public:
  explicit Client(std::unique_ptr<Transport> transport, RetryPolicy policy = {},
                  Sleeper* sleeper = nullptr);

  // Stops retrying (and waiting, and the transport's request in flight) once `*stop` becomes
  // true; the pending Query then returns kCancelled. Not owned.
  void set_stop_flag(const std::atomic<bool>* stop) {
    stop_ = stop;
    transport_->SetStopFlag(stop);
  }

  // Posts {"query": query} and returns the response's `data` member (a JSON object).
  //
  // Retried with exponential backoff and jitter (Retry-After honoured when present): transport
  // failures, HTTP 5xx and 429, bodies that are not a JSON object with a `data` object (truncated,
  // malformed), and, up to policy.graphql_error_attempts, GraphQL `errors` in a 200 body. Any other
  // 4xx fails at once. On failure returns kSource "<describe>: <what happened> (after N attempts)",
  // where <what happened> quotes the HTTP status, curl's error or the first GraphQL error; the
  // caller adds table, window and page. Returns kCancelled when stopped.
  Result<nlohmann::json> Query(std::string_view query);

  const ClientStats& stats() const { return stats_; }
  const Transport& transport() const { return *transport_; }

 private:
  int64_t BackoffMs(int retry);

  std::unique_ptr<Transport> transport_;
  RetryPolicy policy_;
  Sleeper* sleeper_;
  const std::atomic<bool>* stop_ = nullptr;
  std::mt19937_64 rng_;
  ClientStats stats_;
};

// `text` as a GraphQL string literal, quoted and escaped.
std::string QuoteGraphqlString(std::string_view text);

}  // namespace predlake::gql
