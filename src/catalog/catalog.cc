// The queryable catalog: the embedded default (data/catalog/, compiled in),
// optionally overlaid with a store's imports, indexed for lookups.
//
// Loading: parse gpus/sizes/offers/pricing_rules (catalog_data.cc), merge
// imported listed prices over embedded ones key by key (size, region, OS,
// pricing), then derive the estimates from whatever payg price won
// (catalog_pricing.cc). Indexes are hash maps on folded names so lookups
// ignore case, '_', '-' and spaces and accept "NC40ads_H100_v5" for
// "Standard_NC40ads_H100_v5". A Catalog is immutable once built, so
// concurrent const use is safe.
#include "catalog/catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "catalog/catalog_internal.h"
#include "catalog/store.h"
#include "core/csv.h"
#include "core/names.h"
#include "core/strings.h"

namespace gpuplan::catalog {

// ------------------------------------------------------------------ enums

std::string_view to_string(Pricing p) {
  switch (p) {
    case Pricing::kPayg:
      return "payg";
    case Pricing::kSpot:
      return "spot";
    case Pricing::kReserved1y:
      return "reserved-1y";
    case Pricing::kReserved3y:
      return "reserved-3y";
    case Pricing::kSavings1y:
      return "savings-1y";
    case Pricing::kSavings3y:
      return "savings-3y";
  }
  return "?";
}

std::string_view to_string(Os os) { return os == Os::kLinux ? "linux" : "windows"; }

std::string_view to_string(DriverKind k) {
  switch (k) {
    case DriverKind::kCuda:
      return "cuda";
    case DriverKind::kGrid:
      return "grid";
    case DriverKind::kAmd:
      return "amd";
  }
  return "?";
}

std::string_view to_string(SizeStatus s) {
  switch (s) {
    case SizeStatus::kCurrent:
      return "current";
    case SizeStatus::kPreview:
      return "preview";
    case SizeStatus::kRetiring:
      return "retiring";
    case SizeStatus::kRetired:
      return "retired";
  }
  return "?";
}

std::string_view to_string(RegionAccess a) {
  return a == RegionAccess::kRestricted ? "restricted" : "open";
}

std::string_view to_string(CatalogSort s) {
  switch (s) {
    case CatalogSort::kPrice:
      return "price";
    case CatalogSort::kGpuPrice:
      return "gpu-price";
    case CatalogSort::kSize:
      return "size";
    case CatalogSort::kRegion:
      return "region";
    case CatalogSort::kGpuMemory:
      return "gpu-memory";
    case CatalogSort::kGpus:
      return "gpus";
  }
  return "?";
}

Result<Pricing> parse_pricing(std::string_view s) {
  for (Pricing p : kAllPricing) {
    if (strings::to_lower(strings::trim(s)) == to_string(p)) return p;
  }
  return invalid_argument("unknown pricing '" + std::string(s) +
                          "' (expected payg, spot, reserved-1y, reserved-3y, savings-1y, "
                          "savings-3y)");
}

Result<Os> parse_os(std::string_view s, Where where) {
  std::string v = strings::to_lower(strings::trim(s));
  if (v == "linux") return Os::kLinux;
  if (v == "windows") return Os::kWindows;
  return invalid_argument("unknown OS '" + std::string(s) + "' (expected linux or windows)",
                          std::move(where));
}

Result<CatalogSort> parse_catalog_sort(std::string_view s) {
  std::string v = strings::to_lower(strings::trim(s));
  for (CatalogSort c : {CatalogSort::kPrice, CatalogSort::kGpuPrice, CatalogSort::kSize,
                        CatalogSort::kRegion, CatalogSort::kGpuMemory, CatalogSort::kGpus}) {
    if (v == to_string(c)) return c;
  }
  return invalid_argument("unknown sort '" + std::string(s) +
                          "' (expected price, gpu-price, size, region, gpu-memory, gpus)");
}

bool is_arm64(const VmSize& s) { return s.gpu_model == "GB200" || s.gpu_model == "GB300"; }

bool is_confidential(const VmSize& s) { return strings::starts_with_icase(s.series, "NCC"); }

std::string reservation_note(const VmSize& s) {
  if (s.reservable) return "";
  if (s.status == SizeStatus::kRetired) return "retired " + s.retire_date + ": no reservations";
  if (s.status == SizeStatus::kPreview) return "preview: no reservations";
  if (!s.reservations_end.empty()) return "reservation sales ended " + s.reservations_end;
  return "not reservable";
}

double commitment_hours(Pricing p) {
  switch (p) {
    case Pricing::kReserved1y:
    case Pricing::kSavings1y:
      return 8760;
    case Pricing::kReserved3y:
    case Pricing::kSavings3y:
      return 3 * 8760;
    default:
      return 0;
  }
}

// ------------------------------------------------------------------ dates

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil, http://howardhinnant.github.io/date_algorithms.html).
int64_t days_from_civil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

std::optional<int64_t> day_number(std::string_view s) {
  if (!internal::is_date(s)) return std::nullopt;
  const int y = std::stoi(std::string(s.substr(0, 4)));
  const unsigned m = static_cast<unsigned>(std::stoi(std::string(s.substr(5, 2))));
  const unsigned d = static_cast<unsigned>(std::stoi(std::string(s.substr(8, 2))));
  return days_from_civil(y, m, d);
}

}  // namespace

