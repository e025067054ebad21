// Spot data importer: Azure Resource Graph SpotResources pages as `az graph
// query -o json` prints them.
//
// Problem: Azure publishes how often spot VMs are evicted only through
// Resource Graph (table SpotResources, tenant-scoped, needs a login): per
// size and region an eviction-rate band over a trailing window
// (type microsoft.compute/skuspotevictionrate/location, properties.evictionRate
// "0-5" ... "20+"), and per size, OS and region up to 90 days of spot prices
// (type microsoft.compute/skuspotpricehistory/ostype/location,
// properties.spotPrices[] of {effectiveDate, priceUSD}, newest first)
// (MicrosoftDocs/azure-compute-docs articles/virtual-machines/spot-vms.md,
// "Pricing and eviction history"). gpuplan reads what the user fetched
// with az, offline, and pages through skip_token like az does (at most 1000
// rows a page: `--first 1000`).
//
// Approach: one query projects both types into one row shape (type,
// skuName, location, evictionRate, osType, spotPrices; docs/importers.md);
// each page is checked as an envelope (count = rows held, total_records
// the same on every page, skip_token a string or null); each row by its
// type. Sizes gpuplan does not know (Resource Graph lists every VM size) are
// ignored and counted. A band string Azure does not document is refused,
// never mapped to a guess: the band drives money (cost::band_rates).
//
// Trade-offs: the band has no date in Resource Graph, so it is stored with
// the day of the import (or --as-of for a file fetched earlier). Duplicates
// across pages with the same value are counted and dropped; with different
// values the import fails, naming both places.
#include "catalog/import_spot.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/dates.h"
#include "core/files.h"
#include "core/strings.h"

