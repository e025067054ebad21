#include "core/result.h"

namespace gpuplan {

std::string Error::to_string() const {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) {
      out += ":" + std::to_string(where.line);
      if (where.column > 0) out += ":" + std::to_string(where.column);
    }
    out += ": ";
  } else if (where.line > 0) {
    out += "line " + std::to_string(where.line);
    if (where.column > 0) out += ":" + std::to_string(where.column);
    out += ": ";
  }
  if (!where.field.empty()) out += where.field + ": ";
  out += message;
  return out;
}

int exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kNotFound:
      return 2;
    case ErrorCode::kFailedPrecondition:
      return 1;
    case ErrorCode::kUnavailable:
    case ErrorCode::kDeadlineExceeded:
      return 3;
    case ErrorCode::kInternal:
      return 4;
  }
  return 4;
}

}  // namespace gpuplan
