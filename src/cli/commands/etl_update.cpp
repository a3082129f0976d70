#include "cli/command.hpp"
#include "cli/etl_job.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string to;  // empty: lake_ss.fin_timestr
};

Status EtlUpdate(Context& ctx, const Options& o) {
  etl::UpdateOptions options;
  if (o.to.empty()) {
    ASSIGN_OR_RETURN(int64_t fin_ms, ctx.FinMs());
    options.to_ms = fin_ms;
  } else {
    ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
    options.to_ms = to_ms;
  }
  ASSIGN_OR_RETURN(int64_t st_ms, ctx.StartMs());
  options.st_ms = st_ms;
  return RunEtlJob(ctx, "etl update", [&](lake::Lake& lake, Progress* progress) {
    options.progress = progress;
    return etl::Update(lake, options);
  });
}

}  // namespace

RunFn EtlUpdateCommand(OptionSet& args) {
  auto o = std::make_shared<Options>();
  args.Time("--to", &o->to,
            "end of the window (default lake_ss.fin_timestr; capped at the frontier)");
  return [o](Context& ctx) { return EtlUpdate(ctx, *o); };
}

}  // namespace predlake::cli
