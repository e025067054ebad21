// Retail Prices API importer.
//
// Problem: the Azure Retail Prices API is the one public, authoritative source
// of VM prices, but its items need interpretation before they are "the price
// of size S in region R on OS O under pricing P per hour":
//   - `type` is Consumption (pay-as-you-go, and spot), Reservation or
//     DevTestConsumption. Any other type is an error: guessing would put a
//     wrong price in front of the user.
//   - A Reservation's `retailPrice` is the price of the WHOLE term although
//     `unitOfMeasure` says "1 Hour" (shared/data/README.md, checked against
//     the public capture in samples/retail_prices_sample.json: D8 v4 1-year
//     2377 vs 0.46 payg). The hourly equivalent is price / (8,760 h x years),
//     8,760 h being Azure's year (DESIGN.md). "5 Years" exists only for HBv2
//     (facts.md) and is ignored.
//   - Spot meters have " Spot" in skuName (or meterName); "Low Priority"
//     meters are Azure Batch's and are ignored; Windows is a separate product
//     whose productName ends in " Windows" (a few series " Win").
//   - DevTestConsumption rates apply only to Dev/Test subscriptions; they are
//     ignored (and counted) rather than mixed with retail prices.
//   - api-version 2023-01-01-preview adds `savingsPlan: [{unitPrice, term}]`
//     on Consumption items: already hourly, one per term.
//   - The preview API returns non-primary meter regions too
//     (isPrimaryMeterRegion false): duplicates of the primary meter, ignored.
//   - Blob capacity (serviceName "Storage", productName "General Block Blob
//     v2" — the general-purpose v2 account the deployment creates —
//     meterName "<Hot|Cool|Cold|Archive> <LRS|ZRS|GRS|RA-GRS|GZRS|RA-GZRS>
//     Data Stored", unitOfMeasure "1 GB/Month") is kept as a Blob price band
//     per tierMinimumUnits (graduated: 0, 51,200 and 512,000 GB on the
//     pricing page's "first 50 TB / next 450 TB / over 500 TB"). Every other
//     Storage meter (operations, other products) is ignored and counted.
// Approach: validate every item completely first (so a malformed item is an
// error even where it would have been ignored), then classify it; each
// ignored item is counted under its reason. Within one import, one row per
// (size, region, os, pricing) is kept: the item with the latest
// effectiveStartDate (the API lists price changes as separate items).
// Trade-off: strict validation means one bad item fails the whole import;
// that is the point (nothing half-imported), and the error names the item.
#include "catalog/import_retail_prices.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#include <curl/curl.h>
#include <dlfcn.h>

#include "catalog/fetch_policy.h"
#include "core/dates.h"
#include "core/files.h"
#include "core/names.h"
#include "core/strings.h"
#include "core/units.h"

