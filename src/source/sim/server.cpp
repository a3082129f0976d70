#include "source/sim/server.hpp"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <string>

#include "http/server.hpp"
#include "source/sim/faults.hpp"

namespace predlake::sim {

namespace {

// What the handlers share: the engine, and the requests numbered in arrival order for the faults.
struct SimHandlers {
  std::shared_ptr<const Engine> engine;
  ServerOptions options;
  std::atomic<uint64_t> numbered{0};

  // The fault of request number `n`, after holding the answer back for a "timeout" one.
  FaultKind Fault(uint64_t n, const http::Server& server) const {
    const FaultKind kind = DecideFault(engine->config().faults, n);
    if (kind == FaultKind::kTimeout) {
      server.WaitForStop(std::chrono::milliseconds(options.fault_delay_ms));
    }
    return kind;
  }

  static void Reply(const gql::HttpResponse& answer, httplib::Response& res) {
    res.status = answer.status;
    if (answer.retry_after_ms) {
      res.set_header("Retry-After", std::to_string((*answer.retry_after_ms + 999) / 1000));
    }
    res.set_content(answer.body, "application/json");
  }

  void Handle(const httplib::Request& req, httplib::Response& res, const http::Server& server) {
    const uint64_t n = numbered.fetch_add(1);
    Fault(n, server);
    Reply(AnswerWithFaults(*engine, req.body, 0, n), res);
  }

  // The simulated exchange (Binance's klines), with the subgraph's fault draws.
  void HandleExchange(const httplib::Request& req, httplib::Response& res,
                      const http::Server& server) {
    const uint64_t n = numbered.fetch_add(1);
    const FaultKind kind = Fault(n, server);
    std::string query;
    for (const auto& [key, value] : req.params) {
      query += (query.empty() ? "?" : "&") + key + "=" + value;
    }
    Reply(ApplyFault(kind, engine->config().faults, n, engine->HandleExchange(req.path + query)),
          res);
  }
};

}  // namespace

Result<std::unique_ptr<Server>> Listen(std::shared_ptr<const Engine> engine,
                                       const ServerOptions& options) {
  auto handlers = std::make_shared<SimHandlers>();
  handlers->engine = std::move(engine);
  handlers->options = options;
  http::ServerOptions listen;
  listen.name = "sim serve";
  listen.host = options.host;
  listen.port = options.port;
  listen.url_path = "/subgraphs/name/predlake/sim";
  listen.threads = options.threads;
  listen.keep_alive_seconds = kKeepAliveSeconds;
  listen.keep_alive_max_count = 10'000;
  listen.read_timeout_seconds = kReadTimeoutSeconds;
  listen.max_request_bytes = kMaxRequestBytes;
  return http::Server::Start(listen, [handlers](httplib::Server& s, const http::Server& self) {
    const http::Server* server = &self;
    s.Post(".*", [handlers, server](const httplib::Request& req, httplib::Response& res) {
      handlers->Handle(req, res, *server);
    });
    s.Get("/api/v3/(klines|time)",
          [handlers, server](const httplib::Request& req, httplib::Response& res) {
            handlers->HandleExchange(req, res, *server);
          });
    s.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
          res.status = 500;
          res.set_content("{\"errors\":[{\"message\":\"internal error\"}]}", "application/json");
        });
  });
}

}  // namespace predlake::sim
