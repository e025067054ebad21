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

#include "core/dates.h"
#include "core/files.h"
#include "core/names.h"
#include "core/strings.h"
#include "core/units.h"

namespace gpuplan::catalog {

// One Retail Prices item, validated (read_item()).
struct internal::RetailItem {
  std::string type, sku, region, product, sku_name, as_of;
  double price = 0;
  std::optional<std::string> meter, service, unit;
  int years = 0;  // Reservation term
  bool primary = true;
  double min_units = 0;  // tierMinimumUnits
  struct Plan {
    Pricing pricing;
    double usd_per_hour;
  };
  std::vector<Plan> savings;  // savingsPlan entries (hourly)
};

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

// Every field the importer reads, validated whatever the item turns out to
// be (so a malformed item fails the import even where it would be ignored).
Result<internal::RetailItem> read_item(const nlohmann::json& item, const std::string& origin,
                                       const std::string& path) {
  auto where = [&](const std::string& field) { return Where{origin, 0, 0, path + "." + field}; };
  internal::RetailItem it;
  GPUPLAN_TRY(it.type, require_string(item, "type", origin, path));
  if (it.type != "Consumption" && it.type != "Reservation" && it.type != "DevTestConsumption")
    return invalid_argument("unknown price type '" + it.type +
                                "' (expected Consumption, Reservation or DevTestConsumption)",
                            where("type"));
  GPUPLAN_TRY(it.price,
              require_non_negative(item, "retailPrice", origin, path, internal::kMaxPriceUsd));
  GPUPLAN_TRY(it.sku, require_string(item, "armSkuName", origin, path));
  GPUPLAN_TRY(it.region, require_string(item, "armRegionName", origin, path));
  GPUPLAN_TRY(it.product, require_string(item, "productName", origin, path));
  GPUPLAN_TRY(it.sku_name, require_string(item, "skuName", origin, path));
  GPUPLAN_TRY(std::string start, require_string(item, "effectiveStartDate", origin, path));
  auto as_of = date_part(start);
  if (!as_of) {
    return invalid_argument("'" + start + "' is not a date (expected YYYY-MM-DDThh:mm:ssZ)",
                            where("effectiveStartDate"));
  }
  it.as_of = *as_of;
  GPUPLAN_TRY(it.meter, optional_string(item, "meterName", origin, path));
  GPUPLAN_TRY(it.service, optional_string(item, "serviceName", origin, path));
  GPUPLAN_TRY(it.unit, optional_string(item, "unitOfMeasure", origin, path));
  GPUPLAN_TRY(auto currency, optional_string(item, "currencyCode", origin, path));
  GPUPLAN_TRY(auto term, optional_string(item, "reservationTerm", origin, path));
  if (auto t = item.find("tierMinimumUnits"); t != item.end() && !t->is_null()) {
    GPUPLAN_TRY(it.min_units, require_non_negative(item, "tierMinimumUnits", origin, path));
  }
  if (currency && *currency != "USD")
    return invalid_argument(
        "price in " + *currency + ": gpuplan stores USD prices (query with currencyCode eq 'USD')",
        where("currencyCode"));
  if (it.type == "Reservation") {
    if (!term)
      return invalid_argument("missing field (a Reservation needs \"1 Year\" or \"3 Years\")",
                              where("reservationTerm"));
    it.years = term_years(*term);
    if (it.years == 0)
      return invalid_argument(
          "unknown reservation term '" + *term + "' (expected \"1 Year\" or \"3 Years\")",
          where("reservationTerm"));
  }
  if (auto p = item.find("isPrimaryMeterRegion"); p != item.end() && !p->is_null()) {
    if (!p->is_boolean())
      return invalid_argument("expected a boolean, got " + internal::json_type_name(*p),
                              where("isPrimaryMeterRegion"));
    it.primary = p->get<bool>();
  }
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
      GPUPLAN_TRY(double unit_price,
                  require_non_negative(e, "unitPrice", origin, sp_path, internal::kMaxPriceUsd));
      GPUPLAN_TRY(std::string sp_term, require_string(e, "term", origin, sp_path));
      int sp_years = term_years(sp_term);
      if (sp_years != 1 && sp_years != 3)
        return invalid_argument(
            "unknown savings plan term '" + sp_term + "' (expected \"1 Year\" or \"3 Years\")",
            Where{origin, 0, 0, sp_path + ".term"});
      it.savings.push_back({sp_years == 1 ? Pricing::kSavings1y : Pricing::kSavings3y, unit_price});
    }
  }
  return it;
}

}  // namespace

RetailPricesImport::RetailPricesImport(SizeFilter filter, std::string_view region)
    : filter_(std::move(filter)), region_(internal::normalize_region(region)) {
  report_.data.kind = SnapshotKind::kRetailPrices;
}

Result<std::string> RetailPricesImport::add_page(std::string_view text, const std::string& origin) {
  GPUPLAN_TRY(nlohmann::json page, files::parse_json_unique_keys(text, origin));
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

    GPUPLAN_TRY(internal::RetailItem it, read_item(item, origin, path));
    if (it.service && *it.service == "Storage") {
      GPUPLAN_RETURN_IF_ERROR(
          add_storage_item({it.region, it.product, it.meter.value_or(""), it.unit.value_or(""),
                            it.type, it.primary, it.min_units, it.price, it.as_of},
                           where("armRegionName")));
      continue;
    }
    GPUPLAN_RETURN_IF_ERROR(add_vm_item(it, where));
  }
  return next;
}

