// The dashboard's SQL (src/serve/sql/*.sql), embedded by the build (cmake/EmbedSql.cmake):
// (file stem, text) pairs.
#pragma once

#include "duck/sql_text.hpp"

namespace predlake::serve {
const duck::SqlFiles& EmbeddedSql();
}  // namespace predlake::serve
