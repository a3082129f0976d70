// `predlake sim serve`: the simulated subgraph over HTTP on 127.0.0.1. Any POST path answers
// GraphQL (e.g. /subgraphs/name/oceanprotocol/ocean-subgraph-sim); connections are kept alive
// while busy, each on its own thread, so that idle ones never hold other clients up. Bodies are
// bounded (kMaxRequestBytes), and so are aliases, fields and the response (subgraph.hpp).
// Faults from the engine's SimFaults are injected per request, numbered in arrival order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.hpp"
#include "source/sim/subgraph.hpp"

namespace predlake::sim {

// An idle keep-alive connection is closed after this many seconds; a request whose bytes stall
// longer than kReadTimeoutSeconds is dropped.
inline constexpr int kKeepAliveSeconds = 1;
inline constexpr int kReadTimeoutSeconds = 5;

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;                     // 0 picks a free port
  int64_t fault_delay_ms = 30'000;  // how long a "timeout" fault holds the answer back
  // Threads: one per connection, up to this many at once (more connections wait for a free one).
  int threads = 256;
};

class Server {
 public:
  // Binds the listening socket. Returns kUsage when the port cannot be bound (in use, no
  // permission) or is out of range. The server answers nothing until Run is called.
  static Result<std::unique_ptr<Server>> Start(std::shared_ptr<const Engine> engine,
                                               const ServerOptions& options);
  ~Server();  // stops the server; Run must have returned (join its thread first)

  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  // "http://127.0.0.1:PORT/subgraphs/name/predlake/sim"
  std::string Url() const;

  // Serves until Stop is called; returns OK then, or kSource when the listener fails. Call once.
  Status Run();
  // Makes Run return (after in-flight requests finish; injected delays are cut short). Thread-safe,
  // idempotent, may be called before Run (Run then returns at once).
  void Stop();
  // Requests answered so far (including faulty ones).
  uint64_t requests() const;

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace predlake::sim
