#include "source/sim/server.hpp"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "http/server.hpp"
#include "source/sim/faults.hpp"

namespace predlake::sim {

struct Server::Impl {
  std::shared_ptr<const Engine> engine;
  ServerOptions options;
  std::unique_ptr<http::Server> http;
  std::atomic<uint64_t> requests{0};
  std::atomic<bool> stop_requested{false};
  std::mutex mu;
  std::condition_variable stop_cv;  // wakes injected delays

  // The fault of request number `n`, after holding the answer back for a "timeout" one.
  FaultKind Fault(uint64_t n) {
    const FaultKind kind = DecideFault(engine->config().faults, n);
    if (kind == FaultKind::kTimeout) {
      std::unique_lock<std::mutex> lock(mu);
      stop_cv.wait_for(lock, std::chrono::milliseconds(options.fault_delay_ms),
                       [this] { return stop_requested.load(); });
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

  void Handle(const httplib::Request& req, httplib::Response& res) {
    const uint64_t n = requests.fetch_add(1);
    Fault(n);
    Reply(AnswerWithFaults(*engine, req.body, 0, n), res);
  }

  // The simulated exchange (Binance's klines), with the subgraph's fault draws.
  void HandleExchange(const httplib::Request& req, httplib::Response& res) {
    const uint64_t n = requests.fetch_add(1);
    const FaultKind kind = Fault(n);
    std::string query;
    for (const auto& [key, value] : req.params) {
      query += (query.empty() ? "?" : "&") + key + "=" + value;
    }
    Reply(ApplyFault(kind, engine->config().faults, n, engine->HandleExchange(req.path + query)),
          res);
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { Stop(); }

Result<std::unique_ptr<Server>> Server::Start(std::shared_ptr<const Engine> engine,
                                              const ServerOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->engine = std::move(engine);
  impl->options = options;
  Impl* raw = impl.get();
  http::ServerOptions listen;
  listen.name = "sim serve";
  listen.host = options.host;
  listen.port = options.port;
  listen.threads = options.threads;
  listen.keep_alive_seconds = kKeepAliveSeconds;
  listen.keep_alive_max_count = 10'000;
  listen.read_timeout_seconds = kReadTimeoutSeconds;
  listen.max_request_bytes = kMaxRequestBytes;
  ASSIGN_OR_RETURN(
      impl->http, http::Server::Start(listen, [raw](httplib::Server& s) {
        s.Post(".*", [raw](const httplib::Request& req, httplib::Response& res) {
          raw->Handle(req, res);
        });
        s.Get("/api/v3/(klines|time)", [raw](const httplib::Request& req, httplib::Response& res) {
          raw->HandleExchange(req, res);
        });
        s.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                                   std::exception_ptr) {
          res.status = 500;
          res.set_content("{\"errors\":[{\"message\":\"internal error\"}]}", "application/json");
        });
      }));
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->http->port(); }

std::string Server::Url() const {
  return "http://" + impl_->http->HostPort() + "/subgraphs/name/predlake/sim";
}

uint64_t Server::requests() const { return impl_->requests.load(); }

Status Server::Run() { return impl_->http->Run(); }

void Server::Stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop_requested = true;
  }
  impl_->stop_cv.notify_all();
  impl_->http->Stop();
}

}  // namespace predlake::sim
