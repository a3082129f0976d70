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
#include "http/server.hpp"
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

// The server: http::Server (src/http), with Url()
// "http://127.0.0.1:PORT/subgraphs/name/predlake/sim".
using Server = http::Server;

// Binds the listening socket (kUsage, one line, when the port is out of range or cannot be
// bound) and answers the engine's GraphQL on any POST path and the simulated exchange on GET
// /api/v3/klines and /api/v3/time, with the engine's faults; a "timeout" fault holds its answer
// back for fault_delay_ms or until Stop. Nothing is answered until Run.
Result<std::unique_ptr<Server>> Listen(std::shared_ptr<const Engine> engine,
                                       const ServerOptions& options);

}  // namespace predlake::sim
