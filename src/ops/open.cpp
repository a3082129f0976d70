#include "ops/open.hpp"

#include <algorithm>

namespace predlake::ops {

Result<std::unique_ptr<lake::Lake>> OpenWithRetry(const std::string& lake_dir,
                                                  const lake::OpenOptions& options,
                                                  const RetryOptions& retry) {
  SystemClock system_clock;
  const Clock& clock = retry.clock ? *retry.clock : system_clock;
  Sleeper& sleeper = retry.sleeper ? *retry.sleeper : DefaultSleeper();
  const int64_t deadline = clock.NowMs() + std::max<int64_t>(retry.max_wait_ms, 0);
  bool told = false;
  lake::OpenOptions with_notice = options;
  if (!with_notice.notice) with_notice.notice = retry.on_notice;
  while (true) {
    auto lake = lake::Lake::Open(lake_dir, with_notice);
    if (lake.ok() || lake.status().code() != StatusCode::kBusy) return lake;
    int64_t now = clock.NowMs();
    if (now >= deadline) {
      if (retry.max_wait_ms <= 0) return lake;
      return Status::Busy(lake.status().message() + "; gave up after waiting " +
                          FormatDuration(retry.max_wait_ms));
    }
    if (!told && retry.on_wait) retry.on_wait(lake.status());
    told = true;
    sleeper.SleepMs(std::min(std::max<int64_t>(retry.poll_ms, 1), deadline - now), nullptr);
  }
}

RetryOptions BusyRetry(Logger& log) {
  RetryOptions retry;
  retry.on_wait = [&log](const Status& busy) {
    log.Info("waiting for the lake: " + busy.message());
  };
  retry.on_notice = [&log](const std::string& notice) { log.Info(notice); };
  return retry;
}

Result<std::unique_ptr<lake::Lake>> OpenForRead(const std::string& lake_dir,
                                                const RetryOptions& retry) {
  lake::OpenOptions options;
  options.mode = lake::Mode::kRead;
  return OpenWithRetry(lake_dir, options, retry);
}

Result<std::unique_ptr<lake::Lake>> OpenSealed(const std::string& lake_dir, bool read_files,
                                               const RetryOptions& retry) {
  lake::OpenOptions options;
  options.mode = lake::Mode::kRead;
  options.reach = read_files ? duck::Reach::kSealedReadFiles : duck::Reach::kSealed;
  return OpenWithRetry(lake_dir, options, retry);
}

}  // namespace predlake::ops
