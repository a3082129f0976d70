#include "source/sim/faults.hpp"

#include <algorithm>

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

}  // namespace predlake::sim
