// The inside of a loaded Catalog, shared by the files that build and read
// it: catalog.cc (indexing and point lookups), catalog_load.cc (assembling
// one from the embedded data and a store) and catalog_query.cc (filtered,
// sorted listings). Not API: other modules see catalog.h only.
//
// Every lookup key is a folded name (strings::fold: case, '_', '-' and
// spaces ignored); size keys also drop the "Standard_" prefix, so
// "NC40ads_H100_v5" finds "Standard_NC40ads_H100_v5".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/internal/catalog_data.h"
#include "catalog/store.h"

namespace gpuplan::catalog {

namespace internal {

// Folded size name without the "Standard_" prefix: the key of size lookups.
[[nodiscard]] std::string size_key(std::string_view name);
// Folded quota family without a trailing "vCPUs" ("standardNCadsH100v5Family").
[[nodiscard]] std::string family_key(std::string_view family);
// Quota rows (by family_key) that are the region's total, or its spot pool.
[[nodiscard]] bool is_regional_total(const std::string& k);
[[nodiscard]] bool is_spot_pool(const std::string& k);

}  // namespace internal

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
  void init(const std::string& date, std::vector<internal::RegionInfo> infos);

  static uint64_t pack(uint32_t size_id, uint32_t region_id, Os os, Pricing p) {
    return (static_cast<uint64_t>(size_id) << 32) | (static_cast<uint64_t>(region_id) << 8) |
           (static_cast<uint64_t>(os) << 4) | static_cast<uint64_t>(p);
  }

  // Fills every index above from the data fields; called once, last.
  void build();
};

}  // namespace gpuplan::catalog
