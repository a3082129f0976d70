// Internal to the ETL module: the maintained set of waiting update events (predlake_waiting,
// docs/etl.md "Waiting updates"), kept exact by every publish inside its transaction so that
// readers (describe, serve's metrics) count it instead of joining raw against the built tables.
//
// The set is current while predlake_meta's kMetaWaitingFor equals the checkpoint's stamp
// "start_ms:checkpoint_ms:run_id"; a writer that moves the checkpoint without maintaining the set
// (or an older predlake) leaves the stamps different, and readers then compute it from raw.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.hpp"
#include "etl/pipeline.hpp"
#include "lake/lake.hpp"

namespace predlake::etl {

inline constexpr std::string_view kMetaWaitingFor = "etl_waiting_for";

// The checkpoint's stamp ("" when there is none), as recorded in predlake_checkpoint.
Result<std::string> CheckpointStamp(lake::Lake& lake);

// Calls `body` with `params` (which hold S and C) plus lo and hi, once for each range of
// lake::kPassRangeSlots slots that together cover the slots of every payout and trueval with
// S <= timestamp < C, lowest first, then once with lo > hi (the events whose slot is NULL), so
// that waiting.sql and waiting_full.sql join one range of the lake at a time (bounded memory; a
// 60M-prediction lake's whole join did not fit validate's 1 GB). Returns the first error.
Status ForEachWaitingSlotRange(lake::Lake& lake, const Params& params,
                               const std::function<Status(const Params&)>& body);

// Maintains predlake_waiting around a publish, inside the publish transaction. Construct it (and
// call Prepare) before Pipeline::Publish, call Finish after the new checkpoint is set (or cleared).
// kUpdate with a current set: incremental over the window [C, F); kRollback with a current set:
// incremental over the rolled-back range; otherwise the set is computed from scratch over
// [S, checkpoint).
class WaitingMaintenance {
 public:
  WaitingMaintenance(lake::Lake& lake, Job job, Params params)
      : lake_(lake), job_(job), params_(std::move(params)) {}
  // Before the publish: whether the set is current, and the rollback's slot bounds.
  Status Prepare();
  // After the publish and the checkpoint: the set for the new checkpoint and its stamp.
  Status Finish();

 private:
  Status Run(std::string_view stem);
  Status ReadParams(std::string_view stem);

  lake::Lake& lake_;
  Job job_;
  Params params_;
  bool current_ = false;
};

}  // namespace predlake::etl
