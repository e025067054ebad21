// The doctor's checks.
//
// Problem: a GPU VM can look fine and still be unusable — the wrong driver
// for the CUDA the software was built with, fewer GPUs than paid for, ECC
// errors, a GPU at its slowdown temperature, memory running far below spec.
//
// Approach: read everything through NVML (no CUDA context needed), compare
// the driver with NVIDIA's minimum-driver table (data/deploy/stack_matrix.csv:
// the GA minimum of the expected CUDA passes; the CUDA family's
// minor-version-compatibility minimum passes with a warning; below that
// fails), then time device-to-device copies with the CUDA driver API
// (cuMemAlloc + cuMemcpyDtoD between two events; no kernels, so no compiler
// or toolkit is needed on the machine).
//
// Bandwidth: a device-to-device copy reads and writes every byte, so the
// figure is 2 x bytes x copies / elapsed time, the convention of NVIDIA's
// bandwidthTest sample. It is compared with the GPU's memory bandwidth spec
// (catalog gpus table, vendor datasheets). A healthy GPU copies at a large
// fraction of its spec; below kBandwidthWarnRatio (one half) points at
// throttled memory clocks, a shared vGPU slice or another process using the
// GPU — a warning, since the figure varies with the part and the driver.
//
// Temperature: the GPU's own slowdown threshold (NVML) is the reference — at
// or above it is a failure, within kTemperatureMarginC of it a warning.
#include "doctor/doctor.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#include "core/dates.h"
#include "core/strings.h"

namespace gpuplan::doctor {
namespace {

constexpr double kBandwidthWarnRatio = 0.5;
constexpr unsigned kTemperatureMarginC = 10;
constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

void add(DoctorReport& r, std::string name, CheckStatus s, std::string detail) {
  r.checks.push_back(Check{std::move(name), s, std::move(detail)});
}

std::string cuda_from_int(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

std::string_view to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kWarn:
      return "warn";
    case CheckStatus::kFail:
      return "fail";
  }
  return "?";
}

int DoctorReport::exit_code() const {
  if (!gpu_found) return 3;
  for (const Check& c : checks) {
    if (c.status == CheckStatus::kFail) return 1;
  }
  return 0;
}

std::string gpu_model_for_name(std::string_view device_name) {
  // NVML's names ("NVIDIA H100 80GB HBM3"; vGPU slices "NVIDIA A10-4Q") are
  // read as any other name of a GPU is, by the catalog's resolver, on the
  // embedded catalog (loaded once).
  static const auto kEmbedded = catalog::Catalog::load_embedded();
  if (!kEmbedded) return "";
  const auto gpu = (*kEmbedded)->resolve_gpu(device_name);
  return gpu ? (*gpu)->model : "";
}

namespace {

// Reads KEY=VALUE lines (the autostop settings file); "" when absent.
std::string conf_value(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + "=", 0) == 0)
      return std::string(strings::trim(line.substr(key.size() + 1)));
  }
  return "";
}

std::string read_small(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string utc(int64_t t) { return dates::format_utc(t, "%Y-%m-%d %H:%M UTC"); }

DoctorReport diagnose_gpus(const Loaders& loaders, const deploy::StackMatrix& matrix,
                           const catalog::Catalog* catalog, const DoctorOptions& options);

}  // namespace

Check autostop_check(const DoctorOptions& options, int64_t now) {
  const std::string conf = read_small(options.autostop_conf);
  if (conf.empty()) {
    return {"autostop", CheckStatus::kPass,
            "off: no " + options.autostop_conf + " (serving, or deployed with --autostop off)"};
  }
  const std::string minutes_text = conf_value(conf, "MINUTES");
  char* end = nullptr;
  const long minutes = std::strtol(minutes_text.c_str(), &end, 10);
  if (minutes_text.empty() || *end != '\0' || minutes <= 0) {
    return {"autostop", CheckStatus::kWarn,
            options.autostop_conf + " has no valid MINUTES ('" + minutes_text + "')"};
  }
  const std::string last_text(strings::trim(read_small(options.autostop_state + "/last_busy")));
  const std::string decision(strings::trim(read_small(options.autostop_state + "/last_decision")));
  if (last_text.empty() || decision.empty()) {
    return {"autostop", CheckStatus::kWarn,
            "installed (" + std::to_string(minutes) +
                " min) but it has not run yet: systemctl status gpuplan-autostop.timer"};
  }
  const int64_t last = std::strtoll(last_text.c_str(), nullptr, 10);
  const int64_t decided = std::strtoll(decision.c_str(), nullptr, 10);
  const int64_t fire = last + minutes * 60;
  std::string detail =
      "active: deallocates after " + std::to_string(minutes) + " min without work; last work " +
      utc(last) + "; fires at " + utc(fire) + " if idle until then (last check: " +
      decision.substr(decision.find(' ') == std::string::npos ? decision.size()
                                                              : decision.find(' ') + 1) +
      ")";
  // The timer runs once a minute: a check older than 5 minutes means it stopped.
  if (now - decided > int64_t{5} * 60) {
    return {"autostop", CheckStatus::kWarn,
            detail + "; but the last check was " + std::to_string((now - decided) / 60) +
                " min ago: is gpuplan-autostop.timer running?"};
  }
  return {"autostop", CheckStatus::kPass, detail};
}

