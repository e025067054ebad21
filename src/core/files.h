// File helpers: whole-file reads with errors that name the path, JSON parsing
// with line/column, and atomic writes (write a temp file, then rename), so a
// failed command never leaves a half-written output behind.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace gpuplan::files {

// kNotFound when the file cannot be opened.
[[nodiscard]] Result<std::string> read_text(const std::string& path);

// Parses JSON text; on a syntax error kInvalidArgument with file, line and
// column of the offending byte. Empty or whitespace-only text is an error.
[[nodiscard]] Result<nlohmann::json> parse_json(std::string_view text, const std::string& file);
[[nodiscard]] Result<nlohmann::json> read_json(const std::string& path);

// Writes `content` to `path` atomically (temp file in the same directory,
// fsync, rename). kUnavailable when the directory is not writable.
[[nodiscard]] Status write_atomic(const std::string& path, std::string_view content);

// Directory of the running executable ("" when unknown).
[[nodiscard]] std::string executable_dir();

}  // namespace gpuplan::files
