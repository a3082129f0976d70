#include "ops/read_source.hpp"

#include "export/snapshot.hpp"

namespace predlake::ops {

Result<ReadSource> ReadSourceFromFlags(bool from_lake, bool from_snapshot) {
  if (from_lake && from_snapshot) {
    return Status::Usage("--from-lake and --from-snapshot exclude each other");
  }
  if (from_lake) return ReadSource::kLake;
  if (from_snapshot) return ReadSource::kSnapshot;
  return ReadSource::kAuto;
}

namespace {

Result<std::unique_ptr<lake::Lake>> OpenCurrentSnapshot(const std::string& lake_dir,
                                                        const exports::Snapshot& snapshot,
                                                        const std::string& why, Logger& log,
                                                        const Clock& clock) {
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake,
                   exports::OpenSnapshot(lake_dir, snapshot, &clock));
  std::string checkpoint = "no checkpoint";
  if (snapshot.manifest.contains("checkpoint") && snapshot.manifest["checkpoint"].is_object()) {
    checkpoint = "checkpoint " +
                 FormatTime(snapshot.manifest["checkpoint"].value("checkpoint_ms", int64_t{0}));
  }
  // Whole seconds: "130s", not "130123ms".
  const int64_t age = std::max<int64_t>(clock.NowMs() - snapshot.created_at_ms, 0) / 1000 * 1000;
  log.Warn(why + "; reading the snapshot of run " + std::to_string(snapshot.run_id) + " (made " +
           FormatDuration(age) + " ago at " + FormatTime(snapshot.created_at_ms) + ", " +
           checkpoint + ")");
  return lake;
}

}  // namespace

Result<std::unique_ptr<lake::Lake>> OpenReader(const std::string& lake_dir, ReadSource source,
                                               const RetryOptions& retry, Logger& log,
                                               const Clock& clock) {
  if (source == ReadSource::kLake) return OpenForRead(lake_dir, retry);
  if (source == ReadSource::kSnapshot) {
    Result<std::unique_ptr<lake::Lake>> opened = Status::Internal("unreached");
    // A second try when the snapshot resolved went away meanwhile (a newer one is current).
    for (int attempt = 0; attempt < 2; ++attempt) {
      ASSIGN_OR_RETURN(std::optional<exports::Snapshot> snapshot, exports::ReadCurrent(lake_dir));
      if (!snapshot) {
        return Status::Data("no snapshot at " + exports::ExportsDir(lake_dir) +
                            " (run `predlake export`, or set lake_ss.export_after_publish)");
      }
      opened = OpenCurrentSnapshot(lake_dir, *snapshot, "--from-snapshot", log, clock);
      if (opened.ok()) break;
    }
    return opened;
  }
  RetryOptions once = retry;
  once.max_wait_ms = 0;
  Result<std::unique_ptr<lake::Lake>> lake = OpenForRead(lake_dir, once);
  if (lake.ok() || lake.status().code() != StatusCode::kBusy) return lake;
  Result<std::optional<exports::Snapshot>> snapshot = exports::ReadCurrent(lake_dir);
  if (snapshot.ok() && snapshot->has_value()) {
    Result<std::unique_ptr<lake::Lake>> from_snapshot =
        OpenCurrentSnapshot(lake_dir, **snapshot, lake.status().message(), log, clock);
    if (from_snapshot.ok()) return from_snapshot;
  }
  // No snapshot to stand in: wait for the writer as readers always did.
  return OpenForRead(lake_dir, retry);
}

}  // namespace predlake::ops
