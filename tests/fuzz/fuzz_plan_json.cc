// libFuzzer harness for the plan JSON reader of `gpuplan deploy` (a plan file
// may have been edited or tampered with): any bytes give a PlanDocument whose
// names passed validation, or an Error naming the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/names.h"
#include "deploy/plan_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto p = gpuplan::deploy::parse_plan_json(text, "fuzz.json");
  if (!p) {
    if (p.error().where.file != "fuzz.json") __builtin_trap();
    return 0;
  }
  // What reaches the generators is validated: regions and sizes by pattern,
  // counts whole and positive.
  for (const auto& o : p->options) {
    if (!gpuplan::names::is_region(o.region) || o.count < 1) __builtin_trap();
  }
  return 0;
}
