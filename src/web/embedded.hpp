// The table the build generates (cmake/EmbedAssetsScript.cmake, web_embedded_assets.cpp in the
// build folder): every asset's name and bytes. Internal to the web module; use web.hpp.
#pragma once

#include <cstddef>
#include <string_view>

namespace predlake::web {

struct EmbeddedAsset {
  std::string_view name;
  std::string_view body;
};

extern const EmbeddedAsset kEmbeddedAssets[];
extern const std::size_t kEmbeddedAssetCount;

}  // namespace predlake::web
