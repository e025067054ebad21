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
#include <string_view>
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
  std::vector<Offer> offers;                  // newest listed price per (size, region, os, pricing)
  std::vector<Quota> quotas;                  // newest per (region, family)
  std::vector<Restriction> restrictions;      // from the newest list-skus snapshot
  std::vector<SkuAvailability> availability;  // from the newest list-skus snapshot
  // Spot (Azure Resource Graph SpotResources): the newest band per (size,
  // region); the newest spot price per (size, region, os) is in `offers`
  // (pricing spot) unless a retail-prices import has a later effective date.
  std::vector<SpotEviction> spot_evictions;
  // Blob capacity prices: the newest import's bands per (region, tier,
  // redundancy), `source` naming the import (schema 4).
  std::vector<BlobPrice> blob_prices;
};

// Default store path: $XDG_DATA_HOME/gpuplan/catalog.db, else
// $HOME/.local/share/gpuplan/catalog.db.
[[nodiscard]] std::string default_store_path();

// Reads the newest state of the store. A path that does not exist yields
// empty contents (nothing imported yet), not an error. kUnavailable when the
// file exists but cannot be opened or read as a gpuplan store.
[[nodiscard]] Result<StoreContents> read_store(const std::string& path);

// ---------------------------------------------------------------------------
// Writing snapshots (the importers) and reading price history.

enum class SnapshotKind { kRetailPrices, kSkus, kUsage, kSpot };
// "retail-prices", "skus", "usage", "spot"
[[nodiscard]] std::string_view to_string(SnapshotKind k);

// One listed price as an importer read it: per VM, per hour, in USD.
struct PriceRow {
  std::string size;
  std::string region;
  Os os = Os::kLinux;
  Pricing pricing = Pricing::kPayg;
  double usd_per_hour = 0;
  std::string as_of;  // YYYY-MM-DD (effectiveStartDate)
};

// One list-usage row kept by the usage importer. `family` is the API name
// (name.value), "" for the regional total, "lowPriorityCores" for the spot
// pool; `family_display` is name.localizedValue as Azure printed it.
struct UsageRow {
  std::string region;
  std::string family;
  std::string family_display;
  double limit = 0;
  double used = 0;
};

// One eviction-rate row of a spot import (SpotResources type
// microsoft.compute/skuspotevictionrate/location).
struct SpotBandRow {
  std::string size;
  std::string region;
  EvictionBand band = EvictionBand::k0To5;
  std::string as_of;  // YYYY-MM-DD: when Azure reported it (the import day, or --as-of)
};

// One point of a spot price history (SpotResources type
// microsoft.compute/skuspotpricehistory/ostype/location, properties.spotPrices[]).
struct SpotPriceRow {
  std::string size;
  std::string region;
  Os os = Os::kLinux;
  std::string effective_date;  // YYYY-MM-DD
  double usd_per_hour = 0;
};

// One Blob capacity price band as the Retail Prices importer read it.
struct BlobPriceRow {
  std::string region;
  std::string tier;        // "hot", "cool", "cold", "archive"
  std::string redundancy;  // "LRS", "ZRS", ...
  double from_gb = 0;      // tierMinimumUnits
  double usd_per_gb_month = 0;
  std::string as_of;  // YYYY-MM-DD (effectiveStartDate)
};

// Everything one import writes. Only the vectors that belong to `kind` are
// written (prices + blob_prices for kRetailPrices, availability + restrictions for kSkus,
// usage for kUsage, spot_bands + spot_prices for kSpot).
struct SnapshotData {
  SnapshotKind kind = SnapshotKind::kRetailPrices;
  std::string source;  // the files or URL, as the user gave them
  std::vector<PriceRow> prices;
  std::vector<BlobPriceRow> blob_prices;  // kRetailPrices, from a Storage page
  std::vector<SkuAvailability> availability;
  std::vector<Restriction> restrictions;
  std::vector<UsageRow> usage;
  std::vector<SpotBandRow> spot_bands;
  std::vector<SpotPriceRow> spot_prices;
};

struct SnapshotInfo {
  int64_t id = 0;
  SnapshotKind kind = SnapshotKind::kRetailPrices;
  std::string source;
  std::string imported_at;  // UTC, "2026-12-02T09:55:01Z"
  int64_t rows = 0;         // rows the snapshot holds
};

// Writes `data` as one new snapshot in ONE transaction: either all of it is
// visible to readers afterwards or none of it (a crash or kill at any point
// leaves the previous state). Creates the file, and the parent directories,
// when missing. Older snapshots are kept (history). kUnavailable when the
// store cannot be created, opened or written (read-only, busy past a 5 s
// timeout, not a gpuplan store); kInvalidArgument when a price row is not a
// finite non-negative number (importers validate first; this is a backstop).
//
// Test hook: when the environment variable GPUPLAN_TEST_PAUSE_IN_IMPORT names
// a file path, the writer creates that file after writing about half of the
// rows inside the open transaction, then sleeps for 60 s (so a test can kill
// the process there).
[[nodiscard]] Result<SnapshotInfo> write_snapshot(const std::string& path,
                                                  const SnapshotData& data);

// Every spot price point imported for `size` in `region` (any snapshot),
// oldest effective date first, then linux before windows; `snapshot` and
// `source` name the import. Empty when none.
struct SpotPriceHistoryEntry {
  int64_t snapshot = 0;
  std::string source;
  Os os = Os::kLinux;
  std::string effective_date;
  double usd_per_hour = 0;
};
[[nodiscard]] Result<std::vector<SpotPriceHistoryEntry>> spot_price_history(
    const std::string& path, const std::string& size, const std::string& region);

// Every snapshot in the store, oldest first. Empty when the file is missing.
[[nodiscard]] Result<std::vector<SnapshotInfo>> list_snapshots(const std::string& path);

// One imported price of a size in a region, with the snapshot it came from.
struct PriceHistoryEntry {
  int64_t snapshot = 0;
  std::string source;
  std::string imported_at;
  Os os = Os::kLinux;
  Pricing pricing = Pricing::kPayg;
  double usd_per_hour = 0;
  std::string as_of;
  bool wins = false;  // the newest snapshot's price for its (os, pricing): what read_store returns
};

// Every imported price of `size` in `region` across all snapshots, oldest
// snapshot first, then by os and pricing. `size` matches case-insensitively
// (the stored spelling is the one Azure used). Empty when nothing was
// imported (or the file is missing). kUnavailable when the store can't be read.
[[nodiscard]] Result<std::vector<PriceHistoryEntry>> price_history(const std::string& path,
                                                                   const std::string& size,
                                                                   const std::string& region);

}  // namespace gpuplan::catalog
