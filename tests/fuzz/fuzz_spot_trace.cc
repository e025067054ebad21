// libFuzzer harness for spot availability traces (JSON: metadata.gap_seconds
// and per-step counts): a SpotTrace with a positive finite step and at least
// one step, or an Error naming the file.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "simulate/spot_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto t = gpuplan::simulate::parse_spot_trace(text, "fuzz.json");
  if (!t) {
    if (t.error().where.file != "fuzz.json") __builtin_trap();
    return 0;
  }
  if (!(t->gap_seconds > 0) || !std::isfinite(t->gap_seconds) || t->available.empty())
    __builtin_trap();
  const double a = t->availability();
  if (!(a >= 0 && a <= 1)) __builtin_trap();
  (void)t->at(-7);  // wraps
  return 0;
}
