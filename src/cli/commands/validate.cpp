#include "ops/validate.hpp"

#include <fmt/ranges.h>

#include "cli/command.hpp"
#include "cli/writer_env.hpp"
#include "jobs/writer.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct ValidateOptions {
  std::string format = "text";
  bool incremental = false;
};

// --incremental: a writer (it records where it got to), one run in the ledger, checking what
// changed since the mark the last clean incremental run recorded; the mark moves only when no
// check failed, so a finding is reported again until it is repaired. No mark yet (or one that does
// not parse): every check runs in full and the mark is recorded. The run succeeds either way (the
// findings are the command's outcome, in its exit status and the run's detail).
Result<ops::ValidationReport> ValidateIncremental(Context& ctx) {
  jobs::WriterEnv env = WriterEnvFor(ctx);
  // It reads every network's lake, and exports nothing.
  env.network.clear();
  env.export_after.reset();
  env.create = false;
  return jobs::RunWriter<ops::ValidationReport>(
      env, std::string(ops::kValidateIncrementalCommand),
      [&](lake::Lake& lake, lake::Run& run) -> Result<ops::ValidationReport> {
        ASSIGN_OR_RETURN(ops::ValidateMark now, ops::CurrentMark(lake));
        ASSIGN_OR_RETURN(auto recorded, lake.GetMeta(ops::kMetaValidateMark));
        ops::ValidateOptions options;
        options.memory_limit = ops::kValidateMemoryLimit;
        if (recorded) options.since = ops::ValidateMark::FromJson(*recorded);
        if (options.since) {
          ctx.log().Info("validate --incremental: what changed since run " +
                         std::to_string(options.since->run_id));
        } else {
          ctx.log().Info("validate --incremental: no earlier incremental run; checking everything");
        }
        ASSIGN_OR_RETURN(ops::ValidationReport report, ops::Validate(lake, options));
        const std::vector<std::string> failed = report.Failed();
        run.detail()["since_run"] =
            options.since ? nlohmann::ordered_json(options.since->run_id) : nullptr;
        run.detail()["checks"] = report.checks.size();
        run.detail()["failed"] = failed;
        run.detail()["mark_moved"] = failed.empty();
        ASSIGN_OR_RETURN(duck::Transaction tx, duck::Transaction::Begin(lake.conn()));
        if (failed.empty()) RETURN_IF_ERROR(lake.SetMeta(ops::kMetaValidateMark, now.ToJson()));
        RETURN_IF_ERROR(run.Finish());
        RETURN_IF_ERROR(tx.Commit());
        return report;
      });
}

Status Validate(Context& ctx, const ValidateOptions& o) {
  ops::ValidationReport report;
  if (o.incremental) {
    ASSIGN_OR_RETURN(report, ValidateIncremental(ctx));
  } else {
    ASSIGN_OR_RETURN(auto lake, ops::OpenForRead(ctx.LakeDir(), ops::BusyRetry(ctx.log())));
    ops::ValidateOptions options;
    options.memory_limit = ops::kValidateMemoryLimit;
    ASSIGN_OR_RETURN(report, ops::Validate(*lake, options));
  }
  ctx.log().Debug("validate steps (ms, wall/cpu): " + ops::DescribeStepTimes(report));
  if (o.format == "json") {
    ops::WriteValidationJson(ctx.out(), report);
  } else {
    ops::WriteValidationText(ctx.out(), report, ctx.terminal_width());
  }
  std::vector<std::string> failed = report.Failed();
  if (failed.empty()) return Status::Ok();
  const std::string names = fmt::format("{}", fmt::join(failed, ", "));
  return Status::Validation("validation failed: " + std::to_string(failed.size()) +
                            " check(s): " + names);
}

}  // namespace

RunFn ValidateCommand(OptionSet& args) {
  auto o = std::make_shared<ValidateOptions>();
  args.Format(&o->format, {"text", "json"});
  args.Flag("--incremental", &o->incremental,
            "check only what changed since the last clean `validate --incremental` (records it)");
  return [o](Context& ctx) { return Validate(ctx, *o); };
}

}  // namespace predlake::cli
