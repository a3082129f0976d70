// Shared body of the commands that run one ETL job (etl update, etl rebuild, etl drop, raw drop):
// open the lake as its writer (retrying briefly while a reader holds it), run the job with a
// terminal progress line, and log the job's one-line summary.
#pragma once

#include <functional>
#include <string>

#include "cli/command.hpp"
#include "etl/etl.hpp"

namespace predlake::cli {

using EtlJob = std::function<Result<etl::RunReport>(lake::Lake&, Progress*)>;

// Returns the job's error (or the lake's kBusy/kData from opening it) unchanged.
Status RunEtlJob(Context& ctx, const std::string& command, const EtlJob& job);

}  // namespace predlake::cli
