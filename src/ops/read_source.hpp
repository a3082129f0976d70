// Where a reader (describe, query, runs) reads: the lake, or the current Parquet snapshot
// (src/export) when a writer holds the lake (docs/export.md, "Readers while a writer runs").
#pragma once

#include <memory>
#include <string>

#include "common/log.hpp"
#include "common/status.hpp"
#include "common/time.hpp"
#include "lake/lake.hpp"
#include "ops/open.hpp"

namespace predlake::ops {

enum class ReadSource {
  kAuto,      // the lake; the current snapshot, at once, when the lake is busy; else wait as before
  kLake,      // the lake only (waits up to 2 s for a busy lake, then kBusy)
  kSnapshot,  // the current snapshot only; kData when there is none
};

// --from-lake / --from-snapshot: at most one; both is kUsage.
Result<ReadSource> ReadSourceFromFlags(bool from_lake, bool from_snapshot);

// Opens what `source` says for reading. Reading a snapshot is said on `log` in one informational
// line (stderr; a quiet log drops it): why (the lake is busy, naming its writer, or asked for), the
// snapshot's run, age and checkpoint. `retry` is the wait for a busy lake when no snapshot can
// stand in (ops::BusyRetry for commands). `clock` gives the snapshot's age. Errors: those of
// OpenForRead; kData for a missing or damaged snapshot. `reach` seals what is opened (duck::Reach;
// `query` opens sealed): the lake as OpenSealed does, a snapshot with only its exports folder
// readable.
Result<std::unique_ptr<lake::Lake>> OpenReader(const std::string& lake_dir, ReadSource source,
                                               const RetryOptions& retry, Logger& log,
                                               const Clock& clock,
                                               duck::Reach reach = duck::Reach::kFull);

}  // namespace predlake::ops
