#include "cli/command.hpp"
#include "jobs/etl.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string from;
};

Status EtlDrop(Context& ctx, const Options& o) {
  jobs::EtlRequest request;
  request.job = jobs::EtlJob::kDrop;
  ASSIGN_OR_RETURN(request.from_ms, ctx.ParseTimeArg(o.from, "--from"));
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  request.options.progress = progress.get();
  request.options.faults = etl::FaultInjection::FromEnv();
  ASSIGN_OR_RETURN(etl::RunReport report,
                   jobs::RunEtl({ctx.LakeDir(), &ctx.clock(), ops::BusyRetry(ctx.log())}, request));
  ctx.log().Info(report.message, {{"run", std::to_string(report.run_id)}});
  return Status::Ok();
}

}  // namespace

PREDLAKE_COMMAND(etl_drop) {
  return MakeCommand<Options>(
      "etl drop", "roll the built tables and the checkpoint back to TIME (raw is untouched)",
      [](CLI::App& app, Options& o) {
        AddTimeOption(app, "--from", o.from, "the new checkpoint")->required();
      },
      EtlDrop);
}

}  // namespace predlake::cli