DoctorReport diagnose(const Loaders& loaders, const deploy::StackMatrix& matrix,
                      const catalog::Catalog* catalog, const DoctorOptions& options) {
  DoctorReport r = diagnose_gpus(loaders, matrix, catalog, options);
  if (options.autostop) r.checks.push_back(autostop_check(options, std::time(nullptr)));
  return r;
}

namespace {

// Step 4: the driver against CUDA — the expected CUDA, else the one the
// driver reports — from NVIDIA's minimum-driver table.
void check_cuda_driver(const deploy::StackMatrix& matrix, const DoctorOptions& options,
                       const std::string& driver, const Result<deploy::Version>& driver_v,
                       const Result<deploy::Version>& cuda_v, DoctorReport& r) {
  if (!driver_v) {
    add(r, "cuda", CheckStatus::kWarn, "driver version '" + driver + "' is not a dotted version");
  } else {
    const deploy::Version want = options.expect_cuda ? *options.expect_cuda
                                 : cuda_v            ? *cuda_v
                                                     : deploy::Version{};
    const deploy::CudaRelease* rel = matrix.find_cuda(want);
    const std::string wants = "CUDA " + want.to_string();
    if (rel == nullptr) {
      add(r, "cuda", options.expect_cuda ? CheckStatus::kFail : CheckStatus::kWarn,
          wants + " is not in NVIDIA's minimum-driver table; cannot check driver " + driver);
    } else if (*driver_v >= rel->linux_min_driver) {
      add(r, "cuda", CheckStatus::kPass,
          "driver " + driver + " >= " + rel->linux_min_driver.to_string() + ", the minimum for " +
              wants + " [" + rel->source + "]");
    } else {
      const deploy::CudaFamily* fam = matrix.find_family(want.major());
      if (fam != nullptr && *driver_v >= fam->linux_min_driver) {
        add(r, "cuda", CheckStatus::kWarn,
            "driver " + driver + " < " + rel->linux_min_driver.to_string() + " (" + wants +
                "), but >= " + fam->linux_min_driver.to_string() + ": " + wants +
                " runs through minor-version compatibility with a possibly limited feature set");
      } else {
        add(r, "cuda", CheckStatus::kFail,
            "driver " + driver + " is older than " + rel->linux_min_driver.to_string() +
                ", which " + wants + " needs [" + rel->source + "]; install a newer driver branch");
      }
    }
  }
}

// Step 5: each GPU's health: ECC, temperature against its slowdown
// threshold, persistence mode.
void check_gpu_health(DoctorReport& r) {
  for (const GpuReport& g : r.gpus) {
    const std::string id = "gpu" + std::to_string(g.info.index);
    if (g.info.ecc_uncorrected_volatile && *g.info.ecc_uncorrected_volatile > 0) {
      add(r, "ecc " + id, CheckStatus::kFail,
          std::to_string(*g.info.ecc_uncorrected_volatile) +
              " uncorrected ECC error(s) since the driver loaded: the GPU needs attention");
    } else if (g.info.ecc_enabled && !*g.info.ecc_enabled) {
      add(r, "ecc " + id, CheckStatus::kWarn, "ECC is off (data-center GPUs ship with it on)");
    } else if (g.info.ecc_enabled) {
      add(r, "ecc " + id, CheckStatus::kPass, "ECC on, no uncorrected errors");
    }
    if (g.info.temperature_c && g.info.slowdown_temperature_c) {
      const unsigned t = *g.info.temperature_c;
      const unsigned slow = *g.info.slowdown_temperature_c;
      const std::string d = std::to_string(t) + " C, slowdown at " + std::to_string(slow) + " C";
      if (t >= slow) {
        add(r, "temperature " + id, CheckStatus::kFail, d + ": the GPU is throttling");
      } else if (t + kTemperatureMarginC >= slow) {
        add(r, "temperature " + id, CheckStatus::kWarn, d + ": close to throttling");
      } else {
        add(r, "temperature " + id, CheckStatus::kPass, d);
      }
    }
    if (g.info.persistence_mode && !*g.info.persistence_mode) {
      add(r, "persistence " + id, CheckStatus::kWarn,
          "persistence mode is off: each first CUDA call re-initialises the GPU "
          "(enable with `sudo nvidia-smi -pm 1`)");
    }
  }
}

// Step 6: device-to-device copy bandwidth of each GPU (CUDA driver API),
// against its spec; `seen` is the GPU count NVML reported.
void probe_bandwidth(const Loaders& loaders, const DoctorOptions& options, int seen,
                     DoctorReport& r) {
  if (!options.bandwidth) {
    for (GpuReport& g : r.gpus) g.bandwidth_note = "skipped (--no-bandwidth)";
    return;
  }
  auto cuda_api = loaders.cuda();
  if (!cuda_api) {
    for (GpuReport& g : r.gpus) g.bandwidth_note = cuda_api.error().message;
    add(r, "bandwidth", CheckStatus::kWarn, "copy probe not run: " + cuda_api.error().message);
    return;
  }
  auto cuda_count = (*cuda_api)->device_count();
  const int usable = cuda_count ? *cuda_count : 0;
  if (usable != seen) {
    add(r, "bandwidth", CheckStatus::kWarn,
        "CUDA sees " + std::to_string(usable) + " device(s), NVML " + std::to_string(seen) +
            " (CUDA_VISIBLE_DEVICES set?): probing the first " +
            std::to_string(std::min(usable, seen)));
  }
  for (GpuReport& g : r.gpus) {
    const int dev = static_cast<int>(g.info.index);
    const std::string id = "gpu" + std::to_string(dev);
    if (dev >= usable) {
      g.bandwidth_note = "not visible to CUDA";
      continue;
    }
    // Two buffers must fit in what is free; keep a quarter of free memory at most each.
    const uint64_t free_bytes =
        g.info.memory_total_bytes - std::min(g.info.memory_used_bytes, g.info.memory_total_bytes);
    const size_t bytes =
        static_cast<size_t>(std::min<uint64_t>(options.probe_bytes, free_bytes / 4));
    if (bytes < (size_t{1} << 20)) {
      g.bandwidth_note = "not enough free GPU memory for the probe";
      add(r, "bandwidth " + id, CheckStatus::kWarn, g.bandwidth_note);
      continue;
    }
    auto ms = (*cuda_api)->time_dtod_copies(dev, bytes, options.probe_iterations);
    if (!ms || *ms <= 0) {
      g.bandwidth_note = ms ? "the probe measured no time" : ms.error().message;
      add(r, "bandwidth " + id, CheckStatus::kWarn, "copy probe failed: " + g.bandwidth_note);
      continue;
    }
    const double gbs =
        2.0 * static_cast<double>(bytes) * options.probe_iterations / (*ms / 1000.0) / 1e9;
    g.measured_bandwidth_gbs = gbs;
    if (!g.spec_bandwidth_gbs) {
      add(r, "bandwidth " + id, CheckStatus::kPass,
          strings::fixed(gbs, 0) + " GB/s device-to-device (no spec known for '" + g.info.name +
              "')");
      continue;
    }
    const double ratio = gbs / *g.spec_bandwidth_gbs;
    const std::string d =
        strings::fixed(gbs, 0) + " GB/s device-to-device = " + strings::fixed(100 * ratio, 0) +
        "% of the " + strings::fixed(*g.spec_bandwidth_gbs, 0) + " GB/s spec (" + g.model + ")";
    add(r, "bandwidth " + id, ratio < kBandwidthWarnRatio ? CheckStatus::kWarn : CheckStatus::kPass,
        ratio < kBandwidthWarnRatio
            ? d + ": below half of spec (throttled memory clock, a vGPU slice, or another process?)"
            : d);
  }
}

DoctorReport diagnose_gpus(const Loaders& loaders, const deploy::StackMatrix& matrix,
                           const catalog::Catalog* catalog, const DoctorOptions& options) {
  DoctorReport r;
  // 1. The driver: NVML loads and starts.
  auto nvml = loaders.nvml();
  if (!nvml) {
    r.problem = nvml.error().message;
    return r;
  }
  auto driver = (*nvml)->driver_version();
  auto cuda = (*nvml)->cuda_driver_version();
  auto count = (*nvml)->device_count();
  if (!driver || !cuda || !count) {
    r.problem = !driver ? driver.error().message
                : !cuda ? cuda.error().message
                        : count.error().message;
    return r;
  }
  if (*count == 0) {
    r.problem = "the NVIDIA driver " + *driver + " is loaded but sees no GPU";
    r.driver_version = *driver;
    return r;
  }
  r.gpu_found = true;
  r.driver_version = *driver;
  r.cuda_version = cuda_from_int(*cuda);
  auto driver_v = deploy::Version::parse(*driver);
  auto cuda_v = deploy::Version::parse(r.cuda_version);
  add(r, "driver", CheckStatus::kPass,
      "NVIDIA driver " + *driver + " supports CUDA up to " + r.cuda_version);

  // 2. Every GPU as NVML sees it.
  for (unsigned i = 0; i < *count; ++i) {
    auto info = (*nvml)->device(i);
    if (!info) {
      add(r, "gpu" + std::to_string(i), CheckStatus::kFail, info.error().message);
      continue;
    }
    GpuReport g;
    g.info = *info;
    g.model = gpu_model_for_name(info->name);
    if (catalog != nullptr && !g.model.empty()) {
      if (const catalog::Gpu* spec = catalog->find_gpu(g.model); spec && spec->memory_bw_gbs > 0) {
        g.spec_bandwidth_gbs = spec->memory_bw_gbs;
      }
    }
    r.gpus.push_back(std::move(g));
  }

  // 3. GPU count.
  const int seen = static_cast<int>(*count);
  if (options.expect_gpus) {
    const bool ok = seen == *options.expect_gpus;
    add(r, "gpu count", ok ? CheckStatus::kPass : CheckStatus::kFail,
        std::to_string(seen) + " GPU(s) seen, " + std::to_string(*options.expect_gpus) +
            " expected");
  } else {
    add(r, "gpu count", CheckStatus::kPass, std::to_string(seen) + " GPU(s) seen");
  }

  // 4. Driver against CUDA: the expected CUDA, else the one the driver reports.
  check_cuda_driver(matrix, options, *driver, driver_v, cuda_v, r);

  // 5. Per-GPU health.
  check_gpu_health(r);

  // 6. Device-to-device copy bandwidth (CUDA driver API).
  probe_bandwidth(loaders, options, seen, r);
  return r;
}

}  // namespace

