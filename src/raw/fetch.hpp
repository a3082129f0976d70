// Fetching one raw table's window from the subgraph, page by page, with a (timestamp, id) cursor.
//
// A window [from_ms, end_ms) in ms is asked for in subgraph seconds [ceil(from/1000),
// ceil(end/1000)). Pages are read in (cursor, id) order, where the cursor is `timestamp` (or `slot`
// for predictSlots): the first query takes `cursor_gte: S`; after a full page ending at (T, X) the
// next request asks, in one document, for the rest of the tie group (`cursor: T, id_gt: X` ordered
// by id) and for what follows it (`cursor_gt: T`). `skip` is never used, so a window of any length
// costs one request per page and no event is skipped, however many share a timestamp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "raw/contracts.hpp"
#include "raw/record.hpp"
#include "raw/schema.hpp"
#include "source/gql/client.hpp"

namespace predlake::raw {

inline constexpr int kMaxPageSize = 1000;  // The Graph's limit on `first`

// How one raw table is read from the subgraph.
struct FetchSpec {
  const TableDef* table = nullptr;
  std::string_view entity;        // "predictPredictions"
  std::string_view cursor_field;  // "timestamp" or "slot" (seconds either way)
  std::string_view selection;     // "{ id timestamp ... }"
  // Fills `row` from a record. Sets the reader's error for bad fields; returns a kSource error for
  // other problems (an unknown contract). Messages omit the table and record id.
  Status (*convert)(RecordReader& record, const ContractMap& contracts, Row& row) = nullptr;
};

// The spec of raw table `table`, or nullptr.
const FetchSpec* FindFetchSpec(std::string_view table);

struct Page {
  int number = 0;  // 1-based within the window
  std::vector<Row> rows;
  // Every event of the window with timestamp < watermark_ms is in this page or an earlier one.
  int64_t watermark_ms = 0;
  bool last = false;  // the window is complete; watermark_ms is its end
};

// Walks one window. Not thread-safe; uses the caller's client.
class Pager {
 public:
  Pager(const FetchSpec& spec, const ContractMap& contracts, int64_t from_ms, int64_t end_ms,
        int page_size = kMaxPageSize);

  // Fetches the next page. A page the server finds too large or too slow ("exceeds the limit",
  // "Query timed out") is asked again with half the page size, down to 1, which later pages keep.
  // Must not be called after a page with last = true. On failure returns a
  // kSource status naming the page ("page 3: ..."), or the record ("page 3: record <id>: field `x`
  // is missing"); the caller adds table and window.
  Result<Page> Next(gql::Client& client);

  bool done() const { return done_; }
  int page_size() const { return page_size_; }

 private:
  std::string Query() const;
  Status ConvertList(const nlohmann::json& data, std::string_view key, int page,
                     std::vector<Row>& rows, std::optional<std::pair<int64_t, std::string>>& last,
                     size_t& count) const;

  const FetchSpec& spec_;
  const ContractMap& contracts_;
  int64_t from_ms_, end_ms_;
  int64_t from_s_, end_s_;
  int page_size_;
  int pages_ = 0;
  bool done_ = false;
  // (cursor value, id) of the last row of the previous full page.
  std::optional<std::pair<int64_t, std::string>> cursor_;
};

// ceil(ms / 1000) for any sign.
int64_t CeilSeconds(int64_t ms);

}  // namespace predlake::raw
