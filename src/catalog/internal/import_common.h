// What every Azure-format importer shares: which VM sizes it keeps, how it
// reports what it read, used and ignored, and small JSON validation helpers
// that name the JSON path of a bad value ("Items[3].retailPrice").
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/store.h"
#include "core/result.h"

namespace gpuplan::catalog {

// Which VM sizes an import keeps. Built from the catalog's sizes (the normal
// case: items for sizes gpuplan does not know are ignored and counted), or,
// with no catalog at hand, every name that looks like a GPU size
// ("Standard_N" followed by C, D, G or V).
class SizeFilter {
 public:
  [[nodiscard]] static SizeFilter from_sizes(const std::vector<VmSize>& sizes);
  [[nodiscard]] static SizeFilter gpu_name_pattern();

  // The catalog's spelling of `arm_sku_name` (matched ignoring case, '_',
  // '-' and spaces) when the size is kept; nullopt otherwise.
  [[nodiscard]] std::optional<std::string> match(std::string_view arm_sku_name) const;
  // The catalog's API quota family name matching a list-usage row, by its
  // API name (name.value) or display name (name.localizedValue, with or
  // without the trailing " vCPUs"), ignoring case and spaces; nullopt when no
  // catalog size uses that family (or there is no catalog).
  [[nodiscard]] std::optional<std::string> match_family(std::string_view value,
                                                        std::string_view display) const;
  [[nodiscard]] bool uses_catalog() const { return !pattern_; }

 private:
  bool pattern_ = false;
  std::unordered_map<std::string, std::string> sizes_;     // fold(name) -> name
  std::unordered_map<std::string, std::string> families_;  // fold(api or display) -> api
};

// What one import read and did, for the user and for write_snapshot.
struct ImportReport {
  SnapshotData data;                       // rows to write (kind and source set)
  int64_t pages = 0;                       // pages / files read
  int64_t items_read = 0;                  // items in the input
  int64_t items_used = 0;                  // items that produced at least one row
  std::map<std::string, int64_t> ignored;  // reason -> items (items_read = used + ignored)
  int64_t rows_superseded = 0;             // rows dropped for a newer one with the same key
  std::vector<std::string> notes;          // things the user should know
  std::optional<SnapshotInfo> snapshot;    // set once written
};

// One-line summaries of an import, and its JSON form (for --json).
[[nodiscard]] std::string describe(const ImportReport& r);
[[nodiscard]] nlohmann::ordered_json to_json(const ImportReport& r);

namespace internal {

// Typed field access with errors naming `file` and the JSON path `path.key`.
// Required fields must exist and have the type; optional ones may be absent
// or null (returns nullopt) but must have the type when present.
Result<std::string> require_string(const nlohmann::json& obj, const char* key,
                                   const std::string& file, const std::string& path);
Result<std::optional<std::string>> optional_string(const nlohmann::json& obj, const char* key,
                                                   const std::string& file,
                                                   const std::string& path);
// A finite number >= 0 and at most `most` (JSON numbers only: "1.5" as a
// string is a wrong type).
Result<double> require_non_negative(const nlohmann::json& obj, const char* key,
                                    const std::string& file, const std::string& path,
                                    double most = std::numeric_limits<double>::max());
// A count such as a quota: a JSON number, or a string holding one — `az vm
// list-usage -o json` prints currentValue and limit as strings (azure-cli's
// transform_vm_usage_list applies str() to both), the REST API as numbers.
// Then as require_non_negative up to kMaxCount, and a whole number (vCPUs).
Result<double> require_count(const nlohmann::json& obj, const char* key, const std::string& file,
                             const std::string& path);
// The largest count Azure reports in a usage row: limits of 2^31 - 1 stand
// for "unlimited"; a limit of 1e308 imported and `regions` printed a
// 309-digit quota.
inline constexpr double kMaxCount = 1e10;
// The most any one Azure price may be, in USD: an hourly price or a whole
// reservation term (the dearest GPU VM's three years at list price are
// ~1.5 M USD). A retailPrice of 1e308 imported, and `cost` printed "inf
// USD" from it; 1e20 printed a 23-digit month.
inline constexpr double kMaxPriceUsd = 1e8;
// The least a GPU VM meter may be, USD an hour (import_retail_prices.cc).
inline constexpr double kMinPriceUsd = 0.001;
std::string json_type_name(const nlohmann::json& v);

// The list of an `az ... -o json` document: a bare array, or the REST shape
// {"value": [...], "nextLink": ...}. Sets `prefix` to the JSON path of the
// list ("" or "value") and notes a nextLink (only this page is imported).
// kInvalidArgument naming `what` ("list-skus") when it is neither.
Result<const nlohmann::json*> az_list(const nlohmann::json& doc, const std::string& origin,
                                      std::string_view what, std::string& prefix,
                                      std::vector<std::string>& notes);
// Lower-cases and drops spaces: "East US" -> "eastus" (armRegionName style).
std::string normalize_region(std::string_view region);
// Whether `region` (normalized) belongs to a sovereign cloud — Azure
// Government (usgov*, usdod*; usnat*, ussec* for its secret clouds) or Azure
// operated by 21Vianet (china*) — which the Retail Prices API lists beside
// the public cloud's regions but which a public-cloud subscription cannot
// deploy to: each is a separate cloud with its own subscriptions
// (learn.microsoft.com: "Compare Azure Government and global Azure",
// "Azure operated by 21Vianet").
bool sovereign_cloud_region(std::string_view region);
// kInvalidArgument naming --region when `region` (normalized) is one.
Status refuse_sovereign_region(std::string_view region);

}  // namespace internal
}  // namespace gpuplan::catalog
