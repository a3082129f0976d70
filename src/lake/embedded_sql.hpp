// SQL files embedded by the build (cmake/EmbedSql.cmake): (file stem, text) in file-name order.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace predlake::lake {
const std::vector<std::pair<std::string_view, std::string_view>>& EmbeddedSql();
}  // namespace predlake::lake
