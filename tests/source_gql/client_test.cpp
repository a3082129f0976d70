#include "source/gql/client.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <vector>

namespace predlake::gql {
namespace {

// Answers from a script; once the script is exhausted it repeats the last entry.
class ScriptedTransport final : public Transport {
 public:
  explicit ScriptedTransport(std::vector<Result<HttpResponse>> script, int* calls,
                             std::string* last_body = nullptr)
      : script_(std::move(script)), calls_(calls), last_body_(last_body) {}
  Result<HttpResponse> Post(const std::string& body) override {
    if (last_body_ != nullptr) *last_body_ = body;
    size_t i = std::min<size_t>(static_cast<size_t>(*calls_), script_.size() - 1);
    ++*calls_;
    return script_[i];
  }
  std::string Describe() const override { return "http://fake/subgraph"; }

 private:
  std::vector<Result<HttpResponse>> script_;
  int* calls_;
  std::string* last_body_;
};

class RecordingSleeper final : public Sleeper {
 public:
  void SleepMs(int64_t ms, const std::atomic<bool>*) override { sleeps.push_back(ms); }
  std::vector<int64_t> sleeps;
};

HttpResponse Ok(std::string body) { return HttpResponse{200, std::move(body), std::nullopt}; }
HttpResponse Http(int code, std::string body = "", std::optional<int64_t> retry_after = {}) {
  return HttpResponse{code, std::move(body), retry_after};
}

constexpr const char* kGood = R"({"data":{"_meta":{"block":{"number":7,"timestamp":1721959200}}}})";

RetryPolicy Policy() {
  RetryPolicy p;
  p.max_attempts = 4;
  p.graphql_error_attempts = 2;
  p.base_delay_ms = 100;
  p.max_delay_ms = 1000;
  p.max_retry_after_ms = 5000;
  p.jitter_seed = 7;
  return p;
}

struct Harness {
  int calls = 0;
  std::string body;
  RecordingSleeper sleeper;
  Client Make(std::vector<Result<HttpResponse>> script, RetryPolicy policy = Policy()) {
    return Client(std::make_unique<ScriptedTransport>(std::move(script), &calls, &body), policy,
                  &sleeper);
  }
};

TEST(ClientTest, ReturnsDataAndPostsQueryAsJson) {
  Harness h;
  Client c = h.Make({Ok(kGood)});
  auto data = c.Query("{ _meta { block { number timestamp } } }");
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ((*data)["_meta"]["block"]["timestamp"], 1721959200);
  EXPECT_EQ(h.calls, 1);
  EXPECT_TRUE(h.sleeper.sleeps.empty());
  auto sent = nlohmann::json::parse(h.body);
  EXPECT_EQ(sent["query"], "{ _meta { block { number timestamp } } }");
}

TEST(ClientTest, Retries5xxWithGrowingJitteredBackoff) {
  Harness h;
  Client c = h.Make({Http(502, "bad gateway"), Http(503), Http(500), Ok(kGood)});
  auto data = c.Query("{x}");
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(h.calls, 4);
  ASSERT_EQ(h.sleeper.sleeps.size(), 3u);
  // Backoff ceilings 100, 200, 400 with jitter over the upper half.
  EXPECT_GE(h.sleeper.sleeps[0], 50);
  EXPECT_LE(h.sleeper.sleeps[0], 100);
  EXPECT_GE(h.sleeper.sleeps[1], 100);
  EXPECT_LE(h.sleeper.sleeps[1], 200);
  EXPECT_GE(h.sleeper.sleeps[2], 200);
  EXPECT_LE(h.sleeper.sleeps[2], 400);
  EXPECT_EQ(c.stats().retries, 3);
}

TEST(ClientTest, BackoffIsCappedAtMaxDelay) {
  Harness h;
  RetryPolicy p = Policy();
  p.max_attempts = 10;
  p.transport_attempts = 10;
  Client c = h.Make({Http(503)}, p);
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(h.calls, 10);
  for (int64_t s : h.sleeper.sleeps) EXPECT_LE(s, 1000);
  EXPECT_GE(h.sleeper.sleeps.back(), 500);
}

TEST(ClientTest, Honours429RetryAfterWithCap) {
  Harness h;
  Client c = h.Make({Http(429, "slow down", 3000), Http(429, "", 60'000), Ok(kGood)});
  auto data = c.Query("{x}");
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(h.sleeper.sleeps, (std::vector<int64_t>{3000, 5000}));
}

TEST(ClientTest, GivesUpAfterBoundedAttemptsNamingWhatHappened) {
  Harness h;
  Client c = h.Make({Http(503, "upstream\nunavailable")});
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), StatusCode::kSource);
  EXPECT_EQ(h.calls, 4);
  EXPECT_EQ(h.sleeper.sleeps.size(), 3u);
  EXPECT_EQ(data.status().message(),
            "http://fake/subgraph: HTTP 503: upstream unavailable (after 4 attempts)");
}

TEST(ClientTest, TransportErrorsAndTimeoutsAreRetried) {
  Harness h;
  Client c =
      h.Make({Status::Source("POST http://fake/subgraph: Timeout was reached"),
              Status::Source("POST http://fake/subgraph: Couldn't connect to server"), Ok(kGood)});
  auto data = c.Query("{x}");
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(h.calls, 3);
}

TEST(ClientTest, PersistentTimeoutFailsWithTransportMessage) {
  Harness h;
  Client c = h.Make({Status::Source("POST http://fake/subgraph: Timeout was reached")});
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().message(),
            "POST http://fake/subgraph: Timeout was reached (after 4 attempts)");
}

TEST(ClientTest, UnknownGraphqlErrorsRetriedAFewTimesThenFail) {
  Harness h;
  Client c = h.Make({Ok(R"({"errors":[{"message":"something odd"}]})"),
                     Ok(R"({"data":null,"errors":[{"message":"something odder"}]})"), Ok(kGood)});
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(h.calls, 2);  // graphql_error_attempts
  EXPECT_EQ(data.status().message(),
            "http://fake/subgraph: GraphQL error: something odder (after 2 attempts)");
}

TEST(ClientTest, ClassifiesGraphNodeErrors) {
  EXPECT_EQ(ClassifyGraphqlError("service is overloaded and can not run the query right now. "
                                 "Please try again in a few minutes"),
            ErrorKind::kThrottled);
  EXPECT_EQ(ClassifyGraphqlError("query is too expensive"), ErrorKind::kTooExpensive);
  EXPECT_EQ(ClassifyGraphqlError("query potentially returns `5000` entities or more and thereby "
                                 "exceeds the limit of `1000` entities"),
            ErrorKind::kTooLarge);
  EXPECT_EQ(ClassifyGraphqlError("the result size of 123 is larger than the allowed limit of 10"),
            ErrorKind::kTooLarge);
  EXPECT_EQ(ClassifyGraphqlError("Query timed out"), ErrorKind::kTimeout);
  EXPECT_EQ(ClassifyGraphqlError("indexing_error"), ErrorKind::kIndexing);
  EXPECT_EQ(ClassifyGraphqlError("Store error: database unavailable"), ErrorKind::kStore);
  EXPECT_EQ(ClassifyGraphqlError("the chain was reorganized while executing the query"),
            ErrorKind::kStore);
  EXPECT_EQ(ClassifyGraphqlError("Failed to decode `block.number_gte` value: `subgraph Qm has "
                                 "only indexed up to block number 5 and data for block number 9 "
                                 "is therefore not yet available`"),
            ErrorKind::kBehind);
  EXPECT_EQ(ClassifyGraphqlError("Type `PredictPrediction` has no field `nope`"),
            ErrorKind::kPermanent);
  // A server whose largest `first` is below ours: the page is asked again smaller.
  EXPECT_EQ(ClassifyGraphqlError("The `first` argument must be between 0 and 100, but is 1000"),
            ErrorKind::kTooLarge);
  // A deployment being switched: transient.
  EXPECT_EQ(ClassifyGraphqlError("deployment `QmAbc` does not exist"), ErrorKind::kStore);
  EXPECT_EQ(ClassifyGraphqlError("whatever"), ErrorKind::kOtherGraphql);
}

TEST(ClientTest, LastingErrorsAreRetriedWithinTheBudget) {
  Harness h;
  RetryPolicy p = Policy();
  p.max_attempts = 0;
  p.budget_ms = 10'000;
  Client c = h.Make(
      {Ok(R"({"errors":[{"message":"service is overloaded and can not run the query right now"}]})")},
      p);
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  int64_t total = 0;
  for (int64_t s : h.sleeper.sleeps) total += s;
  EXPECT_LE(total, 10'000);
  EXPECT_GT(total, 10'000 - 1000);  // the last wait that fits is at most the cap (1 s)
  EXPECT_GT(h.calls, 10);
  EXPECT_NE(data.status().message().find("the retry budget)"), std::string::npos)
      << data.status().message();
  EXPECT_EQ(c.stats().retries_by_kind.at("throttled"), c.stats().retries);
  EXPECT_EQ(c.last_error_kind(), ErrorKind::kThrottled);
}

TEST(ClientTest, EachRetryIsReportedBeforeItsWait) {
  Harness h;
  RetryPolicy p = Policy();
  struct Seen {
    std::string kind;
    int retry;
    int64_t wait_ms;
    std::string error;
  };
  std::vector<Seen> seen;
  size_t sleeps_at_notice = 0;
  p.on_retry = [&](const RetryNotice& n) {
    seen.push_back({std::string(n.kind), n.retry, n.wait_ms, std::string(n.error)});
    sleeps_at_notice = h.sleeper.sleeps.size();
  };
  Client c = h.Make({Http(429, "slow down", 300), Http(503, "down"), Ok(kGood)}, p);
  ASSERT_TRUE(c.Query("{x}").ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].kind, "throttled");
  EXPECT_EQ(seen[0].retry, 1);
  EXPECT_EQ(seen[0].wait_ms, 300);  // Retry-After
  EXPECT_EQ(seen[0].error, "http://fake/subgraph: HTTP 429: slow down");
  EXPECT_EQ(seen[1].kind, "http");
  EXPECT_EQ(seen[1].retry, 2);
  EXPECT_EQ(seen[1].error, "http://fake/subgraph: HTTP 503: down");
  ASSERT_EQ(h.sleeper.sleeps.size(), 2u);
  EXPECT_EQ(seen[1].wait_ms, h.sleeper.sleeps[1]);
  EXPECT_EQ(sleeps_at_notice, 1u);  // the second notice came before the second wait

  // A caller's own retry (an unusable answer) is reported with the caller's reason.
  seen.clear();
  int64_t waited = 0;
  ASSERT_TRUE(c.WaitToRetry(ErrorKind::kNullHead, 1, waited, "_meta: null timestamp"));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].kind, ErrorKindName(ErrorKind::kNullHead));
  EXPECT_EQ(seen[0].error, "_meta: null timestamp");
  EXPECT_EQ(seen[0].wait_ms, waited);
}

TEST(ClientTest, AnUnreachableServerFailsAfterTransportAttempts) {
  Harness h;
  RetryPolicy p = Policy();
  p.max_attempts = 0;
  p.transport_attempts = 3;
  Client c = h.Make({Status::Source("POST http://fake/subgraph: Couldn't connect to server")}, p);
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(h.calls, 3);
}

TEST(ClientTest, BadQueriesFailAtOnce) {
  Harness h;
  Client c =
      h.Make({Ok(R"({"errors":[{"message":"Type `Query` has no field `nope`"}]})"), Ok(kGood)});
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(h.calls, 1);
  EXPECT_EQ(c.last_error_kind(), ErrorKind::kPermanent);
}

TEST(ClientTest, ShrinkableQueriesReturnTooLargeAtOnce) {
  Harness h;
  Client c = h.Make({Ok(R"({"errors":[{"message":"Query timed out"}]})"), Ok(kGood)});
  auto data = c.Query("{x}", /*shrinkable=*/true);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(h.calls, 1);
  EXPECT_EQ(c.last_error_kind(), ErrorKind::kTimeout);
  // Not shrinkable: retried.
  Harness h2;
  Client c2 = h2.Make({Ok(R"({"errors":[{"message":"Query timed out"}]})"), Ok(kGood)});
  EXPECT_TRUE(c2.Query("{x}").ok());
  EXPECT_EQ(c2.stats().retries_by_kind.at("timeout"), 1);
}

TEST(PinQueryToBlockTest, PinsEveryRootFieldAndAddsMeta) {
  auto q = PinQueryToBlock(
      "{ a: predictPayouts(first: 2, where: {id_gt: \"x)}\"}) { id } b: predictSlots { id } }", 7);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(*q,
            "{ a: predictPayouts(block: {number_gte: 7}, first: 2, where: {id_gt: \"x)}\"}) { id } "
            "b: predictSlots(block: {number_gte: 7}) { id }  predlake_pin: _meta(block: "
            "{number_gte: 7}) { block { number } } }");
  EXPECT_FALSE(PinQueryToBlock("not a query", 7).ok());
  EXPECT_FALSE(PinQueryToBlock("{ a(first: 1 { id } }", 7).ok());
}

TEST(ClientTest, PinnedAnswersFromAnOlderBlockAreRetried) {
  Harness h;
  Client c = h.Make(
      {Ok(R"({"data":{"a":[],"predlake_pin":{"block":{"number":6}}}})"),
       Ok(R"({"errors":[{"message":"Failed to decode `block.number_gte` value: `subgraph Qm has only indexed up to block number 6 and data for block number 7 is therefore not yet available`"}]})"),
       Ok(R"({"data":{"a":[1],"predlake_pin":{"block":{"number":9}}}})")});
  c.set_min_block(7);
  auto data = c.Query("{ a: f { id } }");
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->dump(), R"({"a":[1]})");
  EXPECT_EQ(c.stats().retries_by_kind.at("behind"), 2);
  EXPECT_NE(h.body.find("number_gte: 7"), std::string::npos);
}

