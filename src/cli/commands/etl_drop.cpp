#include "cli/command.hpp"
#include "cli/etl_job.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string from;
};

Status EtlDrop(Context& ctx, const Options& o) {
  ASSIGN_OR_RETURN(int64_t from_ms, ctx.ParseTimeArg(o.from, "--from"));
  return RunEtlJob(ctx, "etl drop", [&](lake::Lake& lake, Progress* progress) {
    etl::RunOptions options;
    options.progress = progress;
    return etl::Drop(lake, from_ms, options);
  });
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
