// The commands that run one ETL job (etl update, etl rebuild, etl drop, raw drop) as writers.
#pragma once

#include <cstdint>
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
};

// The job under RunWriter (one run named EtlCommand(job)); the job's errors, or the lake's kBusy /
// kData from opening it, unchanged. These jobs change only what is there: a missing lake is kData
// "no lake at DIR" and nothing is created (env.create is ignored). The progress line is finished
// before returning.
Result<etl::RunReport> RunEtl(const WriterEnv& env, const EtlRequest& request);

}  // namespace predlake::jobs
