// The doctor's logic through a fake NVML/CUDA layer (no GPU needed): every
// check's pass/warn/fail boundary, the exit codes, the bandwidth arithmetic
// and the probe's use of the CUDA driver API.
#include "doctor/doctor.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

namespace gpuplan::doctor {
namespace {

constexpr uint64_t kGib = uint64_t{1} << 30;

class FakeNvml : public Nvml {
 public:
  std::string driver = "580.95.05";
  int cuda = 13000;
  std::vector<GpuInfo> gpus;
  int failing_device = -1;

  Result<std::string> driver_version() override { return driver; }
  Result<int> cuda_driver_version() override { return cuda; }
  Result<unsigned> device_count() override { return static_cast<unsigned>(gpus.size()); }
  Result<GpuInfo> device(unsigned index) override {
    if (static_cast<int>(index) == failing_device) return unavailable("GPU is lost");
    return gpus.at(index);
  }
};

// Copies run at `gbs` GB/s (read + write counted), so the doctor should
// measure exactly that.
class FakeCuda : public CudaDriver {
 public:
  std::vector<double> gbs;
  std::vector<std::pair<size_t, int>> calls;  // (bytes, iterations) per probe
  bool fail_copy = false;

  Result<int> device_count() override { return static_cast<int>(gbs.size()); }
  Result<std::string> device_name(int) override { return std::string("fake"); }
  Result<double> time_dtod_copies(int device, size_t bytes, int iterations) override {
    calls.emplace_back(bytes, iterations);
    if (fail_copy) return unavailable("cuMemAlloc: out of memory");
    const double seconds = 2.0 * static_cast<double>(bytes) * iterations / (gbs.at(device) * 1e9);
    return seconds * 1000.0;
  }
};

GpuInfo h100(unsigned index) {
  GpuInfo g;
  g.index = index;
  g.name = "NVIDIA H100 NVL";
  g.pci_bus_id = "00000001:00:00.0";
  g.memory_total_bytes = 94 * kGib;
  g.memory_used_bytes = kGib / 2;
  g.ecc_enabled = true;
  g.ecc_uncorrected_volatile = 0;
  g.temperature_c = 34;
  g.slowdown_temperature_c = 87;
  g.sm_clock_mhz = 1755;
  g.max_sm_clock_mhz = 1980;
  g.memory_clock_mhz = 2619;
  g.max_memory_clock_mhz = 2619;
  g.gpu_utilization_pct = 0;
  g.memory_utilization_pct = 0;
  g.persistence_mode = true;
  return g;
}

// Forwarders: the doctor owns (and destroys) what the loaders return, while
// the test keeps the fakes to inspect them afterwards.
class NvmlProxy : public Nvml {
 public:
  explicit NvmlProxy(Nvml& n) : n_(n) {}
  Result<std::string> driver_version() override { return n_.driver_version(); }
  Result<int> cuda_driver_version() override { return n_.cuda_driver_version(); }
  Result<unsigned> device_count() override { return n_.device_count(); }
  Result<GpuInfo> device(unsigned i) override { return n_.device(i); }

 private:
  Nvml& n_;
};

class CudaProxy : public CudaDriver {
 public:
  explicit CudaProxy(CudaDriver& c) : c_(c) {}
  Result<int> device_count() override { return c_.device_count(); }
  Result<std::string> device_name(int d) override { return c_.device_name(d); }
  Result<double> time_dtod_copies(int d, size_t b, int i) override {
    return c_.time_dtod_copies(d, b, i);
  }

 private:
  CudaDriver& c_;
};

struct Rig {
  FakeNvml nvml_fake;
  FakeCuda cuda_fake;
  FakeNvml* nvml = &nvml_fake;
  FakeCuda* cuda = &cuda_fake;
  int cuda_loads = 0;
  bool cuda_missing = false;

