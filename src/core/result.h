// Result<T> and Error: how every library function reports failure.
//
// Codes (a short canonical set, as abseil's status.h):
//   kInvalidArgument    bad input the user can fix: a malformed file, a wrong
//                       type, a negative price. `where` names file/line/field.
//                       CLI exit code 2.
//   kNotFound           a named thing does not exist (a size, a model, a file).
//                       CLI exit code 2.
//   kFailedPrecondition a valid question with no answer: nothing fits, a stack
//                       combination is refused. CLI exit code 1.
//   kUnavailable        the environment: no GPU or driver, network unreachable,
//                       store not writable. CLI exit code 3.
//   kInternal           a bug. CLI exit code 4.
#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace gpuplan {

enum class ErrorCode {
  kInvalidArgument,
  kNotFound,
  kFailedPrecondition,
  kUnavailable,
  kInternal,
  // A computation ran past the time it was given (core/deadline.h).
  kDeadlineExceeded,
};

// Where an error was found. Any part may be empty/zero.
struct Where {
  std::string file;   // path as the user gave it, or a JSON document name
  int line = 0;       // 1-based; 0 when unknown
  int column = 0;     // 1-based; 0 when unknown
  std::string field;  // column name, YAML key or JSON path ("Items[3].retailPrice")
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  Where where;

  // "file:line:column: field: message" with the empty parts left out.
  [[nodiscard]] std::string to_string() const;
};

template <typename T>
using Result = tl::expected<T, Error>;

// Status-only result.
using Status = tl::expected<void, Error>;

[[nodiscard]] inline tl::unexpected<Error> make_error(ErrorCode code, std::string message,
                                                      Where where = {}) {
  return tl::unexpected<Error>(Error{code, std::move(message), std::move(where)});
}
[[nodiscard]] inline tl::unexpected<Error> invalid_argument(std::string message, Where where = {}) {
  return make_error(ErrorCode::kInvalidArgument, std::move(message), std::move(where));
}
[[nodiscard]] inline tl::unexpected<Error> not_found(std::string message, Where where = {}) {
  return make_error(ErrorCode::kNotFound, std::move(message), std::move(where));
}
[[nodiscard]] inline tl::unexpected<Error> failed_precondition(std::string message,
                                                               Where where = {}) {
  return make_error(ErrorCode::kFailedPrecondition, std::move(message), std::move(where));
}
[[nodiscard]] inline tl::unexpected<Error> unavailable(std::string message, Where where = {}) {
  return make_error(ErrorCode::kUnavailable, std::move(message), std::move(where));
}
[[nodiscard]] inline tl::unexpected<Error> internal_error(std::string message) {
  return make_error(ErrorCode::kInternal, std::move(message));
}

// CLI exit code for an error code (see the table above).
[[nodiscard]] int exit_code_for(ErrorCode code);

}  // namespace gpuplan

// GPUPLAN_TRY(var, expr): evaluates expr (a Result<T>); on error returns the
// error from the enclosing function, else moves the value into `var`.
// `var` is usually a declaration (`GPUPLAN_TRY(auto x, f())`), which
// parentheses would break: hence the NOLINT on the line that uses it.
#define GPUPLAN_CONCAT_INNER(a, b) a##b
#define GPUPLAN_CONCAT(a, b) GPUPLAN_CONCAT_INNER(a, b)
#define GPUPLAN_TRY(var, expr)                                               \
  auto GPUPLAN_CONCAT(gpuplan_try_, __LINE__) = (expr);                      \
  if (!GPUPLAN_CONCAT(gpuplan_try_, __LINE__))                               \
    return ::tl::unexpected(GPUPLAN_CONCAT(gpuplan_try_, __LINE__).error()); \
  var = std::move(*GPUPLAN_CONCAT(gpuplan_try_, __LINE__))  // NOLINT(bugprone-macro-parentheses)

// GPUPLAN_RETURN_IF_ERROR(expr): for Status-returning expressions.
#define GPUPLAN_RETURN_IF_ERROR(expr)                                       \
  do {                                                                      \
    auto gpuplan_status_ = (expr);                                          \
    if (!gpuplan_status_) return ::tl::unexpected(gpuplan_status_.error()); \
  } while (0)
