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

RunFn EtlDropCommand(OptionSet& args) {
  auto o = std::make_shared<Options>();
  args.Time("--from", &o->from, "the new checkpoint").Required();
  return [o](Context& ctx) { return EtlDrop(ctx, *o); };
}

}  // namespace predlake::cli