namespace gpuplan::catalog {
namespace {

using internal::optional_string;
using internal::require_non_negative;
using internal::require_string;

bool contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

// "Hot LRS Data Stored" -> {"hot", "LRS"}; nullopt for any other meter.
std::optional<std::pair<std::string, std::string>> blob_capacity_meter(std::string_view meter) {
  constexpr std::string_view kSuffix = " Data Stored";
  if (meter.size() <= kSuffix.size() || !meter.ends_with(kSuffix)) return std::nullopt;
  meter.remove_suffix(kSuffix.size());
  const size_t space = meter.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view tier = meter.substr(0, space), red = meter.substr(space + 1);
  static constexpr std::string_view kTiers[] = {"Hot", "Cool", "Cold", "Archive"};
  static constexpr std::string_view kRedundancy[] = {"LRS",    "ZRS",  "GRS",
                                                     "RA-GRS", "GZRS", "RA-GZRS"};
  if (std::find(std::begin(kTiers), std::end(kTiers), tier) == std::end(kTiers) ||
      std::find(std::begin(kRedundancy), std::end(kRedundancy), red) == std::end(kRedundancy))
    return std::nullopt;
  return std::make_pair(strings::to_lower(tier), std::string(red));
}

bool is_windows_product(std::string_view product) {
  return strings::ends_with(product, " Windows") || strings::ends_with(product, " Win");
}

// "2024-03-01T00:00:00Z" -> "2024-03-01"; nullopt if not a date.
std::optional<std::string> date_part(std::string_view s) {
  if (s.size() < 10) return std::nullopt;
  for (int i = 0; i < 10; ++i) {
    char c = s[static_cast<size_t>(i)];
    bool digit = c >= '0' && c <= '9';
    if ((i == 4 || i == 7) ? c != '-' : !digit) return std::nullopt;
  }
  if (s.size() > 10 && s[10] != 'T' && s[10] != ' ') return std::nullopt;
  if (!dates::is_calendar_date(s.substr(0, 10))) return std::nullopt;  // 2024-02-30
  return std::string(s.substr(0, 10));
}

// Years in a "1 Year" / "3 Years" term; 0 when unknown.
int term_years(std::string_view term) {
  if (term == "1 Year") return 1;
  if (term == "3 Years") return 3;
  if (term == "5 Years") return 5;
  return 0;
}

}  // namespace

RetailPricesImport::RetailPricesImport(SizeFilter filter, std::string region)
    : filter_(std::move(filter)), region_(internal::normalize_region(region)) {
  report_.data.kind = SnapshotKind::kRetailPrices;
}

Result<std::string> RetailPricesImport::add_page(std::string_view text, const std::string& origin) {
  GPUPLAN_TRY(nlohmann::json page, files::parse_json(text, origin));
  return add_page_json(page, origin);
}

Result<std::string> RetailPricesImport::add_page_json(const nlohmann::json& page,
                                                      const std::string& origin) {
  if (!page.is_object())
    return invalid_argument(
        "not a Retail Prices API page: expected an object with \"Items\", got " +
            internal::json_type_name(page),
        Where{origin});
  auto items_it = page.find("Items");
  if (items_it == page.end())
    return invalid_argument("not a Retail Prices API page: no \"Items\" array", Where{origin});
  if (!items_it->is_array())
    return invalid_argument("expected an array, got " + internal::json_type_name(*items_it),
                            Where{origin, 0, 0, "Items"});
  const nlohmann::json& items = *items_it;
  if (auto c = page.find("Count"); c != page.end() && !c->is_null()) {
    if (!c->is_number_integer() || c->get<int64_t>() < 0)
      return invalid_argument(
          "expected a non-negative integer, got " + internal::json_type_name(*c),
          Where{origin, 0, 0, "Count"});
    if (static_cast<size_t>(c->get<int64_t>()) != items.size())
      return invalid_argument("page says Count " + std::to_string(c->get<int64_t>()) +
                                  " but holds " + std::to_string(items.size()) +
                                  " items (truncated or edited?)",
                              Where{origin, 0, 0, "Count"});
  }
  std::string next;
  if (auto n = page.find("NextPageLink"); n != page.end() && !n->is_null()) {
    if (!n->is_string())
      return invalid_argument("expected a string or null, got " + internal::json_type_name(*n),
                              Where{origin, 0, 0, "NextPageLink"});
    next = n->get<std::string>();
  }
  ++report_.pages;

  for (size_t i = 0; i < items.size(); ++i) {
    const nlohmann::json& item = items[i];
    const std::string path = "Items[" + std::to_string(i) + "]";
    auto where = [&](const std::string& field) { return Where{origin, 0, 0, path + "." + field}; };
    if (!item.is_object())
      return invalid_argument("expected an object, got " + internal::json_type_name(item),
                              Where{origin, 0, 0, path});
    ++report_.items_read;

    // 1. Validate every field we read, whatever the item turns out to be.
    GPUPLAN_TRY(std::string type, require_string(item, "type", origin, path));
    if (type != "Consumption" && type != "Reservation" && type != "DevTestConsumption")
      return invalid_argument("unknown price type '" + type +
                                  "' (expected Consumption, Reservation or DevTestConsumption)",
                              where("type"));
    GPUPLAN_TRY(double price, require_non_negative(item, "retailPrice", origin, path));
    GPUPLAN_TRY(std::string sku, require_string(item, "armSkuName", origin, path));
    GPUPLAN_TRY(std::string region, require_string(item, "armRegionName", origin, path));
    GPUPLAN_TRY(std::string product, require_string(item, "productName", origin, path));
    GPUPLAN_TRY(std::string sku_name, require_string(item, "skuName", origin, path));
    GPUPLAN_TRY(std::string start, require_string(item, "effectiveStartDate", origin, path));
    auto as_of = date_part(start);
    if (!as_of)
      return invalid_argument("'" + start + "' is not a date (expected YYYY-MM-DDThh:mm:ssZ)",
                              where("effectiveStartDate"));
    GPUPLAN_TRY(auto meter, optional_string(item, "meterName", origin, path));
    GPUPLAN_TRY(auto service, optional_string(item, "serviceName", origin, path));
    GPUPLAN_TRY(auto unit, optional_string(item, "unitOfMeasure", origin, path));
    GPUPLAN_TRY(auto currency, optional_string(item, "currencyCode", origin, path));
    GPUPLAN_TRY(auto term, optional_string(item, "reservationTerm", origin, path));
    double min_units = 0;
    if (auto t = item.find("tierMinimumUnits"); t != item.end() && !t->is_null()) {
      GPUPLAN_TRY(min_units, require_non_negative(item, "tierMinimumUnits", origin, path));
    }
    if (currency && *currency != "USD")
      return invalid_argument("price in " + *currency +
                                  ": gpuplan stores USD prices (query with currencyCode eq 'USD')",
                              where("currencyCode"));
    int years = 0;
    if (type == "Reservation") {
      if (!term)
        return invalid_argument("missing field (a Reservation needs \"1 Year\" or \"3 Years\")",
                                where("reservationTerm"));
      years = term_years(*term);
      if (years == 0)
        return invalid_argument(
            "unknown reservation term '" + *term + "' (expected \"1 Year\" or \"3 Years\")",
            where("reservationTerm"));
    }
    bool primary = true;
    if (auto p = item.find("isPrimaryMeterRegion"); p != item.end() && !p->is_null()) {
      if (!p->is_boolean())
        return invalid_argument("expected a boolean, got " + internal::json_type_name(*p),
                                where("isPrimaryMeterRegion"));
      primary = p->get<bool>();
    }
    struct Plan {
      Pricing pricing;
      double usd_per_hour;
    };
    std::vector<Plan> savings;
    if (auto sp = item.find("savingsPlan"); sp != item.end() && !sp->is_null()) {
      if (!sp->is_array())
        return invalid_argument("expected an array, got " + internal::json_type_name(*sp),
                                where("savingsPlan"));
      for (size_t j = 0; j < sp->size(); ++j) {
        const nlohmann::json& e = (*sp)[j];
        std::string sp_path = path + ".savingsPlan[" + std::to_string(j) + "]";
        if (!e.is_object())
          return invalid_argument("expected an object, got " + internal::json_type_name(e),
                                  Where{origin, 0, 0, sp_path});
        GPUPLAN_TRY(double unit_price, require_non_negative(e, "unitPrice", origin, sp_path));
        GPUPLAN_TRY(std::string sp_term, require_string(e, "term", origin, sp_path));
        int sp_years = term_years(sp_term);
        if (sp_years != 1 && sp_years != 3)
          return invalid_argument(
              "unknown savings plan term '" + sp_term + "' (expected \"1 Year\" or \"3 Years\")",
              Where{origin, 0, 0, sp_path + ".term"});
        savings.push_back(
            Plan{sp_years == 1 ? Pricing::kSavings1y : Pricing::kSavings3y, unit_price});
      }
    }

    // 2. Classify: ignored items are counted under their reason.
    auto ignore = [&](const std::string& reason) { ++report_.ignored[reason]; };
    const bool spot = contains(sku_name, " Spot") || (meter && contains(*meter, " Spot"));
    const bool low_priority =
        contains(sku_name, "Low Priority") || (meter && contains(*meter, "Low Priority"));
    if (service && *service == "Storage") {
      GPUPLAN_RETURN_IF_ERROR(
          add_storage_item({region, product, meter.value_or(""), unit.value_or(""), type, primary,
                            min_units, price, *as_of},
                           where("armRegionName")));
      continue;
    }
    if (service && *service != "Virtual Machines") {
      ignore("not a Virtual Machines price (serviceName)");
      continue;
    }
    if (type == "DevTestConsumption") {
      ignore("DevTestConsumption (Dev/Test subscription rates, not retail)");
      continue;
    }
    if (low_priority) {
      ignore("Low Priority meter (Azure Batch only)");
      continue;
    }
    if (!primary) {
      ignore("non-primary meter region (duplicate of the primary meter)");
      continue;
    }
    std::optional<std::string> size = filter_.match(sku);
    if (!size) {
      ignore(filter_.uses_catalog() ? "size not a GPU size in the catalog"
                                    : "size not a GPU size (Standard_N[CDGV]...)");
      continue;
    }
    std::string item_region = internal::normalize_region(region);
    if (item_region.empty()) {
      ignore("no armRegionName");
      continue;
    }
    // A GPU price row's names go into the store and from there into generated
    // deployments: refuse the page rather than keep shell or template syntax.
    GPUPLAN_RETURN_IF_ERROR(names::check_region(item_region, where("armRegionName")));
    GPUPLAN_RETURN_IF_ERROR(names::check_size(*size, where("armSkuName")));
    if (!region_.empty() && item_region != region_) {
      ignore("other region than --region");
      continue;
    }
    if (unit && *unit != "1 Hour") {
      ignore("unitOfMeasure not \"1 Hour\"");
      continue;
    }
    if (years == 5) {
      ignore("5-year reservation (HBv2 only)");
      continue;
    }
    if (type == "Reservation" && spot) {
      ignore("Reservation on a spot meter");
      continue;
    }
    if (price == 0) {
      ignore("zero price (not a real VM rate)");
      continue;
    }

    // 3. Turn the item into rows.
    const Os os = is_windows_product(product) ? Os::kWindows : Os::kLinux;
    std::vector<Plan> rows;
    if (type == "Consumption") {
      rows.push_back(Plan{spot ? Pricing::kSpot : Pricing::kPayg, price});
      if (spot && !savings.empty()) {
        spot_savings_ignored_ += static_cast<int64_t>(savings.size());
      } else {
        for (const Plan& p : savings)
          if (p.usd_per_hour > 0) rows.push_back(p);
      }
    } else {  // Reservation: the whole term's price spread over its hours.
      rows.push_back(Plan{years == 1 ? Pricing::kReserved1y : Pricing::kReserved3y,
                          price / (kHoursPerYear * years)});
    }
    ++report_.items_used;
    for (const Plan& p : rows) {
      auto key =
          std::make_tuple(*size, item_region, static_cast<int>(os), static_cast<int>(p.pricing));
      PriceRow row{*size, item_region, os, p.pricing, p.usd_per_hour, *as_of};
      auto [it, inserted] = index_.emplace(key, report_.data.prices.size());
      if (inserted) {
        report_.data.prices.push_back(std::move(row));
        continue;
      }
      PriceRow& kept = report_.data.prices[it->second];
      if (row.as_of > kept.as_of) kept = std::move(row);
      ++report_.rows_superseded;
    }
  }
  return next;
}

Status RetailPricesImport::add_storage_item(const StorageItem& it, const Where& where) {
  auto ignore = [&](const std::string& reason) {
    ++report_.ignored[reason];
    return Status{};
  };
  const auto meter = blob_capacity_meter(it.meter);
  if (it.product != "General Block Blob v2" || !meter)
    return ignore("Storage price other than Blob capacity (General Block Blob v2, Data Stored)");
  if (it.type != "Consumption") return ignore("Blob capacity price that is not Consumption");
  if (!it.primary) return ignore("non-primary meter region (duplicate of the primary meter)");
  if (it.unit != "1 GB/Month") return ignore("Blob capacity unitOfMeasure not \"1 GB/Month\"");
  const std::string region = internal::normalize_region(it.region);
  if (region.empty()) return ignore("no armRegionName");
  GPUPLAN_RETURN_IF_ERROR(names::check_region(region, where));
  if (!region_.empty() && region != region_) return ignore("other region than --region");
  ++report_.items_used;
  BlobPriceRow row{region, meter->first, meter->second, it.min_units, it.price, it.as_of};
  auto key = std::make_tuple(row.region, row.tier, row.redundancy, row.from_gb);
  auto [pos, inserted] = blob_index_.emplace(key, report_.data.blob_prices.size());
  if (inserted) {
    report_.data.blob_prices.push_back(std::move(row));
    return {};
  }
  BlobPriceRow& kept = report_.data.blob_prices[pos->second];
  if (row.as_of > kept.as_of) kept = std::move(row);
  ++report_.rows_superseded;
  return {};
}

Result<ImportReport> RetailPricesImport::finish(std::string source) {
  report_.data.source = std::move(source);
  if (report_.data.prices.empty() && report_.data.blob_prices.empty())
    return invalid_argument("nothing to import: " + std::to_string(report_.items_read) +
                                " items read, none is a usable GPU VM or Blob capacity price" +
                                (region_.empty() ? "" : " in region " + region_),
                            Where{report_.data.source});
  if (spot_savings_ignored_ > 0)
    report_.notes.push_back(std::to_string(spot_savings_ignored_) +
                            " savingsPlan entries on spot meters ignored (savings plans do not "
                            "apply to spot)");
  std::sort(report_.data.prices.begin(), report_.data.prices.end(),
            [](const PriceRow& a, const PriceRow& b) {
              return std::tie(a.size, a.region, a.os, a.pricing) <
                     std::tie(b.size, b.region, b.os, b.pricing);
            });
  std::sort(report_.data.blob_prices.begin(), report_.data.blob_prices.end(),
            [](const BlobPriceRow& a, const BlobPriceRow& b) {
              return std::tie(a.region, a.tier, a.redundancy, a.from_gb) <
                     std::tie(b.region, b.tier, b.redundancy, b.from_gb);
            });
  index_.clear();
  blob_index_.clear();
  return std::move(report_);
}

Result<ImportReport> import_retail_price_files(const std::vector<std::string>& files,
                                               const SizeFilter& filter,
                                               const std::string& region) {
  if (files.empty()) return invalid_argument("no retail-prices file given");
  RetailPricesImport import(filter, region);
  std::string last_next;
  for (const std::string& f : files) {
    GPUPLAN_TRY(std::string text, files::read_text(f));
    GPUPLAN_TRY(last_next, import.add_page(text, f));
  }
  // The snapshot's source, shown beside every price it gives: a long
  // listing of pages is named by its first and last file.
  std::string source;
  if (files.size() > 3) {
    source =
        files.front() + " ... " + files.back() + " (" + std::to_string(files.size()) + " pages)";
  } else {
    for (size_t i = 0; i < files.size(); ++i) source += (i > 0 ? ", " : "") + files[i];
  }
  GPUPLAN_TRY(ImportReport report, import.finish(source));
  if (!last_next.empty())
    report.notes.push_back(
        "the last page has a NextPageLink: more pages exist that were not "
        "given (pass them all, or use --live)");
  return report;
}

// ---------------------------------------------------------------------------
// Live: libcurl, following NextPageLink.

std::string default_retail_prices_endpoint(const std::string& region) {
  // Spaces and quotes are percent-encoded; the API's filter values are
  // case-sensitive since 2023-01-01-preview.
  std::string filter =
      "serviceName%20eq%20%27Virtual%20Machines%27%20and%20currencyCode%20eq%20%27USD%27"
      "%20and%20contains(armSkuName,%20%27Standard_N%27)";
  std::string r = internal::normalize_region(region);
  if (!r.empty()) filter += "%20and%20armRegionName%20eq%20%27" + r + "%27";
  return "https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview&$filter=" +
         filter;
}

namespace {

// libcurl, loaded with dlopen the first time a live import runs. Linking it
// made every gpuplan start map and relocate ~30 shared libraries (OpenSSL,
// GnuTLS, Kerberos, LDAP, ...): two thirds of `gpuplan --version`
// (docs/ARCHITECTURE.md, "Start-up"). curl.h still gives the types and
// constants; the functions come from here.
struct CurlApi {
  CURLcode (*global_init)(long flags) = nullptr;
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  std::string error;  // why it could not be loaded; "" when loaded
};

CurlApi load_curl(const std::string& name) {
  CurlApi api;
  void* lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    api.error = why ? why : "dlopen failed";
    return api;
  }
  // Never dlclose'd: the handle lives as long as the process.
  bool ok = true;
  auto sym = [&](auto& fn, const char* symbol) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, symbol));
    if (fn == nullptr && ok) {
      ok = false;
      api.error = name + " lacks " + symbol;
    }
  };
  sym(api.global_init, "curl_global_init");
  sym(api.easy_init, "curl_easy_init");
  sym(api.easy_setopt, "curl_easy_setopt");
  sym(api.easy_perform, "curl_easy_perform");
  sym(api.easy_getinfo, "curl_easy_getinfo");
  sym(api.easy_strerror, "curl_easy_strerror");
  sym(api.easy_cleanup, "curl_easy_cleanup");
  if (ok && api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    ok = false;
    api.error = "curl_global_init failed";
  }
  return api;
}

