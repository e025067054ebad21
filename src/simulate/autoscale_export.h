// Export of the azure-autoscale serving policy as an Azure Monitor autoscale
// setting (ARM resource Microsoft.Insights/autoscaleSettings), so the policy
// that was simulated is the policy that gets deployed. The deploy module
// calls this for `autoscale.json`.
//
// Mapping (the simulator's rule -> the ARM rule):
//   metric utilization -> metricName "ReplicaUtilization" (percent of a
//                         replica's work capacity at the planning batch)
//   metric queue       -> metricName "QueuedRequests" (requests waiting)
//   both are custom metrics in namespace `metric_namespace`, published by
//   the serving engine (Azure Monitor custom metrics); time grain, statistic,
//   window, aggregation, operator and threshold are copied; scale-out rules
//   become direction Increase, scale-in Decrease, type ChangeCount; every
//   duration is ISO-8601 ("PT5M").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulate/serving.h"

namespace gpuplan::simulate {

struct AutoscaleTarget {
  std::string name = "gpuplan-autoscale";
  std::string location = "eastus";
  // The VM scale set the setting scales (ARM id or an ARM expression such as
  // "[resourceId('Microsoft.Compute/virtualMachineScaleSets', 'serve')]").
  std::string target_resource_uri;
  std::string metric_namespace = "gpuplan/serving";
  int minimum = 1;
  int maximum = 16;
  int default_capacity = 1;
};

// ISO-8601 duration of a whole number of seconds: 60 -> "PT1M", 300 ->
// "PT5M", 5400 -> "PT1H30M", 45 -> "PT45S".
[[nodiscard]] std::string iso8601_duration(double seconds);

// The ARM resource for `settings` (one profile named "default" with the
// capacity and every rule). Pure; never fails.
[[nodiscard]] nlohmann::ordered_json azure_autoscale_settings(const AutoscaleSettings& settings,
                                                              const AutoscaleTarget& target);

// slo-guard as Azure autoscale: the nearest rule set, and what it cannot say.
// Azure Monitor autoscale compares metrics with fixed thresholds and changes
// the count by fixed steps; slo-guard computes a count. So the serving
// router publishes slo-guard's deficit — the VMs it wants minus the scale
// set's count — as the custom metric `SloGuardDeficitVms` (namespace
// target.metric_namespace), and the rules act on it in tiers:
//   out: the Last minute's value (in a 5-minute window) > 0, > 2, > 5, > 10
//        -> +1, +3, +6, +11 (Azure applies the rule with the largest
//        increase when several fire);
//   in:  Maximum over one start-up (the ski-rental hold), at least 5
//        minutes, <= -1 -> -1.
// Azure Monitor's MetricTrigger allows a statistic of Average, Min, Max, Sum
// or Count and a timeWindow of 5 minutes to 12 hours (Microsoft.Insights
// autoscale REST API 2022-10-01; MetricTrigger.TimeWindow): a 1-minute
// window, or the statistic "Maximum", is refused when the resource is
// deployed.
// bugprone-exception-escape: clang-tidy 14 finds a throw in ordered_json's
// noexcept default constructor that value_t::null never reaches (it does not
// model noexcept bounds, llvm/llvm-project#54956; nlohmann/json carries the
// same NOLINT on that constructor).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct SloGuardExport {
  nlohmann::ordered_json resource;         // the Microsoft.Insights/autoscaleSettings resource
  AutoscaleSettings rules;                 // the same rules, for the simulator (metric "deficit")
  std::vector<std::string> not_expressed;  // what the rule set cannot say, one line each
};
[[nodiscard]] SloGuardExport slo_guard_autoscale_settings(const SloGuardSettings& guard,
                                                          double startup_s, double interval_s,
                                                          const AutoscaleTarget& target);

}  // namespace gpuplan::simulate
