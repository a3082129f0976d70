#include "http/server.hpp"

#include <httplib.h>

#include <atomic>
#include <map>
#include <string>

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
  // Lenient URLs: a trailing slash names the same page.
  while (page_path.size() > 1 && page_path.back() == '/') page_path.pop_back();
  if (page_path != "/" && page_path != "/predictoors" && page_path != "/feeds" &&
      page_path != "/runs" && page_path != "/compare" && page_path != "/search" &&
      page_path.rfind("/predictoor/", 0) != 0 && page_path.rfind("/feed/", 0) != 0) {
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
  } else if (!page->redirect.empty()) {
    r.status = 303;  // the search's one match
    r.headers.emplace_back("Location", page->redirect);
    r.body = "<!DOCTYPE html><html lang=\"en\"><title>Found</title><a href=\"" +
             HtmlEscape(page->redirect) + "\">" + HtmlEscape(page->redirect) + "</a></html>\n";
  } else {
    r.body = RenderHtml(*page);
  }
  return r;
}

Result<std::unique_ptr<Server>> Listen(const ServeOptions& options) {
  http::ServerOptions listen;
  listen.name = "serve";
  listen.host = options.host;
  listen.port = options.port;
  listen.threads = options.threads;
  listen.keep_alive_seconds = kServeKeepAliveSeconds;
  listen.read_timeout_seconds = kServeReadTimeoutSeconds;
  return http::Server::Start(listen, [options](httplib::Server& s, const http::Server&) {
    s.Get(".*", [options](const httplib::Request& req, httplib::Response& res) {
      g_requests.fetch_add(1);
      std::multimap<std::string, std::string> params(req.params.begin(), req.params.end());
      Response r = Answer(options, req.path, params);
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
