// The scenario parser's shared pieces: the ceilings of every numeric key,
// the YAML walker (a Reader that knows the file and the dotted key path,
// rejects unknown keys with "did you mean", and converts scalars with type
// and range checks), and the parsers of each kind's sections. Used by
// scenario.cc (the top level) and scenario_{deadline,serving,reserve}.cc;
// not API.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/result.h"
#include "core/strings.h"
#include "core/units.h"
#include "simulate/scenario.h"

namespace gpuplan::simulate::internal {

// Ceilings of the numeric keys (docs/simulate.md, "Limits"). Each is far
// beyond a real scenario and low enough that the arithmetic derived from it
// (steps, requests, fleet sizes, int64 microseconds) cannot overflow or
// divide by a vanishing step: the parser rejects, with the key named, what
// used to abort the process (issue 15).
constexpr double kMaxHours = 10 * kHoursPerYear;  // any duration: 10 years
constexpr double kSecondsPerDay = 86400;
// Spot supply changes on the scale of Azure's 30 s eviction notice (Scheduled
// Events); a step below one second only multiplies the work.
constexpr double kMinGapSeconds = 1;
constexpr double kMaxTokens = 1e7;  // the longest context windows (10 M tokens)
constexpr double kMinRateRps = 1e-6;
constexpr double kMaxRateRps = 1e6;
constexpr double kMaxBurstMultiplier = 1000;
constexpr size_t kMaxBursts = 1000;
constexpr double kMinTimeScale = 1e-6;
constexpr double kMaxTimeScale = 1e6;
constexpr double kMaxVms = 1e5;
constexpr double kMaxUsdPerHour = 1e5;
// Rate noise: a CV of 2 already makes most periods near-silent and a few
// 10x busier (its 4-sigma clamp is ~13x the mean).
constexpr double kMaxNoiseCv = 2;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  Where where(const YAML::Node& n, const std::string& field) const {
    const YAML::Mark m = n.Mark();
    return Where{file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, field};
  }
  tl::unexpected<Error> bad(const YAML::Node& n, const std::string& field,
                            const std::string& msg) const {
    return invalid_argument(msg, where(n, field));
  }
  Status keys(const YAML::Node& map, const std::string& path,
              const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) return bad(map, path, "expected a mapping");
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string k = it->first.Scalar();
      bool ok = false;
      for (const auto& a : allowed) ok = ok || a == k;
      if (ok) continue;
      std::string msg = "unknown key '" + k + "'";
      if (auto c = strings::closest(k, allowed))
        msg += "; did you mean '" + *c + "'?";
      else {
        msg += "; expected one of:";
        for (const auto& a : allowed) msg += " " + a;
      }
      return bad(it->first, join(path, k), msg);
    }
    return {};
  }
  Result<double> num(const YAML::Node& n, const std::string& field, double lo, double hi) const {
    if (!n.IsScalar()) return bad(n, field, "expected a number");
    auto v = strings::parse_double(strings::trim(n.Scalar()));
    if (!v) return bad(n, field, "expected a number, got '" + n.Scalar() + "'");
    if (*v < lo || *v > hi)
      return bad(
          n, field,
          "expected a number in [" + strings::fixed(lo, lo == std::floor(lo) ? 0 : 3) + ", " +
              (hi >= 1e15 ? std::string("inf") : strings::fixed(hi, hi == std::floor(hi) ? 0 : 3)) +
              "], got " + n.Scalar());
    return *v;
  }
  // A number > 0 and at most `hi` (every field has a documented ceiling: see
  // the limits at the top of this file).
  Result<double> positive(const YAML::Node& n, const std::string& field, double hi) const {
    GPUPLAN_TRY(double v, num(n, field, 0, hi));
    if (!(v > 0)) return bad(n, field, "expected a number > 0, got " + n.Scalar());
    return v;
  }
  Result<int> integer(const YAML::Node& n, const std::string& field, int lo, int hi) const {
    GPUPLAN_TRY(double v, num(n, field, lo, hi));
    if (v != std::floor(v)) return bad(n, field, "expected a whole number, got " + n.Scalar());
    return static_cast<int>(v);
  }
  Result<std::string> str(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar() || n.Scalar().empty()) return bad(n, field, "expected a non-empty string");
    return n.Scalar();
  }
  static std::string join(const std::string& path, const std::string& k) {
    return path.empty() ? k : path + "." + k;
  }

 private:
  std::string file_;
};

// `p` resolved against the scenario's directory (absolute paths as given).
[[nodiscard]] std::string resolve(const std::string& dir, const std::string& p);

// A token distribution {mean, stddev, min, max} (scenario.cc).
[[nodiscard]] Status parse_tokens(const Reader& r, const YAML::Node& n, const std::string& f,
                                  TokenDist& out);

// The keys of each kind (job and spot; the serving model, fleet and demand;
// reservation and fleet demand), read into `s` after the common keys.
[[nodiscard]] Status parse_deadline(const Reader& r, const YAML::Node& root, Scenario& s);
[[nodiscard]] Status parse_serving(const Reader& r, const YAML::Node& root, Scenario& s);
[[nodiscard]] Status parse_reserve(const Reader& r, const YAML::Node& root, Scenario& s);

}  // namespace gpuplan::simulate::internal
