#include "jobs/writer.hpp"

#include "jobs/export.hpp"

namespace predlake::jobs {

Result<std::unique_ptr<lake::Lake>> OpenForWrite(const WriterEnv& env, const std::string& command) {
  lake::OpenOptions options;
  options.mode = lake::Mode::kWrite;
  options.command = command;
  options.clock = env.clock;
  options.create = env.create;
  options.memory_limit = env.memory_limit;
  options.close_checkpoint = env.close_checkpoint;
  options.threads = env.threads;
  return ops::OpenWithRetry(env.lake_dir, options, env.retry);
}

Status ClaimNetwork(lake::Lake& lake, const std::string& network) {
  ASSIGN_OR_RETURN(std::optional<std::string> recorded, lake.GetMeta(lake::kMetaNetwork));
  if (!recorded) return lake.SetMeta(lake::kMetaNetwork, network);
  if (*recorded == network) return Status::Ok();
  return Status::Usage("the lake at " + lake.dir() + " holds " + *recorded +
                       " data; refusing to work on it for network " + network + " (use -n " +
                       *recorded + ", or another lake_ss.lake_dir)");
}

Result<Writer> Writer::Open(const WriterEnv& env, std::string command) {
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake, OpenForWrite(env, command));
  if (!env.network.empty()) RETURN_IF_ERROR(ClaimNetwork(*lake, env.network));
  return Writer(env, std::move(command), std::move(lake));
}

Status Writer::RaiseWalCheckpointForChunks() {
  return lake_->conn().Execute(
      "SET checkpoint_threshold = '" + std::to_string(kChunkWalkWalBytes) + " bytes'",
      "raise the WAL's checkpoint threshold for the chunks");
}

void Writer::ExportAfterPublish() {
  if (!env_.export_after) return;
  const exports::ExportOptions& options = *env_.export_after;
  Result<exports::ExportReport> report = Run<exports::ExportReport>(
      std::string(kExportCommand),
      [&](lake::Lake& lake, lake::Run& run) { return exports::Export(lake, run, options); });
  if (env_.on_export) env_.on_export(report);
}

}  // namespace predlake::jobs
