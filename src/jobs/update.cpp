#include "jobs/update.hpp"

namespace predlake::jobs {

Result<UpdateReport> Update(const UpdateRequest& request, int64_t now_ms) {
  if (!request.end_ms) return Status::Internal("update: no end given");
  ASSIGN_OR_RETURN(int64_t end_ms, request.end_ms(now_ms));
  return RunWriter<UpdateReport>(
      request.writer, "update", [&](lake::Lake& lake, lake::Run& run) -> Result<UpdateReport> {
        UpdateReport out;
        raw::UpdateOptions raw_options;
        raw_options.start_ms = request.start_ms;
        raw_options.end_ms = end_ms;
        raw_options.finishes_run = false;
        raw_options.cancel = request.cancel;
        raw_options.retry = request.retry;
        raw_options.sleeper = request.sleeper;
        raw_options.fallback_source = request.fallback_source;
        raw_options.exchange = request.exchange;
        raw_options.ohlcv_exchange = request.ohlcv_exchange;
        raw_options.now_ms = now_ms;
        auto fetched = raw::Update(lake, run, raw_options, request.factory, request.progress);
        if (request.progress != nullptr) request.progress->Finish();
        if (!fetched.ok()) return fetched.status();
        out.raw = std::move(fetched).value();
        if (request.after_fetch) request.after_fetch(out.raw);

        etl::UpdateOptions etl_options;
        etl_options.to_ms = end_ms;
        etl_options.st_ms = request.start_ms;
        etl_options.progress = request.progress;
        etl_options.faults = request.faults;
        etl_options.ohlcv = request.ohlcv;
        auto built = etl::Update(lake, run, etl_options);
        if (request.progress != nullptr) request.progress->Finish();
        if (!built.ok()) return built.status();
        out.etl = std::move(built).value();
        return out;
      });
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