Result<std::string> today() {
  const char* env = std::getenv("GPUPLAN_TODAY");
  if (env != nullptr && *env != '\0') {
    if (!internal::is_date(env)) {
      return invalid_argument(std::string("'") + env + "' is not a date (expected YYYY-MM-DD)",
                              Where{"GPUPLAN_TODAY"});
    }
    return std::string(env);
  }
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return std::string(buf);
}

std::optional<int> days_between(std::string_view from, std::string_view to) {
  auto a = day_number(from);
  auto b = day_number(to);
  if (!a || !b) return std::nullopt;
  return static_cast<int>(*b - *a);
}

std::string embedded_catalog_version() {
  // data/catalog/catalog_meta.csv: key,value rows written by clean_catalog.py.
  std::map<std::string, std::string> meta;
  auto table = csv::parse(internal::embedded_file("catalog_meta.csv"), "catalog_meta.csv");
  if (table) {
    for (const csv::Row& row : table->rows) {
      csv::RowReader r(*table, row);
      auto k = r.str("key");
      auto v = r.str("value");
      if (k && v) meta[*k] = *v;
    }
  }
  if (meta.empty()) return "embedded catalog: dates unknown";
  return "embedded catalog: prices of " + meta["prices_as_of"] + " (" + meta["prices_source"] +
         "); sizes, status dates and pricing rules checked " + meta["facts_as_of"];
}

// ------------------------------------------------------------------- Impl

namespace {

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

}  // namespace

struct Catalog::Impl {
  std::string today;
  std::unordered_map<std::string, internal::RegionInfo> region_info;  // fold(region) -> info
  std::vector<Gpu> gpus;
  std::vector<VmSize> sizes;
  std::vector<Offer> offers;
  std::vector<std::string> regions;
  std::vector<Quota> quotas;
  std::vector<Restriction> restrictions;
  std::vector<SkuAvailability> availability;
  std::vector<SpotEviction> spot;
  std::unordered_map<std::string, size_t> spot_index;  // size_key|fold(region) -> spot[i]
  std::vector<BlobPrice> blob;                         // imported Blob capacity prices

