// libFuzzer harness for the Retail Prices API page parser. Any input must
// yield either an Error or rows that satisfy the importer's contract
// (finite, non-negative prices; YYYY-MM-DD dates; one row per key) — never a
// crash, hang or sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>
#include <tuple>

#include "catalog/import_retail_prices.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan::catalog;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  RetailPricesImport import(SizeFilter::gpu_name_pattern(), "");
  auto next = import.add_page(text, "fuzz.json");
  if (!next) {
    if (next.error().code != gpuplan::ErrorCode::kInvalidArgument) std::abort();
    return 0;
  }
  auto report = import.finish("fuzz.json");
  if (!report) return 0;
  std::set<std::tuple<std::string, std::string, int, int>> keys;
  for (const PriceRow& r : report->data.prices) {
    if (!std::isfinite(r.usd_per_hour) || r.usd_per_hour <= 0) std::abort();
    if (r.as_of.size() != 10 || r.size.empty() || r.region.empty()) std::abort();
    if (!keys.insert({r.size, r.region, static_cast<int>(r.os), static_cast<int>(r.pricing)})
             .second)
      std::abort();
  }
  int64_t ignored = 0;
  for (const auto& [reason, n] : report->ignored) ignored += n;
  if (report->items_used + ignored != report->items_read) std::abort();
  return 0;
}
