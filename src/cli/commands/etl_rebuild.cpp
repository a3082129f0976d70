#include "cli/command.hpp"
#include "jobs/etl.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string to;  // empty: lake_ss.fin_timestr
};

Status EtlRebuild(Context& ctx, const Options& o) {
  jobs::EtlRequest request;
  request.job = jobs::EtlJob::kRebuild;
  if (o.to.empty()) {
    ASSIGN_OR_RETURN(int64_t fin_ms, ctx.FinMs());
    request.options.to_ms = fin_ms;
  } else {
    ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
    request.options.to_ms = to_ms;
  }
  ASSIGN_OR_RETURN(int64_t st_ms, ctx.StartMs());
  request.options.st_ms = st_ms;
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  request.options.progress = progress.get();
  request.options.faults = etl::FaultInjection::FromEnv();
  ASSIGN_OR_RETURN(etl::RunReport report,
                   jobs::RunEtl({ctx.LakeDir(), &ctx.clock(), ops::BusyRetry(ctx.log())}, request));
  ctx.log().Info(report.message, {{"run", std::to_string(report.run_id)}});
  return Status::Ok();
}

}  // namespace

PREDLAKE_COMMAND(etl_rebuild) {
  return MakeCommand<Options>(
      "etl rebuild", "rebuild every built table from raw in one run (no refetch)",
      [](CLI::App& app, Options& o) {
        AddTimeOption(app, "--to", o.to,
                      "end of the rebuild (default lake_ss.fin_timestr; capped at the frontier)");
      },
      EtlRebuild);
}

}  // namespace predlake::cli
