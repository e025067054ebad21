// The JSON of `gpuplan cost --json` and GET /api/cost (docs/cost.md, docs/json.md):
// every number at full precision.
#include <nlohmann/json.hpp>

#include "core/json_value.h"
#include "cost/cost.h"

namespace gpuplan::cost {

GPUPLAN_JSON_FIELDS(SizeCost, size, gpu, gpu_count, region, os, hybrid_benefit, count, hours,
                    utilization)

nlohmann::ordered_json to_json(const SizeCost& sc) {
  nlohmann::ordered_json j = sc;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const PricingCost& r : sc.rows) {
    nlohmann::ordered_json row;
    row["pricing"] = std::string(catalog::to_string(r.pricing));
    if (!r.breakdown) {
      row["available"] = false;
      row["missing"] = r.missing;
      rows.push_back(std::move(row));
      continue;
    }
    const CostBreakdown& b = *r.breakdown;
    row["available"] = true;
    row["usd_per_hour_vm"] = b.quote.compute_usd_per_hour + b.quote.licence_usd_per_hour;
    row["compute_usd_per_hour_vm"] = b.quote.compute_usd_per_hour;
    row["licence_usd_per_hour_vm"] = b.quote.licence_usd_per_hour;
    row["cost_usd"] = b.numbers.total_usd;
    row["usd_per_hour"] = b.numbers.usd_per_hour;
    row["break_even_utilization"] = r.break_even_utilization;
    row["source"] = b.quote.source;
    row["as_of"] = b.quote.as_of;
    row["estimated"] = b.quote.estimated;
    row["rule"] = b.quote.rule;
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const CostLine& l : b.lines) {
      lines.push_back({{"name", l.name}, {"usd", l.usd}, {"assumption", l.assumption}});
    }
    row["cost_lines"] = std::move(lines);
    rows.push_back(std::move(row));
  }
  j["pricing"] = std::move(rows);
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& [name, value] : sc.assumptions) a.push_back({{"name", name}, {"value", value}});
  j["assumptions"] = std::move(a);
  j["warnings"] = sc.warnings;
  return j;
}

}  // namespace gpuplan::cost
