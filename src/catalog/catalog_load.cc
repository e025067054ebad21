// Assembling a Catalog: the embedded default (data/catalog/, compiled in)
// and, for Catalog::load, a store's newest imports laid over it.
//
// Steps: parse gpus/sizes/offers/pricing_rules/regions (catalog_data.cc)
// and compute each size's status for `today`; merge imported listed prices
// over embedded ones key by key (size, region, OS, pricing), an import
// winning a tie; then derive the estimates from whatever payg price won
// (catalog_pricing.cc), so a freshly imported payg price also moves the
// estimates based on it. Store facts (restrictions, zones, quotas, spot
// evictions, Blob prices) get lower-case regions and, where they name a
// size, its embedded spelling. Errors in the embedded data are bugs of the
// build (kInternal); a bad store or date is the user's (docs/catalog.md).
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/internal/catalog_data.h"
#include "catalog/internal/catalog_impl.h"
#include "catalog/internal/import_common.h"
#include "catalog/store.h"
#include "core/strings.h"

namespace gpuplan::catalog {

using internal::size_key;

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

// Canonical size names: imports may spell them differently; sizes the
// embedded data does not know are ignored (docs/catalog.md). Holds pointers
// into `sizes`, which must outlive it (moving the vector keeps them valid).
class SizeNames {
 public:
  explicit SizeNames(const std::vector<VmSize>& sizes) {
    for (const VmSize& s : sizes) by_key_.emplace(size_key(s.name), &s);
  }
  const VmSize* find(const std::string& name) const {
    auto it = by_key_.find(size_key(name));
    return it == by_key_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string, const VmSize*> by_key_;
};

// Listed prices: an imported one replaces the embedded one for its key;
// the result is in offer_key order. Sorting keyed indices rather than
// filling a std::map of offers, and folding each distinct size and region
// spelling once, keeps this off the start-up profile.
std::vector<Offer> merge_listed(std::vector<Offer> embedded, std::vector<Offer> imported,
                                const SizeNames& names) {
  std::vector<Offer> all = std::move(embedded);
  // The store returns its rows grouped by size and region: the previous
  // row's answers are reused (folding 15 k names showed in the profile).
  std::string last_raw_size, last_raw_region, last_region;
  const VmSize* last_size = nullptr;
  all.reserve(all.size() + imported.size());
  for (Offer& o : imported) {
    if (o.size != last_raw_size) {
      last_raw_size = o.size;
      last_size = names.find(o.size);
    }
    if (!last_size || o.estimated) continue;
    if (o.region != last_raw_region) {
      last_raw_region = o.region;
      last_region = strings::to_lower(o.region);
    }
    // Imported before sovereign-cloud items were left out at import
    // (import_retail_prices.cc): a public-cloud plan cannot use them.
    if (internal::sovereign_cloud_region(last_region)) continue;
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
  return listed;
}

// The store's facts about sizes in regions, in the embedded spelling of the
// size (when known) and with lower-case regions, as the indexes expect.
void canonicalize_facts(StoreContents& store, const SizeNames& names) {
  for (Restriction& r : store.restrictions) {
    if (const VmSize* s = names.find(r.size)) r.size = s->name;
    r.region = strings::to_lower(r.region);
  }
  for (SkuAvailability& a : store.availability) {
    if (const VmSize* s = names.find(a.size)) a.size = s->name;
    a.region = strings::to_lower(a.region);
  }
  for (Quota& q : store.quotas) q.region = strings::to_lower(q.region);
  for (SpotEviction& v : store.spot_evictions) {
    if (const VmSize* s = names.find(v.size)) v.size = s->name;
    v.region = strings::to_lower(v.region);
  }
  for (BlobPrice& b : store.blob_prices) b.region = strings::to_lower(b.region);
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
  const SizeNames names(e.sizes);
  std::vector<Offer> listed = merge_listed(std::move(e.listed), std::move(store.offers), names);
  canonicalize_facts(store, names);

  std::unique_ptr<Catalog> c(new Catalog());
  c->impl_->init(today, std::move(e.regions));
  c->impl_->gpus = std::move(e.gpus);
  c->impl_->offers = internal::with_estimates(e.sizes, std::move(listed), std::move(e.rules));
  c->impl_->restrictions = std::move(store.restrictions);
  c->impl_->availability = std::move(store.availability);
  c->impl_->quotas = std::move(store.quotas);
  c->impl_->spot = std::move(store.spot_evictions);
  c->impl_->blob = std::move(store.blob_prices);
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

}  // namespace gpuplan::catalog
