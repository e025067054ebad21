#include "core/result.h"

#include "core/strings.h"

namespace gpuplan {

// Every part may quote input (a file name, an unknown key, a value): each is
// escaped here, the one place every error is worded, rather than at each of
// the hundreds of places that build one.
std::string Error::to_string() const {
  std::string out;
  if (!where.file.empty()) {
    out += strings::escape_controls(where.file);
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
  if (!where.field.empty()) out += strings::escape_controls(where.field) + ": ";
  out += strings::escape_controls(message, /*keep_newlines=*/true);
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
