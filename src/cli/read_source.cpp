#include "cli/read_source.hpp"

#include "ops/read_source.hpp"

namespace predlake::cli {

void DeclareReadSource(OptionSet& args, ReadSourceFlags* flags) {
  args.Flag("--from-lake", &flags->from_lake,
            "read the lake only, waiting for a writer that holds it (no snapshot)");
  args.Flag("--from-snapshot", &flags->from_snapshot,
            "read the current Parquet snapshot (lake_dir/exports/current), not the lake");
}

Result<std::unique_ptr<lake::Lake>> OpenForReading(Context& ctx, const ReadSourceFlags& flags,
                                                   duck::Reach reach) {
  ASSIGN_OR_RETURN(ops::ReadSource source,
                   ops::ReadSourceFromFlags(flags.from_lake, flags.from_snapshot));
  return ops::OpenReader(ctx.LakeDir(), source, ops::BusyRetry(ctx.log()), ctx.log(), ctx.clock(),
                         reach);
}

}  // namespace predlake::cli
