// One validation path for every numeric flag (issue 15, item 4): a value is
// read strictly (strings::parse_double: the whole text, finite: no NaN, inf or
// 1e400) and must lie in the flag's documented range, so `--hours 1e300` is a
// clear exit 2 naming the flag, never a formatting error deep in the output.
//
// The ranges are the widest a real answer can use; each flag states why its
// bound is where it is (number_flags.cc).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace gpuplan::cli {

// Whether the lower bound itself is allowed.
enum class Low { kClosed, kOpen };

// A CLI11 check: the value is a finite number in [lo, hi] ((lo, hi] with
// Low::kOpen), whole when `integer`. CLI11 prefixes the message with the flag,
// and a failed check is a parse error: exit 2.
[[nodiscard]] CLI::Validator number_in(double lo, double hi, Low low = Low::kClosed,
                                       bool integer = false);

// Documented ranges shared by several commands.
namespace range {
// Hours of use or of a deadline: up to 1e6 h (114 years), more than any VM
// bill or job spans; the server's /api/cost uses the same cap.
inline constexpr double kMaxHours = 1e6;
// Money: up to 1e12 USD. Far beyond any cloud budget, and every sum of such
// amounts stays exact to the cent in a double (2^53 cents is 9e13 USD).
inline constexpr double kMaxUsd = 1e12;
// The data disk deploy builds is a Premium SSD (Premium_LRS), whose largest
// size, P80, holds 32,767 GiB (learn.microsoft.com, "Azure managed disk
// types", Premium SSD sizes, read 2026-12-03).
inline constexpr double kMaxDiskGib = 32767;
// Data moved: up to 1e9 GB (an exabyte).
inline constexpr double kMaxGb = 1e9;
// Evictions per VM-hour: at most 60 (one a minute; Azure's highest eviction
// band is 20%+ a month, far below).
inline constexpr double kMaxEvictionsPerHour = 60;
}  // namespace range

}  // namespace gpuplan::cli
