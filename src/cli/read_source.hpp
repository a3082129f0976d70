// --from-lake / --from-snapshot of the reading commands (describe, query, runs), and opening what
// they choose (ops::OpenReader).
#pragma once

#include <memory>

#include "cli/command.hpp"
#include "lake/lake.hpp"

namespace predlake::cli {

struct ReadSourceFlags {
  bool from_lake = false;
  bool from_snapshot = false;
};

// Declares the two flags on `args`, storing into `flags` (which must outlive the command).
void DeclareReadSource(OptionSet& args, ReadSourceFlags* flags);

// The lake, or the current snapshot when the lake is busy or --from-snapshot asks (said on
// stderr), sealed as `reach` says (ops::OpenReader). kUsage when both flags are given.
Result<std::unique_ptr<lake::Lake>> OpenForReading(Context& ctx, const ReadSourceFlags& flags,
                                                   duck::Reach reach = duck::Reach::kFull);

}  // namespace predlake::cli
