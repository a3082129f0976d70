#include "source/sim/server.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "http/connection_threads.hpp"
#include "source/sim/faults.hpp"

namespace predlake::sim {

struct Server::Impl {
  std::shared_ptr<const Engine> engine;
  ServerOptions options;
  httplib::Server http;
  int port = 0;
  std::atomic<uint64_t> requests{0};
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> running{false};  // inside Run
  std::mutex mu;
  std::condition_variable stop_cv;  // wakes injected delays

  void Handle(const httplib::Request& req, httplib::Response& res) {
    const uint64_t n = requests.fetch_add(1);
    const config::SimFaults& faults = engine->config().faults;
    const FaultKind kind = DecideFault(faults, n);
    if (kind == FaultKind::kTimeout) {
      std::unique_lock<std::mutex> lock(mu);
      stop_cv.wait_for(lock, std::chrono::milliseconds(options.fault_delay_ms),
                       [this] { return stop_requested.load(); });
    }
    gql::HttpResponse answer = AnswerWithFaults(*engine, req.body, 0, n);
    res.status = answer.status;
    if (answer.retry_after_ms) {
      res.set_header("Retry-After", std::to_string((*answer.retry_after_ms + 999) / 1000));
    }
    res.set_content(answer.body, "application/json");
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { Stop(); }

Result<std::unique_ptr<Server>> Server::Start(std::shared_ptr<const Engine> engine,
                                              const ServerOptions& options) {
  if (options.port < 0 || options.port > 65535) {
    return Status::Usage(fmt::format("port {} is out of range 0..65535", options.port));
  }
  auto impl = std::make_unique<Impl>();
  impl->engine = std::move(engine);
  impl->options = options;
  Impl* raw = impl.get();
  const size_t threads = static_cast<size_t>(std::max(1, options.threads));
  impl->http.new_task_queue = [threads] { return http::NewConnectionThreads(threads); };
  // httplib's default adds SO_REUSEPORT, which would let a second server share a busy port
  // silently.
  impl->http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  impl->http.set_tcp_nodelay(true);  // a page is one write; do not wait for delayed ACKs
  // A connection idle this long is closed, and its thread freed: Stop() waits at most this long
  // for idle connections (httplib 0.11 does not wake them).
  impl->http.set_keep_alive_max_count(10'000);
  impl->http.set_keep_alive_timeout(kKeepAliveSeconds);
  impl->http.set_read_timeout(kReadTimeoutSeconds, 0);
  impl->http.set_write_timeout(kReadTimeoutSeconds, 0);
  impl->http.set_payload_max_length(kMaxRequestBytes);
  impl->http.Post(
      ".*", [raw](const httplib::Request& req, httplib::Response& res) { raw->Handle(req, res); });
  // The simulated exchange (Binance's klines), with the subgraph's fault draws.
  impl->http.Get(
      "/api/v3/(klines|time)", [raw](const httplib::Request& req, httplib::Response& res) {
        const uint64_t n = raw->requests.fetch_add(1);
        const config::SimFaults& faults = raw->engine->config().faults;
        const FaultKind kind = DecideFault(faults, n);
        if (kind == FaultKind::kTimeout) {
          std::unique_lock<std::mutex> lock(raw->mu);
          raw->stop_cv.wait_for(lock, std::chrono::milliseconds(raw->options.fault_delay_ms),
                                [raw] { return raw->stop_requested.load(); });
        }
        std::string target = req.path;
        std::string query;
        for (const auto& [key, value] : req.params) {
          query += (query.empty() ? "?" : "&") + key + "=" + value;
        }
        gql::HttpResponse answer =
            ApplyFault(kind, faults, n, raw->engine->HandleExchange(target + query));
        res.status = answer.status;
        if (answer.retry_after_ms) {
          res.set_header("Retry-After", std::to_string((*answer.retry_after_ms + 999) / 1000));
        }
        res.set_content(answer.body, "application/json");
      });
  impl->http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        res.status = 500;
        res.set_content("{\"errors\":[{\"message\":\"internal error\"}]}", "application/json");
      });
  if (options.port == 0) {
    impl->port = impl->http.bind_to_any_port(options.host);
    if (impl->port <= 0) {
      return Status::Usage(fmt::format("cannot listen on {}: no free port", options.host));
    }
  } else {
    if (!impl->http.bind_to_port(options.host, options.port)) {
      return Status::Usage(
          fmt::format("cannot listen on {}:{}: the port is in use or not permitted", options.host,
                      options.port));
    }
    impl->port = options.port;
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port; }

std::string Server::Url() const {
  return fmt::format("http://{}:{}/subgraphs/name/predlake/sim", impl_->options.host, impl_->port);
}

uint64_t Server::requests() const { return impl_->requests.load(); }

Status Server::Run() {
  impl_->running = true;
  bool ok = true;
  if (!impl_->stop_requested) ok = impl_->http.listen_after_bind();
  impl_->running = false;
  if (!ok && !impl_->stop_requested) return Status::Source("sim serve: the HTTP listener failed");
  return Status::Ok();
}

void Server::Stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop_requested = true;
  }
  impl_->stop_cv.notify_all();
  // httplib ignores stop() until its accept loop has started, so wait for it when Run is under way.
  while (impl_->running && !impl_->http.is_running()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  impl_->http.stop();
}

}  // namespace predlake::sim
