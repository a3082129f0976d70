#include "ops/query.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.hpp"
#include "cli/read_source.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct QueryOptions {
  ReadSourceFlags read;
  std::string sql;
  std::string file;
  std::string format = "table";
  bool allow_files = false;
};

// The statement: the SQL argument, the file of -f, or standard input for `-` (either way). A file
// that cannot be read is a usage error, reported before the lake is opened.
Result<std::string> ReadSql(const QueryOptions& o) {
  if (!o.sql.empty() && !o.file.empty()) {
    return Status::Usage("query: give the SQL as an argument or with -f FILE, not both");
  }
  const std::string& from = o.file.empty() ? o.sql : o.file;
  if (from.empty()) {
    return Status::Usage(
        "query: no SQL (give it as an argument, with -f FILE, or as - to read standard input)");
  }
  if (o.file.empty() && from != "-") return from;
  std::stringstream text;
  if (from == "-") {
    text << std::cin.rdbuf();
    if (std::cin.bad()) return Status::Usage("query: cannot read the SQL from standard input");
    return text.str();
  }
  std::error_code ec;
  if (std::filesystem::is_directory(from, ec)) {
    return Status::Usage("query -f " + from + ": cannot read: it is a folder");
  }
  std::ifstream in(from, std::ios::binary);
  if (!in) return Status::Usage("query -f " + from + ": cannot read: " + std::strerror(errno));
  text << in.rdbuf();
  if (in.bad()) return Status::Usage("query -f " + from + ": cannot read: " + std::strerror(errno));
  return text.str();
}

Status Query(Context& ctx, const QueryOptions& o) {
  ASSIGN_OR_RETURN(OutputFormat format, ParseOutputFormat(o.format));
  ASSIGN_OR_RETURN(std::string sql, ReadSql(o));
  ASSIGN_OR_RETURN(auto lake, OpenForReading(ctx, o.read,
                                             o.allow_files ? duck::Reach::kSealedReadFiles
                                                           : duck::Reach::kSealed));
  std::unique_ptr<RowWriter> writer = MakeRowWriter(ctx.out(), format, ctx.terminal_width());
  return ops::StreamReadOnlyQuery(lake->conn(), sql, *writer);
}

}  // namespace

RunFn QueryCommand(OptionSet& args) {
  auto o = std::make_shared<QueryOptions>();
  args.Positional("SQL", &o->sql,
                  "the statement (SELECT, SHOW, DESCRIBE, EXPLAIN, ...); - reads it from "
                  "standard input");
  args.Text("-f,--file", &o->file, "read the statement from FILE (- for standard input)")
      .TypeName("FILE");
  DeclareReadSource(args, &o->read);
  args.Format(&o->format, {"table", "csv", "json"});
  args.Flag("--allow-files", &o->allow_files,
            "let the statement read files outside the lake (read_csv, read_parquet, ...); it "
            "still writes nothing and reaches no network");
  return [o](Context& ctx) { return Query(ctx, *o); };
}

}  // namespace predlake::cli
