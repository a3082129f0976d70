// The server skeleton under a crowd (src/http: connection_threads.hpp): past its threads a bounded
// number of connections wait for one, and every connection past those is answered 503 with
// Retry-After at once, never given a thread of its own. And the Gate (gate.hpp) that bounds the
// heavy requests among the connections: a few at once, the rest in arrival order.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "http/gate.hpp"
#include "http/server.hpp"

namespace predlake::http {
namespace {

TEST(CrowdTest, PastTheWaitingBoundConnectionsAre503WithRetryAfter) {
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  std::atomic<int> entered{0};
  ServerOptions options;
  options.name = "crowd";
  options.threads = 2;
  options.max_waiting = 1;
  auto started = Server::Start(options, [&](httplib::Server& s, const Server&) {
    s.Get("/slow", [&](const httplib::Request&, httplib::Response& res) {
      ++entered;
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return released; });
      res.set_content("done\n", "text/plain");
    });
  });
  ASSERT_TRUE(started.ok()) << started.status().message();
  Server& server = **started;
  std::thread runner([&] { EXPECT_TRUE(server.Run().ok()); });

  // Two connections hold the two threads; a third waits for one.
  std::atomic<int> done{0};
  std::vector<std::thread> held;
  for (int i = 0; i < 3; ++i) {
    held.emplace_back([&] {
      httplib::Client c("127.0.0.1", server.port());
      c.set_read_timeout(30, 0);
      auto res = c.Get("/slow");
      if (res && res->status == 200) ++done;
    });
    if (i < 2) {
      for (int w = 0; w < 500 && entered.load() <= i; ++w) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      ASSERT_EQ(entered.load(), i + 1);
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the third is queued
  EXPECT_EQ(entered.load(), 2);

  // Every further connection is refused at once, while the others still hold their threads.
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    httplib::Client c("127.0.0.1", server.port());
    auto res = c.Get("/slow");
    ASSERT_TRUE(res) << i;
    EXPECT_EQ(res->status, 503);
    EXPECT_EQ(res->get_header_value("Retry-After"), "1");
    EXPECT_NE(res->body.find("crowd: too many connections at once"), std::string::npos);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  }
  EXPECT_EQ(entered.load(), 2);

  {
    std::lock_guard<std::mutex> lock(mu);
    released = true;
  }
  cv.notify_all();
  for (std::thread& t : held) t.join();
  EXPECT_EQ(done.load(), 3);  // the waiting one was served once a thread came free
  EXPECT_EQ(entered.load(), 3);

  // With the crowd gone, connections are served again.
  httplib::Client c("127.0.0.1", server.port());
  auto res = c.Get("/slow");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  server.Stop();
  runner.join();
}

TEST(GateTest, AtMostItsSlotsHoldAndTheOthersEnterInArrivalOrder) {
  Gate gate(2);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> entered;  // in entering order
  std::vector<bool> release(5, false);
  std::vector<std::thread> holders;
  auto hold = [&](int id) {
    Gate::Slot slot = gate.Enter();
    std::unique_lock<std::mutex> lock(mu);
    entered.push_back(id);
    cv.notify_all();
    cv.wait(lock, [&] { return release[static_cast<size_t>(id)]; });
  };
  auto await_entered = [&](size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return entered.size() >= n; });
  };
  auto let_go = [&](int id) {
    std::lock_guard<std::mutex> lock(mu);
    release[static_cast<size_t>(id)] = true;
    cv.notify_all();
  };
  holders.emplace_back(hold, 0);
  await_entered(1);
  holders.emplace_back(hold, 1);
  await_entered(2);
  // Three more arrive one after the other and wait.
  for (int id = 2; id < 5; ++id) {
    holders.emplace_back(hold, id);
    gate.AwaitWaiting(static_cast<size_t>(id - 1));
  }
  EXPECT_EQ(gate.holding(), 2u);
  EXPECT_EQ(gate.waiting(), 3u);
  // Each slot let go admits the longest waiting one, and never more than two hold.
  for (int id = 0; id < 3; ++id) {
    let_go(id);
    await_entered(static_cast<size_t>(id) + 3);
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(entered.back(), id + 2);
    EXPECT_LE(gate.holding(), 2u);
  }
  EXPECT_EQ(gate.waiting(), 0u);
  let_go(3);
  let_go(4);
  for (std::thread& t : holders) t.join();
  EXPECT_EQ(entered, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(gate.holding(), 0u);
}

}  // namespace
}  // namespace predlake::http
