#include "ops/runs.hpp"

#include "cli/command.hpp"
#include "cli/read_source.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct RunsOptions {
  ReadSourceFlags read;
  int64_t limit = 20;
  std::string format = "table";
};

Status Runs(Context& ctx, const RunsOptions& o) {
  ASSIGN_OR_RETURN(OutputFormat format, ParseOutputFormat(o.format));
  ASSIGN_OR_RETURN(auto lake, OpenForReading(ctx, o.read));
  ASSIGN_OR_RETURN(auto runs, ops::ListRuns(lake->conn(), o.limit));
  if (format == OutputFormat::kJson) {
    ops::WriteRunsJson(ctx.out(), runs);
  } else {
    ctx.Write(ops::RunsResultSet(runs), format);
  }
  return Status::Ok();
}

}  // namespace

RunFn RunsCommand(OptionSet& args) {
  auto o = std::make_shared<RunsOptions>();
  args.Integer("--limit", &o->limit, "show the newest N runs (0: all)").TypeName("N").Range(0);
  DeclareReadSource(args, &o->read);
  args.Format(&o->format, {"table", "csv", "json"});
  return [o](Context& ctx) { return Runs(ctx, *o); };
}

}  // namespace predlake::cli
