#include "source/sim/transport.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "sim_test_util.hpp"
#include "source/sim/faults.hpp"
#include "source/sim/server.hpp"

namespace predlake::sim {
namespace {

using nlohmann::json;
using simtest::MakeEngine;
using simtest::SmallConfig;

// Runs a server on a free port for the lifetime of the object.
class RunningServer {
 public:
  explicit RunningServer(std::shared_ptr<const Engine> engine, int64_t fault_delay_ms = 30'000) {
    ServerOptions options;
    options.fault_delay_ms = fault_delay_ms;
    auto s = Listen(std::move(engine), options);
    EXPECT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(s).value();
    thread_ = std::thread([this] { run_status_ = server_->Run(); });
  }
  ~RunningServer() {
    server_->Stop();
    thread_.join();
    EXPECT_TRUE(run_status_.ok());
  }
  Server& server() { return *server_; }
  httplib::Client Client() {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_keep_alive(true);
    c.set_tcp_nodelay(true);
    c.set_read_timeout(10, 0);
    return c;
  }

 private:
  std::unique_ptr<Server> server_;
  std::thread thread_;
  Status run_status_;
};

const std::vector<std::string>& Bodies() {
  static const std::vector<std::string> kBodies = {
      json({{"query",
             "{ predictPredictions(first: 20, orderBy: timestamp, where: {timestamp_gt: "
             "1721880000}) { id timestamp stake user { id } payout { payout } slot { id status "
             "revenue roundSumStakes predictContract { id token { name } } } } _meta { block { "
             "number timestamp } } }"}})
          .dump(),
      json({{"query", "query Q($n: Int!) { predictTrueVals(first: $n) { id trueValue } }"},
            {"variables", {{"n", 7}}}})
          .dump(),
      json({{"query", "{ predictPayouts(first: 1001) { id } }"}}).dump(),
      json({{"query", "{ nope { id } }"}}).dump(),
      "this is not json",
  };
  return kBodies;
}

TEST(InProcessTransportTest, AnswersLikeTheEngine) {
  auto e = MakeEngine(SmallConfig());
  InProcessTransport t(e);
  EXPECT_EQ(t.Describe(), "sim (in-process)");
  for (const std::string& body : Bodies()) {
    Result<gql::HttpResponse> r = t.Post(body);
    ASSERT_TRUE(r.ok());
    gql::HttpResponse direct = e->Handle(body);
    EXPECT_EQ(r->status, direct.status);
    EXPECT_EQ(r->body, direct.body);
  }
  EXPECT_EQ(t.requests(), Bodies().size());
}

TEST(HttpServerTest, AnswersAreByteIdenticalToInProcess) {
  auto e = MakeEngine(SmallConfig());
  RunningServer rs(e);
  EXPECT_EQ(rs.server().Url(), "http://127.0.0.1:" + std::to_string(rs.server().port()) +
                                   "/subgraphs/name/predlake/sim");
  InProcessTransport t(e);
  httplib::Client client = rs.Client();
  for (int round = 0; round < 2; ++round) {  // the second round reuses the kept-alive connection
    for (const std::string& body : Bodies()) {
      auto res = client.Post("/subgraphs/name/predlake/sim", body, "application/json");
      ASSERT_TRUE(res) << httplib::to_string(res.error());
      Result<gql::HttpResponse> local = t.Post(body);
      ASSERT_TRUE(local.ok());
      EXPECT_EQ(res->status, local->status);
      EXPECT_EQ(res->body, local->body);
    }
  }
  EXPECT_EQ(rs.server().requests(), 2 * Bodies().size());
  // Any path answers.
  auto res = client.Post("/whatever", Bodies()[1], "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(HttpServerTest, StopBeforeRunAndBusyPort) {
  auto e = MakeEngine(SmallConfig());
  auto s = Listen(e, {});
  ASSERT_TRUE(s.ok());
  (*s)->Stop();
  EXPECT_TRUE((*s)->Run().ok());  // returns at once
  // A second server on the same port fails cleanly.
  auto first = Listen(e, {});
  ASSERT_TRUE(first.ok());
  ServerOptions same;
  same.port = (*first)->port();
  auto second = Listen(e, same);
  EXPECT_EQ(second.status().code(), StatusCode::kUsage);
  same.port = 70000;
  EXPECT_EQ(Listen(e, same).status().code(), StatusCode::kUsage);
}

config::SimConfig WithFault(double config::SimFaults::*rate) {
  config::SimConfig c = SmallConfig();
  c.faults.*rate = 1.0;
  return c;
}

TEST(FaultTest, DecisionsAreDeterministicAndFollowTheRates) {
  config::SimFaults f;
  f.http_5xx = 0.1;
  f.timeout = 0.1;
  f.http_429 = 0.1;
  f.graphql_error = 0.1;
  f.malformed = 0.1;
  std::map<FaultKind, int> counts;
  for (uint64_t i = 0; i < 5000; ++i) {
    const FaultKind k = DecideFault(f, i);
    EXPECT_EQ(k, DecideFault(f, i));
    ++counts[k];
  }
  for (FaultKind k : {FaultKind::kHttp5xx, FaultKind::kTimeout, FaultKind::kHttp429,
                      FaultKind::kGraphqlError, FaultKind::kMalformed}) {
    EXPECT_GT(counts[k], 400);
    EXPECT_LT(counts[k], 600);
  }
  EXPECT_GT(counts[FaultKind::kNone], 2300);
  config::SimFaults other = f;
  other.seed = 2;
  int differ = 0;
  for (uint64_t i = 0; i < 100; ++i) differ += DecideFault(f, i) != DecideFault(other, i);
  EXPECT_GT(differ, 10);
  EXPECT_EQ(DecideFault(config::SimFaults{}, 3), FaultKind::kNone);
}

TEST(FaultTest, InProcessFaultModes) {
  const std::string body = Bodies()[0];
  {
    InProcessTransport t(MakeEngine(WithFault(&config::SimFaults::http_5xx)));
    auto r = t.Post(body);
    ASSERT_TRUE(r.ok());
    EXPECT_GE(r->status, 500);
    EXPECT_LE(r->status, 503);
  }
  {
    InProcessTransport t(MakeEngine(WithFault(&config::SimFaults::timeout)));
    auto r = t.Post(body);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kSource);
    EXPECT_NE(r.status().message().find("timed out"), std::string::npos);
  }
  {
    InProcessTransport t(MakeEngine(WithFault(&config::SimFaults::http_429)));
    auto r = t.Post(body);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 429);
    ASSERT_TRUE(r->retry_after_ms.has_value());
    EXPECT_GE(*r->retry_after_ms, 1000);
  }
  {
    InProcessTransport t(MakeEngine(WithFault(&config::SimFaults::graphql_error)));
    auto r = t.Post(body);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 200);
    json j = json::parse(r->body);
    EXPECT_FALSE(j["errors"][0]["message"].get<std::string>().empty());
    EXPECT_FALSE(j.contains("data"));
  }
  {
    InProcessTransport t(MakeEngine(WithFault(&config::SimFaults::malformed)));
    for (int i = 0; i < 8; ++i) {
      auto r = t.Post(body);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->status, 200);
      EXPECT_TRUE(json::parse(r->body, nullptr, false).is_discarded()) << r->body;
    }
  }
}

