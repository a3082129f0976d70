#include "source/sim/faults.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "source/sim/hash.hpp"

namespace predlake::sim {

uint64_t FaultSalt(int64_t run_id, int stream) {
  if (run_id == 0 && stream == 0) return 0;
  return Hash(static_cast<uint64_t>(run_id), static_cast<uint64_t>(stream), 0xfa04);
}

uint64_t FaultIndex(uint64_t salt, uint64_t n) { return salt == 0 ? n : Hash(salt, n, 0xfa03); }

FaultKind DecideFault(const config::SimFaults& faults, uint64_t request_index) {
  const double u = Unit(Hash(faults.seed, request_index, 0xfa01));
  const std::pair<double, FaultKind> rates[] = {
      {faults.http_5xx, FaultKind::kHttp5xx},    {faults.timeout, FaultKind::kTimeout},
      {faults.http_429, FaultKind::kHttp429},    {faults.graphql_error, FaultKind::kGraphqlError},
      {faults.malformed, FaultKind::kMalformed},
  };
  double acc = 0;
  for (const auto& [rate, kind] : rates) {
    acc += std::clamp(rate, 0.0, 1.0);
    if (u < acc) return kind;
  }
  return FaultKind::kNone;
}

gql::HttpResponse ApplyFault(FaultKind kind, const config::SimFaults& faults,
                             uint64_t request_index, gql::HttpResponse normal) {
  const uint64_t h = Hash(faults.seed, request_index, 0xfa02);
  gql::HttpResponse r;
  switch (kind) {
    case FaultKind::kNone:
    case FaultKind::kTimeout:
      return normal;
    case FaultKind::kHttp5xx: {
      static const int kCodes[] = {500, 502, 503};
      r.status = kCodes[h % 3];
      r.body = "simulated server error";
      return r;
    }
    case FaultKind::kHttp429:
      r.status = 429;
      r.retry_after_ms = 1000 * static_cast<int64_t>(1 + h % 2);
      r.body = "{\"error\":\"Too many requests (simulated)\"}";
      return r;
    case FaultKind::kGraphqlError:
      r.status = 200;
      r.body =
          "{\"errors\":[{\"message\":\"simulated indexing error: store error: database "
          "unavailable\"}]}";
      return r;
    case FaultKind::kMalformed:
      r.status = 200;
      if (h % 2 == 0 && normal.body.size() > 2) {
        // Cut somewhere strictly inside the body so that it can never parse.
        r.body = normal.body.substr(0, 1 + (h >> 8) % (normal.body.size() - 1));
      } else {
        r.body = "<html><body>502 Bad Gateway</body></html>";
      }
      return r;
  }
  return normal;
}

gql::HttpResponse AnswerWithFaults(const Engine& engine, const std::string& body, uint64_t salt,
                                   uint64_t n) {
  const config::SimFaults& faults = engine.config().faults;
  const uint64_t index = FaultIndex(salt, n);
  if (faults.throttle_burst > 0) {
    const uint64_t group = n / static_cast<uint64_t>(std::max(faults.throttle_burst_length, 1));
    const uint64_t g = FaultIndex(salt, group);
    if (Unit(Hash(faults.seed, g, 0xfa05)) < std::clamp(faults.throttle_burst, 0.0, 1.0)) {
      static const char* const kLoadErrors[] = {
          "service is overloaded and can not run the query right now. Please try again in a few "
          "minutes",
          "query is too expensive",
          "Query timed out",
          "query potentially returns `1000000` entities or more and thereby exceeds the limit of "
          "`500000` entities. Try using `first` to return smaller collections",
      };
      nlohmann::json j = {
          {"errors", nlohmann::json::array(
                         {{{"message", kLoadErrors[Hash(faults.seed, index, 0xfa06) % 4]}}})}};
      gql::HttpResponse r;
      r.status = 200;
      r.body = j.dump();
      return r;
    }
  }
  const FaultKind kind = DecideFault(faults, index);
  if (kind == FaultKind::kHttp5xx || kind == FaultKind::kHttp429 ||
      kind == FaultKind::kGraphqlError) {
    return ApplyFault(kind, faults, index, {});
  }
  AnswerOptions answer;
  if (Unit(Hash(faults.seed, index, 0xfa07)) < std::clamp(faults.lagging_replica, 0.0, 1.0)) {
    answer.head_behind_ms = faults.replica_lag_ms;
  }
  answer.null_head_timestamp =
      Unit(Hash(faults.seed, index, 0xfa08)) < std::clamp(faults.null_head_timestamp, 0.0, 1.0);
  return ApplyFault(kind, faults, index, engine.Handle(body, answer));
}

}  // namespace predlake::sim
