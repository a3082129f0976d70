#include "cli/command.hpp"
#include "jobs/etl.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string from;
};

Status RawDrop(Context& ctx, const Options& o) {
  jobs::EtlRequest request;
  request.job = jobs::EtlJob::kRawDrop;
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

PREDLAKE_COMMAND(raw_drop) {
  return MakeCommand<Options>(
      "raw drop",
      "delete raw rows at or after TIME, move watermarks back (and the checkpoint, if ahead)",
      [](CLI::App& app, Options& o) {
        AddTimeOption(app, "--from", o.from, "first timestamp to delete")->required();
      },
      RawDrop);
}

}  // namespace predlake::cli