// One load per library name, thread-safe; the default name is the only one
// outside tests.
const CurlApi& curl_api(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<const CurlApi>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = loaded[name];
  if (!slot) slot = std::make_unique<const CurlApi>(load_curl(name));
  return *slot;
}

// The body so far and its cap: returning short makes libcurl stop with
// CURLE_WRITE_ERROR, so a page never grows past the cap in memory.
struct Body {
  std::string text;
  size_t cap = 0;
  bool over = false;
};

size_t append_body(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<Body*>(user);
  if (body->text.size() + size * n > body->cap) {
    body->over = true;
    return 0;
  }
  body->text.append(data, size * n);
  return size * n;
}

struct HeaderState {
  long retry_after_s = -1;
};

size_t read_header(char* data, size_t size, size_t n, void* user) {
  std::string_view line(data, size * n);
  if (strings::starts_with_icase(line, "retry-after:")) {
    auto v = strings::parse_double(strings::trim(line.substr(12)));
    if (v && *v >= 0) static_cast<HeaderState*>(user)->retry_after_s = static_cast<long>(*v);
  }
  return size * n;
}

struct Response {
  CURLcode transport = CURLE_OK;
  std::string transport_error;
  long status = 0;
  long retry_after_s = -1;
  Body body;
};

Response http_get(const CurlApi& api, const std::string& url, const LiveOptions& o) {
  Response r;
  r.body.cap = o.max_page_bytes;
  CURL* curl = api.easy_init();
  if (curl == nullptr) {
    r.transport = CURLE_FAILED_INIT;
    r.transport_error = "libcurl could not start";
    return r;
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  HeaderState headers;
  api.easy_setopt(curl, CURLOPT_URL, url.c_str());
  api.easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  api.easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  api.easy_setopt(curl, CURLOPT_HEADERFUNCTION, read_header);
  api.easy_setopt(curl, CURLOPT_HEADERDATA, &headers);
  api.easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  // No redirects (a Location could name any host) and HTTP(S) only, even if
  // a URL slipped past fetch_policy.h.
  api.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
  api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
  api.easy_setopt(curl, CURLOPT_TIMEOUT, o.timeout_s);
  api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 15L);
  api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  api.easy_setopt(curl, CURLOPT_USERAGENT, "gpuplan/0.1");
  api.easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  r.transport = api.easy_perform(curl);
  if (r.body.over) {
    r.transport_error =
        "the page is larger than " +
        (o.max_page_bytes >= (size_t{1} << 20) ? std::to_string(o.max_page_bytes >> 20) + " MiB"
                                               : std::to_string(o.max_page_bytes) + " bytes") +
        " (raise with --max-page-mib)";
  } else if (r.transport != CURLE_OK) {
    r.transport_error = errbuf[0] != '\0' ? errbuf : api.easy_strerror(r.transport);
  } else {
    api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
  }
  r.retry_after_s = headers.retry_after_s;
  api.easy_cleanup(curl);
  return r;
}