  Loaders loaders() {
    Loaders l;
    l.nvml = [this]() -> Result<std::unique_ptr<Nvml>> {
      return std::unique_ptr<Nvml>(new NvmlProxy(nvml_fake));
    };
    l.cuda = [this]() -> Result<std::unique_ptr<CudaDriver>> {
      ++cuda_loads;
      if (cuda_missing) return unavailable("cannot load the CUDA driver API (libcuda.so.1)");
      return std::unique_ptr<CudaDriver>(new CudaProxy(cuda_fake));
    };
    return l;
  }
};

const deploy::StackMatrix& matrix() { return **deploy::embedded_stack_matrix(); }

std::unique_ptr<catalog::Catalog> specs() {
  catalog::Gpu nvl{.model = "H100-NVL", .vendor = "NVIDIA", .memory_bw_gbs = 3900};
  catalog::Gpu a10{.model = "A10", .vendor = "NVIDIA", .memory_bw_gbs = 600};
  return catalog::Catalog::from_parts({nvl, a10}, {}, {});
}

const Check* find(const DoctorReport& r, const std::string& name) {
  for (const Check& c : r.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

DoctorOptions expect(int gpus, const char* cuda) {
  DoctorOptions o;
  o.expect_gpus = gpus;
  o.expect_cuda = *deploy::Version::parse(cuda);
  return o;
}

TEST(Doctor, NoDriverIsExit3WithAClearReport) {
  Loaders l;
  l.nvml = []() -> Result<std::unique_ptr<Nvml>> {
    return unavailable(
        "no NVIDIA driver: cannot load NVML (libnvidia-ml.so.1: cannot open shared object file)");
  };
  bool cuda_called = false;
  l.cuda = [&]() -> Result<std::unique_ptr<CudaDriver>> {
    cuda_called = true;
    return unavailable("x");
  };
  const DoctorReport r = diagnose(l, matrix(), nullptr, expect(1, "13.0"));
  EXPECT_FALSE(r.gpu_found);
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_FALSE(cuda_called);
  const std::string text = render_text(r);
  EXPECT_NE(text.find("no usable NVIDIA GPU"), std::string::npos);
  EXPECT_NE(text.find("libnvidia-ml.so.1"), std::string::npos);
  const auto j = to_json(r);
  EXPECT_EQ(j["gpu_found"], false);
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_TRUE(j["driver_version"].is_null());
}

TEST(Doctor, DriverWithoutGpusIsExit3) {
  Rig rig;
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, {});
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_NE(r.problem.find("sees no GPU"), std::string::npos);
}

TEST(Doctor, HealthyH100PassesAndMeasuresBandwidth) {
  Rig rig;
  rig.nvml->gpus = {h100(0)};
  rig.cuda->gbs = {3120};
  auto cat = specs();
  const DoctorReport r = diagnose(rig.loaders(), matrix(), cat.get(), expect(1, "13.0"));
  ASSERT_TRUE(r.gpu_found);
  EXPECT_EQ(r.exit_code(), 0) << render_text(r);
  EXPECT_EQ(r.cuda_version, "13.0");
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.gpus[0].model, "H100-NVL");
  ASSERT_TRUE(r.gpus[0].measured_bandwidth_gbs.has_value());
  EXPECT_NEAR(*r.gpus[0].measured_bandwidth_gbs, 3120, 1e-6);
  // 256 MiB buffers, 20 copies (free memory is far larger than 4 x 256 MiB).
  ASSERT_EQ(rig.cuda->calls.size(), 1u);
  EXPECT_EQ(rig.cuda->calls[0].first, size_t{256} << 20);
  EXPECT_EQ(rig.cuda->calls[0].second, 20);
  const Check* bw = find(r, "bandwidth gpu0");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->status, CheckStatus::kPass);
  EXPECT_NE(bw->detail.find("80% of the 3900 GB/s spec"), std::string::npos) << bw->detail;
  const Check* cuda = find(r, "cuda");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->status, CheckStatus::kPass);
  EXPECT_NE(cuda->detail.find(">= 580.65.06"), std::string::npos);
  EXPECT_EQ(find(r, "ecc gpu0")->status, CheckStatus::kPass);
  EXPECT_EQ(find(r, "temperature gpu0")->status, CheckStatus::kPass);
  const std::string text = render_text(r);
  EXPECT_NE(text.find("GPU 0  NVIDIA H100 NVL (H100-NVL)"), std::string::npos);
  EXPECT_NE(text.find("Result: all checks passed"), std::string::npos);
  EXPECT_EQ(to_json(r)["devices"][0]["bandwidth_gbs"], 3120.0);
}

