// A GraphQL client for subgraphs: posts a query through a Transport and returns its `data`,
// retrying what The Graph's hosted services get wrong now and then.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/backoff.hpp"
#include "common/sleeper.hpp"
#include "common/status.hpp"
#include "source/gql/transport.hpp"

namespace predlake::gql {

// One retry, as it happens (RetryPolicy::on_retry): what failed and how long the client now waits.
struct RetryNotice {
  std::string_view kind;   // ErrorKindName
  int retry = 0;           // 1 for a query's first retry
  int64_t wait_ms = 0;     // the wait before the next attempt
  std::string_view error;  // what the failed attempt got, as a failed Query would report it
};

struct RetryPolicy {
  // The total of the waits one query may spend retrying (lake_ss.retry_budget): errors that last
  // (throttling, timeouts, indexing errors, a node behind) are retried until the next wait would
  // pass it.
  int64_t budget_ms = 10 * 60 * 1000;
  // Attempts in all (the first try included); 0: only the budget limits them.
  int max_attempts = 0;
  // Attempts when no answer comes, or a broken one (transport failures, HTTP 5xx, malformed
  // bodies): an unreachable or misconfigured URL should fail in seconds, not use up the budget.
  int transport_attempts = 6;
  // Attempts for a GraphQL error whose message is none of graph-node's known ones (ErrorKind
  // kOtherGraphql): it may be a bad query, which fails the same way every time.
  int graphql_error_attempts = 3;
  int64_t base_delay_ms = 500;           // backoff before the 2nd attempt; doubles each time
  int64_t max_delay_ms = 60'000;         // cap of the exponential backoff
  int64_t max_retry_after_ms = 120'000;  // a longer Retry-After is shortened to this
  uint64_t jitter_seed = 0;              // 0: seeded from std::random_device
  // Called before each wait to retry (the `-v` log), on the client's thread; may be empty. Copies
  // of the policy share it, so when clients run on several threads it must be thread-safe.
  std::function<void(const RetryNotice&)> on_retry;
};

// Why an attempt failed, from graph-node's error texts (its QueryExecutionError messages, which
// arrive as HTTP 200 with `errors`) and the HTTP exchange.
enum class ErrorKind {
  kTransport,     // no answer (connect error, timeout of the exchange)
  kHttp,          // HTTP 5xx or 429
  kMalformed,     // not a JSON object with a `data` object
  kThrottled,     // "service is overloaded ..."
  kTooExpensive,  // "query is too expensive" (load shedding; the query's shape, not its size)
  kTooLarge,      // "... exceeds the limit of ... entities", "the result size ... is larger than"
  kTimeout,       // "Query timed out"
  kIndexing,      // "indexing_error": the deployment has an error at the queried block
  kBehind,        // "has only indexed up to block ...", or a pinned answer from an older block
  kStore,         // "Store error", a reorg during the query, ...: transient on the server
  kNullHead,      // `_meta.block.timestamp` null (reported by the caller, see WaitToRetry)
  kPermanent,     // a bad query (unknown field or argument, bad value): never retried
  kDeploymentChanged,  // a pinned answer from another deployment than the run's: never retried
  kOtherGraphql,       // any other GraphQL error: retried policy.graphql_error_attempts times
};

// The kind of a GraphQL error message (kOtherGraphql for an unknown one).
ErrorKind ClassifyGraphqlError(std::string_view message);
// "throttled", "too_expensive", ... (the keys of ClientStats::retries_by_kind).
std::string_view ErrorKindName(ErrorKind kind);

// What happened so far, for progress, the ledger and benchmarks.
struct ClientStats {
  int64_t requests = 0;  // Post calls
  int64_t retries = 0;
  int64_t slept_ms = 0;
  int64_t bytes_received = 0;
  std::map<std::string, int64_t> retries_by_kind;  // ErrorKindName -> retries
  int64_t smaller_pages = 0;                       // pages re-asked with a smaller `first`
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