// One page with bounded retries; kUnavailable when it keeps failing.
Result<std::string> fetch_page(const CurlApi& api, const std::string& url, const LiveOptions& o) {
  std::chrono::milliseconds backoff = o.initial_backoff;
  std::string last_problem;
  const int attempts = std::max(1, o.max_attempts);
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    Response r = http_get(api, url, o);
    bool retry = false;
    std::chrono::milliseconds wait = backoff;
    if (r.body.over) return unavailable(r.transport_error, Where{names::printable(url, 200)});
    if (r.transport != CURLE_OK) {
      last_problem = "network error: " + r.transport_error;
      retry = true;
    } else if (r.status == 200) {
      return std::move(r.body.text);
    } else if (r.status == 429 || r.status >= 500) {
      last_problem = "HTTP " + std::to_string(r.status);
      retry = true;
      if (r.retry_after_s >= 0) wait = std::chrono::seconds(r.retry_after_s);
    } else {
      // A short excerpt, bytes outside printable ASCII escaped: an error
      // never replays a response body.
      std::string snippet = names::printable(r.body.text, 120);
      return unavailable("HTTP " + std::to_string(r.status) + " from the price API" +
                             (snippet.empty() ? "" : ": " + snippet),
                         Where{names::printable(url, 200)});
    }
    if (!retry || attempt == attempts) break;
    wait = std::min(wait, o.max_backoff);
    std::this_thread::sleep_for(wait);
    backoff = std::min(backoff * 2, o.max_backoff);
  }
  return unavailable("price API unreachable after " + std::to_string(attempts) + " attempts (" +
                         last_problem + ")",
                     Where{url});
}

}  // namespace

