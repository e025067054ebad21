// Filtered, sorted listings of the catalog: Catalog::query (one row per
// size and region that passes the user's filters, priced for the asked OS
// and pricing, with a note where there is no price) and
// Catalog::region_summaries (which GPU models each region offers, and its
// quota headroom). Names the user typed are checked first, so a typo is an
// error with a suggestion rather than an empty list. Reads a built Catalog
// only, through its public lookups and the indexes in
// internal/catalog_impl.h.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/internal/catalog_impl.h"
#include "core/strings.h"

namespace gpuplan::catalog {

using internal::family_key;
using internal::is_regional_total;
using internal::is_spot_pool;

namespace {

bool gpu_matches(const std::string& want_lower, const std::string& model) {
  std::string m = strings::to_lower(model);
  if (m == want_lower) return true;
  return m.size() > want_lower.size() && m.compare(0, want_lower.size(), want_lower) == 0 &&
         m[want_lower.size()] == '-';
}

double per_gpu_memory(const VmSize& s) {
  return s.gpu_count >= 1 ? s.gpu_memory_gib / s.gpu_count : s.gpu_memory_gib;
}

tl::unexpected<Error> unknown(const std::string& what, const std::string& value,
                              const std::vector<std::string>& known) {
  std::string msg = "no " + what + " '" + value + "' in the catalog";
  if (auto near = strings::closest(value, known)) msg += "; did you mean '" + *near + "'?";
  return not_found(msg);
}

// The query's names, checked against the catalog and folded for matching.
struct Wanted {
  std::string gpu;                // lower case; "" for any
  std::set<std::string> series;   // folded series or family letters; empty for any
  std::set<std::string> regions;  // folded; empty for any
};

// Checks every name the user gave, so a typo is an error (with the nearest
// known name) rather than an empty list.
Result<Wanted> wanted_names(const Catalog& c, const std::vector<VmSize>& sizes,
                            const CatalogQuery& q) {
  Wanted w;
  w.gpu = strings::to_lower(strings::trim(q.gpu));
  if (!w.gpu.empty()) {
    bool any = false;
    std::vector<std::string> models;
    std::set<std::string> offered;
    for (const VmSize& s : sizes) {
      if (gpu_matches(w.gpu, s.gpu_model)) any = true;
      offered.insert(s.gpu_model);
    }
    if (!any) {
      // Suggest whole models and their families ("H100" for "H1000").
      for (const std::string& m : offered) {
        models.push_back(m);
        models.push_back(m.substr(0, m.find('-')));
      }
      auto e = unknown("GPU model", q.gpu, models);
      e.value().where.field = "--gpu";  // the flag, as for --region below
      std::string known;
      for (const std::string& m : offered) known += (known.empty() ? "" : ", ") + m;
      e.value().message += " (known: " + known + ")";
      return e;
    }
  }
  for (const std::string& s : q.series) {
    std::string k = strings::fold(s);
    bool any = false;
    std::vector<std::string> names;
    for (const VmSize& z : sizes) {
      if (strings::fold(z.series) == k || strings::fold(z.family_letter) == k) any = true;
      names.push_back(z.series);
    }
    if (!any) {
      auto e = unknown("series", s, names);
      e.value().where.field = "--series";
      return e;
    }
    w.series.insert(k);
  }
  for (const std::string& r : q.regions) {
    std::string k = strings::fold(r);
    GPUPLAN_RETURN_IF_ERROR(c.check_gpu_region(r, Where{"", 0, 0, "--region"}));
    w.regions.insert(k);
  }
  return w;
}

// True when the size itself (regardless of region) passes the filters.
bool size_passes(const VmSize& s, const CatalogQuery& q, const Wanted& w) {
  if (!q.include_retired && s.status == SizeStatus::kRetired) return false;
  if (!w.gpu.empty() && !gpu_matches(w.gpu, s.gpu_model)) return false;
  if (!w.series.empty() && !w.series.count(strings::fold(s.series)) &&
      !w.series.count(strings::fold(s.family_letter))) {
    return false;
  }
  if (per_gpu_memory(s) + 1e-9 < q.min_gpu_memory_gib) return false;
  if (s.gpu_memory_gib + 1e-9 < q.min_total_gpu_memory_gib) return false;
  if (q.min_gpus && s.gpu_count + 1e-9 < *q.min_gpus) return false;
  if (q.max_gpus && s.gpu_count - 1e-9 > *q.max_gpus) return false;
  return true;
}

// Why a row has no price, in the words the listing shows.
std::string unpriced_note(const Catalog& c, const VmSize& s, const std::string& region,
                          Pricing pricing) {
  if (region.empty()) return "no listed price";
  if (commitment_hours(pricing) > 0 && !s.reservable) return reservation_note(s);
  // A commitment the data says Azure does not sell for the size.
  if (const Offer* o = c.offer(s.name, region, Os::kLinux, pricing); o && o->not_offered)
    return o->source;
  if (pricing == Pricing::kSpot) return "spot price unknown";
  return "no listed price";
}

// The row for size `s` in `region` ("" when no price source places it
// anywhere), or nothing when the region-level filters drop it.
std::optional<CatalogRow> make_row(const Catalog& c, const VmSize& s, const std::string& region,
                                   const CatalogQuery& q, const Wanted& w) {
  CatalogRow row;
  row.size = &s;
  row.region = region;
  if (!region.empty()) {
    row.restricted = c.restricted(s.name, region);
    if (row.restricted && !q.include_restricted) return std::nullopt;
    row.region_access = c.region_access(region);
    // Access-restricted regions only when asked for, or named.
    if (row.region_access == RegionAccess::kRestricted && !q.include_restricted_regions &&
        !w.regions.count(strings::fold(region))) {
      return std::nullopt;
    }
    row.offer = c.offer(s.name, region, q.os, q.pricing);
    row.quota_headroom_vcpus = c.quota_headroom_vcpus(s, region, q.pricing == Pricing::kSpot);
  }
  if (row.offer) row.usd_per_hour = row.offer->usd_per_hour;
  if (row.usd_per_hour && s.gpu_count > 0) row.usd_per_gpu_hour = *row.usd_per_hour / s.gpu_count;
  if (!row.usd_per_hour) row.note = unpriced_note(c, s, region, q.pricing);
  if (q.max_usd_per_hour && (!row.usd_per_hour || *row.usd_per_hour > *q.max_usd_per_hour)) {
    return std::nullopt;
  }
  return row;
}

// Orders rows by the asked key; ties (and unpriced rows, last) by size
// name, then region, so the listing is the same every run.
void sort_rows(std::vector<CatalogRow>& rows, CatalogSort sort) {
  auto by_name = [](const CatalogRow& a, const CatalogRow& b) {
    if (a.size->name != b.size->name) return a.size->name < b.size->name;
    return a.region < b.region;
  };
  auto by_optional = [&](const std::optional<double>& x, const std::optional<double>& y,
                         const CatalogRow& a, const CatalogRow& b) {
    if (x.has_value() != y.has_value()) return x.has_value();
    if (x && *x != *y) return *x < *y;
    return by_name(a, b);
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const CatalogRow& a, const CatalogRow& b) {
    switch (sort) {
      case CatalogSort::kPrice:
        return by_optional(a.usd_per_hour, b.usd_per_hour, a, b);
      case CatalogSort::kGpuPrice:
        return by_optional(a.usd_per_gpu_hour, b.usd_per_gpu_hour, a, b);
      case CatalogSort::kSize:
        return by_name(a, b);
      case CatalogSort::kRegion:
        if (a.region != b.region) return a.region < b.region;
        return by_optional(a.usd_per_hour, b.usd_per_hour, a, b);
      case CatalogSort::kGpuMemory:
        if (a.size->gpu_memory_gib != b.size->gpu_memory_gib) {
          return a.size->gpu_memory_gib > b.size->gpu_memory_gib;
        }
        return by_optional(a.usd_per_hour, b.usd_per_hour, a, b);
      case CatalogSort::kGpus:
        if (a.size->gpu_count != b.size->gpu_count) return a.size->gpu_count > b.size->gpu_count;
        return by_optional(a.usd_per_hour, b.usd_per_hour, a, b);
    }
    return by_name(a, b);
  });
}

}  // namespace

