// File helpers: whole-file reads with errors that name the path, JSON parsing
// with line/column, and atomic writes (write a temp file, then rename), so a
// failed command never leaves a half-written output behind.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace gpuplan::files {

// Inputs read whole are capped (issue 15): a file over the cap, or a device
// that never ends (/dev/zero), is refused instead of filling memory. The
// default, 256 MiB, is far above any input read whole (a workload, a scenario,
// a plan, a list-skus export of every region, one price page, a spot trace);
// the global flag --max-input-mib raises it. Streamed inputs (request traces)
// have a per-line cap instead.
inline constexpr size_t kDefaultMaxInputBytes = size_t{256} << 20;
void set_max_input_bytes(size_t bytes);
[[nodiscard]] size_t max_input_bytes();

// The whole of a text file. kNotFound when it cannot be opened;
// kInvalidArgument naming the path when it is larger than max_input_bytes()
// or not UTF-8 (with the line and column of the first bad byte).
[[nodiscard]] Result<std::string> read_text(const std::string& path);

// Parses JSON text; on a syntax error kInvalidArgument with file, line and
// column of the offending byte. Empty or whitespace-only text is an error.
[[nodiscard]] Result<nlohmann::json> parse_json(std::string_view text, const std::string& file);
[[nodiscard]] Result<nlohmann::json> read_json(const std::string& path);
// parse_json, and a key given twice in one object is kInvalidArgument
// naming it (nlohmann keeps the last, silently). For documents whose
// values are acted on: a plan deploy reads ("count": 1, "count": 64
// deployed 64 VMs whose cost said 1).
[[nodiscard]] Result<nlohmann::json> parse_json_unique_keys(std::string_view text,
                                                            const std::string& file);

// Writes `content` to `path` atomically (temp file in the same directory,
// fsync, rename). kUnavailable when the directory is not writable. A path
// that is a symbolic link replaces the file it names (the link stays); one
// that is a device or a FIFO (/dev/null, /dev/stdout) is written in place,
// not replaced; a directory is kInvalidArgument.
[[nodiscard]] Status write_atomic(const std::string& path, std::string_view content);

// Writes each (path, content) as write_atomic does, all or nothing: every
// file is staged in its temp file before any is renamed into place, so a
// failure (a full disk, an unwritable directory) leaves none of them
// written. A device or FIFO among them is written in place, after the
// regular files are staged.
[[nodiscard]] Status write_all_or_nothing(
    const std::vector<std::pair<std::string, std::string>>& files);

// Directory of the running executable ("" when unknown).
[[nodiscard]] std::string executable_dir();

}  // namespace gpuplan::files
