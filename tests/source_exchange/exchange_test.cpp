// The klines client: request shape, parsing, and the retry rules of Binance's answers (429 and
// 418 with Retry-After, 5xx, malformed bodies, other 4xx).
#include "source/exchange/exchange.hpp"

#include <gtest/gtest.h>

#include <deque>

namespace predlake::exchange {
namespace {

class ScriptedTransport final : public Transport {
 public:
  explicit ScriptedTransport(std::deque<gql::HttpResponse> answers, std::vector<std::string>* seen)
      : answers_(std::move(answers)), seen_(seen) {}
  Result<gql::HttpResponse> Get(const std::string& path) override {
    seen_->push_back(path);
    if (answers_.empty()) return Status::Source("no more answers");
    auto a = answers_.front();
    answers_.pop_front();
    return a;
  }
  std::string Describe() const override { return "scripted"; }

 private:
  std::deque<gql::HttpResponse> answers_;
  std::vector<std::string>* seen_;
};

class CountingSleeper final : public Sleeper {
 public:
  void SleepMs(int64_t ms, const std::atomic<bool>*) override { waits.push_back(ms); }
  std::vector<int64_t> waits;
};

const char* kTwoCandles =
    R"([[1721865600000,"100.5","101","99","100.75","12.5",1721865899999,"0",3,"0","0","0"],)"
    R"([1721865900000,"100.75","102","100","101.25","3",1721866199999,"0",1,"0","0","0"]])";

KlinesRequest Request() { return {"BTCUSDT", "5m", 1721865600000, 1721866199999, 1000}; }

TEST(ExchangeTest, SymbolsTimeframesAndPaths) {
  EXPECT_EQ(BinanceSymbol("BTC/USDT"), "BTCUSDT");
  EXPECT_EQ(BinanceSymbol("eth-usdt"), "ETHUSDT");
  EXPECT_EQ(BinanceSymbol("BTCUSDT"), std::nullopt);
  EXPECT_EQ(BinanceSymbol("BTC/US;DT"), std::nullopt);
  EXPECT_EQ(TimeframeMs("5m"), 300'000);
  EXPECT_EQ(TimeframeMs("1h"), 3'600'000);
  EXPECT_EQ(TimeframeMs("x"), std::nullopt);
  const std::string path = KlinesPathAndQuery(Request());
  EXPECT_EQ(path,
            "/api/v3/klines?symbol=BTCUSDT&interval=5m&startTime=1721865600000&endTime="
            "1721866199999&limit=1000");
  auto back = ParseKlinesPathAndQuery(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->symbol, "BTCUSDT");
  EXPECT_EQ(back->start_ms, 1721865600000);
  EXPECT_EQ(back->end_ms, 1721866199999);
  EXPECT_FALSE(ParseKlinesPathAndQuery("/api/v3/klines?symbol=X&interval=5m&limit=5000").ok());
  EXPECT_FALSE(ParseKlinesPathAndQuery("/api/v3/other?symbol=X").ok());
}

TEST(ExchangeTest, ParsesCandlesAndRefusesBadOnes) {
  auto c = ParseKlines(kTwoCandles);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->size(), 2u);
  EXPECT_EQ((*c)[0].open_ms, 1721865600000);
  EXPECT_EQ((*c)[0].close, "100.75");
  EXPECT_EQ((*c)[1].volume, "3");
  EXPECT_FALSE(ParseKlines("{}").ok());
  EXPECT_FALSE(ParseKlines(R"([[1,"1","1","1","1e5","1"]])").ok());  // not a plain decimal
  EXPECT_FALSE(ParseKlines(R"([[1,"1","1","1","1); DROP","1"]])").ok());
  EXPECT_FALSE(ParseKlines(R"([[2,"1","1","1","1","1"],[1,"1","1","1","1","1"]])").ok());
  EXPECT_FALSE(ParseKlines(R"([[1,"1","1"]])").ok());
}

TEST(ExchangeTest, RetriesThrottlingWithRetryAfterAndServerErrors) {
  std::vector<std::string> seen;
  std::deque<gql::HttpResponse> answers = {
      {429, R"({"code":-1003,"msg":"Too many requests"})", 7000},
      {418, R"({"code":-1003,"msg":"banned"})", 90'000},  // waited out whole: within the cap
      {503, "unavailable", std::nullopt},
      {200, "[[1,", std::nullopt},  // malformed
      {200, kTwoCandles, std::nullopt}};
  CountingSleeper sleeper;
  gql::RetryPolicy policy;
  policy.jitter_seed = 1;
  Client client(std::make_unique<ScriptedTransport>(answers, &seen), policy, &sleeper);
  auto c = client.Klines(Request());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->size(), 2u);
  EXPECT_EQ(seen.size(), 5u);
  ASSERT_EQ(sleeper.waits.size(), 4u);
  EXPECT_EQ(sleeper.waits[0], 7000);
  EXPECT_EQ(sleeper.waits[1], 90'000);
  EXPECT_EQ(client.stats().retries, 4);
  EXPECT_EQ(client.stats().retries_by_kind.at("http_429"), 1);
  EXPECT_EQ(client.stats().retries_by_kind.at("http_418"), 1);
  EXPECT_EQ(client.stats().retries_by_kind.at("malformed"), 1);
}

TEST(ExchangeTest, ABanLongerThanTheCapIsNeverAskedInside) {
  // Binance lengthens a ban for a client that asks again inside it: a Retry-After longer than the
  // cap (or than the budget left) ends the request at once, saying how long the exchange asked.
  for (int status : {418, 429}) {
    std::vector<std::string> seen;
    CountingSleeper sleeper;
    gql::RetryPolicy policy;
    Client client(std::make_unique<ScriptedTransport>(
                      std::deque<gql::HttpResponse>{{status, R"({"msg":"banned"})", 300'000},
                                                    {200, kTwoCandles, std::nullopt}},
                      &seen),
                  policy, &sleeper);
    auto c = client.Klines(Request());
    ASSERT_FALSE(c.ok()) << status;
    EXPECT_EQ(seen.size(), 1u) << status;
    EXPECT_TRUE(sleeper.waits.empty()) << status;
    ASSERT_TRUE(client.last_failure().blocked_for_ms) << status;
    EXPECT_EQ(*client.last_failure().blocked_for_ms, 300'000);
    EXPECT_TRUE(client.last_failure().host_wide);
    EXPECT_NE(c.status().message().find("asks us to wait 5m"), std::string::npos)
        << c.status().message();
  }
  {
    // Within the cap but past what the budget has left: the same.
    std::vector<std::string> seen;
    CountingSleeper sleeper;
    gql::RetryPolicy policy;
    policy.budget_ms = 60'000;
    Client client(std::make_unique<ScriptedTransport>(
                      std::deque<gql::HttpResponse>{{429, "slow down", 90'000}}, &seen),
                  policy, &sleeper);
    ASSERT_FALSE(client.Klines(Request()).ok());
    EXPECT_EQ(seen.size(), 1u);
    ASSERT_TRUE(client.last_failure().blocked_for_ms);
  }
}

TEST(ExchangeTest, TheServerTimeIsReadAndChecked) {
  std::vector<std::string> seen;
  CountingSleeper sleeper;
  gql::RetryPolicy policy;
  policy.jitter_seed = 1;
  Client client(
      std::make_unique<ScriptedTransport>(
          std::deque<gql::HttpResponse>{{200, R"({"serverTime":"soon"})", std::nullopt},
                                        {200, R"({"serverTime":1721865600123})", std::nullopt}},
          &seen),
      policy, &sleeper);
  auto t = client.ServerTimeMs();
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(*t, 1721865600123);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], "/api/v3/time");
  EXPECT_FALSE(ParseServerTime("[]").ok());
  EXPECT_FALSE(ParseServerTime(R"({"serverTime":-5})").ok());
}

TEST(ExchangeTest, ARestrictedLocationFailsEveryStreamAtOnce) {
  std::vector<std::string> seen;
  CountingSleeper sleeper;
  Client client(
      std::make_unique<ScriptedTransport>(
          std::deque<gql::HttpResponse>{
              {451, R"({"code":0,"msg":"Service unavailable from a restricted location"})",
               std::nullopt}},
          &seen),
      {}, &sleeper);
  auto c = client.Klines(Request());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_TRUE(client.last_failure().host_wide);
  EXPECT_EQ(client.last_failure().http_status, 451);
}

gql::HttpResponse Weighted(int status, std::string body, int64_t used) {
  gql::HttpResponse r{status, std::move(body), std::nullopt};
  r.headers.emplace_back(std::string(kUsedWeightHeader), std::to_string(used));
  return r;
}

TEST(ExchangeTest, ANearlyUsedRequestWeightWaitsForTheNextWindow) {
  std::vector<std::string> seen;
  CountingSleeper sleeper;
  Client client(std::make_unique<ScriptedTransport>(
                    std::deque<gql::HttpResponse>{Weighted(200, kTwoCandles, 10),
                                                  Weighted(200, kTwoCandles, kWeightPauseAt),
                                                  Weighted(200, kTwoCandles, 12)},
                    &seen),
                {}, &sleeper);
  // Far below the limit: no wait.
  ASSERT_TRUE(client.Klines(Request()).ok());
  ASSERT_TRUE(client.Klines(Request()).ok());
  EXPECT_TRUE(sleeper.waits.empty());
  // The last answer reported the weight near the limit: a whole window first.
  ASSERT_TRUE(client.Klines(Request()).ok());
  EXPECT_EQ(sleeper.waits, std::vector<int64_t>{kWeightWindowMs});
  EXPECT_EQ(client.stats().retries_by_kind.at("weight_pause"), 1);
  EXPECT_EQ(seen.size(), 3u);
}

TEST(ExchangeTest, AWeightWaitBeyondTheBudgetFailsAtOnceAsBlocked) {
  std::vector<std::string> seen;
  CountingSleeper sleeper;
  gql::RetryPolicy policy;
  policy.budget_ms = kWeightWindowMs - 1;
  Client client(
      std::make_unique<ScriptedTransport>(
          std::deque<gql::HttpResponse>{Weighted(200, kTwoCandles, kRequestWeightPerMinute),
                                        Weighted(200, kTwoCandles, 1)},
          &seen),
      policy, &sleeper);
  ASSERT_TRUE(client.Klines(Request()).ok());
  auto c = client.Klines(Request());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("request weight"), std::string::npos) << c.status().message();
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_TRUE(sleeper.waits.empty());
  EXPECT_TRUE(client.last_failure().host_wide);
  EXPECT_EQ(client.last_failure().blocked_for_ms, kWeightWindowMs);
}

TEST(ExchangeTest, ARedirectIsNotFollowedAndNamesWhereItPoints) {
  std::vector<std::string> seen;
  CountingSleeper sleeper;
  gql::HttpResponse moved{301, "", std::nullopt};
  moved.headers.emplace_back("location", "https://api.example.test/api/v3/klines");
  Client client(std::make_unique<ScriptedTransport>(std::deque<gql::HttpResponse>{moved}, &seen),
                {}, &sleeper);
  auto c = client.Klines(Request());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("HTTP 301, redirected to https://api.example.test/"),
            std::string::npos)
      << c.status().message();
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_TRUE(client.last_failure().host_wide);
}

TEST(ExchangeTest, ABadSymbolFailsAtOnceAndServerErrorsGiveUp) {
  {
    std::vector<std::string> seen;
    CountingSleeper sleeper;
    Client client(std::make_unique<ScriptedTransport>(
                      std::deque<gql::HttpResponse>{
                          {400, R"({"code":-1121,"msg":"Invalid symbol."})", std::nullopt}},
                      &seen),
                  {}, &sleeper);
    auto c = client.Klines(Request());
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kSource);
    EXPECT_NE(c.status().message().find("HTTP 400"), std::string::npos);
    EXPECT_NE(c.status().message().find("Invalid symbol."), std::string::npos);
    EXPECT_EQ(seen.size(), 1u);
  }
  {
    std::vector<std::string> seen;
    CountingSleeper sleeper;
    std::deque<gql::HttpResponse> answers(10, gql::HttpResponse{502, "bad gateway", std::nullopt});
    gql::RetryPolicy policy;
    policy.transport_attempts = 3;
    Client client(std::make_unique<ScriptedTransport>(answers, &seen), policy, &sleeper);
    auto c = client.Klines(Request());
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.status().message().find("(after 3 attempts)"), std::string::npos)
        << c.status().message();
    EXPECT_EQ(seen.size(), 3u);
  }
  {
    // Throttling that outlasts the budget ends the query.
    std::vector<std::string> seen;
    CountingSleeper sleeper;
    std::deque<gql::HttpResponse> answers(50, gql::HttpResponse{429, "slow down", 60'000});
    gql::RetryPolicy policy;
    policy.budget_ms = 150'000;
    Client client(std::make_unique<ScriptedTransport>(answers, &seen), policy, &sleeper);
    auto c = client.Klines(Request());
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(seen.size(), 3u);
  }
}

}  // namespace
}  // namespace predlake::exchange