std::string render_text(const DoctorReport& r) {
  std::ostringstream o;
  if (!r.gpu_found) {
    o << "gpuplan doctor: no usable NVIDIA GPU on this machine.\n"
      << "  " << r.problem << "\n"
      << "  On an Azure GPU VM, install the driver (the cloud-init from `gpuplan deploy` does),\n"
      << "  then run `nvidia-smi`; on a machine without a GPU there is nothing to check.\n";
    return o.str();
  }
  o << "NVIDIA driver " << r.driver_version << ", CUDA " << r.cuda_version
    << " (newest the driver supports)\n";
  for (const GpuReport& g : r.gpus) {
    const GpuInfo& i = g.info;
    o << "GPU " << i.index << "  " << i.name;
    if (!g.model.empty()) o << " (" << g.model << ")";
    if (!i.pci_bus_id.empty()) o << "  bus " << i.pci_bus_id;
    o << "\n  memory "
      << strings::fixed(static_cast<double>(i.memory_total_bytes) / kBytesPerGib, 1) << " GiB ("
      << strings::fixed(static_cast<double>(i.memory_used_bytes) / kBytesPerGib, 1) << " GiB used)";
    o << "  ECC " << (i.ecc_enabled ? (*i.ecc_enabled ? "on" : "off") : "n/a");
    if (i.ecc_uncorrected_volatile) o << ", " << *i.ecc_uncorrected_volatile << " uncorrected";
    if (i.temperature_c) {
      o << "  " << *i.temperature_c << " C";
      if (i.slowdown_temperature_c) o << " (slowdown " << *i.slowdown_temperature_c << " C)";
    }
    o << "\n  clocks SM " << (i.sm_clock_mhz ? std::to_string(*i.sm_clock_mhz) : "?") << "/"
      << (i.max_sm_clock_mhz ? std::to_string(*i.max_sm_clock_mhz) : "?") << " MHz, memory "
      << (i.memory_clock_mhz ? std::to_string(*i.memory_clock_mhz) : "?") << "/"
      << (i.max_memory_clock_mhz ? std::to_string(*i.max_memory_clock_mhz) : "?") << " MHz"
      << "  utilization " << (i.gpu_utilization_pct ? std::to_string(*i.gpu_utilization_pct) : "?")
      << "% GPU, " << (i.memory_utilization_pct ? std::to_string(*i.memory_utilization_pct) : "?")
      << "% memory  persistence "
      << (i.persistence_mode ? (*i.persistence_mode ? "on" : "off") : "n/a") << "\n";
    if (g.measured_bandwidth_gbs) {
      o << "  copy bandwidth " << strings::fixed(*g.measured_bandwidth_gbs, 0) << " GB/s";
      if (g.spec_bandwidth_gbs)
        o << " (spec " << strings::fixed(*g.spec_bandwidth_gbs, 0) << " GB/s)";
      o << "\n";
    } else if (!g.bandwidth_note.empty()) {
      o << "  copy bandwidth: " << g.bandwidth_note << "\n";
    }
  }
  o << "Checks\n";
  int warns = 0, fails = 0;
  for (const Check& c : r.checks) {
    std::string status(to_string(c.status));
    for (char& ch : status) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    std::string name = c.name;
    name.resize(std::max<size_t>(name.size(), 18), ' ');
    o << "  " << status << "  " << name << " " << c.detail << "\n";
    warns += c.status == CheckStatus::kWarn;
    fails += c.status == CheckStatus::kFail;
  }
  if (fails > 0) {
    o << "Result: " << fails << " check(s) failed, " << warns << " warning(s)\n";
  } else {
    o << "Result: all checks passed" << (warns ? ", " + std::to_string(warns) + " warning(s)" : "")
      << "\n";
  }
  return o.str();
}

