// list-skus importer.
//
// Problem: `az vm list-skus --all` is the only place that says, for THIS
// subscription, where a size can be deployed: `locations` and
// `locationInfo[].zones` say where it is offered; `restrictions[]` say where
// it is not available to the subscription (reasonCode
// NotAvailableForSubscription, or QuotaId). A restriction of type "Location"
// lists regions in `values` / `restrictionInfo.locations` and takes the whole
// region away; type "Zone" lists regions in `restrictionInfo.locations` and
// the zones in `restrictionInfo.zones` — the size is still deployable in the
// other zones. The output also carries a "GPUs" capability, which is rounded
// for fractional-GPU sizes, so it is never read: GPU counts come from the
// catalog's size table only.
// Approach: validate the document shape (array, or REST envelope with
// "value"), keep virtualMachines entries for known GPU sizes, and store one
// availability row per (size, region) and one restriction row per (size,
// region, type). Region names are lower-cased without spaces, as armRegionName.
// Trade-off: `--all` output covers every region, so the newest skus import
// replaces the previous one as a whole (store.cc), rather than merging.
#include "catalog/import_skus.h"

#include <algorithm>
#include <set>

#include "core/files.h"
#include "core/names.h"
#include "core/strings.h"

namespace gpuplan::catalog {
namespace {

using internal::json_type_name;
using internal::normalize_region;
using internal::optional_string;
using internal::require_string;

Result<std::vector<std::string>> string_array(const nlohmann::json& obj, const char* key,
                                              const std::string& origin, const std::string& path) {
  std::vector<std::string> out;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return out;
  std::string field = path + "." + key;
  if (!it->is_array())
    return invalid_argument("expected an array of strings, got " + json_type_name(*it),
                            Where{origin, 0, 0, field});
  for (size_t i = 0; i < it->size(); ++i) {
    const auto& v = (*it)[i];
    if (!v.is_string())
      return invalid_argument("expected a string, got " + json_type_name(v),
                              Where{origin, 0, 0, field + "[" + std::to_string(i) + "]"});
    out.push_back(v.get<std::string>());
  }
  return out;
}

// A SKU's locationInfo[]: each region's zones, sorted.
Result<std::map<std::string, std::vector<std::string>>> location_zones(const nlohmann::json& sku,
                                                                       const std::string& origin,
                                                                       const std::string& path) {
  std::map<std::string, std::vector<std::string>> zones;
  if (auto li = sku.find("locationInfo"); li != sku.end() && !li->is_null()) {
    if (!li->is_array())
      return invalid_argument("expected an array, got " + json_type_name(*li),
                              Where{origin, 0, 0, path + ".locationInfo"});
    for (size_t j = 0; j < li->size(); ++j) {
      const auto& info = (*li)[j];
      std::string ipath = path + ".locationInfo[" + std::to_string(j) + "]";
      if (!info.is_object())
        return invalid_argument("expected an object, got " + json_type_name(info),
                                Where{origin, 0, 0, ipath});
      GPUPLAN_TRY(std::string loc, require_string(info, "location", origin, ipath));
      GPUPLAN_TRY(std::vector<std::string> z, string_array(info, "zones", origin, ipath));
      std::sort(z.begin(), z.end());
      zones[normalize_region(loc)] = std::move(z);
    }
  }
  return zones;
}

// A restriction that takes a size away from a region (all its zones when
// `zones` is empty) for this subscription.
struct ParsedRestriction {
  std::string region;
  std::string reason;
  std::vector<std::string> zones;
};

// One restrictions[] entry, at `rpath`: a Location restriction takes each
// region it names away; a Zone restriction takes the zones of
// restrictionInfo away in each of its regions.
Status parse_restriction(const nlohmann::json& r, const std::string& origin,
                         const std::string& rpath, std::vector<ParsedRestriction>& out) {
  if (!r.is_object())
    return invalid_argument("expected an object, got " + json_type_name(r),
                            Where{origin, 0, 0, rpath});
  GPUPLAN_TRY(std::string rtype, require_string(r, "type", origin, rpath));
  GPUPLAN_TRY(auto reason, optional_string(r, "reasonCode", origin, rpath));
  GPUPLAN_TRY(std::vector<std::string> values, string_array(r, "values", origin, rpath));
  std::vector<std::string> info_locations, info_zones;
  if (auto ri = r.find("restrictionInfo"); ri != r.end() && !ri->is_null()) {
    if (!ri->is_object())
      return invalid_argument("expected an object, got " + json_type_name(*ri),
                              Where{origin, 0, 0, rpath + ".restrictionInfo"});
    GPUPLAN_TRY(info_locations, string_array(*ri, "locations", origin, rpath + ".restrictionInfo"));
    GPUPLAN_TRY(info_zones, string_array(*ri, "zones", origin, rpath + ".restrictionInfo"));
  }
  std::string why = reason.value_or("unspecified");
  if (rtype == "Location") {
    std::set<std::string> regions;
    for (const auto& v : values) regions.insert(normalize_region(v));
    for (const auto& v : info_locations) regions.insert(normalize_region(v));
    for (const auto& reg : regions) out.push_back(ParsedRestriction{reg, why, {}});
  } else if (rtype == "Zone") {
    if (info_zones.empty())
      return invalid_argument("a Zone restriction without restrictionInfo.zones",
                              Where{origin, 0, 0, rpath + ".restrictionInfo.zones"});
    std::sort(info_zones.begin(), info_zones.end());
    std::set<std::string> regions;
    for (const auto& v : info_locations) regions.insert(normalize_region(v));
    if (regions.empty())
      for (const auto& v : values) regions.insert(normalize_region(v));
    for (const auto& reg : regions) out.push_back(ParsedRestriction{reg, why, info_zones});
  } else {
    return invalid_argument("unknown restriction type '" + rtype + "' (expected Location or Zone)",
                            Where{origin, 0, 0, rpath + ".type"});
  }
  return {};
}

// A SKU's restrictions[], validated whether or not the size is kept.
Result<std::vector<ParsedRestriction>> parse_restrictions(const nlohmann::json& sku,
                                                          const std::string& origin,
                                                          const std::string& path) {
  std::vector<ParsedRestriction> out;
  auto rs = sku.find("restrictions");
  if (rs == sku.end() || rs->is_null()) return out;
  if (!rs->is_array())
    return invalid_argument("expected an array, got " + json_type_name(*rs),
                            Where{origin, 0, 0, path + ".restrictions"});
  for (size_t j = 0; j < rs->size(); ++j) {
    GPUPLAN_RETURN_IF_ERROR(parse_restriction(
        (*rs)[j], origin, path + ".restrictions[" + std::to_string(j) + "]", out));
  }
  return out;
}

}  // namespace

Result<ImportReport> import_skus_text(std::string_view text, const std::string& origin,
                                      const SizeFilter& filter) {
  GPUPLAN_TRY(nlohmann::json doc, files::parse_json_unique_keys(text, origin));
  ImportReport report;
  report.data.kind = SnapshotKind::kSkus;
  report.data.source = origin;
  report.pages = 1;

  std::string prefix;
  GPUPLAN_TRY(const nlohmann::json* list,
              internal::az_list(doc, origin, "list-skus", prefix, report.notes));

  std::map<std::pair<std::string, std::string>, size_t> avail_index;
  std::set<std::tuple<std::string, std::string, std::string>> seen_restrictions;
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& sku = (*list)[i];
    const std::string path = prefix + "[" + std::to_string(i) + "]";
    if (!sku.is_object())
      return invalid_argument("expected an object, got " + json_type_name(sku),
                              Where{origin, 0, 0, path});
    ++report.items_read;
    GPUPLAN_TRY(std::string type, require_string(sku, "resourceType", origin, path));
    GPUPLAN_TRY(std::string name, require_string(sku, "name", origin, path));
    if (type != "virtualMachines") {
      ++report.ignored["not a virtualMachines SKU (resourceType)"];
      continue;
    }
    GPUPLAN_TRY(std::vector<std::string> locations, string_array(sku, "locations", origin, path));
    // Validate locationInfo and restrictions before deciding to ignore.
    GPUPLAN_TRY(auto zones_by_region, location_zones(sku, origin, path));
    GPUPLAN_TRY(std::vector<ParsedRestriction> restrictions, parse_restrictions(sku, origin, path));

    std::optional<std::string> size = filter.match(name);
    if (!size) {
      ++report.ignored[filter.uses_catalog() ? "size not a GPU size in the catalog"
                                             : "size not a GPU size (Standard_N[CDGV]...)"];
      continue;
    }
    ++report.items_used;
    for (size_t li = 0; li < locations.size(); ++li) {
      std::string region = normalize_region(locations[li]);
      GPUPLAN_RETURN_IF_ERROR(names::check_region(
          region, Where{origin, 0, 0, path + ".locations[" + std::to_string(li) + "]"}));
      auto key = std::make_pair(*size, region);
      std::vector<std::string> zones = zones_by_region[region];
      auto [it, inserted] = avail_index.emplace(key, report.data.availability.size());
      if (inserted) {
        report.data.availability.push_back(SkuAvailability{*size, region, zones});
      } else {  // the same size listed twice for a region: union of zones
        auto& z = report.data.availability[it->second].zones;
        for (const auto& zone : zones)
          if (std::find(z.begin(), z.end(), zone) == z.end()) z.push_back(zone);
        std::sort(z.begin(), z.end());
      }
    }
    for (auto& r : restrictions) {
      std::string zkey;
      for (const auto& z : r.zones) zkey += z + ",";
      if (!seen_restrictions.insert({*size, r.region, zkey}).second) continue;
      report.data.restrictions.push_back(
          Restriction{*size, r.region, std::move(r.reason), std::move(r.zones)});
    }
  }
  if (report.items_used == 0)
    return invalid_argument("nothing to import: " + std::to_string(report.items_read) +
                                " SKUs read, none is a GPU VM size",
                            Where{origin});
  std::sort(report.data.availability.begin(), report.data.availability.end(),
            [](const auto& a, const auto& b) {
              return std::tie(a.size, a.region) < std::tie(b.size, b.region);
            });
  std::sort(report.data.restrictions.begin(), report.data.restrictions.end(),
            [](const auto& a, const auto& b) {
              return std::tie(a.size, a.region, a.zones) < std::tie(b.size, b.region, b.zones);
            });
  return report;
}

Result<ImportReport> import_skus_file(const std::string& path, const SizeFilter& filter) {
  GPUPLAN_TRY(std::string text, files::read_text(path));
  return import_skus_text(text, path, filter);
}

}  // namespace gpuplan::catalog
