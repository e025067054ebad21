// The one way numbers are rounded for people: text tables, messages and CSV.
// JSON never goes through here — it carries every number at full precision
// (docs/json.md) — so a script reads the value the tool computed, and a
// person reads it rounded by one rule:
//   money  cents ("$1,234.56", "$0.76"); below ten cents three significant
//          digits ("$0.0526", "$0.0045"), so that a small price or a
//          per-second charge never reads as "$0.05" or "$0.00";
//   rate   three significant digits (throughput, requests/s, evictions per
//          hour, fractions), never rounding away digits left of the point
//          ("12345", "98.3", "0.0123").
// Text groups thousands and prefixes "$" to money; CSV writes the bare
// number ("1234.56") so that a spreadsheet reads it as one.
#pragma once

#include <string>

namespace gpuplan::format {

enum class Kind { kMoney, kRate };
enum class Form { kText, kCsv };

// The formatting function: `v` rounded by `kind`'s rule and written in
// `form`. NaN and infinities are written as "nan"/"inf" (a bug upstream,
// shown rather than hidden). Trailing zeros after the point are dropped for
// rates, kept to the cent for money.
[[nodiscard]] std::string number(double v, Kind kind, Form form = Form::kText);

// Shorthands for number(): money in text ("$1,234.56") and a rate in text.
[[nodiscard]] inline std::string usd(double v) { return number(v, Kind::kMoney); }
[[nodiscard]] inline std::string rate(double v) { return number(v, Kind::kRate); }

// A number with at most `max_decimals` decimals, trailing zeros dropped
// ("13.95", "0.25", "48"): for quantities that are neither money nor rates
// (hours, GiB, GPU counts), whose precision is fixed by their unit.
[[nodiscard]] std::string trimmed(double v, int max_decimals);

}  // namespace gpuplan::format
