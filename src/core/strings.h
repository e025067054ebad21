// String helpers shared by every parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuplan::strings {

[[nodiscard]] std::string_view trim(std::string_view s);
[[nodiscard]] std::vector<std::string> split(std::string_view s, char sep);
[[nodiscard]] std::string to_lower(std::string_view s);
// Lower-cases and drops spaces, '_' and '-': for matching Azure's quota family
// and size names that differ in case and spacing ("Standard NCASv3_T4 Family").
[[nodiscard]] std::string fold(std::string_view s);
[[nodiscard]] bool starts_with_icase(std::string_view s, std::string_view prefix);
[[nodiscard]] bool ends_with(std::string_view s, std::string_view suffix);
// Strict: the whole string must be a finite number ("1e3", "-2.5"); no NaN/inf.
[[nodiscard]] std::optional<double> parse_double(std::string_view s);
// Levenshtein distance, for "did you mean".
[[nodiscard]] size_t edit_distance(std::string_view a, std::string_view b);
// The candidate closest to `word` if it is within a third of its length (at
// least 2 edits), else nullopt.
[[nodiscard]] std::optional<std::string> closest(std::string_view word,
                                                 const std::vector<std::string>& candidates);
// "; did you mean 'x'?" for closest(word, candidates), else "": the one way
// every parser and flag check words its suggestion (issue 14).
[[nodiscard]] std::string did_you_mean(std::string_view word,
                                       const std::vector<std::string>& candidates);
// Fixed-point formatting with `digits` decimals, no locale.
[[nodiscard]] std::string fixed(double v, int digits);
// Six significant digits, exponent when large or small ("0.1", "86400",
// "1.23457e+06", "1e+15"): printf's %g, for numbers quoted in messages.
[[nodiscard]] std::string general(double v);
// Word-wraps `text` (words are separated by single spaces; runs of spaces are
// kept) so that no line's text is longer than `width` characters — the first
// line's than `first_width` when given — unless a single word is. Lines after
// the first start with `indent` spaces (not counted in the width); no trailing
// newline.
[[nodiscard]] std::string wrap(std::string_view text, size_t width, size_t indent,
                               std::optional<size_t> first_width = std::nullopt);
// `text` word-wrapped so that no line is longer than `width` bytes (so never
// wider than `width` columns): `indent` spaces before the first line,
// `rest_indent` before the others; a word longer than a line (a URL, a long
// command) is broken at the width, between characters. Ends with a newline.
// Controls in `text` are escaped (escape_controls, newlines kept).
[[nodiscard]] std::string wrap_text(std::string_view text, size_t width, size_t indent,
                                    size_t rest_indent);
// A source's short form: "Azure Retail Prices API, 2026-05-20 (via
// anycloud-sh/catalog azure/vms.csv)" -> "Azure Retail Prices API,
// 2026-05-20", the text before its first " (" or "; ", where sources put
// their details.
[[nodiscard]] std::string short_source(std::string_view source);

// The offset of the first byte of `s` that is not part of well-formed UTF-8
// (RFC 3629: no overlongs, no surrogates, at most U+10FFFF), or nullopt.
[[nodiscard]] std::optional<size_t> invalid_utf8_at(std::string_view s);
// The offset of the first character of valid UTF-8 `s` that a terminal
// acts on instead of showing: C0 and C1 controls (ESC, BEL, NUL, CR, ...),
// DEL, and the bidirectional overrides and isolates (U+202A-U+202E,
// U+2066-U+2069), which reorder what follows them; nullopt when none.
[[nodiscard]] std::optional<size_t> terminal_control_at(std::string_view s);
// `s` made safe to print: each character terminal_control_at() finds
// written as an escape (a C0 control or DEL as \x1b, a C1 control or a
// bidirectional override as \u009b or \u202e) and each byte that is not
// well-formed UTF-8 as \xHH; newlines are kept when `keep_newlines`.
// Everything else, UTF-8 beyond ASCII included, is unchanged. The one
// output-side rule for text that came from input (names, keys, values)
// and is echoed in a message or a table: docs/cli.md promises no escape
// sequence of any kind, and a key `"\e]0;x\a"` retitled the terminal.
[[nodiscard]] std::string escape_controls(std::string_view s, bool keep_newlines = false);
// The 1-based line and column of byte `offset` of `s`.
[[nodiscard]] std::pair<int, int> line_column(std::string_view s, size_t offset);
// "ff" for the byte 0xff.
[[nodiscard]] std::string hex_byte(char c);

}  // namespace gpuplan::strings
