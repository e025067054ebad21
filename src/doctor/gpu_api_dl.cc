// The real NVML and CUDA driver API, loaded with dlopen. The few types and
// enum values used are declared here from NVIDIA's public headers (nvml.h,
// cuda.h), so building needs no CUDA installation; every symbol is resolved at
// run time and a missing one is reported, not fatal.
#include <cstdlib>
#include <string>

#include <dlfcn.h>

#include "doctor/internal/gpu_api.h"

namespace gpuplan::doctor {
namespace {

// ---- nvml.h subset ----
using nvmlReturn_t = int;  // NVML_SUCCESS = 0
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlTemperatureGpu = 0;     // NVML_TEMPERATURE_GPU
constexpr int kNvmlThresholdSlowdown = 1;  // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
constexpr int kNvmlClockSm = 1;            // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;           // NVML_CLOCK_MEM
constexpr int kNvmlErrorUncorrected = 1;   // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kNvmlVolatileEcc = 0;        // NVML_VOLATILE_ECC
struct NvmlMemory {
  unsigned long long total, free, used;
};  // nvmlMemory_t
struct NvmlUtilization {
  unsigned int gpu, memory;
};                    // nvmlUtilization_t
struct NvmlPciInfo {  // nvmlPciInfo_t (v3)
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
  char reserve[64];  // slack in case a newer driver grows the struct
};

// ---- cuda.h subset ----
using CUresult = int;  // CUDA_SUCCESS = 0
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;
constexpr CUresult kCudaSuccess = 0;

class Library {
 public:
  explicit Library(void* handle) : handle_(handle) {}
  ~Library() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  template <typename F>
  F get(const char* name) const {
    return reinterpret_cast<F>(::dlsym(handle_, name));
  }

 private:
  void* handle_;
};

template <typename F>
Status need(F f, const char* lib, const char* name) {
  if (f == nullptr)
    return unavailable(std::string(lib) + " has no symbol " + name + " (driver too old?)");
  return {};
}

class DlNvml final : public Nvml {
 public:
  static Result<std::unique_ptr<Nvml>> open() {
    void* h = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* why = ::dlerror();
      return unavailable(std::string("no NVIDIA driver: cannot load NVML (") +
                         (why ? why : "libnvidia-ml.so.1") + ")");
    }
    auto n = std::unique_ptr<DlNvml>(new DlNvml(h));
    GPUPLAN_RETURN_IF_ERROR(n->bind());
    const nvmlReturn_t rc = n->init_();
    if (rc != kNvmlSuccess) {
      return unavailable("NVIDIA driver installed but NVML cannot start: " + n->error(rc));
    }
    n->initialized_ = true;
    return std::unique_ptr<Nvml>(std::move(n));
  }
  ~DlNvml() override {
    if (initialized_ && shutdown_ != nullptr) shutdown_();
  }

