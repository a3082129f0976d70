// `query SQL`: one read-only statement against the lake.
//
// Two locks keep it read-only: the lake is opened read-only (DuckDB refuses writes to the file),
// and before anything runs the statement is parsed and bound and its kind checked, so that
// statements that would write elsewhere (ATTACH another file, COPY TO, EXPORT, SET, ...) are
// refused too.
#pragma once

#include <string>
#include <string_view>

#include "common/status.hpp"
#include "common/table_format.hpp"
#include "duck/duck.hpp"

namespace predlake::ops {

// Counts the statements of `sql` (parsing only) and refuses EXPORT and IMPORT (which act on files
// while merely bound) before anything is bound; then parses and binds it without running it and
// checks that it is exactly one statement that only
// reads: SELECT (which covers FROM-first queries, VALUES, SHOW, DESCRIBE, SUMMARIZE and
// table-valued PRAGMAs) or EXPLAIN of such a statement. Returns the statement's description.
// Errors:
//   kUsage "query is read-only: <KIND> statements are refused" for anything else;
//   kUsage for empty text or more than one statement ("query takes one SQL statement; got N");
//   kData "query: <DuckDB's message on one line>" for bad SQL or unknown tables/columns.
Result<duck::StatementInfo> CheckReadOnly(duck::Connection& conn, std::string_view sql);

// CheckReadOnly, then runs the statement and hands its rows to `out` as DuckDB produces them
// (Begin with the column names and kinds, Add per row, End), so that memory does not grow with
// the result: values rendered exactly as DuckDB casts them to text. Errors as CheckReadOnly, and
// kData "query: <message>" when the statement fails while running (kCancelled when interrupted);
// a failure after Begin leaves `out` without End.
Status StreamReadOnlyQuery(duck::Connection& conn, std::string_view sql, RowWriter& out);

// StreamReadOnlyQuery into a ResultSet: every row, values rendered exactly as DuckDB
// casts them to text (decimals with their scale, NULL as nullopt distinct from ""). Errors as
// CheckReadOnly, and kData "query: <message>" when the statement fails while running.
Result<ResultSet> RunReadOnlyQuery(duck::Connection& conn, std::string_view sql);

}  // namespace predlake::ops
