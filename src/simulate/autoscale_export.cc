#include "simulate/autoscale_export.h"

#include <cmath>

namespace gpuplan::simulate {

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
    trigger["metricName"] = r.metric == "queue" ? "QueuedRequests" : "ReplicaUtilization";
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

}  // namespace gpuplan::simulate