  Result<std::string> driver_version() override {
    char buf[96] = {};
    const nvmlReturn_t rc = driver_version_(buf, sizeof buf);
    if (rc != kNvmlSuccess) return unavailable("nvmlSystemGetDriverVersion: " + error(rc));
    return std::string(buf);
  }
  Result<int> cuda_driver_version() override {
    int v = 0;
    const nvmlReturn_t rc = cuda_version_(&v);
    if (rc != kNvmlSuccess) return unavailable("nvmlSystemGetCudaDriverVersion: " + error(rc));
    return v;
  }
  Result<unsigned> device_count() override {
    unsigned n = 0;
    const nvmlReturn_t rc = count_(&n);
    if (rc != kNvmlSuccess) return unavailable("nvmlDeviceGetCount: " + error(rc));
    return n;
  }
  Result<GpuInfo> device(unsigned index) override {
    nvmlDevice_t d = nullptr;
    nvmlReturn_t rc = handle_(index, &d);
    if (rc != kNvmlSuccess) return unavailable("nvmlDeviceGetHandleByIndex: " + error(rc));
    GpuInfo g;
    g.index = index;
    char name[128] = {};
    if (name_(d, name, sizeof name) == kNvmlSuccess) g.name = name;
    NvmlPciInfo pci{};
    if (pci_ != nullptr && pci_(d, &pci) == kNvmlSuccess) g.pci_bus_id = pci.bus_id;
    NvmlMemory mem{};
    if (memory_(d, &mem) == kNvmlSuccess) {
      g.memory_total_bytes = mem.total;
      g.memory_used_bytes = mem.used;
    }
    int current = 0, pending = 0;
    if (ecc_mode_ != nullptr && ecc_mode_(d, &current, &pending) == kNvmlSuccess)
      g.ecc_enabled = current == 1;
    unsigned long long errors = 0;
    if (ecc_errors_ != nullptr &&
        ecc_errors_(d, kNvmlErrorUncorrected, kNvmlVolatileEcc, &errors) == kNvmlSuccess) {
      g.ecc_uncorrected_volatile = errors;
    }
    unsigned v = 0;
    if (temperature_(d, kNvmlTemperatureGpu, &v) == kNvmlSuccess) g.temperature_c = v;
    if (threshold_ != nullptr && threshold_(d, kNvmlThresholdSlowdown, &v) == kNvmlSuccess)
      g.slowdown_temperature_c = v;
    if (clock_(d, kNvmlClockSm, &v) == kNvmlSuccess) g.sm_clock_mhz = v;
    if (max_clock_(d, kNvmlClockSm, &v) == kNvmlSuccess) g.max_sm_clock_mhz = v;
    if (clock_(d, kNvmlClockMem, &v) == kNvmlSuccess) g.memory_clock_mhz = v;
    if (max_clock_(d, kNvmlClockMem, &v) == kNvmlSuccess) g.max_memory_clock_mhz = v;
    NvmlUtilization u{};
    if (utilization_(d, &u) == kNvmlSuccess) {
      g.gpu_utilization_pct = u.gpu;
      g.memory_utilization_pct = u.memory;
    }
    int persistence = 0;
    if (persistence_ != nullptr && persistence_(d, &persistence) == kNvmlSuccess)
      g.persistence_mode = persistence == 1;
    return g;
  }

 private:
  explicit DlNvml(void* h) : lib_(h) {}