TEST(Doctor, WrongGpuCountFails) {
  Rig rig;
  rig.nvml->gpus = {h100(0)};
  rig.cuda->gbs = {3120};
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, expect(2, "13.0"));
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_EQ(find(r, "gpu count")->status, CheckStatus::kFail);
  EXPECT_EQ(find(r, "gpu count")->detail, "1 GPU(s) seen, 2 expected");
}

TEST(Doctor, DriverBelowTheCudaMinimumFails) {
  Rig rig;
  rig.nvml->driver = "570.124.06";
  rig.nvml->cuda = 12080;
  rig.nvml->gpus = {h100(0)};
  rig.cuda->gbs = {3120};
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, expect(1, "13.0"));
  EXPECT_EQ(r.exit_code(), 1);
  const Check* c = find(r, "cuda");
  EXPECT_EQ(c->status, CheckStatus::kFail);
  EXPECT_NE(c->detail.find("older than 580.65.06"), std::string::npos) << c->detail;
}

TEST(Doctor, MinorVersionCompatibilityIsAWarning) {
  Rig rig;
  rig.nvml->driver = "550.90.07";
  rig.nvml->cuda = 12040;
  rig.nvml->gpus = {h100(0)};
  rig.cuda->gbs = {3120};
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, expect(1, "12.6"));
  EXPECT_EQ(r.exit_code(), 0);
  const Check* c = find(r, "cuda");
  EXPECT_EQ(c->status, CheckStatus::kWarn);
  EXPECT_NE(c->detail.find("minor-version compatibility"), std::string::npos);
  EXPECT_NE(c->detail.find("525.60.13"), std::string::npos);
}

TEST(Doctor, UnknownExpectedCudaFails) {
  Rig rig;
  rig.nvml->gpus = {h100(0)};
  rig.cuda->gbs = {3120};
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, expect(1, "12.7"));
  EXPECT_EQ(find(r, "cuda")->status, CheckStatus::kFail);
}

TEST(Doctor, WithoutExpectationsTheDriverIsCheckedAgainstItsOwnCuda) {
  Rig rig;
  rig.nvml->driver = "570.124.06";
  rig.nvml->cuda = 12080;
  rig.nvml->gpus = {h100(0)};
  rig.cuda->gbs = {3120};
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, {});
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_NE(find(r, "cuda")->detail.find("570.26, the minimum for CUDA 12.8"), std::string::npos);
  EXPECT_EQ(find(r, "gpu count")->detail, "1 GPU(s) seen");
}

TEST(Doctor, EccTemperatureAndPersistenceBoundaries) {
  Rig rig;
  GpuInfo errors = h100(0);
  errors.ecc_uncorrected_volatile = 3;
  GpuInfo ecc_off = h100(1);
  ecc_off.ecc_enabled = false;
  ecc_off.temperature_c = 77;  // 87 - 10: warning
  GpuInfo hot = h100(2);
  hot.temperature_c = 87;  // at slowdown: failure
  hot.persistence_mode = false;
  GpuInfo vgpu = h100(3);  // no ECC or thresholds reported
  vgpu.ecc_enabled.reset();
  vgpu.ecc_uncorrected_volatile.reset();
  vgpu.slowdown_temperature_c.reset();
  rig.nvml->gpus = {errors, ecc_off, hot, vgpu};
  rig.cuda->gbs = {3120, 3120, 3120, 3120};
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, expect(4, "13.0"));
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_EQ(find(r, "ecc gpu0")->status, CheckStatus::kFail);
  EXPECT_EQ(find(r, "ecc gpu1")->status, CheckStatus::kWarn);
  EXPECT_EQ(find(r, "temperature gpu1")->status, CheckStatus::kWarn);
  EXPECT_EQ(find(r, "temperature gpu0")->status, CheckStatus::kPass);  // 34 C
  EXPECT_EQ(find(r, "temperature gpu2")->status, CheckStatus::kFail);
  EXPECT_EQ(find(r, "persistence gpu2")->status, CheckStatus::kWarn);
  EXPECT_EQ(find(r, "ecc gpu3"), nullptr);
  EXPECT_EQ(find(r, "temperature gpu3"), nullptr);
  EXPECT_EQ(find(r, "temperature gpu1")->detail.find("78"), std::string::npos);
  const auto j = to_json(r);
  EXPECT_TRUE(j["devices"][3]["ecc_enabled"].is_null());
}

