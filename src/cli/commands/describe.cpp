#include "ops/describe.hpp"

#include <filesystem>

#include "cli/command.hpp"
#include "cli/read_source.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct DescribeOptions {
  ReadSourceFlags read;
  std::string format = "text";
};

Status Describe(Context& ctx, const DescribeOptions& o) {
  std::unique_ptr<lake::Lake> lake;
  std::error_code ec;
  if (!o.read.from_snapshot && !std::filesystem::exists(ctx.LakePath(), ec)) {
    // A lake that does not exist yet is described as the empty lake it would start as.
    ctx.log().Info("no lake at " + ctx.LakeDir() +
                   " yet (run `predlake update` to create it); showing an empty lake");
    ASSIGN_OR_RETURN(lake, lake::Lake::OpenEmpty(ctx.LakeDir(), &ctx.clock()));
  } else {
    ASSIGN_OR_RETURN(lake, OpenForReading(ctx, o.read));
  }
  ASSIGN_OR_RETURN(ops::Description d, ops::Describe(*lake));
  if (o.format == "json") {
    ops::WriteDescriptionJson(ctx.out(), d);
  } else {
    ops::WriteDescriptionText(ctx.out(), d, ctx.terminal_width());
  }
  return Status::Ok();
}

}  // namespace

RunFn DescribeCommand(OptionSet& args) {
  auto o = std::make_shared<DescribeOptions>();
  DeclareReadSource(args, &o->read);
  args.Format(&o->format, {"text", "json"});
  return [o](Context& ctx) { return Describe(ctx, *o); };
}

}  // namespace predlake::cli
