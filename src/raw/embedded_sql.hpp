// The raw store's SQL (src/raw/sql/*.sql), embedded by the build (cmake/EmbedSql.cmake):
// (file stem, text) pairs.
#pragma once

#include "duck/sql_text.hpp"

namespace predlake::raw {
const duck::SqlFiles& EmbeddedSql();
}  // namespace predlake::raw
