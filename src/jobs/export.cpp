#include "jobs/export.hpp"

namespace predlake::jobs {

void ExportAfterPublish(const WriterEnv& env, lake::Lake& lake) {
  Result<exports::ExportReport> report = [&]() -> Result<exports::ExportReport> {
    ASSIGN_OR_RETURN(lake::Run run, lake.BeginRun(std::string(kExportCommand)));
    Result<exports::ExportReport> r = exports::Export(lake, run, *env.export_after);
    if (!r.ok()) return run.Fail(r.status());
    return r;
  }();
  if (env.on_export) env.on_export(report);
}

Result<exports::ExportReport> RunExport(const WriterEnv& env,
                                        const exports::ExportOptions& options) {
  WriterEnv plain = env;
  plain.export_after.reset();  // the export itself is the publish
  return RunWriter<exports::ExportReport>(
      plain, std::string(kExportCommand),
      [&](lake::Lake& lake, lake::Run& run) { return exports::Export(lake, run, options); });
}

}  // namespace predlake::jobs
