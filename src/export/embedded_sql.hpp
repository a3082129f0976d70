// The export's SQL (src/export/sql/*.sql), embedded by the build (cmake/EmbedSql.cmake):
// (file stem, text) pairs.
#pragma once

#include "duck/sql_text.hpp"

namespace predlake::exports {
const duck::SqlFiles& EmbeddedSql();
}  // namespace predlake::exports
