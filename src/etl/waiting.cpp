#include "etl/waiting.hpp"

#include <algorithm>

#include "duck/duck.hpp"

namespace predlake::etl {

Result<std::string> CheckpointStamp(lake::Lake& lake) {
  ASSIGN_OR_RETURN(auto result,
                   lake.conn().Query("SELECT start_ms, checkpoint_ms, coalesce(run_id, -1) FROM "
                                     "predlake_checkpoint WHERE id = 1",
                                     "etl: read checkpoint stamp"));
  auto chunk = result.NextChunk();
  if (!chunk || chunk->size() == 0) return std::string();
  return std::to_string(chunk->GetInt64(0, 0)) + ":" + std::to_string(chunk->GetInt64(1, 0)) + ":" +
         std::to_string(chunk->GetInt64(2, 0));
}

Result<bool> WaitingIsCurrent(lake::Lake& lake) {
  ASSIGN_OR_RETURN(std::string stamp, CheckpointStamp(lake));
  if (stamp.empty()) return false;
  ASSIGN_OR_RETURN(auto recorded, lake.GetMeta(kMetaWaitingFor));
  return recorded && *recorded == stamp;
}

Status ForEachWaitingSlotRange(lake::Lake& lake, const Params& params,
                               const std::function<Status(const Params&)>& body) {
  constexpr std::string_view kBounds = "waiting_slot_bounds";
  ASSIGN_OR_RETURN(std::string sql, RenderStep(kBounds, params));
  ASSIGN_OR_RETURN(auto result, lake.conn().Query(sql, "etl: " + std::string(kBounds)));
  auto chunk = result.NextChunk();
  if (!chunk || chunk->size() != 1) {
    return Status::Internal("etl: " + std::string(kBounds) + " did not return one row");
  }
  const int64_t first = chunk->GetInt64(0, 0);
  const int64_t last = chunk->GetInt64(1, 0);
  Params range = params;
  for (int64_t lo = first; lo <= last; lo += lake::kPassRangeSlots) {
    range["lo"] = lo;
    range["hi"] = std::min(last, lo + lake::kPassRangeSlots - 1);
    RETURN_IF_ERROR(body(range));
  }
  range["lo"] = 1;
  range["hi"] = 0;
  return body(range);
}

Status WaitingMaintenance::Run(std::string_view stem) {
  ASSIGN_OR_RETURN(std::string sql, RenderStep(stem, params_));
  return lake_.conn().Execute(sql, "etl: " + std::string(stem));
}

Status WaitingMaintenance::ReadParams(std::string_view stem) {
  ASSIGN_OR_RETURN(std::string sql, RenderStep(stem, params_));
  ASSIGN_OR_RETURN(auto result, lake_.conn().Query(sql, "etl: " + std::string(stem)));
  auto chunk = result.NextChunk();
  if (!chunk || chunk->size() != 1) {
    return Status::Internal("etl: " + std::string(stem) + " did not return one row");
  }
  for (size_t c = 0; c < result.column_count(); ++c) {
    params_[result.column_names()[c]] = chunk->GetInt64(c, 0);
  }
  return Status::Ok();
}

Status WaitingMaintenance::Prepare() {
  ASSIGN_OR_RETURN(current_, WaitingIsCurrent(lake_));
  if (current_ && job_ == Job::kRollback) return ReadParams("waiting_rollback_range");
  return Status::Ok();
}

Status WaitingMaintenance::Finish() {
  ASSIGN_OR_RETURN(std::string stamp, CheckpointStamp(lake_));
  if (stamp.empty()) {
    // No checkpoint: nothing is processed, so nothing waits.
    RETURN_IF_ERROR(lake_.conn().Execute("DELETE FROM predlake_waiting", "etl: clear waiting"));
    return lake_.DeleteMeta(kMetaWaitingFor);
  }
  if (current_ && job_ == Job::kUpdate) {
    RETURN_IF_ERROR(ReadParams("waiting_window_range"));
    RETURN_IF_ERROR(Run("waiting_update"));
  } else if (current_ && job_ == Job::kRollback) {
    RETURN_IF_ERROR(Run("waiting_rollback"));
  } else {
    ASSIGN_OR_RETURN(auto checkpoint, lake_.GetCheckpoint());
    params_["S"] = checkpoint->start_ms;
    params_["C"] = checkpoint->checkpoint_ms;
    RETURN_IF_ERROR(lake_.conn().Execute("DELETE FROM predlake_waiting", "etl: clear waiting"));
    ASSIGN_OR_RETURN(std::string_view text, StepSql("waiting_full"));
    RETURN_IF_ERROR(ForEachWaitingSlotRange(lake_, params_, [&](const Params& range) -> Status {
      ASSIGN_OR_RETURN(std::string sql, RenderSql(text, range, "waiting_full"));
      return lake_.conn().Execute(sql, "etl: waiting_full");
    }));
  }
  return lake_.SetMeta(kMetaWaitingFor, stamp);
}

}  // namespace predlake::etl
