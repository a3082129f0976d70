#include "cli/command.hpp"
#include "cli/etl_job.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string from;
};

Status RawDrop(Context& ctx, const Options& o) {
  ASSIGN_OR_RETURN(int64_t from_ms, ctx.ParseTimeArg(o.from, "--from"));
  return RunEtlJob(ctx, "raw drop", [&](lake::Lake& lake, Progress* progress) {
    etl::RunOptions options;
    options.progress = progress;
    return etl::RawDrop(lake, from_ms, options);
  });
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