TEST(Doctor, SlowCopiesWarnAndProbeFailuresAreReported) {
  Rig rig;
  GpuInfo a10 = h100(0);
  a10.name = "NVIDIA A10-4Q";
  rig.nvml->gpus = {a10};
  rig.cuda->gbs = {290};  // 48% of 600
  auto cat = specs();
  const DoctorReport r = diagnose(rig.loaders(), matrix(), cat.get(), {});
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.gpus[0].model, "A10");
  EXPECT_EQ(find(r, "bandwidth gpu0")->status, CheckStatus::kWarn);
  EXPECT_NE(find(r, "bandwidth gpu0")->detail.find("48% of the 600 GB/s"), std::string::npos);

  Rig failing;
  failing.nvml->gpus = {h100(0)};
  failing.cuda->gbs = {3120};
  failing.cuda->fail_copy = true;
  const DoctorReport f = diagnose(failing.loaders(), matrix(), nullptr, {});
  EXPECT_EQ(find(f, "bandwidth gpu0")->status, CheckStatus::kWarn);
  EXPECT_NE(f.gpus[0].bandwidth_note.find("out of memory"), std::string::npos);
}

TEST(Doctor, MissingCudaLibraryOrSkippedProbe) {
  Rig rig;
  rig.nvml->gpus = {h100(0)};
  rig.cuda_missing = true;
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, {});
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(find(r, "bandwidth")->status, CheckStatus::kWarn);
  EXPECT_NE(r.gpus[0].bandwidth_note.find("libcuda.so.1"), std::string::npos);

  Rig skip;
  skip.nvml->gpus = {h100(0)};
  DoctorOptions o;
  o.bandwidth = false;
  const DoctorReport s = diagnose(skip.loaders(), matrix(), nullptr, o);
  EXPECT_EQ(skip.cuda_loads, 0);
  EXPECT_FALSE(s.gpus[0].measured_bandwidth_gbs.has_value());
}

TEST(Doctor, ProbeSizeLeavesFreeMemory) {
  Rig rig;
  GpuInfo small = h100(0);
  small.memory_total_bytes = 2 * kGib;
  small.memory_used_bytes = 3 * kGib / 2;  // 512 MiB free: 128 MiB buffers
  rig.nvml->gpus = {small};
  rig.cuda->gbs = {500};
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, {});
  ASSERT_EQ(rig.cuda->calls.size(), 1u);
  EXPECT_EQ(rig.cuda->calls[0].first, size_t{128} << 20);
  EXPECT_NEAR(*r.gpus[0].measured_bandwidth_gbs, 500, 1e-6);
}

TEST(Doctor, LostGpuAndCudaCountMismatch) {
  Rig rig;
  rig.nvml->gpus = {h100(0), h100(1)};
  rig.nvml->failing_device = 1;
  rig.cuda->gbs = {3120};
  const DoctorReport r = diagnose(rig.loaders(), matrix(), nullptr, {});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_EQ(find(r, "gpu1")->status, CheckStatus::kFail);
  ASSERT_NE(find(r, "bandwidth"), nullptr);
  EXPECT_NE(find(r, "bandwidth")->detail.find("CUDA sees 1 device(s), NVML 2"), std::string::npos);
}

