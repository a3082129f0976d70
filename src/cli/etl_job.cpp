#include "cli/etl_job.hpp"

#include "ops/open.hpp"

namespace predlake::cli {

Status RunEtlJob(Context& ctx, const std::string& command, const EtlJob& job) {
  lake::OpenOptions open;
  open.mode = lake::Mode::kWrite;
  open.command = command;
  open.clock = &ctx.clock();
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake,
                   ops::OpenWithRetry(ctx.LakeDir(), open, ops::ReaderRetry(ctx.log())));
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  ASSIGN_OR_RETURN(etl::RunReport report, job(*lake, progress.get()));
  progress->Finish();
  ctx.log().Info(report.message, {{"run", std::to_string(report.run_id)}});
  return Status::Ok();
}

}  // namespace predlake::cli
