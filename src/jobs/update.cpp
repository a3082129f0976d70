#include "jobs/update.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>

#include "common/time.hpp"
#include "duck/duck.hpp"
#include "etl/pipeline.hpp"
#include "jobs/etl.hpp"

namespace predlake::jobs {

namespace {

// An update opens the lake with one DuckDB worker thread: the raw fetch's statements and an hour's
// ETL each move a few thousand rows, and setting the count per phase cost about 1 ms each time
// (docs/scale.md). A long ETL window raises it to DuckDB's default for its duration (etl.cpp).
constexpr int kUpdateThreads = 1;

// P of the chunk plan (see Update): the lowest of the input watermarks and the ETL's position.
Result<int64_t> ChunkPosition(lake::Lake& lake, int64_t start_ms) {
  ASSIGN_OR_RETURN(auto marks, lake.Watermarks());
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  int64_t position =
      checkpoint && checkpoint->start_ms <= start_ms ? checkpoint->checkpoint_ms : start_ms;
  for (std::string_view table : etl::kInputTables) {
    auto it = marks.find(std::string(table));
    position = std::min(position, it == marks.end() ? start_ms : it->second.watermark_ms);
  }
  return position;
}

// Where a first update's next fetch chunk starts: the lowest of the input tables' watermarks (the
// start for a table without one).
Result<int64_t> FetchPosition(lake::Lake& lake, int64_t start_ms) {
  ASSIGN_OR_RETURN(auto marks, lake.Watermarks());
  int64_t position = INT64_MAX;
  for (std::string_view table : etl::kInputTables) {
    auto it = marks.find(std::string(table));
    position = std::min(position, it == marks.end() ? start_ms : it->second.watermark_ms);
  }
  return position;
}

int64_t StoredRows(const UpdateReport& chunk) {
  int64_t rows = 0;
  for (const raw::TableReport& t : chunk.raw.tables) rows += t.counts.rows_out;
  for (const auto& [table, counts] : chunk.etl.tables) {
    if (table.rfind("pdr_", 0) != 0) rows += counts.rows_out;
  }
  return rows;
}

// The fetch of one chunk's run up to end_ms (raw::Update with finishes_run = false), into out.
Status FetchInto(const UpdateRequest& request, lake::Lake& lake, lake::Run& run, int64_t end_ms,
                 int64_t now_ms, UpdateReport& out) {
  raw::UpdateOptions raw_options;
  raw_options.start_ms = request.start_ms;
  raw_options.end_ms = end_ms;
  raw_options.finishes_run = false;
  raw_options.cancel = request.cancel;
  raw_options.retry = request.retry;
  raw_options.sleeper = request.sleeper;
  raw_options.fallback_source = request.fallback_source;
  if (request.chunk_ms > 0) raw_options.chunk_ms = request.chunk_ms;
  raw_options.at_step = RawFaultHook(request.faults);
  raw_options.note_later_start = request.note_later_start;
  raw_options.exchange = request.exchange;
  raw_options.ohlcv_exchange = request.ohlcv_exchange;
  raw_options.now_ms = now_ms;
  raw_options.ohlcv_gap_after_ms = request.ohlcv_gap_after_ms;
  const auto fetch_start = std::chrono::steady_clock::now();
  auto fetched = raw::Update(lake, run, raw_options, request.factory, request.progress);
  out.phases.fetch_ms = MsSince(fetch_start);
  if (request.progress != nullptr) request.progress->Finish();
  if (!fetched.ok()) return fetched.status();
  out.raw = std::move(fetched).value();
  if (request.after_fetch) request.after_fetch(out.raw);
  return Status::Ok();
}

etl::UpdateOptions EtlOptions(const UpdateRequest& request, int64_t end_ms) {
  etl::UpdateOptions etl_options;
  etl_options.to_ms = end_ms;
  etl_options.st_ms = request.start_ms;
  etl_options.progress = request.progress;
  etl_options.faults = request.faults;
  etl_options.ohlcv = request.ohlcv;
  etl_options.drop_staging_after = false;  // the close or the next chunk's run drops them
  return etl_options;
}

// The ETL of one chunk's run (options.to_ms its end), into out.
Status EtlInto(const UpdateRequest& request, lake::Lake& lake, lake::Run& run,
               const etl::UpdateOptions& options, UpdateReport& out) {
  const auto etl_start = std::chrono::steady_clock::now();
  auto built = etl::Update(lake, run, options);
  out.phases.etl_ms = MsSince(etl_start);
  if (request.progress != nullptr) request.progress->Finish();
  if (!built.ok()) return built.status();
  out.etl = std::move(built).value();
  return Status::Ok();
}

// One chunk's run: the fetch up to end_ms, then the ETL up to it.
Result<UpdateReport> RunChunk(const UpdateRequest& request, lake::Lake& lake, lake::Run& run,
                              int64_t end_ms, int64_t now_ms) {
  UpdateReport out;
  RETURN_IF_ERROR(FetchInto(request, lake, run, end_ms, now_ms, out));
  RETURN_IF_ERROR(EtlInto(request, lake, run, EtlOptions(request, end_ms), out));
  return out;
}

// A fetch chunk of a first update (Update, "A first update"): the fetch up to end_ms, then the run
// finishes with nothing built (detail "changed": false).
Result<UpdateReport> RunFetchChunk(const UpdateRequest& request, lake::Lake& lake, lake::Run& run,
                                   int64_t from_ms, int64_t end_ms, int64_t now_ms) {
  UpdateReport out;
  RETURN_IF_ERROR(FetchInto(request, lake, run, end_ms, now_ms, out));
  const int64_t fetched_to = std::max(from_ms, std::min(end_ms, out.raw.end_ms));
  // A start moved earlier is backfilled by the same fetch (raw::Update): the window then begins
  // where the backfill did, or the line would name only the (perhaps empty) stretch at the end.
  int64_t fetched_from = from_ms;
  for (const raw::TableReport& t : out.raw.tables) {
    if (t.backfill_from_ms) fetched_from = std::min(fetched_from, *t.backfill_from_ms);
  }
  out.etl.run_id = run.id();
  out.etl.command = std::string(kUpdateCommand);
  out.etl.window_start_ms = fetched_from;
  out.etl.window_end_ms = fetched_to;
  out.etl.message = std::string(kUpdateCommand) + ": fetched [" + FormatTime(fetched_from) + ", " +
                    FormatTime(fetched_to) +
                    "); the built tables are built in parts once the window is fetched";
  run.SetWindow(fetched_from, fetched_to);
  run.detail()["start_ms"] = request.start_ms;
  run.detail()["changed"] = false;
  run.detail()["message"] = out.etl.message;
  RETURN_IF_ERROR(run.Finish());
  return out;
}

// True when the update builds from its start: no checkpoint yet, or the start moved earlier than
// the checkpoint's (the same test as ChunkPosition's).
Result<bool> BuildsFromStart(lake::Lake& lake, int64_t start_ms) {
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  return !checkpoint || start_ms < checkpoint->start_ms;
}

// The end of a rebuild in parts that an earlier update staged and did not publish (it was killed,
// or failed, after its fetch); nullopt when there is none.
Result<std::optional<int64_t>> StagedPartsEnd(lake::Lake& lake) {
  ASSIGN_OR_RETURN(auto text, lake.GetMeta(etl::kMetaRebuildParts));
  if (!text) return std::optional<int64_t>();
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || j.value("command", "") != kUpdateCommand || !j.contains("end_ms") ||
      !j["end_ms"].is_number_integer()) {
    return std::optional<int64_t>();
  }
  return std::optional<int64_t>(j["end_ms"].get<int64_t>());
}

std::string ShortCount(int64_t n) {
  if (n < 10'000) return std::to_string(n);
  if (n < 10'000'000) return std::to_string(n / 1000) + "k";
  return std::to_string(n / 1'000'000) + "M";
}

std::string ShortSeconds(double seconds) {
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace

std::function<Status(std::string_view)> RawFaultHook(const etl::FaultInjection& faults) {
  if (faults.fail_at.empty() && faults.kill_at.empty() && faults.stall_at.empty()) return {};
  return [faults](std::string_view step) -> Status {
    if (faults.kill_at == step) std::raise(SIGKILL);
    if (faults.fail_at == step) {
      return Status::Internal("injected failure at raw step " + std::string(step) +
                              " (PREDLAKE_FAIL_AT)");
    }
    if (faults.stall_at == step) return etl::StallUntilInterrupted("raw", step);
    return Status::Ok();
  };
}

std::string DescribeChunk(const ChunkProgress& chunk) {
  return fmt::format("chunk {}/{} [{}, {}) done: {} rows, {} rows/s, {} chunk{} left, ETA {}",
                     chunk.done, chunk.done + chunk.left, FormatTime(chunk.window_start_ms),
                     FormatTime(chunk.window_end_ms), ShortCount(chunk.rows),
                     ShortCount(static_cast<int64_t>(chunk.rows_per_second)), chunk.left,
                     chunk.left == 1 ? "" : "s", ShortSeconds(chunk.eta_seconds));
}

Result<UpdateReport> Update(const UpdateRequest& request, int64_t now_ms,
                            const std::function<void(const ChunkProgress&)>& on_chunk) {
  if (!request.end_ms) return Status::Internal("update: no end given");
  ASSIGN_OR_RETURN(int64_t end_ms, request.end_ms(now_ms));
  WriterEnv env = request.writer;
  env.close_checkpoint = lake::CloseCheckpoint::kWhenWalLarge;
  env.threads = kUpdateThreads;
  const auto open_start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(Writer writer, Writer::Open(env, std::string(kUpdateCommand)));
  lake::Lake* const lake = &writer.lake();
  const auto t0 = std::chrono::steady_clock::now();
  UpdateReport total;
  total.phases.open_ms = MsSince(open_start);
  bool wal_raised = false;
  auto raise_wal = [&]() -> Status {
    if (wal_raised) return Status::Ok();
    wal_raised = true;
    return writer.RaiseWalCheckpointForChunks();
  };
  // Adds a chunk's (or part's) run to the total.
  auto add = [&](UpdateReport chunk, bool fetched) {
    total.rows += StoredRows(chunk);
    total.phases.fetch_ms += chunk.phases.fetch_ms;
    total.phases.etl_ms += chunk.phases.etl_ms;
    if (fetched) total.raw = std::move(chunk.raw);
    total.etl = std::move(chunk.etl);
    total.chunks += 1;
    total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // The progress line and on_chunk after a run that is not the last.
  auto report_progress = [&](int64_t window_start_ms, int64_t window_end_ms, int64_t left) {
    ChunkProgress p;
    p.done = total.chunks;
    p.left = std::max<int64_t>(1, left);
    p.window_start_ms = window_start_ms;
    p.window_end_ms = window_end_ms;
    p.rows = total.rows;
    p.rows_per_second = total.seconds > 0 ? static_cast<double>(total.rows) / total.seconds : 0;
    p.eta_seconds = total.seconds / static_cast<double>(total.chunks) * static_cast<double>(p.left);
    p.report = &total;
    if (request.progress != nullptr) request.progress->Update("update: " + DescribeChunk(p));
    if (on_chunk) on_chunk(p);
  };
  const int64_t pass_ms = request.part_ms > 0 ? std::min(request.part_ms, etl::Pipeline::kPassMs)
                                              : etl::Pipeline::kPassMs;
  // The ETL of a first update: the rebuild of [start, parts_end) in parts, one run each, the last
  // publishing.
  auto run_parts = [&](int64_t parts_end) -> Status {
    for (;;) {
      ASSIGN_OR_RETURN(
          UpdateReport part,
          writer.Run<UpdateReport>(std::string(kUpdateCommand),
                                   [&](lake::Lake& open, lake::Run& run) -> Result<UpdateReport> {
                                     etl::UpdateOptions options = EtlOptions(request, parts_end);
                                     options.in_parts = true;
                                     options.part_ms = request.part_ms;
                                     // The ledger's resume test names the runs' command.
                                     options.command = std::string(kUpdateCommand);
                                     UpdateReport out;
                                     RETURN_IF_ERROR(EtlInto(request, open, run, options, out));
                                     return out;
                                   }));
      const bool more = part.etl.more;
      const int64_t left = part.etl.part_count - part.etl.part_index;
      const int64_t from = part.etl.window_start_ms.value_or(0);
      const int64_t to = part.etl.window_end_ms.value_or(0);
      add(std::move(part), false);
      if (!more) return Status::Ok();
      report_progress(from, to, left);
    }
  };

  bool done = false;
  if (request.chunk_ms > 0) {
    ASSIGN_OR_RETURN(std::optional<int64_t> staged_end, StagedPartsEnd(*lake));
    bool resume = false;
    if (staged_end) {
      ASSIGN_OR_RETURN(resume, BuildsInParts(*lake, EtlOptions(request, *staged_end), 0, false));
    }
    ASSIGN_OR_RETURN(const bool from_start, BuildsFromStart(*lake, request.start_ms));
    if (resume) {
      // An earlier update fetched its window and staged some of its parts: they are finished
      // first, without fetching (what the parts read stays as it was); the rest of the window
      // follows in chunks below.
      RETURN_IF_ERROR(raise_wal());
      RETURN_IF_ERROR(run_parts(*staged_end));
      ASSIGN_OR_RETURN(int64_t after, ChunkPosition(*lake, request.start_ms));
      done = after >= end_ms;
      // The publish's line, before the chunks that follow.
      if (!done) {
        report_progress(total.etl.window_start_ms.value_or(after),
                        total.etl.window_end_ms.value_or(after), 1);
      }
    } else if (from_start && request.start_ms < end_ms - request.chunk_ms) {
      // A first update: the window's raw rows chunk by chunk, then the built tables as one
      // rebuild in parts of everything fetched, so that every late event of the window is read
      // by the part it changes, as in one window.
      RETURN_IF_ERROR(raise_wal());
      const int64_t parts_planned =
          (end_ms - request.start_ms + pass_ms - 1) / std::max<int64_t>(1, pass_ms);
      // At least one fetch chunk: it also backfills a start moved earlier (raw::Update).
      ASSIGN_OR_RETURN(int64_t position, FetchPosition(*lake, request.start_ms));
      for (;;) {
        const int64_t chunk_end =
            std::min(end_ms, std::min(position, end_ms - request.chunk_ms) + request.chunk_ms);
        const int64_t fetch_left = (end_ms - chunk_end + request.chunk_ms - 1) / request.chunk_ms;
        ASSIGN_OR_RETURN(
            UpdateReport chunk,
            writer.Run<UpdateReport>(
                std::string(kUpdateCommand),
                [&](lake::Lake& open, lake::Run& run) -> Result<UpdateReport> {
                  run.detail()["chunk"] = {{"index", total.chunks + 1},
                                           {"of", total.chunks + 1 + fetch_left + parts_planned}};
                  return RunFetchChunk(request, open, run, std::min(position, chunk_end), chunk_end,
                                       now_ms);
                }));
        const bool at_head = chunk.raw.end_ms < chunk_end;
        const int64_t chunk_window_start =
            chunk.etl.window_start_ms.value_or(std::min(position, chunk_end));
        add(std::move(chunk), true);
        // The ETL follows every fetch chunk, the last included.
        report_progress(chunk_window_start, chunk_end, fetch_left + parts_planned);
        if (chunk_end >= end_ms || at_head) break;
        ASSIGN_OR_RETURN(int64_t after, FetchPosition(*lake, request.start_ms));
        if (after <= position) break;  // a chunk that moved nothing
        position = after;
      }
      ASSIGN_OR_RETURN(const bool in_parts,
                       BuildsInParts(*lake, EtlOptions(request, end_ms), request.chunk_ms, false));
      if (in_parts) {
        RETURN_IF_ERROR(run_parts(end_ms));
        done = true;
      }
    }
  }
  while (!done) {
    ASSIGN_OR_RETURN(int64_t position, ChunkPosition(*lake, request.start_ms));
    int64_t chunk_end = end_ms;
    if (request.chunk_ms > 0 && position < end_ms - request.chunk_ms) {
      chunk_end = position + request.chunk_ms;
    }
    const int64_t planned_left =
        request.chunk_ms > 0 && chunk_end < end_ms
            ? (end_ms - chunk_end + request.chunk_ms - 1) / request.chunk_ms
            : 0;
    if (planned_left > 0) RETURN_IF_ERROR(raise_wal());
    ASSIGN_OR_RETURN(UpdateReport chunk,
                     writer.Run<UpdateReport>(
                         std::string(kUpdateCommand),
                         [&](lake::Lake& open, lake::Run& run) -> Result<UpdateReport> {
                           if (total.chunks > 0 || planned_left > 0) {
                             run.detail()["chunk"] = {{"index", total.chunks + 1},
                                                      {"of", total.chunks + 1 + planned_left}};
                           }
                           return RunChunk(request, open, run, chunk_end, now_ms);
                         }));
    add(std::move(chunk), true);
    // The last chunk reaches the end, or stops short of its own end at the indexed head.
    if (chunk_end >= end_ms || total.raw.end_ms < chunk_end) break;
    report_progress(total.etl.window_start_ms.value_or(position),
                    total.etl.window_end_ms.value_or(chunk_end), planned_left);
    ASSIGN_OR_RETURN(int64_t after, ChunkPosition(*lake, request.start_ms));
    // A chunk that moved nothing (the ETL held back by a table that cannot move) ends the update
    // instead of looping.
    if (after <= position) break;
  }
  if (env.export_after) {
    const auto export_start = std::chrono::steady_clock::now();
    {
      // An export after a long first run writes much; one after an hour's update, little.
      auto threads = duck::ThreadsSetting::AtDefault(lake->conn());
      writer.ExportAfterPublish();
    }
    total.phases.export_ms = MsSince(export_start);
  }
  const auto close_start = std::chrono::steady_clock::now();
  const lake::Lake::CloseReport closed = writer.Close();
  total.phases.close_ms = MsSince(close_start);
  total.phases.checkpointed = closed.checkpointed;
  total.phases.wal_bytes = closed.wal_bytes;
  return total;
}

std::string DescribePhases(const UpdatePhases& p) {
  std::string out =
      fmt::format("open {:.0f}, fetch {:.0f}, etl {:.0f}", p.open_ms, p.fetch_ms, p.etl_ms);
  if (p.export_ms > 0) out += fmt::format(", export {:.0f}", p.export_ms);
  const double wal_mb = static_cast<double>(p.wal_bytes) / (1 << 20);
  out += fmt::format(", close {:.0f}", p.close_ms);
  if (p.checkpointed) {
    out += fmt::format(" (checkpoint of a WAL of {:.1f} MB)", wal_mb);
  } else if (p.wal_bytes > 0) {
    out += fmt::format(" (WAL {:.1f} MB kept)", wal_mb);
  }
  return out;
}

Status UpdateEvery(const UpdateRequest& request, const ops::LoopOptions& loop,
                   const std::function<int64_t()>& now, const std::atomic<bool>& cancelled,
                   Logger& log, const std::function<void(const UpdateReport&)>& on_run) {
  SystemClock system_clock;
  const Clock& clock = request.writer.clock ? *request.writer.clock : system_clock;
  ASSIGN_OR_RETURN(lake::LoopLock loop_lock,
                   lake::LoopLock::Take(request.writer.lake_dir, "update --every", clock.NowMs()));
  return ops::RunEvery(
      loop,
      [&]() -> Status {
        ASSIGN_OR_RETURN(UpdateReport report, Update(request, now()));
        if (on_run) on_run(report);
        return Status::Ok();
      },
      cancelled, log);
}

}  // namespace predlake::jobs
