#include "source/gql/http_transport.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <mutex>

namespace predlake::gql {
namespace {

// curl_global_init is not guaranteed thread-safe on every libcurl build; run it exactly once.
void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<int64_t> ParseRetryAfter(std::string_view value, int64_t now_ms) {
  value = Trim(value);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    if (value.size() > 9) return int64_t{999'999'999} * 1000;  // absurd, but a valid "wait long"
    int64_t seconds = 0;
    for (char c : value) seconds = seconds * 10 + (c - '0');
    return seconds * 1000;
  }
  std::string text(value);
  time_t when = curl_getdate(text.c_str(), nullptr);
  if (when == static_cast<time_t>(-1)) return std::nullopt;
  int64_t wait = static_cast<int64_t>(when) * 1000 - now_ms;
  return std::max<int64_t>(wait, 0);
}

bool IsLoopbackUrl(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  std::string_view host;
  if (!rest.empty() && rest[0] == '[') {
    host = rest.substr(0, rest.find(']') + 1);
  } else {
    host = rest.substr(0, rest.find(':'));
  }
  std::string lower(host);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  const bool ipv4 = !lower.empty() && std::all_of(lower.begin(), lower.end(), [](char ch) {
    return ch == '.' || std::isdigit(static_cast<unsigned char>(ch));
  });
  return lower == "localhost" || lower == "[::1]" || (ipv4 && lower.rfind("127.", 0) == 0);
}

std::string DescribeHttpStatus(const HttpResponse& response) {
  std::string out = "HTTP " + std::to_string(response.status);
  if (response.status >= 300 && response.status < 400) {
    auto location = response.Header("location");
    out += location ? ", redirected to " + std::string(*location) +
                          " (redirects are not followed: use that address)"
                    : ", a redirect without a Location";
  }
  return out;
}

struct HttpTransport::Impl {
  CURL* curl = nullptr;
  curl_slist* headers = nullptr;
  char error[CURL_ERROR_SIZE] = {};
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers_seen;
  size_t max_body = 0;
  bool too_big = false;
  const std::atomic<bool>* stop = nullptr;

  static int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* self = static_cast<Impl*>(user);
    return self->stop != nullptr && self->stop->load(std::memory_order_relaxed) ? 1 : 0;
  }

  static size_t OnBody(char* data, size_t size, size_t n, void* user) {
    auto* self = static_cast<Impl*>(user);
    size_t bytes = size * n;
    if (self->body.size() + bytes > self->max_body) {
      self->too_big = true;
      return 0;  // makes curl abort with CURLE_WRITE_ERROR
    }
    self->body.append(data, bytes);
    return bytes;
  }

  static size_t OnHeader(char* data, size_t size, size_t n, void* user) {
    auto* self = static_cast<Impl*>(user);
    std::string_view line(data, size * n);
    // A new status line starts a new response (after a 100 Continue): forget earlier headers.
    if (StartsWithNoCase(line, "HTTP/")) {
      self->headers_seen.clear();
      return size * n;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return size * n;
    std::string name(Trim(line.substr(0, colon)));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    self->headers_seen.emplace_back(std::move(name), std::string(Trim(line.substr(colon + 1))));
    return size * n;
  }
};

HttpTransport::HttpTransport(std::string url, HttpOptions options)
    : url_(std::move(url)), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  GlobalInit();
  impl_->curl = curl_easy_init();
  impl_->max_body = options_.max_body_bytes;
  impl_->headers = curl_slist_append(impl_->headers, "Content-Type: application/json");
  impl_->headers = curl_slist_append(impl_->headers, "Accept: application/json");
  // Without this curl waits for a "100 Continue" before sending bodies over 1 MiB.
  impl_->headers = curl_slist_append(impl_->headers, "Expect:");
  if (impl_->curl == nullptr) return;
  CURL* c = impl_->curl;
  curl_easy_setopt(c, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, impl_->headers);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, impl_->error);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &Impl::OnBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, impl_.get());
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &Impl::OnHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, impl_.get());
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_ms));
  // Signals cannot be used for timeouts in a multi-threaded process.
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  if (options_.accept_compressed.value_or(!IsLoopbackUrl(url_))) {
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  }
  curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &Impl::OnProgress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, impl_.get());
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
}

HttpTransport::~HttpTransport() {
  if (impl_->curl != nullptr) curl_easy_cleanup(impl_->curl);
  curl_slist_free_all(impl_->headers);
}

void HttpTransport::SetStopFlag(const std::atomic<bool>* stop) { impl_->stop = stop; }

Result<HttpResponse> HttpTransport::Post(const std::string& body) {
  if (impl_->curl == nullptr || impl_->headers == nullptr) {
    return Status::Source("POST " + url_ + ": libcurl could not be initialised");
  }
  CURL* c = impl_->curl;
  curl_easy_setopt(c, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  return Perform("POST", url_);
}

Result<HttpResponse> HttpTransport::Get(const std::string& path_and_query) {
  const std::string url = url_ + path_and_query;
  if (impl_->curl == nullptr || impl_->headers == nullptr) {
    return Status::Source("GET " + url + ": libcurl could not be initialised");
  }
  CURL* c = impl_->curl;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  return Perform("GET", url);
}

Result<HttpResponse> HttpTransport::Perform(std::string_view method, const std::string& url) {
  CURL* c = impl_->curl;
  impl_->body.clear();
  impl_->headers_seen.clear();
  impl_->too_big = false;
  impl_->error[0] = '\0';
  const std::string what_url = std::string(method) + " " + url;
  CURLcode rc = curl_easy_perform(c);
  if (rc == CURLE_ABORTED_BY_CALLBACK) return Status::Cancelled(what_url + ": stopped");
  if (rc != CURLE_OK) {
    std::string what = curl_easy_strerror(rc);
    if (impl_->too_big) {
      what = "response body larger than " + std::to_string(options_.max_body_bytes) + " bytes";
    } else if (impl_->error[0] != '\0') {
      what += " (" + std::string(impl_->error) + ")";
    }
    return Status::Source(what_url + ": " + what);
  }
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  HttpResponse response;
  response.status = static_cast<int>(code);
  response.body = std::move(impl_->body);
  impl_->body = std::string();
  response.headers = std::move(impl_->headers_seen);
  impl_->headers_seen.clear();
  if (auto retry_after = response.Header("retry-after")) {
    int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    response.retry_after_ms = ParseRetryAfter(*retry_after, now_ms);
  }
  return response;
}

}  // namespace predlake::gql