Result<std::vector<CatalogRow>> Catalog::query(const CatalogQuery& q) const {
  const Impl& d = *impl_;
  GPUPLAN_TRY(const Wanted w, wanted_names(*this, d.sizes, q));
  std::vector<CatalogRow> rows;
  auto emit = [&](const VmSize& s, const std::string& region) {
    if (std::optional<CatalogRow> row = make_row(*this, s, region, q, w)) {
      rows.push_back(std::move(*row));
    }
  };
  for (size_t i = 0; i < d.sizes.size(); ++i) {
    const VmSize& s = d.sizes[i];
    if (!size_passes(s, q, w)) continue;
    const std::vector<std::string>& where = d.size_regions[i];
    if (where.empty()) {
      // No price source places this size anywhere: list it once, unpriced,
      // unless the user asked for particular regions.
      if (w.regions.empty()) emit(s, "");
      continue;
    }
    for (const std::string& r : where) {
      if (!w.regions.empty() && !w.regions.count(strings::fold(r))) continue;
      emit(s, r);
    }
  }
  sort_rows(rows, q.sort);
  return rows;
}

std::vector<RegionSummary> Catalog::region_summaries(bool include_restricted_regions) const {
  const Impl& d = *impl_;
  std::map<std::string, std::pair<std::set<std::string>, int>> per_region;
  for (const std::string& r : d.regions) per_region[r];
  for (size_t i = 0; i < d.sizes.size(); ++i) {
    if (d.sizes[i].status == SizeStatus::kRetired) continue;
    for (const std::string& r : d.size_regions[i]) {
      per_region[r].first.insert(d.sizes[i].gpu_model);
      per_region[r].second++;
    }
  }
  std::vector<RegionSummary> out;
  // Each region's non-retired sizes, for the GPU families' headroom.
  std::map<std::string, std::vector<size_t>> sizes_in;
  for (size_t i = 0; i < d.sizes.size(); ++i) {
    if (d.sizes[i].status == SizeStatus::kRetired) continue;
    for (const std::string& r : d.size_regions[i]) sizes_in[r].push_back(i);
  }
  for (auto& [region, v] : per_region) {
    RegionSummary s;
    s.region = region;
    s.access = region_access(region);
    if (s.access == RegionAccess::kRestricted && !include_restricted_regions) continue;
    s.gpu_models.assign(v.first.begin(), v.first.end());
    s.sizes = v.second;
    for (const Quota& q : d.quotas) {
      if (strings::fold(q.region) != strings::fold(region)) continue;
      const std::string k = family_key(q.family);
      if (is_regional_total(k)) s.total_headroom_vcpus = std::max(0.0, q.limit - q.used);
      if (is_spot_pool(k)) s.spot_headroom_vcpus = std::max(0.0, q.limit - q.used);
    }
    for (size_t i : sizes_in[region]) {
      const std::optional<double> h = quota_headroom_vcpus(d.sizes[i], region, false);
      if (h) s.gpu_headroom_vcpus = std::max(s.gpu_headroom_vcpus.value_or(0.0), *h);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpuplan::catalog
