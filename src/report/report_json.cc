// `gpuplan report --json` (schema gpuplan.report/1; docs/report.md, docs/json.md):
// every number at full precision.
#include <cmath>

#include "core/json_value.h"
#include "report/report.h"

namespace gpuplan::report {

// Beside the types' namespace, where argument-dependent lookup finds them. A
// VM's and the report's own keys rename their members (gpu, cost_usd, ...):
// those are written by hand below.
GPUPLAN_JSON_FIELDS(DayCost, date, usd, hours)
GPUPLAN_JSON_FIELDS(CommitmentReport, id, name, type, size, region, used_hours, used_usd,
                    unused_usd, purchase_usd, utilization, basis)
GPUPLAN_JSON_FIELDS(Finding, kind, subject, date, usd, what, recommendation)

namespace {

nlohmann::ordered_json vm_json(const VmReport& v) {
  nlohmann::ordered_json j;
  j["resource_id"] = v.resource_id;
  j["name"] = v.name;
  j["size"] = v.size;
  j["region"] = v.region;
  j["gpu"] = v.gpu_model;
  j["gpu_count"] = v.gpu_count;
  j["days_running"] = v.days_running;
  j["hours_billed"] = v.hours_billed;
  j["cost_usd"] = v.usd_total;
  j["compute_usd"] = v.usd_compute;
  nlohmann::ordered_json by = nlohmann::ordered_json::object();
  for (int i = 0; i < kCategories; ++i) {
    by[std::string(to_string(static_cast<Category>(i)))] = {{"usd", v.usd_by_category[i]},
                                                            {"hours", v.hours_by_category[i]}};
  }
  j["by_pricing"] = by;
  j["effective_usd_per_gpu_hour"] = v.effective_usd_per_gpu_hour;
  j["list_usd_per_gpu_hour"] = v.list_usd_per_gpu_hour;
  j["list_source"] = v.list_source;
  j["list_as_of"] = v.list_as_of;
  j["daily"] = v.daily;
  return j;
}

}  // namespace

nlohmann::ordered_json to_json(const Report& r) {
  nlohmann::ordered_json j;
  j["schema"] = "gpuplan.report/1";
  j["file"] = r.file;
  j["format"] = std::string(to_string(r.format));
  j["rows"] = r.rows;
  j["first_day"] = r.first_day;
  j["last_day"] = r.last_day;
  j["currency"] = r.currency;
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
  j["commitments"] = r.commitments;
  j["findings"] = r.findings;
  j["assumptions"] = r.assumptions;
  return j;
}

}  // namespace gpuplan::report
