// The cpp-httplib server of `sim serve` and `serve`: the listening socket bound before anything is
// answered (a port that cannot be bound is one clear line), a thread per connection up to a bound
// (connection_threads.hpp), the timeouts and limits, Run until Stop, and the loop that runs it
// until a signal. What each answers is its own: it adds its handlers to the httplib::Server
// (sim::Listen, serve::Listen).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/status.hpp"

namespace httplib {
class Server;
}

namespace predlake::http {

struct ServerOptions {
  std::string name;  // the command, in errors: "serve", "sim serve"
  std::string host = "127.0.0.1";
  int port = 0;                // 0 picks a free port
  std::string url_path = "/";  // what Url() ends with
  int threads = 64;  // one per connection, up to this many at once (more wait for a free one)
  // Up to this many connections wait for a thread; each one past them is answered 503 with
  // Retry-After: 1 and closed, at once, by one more thread (connection_threads.hpp).
  int max_waiting = 256;
  // An idle keep-alive connection is closed after keep_alive_seconds, and its thread freed: Stop()
  // waits at most this long for idle connections (httplib does not wake them). A connection is
  // closed after keep_alive_max_count requests.
  int keep_alive_seconds = 1;
  size_t keep_alive_max_count = 1000;
  // A request (or an answer) whose bytes stall longer than this is dropped.
  int read_timeout_seconds = 5;
  size_t max_request_bytes = 64 * 1024;
};

class Server {
 public:
  // Adds the handlers (and an exception handler) to `http`; called once, before binding. `self` is
  // the server being started (for WaitForStop); it outlives the handlers.
  using Routes = std::function<void(httplib::Server& http, const Server& self)>;

  // Binds the listening socket. kUsage, on one line, when the port is out of range or cannot be
  // bound (in use, no permission, an address that is not this machine's); never shares a port
  // with another server (no SO_REUSEPORT). Nothing is answered until Run.
  static Result<std::unique_ptr<Server>> Start(const ServerOptions& options, const Routes& routes);
  ~Server();  // stops the server; Run must have returned (join its thread first)
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  // "http://127.0.0.1:8050" and the url_path; an IPv6 host in brackets ("http://[::1]:8050/").
  std::string Url() const;
  // Requests received so far (every one that was read, whatever its answer).
  uint64_t requests() const;

  // Serves until Stop; OK then, kSource when the listener fails. Call once.
  Status Run();
  // Makes Run return after in-flight requests, and cuts WaitForStop short. Thread-safe,
  // idempotent, may precede Run (Run then returns at once).
  void Stop();
  // Run on a thread of its own until `cancelled` is set (a signal), Run returns, or `done` (when
  // given; polled) says so; then Stop. Returns what Run returned.
  Status RunUntil(const std::atomic<bool>& cancelled, const std::function<bool()>& done = {});
  // For a handler that holds its answer back: waits up to `wait`; true when Stop came first.
  bool WaitForStop(std::chrono::milliseconds wait) const;

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace predlake::http