  std::unordered_map<std::string, size_t> size_index;  // size_key -> sizes[i]
  std::unordered_map<std::string, size_t> gpu_index;   // fold(model) -> gpus[i]
  // Offers by small integer ids: folding every offer's names on each lookup
  // would dominate both load and query time.
  std::unordered_map<std::string, uint32_t> size_ids;                  // size_key -> id
  std::unordered_map<std::string, uint32_t> region_ids;                // fold(region) -> id
  std::unordered_map<uint64_t, size_t> offer_index;                    // packed key -> offers[i]
  std::vector<std::vector<std::string>> size_regions;                  // per sizes[i], sorted
  std::unordered_set<std::string> restricted_keys;                     // size_key|region
  std::unordered_map<std::string, std::vector<std::string>> zone_map;  // size_key|region
  std::vector<std::pair<std::string, std::string>>
      quota_keys;  // per quota: fold(region), family_key

  // Today's date and the region access facts (every loaded catalog).
  void init(const std::string& date, std::vector<internal::RegionInfo> infos) {
    today = date;
    for (internal::RegionInfo& r : infos) {
      std::string k = strings::fold(r.region);
      region_info.emplace(std::move(k), std::move(r));
    }
  }

  static uint64_t pack(uint32_t size_id, uint32_t region_id, Os os, Pricing p) {
    return (static_cast<uint64_t>(size_id) << 32) | (static_cast<uint64_t>(region_id) << 8) |
           (static_cast<uint64_t>(os) << 4) | static_cast<uint64_t>(p);
  }

