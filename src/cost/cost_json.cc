// The JSON of `gpuplan cost --json` and GET /api/cost (docs/cost.md).
#include <nlohmann/json.hpp>

#include "cost/cost.h"

namespace gpuplan::cost {

namespace {

double round4(double v) {
  return static_cast<double>(static_cast<long long>(v * 10000 + (v >= 0 ? 0.5 : -0.5))) / 10000;
}

}  // namespace

nlohmann::ordered_json to_json(const SizeCost& sc) {
  nlohmann::ordered_json j;
  j["size"] = sc.size;
  j["region"] = sc.region;
  j["os"] = std::string(catalog::to_string(sc.os));
  j["hybrid_benefit"] = sc.hybrid_benefit;
  j["count"] = sc.count;
  j["hours"] = round4(sc.hours);
  if (sc.utilization) {
    j["utilization"] = *sc.utilization;
  } else {
    j["utilization"] = nullptr;
  }
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
    row["usd_per_hour_vm"] = round4(b.quote.compute_usd_per_hour + b.quote.licence_usd_per_hour);
    row["compute_usd_per_hour_vm"] = round4(b.quote.compute_usd_per_hour);
    row["licence_usd_per_hour_vm"] = round4(b.quote.licence_usd_per_hour);
    row["cost_usd"] = round4(b.numbers.total_usd);
    row["effective_usd_per_hour"] = round4(b.numbers.usd_per_hour);
    if (r.break_even_utilization) {
      row["break_even_utilization"] = round4(*r.break_even_utilization);
    } else {
      row["break_even_utilization"] = nullptr;
    }
    row["source"] = b.quote.source;
    row["as_of"] = b.quote.as_of;
    row["estimated"] = b.quote.estimated;
    row["rule"] = b.quote.rule;
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const CostLine& l : b.lines) {
      lines.push_back({{"name", l.name}, {"usd", round4(l.usd)}, {"assumption", l.assumption}});
    }
    row["cost_lines"] = std::move(lines);
    rows.push_back(std::move(row));
  }
  j["pricing"] = std::move(rows);
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& [name, value] : sc.assumptions) a.push_back({{"name", name}, {"value", value}});
  j["assumptions"] = std::move(a);
  return j;
}

}  // namespace gpuplan::cost
