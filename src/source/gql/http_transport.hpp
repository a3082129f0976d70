// An HTTP(S) Transport over libcurl: POSTs GraphQL bodies to a subgraph URL.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "source/gql/transport.hpp"

namespace predlake::gql {

struct HttpOptions {
  int64_t connect_timeout_ms = 10'000;  // TCP + TLS handshake
  int64_t timeout_ms = 60'000;          // the whole exchange
  size_t max_body_bytes = 256u << 20;   // a larger answer is a transport error, not an OOM
  std::string user_agent = "predlake";
  // Ask for gzip-compressed answers. nullopt: yes, except for loopback hosts (localhost,
  // 127.x.x.x, [::1]), where compressing costs the server more time than it saves.
  std::optional<bool> accept_compressed;
};

// True for URLs whose host is localhost, 127.x.x.x or [::1].
bool IsLoopbackUrl(std::string_view url);

// Parses a Retry-After header value: delta seconds ("120") or an HTTP date ("Wed, 21 Oct 2015
// 07:28:00 GMT", converted against `now_ms`). Returns the wait in ms (never negative), or nullopt
// when the value is neither.
std::optional<int64_t> ParseRetryAfter(std::string_view value, int64_t now_ms);

// One libcurl easy handle, reused across Post calls so that the connection (and its TLS session) is
// kept alive. Not thread-safe: use one HttpTransport per thread. Post never throws; a failed
// exchange (DNS, connect, TLS, timeout, oversized body) is a kSource status naming the URL and
// curl's error. Any HTTP status, including 4xx/5xx, is a successful exchange returned as an
// HttpResponse for the client to judge.
class HttpTransport final : public Transport {
 public:
  explicit HttpTransport(std::string url, HttpOptions options = {});
  ~HttpTransport() override;
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  Result<HttpResponse> Post(const std::string& body) override;
  // GETs the URL plus `path_and_query` ("/api/v3/klines?symbol=..."), with the same keep-alive
  // handle, options and failure rules as Post (a REST source, such as an exchange, uses it).
  Result<HttpResponse> Get(const std::string& path_and_query);
  std::string Describe() const override { return url_; }
  // Aborts a request in flight within about a second of `*stop` turning true.
  void SetStopFlag(const std::atomic<bool>* stop) override;

 private:
  Result<HttpResponse> Perform(std::string_view method, const std::string& url);
  struct Impl;
  std::string url_;
  HttpOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace predlake::gql
