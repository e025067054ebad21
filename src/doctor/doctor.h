// `gpuplan doctor`: checks a GPU machine once it is up — driver and CUDA
// versions against NVIDIA's minimums and the user's expectations, every GPU's
// name, memory, ECC, temperature, clocks, utilization and persistence mode,
// and a device-to-device copy bandwidth probe against the GPU's spec.
//
// CONTRACT for cli/ and server/: diagnose, render_text, to_json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/result.h"
#include "deploy/stack_matrix.h"
#include "doctor/internal/gpu_api.h"

namespace gpuplan::doctor {

enum class CheckStatus { kPass, kWarn, kFail };
[[nodiscard]] std::string_view to_string(CheckStatus s);  // "pass", "warn", "fail"

struct Check {
  std::string name;  // "driver", "gpu count", "cuda", "ecc gpu0", ...
  CheckStatus status = CheckStatus::kPass;
  std::string detail;  // what was seen and what was expected
};

struct GpuReport {
  GpuInfo info;
  std::string model;                         // shared vocabulary, "" when not recognised
  std::optional<double> spec_bandwidth_gbs;  // from the catalog's GPU table
  std::optional<double> measured_bandwidth_gbs;
  std::string bandwidth_note;  // why there is no measurement
};

struct DoctorReport {
  bool gpu_found = false;      // false: no driver or no GPU (exit 3)
  std::string problem;         // why not, when !gpu_found
  std::string driver_version;  // "570.124.06"
  std::string cuda_version;    // newest CUDA the driver supports, "12.8"
  std::vector<GpuReport> gpus;
  std::vector<Check> checks;

  // 3 when no GPU/driver was found, 1 when a check failed, else 0 (warnings
  // do not fail the run).
  [[nodiscard]] int exit_code() const;
};

struct DoctorOptions {
  std::optional<int> expect_gpus;
  std::optional<deploy::Version> expect_cuda;  // major.minor
  bool bandwidth = true;                       // run the copy probe
  size_t probe_bytes = size_t{256} << 20;      // per buffer (two are allocated)
  int probe_iterations = 20;
  // Autostop (gpuplan deploy): its settings and state on the machine.
  bool autostop = true;
  std::string autostop_conf = "/etc/gpuplan/autostop.conf";
  std::string autostop_state = "/var/lib/gpuplan/autostop";
};

// Whether autostop is installed and when it would deallocate the machine
// (`now` in seconds since the epoch).
[[nodiscard]] Check autostop_check(const DoctorOptions& options, int64_t now);

// How the doctor reaches the machine: the real dlopen loaders by default,
// fakes in tests. The CUDA loader is only called when the probe runs.
struct Loaders {
  std::function<Result<std::unique_ptr<Nvml>>()> nvml = load_nvml;
  std::function<Result<std::unique_ptr<CudaDriver>>()> cuda = load_cuda_driver;
};

// Runs every check. Never fails: problems are in the report (exit_code()).
// `catalog` (may be null) gives each GPU's memory bandwidth spec.
[[nodiscard]] DoctorReport diagnose(const Loaders& loaders, const deploy::StackMatrix& matrix,
                                    const catalog::Catalog* catalog, const DoctorOptions& options);

// The shared GPU vocabulary name for an NVML/CUDA device name
// ("NVIDIA H100 80GB HBM3" → "H100-SXM", "NVIDIA A10-4Q" → "A10"); "" if unknown.
[[nodiscard]] std::string gpu_model_for_name(std::string_view device_name);

// A readable report (fits 100 columns) and the --json form (schema gpuplan.doctor/1).
[[nodiscard]] std::string render_text(const DoctorReport& report);
[[nodiscard]] nlohmann::ordered_json to_json(const DoctorReport& report);

}  // namespace gpuplan::doctor
