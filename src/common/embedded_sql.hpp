// SQL kept in .sql files that the build embeds (cmake/EmbedSql.cmake, predlake_embed_sql): each
// module's files become a table of (file stem, text) pairs, returned by a generated function
// declared in a generated header (e.g. "etl/embedded_sql.hpp", "lake/bookkeeping_sql.hpp").
// A file is named by what its statement does; a statement that varies with its caller takes
// values as prepared-statement parameters ($1, $2, ...), or, for what a parameter cannot be (a
// table name, a condition, a list of rows), ${name} placeholders that FillSql replaces.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace predlake {

using SqlFiles = std::vector<std::pair<std::string_view, std::string_view>>;

// The text of the file named `stem` in `files`; nullopt when there is none.
std::optional<std::string_view> FindSqlText(const SqlFiles& files, std::string_view stem);

// `text` with every ${name} replaced by value_of(name), inserted as it is (not scanned again).
// nullopt, with `*error` saying why, when a placeholder is unclosed or value_of has no value for
// it. The one substitution behind FillSql (which aborts) and duck::FillSql (which returns a
// Status).
std::optional<std::string> SubstituteSql(
    std::string_view text,
    const std::function<std::optional<std::string_view>(std::string_view name)>& value_of,
    std::string* error);

// The text of the file named `stem` in `files`. A stem that is not there is a build error (the
// file was renamed or removed): it aborts, naming it, so that every test that reaches the
// statement finds it.
std::string_view SqlText(const SqlFiles& files, std::string_view stem);

// `text` with every ${name} replaced by its value in `values` (the text as is: the caller quotes
// identifiers and strings, duck::QuoteIdent / QuoteString). A placeholder without a value, or a
// value nobody asked for, is a build error and aborts, naming both.
std::string FillSql(std::string_view text,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> values);

// SqlText then FillSql.
std::string FillSql(const SqlFiles& files, std::string_view stem,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> values);

}  // namespace predlake
