// How the text output meets the terminal (issue 14, "fit the terminal"),
// shared by every command that prints text:
//  - the width: COLUMNS, else the terminal's width when the output is the
//    process's own stdout and that is a terminal, else 100; clamped to
//    60..200 so a table row still fits (DESIGN: tables fit the terminal, at
//    least 60 columns). Commands wrap prose at it and drop their least
//    useful table columns first rather than overflow.
//  - how much is said: --quiet prints just the answer, one line, for
//    scripts; --verbose adds the full citation of every price and source.
//  - colour: gpuplan prints none, and no escape sequence of any kind, so
//    NO_COLOR, a pipe or a dumb terminal all read the same plain text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/strings.h"

namespace gpuplan::cli {

enum class Verbosity { kQuiet, kNormal, kVerbose };

inline constexpr size_t kMinWidth = 60;
inline constexpr size_t kMaxWidth = 200;
inline constexpr size_t kDefaultWidth = 100;

// The width text is fitted to (see above). `out_is_stdout`: whether the
// output stream is the process's stdout (tests writing to a string get
// kDefaultWidth unless they set COLUMNS).
[[nodiscard]] size_t terminal_width(bool out_is_stdout);

// The display width of `text`'s widest line, in UTF-8 code points.
[[nodiscard]] size_t widest_line(std::string_view text);

// `text` with each line wider than `width` re-wrapped under its own leading
// spaces (plus two): for free-form reports without tables (doctor).
[[nodiscard]] std::string fit_lines(std::string_view text, size_t width);

// Wrapping at the width and sources' short forms (--verbose prints them
// whole) are core/strings.h's, shared with the libraries that print text.
using strings::short_source;
using strings::wrap_text;

}  // namespace gpuplan::cli