  void build() {
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
};

Catalog::Catalog() : impl_(std::make_unique<Impl>()) {}
Catalog::~Catalog() = default;

// ---------------------------------------------------------------- loading

namespace {

Result<std::string_view> data_file(const char* name) {
  std::string_view text = internal::embedded_file(name);
  if (text.empty()) {
    return internal_error(std::string("embedded catalog file data/catalog/") + name +
                          " is missing from this build");
  }
  return text;
}

// Errors in embedded data are bugs of the build, not user input.
Error as_internal(Error e) {
  e.message = "embedded catalog data is invalid: " + e.to_string();
  e.code = ErrorCode::kInternal;
  e.where = {};
  return e;
}

struct Embedded {
  std::vector<Gpu> gpus;
  std::vector<VmSize> sizes;
  std::vector<Offer> listed;
  std::vector<internal::PricingRule> rules;
  std::vector<internal::RegionInfo> regions;
};

Result<Embedded> read_embedded() {
  Embedded e;
  GPUPLAN_TRY(auto gpus_text, data_file("gpus.csv"));
  GPUPLAN_TRY(auto sizes_text, data_file("sizes.csv"));
  GPUPLAN_TRY(auto offers_text, data_file("offers.csv"));
  GPUPLAN_TRY(auto rules_text, data_file("pricing_rules.csv"));
  auto gpus = internal::parse_gpus(gpus_text, "data/catalog/gpus.csv");
  if (!gpus) return tl::unexpected(as_internal(gpus.error()));
  auto sizes = internal::parse_sizes(sizes_text, "data/catalog/sizes.csv");
  if (!sizes) return tl::unexpected(as_internal(sizes.error()));
  auto offers = internal::parse_offers(offers_text, "data/catalog/offers.csv");
  if (!offers) return tl::unexpected(as_internal(offers.error()));
  auto rules = internal::parse_pricing_rules(rules_text, "data/catalog/pricing_rules.csv");
  if (!rules) return tl::unexpected(as_internal(rules.error()));
  GPUPLAN_TRY(auto regions_text, data_file("regions.csv"));
  auto regions = internal::parse_regions(regions_text, "data/catalog/regions.csv");
  if (!regions) return tl::unexpected(as_internal(regions.error()));
  e.regions = std::move(*regions);
  e.gpus = std::move(*gpus);
  e.sizes = std::move(*sizes);
  e.listed = std::move(*offers);
  e.rules = std::move(*rules);
  return e;
}

// The parts every loaded catalog shares: today's date, the statuses computed
// for it, and the region access facts.
Result<Embedded> read_embedded_at(const std::string& today) {
  if (!internal::is_date(today)) {
    return invalid_argument("'" + today + "' is not a date (expected YYYY-MM-DD)",
                            Where{"", 0, 0, "today"});
  }
  GPUPLAN_TRY(Embedded e, read_embedded());
  internal::apply_status(e.sizes, today);
  return e;
}

}  // namespace

Result<std::unique_ptr<Catalog>> Catalog::load_embedded() {
  GPUPLAN_TRY(std::string t, catalog::today());
  return load_embedded_at(t);
}

Result<std::unique_ptr<Catalog>> Catalog::load(const std::string& db_path) {
  GPUPLAN_TRY(std::string t, catalog::today());
  return load_at(db_path, t);
}

Result<std::unique_ptr<Catalog>> Catalog::load_embedded_at(const std::string& today) {
  GPUPLAN_TRY(Embedded e, read_embedded_at(today));
  std::unique_ptr<Catalog> c(new Catalog());
  c->impl_->init(today, std::move(e.regions));
  c->impl_->gpus = std::move(e.gpus);
  c->impl_->offers = internal::with_estimates(e.sizes, std::move(e.listed), std::move(e.rules));
  c->impl_->sizes = std::move(e.sizes);
  c->impl_->build();
  return c;
}

Result<std::unique_ptr<Catalog>> Catalog::load_at(const std::string& db_path,
                                                  const std::string& today) {
  GPUPLAN_TRY(Embedded e, read_embedded_at(today));
  GPUPLAN_TRY(StoreContents store, read_store(db_path));

  // Canonical size names: imports may spell them differently; sizes the
  // embedded data does not know are ignored (docs/catalog.md).
  std::unordered_map<std::string, const VmSize*> by_key;
  for (const VmSize& s : e.sizes) by_key.emplace(size_key(s.name), &s);
  auto canonical = [&](const std::string& name) -> const VmSize* {
    auto it = by_key.find(size_key(name));
    return it == by_key.end() ? nullptr : it->second;
  };

  // Listed prices: an imported one replaces the embedded one for its key;
  // the result is in offer_key order. Sorting keyed indices rather than
  // filling a std::map of offers, and folding each distinct size and region
  // spelling once, keeps this off the start-up profile.
  std::vector<Offer> all = std::move(e.listed);
  // The store returns its rows grouped by size and region: the previous
  // row's answers are reused (folding 15 k names showed in the profile).
  std::string last_raw_size, last_raw_region, last_region;
  const VmSize* last_size = nullptr;
  all.reserve(all.size() + store.offers.size());
  for (Offer& o : store.offers) {
    if (o.size != last_raw_size) {
      last_raw_size = o.size;
      last_size = canonical(o.size);
    }
    if (!last_size || o.estimated) continue;
    if (o.region != last_raw_region) {
      last_raw_region = o.region;
      last_region = strings::to_lower(o.region);
    }
    o.size = last_size->name;
    o.region = last_region;
    all.push_back(std::move(o));
  }
  std::unordered_map<std::string, std::string> folded_size, folded_region;
  auto cached = [](std::unordered_map<std::string, std::string>& cache, const std::string& raw,
                   std::string (*key)(std::string_view)) -> const std::string& {
    auto it = cache.find(raw);
    if (it == cache.end()) it = cache.emplace(raw, key(raw)).first;
    return it->second;
  };
  std::vector<std::pair<std::string, size_t>> keyed;
  keyed.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const Offer& o = all[i];
    const std::string& sk = cached(folded_size, o.size, &size_key);
    const std::string& rk = cached(folded_region, o.region, &strings::fold);
    std::string k;
    k.reserve(sk.size() + rk.size() + 24);
    k.append(sk).append(1, '|').append(rk).append(1, '|');
    k.append(to_string(o.os)).append(1, '|').append(to_string(o.pricing));
    keyed.emplace_back(std::move(k), i);
  }
  // Equal keys keep their input order, so the last one (an import) wins.
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Offer> listed;
  listed.reserve(keyed.size());
  for (size_t i = 0; i < keyed.size(); ++i) {
    if (i + 1 < keyed.size() && keyed[i + 1].first == keyed[i].first) continue;
    listed.push_back(std::move(all[keyed[i].second]));
  }

