// The four commands that run one ETL job: `etl update` and `etl rebuild` (a window up to --to), and
// `etl drop` and `raw drop` (a rollback from --from). They differ only in the job and its help.
#include "cli/command.hpp"
#include "cli/writer_env.hpp"
#include "jobs/etl.hpp"

namespace predlake::cli {
namespace {

struct EtlJobsOptions {
  std::string to;               // window jobs; empty: lake_ss.fin_timestr
  std::string from;             // rollback jobs
  std::string from_positional;  // rollback jobs: pdr-backend's `raw drop ppss.yaml NETWORK TIME`
};

bool IsRollback(jobs::EtlJob job) {
  return job == jobs::EtlJob::kDrop || job == jobs::EtlJob::kRawDrop;
}

Status RunJob(Context& ctx, jobs::EtlJob job, const EtlJobsOptions& o) {
  jobs::EtlRequest request;
  request.job = job;
  if (IsRollback(job)) {
    if (!o.from.empty() && !o.from_positional.empty()) {
      return Status::Usage("the drop time is given twice: with --from and as '" +
                           o.from_positional + "'");
    }
    if (o.from.empty() && o.from_positional.empty()) {
      return Status::Usage("--from is required (or give the time after the command: predlake " +
                           std::string(job == jobs::EtlJob::kDrop ? "etl" : "raw") +
                           " drop ppss.yaml NETWORK 2024-07-26)");
    }
    const bool positional = o.from.empty();
    ASSIGN_OR_RETURN(request.from_ms, ctx.ParseTimeArg(positional ? o.from_positional : o.from,
                                                       positional ? "FROM" : "--from"));
  } else {
    ASSIGN_OR_RETURN(int64_t st_ms, ctx.StartMs());
    request.options.st_ms = st_ms;
    if (o.to.empty()) {
      ASSIGN_OR_RETURN(int64_t fin_ms, ctx.FinMs());
      request.options.to_ms = fin_ms;
    } else {
      ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
      RETURN_IF_ERROR(ctx.CheckEndAfterStart(to_ms, st_ms, "--to"));
      request.options.to_ms = to_ms;
    }
  }
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  request.options.progress = progress.get();
  request.options.ohlcv = ctx.config().lake.ohlcv;
  request.options.faults = etl::FaultInjection::FromEnv();
  if (!IsRollback(job)) {
    request.chunk_ms = ctx.config().lake.checkpoint_period_ms;
    request.on_chunk = [&](const etl::RunReport& chunk) {
      ctx.log().Info(chunk.message, {{"run", std::to_string(chunk.run_id)}});
      if (ctx.log().verbose() && !chunk.step_ms.empty()) {
        ctx.log().Debug("etl steps (ms): " + etl::DescribeStepTimes(chunk));
      }
    };
  }
  ASSIGN_OR_RETURN(etl::RunReport report, jobs::RunEtl(WriterEnvFor(ctx), request));
  ctx.log().Info(report.message, {{"run", std::to_string(report.run_id)}});
  // -v: where the time went, per step (docs/scale.md).
  if (ctx.log().verbose() && !report.step_ms.empty()) {
    ctx.log().Debug("etl steps (ms): " + etl::DescribeStepTimes(report));
  }
  return Status::Ok();
}

// Declares the job's one option (--to for a window, --from for a rollback) with `help`.
RunFn Declare(OptionSet& args, jobs::EtlJob job, std::string help) {
  auto o = std::make_shared<EtlJobsOptions>();
  if (IsRollback(job)) {
    args.Time("--from", &o->from, help);
    args.Positional("FROM", &o->from_positional,
                    "the same as --from, in pdr-backend's positional form (" + help + ")");
  } else {
    args.Time("--to", &o->to, std::move(help));
  }
  return [o, job](Context& ctx) { return RunJob(ctx, job, *o); };
}

}  // namespace

RunFn EtlUpdateCommand(OptionSet& args) {
  return Declare(args, jobs::EtlJob::kUpdate,
                 "end of the window (default lake_ss.fin_timestr; capped at the frontier)");
}

RunFn EtlRebuildCommand(OptionSet& args) {
  return Declare(args, jobs::EtlJob::kRebuild,
                 "end of the rebuild (default lake_ss.fin_timestr; capped at the frontier)");
}

RunFn EtlDropCommand(OptionSet& args) {
  return Declare(args, jobs::EtlJob::kDrop, "the new checkpoint");
}

RunFn RawDropCommand(OptionSet& args) {
  return Declare(args, jobs::EtlJob::kRawDrop, "first timestamp to delete");
}

}  // namespace predlake::cli
