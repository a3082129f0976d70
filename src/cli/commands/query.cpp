#include "ops/query.hpp"

#include "cli/command.hpp"
#include "cli/read_source.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct QueryOptions {
  ReadSourceFlags read;
  std::string sql;
  std::string format = "table";
  bool allow_files = false;
};

Status Query(Context& ctx, const QueryOptions& o) {
  ASSIGN_OR_RETURN(OutputFormat format, ParseOutputFormat(o.format));
  ASSIGN_OR_RETURN(auto lake, OpenForReading(ctx, o.read,
                                             o.allow_files ? duck::Reach::kSealedReadFiles
                                                           : duck::Reach::kSealed));
  std::unique_ptr<RowWriter> writer = MakeRowWriter(ctx.out(), format, ctx.terminal_width());
  return ops::StreamReadOnlyQuery(lake->conn(), o.sql, *writer);
}

}  // namespace

RunFn QueryCommand(OptionSet& args) {
  auto o = std::make_shared<QueryOptions>();
  args.Positional("SQL", &o->sql, "the statement (SELECT, SHOW, DESCRIBE, EXPLAIN, ...)")
      .Required();
  DeclareReadSource(args, &o->read);
  args.Format(&o->format, {"table", "csv", "json"});
  args.Flag("--allow-files", &o->allow_files,
            "let the statement read files outside the lake (read_csv, read_parquet, ...); it "
            "still writes nothing and reaches no network");
  return [o](Context& ctx) { return Query(ctx, *o); };
}

}  // namespace predlake::cli
