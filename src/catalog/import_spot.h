// Importer for Azure Resource Graph spot data: the JSON that
//   az graph query -q "SpotResources | where type in~ (...) | project ..." --first 1000 -o json
// prints, one file per page ({"count", "data": [...], "skip_token",
// "total_records"}). docs/importers.md gives the exact query and how to page
// through skip_token; import_spot.cc how each row is read.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/internal/import_common.h"

namespace gpuplan::catalog {

// Interprets az graph query pages of the spot query: eviction-rate bands per
// (size, region) and spot price history per (size, region, os). Feed pages in
// order with add_page(), then take the report with finish(). On any error the
// import is abandoned (nothing is written anywhere).
class SpotImport {
 public:
  // `as_of`: the day the bands were read from Azure (YYYY-MM-DD; Resource
  // Graph gives the band of the trailing window without a date).
  SpotImport(SizeFilter filter, std::string as_of);

  // Validates and interprets one page; `origin` names it in errors. Returns
  // the page's skip_token ("" when absent or null). kInvalidArgument naming
  // origin and the JSON path ("data[3].evictionRate") for: not a page
  // envelope, count not equal to the rows held, total_records differing
  // from an earlier page's, a missing or mistyped column, an eviction band
  // other than "0-5", "5-10", "10-15", "15-20", "20+", an osType other than
  // linux/windows, a spot price that is not a finite number >= 0, a bad
  // effectiveDate, or two different values for one key.
  [[nodiscard]] Result<std::string> add_page(std::string_view text, const std::string& origin);
  [[nodiscard]] Result<std::string> add_page_json(const nlohmann::json& page,
                                                  const std::string& origin);

  // The rows to store, sorted. kInvalidArgument when the pages hold more rows
  // than total_records says (a page given twice, or pages of two queries),
  // or when no row is a GPU size's band or price (nothing to import).
  [[nodiscard]] Result<ImportReport> finish(std::string source);

 private:
  Status add_row(const nlohmann::json& row, const std::string& origin, const std::string& path);
  Status add_band(const nlohmann::json& row, const std::string& size, const std::string& region,
                  const std::string& origin, const std::string& path);
  Status add_prices(const nlohmann::json& row, const std::string& size, const std::string& region,
                    const std::string& origin, const std::string& path);

  SizeFilter filter_;
  std::string as_of_;
  ImportReport report_;
  int64_t rows_total_ = 0;                // rows over all pages
  std::optional<int64_t> total_records_;  // as the first page that gave it says
  std::string last_skip_token_;
  int64_t duplicates_ = 0;
  // Key -> (row index, JSON path it was read at), to refuse conflicting duplicates.
  std::map<std::string, std::pair<size_t, std::string>> bands_;   // size|region
  std::map<std::string, std::pair<size_t, std::string>> prices_;  // size|region|os|date
};

// Reads each file as one page of a single import, in the order given.
// `as_of` "" means today (UTC).
[[nodiscard]] Result<ImportReport> import_spot_files(const std::vector<std::string>& files,
                                                     const SizeFilter& filter,
                                                     const std::string& as_of);
// One page from memory (tests, the fuzz harness).
[[nodiscard]] Result<ImportReport> import_spot_text(std::string_view text,
                                                    const std::string& origin,
                                                    const SizeFilter& filter,
                                                    const std::string& as_of);

// True for a YYYY-MM-DD calendar date (months 01-12, days valid for the month).
[[nodiscard]] bool is_iso_date(std::string_view s);

}  // namespace gpuplan::catalog
