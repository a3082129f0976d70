// The commands that run one ETL job (etl update, etl rebuild, etl drop, raw drop) as writers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "etl/etl.hpp"
#include "jobs/writer.hpp"

namespace predlake::jobs {

enum class EtlJob { kUpdate, kRebuild, kDrop, kRawDrop };

// The ledger's command text of a job: "etl update", "etl rebuild", "etl drop", "raw drop".
std::string EtlCommand(EtlJob job);

struct EtlRequest {
  EtlJob job = EtlJob::kUpdate;
  // For kUpdate and kRebuild: to_ms and st_ms. For every job: progress and faults (the caller
  // passes etl::FaultInjection::FromEnv() to honour PREDLAKE_FAIL_AT / PREDLAKE_KILL_AT).
  etl::UpdateOptions options;
  int64_t from_ms = 0;  // kDrop and kRawDrop: the cut
  // kUpdate and kRebuild: lake_ss.checkpoint_period; the window runs in chunks of this length, one
  // run each (see RunEtl). 0: one window.
  int64_t chunk_ms = 0;
  // The length of a part of a rebuild in parts (below); 0: a pass of the rebuild
  // (etl::Pipeline::kPassMs, 7 days). Shorter parts are for tests: each costs a fixed share of the
  // history's size (docs/scale.md).
  int64_t part_ms = 0;
  // Called with the report of every chunk but the last; may be empty.
  std::function<void(const etl::RunReport&)> on_chunk;
};

// The job under RunWriter (one run named EtlCommand(job)); the job's errors, or the lake's kBusy /
// kData from opening it, unchanged. These jobs change only what is there: a missing lake is kData
// "no lake at DIR" and nothing is created (env.create is ignored). The progress line is finished
// before returning.
//
// With chunk_ms > 0, kUpdate and kRebuild run as runs of at most chunk_ms each, on one open lake.
// A job that builds from the start (kRebuild; kUpdate without a checkpoint or after the start moved
// earlier) over a window longer than chunk_ms is one rebuild of the whole window in parts
// (etl::UpdateOptions::in_parts): each run stages one part (part_ms, by default one 7-day pass of
// the rebuild) into the lake's staged tables and commits it with its position, the last run
// publishes; a kill or an error loses at most the part in flight, and the
// same command run again resumes after the last committed part. Any other kUpdate runs from the
// checkpoint P in incremental chunks up to min(to, P + chunk_ms), each publishing with its
// checkpoint, until a run reaches the requested end or stops short of its chunk's end (the
// frontier). Every chunk is a run named EtlCommand(job). The result is the last chunk's report; an
// error ends the job with it, earlier chunks committed.
Result<etl::RunReport> RunEtl(const WriterEnv& env, const EtlRequest& request);

// True when a chunked job builds from the start (`rebuild`; otherwise when there is no checkpoint
// or options.st_ms moved the start earlier than the checkpoint's) over a window [start,
// min(frontier, options.to_ms)) longer than chunk_ms: then it runs as a rebuild in parts
// (etl::UpdateOptions::in_parts). False when an input table has no watermark yet. Read-only.
Result<bool> BuildsInParts(lake::Lake& lake, const etl::UpdateOptions& options, int64_t chunk_ms,
                           bool rebuild);

}  // namespace predlake::jobs
