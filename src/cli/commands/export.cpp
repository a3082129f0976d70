#include "jobs/export.hpp"

#include "cli/command.hpp"
#include "cli/writer_env.hpp"

namespace predlake::cli {
namespace {

struct ExportCommandOptions {
  bool full = false;
};

Status RunExportCommand(Context& ctx, const ExportCommandOptions& o) {
  exports::ExportOptions options = ExportOptionsFor(ctx);
  options.full = o.full;
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  options.progress = progress.get();
  Result<exports::ExportReport> report = jobs::RunExport(WriterEnvFor(ctx), options);
  progress->Finish();
  if (!report.ok()) return report.status();
  ctx.log().Info(report->message, {{"run", std::to_string(report->run_id)}});
  return Status::Ok();
}

}  // namespace

RunFn ExportCommand(OptionSet& args) {
  auto o = std::make_shared<ExportCommandOptions>();
  args.Flag("--full", &o->full, "rewrite every day instead of linking the unchanged ones");
  return [o](Context& ctx) { return RunExportCommand(ctx, *o); };
}

}  // namespace predlake::cli
