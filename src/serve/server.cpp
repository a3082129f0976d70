#include "http/server.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>

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

// A page request, routed and checked.
struct PageRequest {
  Format format = Format::kHtml;
  std::string page_path;
  PageParams params;
};

// The answers that never compute a page (/healthz, /metrics, /assets), or nullopt.
std::optional<Response> CheapAnswer(const ServeOptions& options, std::string_view path) {
  if (path == "/healthz") return HealthResponse(options);
  if (path == "/metrics") return MetricsResponse(options, g_requests.load());
  if (path.rfind("/assets/", 0) == 0) return AssetResponse(path.substr(8));
  return std::nullopt;
}

// The page request at `path`, or the error answer (404, 400) in `error`.
std::optional<PageRequest> RoutePage(std::string_view path,
                                     const std::multimap<std::string, std::string>& params,
                                     Response& error) {
  PageRequest req;
  req.page_path = std::string(path);
  if (path == "/api" || path.rfind("/api/", 0) == 0) {
    req.format = Format::kJson;
    req.page_path = path.size() <= 5 ? "/" : std::string(path.substr(4));
  } else if (path == "/csv" || path.rfind("/csv/", 0) == 0) {
    req.format = Format::kCsv;
    req.page_path = path.size() <= 5 ? "/" : std::string(path.substr(4));
  }
  std::string& page_path = req.page_path;
  // Lenient URLs: a trailing slash names the same page.
  while (page_path.size() > 1 && page_path.back() == '/') page_path.pop_back();
  if (page_path != "/" && page_path != "/predictoors" && page_path != "/feeds" &&
      page_path != "/runs" && page_path != "/compare" && page_path != "/search" &&
      page_path.rfind("/predictoor/", 0) != 0 && page_path.rfind("/feed/", 0) != 0) {
    error = ErrorResponse(req.format, NotFound("no page " + std::string(path)));
    return std::nullopt;
  }
  Result<PageParams> p = ParseParams(params, req.format == Format::kCsv);
  if (!p.ok()) {
    error = ErrorResponse(req.format, p.status());
    return std::nullopt;
  }
  req.params = std::move(*p);
  return req;
}

// The answer of a computed page in the request's format.
Response PageResponse(const PageRequest& req, const Page& page) {
  Response r;
  r.headers.emplace_back("Cache-Control", "no-store");
  if (req.format == Format::kJson) {
    r.content_type = "application/json";
    r.body = RenderJson(page).dump() + "\n";
  } else if (req.format == Format::kCsv) {
    Result<std::string> csv = RenderCsv(page, req.params.table);
    if (!csv.ok()) return ErrorResponse(req.format, csv.status());
    r.content_type = "text/csv; charset=utf-8";
    std::string name = req.page_path == "/" ? "overview" : req.page_path.substr(1);
    for (char& c : name) {
      if (c == '/') c = '-';
    }
    r.headers.emplace_back("Content-Disposition", "attachment; filename=\"" + name + "-" +
                                                      req.params.table + "-" + req.params.period +
                                                      ".csv\"");
    r.body = std::move(*csv);
  } else if (!page.redirect.empty()) {
    r.status = 303;  // the search's one match
    r.headers.emplace_back("Location", page.redirect);
    r.body = "<!DOCTYPE html><html lang=\"en\"><title>Found</title><a href=\"" +
             HtmlEscape(page.redirect) + "\">" + HtmlEscape(page.redirect) + "</a></html>\n";
  } else {
    r.body = RenderHtml(page);
  }
  return r;
}

// What a kept page costs in memory, roughly: its values and their text.
size_t JsonBytes(const Json& j) {
  size_t bytes = sizeof(Json);
  if (j.is_string()) {
    bytes += j.get_ref<const std::string&>().size();
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items()) bytes += k.size() + sizeof(std::string) + JsonBytes(v);
  } else if (j.is_array()) {
    for (const Json& v : j) bytes += JsonBytes(v);
  }
  return bytes;
}