namespace gpuplan::catalog {

namespace {

using internal::json_type_name;
using internal::require_string;

constexpr std::string_view kEvictionType = "microsoft.compute/skuspotevictionrate/location";
constexpr std::string_view kPriceType = "microsoft.compute/skuspotpricehistory/ostype/location";

std::string today_utc() { return dates::now_utc("%Y-%m-%d"); }

Result<int64_t> envelope_count(const nlohmann::json& page, const char* key,
                               const std::string& origin) {
  auto it = page.find(key);
  if (it == page.end() || it->is_null()) return -1;
  if (!it->is_number_integer() || it->get<int64_t>() < 0)
    return invalid_argument("expected a non-negative integer, got " + json_type_name(*it),
                            Where{origin, 0, 0, key});
  return it->get<int64_t>();
}

}  // namespace

bool is_iso_date(std::string_view s) { return dates::is_calendar_date(s); }

SpotImport::SpotImport(SizeFilter filter, std::string as_of)
    : filter_(std::move(filter)), as_of_(as_of.empty() ? today_utc() : std::move(as_of)) {
  report_.data.kind = SnapshotKind::kSpot;
}

Result<std::string> SpotImport::add_page(std::string_view text, const std::string& origin) {
  GPUPLAN_TRY(nlohmann::json page, files::parse_json_unique_keys(text, origin));
  return add_page_json(page, origin);
}

Result<std::string> SpotImport::add_page_json(const nlohmann::json& page,
                                              const std::string& origin) {
  // 1. The envelope az graph query prints.
  if (!page.is_object() || page.find("data") == page.end())
    return invalid_argument(
        "not az graph query output: expected an object with \"data\" (and count, skip_token, "
        "total_records), got " +
            (page.is_object() ? std::string("an object without \"data\"") : json_type_name(page)),
        Where{origin});
  const nlohmann::json& data = page["data"];
  if (!data.is_array())
    return invalid_argument(
        "expected an array of rows, got " + json_type_name(data) +
            " (run az graph query with -o json; a table result format is not supported)",
        Where{origin, 0, 0, "data"});
  GPUPLAN_TRY(int64_t count, envelope_count(page, "count", origin));
  if (count >= 0 && static_cast<size_t>(count) != data.size())
    return invalid_argument("page says count " + std::to_string(count) + " but holds " +
                                std::to_string(data.size()) + " rows (truncated or edited?)",
                            Where{origin, 0, 0, "count"});
  GPUPLAN_TRY(int64_t total, envelope_count(page, "total_records", origin));
  if (total >= 0) {
    if (total_records_ && *total_records_ != total)
      return invalid_argument("total_records " + std::to_string(total) +
                                  " differs from the first page's " +
                                  std::to_string(*total_records_) +
                                  " (pages of different queries? import each query on its own)",
                              Where{origin, 0, 0, "total_records"});
    total_records_ = total;
  }
  std::string skip;
  if (auto t = page.find("skip_token"); t != page.end() && !t->is_null()) {
    if (!t->is_string())
      return invalid_argument("expected a string or null, got " + json_type_name(*t),
                              Where{origin, 0, 0, "skip_token"});
    skip = t->get<std::string>();
  }
  ++report_.pages;
  last_skip_token_ = skip;

  // 2. The rows.
  for (size_t i = 0; i < data.size(); ++i) {
    const std::string path = "data[" + std::to_string(i) + "]";
    ++rows_total_;
    GPUPLAN_RETURN_IF_ERROR(add_row(data[i], origin, path));
  }
  return skip;
}

Status SpotImport::add_row(const nlohmann::json& row, const std::string& origin,
                           const std::string& path) {
  if (!row.is_object())
    return invalid_argument("expected an object (a projected row), got " + json_type_name(row),
                            Where{origin, 0, 0, path});
  ++report_.items_read;
  GPUPLAN_TRY(std::string type, require_string(row, "type", origin, path));
  GPUPLAN_TRY(std::string sku, require_string(row, "skuName", origin, path));
  GPUPLAN_TRY(std::string location, require_string(row, "location", origin, path));
  const std::string t = strings::to_lower(type);
  if (t != kEvictionType && t != kPriceType) {
    ++report_.ignored["other SpotResources type (" + type + ")"];
    return {};
  }
  std::optional<std::string> size = filter_.match(sku);
  if (!size) {
    ++report_.ignored["not a GPU size of the catalog"];
    return {};
  }
  const std::string region = internal::normalize_region(location);
  if (region.empty())
    return invalid_argument("empty location", Where{origin, 0, 0, path + ".location"});
  if (t == kEvictionType) return add_band(row, *size, region, origin, path);
  return add_prices(row, *size, region, origin, path);
}

Status SpotImport::add_band(const nlohmann::json& row, const std::string& size,
                            const std::string& region, const std::string& origin,
                            const std::string& path) {
  GPUPLAN_TRY(std::string text, require_string(row, "evictionRate", origin, path));
  std::optional<EvictionBand> band = parse_eviction_band(text);
  if (!band)
    return invalid_argument("unknown eviction-rate band \"" + text +
                                "\" (Azure's bands are 0-5, 5-10, 10-15, 15-20 and 20+)",
                            Where{origin, 0, 0, path + ".evictionRate"});
  const std::string key = size + "|" + region;
  const std::string where = origin + ": " + path;
  if (auto it = bands_.find(key); it != bands_.end()) {
    if (report_.data.spot_bands[it->second.first].band != *band)
      return invalid_argument(
          "band \"" + text + "\" for " + size + " in " + region + " conflicts with \"" +
              std::string(to_string(report_.data.spot_bands[it->second.first].band)) + "\" at " +
              it->second.second,
          Where{origin, 0, 0, path + ".evictionRate"});
    ++duplicates_;
    ++report_.ignored["duplicate row"];
    return {};
  }
  bands_.emplace(key, std::pair(report_.data.spot_bands.size(), where));
  report_.data.spot_bands.push_back(SpotBandRow{size, region, *band, as_of_});
  ++report_.items_used;
  return {};
}

Status SpotImport::add_prices(const nlohmann::json& row, const std::string& size,
                              const std::string& region, const std::string& origin,
                              const std::string& path) {
  GPUPLAN_TRY(std::string os_text, require_string(row, "osType", origin, path));
  auto os = parse_os(strings::to_lower(os_text), Where{origin, 0, 0, path + ".osType"});
  if (!os) return tl::unexpected(os.error());
  auto it = row.find("spotPrices");
  if (it == row.end() || it->is_null())
    return invalid_argument("missing field (expected an array of {effectiveDate, priceUSD})",
                            Where{origin, 0, 0, path + ".spotPrices"});
  if (!it->is_array())
    return invalid_argument("expected an array, got " + json_type_name(*it),
                            Where{origin, 0, 0, path + ".spotPrices"});
  if (it->empty()) {
    ++report_.ignored["no spot price points"];
    return {};
  }
  int64_t added = 0;
  for (size_t k = 0; k < it->size(); ++k) {
    const nlohmann::json& point = (*it)[k];
    const std::string ppath = path + ".spotPrices[" + std::to_string(k) + "]";
    if (!point.is_object())
      return invalid_argument(
          "expected an object {effectiveDate, priceUSD}, got " + json_type_name(point),
          Where{origin, 0, 0, ppath});
    GPUPLAN_TRY(double usd, internal::require_non_negative(point, "priceUSD", origin, ppath,
                                                           internal::kMaxPriceUsd));
    GPUPLAN_TRY(std::string when, require_string(point, "effectiveDate", origin, ppath));
    const std::string date = when.substr(0, 10);
    if (!is_iso_date(date) || (when.size() > 10 && when[10] != 'T' && when[10] != ' '))
      return invalid_argument(
          "expected an ISO date (2026-11-30 or 2026-11-30T00:00:00Z), got \"" + when + "\"",
          Where{origin, 0, 0, ppath + ".effectiveDate"});
    const std::string key = size + "|" + region + "|" + std::string(to_string(*os)) + "|" + date;
    if (auto d = prices_.find(key); d != prices_.end()) {
      if (report_.data.spot_prices[d->second.first].usd_per_hour != usd)
        return invalid_argument("two spot prices for " + size + " " + std::string(to_string(*os)) +
                                    " in " + region + " on " + date + " (the other at " +
                                    d->second.second + ")",
                                Where{origin, 0, 0, ppath + ".priceUSD"});
      ++duplicates_;
      continue;
    }
    prices_.emplace(key, std::pair(report_.data.spot_prices.size(), origin + ": " + ppath));
    report_.data.spot_prices.push_back(SpotPriceRow{size, region, *os, date, usd});
    ++added;
  }
  if (added > 0) {
    ++report_.items_used;
  } else {
    ++report_.ignored["duplicate row"];
  }
  return {};
}

Result<ImportReport> SpotImport::finish(std::string source) {
  report_.data.source = std::move(source);
  if (total_records_ && rows_total_ > *total_records_)
    return invalid_argument("the pages hold " + std::to_string(rows_total_) +
                                " rows but total_records is " + std::to_string(*total_records_) +
                                " (a page given twice?)",
                            Where{report_.data.source, 0, 0, "total_records"});
  if (report_.data.spot_bands.empty() && report_.data.spot_prices.empty())
    return invalid_argument("nothing to import: " + std::to_string(report_.items_read) +
                                " rows read, none is a GPU size's eviction band or spot price",
                            Where{report_.data.source});
  if (!last_skip_token_.empty() || (total_records_ && rows_total_ < *total_records_))
    report_.notes.push_back(
        "incomplete: the pages hold " + std::to_string(rows_total_) + " of " +
        (total_records_ ? std::to_string(*total_records_) : std::string("?")) +
        " rows; fetch the next page with az graph query ... --first 1000 --skip-token "
        "<skip_token of the last page> and import all pages together (docs/importers.md)");
  report_.notes.push_back("eviction bands dated " + as_of_ +
                          " (Resource Graph gives the trailing window's band without a date; "
                          "--as-of sets it for a file fetched earlier)");
  std::sort(report_.data.spot_bands.begin(), report_.data.spot_bands.end(),
            [](const SpotBandRow& a, const SpotBandRow& b) {
              return std::tie(a.size, a.region) < std::tie(b.size, b.region);
            });
  std::sort(report_.data.spot_prices.begin(), report_.data.spot_prices.end(),
            [](const SpotPriceRow& a, const SpotPriceRow& b) {
              return std::tie(a.size, a.region, a.os, a.effective_date) <
                     std::tie(b.size, b.region, b.os, b.effective_date);
            });
  bands_.clear();
  prices_.clear();
  return std::move(report_);
}

Result<ImportReport> import_spot_files(const std::vector<std::string>& files,
                                       const SizeFilter& filter, const std::string& as_of) {
  if (files.empty()) return invalid_argument("no spot file given");
  if (!as_of.empty() && !is_iso_date(as_of))
    return invalid_argument("expected a date YYYY-MM-DD, got \"" + as_of + "\"",
                            Where{"", 0, 0, "--as-of"});
  SpotImport import(filter, as_of);
  for (const std::string& f : files) {
    GPUPLAN_TRY(std::string text, files::read_text(f));
    GPUPLAN_RETURN_IF_ERROR(import.add_page(text, f));
  }
  std::string source;
  for (size_t i = 0; i < files.size(); ++i) source += (i > 0 ? ", " : "") + files[i];
  return import.finish(source);
}

Result<ImportReport> import_spot_text(std::string_view text, const std::string& origin,
                                      const SizeFilter& filter, const std::string& as_of) {
  SpotImport import(filter, as_of);
  GPUPLAN_RETURN_IF_ERROR(import.add_page(text, origin));
  return import.finish(origin);
}

}  // namespace gpuplan::catalog
