#include "cli/command.hpp"
#include "cli/network.hpp"
#include "cli/writer_env.hpp"
#include "etl/etl.hpp"
#include "jobs/update.hpp"
#include "jobs/writer.hpp"
#include "raw/update.hpp"

namespace predlake::cli {
namespace {

struct RawUpdateOptions {
  std::string to;  // empty: lake_ss.fin_timestr
};

Status RawUpdate(Context& ctx, const RawUpdateOptions& o) {
  ASSIGN_OR_RETURN(int64_t start_ms, ctx.StartMs());
  int64_t end_ms = 0;
  if (o.to.empty()) {
    ASSIGN_OR_RETURN(end_ms, ctx.FinMs());
  } else {
    ASSIGN_OR_RETURN(end_ms, ctx.ParseTimeArg(o.to, "--to"));
    RETURN_IF_ERROR(ctx.CheckEndAfterStart(end_ms, start_ms, "--to"));
  }
  ASSIGN_OR_RETURN(raw::TransportFactory factory, MakeTransportFactory(ctx));

  raw::UpdateOptions options;
  options.start_ms = start_ms;
  options.end_ms = end_ms;
  options.cancel = &Context::EnableCancellation();
  options.retry = FetchRetryPolicy(ctx);
  options.fallback_source = ctx.config().lake.feed_source;
  ASSIGN_OR_RETURN(options.exchange, MakeExchangeFactory(ctx));
  options.ohlcv_exchange = ctx.config().lake.ohlcv_exchange;
  options.now_ms = ctx.now_ms();
  options.ohlcv_gap_after_ms = ctx.config().lake.ohlcv_gap_after_ms;
  options.chunk_ms = ctx.config().lake.checkpoint_period_ms;
  options.note_later_start = !ctx.StartIsRelative();
  options.at_step = jobs::RawFaultHook(etl::FaultInjection::FromEnv());
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  ASSIGN_OR_RETURN(raw::UpdateReport report,
                   jobs::RunWriter<raw::UpdateReport>(
                       WriterEnvFor(ctx), "raw update", [&](lake::Lake& lake, lake::Run& run) {
                         return raw::Update(lake, run, options, factory, progress.get());
                       }));
  for (const std::string& warning : report.warnings) ctx.log().Warn(warning);
  for (const std::string& warning : raw::SkippedContractWarnings(report)) ctx.log().Warn(warning);
  bool any_window = false, any_recorded = false;
  for (const raw::TableReport& t : report.tables) {
    any_window |= t.from_ms < t.end_ms;
    any_recorded |= t.before.watermark_ms != 0;
  }
  if (any_window) {
    ctx.log().Info("raw update on " + ctx.network() + ": indexed head " +
                   FormatTime(report.head_ms) + ", fetched up to " + FormatTime(report.end_ms));
  } else if (report.end_ms < start_ms && !any_recorded) {
    ctx.log().Info("raw update on " + ctx.network() + ": nothing fetched: the end " +
                   FormatTime(report.end_ms) + " is before the start " + FormatTime(start_ms) +
                   " (lake_ss.st_timestr)");
  } else {
    ctx.log().Info("raw update on " + ctx.network() + ": nothing fetched: every table is at " +
                   "or past the end " + FormatTime(report.end_ms) + " (indexed head " +
                   FormatTime(report.head_ms) + ")");
  }
  for (const raw::TableReport& t : report.tables) {
    std::string line = t.table + ": " + std::to_string(t.counts.rows_in) + " fetched, " +
                       std::to_string(t.counts.rows_out) + " new";
    if (t.counts.rows_updated > 0)
      line += ", " + std::to_string(t.counts.rows_updated) + " updated";
    if (t.backfill_from_ms) {
      line += ", backfilled [" + FormatTime(*t.backfill_from_ms) + ", " +
              FormatTime(t.before.start_ms) + ") in " + std::to_string(t.backfill_chunks) +
              " chunk" + (t.backfill_chunks == 1 ? "" : "s");
    }
    line += ", watermark " + FormatTime(t.after.watermark_ms);
    if (t.retries > 0) {
      line += ", " + std::to_string(t.retries) + " retries (";
      bool first = true;
      for (const auto& [kind, n] : t.retries_by_kind) {
        line += (first ? "" : ", ") + kind + " " + std::to_string(n);
        first = false;
      }
      line += ")";
    }
    if (t.smaller_pages > 0) {
      line += ", " + std::to_string(t.smaller_pages) + " pages asked again smaller";
    }
    ctx.log().Info(line);
  }
  return Status::Ok();
}

}  // namespace

RunFn RawUpdateCommand(OptionSet& args) {
  auto o = std::make_shared<RawUpdateOptions>();
  args.Time("--to", &o->to,
            "end of the window (default lake_ss.fin_timestr; capped at the indexed head)");
  return [o](Context& ctx) { return RawUpdate(ctx, *o); };
}

}  // namespace predlake::cli