TEST(FaultTest, HttpFaultModes) {
  const std::string body = Bodies()[0];
  {
    RunningServer rs(MakeEngine(WithFault(&config::SimFaults::http_5xx)));
    auto res = rs.Client().Post("/", body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_GE(res->status, 500);
  }
  {
    RunningServer rs(MakeEngine(WithFault(&config::SimFaults::http_429)));
    auto res = rs.Client().Post("/", body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 429);
    EXPECT_TRUE(res->get_header_value("Retry-After") == "1" ||
                res->get_header_value("Retry-After") == "2");
  }
  {
    RunningServer rs(MakeEngine(WithFault(&config::SimFaults::graphql_error)));
    auto res = rs.Client().Post("/", body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_TRUE(json::parse(res->body).contains("errors"));
  }
  {
    RunningServer rs(MakeEngine(WithFault(&config::SimFaults::malformed)));
    auto res = rs.Client().Post("/", body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_TRUE(json::parse(res->body, nullptr, false).is_discarded());
  }
  {
    // The answer is held back past the client's timeout; Stop cuts the delay short.
    RunningServer rs(MakeEngine(WithFault(&config::SimFaults::timeout)), 2'000);
    httplib::Client c("127.0.0.1", rs.server().port());
    c.set_read_timeout(0, 200'000);
    const auto t0 = std::chrono::steady_clock::now();
    auto res = c.Post("/", body, "application/json");
    EXPECT_FALSE(res);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1500));
  }
}

TEST(HttpServerTest, GarbageAndConcurrency) {
  auto e = MakeEngine(SmallConfig());
  RunningServer rs(e);
  auto c = rs.Client();
  auto res = c.Post("/", std::string("\xff\xfe{{{", 5), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_TRUE(json::parse(res->body).contains("errors"));
  // Several clients at once get the same answers.
  const std::string expected = e->Handle(Bodies()[0]).body;
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      auto client = rs.Client();
      for (int k = 0; k < 5; ++k) {
        auto r = client.Post("/", Bodies()[0], "application/json");
        if (r && r->body == expected) ++good;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 20);
}

}  // namespace
}  // namespace predlake::sim