Result<ImportReport> import_retail_prices_live(const LiveOptions& options,
                                               const SizeFilter& filter) {
  const std::string first =
      options.endpoint.empty() ? default_retail_prices_endpoint(options.region) : options.endpoint;
  // The fetch policy first: nothing is fetched from a URL it refuses.
  GPUPLAN_TRY(const UrlOrigin origin, check_first_url(first, !options.endpoint.empty()));
  const CurlApi& api = curl_api(options.libcurl);
  if (!api.error.empty()) {
    return unavailable("cannot fetch live prices: libcurl could not be loaded (" + api.error +
                           "); install the Debian package libcurl4, or import saved pages with "
                           "`gpuplan catalog import retail-prices FILE...`",
                       Where{first});
  }
  RetailPricesImport import(filter, options.region);
  std::string url = first;
  int page = 0;
  while (!url.empty()) {
    if (++page > options.max_pages)
      return unavailable("more than " + std::to_string(options.max_pages) +
                             " pages: stopping (a NextPageLink loop? raise with --max-pages)",
                         Where{first});
    GPUPLAN_TRY(std::string body, fetch_page(api, url, options));
    const std::string label = names::printable(url, 200) + " (page " + std::to_string(page) + ")";
    GPUPLAN_TRY(url, import.add_page(body, label));
    if (!url.empty()) GPUPLAN_RETURN_IF_ERROR(check_next_url(url, origin, label));
    if (options.progress) options.progress(page, 0);
  }
  return import.finish(first);
}

}  // namespace gpuplan::catalog