  std::unique_ptr<Catalog> c(new Catalog());
  c->impl_->init(today, std::move(e.regions));
  c->impl_->gpus = std::move(e.gpus);
  c->impl_->offers = internal::with_estimates(e.sizes, std::move(listed), std::move(e.rules));
  for (Restriction r : store.restrictions) {
    if (const VmSize* s = canonical(r.size)) r.size = s->name;
    r.region = strings::to_lower(r.region);
    c->impl_->restrictions.push_back(std::move(r));
  }
  for (SkuAvailability a : store.availability) {
    if (const VmSize* s = canonical(a.size)) a.size = s->name;
    a.region = strings::to_lower(a.region);
    c->impl_->availability.push_back(std::move(a));
  }
  for (Quota q : store.quotas) {
    q.region = strings::to_lower(q.region);
    c->impl_->quotas.push_back(std::move(q));
  }
  for (SpotEviction v : store.spot_evictions) {
    if (const VmSize* s = canonical(v.size)) v.size = s->name;
    v.region = strings::to_lower(v.region);
    c->impl_->spot.push_back(std::move(v));
  }
  for (BlobPrice b : store.blob_prices) {
    b.region = strings::to_lower(b.region);
    c->impl_->blob.push_back(std::move(b));
  }
  c->impl_->sizes = std::move(e.sizes);
  c->impl_->build();
  return c;
}

std::unique_ptr<Catalog> Catalog::from_parts(std::vector<Gpu> gpus, std::vector<VmSize> sizes,
                                             std::vector<Offer> offers, std::vector<Quota> quotas,
                                             std::vector<Restriction> restrictions,
                                             std::vector<SpotEviction> spot) {
  std::unique_ptr<Catalog> c(new Catalog());
  c->impl_->spot = std::move(spot);
  c->impl_->gpus = std::move(gpus);
  c->impl_->sizes = std::move(sizes);
  c->impl_->offers = std::move(offers);
  c->impl_->quotas = std::move(quotas);
  c->impl_->restrictions = std::move(restrictions);
  c->impl_->build();
  return c;
}

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

const BlobPrice* Catalog::blob_price(std::string_view region, std::string_view tier,
                                     std::string_view redundancy) const {
  for (const BlobPrice& b : impl_->blob)
    if (strings::fold(b.region) == strings::fold(region) && b.tier == tier &&
        b.redundancy == redundancy)
      return &b;
  return nullptr;
}

const VmSize* Catalog::find_size(std::string_view name) const {
  auto it = impl_->size_index.find(size_key(name));
  return it == impl_->size_index.end() ? nullptr : &impl_->sizes[it->second];
}

const Gpu* Catalog::find_gpu(std::string_view model) const {
  auto it = impl_->gpu_index.find(strings::fold(model));
  return it == impl_->gpu_index.end() ? nullptr : &impl_->gpus[it->second];
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

// ------------------------------------------------------------------ query

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

}  // namespace