TEST(Doctor, GpuNamesMapToTheSharedVocabulary) {
  EXPECT_EQ(gpu_model_for_name("NVIDIA H100 80GB HBM3"), "H100-SXM");
  EXPECT_EQ(gpu_model_for_name("NVIDIA H100 NVL"), "H100-NVL");
  EXPECT_EQ(gpu_model_for_name("NVIDIA H200"), "H200-SXM");
  EXPECT_EQ(gpu_model_for_name("NVIDIA A100 80GB PCIe"), "A100-80GB-PCIe");
  EXPECT_EQ(gpu_model_for_name("NVIDIA A100-SXM4-80GB"), "A100-80GB-SXM");
  EXPECT_EQ(gpu_model_for_name("NVIDIA A100-SXM4-40GB"), "A100-40GB-SXM");
  EXPECT_EQ(gpu_model_for_name("NVIDIA A10-24Q"), "A10");
  EXPECT_EQ(gpu_model_for_name("Tesla V100-PCIE-16GB"), "V100-16GB");
  EXPECT_EQ(gpu_model_for_name("Tesla V100-SXM2-32GB"), "V100-32GB");
  EXPECT_EQ(gpu_model_for_name("Tesla T4"), "T4");
  EXPECT_EQ(gpu_model_for_name("Tesla M60"), "M60");
  EXPECT_EQ(gpu_model_for_name("NVIDIA RTX PRO 6000 Blackwell Server Edition"), "RTX-PRO-6000");
  EXPECT_EQ(gpu_model_for_name("Some Other GPU"), "");
}

TEST(Doctor, RealLoadersOnThisMachine) {
  // Where there is no NVIDIA driver (CI), loading NVML must fail cleanly with
  // kUnavailable, not crash; where there is one, it must load.
  auto nvml = load_nvml();
  if (!nvml) {
    EXPECT_EQ(nvml.error().code, ErrorCode::kUnavailable);
    EXPECT_NE(nvml.error().message.find("NVML"), std::string::npos);
  } else {
    EXPECT_TRUE((*nvml)->driver_version().has_value());
  }
}

}  // namespace
}  // namespace gpuplan::doctor

namespace gpuplan::doctor {
namespace {

// `gpuplan doctor` says whether autostop is installed and when it fires.
TEST(DoctorAutostop, SaysWhetherItIsActiveAndWhenItFires) {
  const std::string dir = testing::TempDir() + "/doctor-autostop-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/state");
  DoctorOptions o;
  o.autostop_conf = dir + "/autostop.conf";
  o.autostop_state = dir + "/state";
  Check off = autostop_check(o, 1000000);
  EXPECT_EQ(off.status, CheckStatus::kPass);
  EXPECT_NE(off.detail.find("off"), std::string::npos);
  { std::ofstream(o.autostop_conf) << "# shellcheck shell=bash\nMINUTES=60\nTHRESHOLD=5\n"; }
  Check not_run = autostop_check(o, 1000000);
  EXPECT_EQ(not_run.status, CheckStatus::kWarn);
  EXPECT_NE(not_run.detail.find("has not run"), std::string::npos);
  // Last work at 2026-12-03 10:00 UTC (1796292000), checked a minute ago.
  { std::ofstream(o.autostop_state + "/last_busy") << "1796292000\n"; }
  { std::ofstream(o.autostop_state + "/last_decision") << "1796292600 idle 600 3000\n"; }
  Check active = autostop_check(o, 1796292660);
  EXPECT_EQ(active.status, CheckStatus::kPass) << active.detail;
  EXPECT_NE(active.detail.find("fires at 2026-12-03 11:00 UTC"), std::string::npos)
      << active.detail;
  EXPECT_NE(active.detail.find("idle 600 3000"), std::string::npos);
  // The timer stopped: the last check is an hour old.
  Check stale = autostop_check(o, 1796292600 + 3600);
  EXPECT_EQ(stale.status, CheckStatus::kWarn);
  EXPECT_NE(stale.detail.find("is gpuplan-autostop.timer running?"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::doctor
