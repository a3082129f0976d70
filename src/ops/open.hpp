// Opening the lake while other processes come and go (docs/operations.md, "Readers and writers"):
// the readers' opens, and the retry every open uses (writers open through jobs::Writer).
//
// DuckDB lets one process write a database file or many processes read it, never both at once. A
// writer (`update`, one run of `update --every`, `etl ...`) holds the file only for the length of
// its run. Readers therefore open read-only, and readers and writers alike, when another process
// holds the file, retry for a short bounded time before giving up with kBusy naming the holder.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/log.hpp"
#include "common/sleeper.hpp"
#include "common/status.hpp"
#include "common/time.hpp"
#include "lake/lake.hpp"

namespace predlake::ops {

struct RetryOptions {
  int64_t max_wait_ms = 2000;    // give up after this long; 0 tries once
  int64_t poll_ms = 100;         // wait between attempts
  const Clock* clock = nullptr;  // not owned; nullptr: the system clock
  Sleeper* sleeper = nullptr;    // not owned; nullptr: really sleep
  // Called once, with the kBusy status, when the first attempt finds the lake busy and a retry
  // follows (e.g. to tell the user what it waits for). May be empty.
  std::function<void(const Status&)> on_wait;
  // Passed on as lake::OpenOptions::notice (a writer's long one-time step). May be empty.
  std::function<void(const std::string&)> on_notice;
};

// Lake::Open, retried while it answers kBusy, until retry.max_wait_ms has passed; then the last
// kBusy is returned (its message names the writer when lake.lock records one, and says how long it
// waited). Any other error is returned at once.
Result<std::unique_ptr<lake::Lake>> OpenWithRetry(const std::string& lake_dir,
                                                  const lake::OpenOptions& options,
                                                  const RetryOptions& retry = {});

// The retry of every command, reader or writer: up to 2 s while another process holds the lake,
// telling `log` (info) once what it waits for, and any notice of the open. `log` is not owned and
// must outlive the returned options.
RetryOptions BusyRetry(Logger& log);

// OpenWithRetry in Mode::kRead: what describe, validate, query and runs use.
Result<std::unique_ptr<lake::Lake>> OpenForRead(const std::string& lake_dir,
                                                const RetryOptions& retry = {});

// OpenForRead, sealed (duck::Reach::kSealed, or kSealedReadFiles when `read_files`): what `query`
// uses, so that a statement reaches no network, extension, or file outside the lake.
Result<std::unique_ptr<lake::Lake>> OpenSealed(const std::string& lake_dir, bool read_files,
                                               const RetryOptions& retry = {});

}  // namespace predlake::ops
