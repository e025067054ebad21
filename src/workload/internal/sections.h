// Parsers of the sections of a workload file, shared between workload.cc
// (the top level) and the files that read each section. Each takes the
// section's node and its dotted field path, checks the keys, and fills one
// part of the Workload; every error is kInvalidArgument (kNotFound for an
// unknown model) naming file, line, column and field. Not API.
#pragma once

#include <map>
#include <string>

#include <yaml-cpp/yaml.h>

#include "core/result.h"
#include "workload/workload.h"
#include "workload/yaml_reader.h"

namespace gpuplan::workload::internal {

using yaml::for_each;
using yaml::Reader;

// `model:` (workload_model.cc): a built-in name, a base with overrides, an
// explicit architecture or params_b alone.
[[nodiscard]] Status parse_model(const Reader& r, const YAML::Node& node, Model& out);

// A token count: a number (fixed) or {distribution, mean, stddev, min, max}.
[[nodiscard]] Status parse_tokens(const Reader& r, const YAML::Node& node, const std::string& field,
                                  TokenDistribution& out);

// `data:`, `serving:`, `batch:`, `constraints:` and `assumptions:`
// (workload_sections.cc).
[[nodiscard]] Status parse_data(const Reader& r, const YAML::Node& node, const std::string& field,
                                Data& out);
[[nodiscard]] Status parse_serving(const Reader& r, const YAML::Node& node,
                                   const std::string& field, Serving& out);
[[nodiscard]] Status parse_batch(const Reader& r, const YAML::Node& node, const std::string& field,
                                 BatchJob& out);
[[nodiscard]] Status parse_constraints(const Reader& r, const YAML::Node& node, Constraints& c);
// `kind`: an override the kind's estimate never reads is an error at its
// line, not ignored (an mfu on an infer workload changed nothing, silently).
[[nodiscard]] Status parse_assumptions(const Reader& r, const YAML::Node& node,
                                       const std::string& field, Kind kind,
                                       std::map<std::string, double>& overrides);

}  // namespace gpuplan::workload::internal
