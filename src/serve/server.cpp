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
#include "serve/pages.hpp"
#include "serve/serve.hpp"
#include "web/web.hpp"

namespace predlake::serve {

namespace {

std::atomic<uint64_t> g_requests{0};

enum class Format { kHtml, kJson, kCsv };

Response ErrorResponse(Format format, const Status& status) {
  Response r;
  r.status = HttpStatusFor(status);
  const std::string message =
      r.status == 500 ? "internal error: " + status.message() : status.message();
  if (format == Format::kJson) {
    r.content_type = "application/json";
    r.body = Json{{"error", message}, {"status", r.status}}.dump() + "\n";
  } else if (format == Format::kCsv) {
    r.content_type = "text/plain; charset=utf-8";
    r.body = message + "\n";
  } else {
    r.body = ErrorHtml(r.status, message);
  }
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

Response AssetResponse(std::string_view name) {
  Response r;
  if (const web::Asset* asset = web::FindAsset(name)) {
    r.content_type = std::string(asset->content_type);
    r.body = std::string(asset->body);
    r.headers.emplace_back("Cache-Control", "public, max-age=3600");
    return r;
  }
  r.status = 404;
  r.content_type = "text/plain; charset=utf-8";
  r.body = "no asset '" + std::string(name) + "'\n";
  return r;
}

}  // namespace

Response Answer(const ServeOptions& options, std::string_view path,
                const std::multimap<std::string, std::string>& params) {
  if (path == "/healthz") return HealthResponse(options);
  if (path == "/metrics") return MetricsResponse(options, g_requests.load());
  if (path.rfind("/assets/", 0) == 0) return AssetResponse(path.substr(8));
  Format format = Format::kHtml;
  std::string page_path(path);
  if (path == "/api" || path.rfind("/api/", 0) == 0) {
    format = Format::kJson;
    page_path = path.size() <= 5 ? "/" : std::string(path.substr(4));
  } else if (path == "/csv" || path.rfind("/csv/", 0) == 0) {
    format = Format::kCsv;
    page_path = path.size() <= 5 ? "/" : std::string(path.substr(4));
  }
  if (page_path != "/" && page_path != "/predictoors" && page_path != "/feeds" &&
      page_path != "/runs" && page_path.rfind("/predictoor/", 0) != 0 &&
      page_path.rfind("/feed/", 0) != 0) {
    return ErrorResponse(format, NotFound("no page " + std::string(path)));
  }
  Result<PageParams> p = ParseParams(params, format == Format::kCsv);
  if (!p.ok()) return ErrorResponse(format, p.status());
  Result<SnapshotView> view = OpenView(options);
  if (!view.ok()) return ErrorResponse(format, view.status());
  Result<Page> page = BuildPage(options, *view, page_path, *p);
  if (!page.ok()) return ErrorResponse(format, page.status());
  Response r;
  r.headers.emplace_back("Cache-Control", "no-store");
  if (format == Format::kJson) {
    r.content_type = "application/json";
    r.body = RenderJson(*page).dump() + "\n";
  } else if (format == Format::kCsv) {
    Result<std::string> csv = RenderCsv(*page, p->table);
    if (!csv.ok()) return ErrorResponse(format, csv.status());
    r.content_type = "text/csv; charset=utf-8";
    std::string name = page_path == "/" ? "overview" : page_path.substr(1);
    for (char& c : name) {
      if (c == '/') c = '-';
    }
    r.headers.emplace_back("Content-Disposition", "attachment; filename=\"" + name + "-" +
                                                      p->table + "-" + p->period + ".csv\"");
    r.body = std::move(*csv);
  } else {
    r.body = RenderHtml(*page);
  }
  return r;
}

struct Server::Impl {
  ServeOptions options;
  httplib::Server http;
  int port = 0;
  std::atomic<uint64_t> requests{0};
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> running{false};

  void Handle(const httplib::Request& req, httplib::Response& res) {
    requests.fetch_add(1);
    g_requests.fetch_add(1);
    std::multimap<std::string, std::string> params(req.params.begin(), req.params.end());
    Response r = Answer(options, req.path, params);
    res.status = r.status;
    for (const auto& [k, v] : r.headers) res.set_header(k, v);
    res.set_content(std::move(r.body), r.content_type);
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { Stop(); }

Result<std::unique_ptr<Server>> Server::Start(const ServeOptions& options) {
  if (options.port < 0 || options.port > 65535) {
    return Status::Usage(fmt::format("--port: {} is out of range 0..65535", options.port));
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  Impl* raw = impl.get();
  const size_t threads = static_cast<size_t>(std::max(1, options.threads));
  impl->http.new_task_queue = [threads] { return http::NewConnectionThreads(threads); };
  // httplib's default adds SO_REUSEPORT, which would let a second server share a busy port.
  impl->http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  impl->http.set_tcp_nodelay(true);
  impl->http.set_keep_alive_max_count(1000);
  impl->http.set_keep_alive_timeout(kServeKeepAliveSeconds);
  impl->http.set_read_timeout(kServeReadTimeoutSeconds, 0);
  impl->http.set_write_timeout(kServeReadTimeoutSeconds, 0);
  impl->http.set_payload_max_length(64 * 1024);
  impl->http.Get(
      ".*", [raw](const httplib::Request& req, httplib::Response& res) { raw->Handle(req, res); });
  impl->http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        res.status = 500;
        res.set_content("internal error\n", "text/plain; charset=utf-8");
      });
  if (options.port == 0) {
    impl->port = impl->http.bind_to_any_port(options.host);
    if (impl->port <= 0) {
      return Status::Usage(
          fmt::format("cannot listen on {}: no free port, or not an address of "
                      "this machine",
                      options.host));
    }
  } else {
    if (!impl->http.bind_to_port(options.host, options.port)) {
      return Status::Usage(fmt::format(
          "cannot listen on {}:{}: the port is in use, not permitted, or the address is not this "
          "machine's",
          options.host, options.port));
    }
    impl->port = options.port;
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port; }

std::string Server::Url() const {
  const std::string& h = impl_->options.host;
  const std::string host = h.find(':') != std::string::npos ? "[" + h + "]" : h;
  return fmt::format("http://{}:{}/", host, impl_->port);
}

uint64_t Server::requests() const { return impl_->requests.load(); }

Status Server::Run() {
  impl_->running = true;
  bool ok = true;
  if (!impl_->stop_requested) ok = impl_->http.listen_after_bind();
  impl_->running = false;
  if (!ok && !impl_->stop_requested) return Status::Source("serve: the HTTP listener failed");
  return Status::Ok();
}

void Server::Stop() {
  impl_->stop_requested = true;
  // httplib ignores stop() until its accept loop has started.
  while (impl_->running && !impl_->http.is_running()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  impl_->http.stop();
}

}  // namespace predlake::serve