TEST(ClientTest, APinnedAnswerFromAnotherDeploymentFailsAtOnce) {
  Harness h;
  Client c = h.Make(
      {Ok(R"({"data":{"a":[1],"predlake_pin":{"deployment":"QmOld","block":{"number":9}}}})"),
       Ok(R"({"data":{"a":[2],"predlake_pin":{"block":{"number":9}}}})"),
       Ok(R"({"data":{"a":[3],"predlake_pin":{"deployment":"QmNew","block":{"number":9}}}})"),
       Ok(R"({"data":{"a":[4],"predlake_pin":{"deployment":"QmOld","block":{"number":9}}}})")});
  c.set_min_block(7);
  c.set_deployment("QmOld");
  // The same deployment, and an answer that does not say: taken.
  ASSERT_TRUE(c.Query("{ a: f { id } }").ok());
  EXPECT_NE(h.body.find("predlake_pin: _meta(block: {number_gte: 7}) { deployment block"),
            std::string::npos)
      << h.body;
  ASSERT_TRUE(c.Query("{ a: f { id } }").ok());
  // Another deployment: never retried, both named.
  auto changed = c.Query("{ a: f { id } }");
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(h.calls, 3);
  EXPECT_EQ(c.last_error_kind(), ErrorKind::kDeploymentChanged);
  EXPECT_NE(changed.status().message().find("from QmOld to QmNew"), std::string::npos)
      << changed.status().message();
  EXPECT_TRUE(h.sleeper.sleeps.empty());
  // Unpinned, the deployment is not asked for.
  c.set_deployment(std::nullopt);
  ASSERT_TRUE(c.Query("{ a: f { id } }").ok());
  EXPECT_EQ(h.body.find("deployment"), std::string::npos) << h.body;
}

