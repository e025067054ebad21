// libFuzzer harness for the workload YAML parser (and, for inputs that parse,
// the estimator on a small fixed catalog): any bytes must give a Workload or
// an Error — never a crash, a hang or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string>

#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "workload/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto w = gpuplan::workload::parse_string(text, "fuzz.yaml");
  if (!w) {
    // Every error must name the file.
    if (w.error().where.file != "fuzz.yaml") __builtin_trap();
    return 0;
  }
  gpuplan::catalog::Gpu gpu;
  gpu.model = "A100-80GB-SXM";
  gpu.fp32_tflops = 19.5;
  gpu.fp16_tflops = gpu.bf16_tflops = 312;
  gpu.memory_gib = 80;
  gpu.memory_bw_gbs = 2039;
  gpu.interconnect_gbs = 600;
  gpuplan::catalog::VmSize vm;
  vm.name = "Standard_ND96amsr_A100_v4";
  vm.gpu_model = gpu.model;
  vm.gpu_count = 8;
  vm.gpu_memory_gib = 640;
  vm.nvlink = true;
  vm.infiniband_gbps = 1600;
  for (int count : {1, 3}) {
    auto e = gpuplan::estimate::estimate(*w, vm, gpu, count);
    if (e.fits && !(e.hours >= 0)) __builtin_trap();
  }
  return 0;
}
