#include "ops/validate.hpp"

#include "cli/command.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct ValidateOptions {
  std::string format = "text";
};

Status Validate(Context& ctx, const ValidateOptions& o) {
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
}

}  // namespace

RunFn ValidateCommand(OptionSet& args) {
  auto o = std::make_shared<ValidateOptions>();
  args.Format(&o->format, {"text", "json"});
  return [o](Context& ctx) { return Validate(ctx, *o); };
}

}  // namespace predlake::cli
