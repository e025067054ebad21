// The SQLite store of imported Azure data (retail prices, list-skus,
// list-usage). Each import is one transaction recording a snapshot with its
// source and time; readers never see half an import; older snapshots stay
// as price history.
//
// CONTRACT between the store/importers and Catalog::load: read_store().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/result.h"

namespace gpuplan::catalog {

// Where a size is offered (from list-skus): region and its zones.
struct SkuAvailability {
  std::string size;
  std::string region;
  std::vector<std::string> zones;
};

struct StoreContents {
  std::vector<Offer> offers;               // newest listed price per (size, region, os, pricing)
  std::vector<Quota> quotas;               // newest per (region, family)
  std::vector<Restriction> restrictions;   // from the newest list-skus snapshot
  std::vector<SkuAvailability> availability;  // from the newest list-skus snapshot
};

// Default store path: $XDG_DATA_HOME/gpuplan/catalog.db, else
// $HOME/.local/share/gpuplan/catalog.db.
[[nodiscard]] std::string default_store_path();

// Reads the newest state of the store. A path that does not exist yields
// empty contents (nothing imported yet), not an error. kUnavailable when the
// file exists but cannot be opened or read as a gpuplan store.
[[nodiscard]] Result<StoreContents> read_store(const std::string& path);

}  // namespace gpuplan::catalog