size_t PageBytes(const Page& page) {
  size_t bytes = sizeof(Page) + JsonBytes(page.freshness) + JsonBytes(page.period);
  for (const std::string& n : page.notes) bytes += sizeof(std::string) + n.size();
  for (const Chart& c : page.charts) bytes += sizeof(Chart) + JsonBytes(c.data);
  for (const Table& t : page.tables) {
    bytes += sizeof(Table) + t.note.size();
    for (const std::string& c : t.columns) bytes += sizeof(std::string) + c.size();
    for (const auto& row : t.rows) {
      bytes += sizeof(row);
      for (const Json& v : row) bytes += JsonBytes(v);
    }
  }
  return bytes;
}

}  // namespace

Response Answer(const ServeOptions& options, std::string_view path,
                const std::multimap<std::string, std::string>& params) {
  if (std::optional<Response> cheap = CheapAnswer(options, path)) return std::move(*cheap);
  Response error;
  std::optional<PageRequest> req = RoutePage(path, params, error);
  if (!req) return error;
  Result<SnapshotView> view = OpenView(options);
  if (!view.ok()) return ErrorResponse(req->format, view.status());
  Result<Page> page = BuildPage(options, *view, req->page_path, req->params);
  if (!page.ok()) return ErrorResponse(req->format, page.status());
  return PageResponse(*req, *page);
}

struct Dashboard::Impl {
  using Built = Result<std::shared_ptr<const Page>>;
  // A page being computed; the requests for the same page wait for it.
  struct Flight {
    bool done = false;
    std::optional<Built> result;
  };
  struct Kept {
    std::string key;
    std::shared_ptr<const Page> page;
    size_t bytes = 0;
  };

  explicit Impl(ServeOptions o)
      : options(std::move(o)),
        gate(options.page_slots > 0
                 ? static_cast<size_t>(options.page_slots)
                 : 2 * std::max<size_t>(1, std::thread::hardware_concurrency())) {}

  // Called with mu held: the kept page at `key` of `snapshot`, moved to the front, or nullptr.
  std::shared_ptr<const Page> Find(const std::string& snapshot, const std::string& key) {
    if (snapshot != kept_snapshot) return nullptr;
    auto it = index.find(key);
    if (it == index.end()) return nullptr;
    kept.splice(kept.begin(), kept, it->second);
    return it->second->page;
  }

  // Called with mu held.
  void Keep(const std::string& snapshot, const std::string& key, std::shared_ptr<const Page> page) {
    if (snapshot != kept_snapshot) {  // a newer snapshot: what was kept answers no more
      kept.clear();
      index.clear();
      kept_bytes = 0;
      kept_snapshot = snapshot;
    }
    const size_t bytes = PageBytes(*page) + key.size();
    if (bytes > options.page_cache_bytes || index.count(key) != 0) return;
    while (kept_bytes + bytes > options.page_cache_bytes && !kept.empty()) {
      kept_bytes -= kept.back().bytes;
      index.erase(kept.back().key);
      kept.pop_back();
    }
    kept.push_front(Kept{key, std::move(page), bytes});
    index[key] = kept.begin();
    kept_bytes += bytes;
  }

