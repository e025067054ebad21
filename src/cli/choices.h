// Typo help for enumerated values (issue 14, "typo help everywhere"):
//  - a flag whose values are a fixed list declares it with one_of(), which
//    both checks it (exit 2: "--pricing: unknown pricing 'spto' (expected
//    payg, spot, ...); did you mean 'spot'?") and shows the list to the
//    completion scripts and the man page (command_tree.cc reads the "{a,b}"
//    description, as it reads CLI11's IsMember);
//  - a value the catalog names (a region, VM size, GPU model or series) found
//    in a workload or scenario file is checked against the catalog by the
//    command, and the error points at its line and column (field_where()).
// The suggestion itself is strings::did_you_mean, the one every parser uses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "catalog/catalog.h"
#include "core/result.h"
#include "workload/workload.h"

namespace gpuplan::cli {

// A CLI11 check: the value is one of `choices` (case-insensitive, trimmed);
// with `list`, each of its comma-separated parts is. `what` names the kind of
// value in the error ("unknown pricing 'spto' (expected ...)").
[[nodiscard]] CLI::Validator one_of(std::string what, std::vector<std::string> choices,
                                    bool list = false);

// A CLI11 check: the value is not blank. For flags that narrow (--region,
// --series): a blank one (an unset variable in a script) read as no filter
// at all, and `plan --region ''` planned in every region.
[[nodiscard]] CLI::Validator not_blank(const std::string& flag_help);

// The names of the enumerations flags take.
[[nodiscard]] std::vector<std::string> pricing_names();    // payg, spot, reserved-1y, ...
[[nodiscard]] std::vector<std::string> os_names();         // linux, windows
[[nodiscard]] std::vector<std::string> sort_names();       // catalog --sort
[[nodiscard]] std::vector<std::string> objective_names();  // plan --objective
[[nodiscard]] std::vector<std::string> policy_names();     // every simulate policy, and "all"

// Where `value` sits in the YAML file `file` under the dotted key `field`
// ("constraints.regions"): its line and column (1-based), or the field's own
// when the value is not found among a list's items; line 0 when the file
// cannot be read again. For errors about values a parser accepted but the
// catalog does not know.
[[nodiscard]] Where field_where(const std::string& file, const std::string& field,
                                std::string_view value);

// `e` at its field's line and column in the workload's file, when the
// library that found it named a field of that file but no line (the
// planner's bound on a plan's hours, kMaxPlanFigure); else `e` unchanged.
[[nodiscard]] Error located_in(const workload::Workload& w, Error e);

// The catalog names a workload uses: constraints.regions and data_region
// (Azure regions, exit 2 with "did you mean"), constraints.series (a series
// or family letter the catalog has) and batch.reference_gpu (a GPU model),
// each error at the value's line and column.
[[nodiscard]] Status check_workload_names(const catalog::Catalog& catalog,
                                          const workload::Workload& w);

// A service given as serving.trace without request_rate: the trace's mean
// rate (path relative to the workload file), with its source. It was
// planned at 0 req/s — one replica for the Azure conversation trace's 5.5
// req/s. Unchanged when request_rate is given or there is no trace.
[[nodiscard]] Status rate_from_trace(workload::Workload& w);

}  // namespace gpuplan::cli
