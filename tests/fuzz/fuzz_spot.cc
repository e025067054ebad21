// libFuzzer harness for the Resource Graph spot importer (az graph query
// pages): an InvalidArgument error, or bands among Azure's five and spot
// prices that are finite, non-negative and dated — never a crash.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "catalog/import_spot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan::catalog;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto report = import_spot_text(text, "fuzz.json", SizeFilter::gpu_name_pattern(), "2026-11-30");
  if (!report) {
    if (report.error().code != gpuplan::ErrorCode::kInvalidArgument) std::abort();
    return 0;
  }
  if (report->data.spot_bands.empty() && report->data.spot_prices.empty()) std::abort();
  std::set<std::string> keys;
  for (const SpotBandRow& b : report->data.spot_bands) {
    if (!parse_eviction_band(to_string(b.band))) std::abort();
    if (b.as_of != "2026-11-30" || b.region.empty()) std::abort();
    if (!keys.insert(b.size + "|" + b.region).second) std::abort();  // one band per key
  }
  for (const SpotPriceRow& p : report->data.spot_prices) {
    if (!std::isfinite(p.usd_per_hour) || p.usd_per_hour < 0) std::abort();
    if (!is_iso_date(p.effective_date)) std::abort();
  }
  return 0;
}
