// Importer for Azure Retail Prices API pages
// ({"Items": [...], "NextPageLink": ..., "Count": ...}), from files or live
// over libcurl. See import_retail_prices.cc for how items are interpreted.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "catalog/internal/import_common.h"

namespace gpuplan::catalog {

// Interprets Retail Prices API pages into price rows. Feed pages in order
// with add_page(), then take the report with finish(). On any error the
// import is abandoned (nothing has been written anywhere).
namespace internal {
struct RetailItem;  // one validated item (import_retail_prices.cc)
}  // namespace internal

class RetailPricesImport {
 public:
  // `region`: keep only items whose armRegionName equals it ("" keeps all).
  RetailPricesImport(SizeFilter filter, std::string_view region);

  // Validates and interprets one page. `origin` names it in errors (a file
  // path or "URL (page N)"). Returns the page's NextPageLink ("" when null or
  // absent). kInvalidArgument naming origin and JSON path on bad input.
  [[nodiscard]] Result<std::string> add_page(std::string_view text, const std::string& origin);
  // Same, for an already parsed document.
  [[nodiscard]] Result<std::string> add_page_json(const nlohmann::json& page,
                                                  const std::string& origin);

  // The rows to store (one per size, region, os, pricing: the item with the
  // latest effectiveStartDate; Blob capacity bands likewise), the counts,
  // and notes. kInvalidArgument when no item gave a usable GPU VM or Blob
  // capacity price (nothing to import).
  [[nodiscard]] Result<ImportReport> finish(std::string source);

 private:
  SizeFilter filter_;
  std::string region_;
  ImportReport report_;
  int64_t spot_savings_ignored_ = 0;
  std::map<std::tuple<std::string, std::string, int, int>, size_t> index_;  // key -> prices row
  // (region, tier, redundancy, from_gb) -> blob_prices row
  std::map<std::tuple<std::string, std::string, std::string, double>, size_t> blob_index_;

  // A Virtual Machines item (already validated): its rows, or counted as
  // ignored with its reason; kInvalidArgument for names that are not plain
  // Azure names.
  [[nodiscard]] Status add_vm_item(const internal::RetailItem& item,
                                   const std::function<Where(const std::string&)>& where);

  // The fields of a serviceName "Storage" item that decide whether it is a
  // Blob capacity price band.
  struct StorageItem {
    std::string region, product, meter, unit, type;
    bool primary = true;
    double min_units = 0;
    double price = 0;
    std::string as_of;
  };
  // Keeps a Blob capacity band (the newest effectiveStartDate per key) or
  // counts the item as ignored with its reason; kInvalidArgument for a
  // region name that is not a plain Azure name.
  [[nodiscard]] Status add_storage_item(const StorageItem& item, const Where& where);
};

// Reads each file as one page of a single import (in the order given).
[[nodiscard]] Result<ImportReport> import_retail_price_files(const std::vector<std::string>& files,
                                                             const SizeFilter& filter,
                                                             const std::string& region);

// The default live endpoint: every Virtual Machines price in USD whose
// armSkuName contains "Standard_N" (GPU sizes; the importer filters exactly),
// narrowed to one armRegionName when `region` is not empty.
[[nodiscard]] std::string default_retail_prices_endpoint(const std::string& region);

struct LiveOptions {
  std::string endpoint;  // first page URL; "" = default_retail_prices_endpoint(region)
  std::string region;    // also filters items client-side
  int max_attempts = 5;  // per page, on 429 / 5xx / transport errors
  std::chrono::milliseconds initial_backoff{1000};  // doubled after each failed attempt
  std::chrono::milliseconds max_backoff{30000};     // also caps Retry-After
  // A runaway NextPageLink chain is an error. 10,000 pages of 1,000 items
  // hold every VM price in USD many times over (~600 pages; the GPU filter
  // ~20); `--max-pages` raises it.
  int max_pages = 10000;
  // One page's body: 64 MiB, ~60 times the API's 1,000-item page (~1 MB);
  // `--max-page-mib` raises it. Larger is an error, not a truncated page.
  size_t max_page_bytes = size_t{64} << 20;
  long timeout_s = 60;                                    // per request
  std::function<void(int page, int64_t items)> progress;  // called after each page
  // The libcurl to load (dlopen) on first use; gpuplan does not link it, so
  // commands that never fetch do not pay for loading it and its ~30
  // dependencies. Tests name a missing library to check the error.
  std::string libcurl = "libcurl.so.4";
};

// Fetches pages from the endpoint, following NextPageLink, with bounded
// retries and exponential backoff (honouring Retry-After up to max_backoff) on
// HTTP 429 and 5xx and on transport errors. kUnavailable when a page still
// fails after max_attempts or the host is unreachable, or when libcurl
// (Debian package libcurl4) cannot be loaded; kInvalidArgument when a
// page is not a valid Retail Prices page (naming "URL (page N)" and the path),
// or when a URL breaks the fetch policy (fetch_policy.h: https to the API's
// host, a user's --endpoint over https or http on loopback, NextPageLink on
// the first page's origin, no redirects).
[[nodiscard]] Result<ImportReport> import_retail_prices_live(const LiveOptions& options,
                                                             const SizeFilter& filter);

}  // namespace gpuplan::catalog
