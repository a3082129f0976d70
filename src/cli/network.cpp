#include "cli/network.hpp"

#include <memory>
#include <string>

#include "common/time.hpp"
#include "source/exchange/exchange.hpp"
#include "source/gql/http_transport.hpp"
#include "source/sim/faults.hpp"
#include "source/sim/subgraph.hpp"
#include "source/sim/transport.hpp"

namespace predlake::cli {

Result<raw::TransportFactory> MakeTransportFactory(const Context& ctx) {
  if (ctx.network() == "sim") {
    ASSIGN_OR_RETURN(std::shared_ptr<const sim::Engine> engine,
                     sim::Engine::Create(ctx.config().sim, ctx.now_ms()));
    return raw::TransportFactory(
        [engine](const raw::TransportUse& use) -> std::unique_ptr<gql::Transport> {
          return std::make_unique<sim::InProcessTransport>(engine,
                                                           sim::FaultSalt(use.run_id, use.stream));
        });
  }
  ASSIGN_OR_RETURN(std::string url, ctx.SubgraphUrl());
  return raw::TransportFactory([url](const raw::TransportUse&) -> std::unique_ptr<gql::Transport> {
    return std::make_unique<gql::HttpTransport>(url);
  });
}

Result<raw::ExchangeFactory> MakeExchangeFactory(const Context& ctx) {
  if (!ctx.config().lake.ohlcv) return raw::ExchangeFactory();
  if (ctx.network() == "sim") {
    ASSIGN_OR_RETURN(std::shared_ptr<const sim::Engine> engine,
                     sim::Engine::Create(ctx.config().sim, ctx.now_ms()));
    return raw::ExchangeFactory([engine](int64_t run_id) -> std::unique_ptr<exchange::Transport> {
      // Stream 99: another fault stream than the subgraph's fetchers.
      return std::make_unique<sim::InProcessExchangeTransport>(engine, sim::FaultSalt(run_id, 99));
    });
  }
  std::string url = ctx.config().lake.ohlcv_base_url;
  return raw::ExchangeFactory([url](int64_t) -> std::unique_ptr<exchange::Transport> {
    return std::make_unique<exchange::HttpTransport>(url);
  });
}

gql::RetryPolicy FetchRetryPolicy(Context& ctx) {
  gql::RetryPolicy policy;
  policy.budget_ms = ctx.config().lake.retry_budget_ms;
  if (ctx.log().verbose()) {
    Logger* log = &ctx.log();
    policy.on_retry = [log](const gql::RetryNotice& n) {
      log->Debug("retry " + std::to_string(n.retry) + " in " + FormatDuration(n.wait_ms) + " (" +
                 std::string(n.kind) + "): " + std::string(n.error));
    };
  }
  return policy;
}

}  // namespace predlake::cli
