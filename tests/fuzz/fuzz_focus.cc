// libFuzzer harness for `gpuplan report` on FOCUS exports: an Error
// (kInvalidArgument naming the file and a line) or a report whose totals are
// finite and whose VMs' days add up — never a crash, never unbounded memory.
// Inputs without a recognisable header are also tried under a FOCUS header,
// so the row parser is explored, not only the header check.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_report_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::fuzz::check_report(
      text,
      "BilledCost,EffectiveCost,ChargeCategory,ChargeFrequency,ChargePeriodStart,"
      "CommitmentDiscountId,CommitmentDiscountStatus,ConsumedQuantity,ConsumedUnit,"
      "PricingCategory,RegionId,ResourceId,ServiceName,x_SkuMeterName,x_SkuDetails\n");
  return 0;
}
