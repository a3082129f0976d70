#include "cli/writer_env.hpp"

namespace predlake::cli {

exports::ExportOptions ExportOptionsFor(const Context& ctx) {
  exports::ExportOptions options;
  options.grace_ms = ctx.config().lake.export_grace_ms;
  options.faults = exports::ExportFaults::FromEnv();
  return options;
}

jobs::WriterEnv WriterEnvFor(Context& ctx) {
  jobs::WriterEnv env;
  env.lake_dir = ctx.LakeDir();
  env.clock = &ctx.clock();
  env.retry = ops::BusyRetry(ctx.log());
  env.network = ctx.network();
  env.memory_limit = ctx.config().lake.memory_limit;
  if (ctx.config().lake.export_after_publish) {
    env.export_after = ExportOptionsFor(ctx);
    env.on_export = [&ctx](const Result<exports::ExportReport>& report) {
      if (report.ok()) {
        ctx.log().Info(report->message, {{"run", std::to_string(report->run_id)}});
      } else {
        // The publish stands; the failure is in the ledger as a failed "export" run.
        ctx.log().Warn("the export after the publish failed (the publish stands): " +
                       report.status().message());
      }
    };
  }
  return env;
}

}  // namespace predlake::cli
