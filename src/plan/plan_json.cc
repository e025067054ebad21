// The stable JSON of a plan (docs/plan.md and docs/json.md, "schema":
// "gpuplan.plan/2"). Keys are only ever added within a version; /2 renamed
// /1's "gpu_model" to "gpu" and added "gpu_count" (GPUs per VM), the names
// the catalog uses. Every number is written at full precision: rounding is
// for text (core/format.h), and a script must read the value computed.
#include "core/json_value.h"
#include "plan/plan.h"

namespace gpuplan::plan {

// Beside the types' namespace, where argument-dependent lookup finds them.
// An option renames a member ("gpu" is gpu_model) and adds computed keys:
// to_json(Option) lists the runs of fields between those.
GPUPLAN_JSON_FIELDS(QuotaLimit, scope, resource, limit, used, needed, new_limit, command)
GPUPLAN_JSON_FIELDS(GrowthWeek, week, demand_factor, rate_rps, replicas, vms, hours, cost_usd,
                    budget_usd, meets_deadline, within_budget, beyond_scale_set)
GPUPLAN_JSON_FIELDS(Growth, growth_per_week, horizon_weeks, weeks, flat_cost_usd, grown_cost_usd,
                    mean_load_factor, reserve_pays_until_week, reserve_vms, misses_deadline_week,
                    move_to, over_budget_week, beyond_scale_set_week, summary)
// band_source and band_as_of are null without a band (to_json(Option)).
GPUPLAN_JSON_FIELDS(SpotRisk, eviction_rate_per_hour, eviction_rate_high_per_hour,
                    job_eviction_rate_per_hour, expected_evictions, deadline_miss_probability,
                    level, rate_basis, band, band_source, band_as_of, spare_vms)
GPUPLAN_JSON_FIELDS(Drop, reason, count, regions, sizes, example)
GPUPLAN_JSON_FIELDS(Assumption, name, value, source)

nlohmann::ordered_json to_json(const Option& o) {
  nlohmann::ordered_json j;
  GPUPLAN_JSON_WRITE_FIELDS(j, o, rank, size, count, gpus);
  j["gpu"] = o.gpu_model;
  GPUPLAN_JSON_WRITE_FIELDS(j, o, gpu_count, region, pricing, os, hybrid_benefit, hours, hours_low,
                            hours_high, work_hours, cost_usd, cost_low_usd, cost_high_usd,
                            usd_per_hour, usd_per_gpu_hour, vcpus, quota_ok, quota_known,
                            quota_family, quota_headroom_vcpus, kind, layout);
  j["estimate"] = {
      {"throughput", o.throughput}, {"throughput_unit", o.throughput_unit}, {"mfu", o.mfu}};
  j["price"] = {{"usd_per_hour_vm", o.price.compute_usd_per_hour + o.price.licence_usd_per_hour},
                {"compute_usd_per_hour_vm", o.price.compute_usd_per_hour},
                {"licence_usd_per_hour_vm", o.price.licence_usd_per_hour},
                {"source", o.price.source},
                {"as_of", o.price.as_of},
                {"estimated", o.price.estimated},
                {"rule", o.price.rule}};
  j["spot_risk"] = o.spot_risk;
  if (o.spot_risk && !o.spot_risk->band) {
    j["spot_risk"]["band_source"] = nullptr;
    j["spot_risk"]["band_as_of"] = nullptr;
  }
  j["why"] = o.why;
  if (!o.fallback_for.empty()) j["fallback_for"] = o.fallback_for;
  GPUPLAN_JSON_WRITE_FIELDS(j, o, confidential, caveats, price_warnings);
  nlohmann::ordered_json lines = nlohmann::ordered_json::array();
  for (const cost::CostLine& l : o.lines) {
    lines.push_back({{"name", l.name}, {"usd", l.usd}, {"assumption", l.assumption}});
  }
  j["cost_lines"] = std::move(lines);
  return j;
}

nlohmann::ordered_json to_json(const Plan& p) {
  nlohmann::ordered_json j;
  j["schema"] = std::string(kPlanSchema);
  j["workload"] = {{"name", p.workload_name}, {"file", p.workload_file}, {"kind", p.kind}};
  j["objective"] = std::string(to_string(p.objective));
  j["considered"] = p.considered;
  j["feasible"] = p.feasible;
  auto list = [](const std::vector<Option>& v) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const Option& o : v) a.push_back(to_json(o));
    return a;
  };
  j["options"] = list(p.options);
  j["frontier"] = list(p.frontier);
  j["fallbacks"] = list(p.fallbacks);
  j["dropped"] = p.dropped;
  j["warnings"] = p.warnings;
  j["assumptions"] = p.assumptions;
  nlohmann::ordered_json requests = nlohmann::ordered_json::array();
  for (const QuotaRequest& q : p.quota_requests) {
    requests.push_back({{"family", q.family},
                        {"region", q.region},
                        {"spot", q.spot},
                        {"limit", q.limit},
                        {"used", q.used},
                        {"vcpus_needed", q.vcpus_needed},
                        {"new_limit", q.new_limit},
                        {"unlocks", to_json(q.unlocks)},
                        {"saves_usd", q.saves_usd},
                        {"command", q.command},
                        {"limits", q.limits}});
  }
  j["quota_requests"] = std::move(requests);
  j["growth"] = p.growth;
  return j;
}

}  // namespace gpuplan::plan
