#include "ops/read_source.hpp"

#include <filesystem>

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
                                                        const Clock& clock, duck::Reach reach) {
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake,
                   exports::OpenSnapshot(lake_dir, snapshot, &clock));
  // DuckDB compares the files a view reads with absolute folder prefixes.
  std::error_code ec;
  const std::string exports_dir =
      std::filesystem::absolute(exports::ExportsDir(lake_dir), ec).lexically_normal().string() +
      "/";
  RETURN_IF_ERROR(duck::Seal(lake->conn(), reach, {exports_dir}));
  std::string checkpoint = "no checkpoint";
  if (snapshot.manifest.contains("checkpoint") && snapshot.manifest["checkpoint"].is_object()) {
    checkpoint = "checkpoint " +
                 FormatTime(snapshot.manifest["checkpoint"].value("checkpoint_ms", int64_t{0}));
  }
  // Whole seconds: "130s", not "130123ms".
  const int64_t age = std::max<int64_t>(clock.NowMs() - snapshot.created_at_ms, 0) / 1000 * 1000;
  // Informational (the reader works, on older data): one line, silenced by -q like other notices.
  log.Info(why + "; reading the snapshot of run " + std::to_string(snapshot.run_id) + " (made " +
           FormatDuration(age) + " ago at " + FormatTime(snapshot.created_at_ms) + ", " +
           checkpoint + ")");
  return lake;
}

// The lake for reading, sealed as `reach` says.
Result<std::unique_ptr<lake::Lake>> OpenLake(const std::string& lake_dir, const RetryOptions& retry,
                                             duck::Reach reach) {
  if (reach == duck::Reach::kFull) return OpenForRead(lake_dir, retry);
  return OpenSealed(lake_dir, reach == duck::Reach::kSealedReadFiles, retry);
}

}  // namespace

Result<std::unique_ptr<lake::Lake>> OpenReader(const std::string& lake_dir, ReadSource source,
                                               const RetryOptions& retry, Logger& log,
                                               const Clock& clock, duck::Reach reach) {
  if (source == ReadSource::kLake) return OpenLake(lake_dir, retry, reach);
  if (source == ReadSource::kSnapshot) {
    Result<std::unique_ptr<lake::Lake>> opened = Status::Internal("unreached");
    // A second try when the snapshot resolved went away meanwhile (a newer one is current).
    for (int attempt = 0; attempt < 2; ++attempt) {
      ASSIGN_OR_RETURN(std::optional<exports::Snapshot> snapshot, exports::ReadCurrent(lake_dir));
      if (!snapshot) {
        return Status::Data("no snapshot at " + exports::ExportsDir(lake_dir) +
                            " (run `predlake export`, or set lake_ss.export_after_publish)");
      }
      opened = OpenCurrentSnapshot(lake_dir, *snapshot, "--from-snapshot", log, clock, reach);
      if (opened.ok()) break;
    }
    return opened;
  }
  RetryOptions once = retry;
  once.max_wait_ms = 0;
  Result<std::unique_ptr<lake::Lake>> lake = OpenLake(lake_dir, once, reach);
  if (lake.ok() || lake.status().code() != StatusCode::kBusy) return lake;
  Result<std::optional<exports::Snapshot>> snapshot = exports::ReadCurrent(lake_dir);
  if (snapshot.ok() && snapshot->has_value()) {
    Result<std::unique_ptr<lake::Lake>> from_snapshot =
        OpenCurrentSnapshot(lake_dir, **snapshot, lake.status().message(), log, clock, reach);
    if (from_snapshot.ok()) return from_snapshot;
  }
  // No snapshot to stand in: wait for the writer as readers always did.
  return OpenLake(lake_dir, retry, reach);
}

}  // namespace predlake::ops
