#include "ops/describe.hpp"

#include "cli/command.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string format = "text";
};

}  // namespace

PREDLAKE_COMMAND(describe) {
  return MakeCommand<Options>(
      "describe", "tables, row counts, time ranges, watermarks, checkpoint, frontier, last runs",
      [](CLI::App& app, Options& o) {
        AddFormatOption(app, o.format, {"text", "json"});
      },
      [](Context& ctx, const Options& o) -> Status {
        ASSIGN_OR_RETURN(auto lake, ops::OpenForRead(ctx.LakeDir(), ops::ReaderRetry(ctx.log())));
        ASSIGN_OR_RETURN(ops::Description d, ops::Describe(*lake));
        if (o.format == "json") {
          ops::WriteDescriptionJson(ctx.out(), d);
        } else {
          ops::WriteDescriptionText(ctx.out(), d, ctx.terminal_width());
        }
        return Status::Ok();
      });
}

}  // namespace predlake::cli
