// The cost model's rates (data/cost/rates.csv with data/cost/regions.csv):
// loading and validating the table, looking a rate up by name, key and
// region with its fallback, and the default usage every command starts
// from. Every constant of the cost model is a row here, with its source.
#include <algorithm>

#include "core/csv.h"
#include "cost/internal/cost_text.h"

namespace gpuplan::cost {

// ------------------------------------------------------------------ Rates

Result<Rates> Rates::load_embedded() {
  auto r = parse(internal::embedded_file("rates.csv"), internal::embedded_file("regions.csv"),
                 "data/cost/rates.csv", "data/cost/regions.csv");
  if (!r) return internal_error("embedded cost data: " + r.error().to_string());
  return r;
}

Result<Rates> Rates::parse(std::string_view rates_csv, std::string_view regions_csv,
                           const std::string& rates_file, const std::string& regions_file) {
  Rates out;
  GPUPLAN_TRY(csv::Table table, csv::parse(rates_csv, rates_file));
  for (const csv::Row& row : table.rows) {
    csv::RowReader r(table, row);
    Rate rate;
    GPUPLAN_TRY(rate.name, r.str("name"));
    GPUPLAN_TRY(rate.key, r.str("key"));
    GPUPLAN_TRY(rate.region, r.str("region"));
    GPUPLAN_TRY(rate.value, r.number("value"));
    if (rate.value < 0) return invalid_argument("a rate cannot be negative", r.where("value"));
    GPUPLAN_TRY(rate.unit, r.str("unit"));
    GPUPLAN_TRY(rate.as_of, r.str("as_of"));
    GPUPLAN_TRY(rate.confidence, r.str("confidence"));
    GPUPLAN_TRY(rate.source, r.str("source"));
    GPUPLAN_TRY(rate.notes, r.str("notes"));
    if (rate.name.empty()) return invalid_argument("empty rate name", r.where("name"));
    if (rate.source.empty())
      return invalid_argument("every rate needs a source", r.where("source"));
    if (rate.region.empty()) rate.region = "all";
    out.rows_.push_back(std::move(rate));
  }
  GPUPLAN_TRY(csv::Table regions, csv::parse(regions_csv, regions_file));
  for (const csv::Row& row : regions.rows) {
    csv::RowReader r(regions, row);
    GPUPLAN_TRY(std::string region, r.str("region"));
    GPUPLAN_TRY(std::string geo, r.str("geography"));
    if (region.empty() || geo.empty()) {
      return invalid_argument("region and geography must not be empty", r.where("region"));
    }
    out.geography_.emplace_back(strings::to_lower(region), geo);
  }
  return out;
}

const Rate* Rates::find(std::string_view name, std::string_view key, std::string_view region,
                        bool* fell_back) const {
  const Rate* all = nullptr;
  const Rate* eastus = nullptr;
  for (const Rate& r : rows_) {
    if (r.name != name || r.key != key) continue;
    if (r.region == region) {
      if (fell_back) *fell_back = false;
      return &r;
    }
    if (r.region == "all" && !all) all = &r;
    if (r.region == "eastus" && !eastus) eastus = &r;
  }
  if (all) {
    if (fell_back) *fell_back = false;
    return all;
  }
  if (eastus) {
    if (fell_back) *fell_back = true;
    return eastus;
  }
  return nullptr;
}

Result<const Rate*> Rates::require(std::string_view name, std::string_view key,
                                   std::string_view region, bool* fell_back) const {
  const Rate* r = find(name, key, region, fell_back);
  if (!r) {
    return internal_error("data/cost/rates.csv has no rate '" + std::string(name) +
                          (key.empty() ? "" : "' key '" + std::string(key)) + "'");
  }
  return r;
}

std::vector<const Rate*> Rates::all_named(std::string_view name, std::string_view region) const {
  std::vector<const Rate*> out;
  for (const Rate& r : rows_) {
    if (r.name == name && (r.region == region || r.region == "all")) out.push_back(&r);
  }
  return out;
}

std::string Rates::geography(std::string_view region) const {
  std::string key = strings::to_lower(region);
  for (const auto& [r, g] : geography_) {
    if (r == key) return g;
  }
  return "";
}

// ------------------------------------------------------------------ usage

Result<Usage> default_usage(const Rates& rates) {
  Usage u;
  GPUPLAN_TRY(const Rate* ev, rates.require("spot_eviction_rate_per_hour"));
  GPUPLAN_TRY(const Rate* ev_hi, rates.require("spot_eviction_rate_high_per_hour"));
  GPUPLAN_TRY(const Rate* restart, rates.require("spot_restart_hours"));
  GPUPLAN_TRY(const Rate* ckpt, rates.require("checkpoint_interval_hours"));
  GPUPLAN_TRY(const Rate* setup, rates.require("setup_hours"));
  GPUPLAN_TRY(const Rate* gran, rates.require("billing_granularity_seconds"));
  GPUPLAN_TRY(const Rate* minimum, rates.require("billing_minimum_seconds"));
  GPUPLAN_TRY(DataDisk disk, data_disk(rates, std::nullopt));
  u.eviction.rate_per_hour = ev->value;
  u.eviction.rate_high_per_hour = ev_hi->value;
  u.eviction.restart_hours = restart->value;
  u.eviction.checkpoint_interval_hours = ckpt->value;
  u.setup_hours = setup->value;
  u.billing_granularity_seconds = gran->value;
  u.billing_minimum_seconds = minimum->value;
  u.data_disk_gib = disk.gib;
  for (const Rate& r : rates.rows()) {
    if (r.name == "os_disk_tier") u.os_disk_tier = r.key;
  }
  return u;
}

}  // namespace gpuplan::cost
