#include "source/gql/http_transport.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "source/gql/client.hpp"

namespace predlake::gql {
namespace {

// A local HTTP server on an ephemeral port, stopped on destruction.
class LocalServer {
 public:
  LocalServer() = default;
  void Start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~LocalServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  httplib::Server& server() { return server_; }
  std::string Url(const std::string& path = "/subgraph") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

TEST(ParseRetryAfterTest, SecondsAndDates) {
  EXPECT_EQ(ParseRetryAfter("120", 0), 120'000);
  EXPECT_EQ(ParseRetryAfter(" 0 ", 0), 0);
  // 2015-10-21T07:28:00Z = 1445412480 s.
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480000 - 5000), 5000);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480000 + 5000), 0);
  EXPECT_EQ(ParseRetryAfter("soon", 0), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("", 0), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("-5", 0), std::nullopt);
}

TEST(HttpTransportTest, PostsJsonAndReadsAnswerWithKeepAlive) {
  LocalServer s;
  std::atomic<int> requests{0};
  std::string seen_body, seen_type;
  std::set<std::string> peers;
  std::mutex mu;
  s.server().Post("/subgraph", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    ++requests;
    seen_body = req.body;
    seen_type = req.get_header_value("Content-Type");
    peers.insert(req.remote_addr + ":" + std::to_string(req.remote_port));
    res.set_content(R"({"data":{"ok":true}})", "application/json");
  });
  s.Start();
  HttpTransport t(s.Url());
  for (int i = 0; i < 3; ++i) {
    auto r = t.Post(R"({"query":"{ ok }"})");
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, R"({"data":{"ok":true}})");
    EXPECT_FALSE(r->retry_after_ms.has_value());
  }
  EXPECT_EQ(requests.load(), 3);
  EXPECT_EQ(seen_body, R"({"query":"{ ok }"})");
  EXPECT_EQ(seen_type, "application/json");
  EXPECT_EQ(peers.size(), 1u) << "the connection should be reused";
  EXPECT_EQ(t.Describe(), s.Url());
}

TEST(HttpTransportTest, ReturnsErrorStatusesWithRetryAfter) {
  LocalServer s;
  s.server().Post("/subgraph", [&](const httplib::Request&, httplib::Response& res) {
    res.status = 429;
    res.set_header("Retry-After", "7");
    res.set_content("too many", "text/plain");
  });
  s.Start();
  HttpTransport t(s.Url());
  auto r = t.Post("{}");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->body, "too many");
  EXPECT_EQ(r->retry_after_ms, 7000);
}

TEST(HttpTransportTest, KeepsTheHeadersAndDoesNotFollowARedirect) {
  LocalServer s;
  std::atomic<int> moved_to{0};
  s.server().Post("/subgraph", [&](const httplib::Request&, httplib::Response& res) {
    res.status = 301;
    res.set_header("Location", "/elsewhere");
    res.set_header("X-MBX-USED-WEIGHT-1M", "42");
  });
  s.server().Post("/elsewhere", [&](const httplib::Request&, httplib::Response& res) {
    ++moved_to;
    res.set_content("{}", "application/json");
  });
  s.Start();
  HttpTransport t(s.Url());
  auto r = t.Post("{}");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 301);
  EXPECT_EQ(moved_to.load(), 0);
  EXPECT_EQ(r->Header("location"), "/elsewhere");
  EXPECT_EQ(r->Header("x-mbx-used-weight-1m"), "42");
  EXPECT_EQ(r->Header("retry-after"), std::nullopt);
  EXPECT_EQ(DescribeHttpStatus(*r),
            "HTTP 301, redirected to /elsewhere (redirects are not followed: use that address)");
}

TEST(HttpTransportTest, TimeoutIsAnErrorNamingTheUrl) {
  LocalServer s;
  std::atomic<bool> release{false};
  s.server().Post("/subgraph", [&](const httplib::Request&, httplib::Response& res) {
    for (int i = 0; i < 100 && !release; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    res.set_content("{}", "application/json");
  });
  s.Start();
  HttpOptions o;
  o.timeout_ms = 200;
  HttpTransport t(s.Url(), o);
  auto r = t.Post("{}");
  release = true;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kSource);
  EXPECT_NE(r.status().message().find("POST " + s.Url() + ": Timeout"), std::string::npos)
      << r.status().message();
}

