// The catalog's indexes and point lookups. A Catalog holds the embedded
// default (data/catalog/, compiled in), optionally overlaid with a store's
// imports; this file owns what happens once its data is in place: building
// the hash indexes (Catalog::Impl::build) and answering the single-key
// questions the rest of the tool asks (a size, a GPU, an offer, a region's
// access, quota headroom, restrictions, zones and Blob capacity prices).
//
// Neighbours: catalog_load.cc assembles the data (parse, overlay imports,
// derive estimates), catalog_query.cc answers `catalog list`-style filtered
// listings, catalog_terms.cc holds the enum names, dates and size facts.
// Indexes are hash maps on folded names (internal/catalog_impl.h) so lookups
// ignore case, '_', '-' and spaces. A Catalog is immutable once built, so
// concurrent const use is safe.
#include "catalog/catalog.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "catalog/internal/catalog_impl.h"
#include "catalog/internal/import_common.h"
#include "core/names.h"
#include "core/strings.h"

namespace gpuplan::catalog {

// ------------------------------------------------------------------- keys

namespace internal {

// Folded size name without the "Standard_" prefix: the key of size lookups.
std::string size_key(std::string_view name) {
  std::string k = strings::fold(name);
  if (k.rfind("standard", 0) == 0) k.erase(0, 8);
  return k;
}

std::string family_key(std::string_view family) {
  std::string k = strings::fold(family);
  if (k.size() > 5 && k.compare(k.size() - 5, 5, "vcpus") == 0) k.resize(k.size() - 5);
  return k;
}

bool is_regional_total(const std::string& k) {
  return k.empty() || k == "cores" || k == "totalregional";
}
bool is_spot_pool(const std::string& k) {
  return k == "lowprioritycores" || k == "totalregionallowpriority";
}

}  // namespace internal

using internal::family_key;
using internal::is_regional_total;
using internal::is_spot_pool;
using internal::size_key;

// ---------------------------------------------------------------- indexes

void Catalog::Impl::init(const std::string& date, std::vector<internal::RegionInfo> infos) {
  today = date;
  for (internal::RegionInfo& r : infos) {
    std::string k = strings::fold(r.region);
    region_info.emplace(std::move(k), std::move(r));
  }
}

void Catalog::Impl::build() {
  for (size_t i = 0; i < sizes.size(); ++i) {
    size_index.emplace(size_key(sizes[i].name), i);
    size_ids.emplace(size_key(sizes[i].name), static_cast<uint32_t>(i));
  }
  for (size_t i = 0; i < gpus.size(); ++i) gpu_index.emplace(strings::fold(gpus[i].model), i);
  // Raw spellings seen so far -> id, so each distinct string is folded
  // once; offers come in runs of one size and region, so the previous
  // offer's ids are tried first (hashing 10k strings twice showed up in
  // the load benchmark).
  std::unordered_map<std::string, uint32_t> raw_size, raw_region;
  auto id_of = [](std::unordered_map<std::string, uint32_t>& raw,
                  std::unordered_map<std::string, uint32_t>& ids, const std::string& name,
                  std::string (*key)(std::string_view)) {
    auto it = raw.find(name);
    if (it != raw.end()) return it->second;
    auto [jt, inserted] = ids.try_emplace(key(name), static_cast<uint32_t>(ids.size()));
    raw.emplace(name, jt->second);
    return jt->second;
  };
  const std::string* last_size = nullptr;
  const std::string* last_region = nullptr;
  uint32_t sid = 0, rid = 0;
  std::unordered_set<uint64_t> seen_pairs;
  std::set<std::string> all_regions;
  std::vector<std::vector<std::string>> per_size(sizes.size());
  offer_index.reserve(offers.size());
  for (size_t i = 0; i < offers.size(); ++i) {
    const Offer& o = offers[i];
    if (!last_size || *last_size != o.size) sid = id_of(raw_size, size_ids, o.size, &size_key);
    if (!last_region || *last_region != o.region) {
      rid = id_of(raw_region, region_ids, o.region, &strings::fold);
    }
    last_size = &o.size;
    last_region = &o.region;
    offer_index[pack(sid, rid, o.os, o.pricing)] = i;
    if (seen_pairs.insert((static_cast<uint64_t>(sid) << 32) | rid).second) {
      all_regions.insert(o.region);
      if (sid < sizes.size()) per_size[sid].push_back(o.region);
    }
  }
  regions.assign(all_regions.begin(), all_regions.end());
  for (auto& s : per_size) std::sort(s.begin(), s.end());
  size_regions = std::move(per_size);
  for (const Restriction& r : restrictions) {
    if (r.zones.empty()) restricted_keys.insert(size_key(r.size) + "|" + strings::fold(r.region));
  }
  for (const SkuAvailability& a : availability) {
    zone_map[size_key(a.size) + "|" + strings::fold(a.region)] = a.zones;
  }
  for (const Quota& q : quotas)
    quota_keys.emplace_back(strings::fold(q.region), family_key(q.family));
  for (size_t i = 0; i < spot.size(); ++i)
    spot_index[size_key(spot[i].size) + "|" + strings::fold(spot[i].region)] = i;
}
Catalog::Catalog() : impl_(std::make_unique<Impl>()) {}
Catalog::~Catalog() = default;

// ---------------------------------------------------------------- lookups

const std::string& Catalog::today() const { return impl_->today; }

RegionAccess Catalog::region_access(std::string_view region) const {
  auto it = impl_->region_info.find(strings::fold(region));
  return it == impl_->region_info.end() ? RegionAccess::kOpen : it->second.access;
}

std::string Catalog::region_access_source(std::string_view region) const {
  auto it = impl_->region_info.find(strings::fold(region));
  return it == impl_->region_info.end() ? std::string() : it->second.source;
}

Status Catalog::check_region_name(std::string_view region, const Where& where) const {
  if (impl_->region_info.empty()) return {};
  if (impl_->region_info.count(strings::fold(region)) > 0) return {};
  // A sovereign cloud's region is an Azure region, of another cloud: say
  // so, not "not an Azure region".
  if (internal::sovereign_cloud_region(strings::fold(region))) {
    Error e = internal::refuse_sovereign_region(strings::fold(region)).error();
    e.where = where;
    return tl::unexpected(e);
  }
  std::vector<std::string> names;
  names.reserve(impl_->region_info.size());
  for (const auto& entry : impl_->region_info) names.push_back(entry.first);
  std::sort(names.begin(), names.end());  // ties resolve the same way every run
  const std::optional<std::string> near = strings::closest(strings::fold(region), names);
  return invalid_argument("'" + names::printable(region, 60) + "' is not an Azure region" +
                              (near ? "; did you mean '" + *near + "'?"
                                    : " (`gpuplan catalog regions` lists the ones with GPU sizes)"),
                          where);
}

Status Catalog::check_gpu_region(std::string_view region, const Where& where) const {
  GPUPLAN_RETURN_IF_ERROR(check_region_name(region, where));
  const std::string r = strings::fold(region);
  for (const std::string& known : impl_->regions) {
    if (strings::fold(known) == r) return {};
  }
  if (impl_->region_info.count(r) == 0) {
    // Without the region list (from_parts) an unknown name is just not in the catalog.
    std::vector<std::string> names(impl_->regions);
    std::string msg = "no region '" + names::printable(region, 60) + "' in the catalog";
    if (auto near = strings::closest(region, names)) msg += "; did you mean '" + *near + "'?";
    return not_found(msg, where);
  }
  return failed_precondition("region '" + names::printable(region, 60) +
                                 "' is an Azure region but has no GPU sizes in the catalog "
                                 "(`gpuplan catalog regions` lists those that do)",
                             where);
}

const std::vector<VmSize>& Catalog::sizes() const { return impl_->sizes; }
const std::vector<Gpu>& Catalog::gpus() const { return impl_->gpus; }
const std::vector<Offer>& Catalog::offers() const { return impl_->offers; }
const std::vector<std::string>& Catalog::regions() const { return impl_->regions; }
const std::vector<Quota>& Catalog::quotas() const { return impl_->quotas; }
const std::vector<Restriction>& Catalog::restrictions() const { return impl_->restrictions; }
const std::vector<SpotEviction>& Catalog::spot_evictions() const { return impl_->spot; }

const SpotEviction* Catalog::spot_eviction(std::string_view size, std::string_view region) const {
  if (impl_->spot.empty()) return nullptr;
  auto it = impl_->spot_index.find(size_key(size) + "|" + strings::fold(region));
  return it == impl_->spot_index.end() ? nullptr : &impl_->spot[it->second];
}

const std::vector<BlobPrice>& Catalog::blob_prices() const { return impl_->blob; }

const VmSize* Catalog::find_size(std::string_view name) const {
  auto it = impl_->size_index.find(size_key(name));
  return it == impl_->size_index.end() ? nullptr : &impl_->sizes[it->second];
}

const Gpu* Catalog::find_gpu(std::string_view model) const {
  auto it = impl_->gpu_index.find(strings::fold(model));
  return it == impl_->gpu_index.end() ? nullptr : &impl_->gpus[it->second];
}

// Publications and drivers name GPUs their own way: MLPerf "NVIDIA
// H200-SXM-141GB", NVIDIA's tables "H100 SXM 80GB", NVML "NVIDIA H100 80GB
// HBM3", papers "H200"; the catalog says H200-SXM. The name is cut into
// tokens (vendor and product-line words and the memory's kind dropped, case
// folded, spaces, '_' and '/' as '-') and matched against the catalog's GPUs
// of the same chip (the first token): a memory token ("141GB") must be the
// GPU's memory, and a part ("SXM5", "PCIe") must begin the part the
// catalog's name gives, or begin with it ("SXM5" is an SXM part), when that
// name gives one ("Tesla V100-SXM2-32GB" is V100-32GB). Several candidates:
// an error naming them (a bare "H100" is the NVL or the SXM part, 94 or
// 80 GB, whose memory bandwidths differ by 16 %).
Result<const Gpu*> Catalog::resolve_gpu(std::string_view name) const {
  if (const Gpu* g = find_gpu(name)) return g;
  const auto tokens = [](std::string_view text) {
    std::vector<std::string> out;
    std::string cur;
    for (const char c : text) {
      if (c == ' ' || c == '-' || c == '_' || c == '/') {
        if (!cur.empty()) out.push_back(std::exchange(cur, {}));
      } else {
        cur.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      }
    }
    if (!cur.empty()) out.push_back(cur);
    std::erase_if(out, [](const std::string& t) {
      return t == "nvidia" || t == "amd" || t == "instinct" || t == "tesla" || t.starts_with("hbm");
    });
    return out;
  };
  const std::string quoted = "GPU '" + std::string(name) + "'";
  const std::vector<std::string> want = tokens(name);
  if (want.empty()) return not_found(quoted + " is not in the catalog");
  // Memory tokens ("141gb") say a size; the rest ("sxm5", "pcie") a part.
  const auto memory = [](const std::string& t) -> std::optional<double> {
    if (t.size() < 3 || !t.ends_with("gb")) return std::nullopt;
    return strings::parse_double(std::string_view(t).substr(0, t.size() - 2));
  };
  std::vector<const Gpu*> found;
  for (const Gpu& g : gpus()) {
    const std::vector<std::string> have = tokens(g.model);
    if (have.empty() || have.front() != want.front()) continue;
    bool fits = true, named_part = false, has_part = false;
    for (size_t i = 1; i < want.size(); ++i) {
      if (const auto gib = memory(want[i])) {
        fits = fits && *gib == g.memory_gib;
        continue;
      }
      named_part = true;
      for (size_t j = 1; j < have.size(); ++j) {
        if (memory(have[j])) continue;
        has_part = has_part || want[i].starts_with(have[j]) || have[j].starts_with(want[i]);
      }
    }
    // A part the catalog's name gives must be the one named, when both name
    // one (V100-32GB names none: "V100-SXM2-32GB" is it).
    const bool catalog_part =
        std::any_of(have.begin() + 1, have.end(), [&](const std::string& h) { return !memory(h); });
    if (named_part && catalog_part && !has_part) fits = false;
    if (fits) found.push_back(&g);
  }
  if (found.empty()) return not_found(quoted + " is not in the catalog");
  if (found.size() > 1) {
    std::string names;
    for (const Gpu* g : found) names += (names.empty() ? "" : ", ") + g->model;
    return not_found(quoted + " is ambiguous: the catalog has " + names + " (name one)");
  }
  return found.front();
}

std::vector<std::string> Catalog::regions_for(std::string_view size) const {
  auto it = impl_->size_index.find(size_key(size));
  if (it == impl_->size_index.end()) return {};
  return impl_->size_regions[it->second];
}

const Offer* Catalog::offer(std::string_view size, std::string_view region, Os os,
                            Pricing pricing) const {
  auto sit = impl_->size_ids.find(size_key(size));
  if (sit == impl_->size_ids.end()) return nullptr;
  auto rit = impl_->region_ids.find(strings::fold(region));
  if (rit == impl_->region_ids.end()) return nullptr;
  auto it = impl_->offer_index.find(Impl::pack(sit->second, rit->second, os, pricing));
  return it == impl_->offer_index.end() ? nullptr : &impl_->offers[it->second];
}

std::optional<double> Catalog::quota_headroom_vcpus(const VmSize& size, std::string_view region,
                                                    bool spot) const {
  const std::string want_region = strings::fold(region);
  const std::string api = family_key(size.quota_family);
  const std::string display = family_key(size.quota_family_display);
  std::optional<double> regional, pool;
  for (size_t i = 0; i < impl_->quotas.size(); ++i) {
    const Quota& q = impl_->quotas[i];
    if (impl_->quota_keys[i].first != want_region) continue;
    const std::string& k = impl_->quota_keys[i].second;
    const double headroom = std::max(0.0, q.limit - q.used);
    if (is_regional_total(k)) {
      regional = headroom;
    } else if (spot ? is_spot_pool(k)
                    : (!k.empty() &&
                       ((!api.empty() && k == api) || (!display.empty() && k == display)))) {
      pool = headroom;
    }
  }
  // The family (or spot pool) row decides whether anything is known: list-usage
  // lists every family of a region, so a size whose family is not among them
  // (or has no known family name) has unknown headroom, not the regional one.
  if (!pool) return std::nullopt;
  if (regional) return std::min(*regional, *pool);
  return pool;
}

bool Catalog::restricted(std::string_view size, std::string_view region) const {
  return impl_->restricted_keys.count(size_key(size) + "|" + strings::fold(region)) > 0;
}

std::vector<std::string> Catalog::zones(std::string_view size, std::string_view region) const {
  auto it = impl_->zone_map.find(size_key(size) + "|" + strings::fold(region));
  return it == impl_->zone_map.end() ? std::vector<std::string>{} : it->second;
}

}  // namespace gpuplan::catalog
