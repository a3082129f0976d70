// How commands reach the subgraph of the chosen network (docs/design.md section 2, "Networks").
#pragma once

#include "cli/command.hpp"
#include "common/status.hpp"
#include "raw/update.hpp"

namespace predlake::cli {

// A thread-safe factory of transports to ctx.network(): for `sim`, the in-process simulated
// subgraph (one engine, built from sim_ss at the command's now and shared by every transport, so
// sim_ss.faults apply); for sapphire-mainnet/testnet, an HttpTransport (libcurl, HTTPS) to
// web3_pp.<network>.subgraph_url. Returns kConfig when a real network has no URL, and the
// simulator's kConfig/kUsage for a bad sim_ss.
Result<raw::TransportFactory> MakeTransportFactory(const Context& ctx);

// The exchange of lake_ss.ohlcv (docs/ohlcv.md), or an empty factory when lake_ss.ohlcv is false:
// for `sim` the simulated exchange in-process (its own engine, same sim_ss and now); for a real
// network an exchange::HttpTransport to lake_ss.ohlcv_base_url.
Result<raw::ExchangeFactory> MakeExchangeFactory(const Context& ctx);

// The fetch's retry policy: lake_ss.retry_budget, and with `-v` a debug line per retry (what
// failed, its kind and the wait) on ctx.log().
gql::RetryPolicy FetchRetryPolicy(Context& ctx);

}  // namespace predlake::cli
