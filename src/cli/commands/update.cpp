#include "jobs/update.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "cli/command.hpp"
#include "cli/network.hpp"
#include "cli/writer_env.hpp"

namespace predlake::cli {
namespace {

struct UpdateOptions {
  std::string to;     // empty: lake_ss.fin_timestr
  std::string every;  // empty: run once
};

void PrintFetch(Context& ctx, const raw::UpdateReport& r) {
  int64_t fetched = 0, stored = 0, retries = 0;
  for (const std::string& warning : r.warnings) ctx.log().Warn(warning);
  for (const std::string& warning : raw::SkippedContractWarnings(r)) ctx.log().Warn(warning);
  for (const auto& [kind, n] : r.head_retries_by_kind) retries += n;
  for (const raw::TableReport& t : r.tables) {
    fetched += t.counts.rows_in;
    stored += t.counts.rows_out;
    retries += t.retries;
  }
  ctx.log().Info("raw update on " + ctx.network() + ": " + std::to_string(fetched) +
                     " records fetched, " + std::to_string(stored) + " new, up to " +
                     FormatTime(r.end_ms) + " (indexed head " + FormatTime(r.head_ms) + ")" +
                     (retries > 0 ? ", " + std::to_string(retries) + " retries" : ""),
                 {{"run", std::to_string(r.run_id)}});
}

void PrintEtl(Context& ctx, const jobs::UpdateReport& r) {
  ctx.log().Info(r.etl.message, {{"run", std::to_string(r.etl.run_id)}});
  // -v: where the ETL's time went, per step (docs/scale.md).
  if (ctx.log().verbose() && !r.etl.step_ms.empty()) {
    ctx.log().Debug("etl steps (ms): " + etl::DescribeStepTimes(r.etl));
  }
}

// How long the process ran before the update began (loading, config, the command line), from
// /proc (1/100 s resolution); negative when /proc cannot tell.
double ProcessAgeMs() {
  std::FILE* stat = std::fopen("/proc/self/stat", "r");
  std::FILE* uptime = std::fopen("/proc/uptime", "r");
  double age = -1;
  if (stat != nullptr && uptime != nullptr) {
    char buf[1024];
    const size_t n = std::fread(buf, 1, sizeof(buf) - 1, stat);
    buf[n] = '\0';
    // Field 22 (starttime, clock ticks after boot) counts from the ") " ending the command name.
    const char* p = std::strrchr(buf, ')');
    unsigned long long start_ticks = 0;
    double up = 0;
    if (p != nullptr &&
        std::sscanf(p + 2,
                    "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
                    "%*d %llu",
                    &start_ticks) == 1 &&
        std::fscanf(uptime, "%lf", &up) == 1) {
      age = (up - static_cast<double>(start_ticks) / static_cast<double>(sysconf(_SC_CLK_TCK))) *
            1000;
    }
  }
  if (stat != nullptr) std::fclose(stat);
  if (uptime != nullptr) std::fclose(uptime);
  return age;
}

// -v: where an update's time went, one line (docs/scale.md).
void PrintPhases(Context& ctx, const jobs::UpdateReport& r, double start_ms) {
  if (!ctx.log().verbose()) return;
  ctx.log().Debug("update phases (ms): " +
                  (start_ms >= 0 ? fmt::format("start {:.0f}, ", start_ms) : std::string()) +
                  jobs::DescribePhases(r.phases));
}

Status Update(Context& ctx, const UpdateOptions& o) {
  int64_t every_ms = 0;
  // Bad options are usage errors before anything is opened, not a failing loop.
  if (!o.every.empty()) {
    ASSIGN_OR_RETURN(every_ms, Context::ParseEveryArg(o.every));
  }
  ASSIGN_OR_RETURN(int64_t start_ms, ctx.StartMs());
  if (!o.to.empty()) {
    ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
    RETURN_IF_ERROR(ctx.CheckEndAfterStart(to_ms, start_ms, "--to"));
  }
  ASSIGN_OR_RETURN(raw::TransportFactory factory, MakeTransportFactory(ctx));
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  jobs::UpdateRequest request;
  request.writer = WriterEnvFor(ctx);
  request.start_ms = start_ms;
  // Resolved for every run, so that the `now` of a loop moves on.
  request.end_ms = [&](int64_t now_ms) -> Result<int64_t> {
    const std::string& to_text = o.to.empty() ? ctx.config().lake.fin_timestr : o.to;
    Result<int64_t> to = ParseTime(to_text, now_ms);
    if (!to.ok()) return o.to.empty() ? ctx.FinMs().status() : to.status().WithContext("--to");
    if (!o.to.empty()) RETURN_IF_ERROR(ctx.CheckEndAfterStart(*to, start_ms, "--to"));
    return to;
  };
  request.factory = factory;
  ASSIGN_OR_RETURN(request.exchange, MakeExchangeFactory(ctx));
  request.ohlcv_exchange = ctx.config().lake.ohlcv_exchange;
  request.ohlcv = ctx.config().lake.ohlcv;
  request.ohlcv_gap_after_ms = ctx.config().lake.ohlcv_gap_after_ms;
  request.retry = FetchRetryPolicy(ctx);
  request.fallback_source = ctx.config().lake.feed_source;
  request.cancel = &Context::EnableCancellation();
  request.progress = progress.get();
  request.faults = etl::FaultInjection::FromEnv();
  request.after_fetch = [&](const raw::UpdateReport& r) { PrintFetch(ctx, r); };
  request.chunk_ms = ctx.config().lake.checkpoint_period_ms;
  request.note_later_start = !ctx.StartIsRelative();
  if (o.every.empty()) {
    const double start_age_ms = ctx.log().verbose() ? ProcessAgeMs() : -1;
    ASSIGN_OR_RETURN(jobs::UpdateReport report,
                     jobs::Update(request, ctx.now_ms(), [&](const jobs::ChunkProgress& chunk) {
                       PrintEtl(ctx, *chunk.report);
                       ctx.log().Info("update: " + jobs::DescribeChunk(chunk));
                     }));
    PrintEtl(ctx, report);
    PrintPhases(ctx, report, start_age_ms);
    if (report.chunks > 1) {
      ctx.log().Info(
          fmt::format("update: {} chunks (lake_ss.checkpoint_period {}), {} rows in "
                      "{:.1f}s, {:.0f} rows/s",
                      report.chunks, FormatDuration(request.chunk_ms), report.rows, report.seconds,
                      report.seconds > 0 ? report.rows / report.seconds : 0.0));
    }
    return Status::Ok();
  }
  ops::LoopOptions loop;
  loop.every_ms = every_ms;
  loop.clock = &ctx.clock();
  return jobs::UpdateEvery(
      request, loop, [&]() { return ctx.now_is_wall_clock() ? ctx.clock().NowMs() : ctx.now_ms(); },
      Context::EnableCancellation(), ctx.log(),
      [&](const jobs::UpdateReport& r) {
        PrintEtl(ctx, r);
        PrintPhases(ctx, r, -1);
      });
}

}  // namespace

RunFn UpdateCommand(OptionSet& args) {
  auto o = std::make_shared<UpdateOptions>();
  args.Time("--to", &o->to,
            "end of the window (default lake_ss.fin_timestr; capped at the indexed head and the "
            "frontier)");
  args.Text("--every", &o->every,
            "repeat on this cadence (500ms, 30s, 5m, 2h, 1d) until SIGINT/SIGTERM");
  return [o](Context& ctx) { return Update(ctx, *o); };
}

}  // namespace predlake::cli