  // Pins every later query to block `number` or later (graph-node's `block: {number_gte: N}` on
  // each root field, plus an adjacent `_meta` that reports the block served, which Query checks):
  // a node that has not indexed that far answers "not yet indexed", which is retried. nullopt
  // unpins.
  void set_min_block(std::optional<int64_t> number) { min_block_ = number; }
  std::optional<int64_t> min_block() const { return min_block_; }

  // Pins the deployment with the block (only while a min_block is set): every pinned query asks
  // its `_meta` for the deployment too, and an answer from another one fails at once (kSource,
  // ErrorKind kDeploymentChanged, naming both), so that a subgraph name switched to a new
  // deployment in the middle of a run is noticed in that run rather than mixing the two. An answer
  // whose `_meta` has no deployment (a server that does not report it) is taken. nullopt or ""
  // unpins.
  void set_deployment(std::optional<std::string> deployment) {
    deployment_ = deployment && !deployment->empty() ? std::move(deployment) : std::nullopt;
  }

  // Posts {"query": query} (pinned, see set_min_block) and returns the response's `data` member
  // (a JSON object, without the pin's `_meta`).
  //
  // Retried with capped exponential backoff and jitter (Retry-After honoured when present) while
  // the waits stay within policy.budget_ms (and policy.max_attempts when set): HTTP 429 and GraphQL
  // errors of the retryable kinds (see ErrorKind); transport failures, HTTP 5xx and malformed
  // bodies up to policy.transport_attempts;
  // an unknown GraphQL error up to policy.graphql_error_attempts; a kPermanent one and any other
  // 4xx fail at once. With `shrinkable`, a kTooLarge or kTimeout error is returned at once, with
  // last_error_kind() telling the caller to ask for less. On failure returns kSource "<describe>:
  // <what happened> (after N attempts)", where <what happened> quotes the HTTP status, curl's error
  // or the first GraphQL error; the caller adds table, window and page. kCancelled when stopped.
  Result<nlohmann::json> Query(std::string_view query, bool shrinkable = false);

  // The kind of the last failed attempt (of a failed Query, its last one).
  std::optional<ErrorKind> last_error_kind() const { return last_error_kind_; }

  // For a caller that finds an answer unusable (a null head timestamp): counts a retry of `kind`
  // because of `why` and waits the next backoff of `retry` (1 for the first retry). Returns false,
  // without waiting, when the wait would pass the budget or the client is stopped.
  bool WaitToRetry(ErrorKind kind, int retry, int64_t& waited_ms, std::string_view why);

  // Records that a page was re-asked with a smaller `first` (for the stats).
  void CountSmallerPage() { ++stats_.smaller_pages; }

  const ClientStats& stats() const { return stats_; }
  const Transport& transport() const { return *transport_; }

 private:
  void CountRetry(ErrorKind kind, int retry, int64_t wait_ms, std::string_view error);

  std::unique_ptr<Transport> transport_;
  RetryPolicy policy_;
  Sleeper* sleeper_;
  const std::atomic<bool>* stop_ = nullptr;
  Backoff backoff_;
  ClientStats stats_;
  std::optional<int64_t> min_block_;
  std::optional<std::string> deployment_;
  std::optional<ErrorKind> last_error_kind_;
};

// `text` as a GraphQL string literal, quoted and escaped.
std::string QuoteGraphqlString(std::string_view text);

// The response key of the `_meta` a pinned query carries.
inline constexpr std::string_view kPinMetaAlias = "predlake_pin";

// `query` (one selection set of root fields, `{ a: f(args) { ... } g { ... } }`) with `block:
// {number_gte: N}` added to every root field's arguments and `predlake_pin: _meta(block:
// {number_gte: N}) { block { number } }` after them, so that graph-node serves all of them at one
// block and says which (and, `with_deployment`, from which deployment: `{ deployment block {
// number } }`). kInternal when the query is not of that shape.
Result<std::string> PinQueryToBlock(std::string_view query, int64_t number,
                                    bool with_deployment = false);

}  // namespace predlake::gql
