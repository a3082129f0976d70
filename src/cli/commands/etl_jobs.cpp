// The four commands that run one ETL job: `etl update` and `etl rebuild` (a window up to --to), and
// `etl drop` and `raw drop` (a rollback from --from). They differ only in the job and its help.
#include "cli/command.hpp"
#include "jobs/etl.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string to;    // window jobs; empty: lake_ss.fin_timestr
  std::string from;  // rollback jobs
};

bool IsRollback(jobs::EtlJob job) {
  return job == jobs::EtlJob::kDrop || job == jobs::EtlJob::kRawDrop;
}

Status RunJob(Context& ctx, jobs::EtlJob job, const Options& o) {
  jobs::EtlRequest request;
  request.job = job;
  if (IsRollback(job)) {
    ASSIGN_OR_RETURN(request.from_ms, ctx.ParseTimeArg(o.from, "--from"));
  } else {
    if (o.to.empty()) {
      ASSIGN_OR_RETURN(int64_t fin_ms, ctx.FinMs());
      request.options.to_ms = fin_ms;
    } else {
      ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
      request.options.to_ms = to_ms;
    }
    ASSIGN_OR_RETURN(int64_t st_ms, ctx.StartMs());
    request.options.st_ms = st_ms;
  }
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  request.options.progress = progress.get();
  request.options.faults = etl::FaultInjection::FromEnv();
  ASSIGN_OR_RETURN(etl::RunReport report, jobs::RunEtl({ctx.LakeDir(), &ctx.clock(),
                                                        ops::BusyRetry(ctx.log()), ctx.network()},
                                                       request));
  ctx.log().Info(report.message, {{"run", std::to_string(report.run_id)}});
  return Status::Ok();
}

// Declares the job's one option (--to for a window, --from for a rollback) with `help`.
RunFn Declare(OptionSet& args, jobs::EtlJob job, std::string help) {
  auto o = std::make_shared<Options>();
  if (IsRollback(job)) {
    args.Time("--from", &o->from, std::move(help)).Required();
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