namespace {
constexpr const char* kSovereign =
    "sovereign cloud region (Azure Government or Azure China: its own cloud and subscriptions)";
}  // namespace

Status RetailPricesImport::add_vm_item(const internal::RetailItem& it,
                                       const std::function<Where(const std::string&)>& where) {
  // Classify: ignored items are counted under their reason.
  auto ignore = [&](const std::string& reason) {
    ++report_.ignored[reason];
    return Status{};
  };
  const bool spot = contains(it.sku_name, " Spot") || (it.meter && contains(*it.meter, " Spot"));
  const bool low_priority =
      contains(it.sku_name, "Low Priority") || (it.meter && contains(*it.meter, "Low Priority"));
  if (it.service && *it.service != "Virtual Machines")
    return ignore("not a Virtual Machines price (serviceName)");
  if (it.type == "DevTestConsumption")
    return ignore("DevTestConsumption (Dev/Test subscription rates, not retail)");
  if (low_priority) return ignore("Low Priority meter (Azure Batch only)");
  if (!it.primary) return ignore("non-primary meter region (duplicate of the primary meter)");
  std::optional<std::string> size = filter_.match(it.sku);
  if (!size) {
    return ignore(filter_.uses_catalog() ? "size not a GPU size in the catalog"
                                         : "size not a GPU size (Standard_N[CDGV]...)");
  }
  std::string item_region = internal::normalize_region(it.region);
  if (item_region.empty()) return ignore("no armRegionName");
  if (internal::sovereign_cloud_region(item_region)) return ignore(kSovereign);
  // A GPU price row's names go into the store and from there into generated
  // deployments: refuse the page rather than keep shell or template syntax.
  GPUPLAN_RETURN_IF_ERROR(names::check_region(item_region, where("armRegionName")));
  GPUPLAN_RETURN_IF_ERROR(names::check_size(*size, where("armSkuName")));
  if (!region_.empty() && item_region != region_) return ignore("other region than --region");
  if (it.unit && *it.unit != "1 Hour") return ignore("unitOfMeasure not \"1 Hour\"");
  if (it.years == 5) return ignore("5-year reservation (HBv2 only)");
  if (it.type == "Reservation" && spot) return ignore("Reservation on a spot meter");
  if (it.price == 0) return ignore("zero price (not a real VM rate)");
  // No GPU VM meter is below a tenth of a cent an hour (the cheapest,
  // fractional-GPU spot meters, are cents): 5e-324 imported and `cost`
  // printed a 330-digit price.
  if (it.price < internal::kMinPriceUsd)
    return invalid_argument("implausible value " + strings::general(it.price) + " (less than " +
                                strings::general(internal::kMinPriceUsd) +
                                " USD: no GPU VM meter is that cheap)",
                            where("retailPrice"));
  // Meters Azure has retired keep their items for billing history
  // ("... Expired" in meterName or skuName): one with an armSkuName and a
  // later effectiveStartDate became the size's payg price ($0.50 for
  // NC24ads_A100_v4, below its spot price).
  if (contains(it.sku_name, "Expired") || (it.meter && contains(*it.meter, "Expired")))
    return ignore("Expired meter (retired, kept for billing history)");

  // Turn the item into rows.
  const Os os = is_windows_product(it.product) ? Os::kWindows : Os::kLinux;
  std::vector<internal::RetailItem::Plan> rows;
  if (it.type == "Consumption") {
    rows.push_back({spot ? Pricing::kSpot : Pricing::kPayg, it.price});
    if (spot && !it.savings.empty()) {
      spot_savings_ignored_ += static_cast<int64_t>(it.savings.size());
    } else {
      for (const internal::RetailItem::Plan& p : it.savings)
        if (p.usd_per_hour > 0) rows.push_back(p);
    }
  } else {  // Reservation: the whole term's price spread over its hours.
    rows.push_back({it.years == 1 ? Pricing::kReserved1y : Pricing::kReserved3y,
                    it.price / (kHoursPerYear * it.years)});
  }
  ++report_.items_used;
  for (const internal::RetailItem::Plan& p : rows) {
    auto key =
        std::make_tuple(*size, item_region, static_cast<int>(os), static_cast<int>(p.pricing));
    PriceRow row{*size, item_region, os, p.pricing, p.usd_per_hour, it.as_of};
    auto [pos, inserted] = index_.emplace(key, report_.data.prices.size());
    if (inserted) {
      report_.data.prices.push_back(std::move(row));
      continue;
    }
    PriceRow& kept = report_.data.prices[pos->second];
    if (row.as_of > kept.as_of) kept = std::move(row);
    ++report_.rows_superseded;
  }
  return {};
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
  if (internal::sovereign_cloud_region(region)) return ignore(kSovereign);
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
  GPUPLAN_RETURN_IF_ERROR(internal::refuse_sovereign_region(internal::normalize_region(region)));
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

}  // namespace gpuplan::catalog
