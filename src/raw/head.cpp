#include "raw/head.hpp"

#include "raw/record.hpp"

namespace predlake::raw {

Result<Head> FetchHead(gql::Client& client) {
  int64_t waited_ms = 0;
  for (int retry = 1;; ++retry) {
    ASSIGN_OR_RETURN(nlohmann::json data,
                     client.Query("{ _meta { deployment hasIndexingErrors block { number "
                                  "timestamp } } }"));
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
    if (!client.WaitToRetry(
            gql::ErrorKind::kNullHead, retry, waited_ms,
            "_meta: block.timestamp is null (block " + std::to_string(head.block) + ")")) {
      return Status::Source("_meta: block.timestamp stayed null (block " +
                            std::to_string(head.block) + ", after " + std::to_string(retry) +
                            (retry == 1 ? " attempt)" : " attempts)"));
    }
  }
}

}  // namespace predlake::raw
