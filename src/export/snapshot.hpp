// The layout of the Parquet snapshots under <lake_dir>/exports/ (docs/export.md), and reading them.
//
//   exports/
//     current -> run-000042         a symlink, switched with one rename(2)
//     run-000042/                   one folder per snapshot, named by the export run that made it
//       manifest.json               written last; see Manifest
//       pdr_predictions/day=2024-07-12/part-000042-0.parquet
//       pdr_predictions/day=2024-07-14/part-000042-h13-0.parquet   (the newest two days of a table
//                                     partitioned by `timestamp`: one file set per UTC hour)
//       ...
//       pdr_contracts/part-000042-0.parquet        (tables without a day: one folder, no partition)
//       predlake_runs/part-000042-0.parquet        (the ledger and bookkeeping as of the snapshot)
//     .tmp-run-000043/              an export under way (or killed); removed by the next export
//
// Every file holds exactly the table's columns, in the lake's order and types; the `day=` folder is
// the UTC day of the row's `timestamp` (unix ms), or the table's own `day` column for the gold
// tables. A reader that resolves `current` once sees one complete, consistent snapshot.
//
// Nothing here writes; functions are thread-safe (they share no state).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "common/time.hpp"
#include "lake/lake.hpp"

namespace predlake::exports {

inline constexpr std::string_view kExportsFolder = "exports";
inline constexpr std::string_view kCurrentLink = "current";
inline constexpr std::string_view kManifestFile = "manifest.json";
inline constexpr std::string_view kSnapshotPrefix = "run-";
// Prefix of an export under way, and of the temporary symlink a switch renames over `current`.
inline constexpr std::string_view kTempPrefix = ".tmp-";
// Bumped only when a change is not additive (docs/export.md, "Compatibility").
inline constexpr int kLayoutVersion = 1;

// What a snapshot holds, per table: how its folder is partitioned.
enum class Partitioning {
  kByTimestampDay,  // day=YYYY-MM-DD from the UTC day of `timestamp` (unix ms)
  kByDayColumn,     // day=YYYY-MM-DD from the table's DATE column `day` (the gold tables)
  kNone,            // one folder of files (pdr_contracts, bookkeeping)
};

struct ExportTable {
  std::string_view name;
  std::string_view kind;  // "raw", "snapshot", "built", "bookkeeping" (as `describe` says)
  Partitioning partitioning;
};

// The data tables a snapshot holds, in manifest order: the raw tables, pdr_contracts and the built
// tables (all from lake/tables.hpp). The bookkeeping tables (lake::kBookkeepingPrefix: ledger,
// watermarks, checkpoint, meta), whatever the lake has of them, follow unpartitioned.
const std::vector<ExportTable>& DataTables();

// <lake_dir>/exports
std::string ExportsDir(const std::string& lake_dir);
// "run-000042"
std::string SnapshotFolderName(int64_t run_id);

// A snapshot as found on disk.
struct Snapshot {
  std::string dir;  // absolute path of the snapshot folder (`current` resolved)
  int64_t run_id = 0;
  int64_t created_at_ms = 0;
  nlohmann::json manifest;
};

// Resolves <lake_dir>/exports/current once and reads its manifest. nullopt when there is no
// snapshot; kData when `current` points at a folder without a readable manifest.
Result<std::optional<Snapshot>> ReadCurrent(const std::string& lake_dir);

// The array under `key` of the JSON object `object` (a manifest's "tables", a table's "parts" or
// "schema", a part's "files"), by reference: an empty array when `object` is not an object or holds
// no array there. nlohmann's value() copies, which for the manifest of a large lake (a thousand
// parts) costs milliseconds a call. The reference lives as long as `object`.
const nlohmann::json& ManifestArray(const nlohmann::json& object, const std::string& key);

// The manifest of the snapshot folder `dir`, read whole and parsed. kData naming the file when it
// cannot be read or is not JSON.
Result<nlohmann::json> ReadManifest(const std::string& dir);

// Every data file of `table` in `snapshot`, absolute, in manifest order (may be empty).
std::vector<std::string> SnapshotFiles(const Snapshot& snapshot, std::string_view table);

// An in-memory lake whose tables are views over the snapshot's files (a table without files is
// an empty table of the lake's schema), so describe, query and runs read it as they read the
// lake. Watermarks and checkpoint are those the snapshot recorded. A column of this build's schema
// that the snapshot's manifest does not list (written before the column was added) reads as NULL.
// kData when a file is missing or unreadable. The returned lake reads the files lazily: the
// snapshot must stay on disk while it is used (old snapshots are kept for lake_ss.export_grace
// after they stop being current).
Result<std::unique_ptr<lake::Lake>> OpenSnapshot(const std::string& lake_dir,
                                                 const Snapshot& snapshot, const Clock* clock);

}  // namespace predlake::exports
