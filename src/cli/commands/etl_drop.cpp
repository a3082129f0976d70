#include "cli/command.hpp"
#include "etl/etl.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string from;
};

Status EtlDrop(Context& ctx, const Options& o) {
  ASSIGN_OR_RETURN(int64_t from_ms, ctx.ParseTimeArg(o.from, "--from"));
  lake::OpenOptions open;
  open.mode = lake::Mode::kWrite;
  open.command = "etl drop";
  open.clock = &ctx.clock();
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake,
                   ops::OpenWithRetry(ctx.LakeDir(), open, ops::ReaderRetry(ctx.log())));
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  etl::RunOptions options;
  options.progress = progress.get();
  ASSIGN_OR_RETURN(etl::RunReport report, etl::Drop(*lake, from_ms, options));
  progress->Finish();
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
