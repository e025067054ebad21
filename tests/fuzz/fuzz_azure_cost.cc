// libFuzzer harness for `gpuplan report` on Azure's actual/amortized cost
// details CSV: an Error (kInvalidArgument naming the file and a line) or a
// report whose totals are finite — never a crash. Inputs without a
// recognisable header are also tried under an Azure cost header.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_report_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::fuzz::check_report(
      text,
      "Date,MeterCategory,MeterName,ResourceId,ResourceLocation,Quantity,UnitOfMeasure,"
      "CostInBillingCurrency,PricingModel,ChargeType,Frequency,ReservationId,ReservationName,"
      "AdditionalInfo\n");
  return 0;
}
