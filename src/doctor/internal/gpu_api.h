// The seam between the doctor and the machine: NVML (management: names,
// memory, ECC, temperatures, clocks, utilization, persistence) and the CUDA
// driver API (a device-to-device copy probe), each behind a small interface
// with a real implementation that loads the library with dlopen — so gpuplan
// builds and runs where no CUDA is installed — and fakes in the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/result.h"

namespace gpuplan::doctor {

// What NVML reports about one GPU. Optional fields are nullopt when the GPU
// or driver does not support the query (vGPU slices often do not).
struct GpuInfo {
  unsigned index = 0;
  std::string name;        // "NVIDIA H100 NVL"
  std::string pci_bus_id;  // "00000001:00:00.0"
  uint64_t memory_total_bytes = 0;
  uint64_t memory_used_bytes = 0;
  std::optional<bool> ecc_enabled;
  std::optional<uint64_t> ecc_uncorrected_volatile;  // errors since the driver loaded
  std::optional<unsigned> temperature_c;
  std::optional<unsigned> slowdown_temperature_c;  // the GPU's own slowdown threshold
  std::optional<unsigned> sm_clock_mhz;
  std::optional<unsigned> max_sm_clock_mhz;
  std::optional<unsigned> memory_clock_mhz;
  std::optional<unsigned> max_memory_clock_mhz;
  std::optional<unsigned> gpu_utilization_pct;
  std::optional<unsigned> memory_utilization_pct;
  std::optional<bool> persistence_mode;
};

// NVML, as far as the doctor needs it. Every call after init() may fail with
// kUnavailable carrying NVML's own error string.
class Nvml {
 public:
  virtual ~Nvml() = default;
  [[nodiscard]] virtual Result<std::string> driver_version() = 0;  // "570.124.06"
  [[nodiscard]] virtual Result<int> cuda_driver_version() = 0;     // 12080 = CUDA 12.8
  [[nodiscard]] virtual Result<unsigned> device_count() = 0;
  [[nodiscard]] virtual Result<GpuInfo> device(unsigned index) = 0;
};

// The CUDA driver API, as far as the bandwidth probe needs it.
class CudaDriver {
 public:
  virtual ~CudaDriver() = default;
  [[nodiscard]] virtual Result<int> device_count() = 0;
  [[nodiscard]] virtual Result<std::string> device_name(int device) = 0;
  // Allocates two buffers of `bytes` on `device` (cuMemAlloc), copies one to
  // the other `iterations` times (cuMemcpyDtoD, no kernels) between two CUDA
  // events and returns the elapsed milliseconds. Frees what it allocated.
  [[nodiscard]] virtual Result<double> time_dtod_copies(int device, size_t bytes,
                                                        int iterations) = 0;
};

// Loads libnvidia-ml.so.1 and calls nvmlInit. kUnavailable with the reason
// ("libnvidia-ml.so.1: cannot open shared object file" — no driver installed;
// NVML's error string when the driver is installed but not loaded).
[[nodiscard]] Result<std::unique_ptr<Nvml>> load_nvml();
// Loads libcuda.so.1 and calls cuInit (devices in PCI bus order, as NVML
// numbers them). kUnavailable with the reason.
[[nodiscard]] Result<std::unique_ptr<CudaDriver>> load_cuda_driver();

}  // namespace gpuplan::doctor
