// What deploy (and report) take from a plan: the ranked options, each as the
// small PlanOption below. Two ways in, one type out, no JSON round trip:
//   plan_document()   — a plan made in this process (`gpuplan deploy
//                       WORKLOAD.yaml`): copied field by field from
//                       plan::Option;
//   parse_plan_json() — `gpuplan plan --json` output read back (schemas
//                       gpuplan.plan/1 and /2, docs/json.md), with errors
//                       that name the file and the JSON path.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/result.h"
#include "plan/plan.h"

namespace gpuplan::deploy {

// One ranked option of a plan.
struct PlanOption {
  std::string size;                 // "Standard_NC40ads_H100_v5"
  int count = 1;                    // VMs
  double gpus = 0;                  // GPUs in all VMs
  std::string gpu;                  // GPU model ("gpu"; /1's "gpu_model"); may be ""
  std::optional<double> gpu_count;  // GPUs per VM ("gpu_count", /2 only)
  std::string region;
  catalog::Pricing pricing = catalog::Pricing::kPayg;
  catalog::Os os = catalog::Os::kLinux;
  bool hybrid_benefit = false;
  double hours = 0;  // wall-clock
  // Wall-clock hours at the plan's high end ("hours_high": the high eviction
  // rate); 0 when the plan does not say (then `hours` is the worst case).
  double hours_high = 0;
  double cost_usd = 0;  // expected total
  double cost_low_usd = 0;
  double cost_high_usd = 0;
  double usd_per_hour = 0;  // all VMs
  bool quota_ok = true;
  std::string kind;          // workload kind when the option carries it
  std::string price_source;  // "price.source", may be ""
  std::string price_as_of;   // "price.as_of", may be ""
  // A confidential-computing size the workload asked for ("confidential",
  // false when absent): deploy must build it as a Confidential VM.
  bool confidential = false;
};

struct PlanDocument {
  std::string file;           // as the user gave it
  std::string workload_name;  // workload.name, else the file stem
  std::string workload_kind;  // workload.kind ("train", "finetune", "infer", "batch", ...)
  std::vector<PlanOption> options;
  // The plan's data-disk size in GiB when its assumptions[] name one
  // ("data_disk_gib"); nullopt otherwise.
  std::optional<double> data_disk_gib;
};

// Parses plan JSON text: "schema" "gpuplan.plan/1" or "gpuplan.plan/2" (a
// document without "schema" is read as /1). kInvalidArgument naming file and
// JSON path ("options[2].count") for any other schema, a missing or mistyped
// field, an unknown pricing or OS, a count below 1 or a negative cost/hours.
// An empty options[] is valid here (deploy then reports that the plan has no
// feasible option).
[[nodiscard]] Result<PlanDocument> parse_plan_json(std::string_view text, const std::string& file);

// The same document for a plan made in this process; `file` is the workload
// file it was planned from. Never fails: the planner's options are valid.
[[nodiscard]] PlanDocument plan_document(const plan::Plan& plan, const std::string& file);

}  // namespace gpuplan::deploy
