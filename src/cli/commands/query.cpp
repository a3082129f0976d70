#include "ops/query.hpp"

#include "cli/command.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string sql;
  std::string format = "table";
};

}  // namespace

PREDLAKE_COMMAND(query) {
  return MakeCommand<Options>(
      "query", "run one read-only SQL statement against the lake",
      [](CLI::App& app, Options& o) {
        app.add_option("SQL", o.sql, "the statement (SELECT, SHOW, DESCRIBE, EXPLAIN, ...)")
            ->required();
        AddFormatOption(app, o.format, {"table", "csv", "json"});
      },
      [](Context& ctx, const Options& o) -> Status {
        ASSIGN_OR_RETURN(OutputFormat format, ParseOutputFormat(o.format));
        ASSIGN_OR_RETURN(auto lake, ops::OpenForRead(ctx.LakeDir(), ops::BusyRetry(ctx.log())));
        ASSIGN_OR_RETURN(ResultSet rs, ops::RunReadOnlyQuery(lake->conn(), o.sql));
        ctx.Write(rs, format);
        return Status::Ok();
      });
}

}  // namespace predlake::cli
