// A fake of Binance's spot API for the candle tests, written from its public documentation: the
// simulated exchange's klines (the truth) altered as a test says — candles left out (gaps, short
// answers), closes answered differently (a candle still revised), the exchange's clock apart from
// ours, and answers that refuse (418 or 429 with Retry-After, 451 restricted location, 400 for a
// symbol it does not list). Every request is counted. Thread-safe for one client at a time.
#pragma once

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
};

class FakeExchange final : public exchange::Transport {
 public:
  FakeExchange(std::shared_ptr<const sim::Engine> engine, std::shared_ptr<FakeExchangeState> state)
      : engine_(std::move(engine)), state_(std::move(state)) {}

  Result<gql::HttpResponse> Get(const std::string& path) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    ++state_->requests;
    if (state_->refuse) return *state_->refuse;
    if (path == exchange::kTimePath) {
      nlohmann::json t = {{"serverTime", engine_->NowMs() + state_->clock_offset_ms}};
      return gql::HttpResponse{200, t.dump(), std::nullopt};
    }
    auto request = exchange::ParseKlinesPathAndQuery(path);
    if (request.ok() && state_->unlisted.count(request->symbol)) {
      return gql::HttpResponse{400, R"({"code":-1121,"msg":"Invalid symbol."})", std::nullopt};
    }
    gql::HttpResponse answer = engine_->HandleExchange(path);
    if (!request.ok() || answer.status != 200) return answer;
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
    return gql::HttpResponse{200, out.dump(), std::nullopt};
  }
  std::string Describe() const override { return "fake exchange"; }

 private:
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