TEST(HttpTransportTest, ConnectionRefused) {
  // Bind a port, then close it so that nothing listens there.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  int port = ntohs(addr.sin_port);
  close(fd);
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/x";
  HttpOptions o;
  o.timeout_ms = 5000;
  HttpTransport t(url, o);
  auto r = t.Post("{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("POST " + url + ": "), std::string::npos);
  EXPECT_NE(r.status().message().find("connect"), std::string::npos) << r.status().message();
}

TEST(HttpTransportTest, TlsFailureIsAnError) {
  LocalServer s;
  s.server().Post("/subgraph", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content("{}", "application/json");
  });
  s.Start();
  std::string url = s.Url();
  url.replace(0, 4, "https");  // speak TLS to a plain HTTP server
  HttpOptions o;
  o.timeout_ms = 2000;
  HttpTransport t(url, o);
  auto r = t.Post("{}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kSource);
  EXPECT_NE(r.status().message().find(url), std::string::npos) << r.status().message();
}

TEST(HttpTransportTest, UnresolvableHostAndBadScheme) {
  HttpOptions o;
  o.connect_timeout_ms = 3000;
  o.timeout_ms = 5000;
  HttpTransport t("http://no-such-host.invalid/x", o);
  auto r = t.Post("{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no-such-host.invalid"), std::string::npos);
  HttpTransport f("ftp://127.0.0.1/x");
  EXPECT_FALSE(f.Post("{}").ok());
}

TEST(HttpTransportTest, OversizedBodyIsRefused) {
  LocalServer s;
  s.server().Post("/subgraph", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(100'000, 'x'), "text/plain");
  });
  s.Start();
  HttpOptions o;
  o.max_body_bytes = 1000;
  HttpTransport t(s.Url(), o);
  auto r = t.Post("{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("larger than 1000 bytes"), std::string::npos)
      << r.status().message();
}

TEST(HttpTransportTest, ClientOverHttpRecoversFrom503) {
  LocalServer s;
  std::atomic<int> n{0};
  s.server().Post("/subgraph", [&](const httplib::Request&, httplib::Response& res) {
    if (n++ == 0) {
      res.status = 503;
      res.set_header("Retry-After", "0");
      return;
    }
    res.set_content(R"({"data":{"v":2}})", "application/json");
  });
  s.Start();
  Client c(std::make_unique<HttpTransport>(s.Url()));
  auto data = c.Query("{ v }");
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ((*data)["v"], 2);
  EXPECT_EQ(n.load(), 2);
}

}  // namespace
}  // namespace predlake::gql

namespace predlake::gql {
namespace {

TEST(IsLoopbackUrlTest, RecognisesLoopbackHosts) {
  EXPECT_TRUE(IsLoopbackUrl("http://127.0.0.1:8000/subgraphs/name/x"));
  EXPECT_TRUE(IsLoopbackUrl("http://LOCALHOST/x"));
  EXPECT_TRUE(IsLoopbackUrl("http://[::1]:80/x"));
  EXPECT_TRUE(IsLoopbackUrl("http://user:pw@127.1.2.3"));
  EXPECT_FALSE(IsLoopbackUrl("https://v4.subgraph.sapphire-mainnet.oceanprotocol.com/x"));
  EXPECT_FALSE(IsLoopbackUrl("https://127.example.com/x"));
  EXPECT_FALSE(IsLoopbackUrl("localhost"));
}

TEST(HttpTransportTest, AsksForGzipOnlyWhenUseful) {
  LocalServer s;
  std::string encoding = "unset";
  s.server().Post("/subgraph", [&](const httplib::Request& req, httplib::Response& res) {
    encoding = req.get_header_value("Accept-Encoding");
    res.set_content("{}", "application/json");
  });
  s.Start();
  ASSERT_TRUE(HttpTransport(s.Url()).Post("{}").ok());
  EXPECT_EQ(encoding, "");
  HttpOptions o;
  o.accept_compressed = true;
  ASSERT_TRUE(HttpTransport(s.Url(), o).Post("{}").ok());
  EXPECT_NE(encoding.find("gzip"), std::string::npos) << encoding;
}

}  // namespace
}  // namespace predlake::gql

namespace predlake::gql {
namespace {

TEST(HttpTransportTest, StopFlagAbortsARequestInFlight) {
  LocalServer s;
  std::atomic<bool> release{false};
  s.server().Post("/subgraph", [&](const httplib::Request&, httplib::Response& res) {
    for (int i = 0; i < 500 && !release; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    res.set_content("{}", "application/json");
  });
  s.Start();
  std::atomic<bool> stop{false};
  Client c(std::make_unique<HttpTransport>(s.Url()));
  c.set_stop_flag(&stop);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = c.Query("{ x }");
  auto elapsed = std::chrono::steady_clock::now() - t0;
  stopper.join();
  release = true;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_LT(elapsed, std::chrono::seconds(3));
}

}  // namespace
}  // namespace predlake::gql
