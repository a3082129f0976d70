#include "common/status.hpp"

namespace predlake {

int ExitStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kValidation:
      return 1;
    case StatusCode::kUsage:
    case StatusCode::kConfig:
      return 2;
    case StatusCode::kSource:
    case StatusCode::kData:
      return 3;
    case StatusCode::kInternal:
      return 70;
    case StatusCode::kBusy:
      return 4;
    case StatusCode::kCancelled:
      return 130;
  }
  return 3;
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

}  // namespace predlake
