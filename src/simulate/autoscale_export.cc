#include "simulate/autoscale_export.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpuplan::simulate {

namespace {
// MetricTrigger.timeWindow's least value, 5 minutes (Microsoft.Insights
// autoscale REST API; Microsoft.Azure.Management.Insights.Models
// MetricTrigger.TimeWindow: "Must be between 12 hours and 5 minutes").
constexpr double kMinWindowS = 300;
}  // namespace

std::string iso8601_duration(double seconds) {
  long long s = std::llround(seconds);
  if (s <= 0) return "PT0S";
  std::string out = "PT";
  const long long h = s / 3600, m = (s % 3600) / 60, sec = s % 60;
  if (h) out += std::to_string(h) + "H";
  if (m) out += std::to_string(m) + "M";
  if (sec) out += std::to_string(sec) + "S";
  return out;
}

nlohmann::ordered_json azure_autoscale_settings(const AutoscaleSettings& settings,
                                                const AutoscaleTarget& target) {
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (const AutoscaleRule& r : settings.rules) {
    nlohmann::ordered_json trigger;
    trigger["metricName"] = r.metric == "queue"     ? "QueuedRequests"
                            : r.metric == "deficit" ? "SloGuardDeficitVms"
                                                    : "ReplicaUtilization";
    trigger["metricNamespace"] = target.metric_namespace;
    trigger["metricResourceUri"] = target.target_resource_uri;
    trigger["timeGrain"] = iso8601_duration(settings.time_grain_s);
    trigger["statistic"] = r.statistic;
    trigger["timeWindow"] = iso8601_duration(r.window_s);
    trigger["timeAggregation"] = r.time_aggregation;
    trigger["operator"] = r.op;
    trigger["threshold"] = r.threshold;
    nlohmann::ordered_json action;
    action["direction"] = r.scale_out ? "Increase" : "Decrease";
    action["type"] = "ChangeCount";
    action["value"] = std::to_string(r.change);
    action["cooldown"] = iso8601_duration(r.cooldown_s);
    rules.push_back({{"metricTrigger", trigger}, {"scaleAction", action}});
  }
  nlohmann::ordered_json profile;
  profile["name"] = "default";
  profile["capacity"] = {{"minimum", std::to_string(target.minimum)},
                         {"maximum", std::to_string(target.maximum)},
                         {"default", std::to_string(target.default_capacity)}};
  profile["rules"] = rules;
  nlohmann::ordered_json res;
  res["type"] = "Microsoft.Insights/autoscaleSettings";
  res["apiVersion"] = "2022-10-01";
  res["name"] = target.name;
  res["location"] = target.location;
  res["properties"] = {{"name", target.name},
                       {"enabled", true},
                       {"targetResourceUri", target.target_resource_uri},
                       {"profiles", nlohmann::ordered_json::array({profile})}};
  return res;
}

SloGuardExport slo_guard_autoscale_settings(const SloGuardSettings& guard, double startup_s,
                                            double interval_s, const AutoscaleTarget& target) {
  SloGuardExport out;
  AutoscaleSettings& s = out.rules;
  s.time_grain_s = 60;  // Azure Monitor autoscale's finest time grain (PT1M)
  // Scale-out tiers: the last grain's deficit (the largest any router
  // instance published) above a threshold adds threshold + 1 VMs; the
  // largest increase wins when several fire. Azure's shortest window is 5
  // minutes; "Last" reads its newest minute, so a deficit already met does
  // not fire again at the next grain, as a 5-minute maximum would.
  for (const auto& [above, add] : {std::pair{0, 1}, {2, 3}, {5, 6}, {10, 11}})
    s.rules.push_back({"deficit", "GreaterThan", static_cast<double>(above), kMinWindowS, "Max",
                       "Last", true, add, 60});
  // Scale-in: the deficit (whole VMs) stayed at -1 or below — a VM too many —
  // over the hold window slo-guard uses (one start-up delay, at least a
  // minute: slo_guard.cc); one VM at a time.
  const double hold = guard.hold_s > 0 ? guard.hold_s : std::max(startup_s, 60.0);
  const double window = std::max(kMinWindowS, std::ceil(hold / 60) * 60);
  s.rules.push_back({"deficit", "LessThan", -0.5, window, "Max", "Maximum", false, 1, 60});
  out.resource = azure_autoscale_settings(s, target);
  out.not_expressed = {
      "the need itself (the prefill of the busiest 1-64 s windows, the M/G/N prefill queue, "
      "the TPOT load, decode slots, the learned load ratio, the miss calibration) is computed "
      "outside Azure Monitor: the router must publish it as the custom metric "
      "SloGuardDeficitVms",
      "slo-guard decides every " + std::to_string(static_cast<int>(interval_s)) +
          " s; Azure autoscale evaluates at a 1-minute time grain at best",
      "slo-guard sets the count it computes; autoscale changes it by fixed steps: tiers of +1, +3, "
      "+6 and +11 VMs for deficits above 0, 2, 5 and 10 (at most 10 rules per profile)",
      "scale-in to the largest need of the hold window in one step becomes -1 VM per minute while "
      "the window's largest deficit stays at -1 or below; the window is at least 5 minutes (Azure "
      "Monitor's shortest), longer than slo-guard's hold when the start-up is shorter",
  };
  return out;
}

}  // namespace gpuplan::simulate
