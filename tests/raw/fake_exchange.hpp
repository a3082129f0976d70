// A fake of Binance's spot API for the candle tests, written from its public documentation: the
// simulated exchange's klines (the truth) altered as a test says — candles left out (gaps, short
// answers), closes answered differently (a candle still revised), the exchange's clock apart from
// ours, and answers that refuse (418 or 429 with Retry-After, 451 restricted location, 400 for a
// symbol it does not list), and Binance's request weight: each answer reports the weight used in
// the current minute (X-MBX-USED-WEIGHT-1M), and a request past the limit is answered 429. Every
// request is counted. Thread-safe for one client at a time.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "raw/ohlcv.hpp"
#include "source/exchange/exchange.hpp"
#include "source/sim/subgraph.hpp"
#include "source/sim/transport.hpp"

namespace predlake::raw::rawtest {

struct FakeExchangeState {
  std::mutex mu;
  int64_t clock_offset_ms = 0;                       // server time = sim now + this
  std::map<std::string, std::set<int64_t>> missing;  // symbol+interval -> open times left out
  std::map<std::string, std::map<int64_t, std::string>> revised;  // -> open time -> close answered
  std::optional<gql::HttpResponse> refuse;                        // every request answered this way
  std::set<std::string> unlisted;  // symbols answered 400 Invalid symbol
  int requests = 0;
  // Request weight, when weight_per_request > 0: the minute's window is the test's sleeper's
  // total (`slept_ms`, required then) divided by a minute, so a client that waits a minute finds
  // a fresh window. Past weight_limit a request is answered 429 and counted in over_limit.
  int64_t weight_per_request = 0;
  int64_t weight_limit = exchange::kRequestWeightPerMinute;
  const std::atomic<int64_t>* slept_ms = nullptr;
  int64_t weight_window = -1;
  int64_t used_weight = 0;
  int over_limit = 0;
};

class FakeExchange final : public exchange::Transport {
 public:
  FakeExchange(std::shared_ptr<const sim::Engine> engine, std::shared_ptr<FakeExchangeState> state)
      : engine_(std::move(engine)), state_(std::move(state)) {}

  Result<gql::HttpResponse> Get(const std::string& path) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    ++state_->requests;
    if (state_->refuse) return *state_->refuse;
    if (state_->weight_per_request > 0) {
      const int64_t window = state_->slept_ms->load() / 60'000;
      if (window != state_->weight_window) {
        state_->weight_window = window;
        state_->used_weight = 0;
      }
      state_->used_weight += state_->weight_per_request;
      if (state_->used_weight > state_->weight_limit) {
        ++state_->over_limit;
        return WithWeight(gql::HttpResponse{
            429, R"({"code":-1003,"msg":"Too much request weight used"})", 60'000});
      }
    }
    if (path == exchange::kTimePath) {
      nlohmann::json t = {{"serverTime", engine_->NowMs() + state_->clock_offset_ms}};
      return WithWeight(gql::HttpResponse{200, t.dump(), std::nullopt});
    }
    auto request = exchange::ParseKlinesPathAndQuery(path);
    if (request.ok() && state_->unlisted.count(request->symbol)) {
      return WithWeight(
          gql::HttpResponse{400, R"({"code":-1121,"msg":"Invalid symbol."})", std::nullopt});
    }
    gql::HttpResponse answer = engine_->HandleExchange(path);
    if (!request.ok() || answer.status != 200) return WithWeight(std::move(answer));
    const std::string key = request->symbol + request->interval;
    nlohmann::json rows = nlohmann::json::parse(answer.body);
    nlohmann::json out = nlohmann::json::array();
    for (auto& row : rows) {
      const int64_t open = row[0].get<int64_t>();
      if (state_->missing[key].count(open)) continue;
      auto revised = state_->revised[key].find(open);
      if (revised != state_->revised[key].end()) row[4] = revised->second;
      out.push_back(row);
    }
    return WithWeight(gql::HttpResponse{200, out.dump(), std::nullopt});
  }
  std::string Describe() const override { return "fake exchange"; }

 private:
  gql::HttpResponse WithWeight(gql::HttpResponse answer) const {
    if (state_->weight_per_request > 0) {
      answer.headers.emplace_back(std::string(exchange::kUsedWeightHeader),
                                  std::to_string(state_->used_weight));
    }
    return answer;
  }

  std::shared_ptr<const sim::Engine> engine_;
  std::shared_ptr<FakeExchangeState> state_;
};

inline ExchangeFactory FakeExchangeFactory(std::shared_ptr<const sim::Engine> engine,
                                           std::shared_ptr<FakeExchangeState> state) {
  return [engine, state](int64_t) -> std::unique_ptr<exchange::Transport> {
    return std::make_unique<FakeExchange>(engine, state);
  };
}

}  // namespace predlake::raw::rawtest
