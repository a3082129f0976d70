#include "etl/pipeline.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <optional>
#include <thread>

#include "common/time.hpp"
#include "duck/duck.hpp"
#include "etl/embedded_sql.hpp"

namespace predlake::etl {

namespace {

enum class StepKind {
  kBuiltin,  // done in C++ (cleanup, commit, drop_staging)
  kExec,     // statements that fill staging tables
  kParams,   // a one-row query whose BIGINT columns become parameters of the later steps
  kSummary,  // the ledger counts
  kPublish,  // statements on the live tables, inside the publish transaction
};

constexpr unsigned kUpdate = 1;
constexpr unsigned kRebuild = 2;
constexpr unsigned kRollback = 4;
constexpr unsigned kAll = kUpdate | kRebuild | kRollback;

struct StepSpec {
  std::string_view name;  // also the SQL file stem for the kinds that run SQL
  StepKind kind;
  unsigned jobs;
  // Run once per pass (Pipeline::Passes) with the pass's [PA, PB), as a group with the adjacent
  // steps that are also per pass.
  bool per_pass = false;
  // Fills the rebuild's staged tables in the lake before the passes: in a rebuild in parts
  // (Pipeline::StagePart) only the first part runs it; the others find its rows committed.
  bool first_part = false;
  // A rebuild runs it once per range of a pass's length in slots (a week) of [k_lo, k_hi], its
  // parameters narrowed to the range: its rows are per slot, and the whole window's slots in one
  // statement outgrow the default memory limit (2.2M slots at 60M predictions).
  bool slot_ranged = false;
};

// THE pipeline, in order. Each job runs the steps whose mask names it. docs/etl.md describes them.
constexpr StepSpec kSteps[] = {
    {"cleanup", StepKind::kBuiltin, kAll},
    {"macros", StepKind::kExec, kAll},
    {"stage_bronze", StepKind::kExec, kUpdate | kRollback},
    {"stage_bronze_rebuild", StepKind::kExec, kRebuild, false, true},
    {"stage_create", StepKind::kExec, kAll},
    // Slots: fold the window's events into live slots, compute new (or rolled back) ones.
    {"range_candle_changes", StepKind::kParams, kUpdate},
    {"events", StepKind::kExec, kUpdate},
    {"range_events", StepKind::kParams, kUpdate},
    {"fold_slots", StepKind::kExec, kUpdate},
    {"range_new_predictions", StepKind::kParams, kUpdate},
    {"slot_keys", StepKind::kExec, kUpdate},
    {"slot_keys_rollback", StepKind::kExec, kRollback},
    {"range_slot_keys", StepKind::kParams, kUpdate | kRollback},
    {"range_slot_keys_rebuild", StepKind::kParams, kRebuild, false, true},
    {"compute_slots", StepKind::kExec, kAll, false, true, true},
    {"candle_slots", StepKind::kExec, kAll, false, true},
    {"slot_changes", StepKind::kExec, kUpdate},
    // Predictions: compute new (or rolled back) ones, fold the window's events into live ones.
    {"prediction_source", StepKind::kExec, kUpdate | kRebuild},
    {"replaced_rollback", StepKind::kExec, kRollback},
    {"range_replaced", StepKind::kParams, kRollback},
    {"prediction_source_rollback", StepKind::kExec, kRollback},
    {"range_prediction_keys", StepKind::kParams, kAll, true},
    {"compute_predictions", StepKind::kExec, kAll, true},
    {"range_prediction_events", StepKind::kParams, kUpdate},
    {"fold_predictions", StepKind::kExec, kUpdate},
    {"range_publish", StepKind::kParams, kAll},
    // Gold: predictoor groups by delta (or from scratch), then feed groups and sales days.
    {"gold_predictoor_delta", StepKind::kExec, kUpdate | kRollback},
    {"range_gold_delta", StepKind::kParams, kUpdate | kRollback},
    {"gold_predictoor", StepKind::kExec, kUpdate | kRollback},
    {"gold_predictoor_full", StepKind::kExec, kRebuild},
    {"gold_keys", StepKind::kExec, kAll},
    {"range_gold", StepKind::kParams, kAll},
    {"gold_feed", StepKind::kExec, kAll},
    {"gold_sales", StepKind::kExec, kAll},
    {"summary", StepKind::kSummary, kAll},
    // Inside the publish transaction.
    {"publish_bronze", StepKind::kPublish, kUpdate | kRollback},
    {"publish_bronze_rebuild", StepKind::kPublish, kRebuild},
    {"publish_gold", StepKind::kPublish, kUpdate},
    {"publish_gold_replace", StepKind::kPublish, kRollback | kRebuild},
    {"commit", StepKind::kBuiltin, kAll},
    {"drop_staging", StepKind::kBuiltin, kAll},
};

unsigned MaskOf(Job job) {
  switch (job) {
    case Job::kUpdate:
      return kUpdate;
    case Job::kRebuild:
      return kRebuild;
    case Job::kRollback:
      return kRollback;
  }
  return 0;
}

bool IsNameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

FaultInjection FaultInjection::FromEnv() {
  FaultInjection f;
  if (const char* v = std::getenv("PREDLAKE_FAIL_AT")) f.fail_at = v;
  if (const char* v = std::getenv("PREDLAKE_KILL_AT")) f.kill_at = v;
  if (const char* v = std::getenv("PREDLAKE_STALL_AT")) f.stall_at = v;
  return f;
}

Status StallUntilInterrupted(std::string_view stage, std::string_view step) {
  std::fprintf(stderr, "predlake: %.*s step %.*s stalls until a signal (PREDLAKE_STALL_AT)\n",
               static_cast<int>(stage.size()), stage.data(), static_cast<int>(step.size()),
               step.data());
  std::fflush(stderr);
  while (!duck::InterruptRequested()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return Status::Cancelled(std::string(stage) + " step " + std::string(step) +
                           ": cancelled (PREDLAKE_STALL_AT)");
}

std::vector<std::string> StepNames() {
  std::vector<std::string> names;
  for (const StepSpec& s : kSteps) names.emplace_back(s.name);
  return names;
}

std::vector<std::string> JobStepNames(Job job) {
  std::vector<std::string> names;
  for (const StepSpec& s : kSteps) {
    if (s.jobs & MaskOf(job)) names.emplace_back(s.name);
  }
  return names;
}

Result<std::string> RenderSql(std::string_view sql, const Params& params, std::string_view step) {
  std::string out;
  out.reserve(sql.size() + 64);
  size_t pos = 0;
  while (true) {
    size_t open = sql.find("${", pos);
    if (open == std::string_view::npos) {
      out.append(sql.substr(pos));
      return out;
    }
    out.append(sql.substr(pos, open - pos));
    size_t close = sql.find('}', open + 2);
    if (close == std::string_view::npos) {
      return Status::Internal("etl step " + std::string(step) + ": unterminated ${ in its SQL");
    }
    std::string_view name = sql.substr(open + 2, close - open - 2);
    bool valid = !name.empty();
    for (char c : name) valid = valid && IsNameChar(c);
    if (!valid) {
      return Status::Internal("etl step " + std::string(step) + ": malformed placeholder ${" +
                              std::string(name) + "}");
    }
    auto it = params.find(name);
    if (it == params.end()) {
      return Status::Internal("etl step " + std::string(step) + ": no value for ${" +
                              std::string(name) + "}");
    }
    // Typed BIGINT so that arithmetic on small values (days * 86400000) cannot overflow INTEGER,
    // and parenthesised so that a negative value stays one operand.
    out.append("(").append(std::to_string(it->second)).append("::BIGINT)");
    pos = close + 1;
  }
}

Result<std::string_view> StepSql(std::string_view stem) {
  for (const auto& [name, text] : EmbeddedSql()) {
    if (name == stem) return text;
  }
  return Status::Internal("etl: no embedded SQL for step " + std::string(stem));
}

Result<std::string> RenderStep(std::string_view stem, const Params& params) {
  ASSIGN_OR_RETURN(std::string_view text, StepSql(stem));
  return RenderSql(text, params, stem);
}

Pipeline::Pipeline(lake::Lake& lake, Job job, Params params, RunOptions options,
                   std::string command)
    : lake_(lake),
      job_(job),
      params_(std::move(params)),
      options_(std::move(options)),
      command_(std::move(command)) {}

Status Pipeline::CheckFault(std::string_view step) {
  if (!options_.faults.kill_at.empty() && options_.faults.kill_at == step) {
    ::raise(SIGKILL);
  }
  if (!options_.faults.fail_at.empty() && options_.faults.fail_at == step) {
    return Status::Internal("injected failure at ETL step " + std::string(step) +
                            " (PREDLAKE_FAIL_AT)");
  }
  if (!options_.faults.stall_at.empty() && options_.faults.stall_at == step) {
    return StallUntilInterrupted("etl", step);
  }
  return Status::Ok();
}

Result<std::vector<std::pair<int64_t, int64_t>>> Pipeline::Passes(int64_t pass_ms) {
  using Passes = std::vector<std::pair<int64_t, int64_t>>;
  // A rollback recomputes rows of any age, few: one pass over every timestamp.
  if (job_ == Job::kRollback) {
    return Passes{
        {std::numeric_limits<int64_t>::min() / 2, std::numeric_limits<int64_t>::max() / 2}};
  }
  int64_t from = std::max(params_.at("S"), params_.at("C"));
  int64_t to = params_.at("F");
  if (to - from > pass_ms) {
    // A long window (a start years before the first event) is cut to the span of its predictions,
    // so that it has no empty passes before or after them.
    ASSIGN_OR_RETURN(std::string_view text, StepSql("range_prediction_passes"));
    ASSIGN_OR_RETURN(std::string sql, RenderSql(text, params_, "range_prediction_passes"));
    ASSIGN_OR_RETURN(auto result, lake_.conn().Query(sql, "etl: the span of the predictions"));
    auto chunk = result.NextChunk();
    if (chunk && chunk->size() == 1 && !chunk->IsNull(0, 0) && !chunk->IsNull(1, 0)) {
      from = std::max(from, chunk->GetInt64(0, 0));
      to = std::min(to, chunk->GetInt64(1, 0) + 1);
    } else {
      to = from;
    }
  }
  Passes passes;
  for (int64_t a = from; a < to; a += pass_ms) passes.emplace_back(a, std::min(to, a + pass_ms));
  if (passes.empty()) passes.emplace_back(from, from);
  return passes;
}

Status Pipeline::Stage() { return StageSteps(nullptr, nullptr); }

Result<Pipeline::PartStaged> Pipeline::StagePart(const Part& part) {
  if (job_ != Job::kRebuild) return Status::Internal("etl: only a rebuild runs in parts");
  PartStaged staged;
  slot_range_ = std::max<int64_t>(1, part.pass_ms / 1000);
  RETURN_IF_ERROR(StageSteps(&part, &staged));
  return staged;
}

Status Pipeline::StageSteps(const Part* part, PartStaged* staged) {
  const unsigned mask = MaskOf(job_);
  int total = 0;
  for (const StepSpec& s : kSteps) {
    if ((s.jobs & mask) && s.kind != StepKind::kPublish && s.name != "commit" &&
        s.name != "drop_staging") {
      ++total;
    }
  }
  int index = 0;
  // The cleanup runs on its own; everything after it is staged in one transaction, so that a
  // failure or kill while staging leaves nothing behind and a run commits its staging only once.
  // A part of a rebuild runs in its caller's transaction, which commits it with its position.
  std::optional<duck::Transaction> tx;
  bool last_part = true;
  constexpr size_t kCount = std::size(kSteps);
  for (size_t i = 0; i < kCount; ++i) {
    const StepSpec& s = kSteps[i];
    if (!(s.jobs & mask)) continue;
    if (s.kind == StepKind::kPublish) break;
    // The steps after the passes (gold, summary) belong to the last part.
    if (!last_part) break;
    if (part != nullptr && part->after_ms && s.first_part) {
      ++index;
      continue;
    }
    if (part == nullptr && !tx && s.kind != StepKind::kBuiltin) {
      ASSIGN_OR_RETURN(auto begun, duck::Transaction::Begin(lake_.conn()));
      tx.emplace(std::move(begun));
    }
    if (!s.per_pass) {
      RETURN_IF_ERROR(RunStep(s.name, ++index, total));
      continue;
    }
    size_t end = i;
    while (end < kCount && kSteps[end].per_pass) ++end;
    const int first_index = index;
    ASSIGN_OR_RETURN(auto passes, Passes(part != nullptr ? part->pass_ms : kPassMs));
    size_t first = 0, stop = passes.size();
    if (part != nullptr) {
      // One pass: the first that starts at or after what the earlier parts committed (none is
      // left when the last part staged its pass and then failed before its publish committed).
      while (part->after_ms && first < passes.size() && passes[first].first < *part->after_ms) {
        ++first;
      }
      stop = std::min(passes.size(), first + 1);
      last_part = stop >= passes.size();
      staged->pass_index = first;
      staged->pass_count = passes.size();
      staged->last = last_part;
      if (first < stop) {
        staged->pass_from = passes[first].first;
        staged->pass_to = passes[first].second;
      } else {
        staged->pass_from = staged->pass_to = part->after_ms.value_or(0);
      }
    }
    for (size_t p = first; p < stop; ++p) {
      params_["PA"] = passes[p].first;
      params_["PB"] = passes[p].second;
      index = first_index;
      for (size_t j = i; j < end; ++j) {
        if (kSteps[j].jobs & mask) RETURN_IF_ERROR(RunStep(kSteps[j].name, ++index, total));
      }
    }
    i = end - 1;
  }
  if (tx) RETURN_IF_ERROR(tx->Commit());
  return Status::Ok();
}

Status Pipeline::Publish() {
  for (const StepSpec& s : kSteps) {
    if (s.kind != StepKind::kPublish || !(s.jobs & MaskOf(job_))) continue;
    RETURN_IF_ERROR(CheckFault(s.name));
    if (options_.progress) options_.progress->Update(command_ + ": " + std::string(s.name));
    auto start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(std::string_view text, StepSql(s.name));
    ASSIGN_OR_RETURN(std::string sql, RenderSql(text, params_, s.name));
    RETURN_IF_ERROR(lake_.conn().Execute(sql, "etl step " + std::string(s.name)));
    timings_.emplace_back(std::string(s.name), MsSince(start));
  }
  return Status::Ok();
}

Status Pipeline::DropStaging(bool keep_parts) {
  ASSIGN_OR_RETURN(std::string sql, RenderStep("orphans", {{"KEEP_PARTS", keep_parts ? 1 : 0}}));
  ASSIGN_OR_RETURN(auto result, lake_.conn().Query(sql, "etl: find staging tables"));
  std::vector<std::string> tables;
  while (auto chunk = result.NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      tables.push_back(duck::QuoteIdent(chunk->GetString(0, r)) + "." +
                       duck::QuoteIdent(chunk->GetString(1, r)) + "." +
                       duck::QuoteIdent(chunk->GetString(2, r)));
    }
  }
  for (const std::string& table : tables) {
    RETURN_IF_ERROR(
        lake_.conn().Execute("DROP TABLE IF EXISTS " + table, "etl: drop staging table " + table));
  }
  return Status::Ok();
}

Status Pipeline::RunStep(std::string_view name, int index, int total) {
  auto start = std::chrono::steady_clock::now();
  Status st = RunStepBody(name, index, total);
  // A step run once per pass has one entry: the sum of its passes.
  const double ms = MsSince(start);
  auto it = std::find_if(timings_.begin(), timings_.end(),
                         [&](const auto& t) { return t.first == name; });
  if (it == timings_.end()) {
    timings_.emplace_back(std::string(name), ms);
  } else {
    it->second += ms;
  }
  return st;
}

Status Pipeline::RunStepBody(std::string_view name, int index, int total) {
  RETURN_IF_ERROR(CheckFault(name));
  if (options_.progress) {
    options_.progress->Update(command_ + ": " + std::string(name) + " (" + std::to_string(index) +
                              "/" + std::to_string(total) + ")");
  }
  StepKind kind = StepKind::kBuiltin;
  bool slot_ranged = false;
  for (const StepSpec& s : kSteps) {
    if (s.name == name) {
      kind = s.kind;
      slot_ranged = s.slot_ranged;
    }
  }
  if (slot_ranged && kind == StepKind::kExec && job_ == Job::kRebuild) {
    auto lo = params_.find("k_lo");
    auto hi = params_.find("k_hi");
    if (lo != params_.end() && hi != params_.end() && lo->second <= hi->second) {
      const int64_t k_lo = lo->second;
      const int64_t k_hi = hi->second;
      Params ranged = params_;
      for (int64_t from = k_lo; from <= k_hi; from += slot_range_) {
        ranged["k_lo"] = from;
        ranged["k_hi"] = std::min(k_hi, from + slot_range_ - 1);
        ASSIGN_OR_RETURN(std::string sql, RenderStep(name, ranged));
        RETURN_IF_ERROR(lake_.conn().Execute(sql, "etl step " + std::string(name)));
      }
      return Status::Ok();
    }
  }
  if (kind == StepKind::kBuiltin) {
    // The only builtin step before the publish, "cleanup": a crashed run's staging tables are
    // gone already, dropped by the run's start (etl.cpp, AsRun) on this connection, which has
    // created none since.
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(std::string sql, RenderStep(name, params_));
  switch (kind) {
    case StepKind::kExec:
      return lake_.conn().Execute(sql, "etl step " + std::string(name));
    case StepKind::kParams:
      return RunParams(name, sql);
    case StepKind::kSummary:
      return RunSummary(sql);
    default:
      return Status::Internal("etl: step " + std::string(name) + " cannot run before the publish");
  }
}

Status Pipeline::RunParams(std::string_view name, const std::string& sql) {
  ASSIGN_OR_RETURN(auto result, lake_.conn().Query(sql, "etl step " + std::string(name)));
  auto chunk = result.NextChunk();
  if (!chunk || chunk->size() != 1) {
    return Status::Internal("etl step " + std::string(name) + " did not return one row");
  }
  for (size_t c = 0; c < result.column_count(); ++c) {
    if (result.column_types()[c] != duck::Type::kInteger || chunk->IsNull(c, 0)) {
      return Status::Internal("etl step " + std::string(name) + ": column " +
                              result.column_names()[c] + " is not a non-null integer");
    }
    params_[result.column_names()[c]] = chunk->GetInt64(c, 0);
  }
  return Status::Ok();
}

Status Pipeline::RunSummary(const std::string& sql) {
  ASSIGN_OR_RETURN(auto result, lake_.conn().Query(sql, "etl step summary"));
  counts_.clear();
  while (auto chunk = result.NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      lake::TableCounts counts;
      counts.rows_in = chunk->GetInt64(1, r);
      counts.rows_out = chunk->GetInt64(2, r);
      counts.rows_updated = chunk->GetInt64(3, r);
      counts.rows_deleted = chunk->GetInt64(4, r);
      counts_[std::string(chunk->GetString(0, r))] = counts;
    }
  }
  return Status::Ok();
}

}  // namespace predlake::etl