  // The page of `req` for `view`'s snapshot: kept, shared with a request computing it, or
  // computed (`hit` says which).
  Built PageFor(const PageRequest& req, SnapshotView& view,
                const std::multimap<std::string, std::string>& params, bool& hit) {
    hit = false;
    if (options.page_cache_bytes == 0) {
      http::Gate::Slot slot = gate.Enter();
      return Compute(req, view);
    }
    const std::string snapshot = view.snapshot().dir + "#" + std::to_string(view.snapshot().run_id);
    std::string key = (req.format == Format::kCsv ? "csv " : "page ") + req.page_path + "?";
    for (const auto& [k, v] : params) key += k + "=" + v + "&";  // decoded; '&' cannot split
    std::shared_ptr<Flight> flight;
    {
      std::unique_lock<std::mutex> lock(mu);
      while (true) {
        if (std::shared_ptr<const Page> page = Find(snapshot, key)) {
          hit = true;
          return page;
        }
        const std::string flight_key = snapshot + " " + key;
        auto it = flights.find(flight_key);
        if (it == flights.end()) {
          flight = std::make_shared<Flight>();
          flights[flight_key] = flight;
          break;
        }
        std::shared_ptr<Flight> other = it->second;
        flight_cv.wait(lock, [&] { return other->done; });
        if (other->result) {
          hit = true;
          return *other->result;
        }
      }
    }
    Built built = [&]() -> Built {
      http::Gate::Slot slot = gate.Enter();
      return Compute(req, view);
    }();
    {
      std::lock_guard<std::mutex> lock(mu);
      flights.erase(snapshot + " " + key);
      if (built.ok()) Keep(snapshot, key, *built);
      flight->result = built;
      flight->done = true;
    }
    flight_cv.notify_all();
    return built;
  }

  Built Compute(const PageRequest& req, SnapshotView& view) {
    ASSIGN_OR_RETURN(Page page, BuildPage(options, view, req.page_path, req.params));
    return std::make_shared<const Page>(std::move(page));
  }

  const ServeOptions options;
  http::Gate gate;
  mutable std::mutex mu;
  std::condition_variable flight_cv;
  std::map<std::string, std::shared_ptr<Flight>> flights;
  std::string kept_snapshot;
  std::list<Kept> kept;  // most recently used first
  std::unordered_map<std::string, std::list<Kept>::iterator> index;
  size_t kept_bytes = 0;
};

Dashboard::Dashboard(ServeOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Dashboard::~Dashboard() = default;

Response Dashboard::Answer(std::string_view path,
                           const std::multimap<std::string, std::string>& params) {
  if (std::optional<Response> cheap = CheapAnswer(impl_->options, path)) return std::move(*cheap);
  Response error;
  std::optional<PageRequest> req = RoutePage(path, params, error);
  if (!req) return error;
  Result<SnapshotView> view = OpenView(impl_->options);
  if (!view.ok()) return ErrorResponse(req->format, view.status());
  bool hit = false;
  Impl::Built page = impl_->PageFor(*req, *view, params, hit);
  if (!page.ok()) return ErrorResponse(req->format, page.status());
  Response r;
  if (hit) {
    // The kept page with this request's freshness (the snapshot's age moves on).
    Page fresh = **page;
    fresh.freshness = Freshness(*view);
    r = PageResponse(*req, fresh);
  } else {
    r = PageResponse(*req, **page);
  }
  r.headers.emplace_back("X-Cache", hit ? "hit" : "miss");
  return r;
}

http::Gate& Dashboard::page_gate() const { return impl_->gate; }

size_t Dashboard::cached_pages() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->kept.size();
}

size_t Dashboard::cached_bytes() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->kept_bytes;
}

Result<std::unique_ptr<Server>> Listen(const ServeOptions& options) {
  http::ServerOptions listen;
  listen.name = "serve";
  listen.host = options.host;
  listen.port = options.port;
  listen.threads = options.threads;
  listen.keep_alive_seconds = kServeKeepAliveSeconds;
  listen.read_timeout_seconds = kServeReadTimeoutSeconds;
  auto dashboard = std::make_shared<Dashboard>(options);
  return http::Server::Start(listen, [dashboard](httplib::Server& s, const http::Server&) {
    s.Get(".*", [dashboard](const httplib::Request& req, httplib::Response& res) {
      g_requests.fetch_add(1);
      std::multimap<std::string, std::string> params(req.params.begin(), req.params.end());
      Response r = dashboard->Answer(req.path, params);
      res.status = r.status;
      for (const auto& [k, v] : r.headers) res.set_header(k, v);
      res.set_content(std::move(r.body), r.content_type);
    });
    s.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
          res.status = 500;
          res.set_content("internal error\n", "text/plain; charset=utf-8");
        });
  });
}

}  // namespace predlake::serve
