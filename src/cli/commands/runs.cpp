#include "ops/runs.hpp"

#include "cli/command.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct Options {
  int64_t limit = 20;
  std::string format = "table";
};

}  // namespace

PREDLAKE_COMMAND(runs) {
  return MakeCommand<Options>(
      "runs", "the run ledger, newest first, with per-table counts",
      [](CLI::App& app, Options& o) {
        app.add_option("--limit", o.limit, "show the newest N runs (0: all)")
            ->type_name("N")
            ->check(CLI::NonNegativeNumber)
            ->capture_default_str();
        AddFormatOption(app, o.format, {"table", "csv", "json"});
      },
      [](Context& ctx, const Options& o) -> Status {
        ASSIGN_OR_RETURN(OutputFormat format, ParseOutputFormat(o.format));
        ASSIGN_OR_RETURN(auto lake, ops::OpenForRead(ctx.LakeDir(), ops::BusyRetry(ctx.log())));
        ASSIGN_OR_RETURN(auto runs, ops::ListRuns(lake->conn(), o.limit));
        if (format == OutputFormat::kJson) {
          ops::WriteRunsJson(ctx.out(), runs);
        } else {
          ctx.Write(ops::RunsResultSet(runs), format);
        }
        return Status::Ok();
      });
}

}  // namespace predlake::cli
