// The skeleton of the cpp-httplib servers (`sim serve`, `serve`): the listening socket bound
// before anything is answered (a port that cannot be bound is one clear line), a thread per
// connection up to a bound (connection_threads.hpp), the timeouts and limits, and Run until Stop.
// What each server answers is its own: it adds its handlers to the httplib::Server.
#pragma once

#include <cstddef>
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
  int port = 0;      // 0 picks a free port
  int threads = 64;  // one per connection, up to this many at once (more wait for a free one)
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
  // Adds the server's handlers (and its exception handler) to `http`; called once, before binding.
  using Routes = std::function<void(httplib::Server& http)>;

  // Binds the listening socket. kUsage, on one line, when the port is out of range or cannot be
  // bound (in use, no permission, an address that is not this machine's); never shares a port
  // with another server (no SO_REUSEPORT). Nothing is answered until Run.
  static Result<std::unique_ptr<Server>> Start(const ServerOptions& options, const Routes& routes);
  ~Server();  // stops the server; Run must have returned (join its thread first)
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  // "127.0.0.1:8050"; an IPv6 host in brackets ("[::1]:8050").
  std::string HostPort() const;
  // Serves until Stop; OK then, kSource when the listener fails. Call once.
  Status Run();
  // Makes Run return after in-flight requests. Thread-safe, idempotent, may precede Run (Run then
  // returns at once).
  void Stop();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace predlake::http
