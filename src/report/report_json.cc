// `gpuplan report --json` (schema gpuplan.report/1; docs/report.md, docs/json.md):
// every number at full precision.
#include <cmath>

#include "core/json_value.h"
#include "report/report.h"

namespace gpuplan::report {
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
  j["effective_usd_per_gpu_hour"] = json::or_null(v.effective_usd_per_gpu_hour);
  j["list_usd_per_gpu_hour"] = json::or_null(v.list_usd_per_gpu_hour);
  j["list_source"] = v.list_source;
  j["list_as_of"] = v.list_as_of;
  nlohmann::ordered_json days = nlohmann::ordered_json::array();
  for (const DayCost& d : v.daily)
    days.push_back({{"date", d.date}, {"usd", d.usd}, {"hours", d.hours}});
  j["daily"] = days;
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
  nlohmann::ordered_json cs = nlohmann::ordered_json::array();
  for (const CommitmentReport& c : r.commitments) {
    cs.push_back({{"id", c.id},
                  {"name", c.name},
                  {"type", c.type},
                  {"size", c.size},
                  {"region", c.region},
                  {"used_hours", c.used_hours},
                  {"used_usd", c.used_usd},
                  {"unused_usd", c.unused_usd},
                  {"purchase_usd", c.purchase_usd},
                  {"utilization", json::or_null(c.utilization)},
                  {"basis", c.basis}});
  }
  j["commitments"] = cs;
  nlohmann::ordered_json fs = nlohmann::ordered_json::array();
  for (const Finding& f : r.findings) {
    fs.push_back({{"kind", std::string(to_string(f.kind))},
                  {"subject", f.subject},
                  {"date", f.date},
                  {"usd", f.usd},
                  {"what", f.what},
                  {"recommendation", f.recommendation}});
  }
  j["findings"] = fs;
  j["assumptions"] = r.assumptions;
  return j;
}

}  // namespace gpuplan::report
