#include "ops/query.hpp"

#include "cli/command.hpp"
#include "cli/read_source.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct Options {
  ReadSourceFlags read;
  std::string sql;
  std::string format = "table";
};

Status Query(Context& ctx, const Options& o) {
  ASSIGN_OR_RETURN(OutputFormat format, ParseOutputFormat(o.format));
  ASSIGN_OR_RETURN(auto lake, OpenForReading(ctx, o.read));
  ASSIGN_OR_RETURN(ResultSet rs, ops::RunReadOnlyQuery(lake->conn(), o.sql));
  ctx.Write(rs, format);
  return Status::Ok();
}

}  // namespace

RunFn QueryCommand(OptionSet& args) {
  auto o = std::make_shared<Options>();
  args.Positional("SQL", &o->sql, "the statement (SELECT, SHOW, DESCRIBE, EXPLAIN, ...)")
      .Required();
  DeclareReadSource(args, &o->read);
  args.Format(&o->format, {"table", "csv", "json"});
  return [o](Context& ctx) { return Query(ctx, *o); };
}

}  // namespace predlake::cli
