// The catalog's vocabulary: the names of its enums (pricing, OS, driver,
// status, region access, sort) and their parsers, the small facts derived
// from a size alone (Arm64, confidential, reservable, commitment length),
// calendar dates ("today", honouring GPUPLAN_TODAY, and day differences),
// and the one-line provenance of the embedded data. Everything here is a
// pure function of its arguments (or of the clock, for today()); nothing
// touches a loaded Catalog.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "catalog/internal/catalog_data.h"
#include "core/csv.h"
#include "core/dates.h"
#include "core/strings.h"
#include "core/units.h"

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
                          "savings-3y)" +
                          strings::did_you_mean(s, {"payg", "spot", "reserved-1y", "reserved-3y",
                                                    "savings-1y", "savings-3y"}));
}

Result<Os> parse_os(std::string_view s, Where where) {
  std::string v = strings::to_lower(strings::trim(s));
  if (v == "linux") return Os::kLinux;
  if (v == "windows") return Os::kWindows;
  return invalid_argument("unknown OS '" + std::string(s) + "' (expected linux or windows)" +
                              strings::did_you_mean(v, {"linux", "windows"}),
                          std::move(where));
}

Result<CatalogSort> parse_catalog_sort(std::string_view s) {
  std::string v = strings::to_lower(strings::trim(s));
  for (CatalogSort c : {CatalogSort::kPrice, CatalogSort::kGpuPrice, CatalogSort::kSize,
                        CatalogSort::kRegion, CatalogSort::kGpuMemory, CatalogSort::kGpus}) {
    if (v == to_string(c)) return c;
  }
  return invalid_argument(
      "unknown sort '" + std::string(s) +
      "' (expected price, gpu-price, size, region, gpu-memory, gpus)" +
      strings::did_you_mean(v, {"price", "gpu-price", "size", "region", "gpu-memory", "gpus"}));
}

bool is_arm64(const VmSize& s) { return s.gpu_model == "GB200" || s.gpu_model == "GB300"; }

bool is_confidential(const VmSize& s) { return strings::starts_with_icase(s.series, "NCC"); }

bool names_series(const std::string& want, const VmSize& s) {
  const std::string f = strings::fold(want);
  return f == strings::fold(s.family_letter) || f == strings::fold(s.series);
}

bool series_admits(const std::vector<std::string>& series, const VmSize& s) {
  if (series.empty()) return true;
  for (const std::string& want : series)
    if (names_series(want, s)) return true;
  return false;
}

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
      return kHoursPerYear;
    case Pricing::kReserved3y:
    case Pricing::kSavings3y:
      return 3 * kHoursPerYear;
    default:
      return 0;
  }
}

// ------------------------------------------------------------------ dates

namespace {

std::optional<int64_t> day_number(std::string_view s) {
  if (!internal::is_date(s)) return std::nullopt;
  const int y = std::stoi(std::string(s.substr(0, 4)));
  const unsigned m = static_cast<unsigned>(std::stoi(std::string(s.substr(5, 2))));
  const unsigned d = static_cast<unsigned>(std::stoi(std::string(s.substr(8, 2))));
  return dates::days_from_civil(y, m, d);
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
  return dates::now_utc("%Y-%m-%d");
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

}  // namespace gpuplan::catalog
