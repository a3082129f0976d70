#include "web/web.hpp"

#include <unordered_map>

#include "web/embedded.hpp"

namespace predlake::web {
namespace {

std::string_view ContentTypeOfAsset(std::string_view name) {
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

using AssetTable = std::unordered_map<std::string_view, Asset>;

// Built once, on first use (a function-local static: thread-safe initialisation), never changed.
const AssetTable& Assets() {
  static const AssetTable kTable = [] {
    AssetTable table;
    for (std::size_t i = 0; i < kEmbeddedAssetCount; ++i) {
      const EmbeddedAsset& e = kEmbeddedAssets[i];
      table.emplace(e.name, Asset{e.body, ContentTypeOfAsset(e.name)});
    }
    return table;
  }();
  return kTable;
}

}  // namespace

const Asset* FindAsset(std::string_view name) {
  const AssetTable& table = Assets();
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

}  // namespace predlake::web
