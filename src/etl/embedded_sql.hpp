// The ETL's SQL steps (src/etl/sql/*.sql), embedded by the build: (file stem, text) pairs.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace predlake::etl {
const std::vector<std::pair<std::string_view, std::string_view>>& EmbeddedSql();
}  // namespace predlake::etl