TEST(ClientTest, ARedirectIsNotFollowedAndNamesItsLocation) {
  Harness h;
  HttpResponse moved = Http(301, "moved");
  moved.headers.emplace_back("location", "https://new.example/subgraphs/name/x");
  Client c = h.Make({moved, Ok(kGood)});
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(h.calls, 1);
  EXPECT_EQ(data.status().message(),
            "http://fake/subgraph: HTTP 301, redirected to https://new.example/subgraphs/name/x "
            "(redirects are not followed: use that address): moved");
}

TEST(ClientTest, TransientGraphqlErrorRecovers) {
  Harness h;
  Client c = h.Make({Ok(R"({"errors":[{"message":"indexing_error"}]})"), Ok(kGood)});
  EXPECT_TRUE(c.Query("{x}").ok());
  EXPECT_EQ(h.calls, 2);
}

TEST(ClientTest, EmptyErrorsArrayIsNotAnError) {
  Harness h;
  Client c = h.Make({Ok(R"({"data":{"a":1},"errors":[]})")});
  auto data = c.Query("{x}");
  ASSERT_TRUE(data.ok());
  EXPECT_EQ((*data)["a"], 1);
}

TEST(ClientTest, TruncatedJsonIsRetriedThenFails) {
  Harness h;
  std::string truncated = std::string(kGood).substr(0, 30);
  Client c = h.Make({Ok(truncated), Ok(truncated), Ok(kGood)});
  EXPECT_TRUE(c.Query("{x}").ok());
  EXPECT_EQ(h.calls, 3);

  Harness h2;
  Client c2 = h2.Make({Ok(truncated)});
  auto data = c2.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(h2.calls, 4);
  EXPECT_NE(data.status().message().find("malformed JSON response (30 bytes)"), std::string::npos)
      << data.status().message();
}

