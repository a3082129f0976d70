// The WriterEnv of every writing command: the lake, the clock, the busy retry, and the export
// after a publish when lake_ss.export_after_publish is set (its outcome logged).
#pragma once

#include "cli/command.hpp"
#include "jobs/writer.hpp"

namespace predlake::cli {

// `ctx` must outlive the returned env (its logger and clock are referenced).
jobs::WriterEnv WriterEnvFor(Context& ctx);

// The export options lake_ss sets (grace period, PREDLAKE_FAIL_AT / PREDLAKE_KILL_AT "export:").
exports::ExportOptions ExportOptionsFor(const Context& ctx);

}  // namespace predlake::cli
