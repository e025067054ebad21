// The scenario parser's shared pieces: the ceilings of every numeric key and
// the parsers of each kind's sections. The YAML walker is the one every
// parser uses, yaml::Reader (workload/yaml_reader.h). Used by
// scenario.cc (the top level) and scenario_{deadline,serving,reserve}.cc;
// not API.
#pragma once

#include <cstddef>
#include <string>

#include <yaml-cpp/yaml.h>

#include "core/result.h"
#include "core/units.h"
#include "simulate/scenario.h"
#include "workload/yaml_reader.h"

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

using yaml::Reader;

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
