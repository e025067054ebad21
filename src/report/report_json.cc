// `gpuplan report --json` (schema gpuplan.report/1; docs/report.md, docs/json.md):
// every number at full precision.
#include <cmath>

#include "core/json_value.h"
#include "report/report.h"

namespace gpuplan::report {

// Beside the types' namespace, where argument-dependent lookup finds them. A
// VM and the report itself rename some members (gpu, cost_usd, ...): their
// writers below list the runs of fields between those keys.
GPUPLAN_JSON_FIELDS(DayCost, date, usd, hours)
GPUPLAN_JSON_FIELDS(CommitmentReport, id, name, type, size, region, used_hours, used_usd,
                    unused_usd, purchase_usd, utilization, basis)
GPUPLAN_JSON_FIELDS(Finding, kind, subject, date, usd, what, recommendation)

namespace {

nlohmann::ordered_json vm_json(const VmReport& v) {
  nlohmann::ordered_json j;
  GPUPLAN_JSON_WRITE_FIELDS(j, v, resource_id, name, size, region);
  j["gpu"] = v.gpu_model;
  GPUPLAN_JSON_WRITE_FIELDS(j, v, gpu_count, days_running, hours_billed);
  j["cost_usd"] = v.usd_total;
  j["compute_usd"] = v.usd_compute;
  nlohmann::ordered_json by = nlohmann::ordered_json::object();
  for (int i = 0; i < kCategories; ++i) {
    by[std::string(to_string(static_cast<Category>(i)))] = {{"usd", v.usd_by_category[i]},
                                                            {"hours", v.hours_by_category[i]}};
  }
  j["by_pricing"] = by;
  GPUPLAN_JSON_WRITE_FIELDS(j, v, effective_usd_per_gpu_hour, list_usd_per_gpu_hour, list_source,
                            list_as_of, daily);
  return j;
}

}  // namespace

nlohmann::ordered_json to_json(const Report& r) {
  nlohmann::ordered_json j;
  j["schema"] = "gpuplan.report/1";
  GPUPLAN_JSON_WRITE_FIELDS(j, r, file, format, rows, first_day, last_day, currency);
  j["cost_usd"] = r.usd_total;
  j["gpu_vm_cost_usd"] = r.usd_gpu_vms;
  if (r.plan) {
    j["plan"] = {{"file", r.plan_file},      {"option", r.plan_option},
                 {"size", r.plan->size},     {"count", r.plan->count},
                 {"region", r.plan->region}, {"pricing", catalog::to_string(r.plan->pricing)},
                 {"hours", r.plan->hours}};
  } else {
    j["plan"] = nullptr;
  }
  j["anomaly_rule"] = {{"window_days", r.rule.window_days},
                       {"k", r.rule.k},
                       {"mad_scale", 1.4826},
                       {"min_history_days", r.rule.min_history_days},
                       {"min_excess_hours", r.rule.min_excess_hours},
                       {"text", r.rule.text()}};
  nlohmann::ordered_json vms = nlohmann::ordered_json::array();
  for (const VmReport& v : r.vms) vms.push_back(vm_json(v));
  j["vms"] = vms;
  GPUPLAN_JSON_WRITE_FIELDS(j, r, commitments, findings, assumptions);
  return j;
}

}  // namespace gpuplan::report
