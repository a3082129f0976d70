#include "raw/head.hpp"

#include <algorithm>

#include "raw/record.hpp"

namespace predlake::raw {
namespace {

// A head whose `block.timestamp` stays null this many reads is given the time of its data instead.
constexpr int kNullTimestampReads = 3;

// The time of the indexed head from the data at a block at or after `block` (the client is
// pinned to it): the newest event timestamp of the timestamped entities, read with the served
// block in the same query, so that the window never passes what that block holds. Events of
// later blocks all have later timestamps, so the window [W, that time) is complete there.
Result<Head> HeadFromData(gql::Client& client, Head head) {
  const std::optional<int64_t> pinned = client.min_block();
  client.set_min_block(head.block);
  auto data = client.Query(
      "{ _meta { block { number } } "
      "p: predictPredictions(first: 1, orderBy: timestamp, orderDirection: desc) { timestamp } "
      "t: predictTrueVals(first: 1, orderBy: timestamp, orderDirection: desc) { timestamp } "
      "y: predictPayouts(first: 1, orderBy: timestamp, orderDirection: desc) { timestamp } "
      "s: predictSubscriptions(first: 1, orderBy: timestamp, orderDirection: desc) { timestamp } "
      "}");
  client.set_min_block(pinned);
  if (!data.ok()) return data.status().WithContext("deriving the head's time from its data");
  RecordReader r(*data);
  const int64_t served = r.Int("_meta.block.number");
  int64_t newest = -1;
  for (const char* entity : {"p", "t", "y", "s"}) {
    const nlohmann::json* rows = r.Find(entity);
    if (rows == nullptr || !rows->is_array() || rows->empty()) continue;
    RecordReader row((*rows)[0]);
    newest = std::max(newest, row.Int("timestamp") * 1000);
    if (!row.ok()) return Status::Source("deriving the head's time: " + row.status().message());
  }
  if (!r.ok()) return Status::Source("deriving the head's time: " + r.status().message());
  if (newest < 0) {
    return Status::Source("_meta: block.timestamp stayed null (block " +
                          std::to_string(head.block) +
                          ") and the subgraph holds no event to take the head's time from");
  }
  head.block = std::max(head.block, served);
  head.timestamp_ms = newest;
  head.time_from_data = true;
  return head;
}

}  // namespace

Result<Head> FetchHead(gql::Client& client) {
  int64_t waited_ms = 0;
  for (int retry = 1;; ++retry) {
    ASSIGN_OR_RETURN(nlohmann::json data,
                     client.Query("{ _meta { deployment hasIndexingErrors block { number "
                                  "timestamp } } }"));
    if (!data.contains("_meta") || data["_meta"].is_null()) {
      // `{"data": {}}` (a node still starting, a gateway's empty answer): asked again.
      if (!client.WaitToRetry(gql::ErrorKind::kMalformed, retry, waited_ms,
                              "_meta: missing from the answer")) {
        return Status::Source("_meta: missing from the answer (after " + std::to_string(retry) +
                              (retry == 1 ? " attempt)" : " attempts)"));
      }
      continue;
    }
    RecordReader r(data);
    Head head;
    head.block = r.Int("_meta.block.number");
    head.deployment = r.String("_meta.deployment");
    head.has_indexing_errors = r.Bool("_meta.hasIndexingErrors");
    const bool has_timestamp = r.ok() && r.Find("_meta.block.timestamp") != nullptr;
    if (has_timestamp) head.timestamp_ms = r.Int("_meta.block.timestamp") * 1000;
    if (!r.ok()) return Status::Source("_meta: " + r.status().message());
    if (has_timestamp) {
      if (head.timestamp_ms < 0) {
        return Status::Source("_meta: negative block timestamp " +
                              std::to_string(head.timestamp_ms / 1000));
      }
      return head;
    }
    // graph-node versions and chains that do not store block timestamps keep it null: after a
    // few reads, the head's time comes from its data.
    if (retry >= kNullTimestampReads) return HeadFromData(client, std::move(head));
    if (!client.WaitToRetry(
            gql::ErrorKind::kNullHead, retry, waited_ms,
            "_meta: block.timestamp is null (block " + std::to_string(head.block) + ")")) {
      return HeadFromData(client, std::move(head));
    }
  }
}

}  // namespace predlake::raw