Result<std::vector<CatalogRow>> Catalog::query(const CatalogQuery& q) const {
  const Impl& d = *impl_;
  // Validate the names first, so a typo is an error rather than an empty list.
  const std::string gpu_want = strings::to_lower(strings::trim(q.gpu));
  if (!gpu_want.empty()) {
    bool any = false;
    std::vector<std::string> models;
    std::set<std::string> offered;
    for (const VmSize& s : d.sizes) {
      if (gpu_matches(gpu_want, s.gpu_model)) any = true;
      offered.insert(s.gpu_model);
    }
    if (!any) {
      // Suggest whole models and their families ("H100" for "H1000").
      for (const std::string& m : offered) {
        models.push_back(m);
        models.push_back(m.substr(0, m.find('-')));
      }
      auto e = unknown("GPU model", q.gpu, models);
      std::string known;
      for (const std::string& m : offered) known += (known.empty() ? "" : ", ") + m;
      e.value().message += " (known: " + known + ")";
      return e;
    }
  }
  std::set<std::string> series_want;
  for (const std::string& s : q.series) {
    std::string k = strings::fold(s);
    bool any = false;
    std::vector<std::string> names;
    for (const VmSize& z : d.sizes) {
      if (strings::fold(z.series) == k || strings::fold(z.family_letter) == k) any = true;
      names.push_back(z.series);
    }
    if (!any) return unknown("series", s, names);
    series_want.insert(k);
  }
  std::set<std::string> region_want;
  for (const std::string& r : q.regions) {
    std::string k = strings::fold(r);
    GPUPLAN_RETURN_IF_ERROR(check_gpu_region(r, Where{"", 0, 0, "--region"}));
    region_want.insert(k);
  }

  std::vector<CatalogRow> rows;
  for (size_t i = 0; i < d.sizes.size(); ++i) {
    const VmSize& s = d.sizes[i];
    if (!q.include_retired && s.status == SizeStatus::kRetired) continue;
    if (!gpu_want.empty() && !gpu_matches(gpu_want, s.gpu_model)) continue;
    if (!series_want.empty() && !series_want.count(strings::fold(s.series)) &&
        !series_want.count(strings::fold(s.family_letter))) {
      continue;
    }
    if (per_gpu_memory(s) + 1e-9 < q.min_gpu_memory_gib) continue;
    if (s.gpu_memory_gib + 1e-9 < q.min_total_gpu_memory_gib) continue;
    if (q.min_gpus && s.gpu_count + 1e-9 < *q.min_gpus) continue;
    if (q.max_gpus && s.gpu_count - 1e-9 > *q.max_gpus) continue;

    auto emit = [&](const std::string& region) {
      CatalogRow row;
      row.size = &s;
      row.region = region;
      if (!region.empty()) {
        row.restricted = restricted(s.name, region);
        if (row.restricted && !q.include_restricted) return;
        row.region_access = region_access(region);
        // Access-restricted regions only when asked for, or named.
        if (row.region_access == RegionAccess::kRestricted && !q.include_restricted_regions &&
            !region_want.count(strings::fold(region))) {
          return;
        }
        row.offer = offer(s.name, region, q.os, q.pricing);
        row.quota_headroom_vcpus = quota_headroom_vcpus(s, region, q.pricing == Pricing::kSpot);
      }
      if (row.offer) row.usd_per_hour = row.offer->usd_per_hour;
      if (row.usd_per_hour && s.gpu_count > 0)
        row.usd_per_gpu_hour = *row.usd_per_hour / s.gpu_count;
      if (!row.usd_per_hour) {
        if (region.empty()) {
          row.note = "no listed price";
        } else if (commitment_hours(q.pricing) > 0 && !s.reservable) {
          row.note = reservation_note(s);
        } else if (q.pricing == Pricing::kSpot) {
          row.note = "spot price unknown";
        } else {
          row.note = "no listed price";
        }
      }
      if (q.max_usd_per_hour && (!row.usd_per_hour || *row.usd_per_hour > *q.max_usd_per_hour)) {
        return;
      }
      rows.push_back(std::move(row));
    };

    const std::vector<std::string>& where = d.size_regions[i];
    if (where.empty()) {
      // No price source places this size anywhere: list it once, unpriced,
      // unless the user asked for particular regions.
      if (region_want.empty()) emit("");
      continue;
    }
    for (const std::string& r : where) {
      if (!region_want.empty() && !region_want.count(strings::fold(r))) continue;
      emit(r);
    }
  }

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
    switch (q.sort) {
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
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpuplan::catalog
