#include "ops/validate.hpp"

#include "cli/command.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string format = "text";
};

}  // namespace

PREDLAKE_COMMAND(validate) {
  return MakeCommand<Options>(
      "validate", "data-quality checks; exit status 1 when a check fails",
      [](CLI::App& app, Options& o) {
        AddFormatOption(app, o.format, {"text", "json"});
      },
      [](Context& ctx, const Options& o) -> Status {
        ASSIGN_OR_RETURN(auto lake, ops::OpenForRead(ctx.LakeDir(), ops::BusyRetry(ctx.log())));
        ASSIGN_OR_RETURN(ops::ValidationReport report, ops::Validate(*lake));
        if (o.format == "json") {
          ops::WriteValidationJson(ctx.out(), report);
        } else {
          ops::WriteValidationText(ctx.out(), report, ctx.terminal_width());
        }
        std::vector<std::string> failed = report.Failed();
        if (failed.empty()) return Status::Ok();
        std::string names;
        for (const std::string& n : failed) names += (names.empty() ? "" : ", ") + n;
        return Status::Validation("validation failed: " + std::to_string(failed.size()) +
                                  " check(s): " + names);
      });
}

}  // namespace predlake::cli
