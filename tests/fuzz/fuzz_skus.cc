// libFuzzer harness for the `az vm list-skus` parser: an Error or a report
// whose rows all name a size and a region — never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "catalog/import_skus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan::catalog;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto report = import_skus_text(text, "fuzz.json", SizeFilter::gpu_name_pattern());
  if (!report) {
    if (report.error().code != gpuplan::ErrorCode::kInvalidArgument) std::abort();
    return 0;
  }
  for (const auto& a : report->data.availability)
    if (a.size.empty()) std::abort();
  for (const auto& r : report->data.restrictions)
    if (r.size.empty()) std::abort();
  int64_t ignored = 0;
  for (const auto& [reason, n] : report->ignored) ignored += n;
  if (report->items_used + ignored != report->items_read) std::abort();
  return 0;
}
