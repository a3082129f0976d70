// Status and Result: how core code reports failure. Exceptions are caught only at the edges (CLI
// main, HTTP handlers); everything below returns one of these. Each code maps to one process exit
// status.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace predlake {

enum class StatusCode {
  kOk,
  kUsage,       // bad command line or time string: exit 2
  kConfig,      // bad ppss.yaml: exit 2
  kSource,      // the subgraph failed or answered nonsense: exit 3
  kData,        // bad file, bad SQL, inconsistent lake: exit 3
  kBusy,        // another writer holds the lake: exit 4
  kValidation,  // a validate check failed: exit 1
  kCancelled,   // stopped by a signal: exit 130
  kInternal,    // a bug, or a failure injected by a test: exit 70 (EX_SOFTWARE)
};

// The process exit status for a code (docs/design.md section 5).
int ExitStatusFor(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Usage(std::string msg) { return Status(StatusCode::kUsage, std::move(msg)); }
  static Status Config(std::string msg) { return Status(StatusCode::kConfig, std::move(msg)); }
  static Status Source(std::string msg) { return Status(StatusCode::kSource, std::move(msg)); }
  static Status Data(std::string msg) { return Status(StatusCode::kData, std::move(msg)); }
  static Status Busy(std::string msg) { return Status(StatusCode::kBusy, std::move(msg)); }
  static Status Validation(std::string msg) {
    return Status(StatusCode::kValidation, std::move(msg));
  }
  static Status Cancelled(std::string msg) {
    return Status(StatusCode::kCancelled, std::move(msg));
  }
  static Status Internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }

  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  int exit_status() const { return ExitStatusFor(code_); }

  // Returns a copy whose message is "context: message"; an OK status stays OK.
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or a non-OK Status. Accessing value() of an error is a bug (asserted).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design, like absl::StatusOr
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & {
    assert(ok());
    return std::get<T>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace predlake

#define PREDLAKE_CONCAT_INNER(a, b) a##b
#define PREDLAKE_CONCAT(a, b) PREDLAKE_CONCAT_INNER(a, b)

// Returns the status from the enclosing function when `expr` (a Status) is not OK.
#define RETURN_IF_ERROR(expr)        \
  do {                               \
    ::predlake::Status _st = (expr); \
    if (!_st.ok()) return _st;       \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, ResultExpr())` declares x from the value, or returns the error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(PREDLAKE_CONCAT(_result_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
