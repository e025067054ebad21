// libFuzzer harness for the `az vm list-usage` parser: an Error or quota rows
// with finite, non-negative limit and usage, one per family — never a crash.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "catalog/import_usage.h"
#include "core/strings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan::catalog;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto report = import_usage_text(text, "fuzz.json", "eastus", SizeFilter::gpu_name_pattern());
  if (!report) {
    if (report.error().code != gpuplan::ErrorCode::kInvalidArgument) std::abort();
    return 0;
  }
  std::set<std::string> families;
  for (const UsageRow& u : report->data.usage) {
    if (!std::isfinite(u.limit) || !std::isfinite(u.used) || u.limit < 0 || u.used < 0)
      std::abort();
    if (u.region != "eastus") std::abort();
    if (!families.insert(gpuplan::strings::fold(u.family)).second) std::abort();
  }
  return 0;
}
