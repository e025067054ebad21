// libFuzzer harness for the scenario YAML parser and the up-front work
// estimate the server checks before it runs one (simulate::estimate_work):
// any bytes give a Scenario or an Error naming the file, never a crash, a
// hang or undefined behaviour. Traces a scenario names are not read here.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "simulate/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto s = gpuplan::simulate::parse_scenario_string(text, "fuzz.yaml", "/nonexistent");
  if (!s) {
    if (s.error().where.file != "fuzz.yaml") __builtin_trap();
    return 0;
  }
  // The estimate is an upper bound: never negative, never NaN.
  const auto w = gpuplan::simulate::estimate_work(*s);
  for (double v : {w.requests, w.timeline_points, w.decision_steps, w.dp_cells, w.vm_hours})
    if (std::isnan(v) || v < 0) __builtin_trap();
  return 0;
}