nlohmann::ordered_json to_json(const DoctorReport& r) {
  using J = nlohmann::ordered_json;
  J j;
  j["schema"] = "gpuplan.doctor/2";
  j["gpu_found"] = r.gpu_found;
  j["problem"] = r.gpu_found ? J(nullptr) : J(r.problem);
  j["driver_version"] = r.driver_version.empty() ? J(nullptr) : J(r.driver_version);
  j["cuda_version"] = r.cuda_version.empty() ? J(nullptr) : J(r.cuda_version);
  auto opt = [](const auto& v) { return v ? J(*v) : J(nullptr); };
  J gpus = J::array();
  for (const GpuReport& g : r.gpus) {
    const GpuInfo& i = g.info;
    gpus.push_back(J{{"index", i.index},
                     {"name", i.name},
                     {"gpu", g.model.empty() ? J(nullptr) : J(g.model)},
                     {"pci_bus_id", i.pci_bus_id},
                     {"memory_total_bytes", i.memory_total_bytes},
                     {"memory_used_bytes", i.memory_used_bytes},
                     {"ecc_enabled", opt(i.ecc_enabled)},
                     {"ecc_uncorrected_volatile", opt(i.ecc_uncorrected_volatile)},
                     {"temperature_c", opt(i.temperature_c)},
                     {"slowdown_temperature_c", opt(i.slowdown_temperature_c)},
                     {"sm_clock_mhz", opt(i.sm_clock_mhz)},
                     {"max_sm_clock_mhz", opt(i.max_sm_clock_mhz)},
                     {"memory_clock_mhz", opt(i.memory_clock_mhz)},
                     {"max_memory_clock_mhz", opt(i.max_memory_clock_mhz)},
                     {"gpu_utilization_pct", opt(i.gpu_utilization_pct)},
                     {"memory_utilization_pct", opt(i.memory_utilization_pct)},
                     {"persistence_mode", opt(i.persistence_mode)},
                     {"bandwidth_gbs", opt(g.measured_bandwidth_gbs)},
                     {"spec_bandwidth_gbs", opt(g.spec_bandwidth_gbs)},
                     {"bandwidth_note", g.bandwidth_note}});
  }
  // "devices", not "gpus": everywhere else "gpus" is a count of GPUs
  // (docs/json.md); /2 renamed /1's "gpus" array and its "model" ("gpu").
  j["gpu_count"] = r.gpus.size();
  j["devices"] = gpus;
  J checks = J::array();
  for (const Check& c : r.checks) {
    checks.push_back(J{{"name", c.name}, {"status", to_string(c.status)}, {"detail", c.detail}});
  }
  j["checks"] = checks;
  j["exit_code"] = r.exit_code();
  return j;
}

}  // namespace gpuplan::doctor
