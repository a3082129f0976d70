#include "jobs/export.hpp"

namespace predlake::jobs {

Result<exports::ExportReport> RunExport(const WriterEnv& env,
                                        const exports::ExportOptions& options) {
  WriterEnv plain = env;
  plain.export_after.reset();  // the export itself is the publish
  return RunWriter<exports::ExportReport>(
      plain, std::string(kExportCommand),
      [&](lake::Lake& lake, lake::Run& run) { return exports::Export(lake, run, options); });
}

}  // namespace predlake::jobs