  Status bind() {
    constexpr const char* kLib = "libnvidia-ml.so.1";
    init_ = lib_.get<nvmlReturn_t (*)()>("nvmlInit_v2");
    shutdown_ = lib_.get<nvmlReturn_t (*)()>("nvmlShutdown");
    error_string_ = lib_.get<const char* (*)(nvmlReturn_t)>("nvmlErrorString");
    driver_version_ = lib_.get<nvmlReturn_t (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
    cuda_version_ = lib_.get<nvmlReturn_t (*)(int*)>("nvmlSystemGetCudaDriverVersion_v2");
    if (cuda_version_ == nullptr)
      cuda_version_ = lib_.get<nvmlReturn_t (*)(int*)>("nvmlSystemGetCudaDriverVersion");
    count_ = lib_.get<nvmlReturn_t (*)(unsigned*)>("nvmlDeviceGetCount_v2");
    handle_ = lib_.get<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex_v2");
    name_ = lib_.get<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>("nvmlDeviceGetName");
    pci_ = lib_.get<nvmlReturn_t (*)(nvmlDevice_t, NvmlPciInfo*)>("nvmlDeviceGetPciInfo_v3");
    memory_ = lib_.get<nvmlReturn_t (*)(nvmlDevice_t, NvmlMemory*)>("nvmlDeviceGetMemoryInfo");
    ecc_mode_ = lib_.get<nvmlReturn_t (*)(nvmlDevice_t, int*, int*)>("nvmlDeviceGetEccMode");
    ecc_errors_ = lib_.get<nvmlReturn_t (*)(nvmlDevice_t, int, int, unsigned long long*)>(
        "nvmlDeviceGetTotalEccErrors");
    temperature_ =
        lib_.get<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetTemperature");
    threshold_ = lib_.get<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>(
        "nvmlDeviceGetTemperatureThreshold");
    clock_ = lib_.get<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetClockInfo");
    max_clock_ =
        lib_.get<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetMaxClockInfo");
    utilization_ =
        lib_.get<nvmlReturn_t (*)(nvmlDevice_t, NvmlUtilization*)>("nvmlDeviceGetUtilizationRates");
    persistence_ = lib_.get<nvmlReturn_t (*)(nvmlDevice_t, int*)>("nvmlDeviceGetPersistenceMode");
    GPUPLAN_RETURN_IF_ERROR(need(init_, kLib, "nvmlInit_v2"));
    GPUPLAN_RETURN_IF_ERROR(need(driver_version_, kLib, "nvmlSystemGetDriverVersion"));
    GPUPLAN_RETURN_IF_ERROR(need(cuda_version_, kLib, "nvmlSystemGetCudaDriverVersion"));
    GPUPLAN_RETURN_IF_ERROR(need(count_, kLib, "nvmlDeviceGetCount_v2"));
    GPUPLAN_RETURN_IF_ERROR(need(handle_, kLib, "nvmlDeviceGetHandleByIndex_v2"));
    GPUPLAN_RETURN_IF_ERROR(need(name_, kLib, "nvmlDeviceGetName"));
    GPUPLAN_RETURN_IF_ERROR(need(memory_, kLib, "nvmlDeviceGetMemoryInfo"));
    GPUPLAN_RETURN_IF_ERROR(need(temperature_, kLib, "nvmlDeviceGetTemperature"));
    GPUPLAN_RETURN_IF_ERROR(need(clock_, kLib, "nvmlDeviceGetClockInfo"));
    GPUPLAN_RETURN_IF_ERROR(need(max_clock_, kLib, "nvmlDeviceGetMaxClockInfo"));
    GPUPLAN_RETURN_IF_ERROR(need(utilization_, kLib, "nvmlDeviceGetUtilizationRates"));
    return {};
  }
  std::string error(nvmlReturn_t rc) const {
    const char* s = error_string_ ? error_string_(rc) : nullptr;
    return s ? std::string(s) : "NVML error " + std::to_string(rc);
  }

  Library lib_;
  bool initialized_ = false;
  nvmlReturn_t (*init_)() = nullptr;
  nvmlReturn_t (*shutdown_)() = nullptr;
  const char* (*error_string_)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*driver_version_)(char*, unsigned) = nullptr;
  nvmlReturn_t (*cuda_version_)(int*) = nullptr;
  nvmlReturn_t (*count_)(unsigned*) = nullptr;
  nvmlReturn_t (*handle_)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name_)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*pci_)(nvmlDevice_t, NvmlPciInfo*) = nullptr;
  nvmlReturn_t (*memory_)(nvmlDevice_t, NvmlMemory*) = nullptr;
  nvmlReturn_t (*ecc_mode_)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*ecc_errors_)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
  nvmlReturn_t (*temperature_)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*threshold_)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*clock_)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock_)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*utilization_)(nvmlDevice_t, NvmlUtilization*) = nullptr;
  nvmlReturn_t (*persistence_)(nvmlDevice_t, int*) = nullptr;
};