TEST(ClientTest, NonObjectOrMissingDataIsMalformed) {
  for (const char* body : {"[1,2]", "\"x\"", "{}", R"({"data":[1]})", "", "<html>"}) {
    Harness h;
    Client c = h.Make({Ok(body)});
    auto data = c.Query("{x}");
    ASSERT_FALSE(data.ok()) << body;
    EXPECT_EQ(data.status().code(), StatusCode::kSource);
    EXPECT_EQ(h.calls, 4) << body;
  }
}

TEST(ClientTest, ClientErrorsFailAtOnce) {
  for (int code : {400, 401, 403, 404, 413}) {
    Harness h;
    Client c = h.Make({Http(code, "no such subgraph"), Ok(kGood)});
    auto data = c.Query("{x}");
    ASSERT_FALSE(data.ok());
    EXPECT_EQ(h.calls, 1);
    EXPECT_TRUE(h.sleeper.sleeps.empty());
    EXPECT_EQ(data.status().message(),
              "http://fake/subgraph: HTTP " + std::to_string(code) + ": no such subgraph");
  }
}

TEST(ClientTest, LongBodiesAreShortenedInErrors) {
  Harness h;
  Client c = h.Make({Http(404, std::string(5000, 'x'))});
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_LT(data.status().message().size(), 300u);
  EXPECT_NE(data.status().message().find("..."), std::string::npos);
}

