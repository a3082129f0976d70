#include "export/snapshot.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "duck/duck.hpp"
#include "duck/sql_text.hpp"
#include "export/embedded_sql.hpp"
#include "fmt/format.h"

namespace predlake::exports {
namespace fs = std::filesystem;

const std::vector<ExportTable>& DataTables() {
  static const std::vector<ExportTable> tables = [] {
    std::vector<ExportTable> out;
    for (std::string_view name : lake::kRawTables) {
      out.push_back({name, "raw", Partitioning::kByTimestampDay});
    }
    out.push_back({lake::kOhlcvTable.name, "raw", Partitioning::kByTimestampDay});
    out.push_back({lake::kContractsTable.name, "snapshot", Partitioning::kNone});
    for (std::string_view name : lake::kBuiltTables) {
      // The bronze tables carry the event's `timestamp`; the gold tables are per `day` already.
      const bool bronze = name == lake::kBronzeSlots || name == lake::kBronzePredictions;
      out.push_back(
          {name, "built", bronze ? Partitioning::kByTimestampDay : Partitioning::kByDayColumn});
    }
    return out;
  }();
  return tables;
}

std::string ExportsDir(const std::string& lake_dir) {
  return (fs::path(lake_dir) / kExportsFolder).string();
}

std::string SnapshotFolderName(int64_t run_id) {
  return fmt::format("{}{:06d}", kSnapshotPrefix, run_id);
}

Result<std::optional<Snapshot>> ReadCurrent(const std::string& lake_dir) {
  const fs::path link = fs::path(ExportsDir(lake_dir)) / kCurrentLink;
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(link, ec))) return std::optional<Snapshot>();
  // Resolved once: everything below reads this folder, whatever `current` becomes meanwhile.
  const fs::path target = fs::read_symlink(link, ec);
  if (ec)
    return Status::Data("cannot read the snapshot link " + link.string() + ": " + ec.message());
  const fs::path dir =
      fs::absolute(target.is_absolute() ? target : link.parent_path() / target, ec);
  Snapshot snapshot;
  snapshot.dir = dir.lexically_normal().string();
  Result<nlohmann::json> manifest = ReadManifest(snapshot.dir);
  if (!manifest.ok()) {
    return Status::Data("the current snapshot " + snapshot.dir +
                        " cannot be used: " + manifest.status().message());
  }
  snapshot.manifest = std::move(manifest).value();
  try {
    snapshot.run_id = snapshot.manifest.at("run").get<int64_t>();
    snapshot.created_at_ms = snapshot.manifest.at("created_at_ms").get<int64_t>();
  } catch (const std::exception& e) {
    return Status::Data("the manifest of the snapshot " + snapshot.dir +
                        " is malformed: " + e.what());
  }
  return std::optional<Snapshot>(std::move(snapshot));
}

const nlohmann::json& ManifestArray(const nlohmann::json& object, const std::string& key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (!object.is_object()) return kEmpty;
  const auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

Result<nlohmann::json> ReadManifest(const std::string& dir) {
  const fs::path path = fs::path(dir) / kManifestFile;
  // Read whole, then parsed: nlohmann's stream input goes a character at a time through the
  // streambuf, several times slower for the manifest of a large lake (a thousand parts, 190 KB).
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) return Status::Data("cannot read " + path.string());
  nlohmann::json manifest = nlohmann::json::parse(text.view(), nullptr, false);
  if (manifest.is_discarded()) return Status::Data(path.string() + " is malformed (not JSON)");
  return manifest;
}

std::vector<std::string> SnapshotFiles(const Snapshot& snapshot, std::string_view table) {
  std::vector<std::string> files;
  for (const auto& t : ManifestArray(snapshot.manifest, "tables")) {
    if (t.value("name", "") != table) continue;
    for (const auto& part : ManifestArray(t, "parts")) {
      for (const auto& file : ManifestArray(part, "files")) {
        files.push_back((fs::path(snapshot.dir) / file.get<std::string>()).string());
      }
    }
  }
  return files;
}

Result<std::unique_ptr<lake::Lake>> OpenSnapshot(const std::string& lake_dir,
                                                 const Snapshot& snapshot, const Clock* clock) {
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake, lake::Lake::OpenEmpty(lake_dir, clock));
  duck::Connection& conn = lake->conn();
  for (const auto& t : ManifestArray(snapshot.manifest, "tables")) {
    const std::string name = t.value("name", "");
    std::vector<std::string> files = SnapshotFiles(snapshot, name);
    if (name.empty() || files.empty()) continue;  // the empty table of the lake's schema stays
    std::error_code ec;
    for (const std::string& file : files) {
      if (!fs::exists(file, ec)) {
        return Status::Data("the snapshot " + snapshot.dir + " lacks " + file +
                            " (removed after its grace period?)");
      }
    }
    std::string list;
    for (const std::string& file : files)
      list += (list.empty() ? "" : ", ") + duck::QuoteString(file);
    // The lake's own column order and types, whatever order the files were written in. A column
    // this build added after the snapshot was written (the manifest's schema lacks it) reads as
    // NULL of its type: the layout only ever grows, so an older snapshot stays readable.
    std::set<std::string> written;
    for (const auto& col : ManifestArray(t, "schema")) {
      written.insert(col.value("name", ""));
    }
    ASSIGN_OR_RETURN(std::string cols_sql,
                     duck::EmbeddedSqlText(EmbeddedSql(), "table_schema",
                                           {{"table_name", duck::QuoteString(name)}}));
    ASSIGN_OR_RETURN(duck::QueryResult cols, conn.Query(cols_sql, "read the schema of " + name));
    std::string select;
    for (const auto& row : cols.ToText()) {
      if (row.size() < 2 || !row[0] || !row[1]) continue;
      select += select.empty() ? "" : ", ";
      if (written.empty() || written.count(*row[0]) > 0) {
        select += duck::QuoteIdent(*row[0]);
      } else {
        select += "CAST(NULL AS " + *row[1] + ") AS " + duck::QuoteIdent(*row[0]);
      }
    }
    if (select.empty()) select = "*";  // a table this build does not know: as the files have it
    ASSIGN_OR_RETURN(std::string view_sql, duck::EmbeddedSqlText(EmbeddedSql(), "snapshot_view",
                                                                 {{"table", duck::QuoteIdent(name)},
                                                                  {"columns", select},
                                                                  {"files", list}}));
    RETURN_IF_ERROR(conn.Execute(view_sql, "open the snapshot's " + name));
  }
  return lake;
}

}  // namespace predlake::exports
