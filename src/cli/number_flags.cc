#include "cli/number_flags.h"

#include <cmath>

#include "core/strings.h"

namespace gpuplan::cli {

namespace {
std::string show(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return strings::fixed(v, 0);
  return strings::general(v);
}
}  // namespace

CLI::Validator number_in(double lo, double hi, Low low, bool integer) {
  const std::string range =
      std::string(low == Low::kOpen ? "(" : "[") + show(lo) + ", " + show(hi) + "]";
  const std::string what = integer ? "a whole number" : "a number";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        auto v = strings::parse_double(strings::trim(text));
        if (!v) return "expected " + what + " in " + range + ", got '" + text + "'";
        const bool below = low == Low::kOpen ? *v <= lo : *v < lo;
        if (below || *v > hi || (integer && *v != std::floor(*v)))
          return "expected " + what + " in " + range + ", got " + text;
        return "";
      },
      (integer ? "INT in " : "NUMBER in ") + range);
}

}  // namespace gpuplan::cli
