// SQL kept in `.sql` files that the build embeds (cmake/EmbedSql.cmake gives each module an
// EmbeddedSql(): (file stem, text) pairs): a file found by its name, its `${name}` placeholders
// filled in. Values are SQL text the caller makes from the lake's own definitions and fixed lists
// (identifiers through QuoteIdent, literals through QuoteString, numbers, other embedded files),
// never from text that comes from outside: what comes from outside is bound as a parameter.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/embedded_sql.hpp"
#include "common/status.hpp"

namespace predlake::duck {

// A module's embedded files: (file stem, text), as EmbeddedSql() returns them. These functions are
// common/embedded_sql.hpp's lookup and substitution returning a Status instead of aborting, for
// callers whose values are built at run time (the dashboard's sort keys, the export's filters).
using predlake::SqlFiles;

// One placeholder's value: `${name}` becomes `text`.
struct SqlValue {
  std::string_view name;
  std::string text;
};

// The text of the file named `name` (its stem) in `files`. kInternal when there is none.
Result<std::string_view> FindSql(const SqlFiles& files, std::string_view name);

// `text` with every `${name}` replaced by its value (inserted as it is, not scanned again).
// kInternal, naming `context`, when a placeholder has no value.
Result<std::string> FillSql(std::string_view text, const std::vector<SqlValue>& values,
                            std::string_view context);

// FindSql, then FillSql.
Result<std::string> EmbeddedSqlText(const SqlFiles& files, std::string_view name,
                                    const std::vector<SqlValue>& values = {});

}  // namespace predlake::duck