TEST(ClientTest, StopFlagCancels) {
  Harness h;
  std::atomic<bool> stop{false};
  class StoppingSleeper final : public Sleeper {
   public:
    explicit StoppingSleeper(std::atomic<bool>* s) : s_(s) {}
    void SleepMs(int64_t, const std::atomic<bool>*) override { s_->store(true); }
    std::atomic<bool>* s_;
  } sleeper(&stop);
  Client c(
      std::make_unique<ScriptedTransport>(std::vector<Result<HttpResponse>>{Http(503)}, &h.calls),
      Policy(), &sleeper);
  c.set_stop_flag(&stop);
  auto data = c.Query("{x}");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(h.calls, 1);
}

TEST(ClientTest, RealSleeperReturnsEarlyWhenStopped) {
  std::atomic<bool> stop{true};
  auto t0 = std::chrono::steady_clock::now();
  RealSleeper().SleepMs(10'000, &stop);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

TEST(ClientTest, InvalidUtf8InQueryDoesNotThrow) {
  Harness h;
  Client c = h.Make({Ok(kGood)});
  EXPECT_TRUE(c.Query("{ x(id: \"\xff\xfe\") }").ok());
}

TEST(QuoteGraphqlStringTest, Escapes) {
  EXPECT_EQ(QuoteGraphqlString("0xab-12"), "\"0xab-12\"");
  EXPECT_EQ(QuoteGraphqlString("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
}

}  // namespace
}  // namespace predlake::gql
