// `predlake export`: a Parquet snapshot of the lake as a writer run ("export"), and the export that
// follows a publish when lake_ss.export_after_publish is set (jobs/writer.hpp).
#pragma once

#include "export/export.hpp"
#include "jobs/writer.hpp"

namespace predlake::jobs {

inline constexpr std::string_view kExportCommand = "export";

// Opens the lake as writer "export" (RunWriter) and writes a snapshot (exports::Export). Errors:
// the lake's kBusy / kData from opening it; the export's, with the run failed.
Result<exports::ExportReport> RunExport(const WriterEnv& env,
                                        const exports::ExportOptions& options);

}  // namespace predlake::jobs
