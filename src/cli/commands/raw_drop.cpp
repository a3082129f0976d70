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

RunFn RawDropCommand(OptionSet& args) {
  auto o = std::make_shared<Options>();
  args.Time("--from", &o->from, "first timestamp to delete").Required();
  return [o](Context& ctx) { return RawDrop(ctx, *o); };
}

}  // namespace predlake::cli
