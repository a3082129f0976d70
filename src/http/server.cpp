#include "http/server.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "http/connection_threads.hpp"

namespace predlake::http {

struct Server::Impl {
  ServerOptions options;
  httplib::Server http;
  int port = 0;
  std::atomic<uint64_t> requests{0};
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> running{false};  // inside Run
  mutable std::mutex mu;
  mutable std::condition_variable stop_cv;  // wakes WaitForStop
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { Stop(); }

Result<std::unique_ptr<Server>> Server::Start(const ServerOptions& options, const Routes& routes) {
  if (options.port < 0 || options.port > 65535) {
    return Status::Usage(fmt::format("--port: {} is out of range 0..65535", options.port));
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  Impl* raw = impl.get();
  httplib::Server& http = impl->http;
  std::unique_ptr<Server> server(new Server(std::move(impl)));
  const size_t threads = static_cast<size_t>(std::max(1, options.threads));
  const size_t waiting = static_cast<size_t>(std::max(0, options.max_waiting));
  http.new_task_queue = [threads, waiting] { return NewConnectionThreads(threads, waiting); };
  // httplib's default adds SO_REUSEPORT, which would let a second server share a busy port
  // silently.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  http.set_tcp_nodelay(true);  // an answer is one write; do not wait for delayed ACKs
  http.set_keep_alive_max_count(options.keep_alive_max_count);
  http.set_keep_alive_timeout(options.keep_alive_seconds);
  http.set_read_timeout(options.read_timeout_seconds, 0);
  http.set_write_timeout(options.read_timeout_seconds, 0);
  http.set_payload_max_length(options.max_request_bytes);
  http.set_pre_routing_handler([raw](const httplib::Request&, httplib::Response& res) {
    raw->requests.fetch_add(1);
    if (Refusing()) {
      res.status = 503;
      res.set_header("Retry-After", "1");
      res.set_header("Connection", "close");
      res.set_content(raw->options.name + ": too many connections at once; retry in a second\n",
                      "text/plain; charset=utf-8");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  routes(http, *server);
  if (options.port == 0) {
    raw->port = http.bind_to_any_port(options.host);
    if (raw->port <= 0) {
      return Status::Usage(fmt::format(
          "cannot listen on {}: no free port, or not an address of this machine", options.host));
    }
  } else {
    if (!http.bind_to_port(options.host, options.port)) {
      return Status::Usage(fmt::format(
          "cannot listen on {}:{}: the port is in use, not permitted, or the address is not this "
          "machine's",
          options.host, options.port));
    }
    raw->port = options.port;
  }
  return server;
}

int Server::port() const { return impl_->port; }

std::string Server::Url() const {
  const std::string& h = impl_->options.host;
  const std::string host = h.find(':') != std::string::npos ? "[" + h + "]" : h;
  return fmt::format("http://{}:{}{}", host, impl_->port, impl_->options.url_path);
}

uint64_t Server::requests() const { return impl_->requests.load(); }

Status Server::Run() {
  impl_->running = true;
  bool ok = true;
  if (!impl_->stop_requested) ok = impl_->http.listen_after_bind();
  impl_->running = false;
  if (!ok && !impl_->stop_requested) {
    return Status::Source(impl_->options.name + ": the HTTP listener failed");
  }
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

Status Server::RunUntil(const std::atomic<bool>& cancelled, const std::function<bool()>& done) {
  Status run_status;
  std::atomic<bool> finished{false};
  std::thread runner([&] {
    run_status = Run();
    finished = true;
  });
  while (!cancelled && !finished && !(done && done())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Stop();
  runner.join();
  return run_status;
}

bool Server::WaitForStop(std::chrono::milliseconds wait) const {
  std::unique_lock<std::mutex> lock(impl_->mu);
  return impl_->stop_cv.wait_for(lock, wait, [this] { return impl_->stop_requested.load(); });
}

}  // namespace predlake::http
