#include "jobs/etl.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace predlake::jobs {

std::string EtlCommand(EtlJob job) {
  switch (job) {
    case EtlJob::kUpdate:
      return "etl update";
    case EtlJob::kRebuild:
      return "etl rebuild";
    case EtlJob::kDrop:
      return "etl drop";
    case EtlJob::kRawDrop:
      return "raw drop";
  }
  return "etl";
}

namespace {

// Where the next chunk of a chunked kUpdate (or, first, kRebuild) starts: the checkpoint, or the
// start a first run, a rebuild or a moved-earlier start builds from.
Result<int64_t> EtlChunkPosition(lake::Lake& lake, const etl::UpdateOptions& options,
                                 bool rebuild) {
  ASSIGN_OR_RETURN(etl::Frontier frontier, etl::ComputeFrontier(lake));
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  const int64_t first =
      std::max(frontier.latest_start_ms, options.st_ms.value_or(frontier.latest_start_ms));
  if (!checkpoint) return first;
  if (first < checkpoint->start_ms) return first;  // the start moved earlier: a rebuild
  return rebuild ? checkpoint->start_ms : checkpoint->checkpoint_ms;
}

}  // namespace

Result<bool> BuildsInParts(lake::Lake& lake, const etl::UpdateOptions& options, int64_t chunk_ms,
                           bool rebuild) {
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  ASSIGN_OR_RETURN(int64_t position, EtlChunkPosition(lake, options, true));
  if (!rebuild && checkpoint && position >= checkpoint->start_ms) return false;
  ASSIGN_OR_RETURN(etl::Frontier frontier, etl::ComputeFrontier(lake));
  if (!frontier.frontier_ms) return false;  // the job itself says what is missing
  const int64_t end = std::min(*frontier.frontier_ms, options.to_ms.value_or(INT64_MAX));
  return position < end - chunk_ms;
}

namespace {

Result<etl::RunReport> RunEtlChunked(const WriterEnv& env, const EtlRequest& request) {
  const std::string command = EtlCommand(request.job);
  ASSIGN_OR_RETURN(Writer writer, Writer::Open(env, command));
  EtlJob job = request.job;
  ASSIGN_OR_RETURN(const bool in_parts,
                   BuildsInParts(writer.lake(), request.options, request.chunk_ms,
                                 request.job == EtlJob::kRebuild));
  etl::RunReport last;
  for (int chunk = 0;; ++chunk) {
    etl::UpdateOptions options = request.options;
    // Every chunk is a run of the command that was asked for (docs/runs.md).
    options.command = command;
    std::optional<int64_t> chunk_end;
    if (in_parts) {
      // The whole window as one rebuild, staged one pass per run (etl.hpp, in_parts).
      options.in_parts = true;
      options.part_ms = request.part_ms;
    } else {
      ASSIGN_OR_RETURN(int64_t position, EtlChunkPosition(writer.lake(), options, false));
      if (!options.to_ms || position < *options.to_ms - request.chunk_ms) {
        chunk_end = position + request.chunk_ms;
      }
      if (chunk_end) options.to_ms = chunk_end;
    }
    if (chunk == 0 && (in_parts || chunk_end)) {
      RETURN_IF_ERROR(writer.RaiseWalCheckpointForChunks());
    }
    ASSIGN_OR_RETURN(last,
                     writer.Run<etl::RunReport>(
                         command, [&](lake::Lake& lake, lake::Run& run) -> Result<etl::RunReport> {
                           if (chunk > 0 || chunk_end) {
                             run.detail()["chunk"] = {{"index", chunk + 1}};
                           }
                           return job == EtlJob::kRebuild ? etl::Rebuild(lake, run, options)
                                                          : etl::Update(lake, run, options);
                         }));
    if (in_parts) {
      if (!last.more) break;
    } else if (!chunk_end || !last.changed || last.checkpoint_after_ms.value_or(0) < *chunk_end) {
      // The last chunk reaches the requested end, or stops short of its own at the frontier.
      break;
    }
    if (request.on_chunk) request.on_chunk(last);
  }
  writer.ExportAfterPublish();
  return last;
}

}  // namespace

Result<etl::RunReport> RunEtl(const WriterEnv& env, const EtlRequest& request) {
  const etl::UpdateOptions& options = request.options;
  WriterEnv existing = env;
  existing.create = false;
  if (request.chunk_ms > 0 && (request.job == EtlJob::kUpdate || request.job == EtlJob::kRebuild)) {
    auto report = RunEtlChunked(existing, request);
    if (options.progress != nullptr) options.progress->Finish();
    return report;
  }
  auto report =
      RunWriter<etl::RunReport>(existing, EtlCommand(request.job),
                                [&](lake::Lake& lake, lake::Run& run) -> Result<etl::RunReport> {
                                  switch (request.job) {
                                    case EtlJob::kUpdate:
                                      return etl::Update(lake, run, options);
                                    case EtlJob::kRebuild:
                                      return etl::Rebuild(lake, run, options);
                                    case EtlJob::kDrop:
                                      return etl::Drop(lake, run, request.from_ms, options);
                                    case EtlJob::kRawDrop:
                                      return etl::RawDrop(lake, run, request.from_ms, options);
                                  }
                                  return Status::Internal("unknown ETL job");
                                });
  if (options.progress != nullptr) options.progress->Finish();
  return report;
}

}  // namespace predlake::jobs
