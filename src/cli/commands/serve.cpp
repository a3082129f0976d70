// `predlake serve`: the dashboard (src/serve, docs/serve.md); with --every, the update loop
// (publish, then export) on a thread of the same process.
#include "serve/serve.hpp"

#include <atomic>
#include <filesystem>
#include <thread>

#include "cli/command.hpp"
#include "cli/network.hpp"
#include "cli/writer_env.hpp"
#include "jobs/update.hpp"

namespace predlake::cli {
namespace {

struct ServeCommandOptions {
  int64_t port = serve::kDefaultPort;
  std::string bind = "127.0.0.1";
  std::string every;  // empty: serve only
  int64_t page_slots = 0;
  int64_t page_cache_mb = static_cast<int64_t>(serve::kDefaultPageCacheBytes >> 20);
};

// The update loop of `update --every` with the export after every publish forced on; each new
// snapshot is opened for the pages at once (serve::Warm), so that no page request waits for it.
Status RunUpdateLoop(Context& ctx, int64_t every_ms, int64_t start_ms,
                     const raw::TransportFactory& factory, const serve::ServeOptions& serving) {
  jobs::UpdateRequest request;
  request.writer = WriterEnvFor(ctx);
  request.writer.export_after = ExportOptionsFor(ctx);
  request.writer.on_export = [&ctx, &serving](const Result<exports::ExportReport>& report) {
    if (report.ok()) {
      ctx.log().Info(report->message, {{"run", std::to_string(report->run_id)}});
      Status warm = serve::Warm(serving);
      if (!warm.ok()) ctx.log().Warn("serve: the new snapshot cannot be read: " + warm.message());
    } else {
      ctx.log().Warn("the export after the publish failed (the publish stands): " +
                     report.status().message());
    }
  };
  request.start_ms = start_ms;
  request.end_ms = [&ctx](int64_t now_ms) -> Result<int64_t> {
    Result<int64_t> to = ParseTime(ctx.config().lake.fin_timestr, now_ms);
    if (!to.ok()) return ctx.FinMs().status();
    return to;
  };
  request.factory = factory;
  ASSIGN_OR_RETURN(request.exchange, MakeExchangeFactory(ctx));
  request.ohlcv_exchange = ctx.config().lake.ohlcv_exchange;
  request.ohlcv = ctx.config().lake.ohlcv;
  request.ohlcv_gap_after_ms = ctx.config().lake.ohlcv_gap_after_ms;
  request.retry = FetchRetryPolicy(ctx);
  request.fallback_source = ctx.config().lake.feed_source;
  request.chunk_ms = ctx.config().lake.checkpoint_period_ms;
  request.cancel = &Context::EnableCancellation();
  request.faults = etl::FaultInjection::FromEnv();
  ops::LoopOptions loop;
  loop.every_ms = every_ms;
  loop.clock = &ctx.clock();
  return jobs::UpdateEvery(
      request, loop, [&]() { return ctx.now_is_wall_clock() ? ctx.clock().NowMs() : ctx.now_ms(); },
      Context::EnableCancellation(), ctx.log(),
      [&ctx](const jobs::UpdateReport& r) {
        ctx.log().Info(r.etl.message, {{"run", std::to_string(r.etl.run_id)}});
      });
}

Status Serve(Context& ctx, const ServeCommandOptions& o) {
  int64_t every_ms = 0;
  if (!o.every.empty()) {
    ASSIGN_OR_RETURN(every_ms, Context::ParseEveryArg(o.every));
  }
  if (o.bind.empty()) return Status::Usage("--bind: must not be empty");
  std::error_code ec;
  const std::filesystem::path lake_dir(ctx.LakeDir());
  if (o.every.empty()) {
    // Serving only: the lake folder must be there (its snapshots may come later, from a writer).
    if (!std::filesystem::is_directory(lake_dir, ec)) {
      return Status::Data("no lake at " + ctx.LakeDir() +
                          " (lake_ss.lake_dir; run `predlake update`, or serve with --every)");
    }
  } else if (std::filesystem::exists(lake_dir, ec) &&
             !std::filesystem::is_directory(lake_dir, ec)) {
    return Status::Data("lake_ss.lake_dir " + ctx.LakeDir() + " is not a folder");
  }
  int64_t start_ms = 0;
  raw::TransportFactory factory;
  if (!o.every.empty()) {
    ASSIGN_OR_RETURN(start_ms, ctx.StartMs());
    ASSIGN_OR_RETURN(factory, MakeTransportFactory(ctx));
  }
  serve::ServeOptions options;
  options.lake_dir = ctx.LakeDir();
  options.host = o.bind;
  options.port = static_cast<int>(o.port);
  options.clock = &ctx.clock();
  options.my_addresses = ctx.config().predictoor.my_addresses;
  options.page_slots = static_cast<int>(o.page_slots);
  options.page_cache_bytes = static_cast<size_t>(o.page_cache_mb) << 20;
  ASSIGN_OR_RETURN(std::unique_ptr<serve::Server> server, serve::Listen(options));
  const std::atomic<bool>& cancelled = Context::EnableCancellation();
  // The first line on stdout: tests (and scripts) read the URL from it.
  ctx.out() << server->Url() << std::endl;
  ctx.log().Info("serving the dashboard at " + server->Url() + " from " + ctx.LakeDir() +
                 "/exports/current" + (o.every.empty() ? "" : ", updating every " + o.every) +
                 " (Ctrl-C stops)");
  Status loop_status;
  std::atomic<bool> loop_done{o.every.empty()};
  std::thread loop;
  if (!o.every.empty()) {
    loop = std::thread([&] {
      loop_status = RunUpdateLoop(ctx, every_ms, start_ms, factory, options);
      loop_done = true;
    });
  }
  const Status run_status =
      server->RunUntil(cancelled, [&] { return loop.joinable() && loop_done; });
  if (loop.joinable()) loop.join();
  RETURN_IF_ERROR(run_status);
  if (!loop_status.ok() && loop_status.code() != StatusCode::kCancelled) return loop_status;
  ctx.log().Info("stopped after " + std::to_string(server->requests()) + " requests");
  return Status::Cancelled("serve: stopped by a signal");
}

}  // namespace

RunFn ServeCommand(OptionSet& args) {
  auto o = std::make_shared<ServeCommandOptions>();
  args.Integer("--port", &o->port, "TCP port (0 picks a free one; the URL is printed first)")
      .Range(0, 65535);
  args.Text("--bind", &o->bind, "the address to listen on (default 127.0.0.1, this machine only)");
  args.Text("--every", &o->every,
            "also run the update loop (publish, then export) on this cadence (30s, 5m, 1h)");
  args.Integer("--page-slots", &o->page_slots,
               "pages computed at once, the others wait in turn (default 0: two per core)")
      .Range(0, 1024);
  args.Integer("--page-cache-mb", &o->page_cache_mb,
               "memory for the pages kept per snapshot (default 64; 0 keeps none)")
      .Range(0, 65536);
  return [o](Context& ctx) { return Serve(ctx, *o); };
}

}  // namespace predlake::cli