class DlCuda final : public CudaDriver {
 public:
  static Result<std::unique_ptr<CudaDriver>> open() {
    // Number devices as NVML does (PCI bus order) unless the user chose otherwise.
    ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
    void* h = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* why = ::dlerror();
      return unavailable(std::string("cannot load the CUDA driver API (") +
                         (why ? why : "libcuda.so.1") + ")");
    }
    auto c = std::unique_ptr<DlCuda>(new DlCuda(h));
    GPUPLAN_RETURN_IF_ERROR(c->bind());
    const CUresult rc = c->init_(0);
    if (rc != kCudaSuccess) return unavailable("cuInit: " + c->error(rc));
    return std::unique_ptr<CudaDriver>(std::move(c));
  }

  Result<int> device_count() override {
    int n = 0;
    const CUresult rc = count_(&n);
    if (rc != kCudaSuccess) return unavailable("cuDeviceGetCount: " + error(rc));
    return n;
  }
  Result<std::string> device_name(int device) override {
    CUdevice d = 0;
    CUresult rc = get_(&d, device);
    if (rc != kCudaSuccess) return unavailable("cuDeviceGet: " + error(rc));
    char buf[128] = {};
    rc = name_(buf, sizeof buf, d);
    if (rc != kCudaSuccess) return unavailable("cuDeviceGetName: " + error(rc));
    return std::string(buf);
  }
  Result<double> time_dtod_copies(int device, size_t bytes, int iterations) override {
    CUdevice d = 0;
    CUresult rc = get_(&d, device);
    if (rc != kCudaSuccess) return unavailable("cuDeviceGet: " + error(rc));
    CUcontext ctx = nullptr;
    rc = retain_(&ctx, d);
    if (rc != kCudaSuccess) return unavailable("cuDevicePrimaryCtxRetain: " + error(rc));
    CUdeviceptr src = 0, dst = 0;
    CUevent start = nullptr, stop = nullptr;
    auto cleanup = [&] {
      if (start) destroy_event_(start);
      if (stop) destroy_event_(stop);
      if (src) free_(src);
      if (dst) free_(dst);
      release_(d);
    };
    auto fail = [&](const char* what, CUresult r) -> Result<double> {
      cleanup();
      return unavailable(std::string(what) + ": " + error(r));
    };
    if ((rc = set_current_(ctx)) != kCudaSuccess) return fail("cuCtxSetCurrent", rc);
    if ((rc = alloc_(&src, bytes)) != kCudaSuccess) return fail("cuMemAlloc", rc);
    if ((rc = alloc_(&dst, bytes)) != kCudaSuccess) return fail("cuMemAlloc", rc);
    if ((rc = create_event_(&start, 0)) != kCudaSuccess) return fail("cuEventCreate", rc);
    if ((rc = create_event_(&stop, 0)) != kCudaSuccess) return fail("cuEventCreate", rc);
    // One untimed copy to warm up (page mapping, clocks), then the timed ones.
    if ((rc = copy_(dst, src, bytes)) != kCudaSuccess) return fail("cuMemcpyDtoD", rc);
    if ((rc = sync_()) != kCudaSuccess) return fail("cuCtxSynchronize", rc);
    if ((rc = record_(start, nullptr)) != kCudaSuccess) return fail("cuEventRecord", rc);
    for (int i = 0; i < iterations; ++i) {
      if ((rc = copy_(dst, src, bytes)) != kCudaSuccess) return fail("cuMemcpyDtoD", rc);
    }
    if ((rc = record_(stop, nullptr)) != kCudaSuccess) return fail("cuEventRecord", rc);
    if ((rc = event_sync_(stop)) != kCudaSuccess) return fail("cuEventSynchronize", rc);
    float ms = 0;
    if ((rc = elapsed_(&ms, start, stop)) != kCudaSuccess) return fail("cuEventElapsedTime", rc);
    cleanup();
    return static_cast<double>(ms);
  }

 private:
  explicit DlCuda(void* h) : lib_(h) {}

  Status bind() {
    constexpr const char* kLib = "libcuda.so.1";
    init_ = lib_.get<CUresult (*)(unsigned)>("cuInit");
    error_string_ = lib_.get<CUresult (*)(CUresult, const char**)>("cuGetErrorString");
    count_ = lib_.get<CUresult (*)(int*)>("cuDeviceGetCount");
    get_ = lib_.get<CUresult (*)(CUdevice*, int)>("cuDeviceGet");
    name_ = lib_.get<CUresult (*)(char*, int, CUdevice)>("cuDeviceGetName");
    retain_ = lib_.get<CUresult (*)(CUcontext*, CUdevice)>("cuDevicePrimaryCtxRetain");
    release_ = lib_.get<CUresult (*)(CUdevice)>("cuDevicePrimaryCtxRelease_v2");
    if (release_ == nullptr)
      release_ = lib_.get<CUresult (*)(CUdevice)>("cuDevicePrimaryCtxRelease");
    set_current_ = lib_.get<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
    alloc_ = lib_.get<CUresult (*)(CUdeviceptr*, size_t)>("cuMemAlloc_v2");
    free_ = lib_.get<CUresult (*)(CUdeviceptr)>("cuMemFree_v2");
    copy_ = lib_.get<CUresult (*)(CUdeviceptr, CUdeviceptr, size_t)>("cuMemcpyDtoD_v2");
    sync_ = lib_.get<CUresult (*)()>("cuCtxSynchronize");
    create_event_ = lib_.get<CUresult (*)(CUevent*, unsigned)>("cuEventCreate");
    record_ = lib_.get<CUresult (*)(CUevent, CUstream)>("cuEventRecord");
    event_sync_ = lib_.get<CUresult (*)(CUevent)>("cuEventSynchronize");
    elapsed_ = lib_.get<CUresult (*)(float*, CUevent, CUevent)>("cuEventElapsedTime");
    destroy_event_ = lib_.get<CUresult (*)(CUevent)>("cuEventDestroy_v2");
    for (auto [f, n] :
         {std::pair<const void*, const char*>{reinterpret_cast<const void*>(init_), "cuInit"},
          {reinterpret_cast<const void*>(count_), "cuDeviceGetCount"},
          {reinterpret_cast<const void*>(get_), "cuDeviceGet"},
          {reinterpret_cast<const void*>(name_), "cuDeviceGetName"},
          {reinterpret_cast<const void*>(retain_), "cuDevicePrimaryCtxRetain"},
          {reinterpret_cast<const void*>(release_), "cuDevicePrimaryCtxRelease"},
          {reinterpret_cast<const void*>(set_current_), "cuCtxSetCurrent"},
          {reinterpret_cast<const void*>(alloc_), "cuMemAlloc_v2"},
          {reinterpret_cast<const void*>(free_), "cuMemFree_v2"},
          {reinterpret_cast<const void*>(copy_), "cuMemcpyDtoD_v2"},
          {reinterpret_cast<const void*>(sync_), "cuCtxSynchronize"},
          {reinterpret_cast<const void*>(create_event_), "cuEventCreate"},
          {reinterpret_cast<const void*>(record_), "cuEventRecord"},
          {reinterpret_cast<const void*>(event_sync_), "cuEventSynchronize"},
          {reinterpret_cast<const void*>(elapsed_), "cuEventElapsedTime"},
          {reinterpret_cast<const void*>(destroy_event_), "cuEventDestroy_v2"}}) {
      GPUPLAN_RETURN_IF_ERROR(need(f, kLib, n));
    }
    return {};
  }
  std::string error(CUresult rc) const {
    const char* s = nullptr;
    if (error_string_ != nullptr && error_string_(rc, &s) == kCudaSuccess && s != nullptr) return s;
    return "CUDA error " + std::to_string(rc);
  }

  Library lib_;
  CUresult (*init_)(unsigned) = nullptr;
  CUresult (*error_string_)(CUresult, const char**) = nullptr;
  CUresult (*count_)(int*) = nullptr;
  CUresult (*get_)(CUdevice*, int) = nullptr;
  CUresult (*name_)(char*, int, CUdevice) = nullptr;
  CUresult (*retain_)(CUcontext*, CUdevice) = nullptr;
  CUresult (*release_)(CUdevice) = nullptr;
  CUresult (*set_current_)(CUcontext) = nullptr;
  CUresult (*alloc_)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*free_)(CUdeviceptr) = nullptr;
  CUresult (*copy_)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
  CUresult (*sync_)() = nullptr;
  CUresult (*create_event_)(CUevent*, unsigned) = nullptr;
  CUresult (*record_)(CUevent, CUstream) = nullptr;
  CUresult (*event_sync_)(CUevent) = nullptr;
  CUresult (*elapsed_)(float*, CUevent, CUevent) = nullptr;
  CUresult (*destroy_event_)(CUevent) = nullptr;
};

}  // namespace

Result<std::unique_ptr<Nvml>> load_nvml() { return DlNvml::open(); }
Result<std::unique_ptr<CudaDriver>> load_cuda_driver() { return DlCuda::open(); }

}  // namespace gpuplan::doctor
