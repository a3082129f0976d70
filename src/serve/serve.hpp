// `predlake serve`: the predictoor revenue dashboard (docs/serve.md). An HTTP server (cpp-httplib)
// whose every request reads the current Parquet snapshot (src/export) in an in-memory DuckDB of its
// own, sealed so that only the exports folder is readable: a request resolves `current` once, so it
// never sees a half-published state and never blocks the writer. Pages are server-rendered HTML;
// behind each is a JSON API with the same numbers and a CSV per table; /metrics and /healthz.
//
// Nothing from the browser becomes SQL: parameters (period, sort, dir, table, the address in the
// path) are checked against fixed lists or patterns and bound; sort keys come from a fixed list per
// table. Thread-safe: requests run in parallel, one connection per thread (up to a bound), a few
// pages computed at once (the rest wait in arrival order), each computed page kept per snapshot.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "common/time.hpp"
#include "http/gate.hpp"
#include "http/server.hpp"

namespace predlake::serve {

// The default port (pdr-backend's dashboard uses the same).
inline constexpr int kDefaultPort = 8050;
// A request whose bytes stall longer than this is dropped; an idle keep-alive connection is closed
// after kServeKeepAliveSeconds.
inline constexpr int kServeReadTimeoutSeconds = 5;
inline constexpr int kServeKeepAliveSeconds = 1;
// The pages kept for answering again (Dashboard), by default.
inline constexpr size_t kDefaultPageCacheBytes = size_t{64} << 20;

struct ServeOptions {
  std::string lake_dir;            // lake_ss.lake_dir; the snapshots are under <lake_dir>/exports
  std::string host = "127.0.0.1";  // --bind
  int port = kDefaultPort;         // 0 picks a free port
  int threads = 64;                // one per connection, up to this many at once
  // Pages computed at once (Dashboard); 0: two per core (std::thread::hardware_concurrency).
  int page_slots = 0;
  // The pages kept per snapshot (Dashboard), in bytes (an estimate of their memory); 0 keeps none
  // and shares none: every request computes its page.
  size_t page_cache_bytes = kDefaultPageCacheBytes;
  const Clock* clock = nullptr;  // snapshot age; not owned; nullptr: the system clock
  // predictoor_ss.my_addresses, lower case: pinned first on the leaderboard, with a total row.
  std::vector<std::string> my_addresses;
};

// One HTTP answer.
struct Response {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Answers GET `path` with `params` (the query string, decoded; a repeated name is kept once per
// value) as the server does, without HTTP, computing the page every time (no limit, nothing kept:
// Dashboard adds those): the routing, the pages, the API, CSV, /metrics, /healthz and /assets. Used
// by the tests and the benchmark.
Response Answer(const ServeOptions& options, std::string_view path,
                const std::multimap<std::string, std::string>& params);

// What the server answers with (docs/serve.md, "Many readers"): Answer, shared by every request,
// with two differences. (1) At most `page_slots` pages are computed at once; the other page
// requests wait in arrival order (http::Gate), while /healthz, /metrics and /assets never wait.
// (2) A page computed for a snapshot is kept (up to `page_cache_bytes`, the least recently used
// dropped first; every one dropped when another snapshot becomes current) and answered again to
// the same request (path and parameters; HTML and API share it, CSV keeps its own), rendered anew
// with the request's freshness (the snapshot's age); a request for a page that another is computing
// waits for that one instead of computing it again (its error too). A page answer says which it
// was: `X-Cache: hit` (kept or shared) or `X-Cache: miss` (computed for it). Thread-safe.
class Dashboard {
 public:
  explicit Dashboard(ServeOptions options);
  ~Dashboard();
  Dashboard(const Dashboard&) = delete;
  Dashboard& operator=(const Dashboard&) = delete;

  Response Answer(std::string_view path, const std::multimap<std::string, std::string>& params);

  // The slots of the pages computed at once (a test may hold one itself).
  http::Gate& page_gate() const;
  size_t cached_pages() const;
  size_t cached_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Opens the current snapshot for the requests to come (what the first request after a new snapshot
// would otherwise pay: the snapshot's in-memory tables). `serve --every` calls it after each
// export.
Status Warm(const ServeOptions& options);

// The server: http::Server (src/http), with Url() "http://127.0.0.1:8050/".
using Server = http::Server;

// Binds the listening socket (kUsage, one line, when the port is out of range or cannot be bound:
// in use, no permission, an address that is not this machine's) and answers every GET as
// Dashboard::Answer does.
// Answers through one Dashboard. Nothing is answered until Run.
Result<std::unique_ptr<Server>> Listen(const ServeOptions& options);

}  // namespace predlake::serve
