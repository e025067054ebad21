// Stack resolution.
//
// Problem: a GPU VM works only when five things agree — the driver kind the
// size needs (data-center CUDA driver, Azure's GRID/vGPU driver, or AMD's),
// the driver version, the CUDA toolkit, cuDNN and the PyTorch wheel — and the
// GPU's architecture must be one each of them still supports (CUDA 13 dropped
// Maxwell, Pascal and Volta; cu130 wheels start at Turing).
//
// Approach: enumerate the PyTorch wheels of the matrix (release x CUDA build)
// and drop each one that cannot work, remembering why:
//   1. the GPU's compute capability is outside the wheel's build range;
//   2. the wheel's CUDA is not in NVIDIA's minimum-driver table (cu132), or
//      the CUDA release no longer supports the GPU's architecture;
//   3. on Windows, NVIDIA lists no minimum driver for that CUDA (13.x);
//   4. where the driver is fixed by someone else — the GRID driver Azure's
//      extension installs, or the driver an HPC image ships — that driver is
//      below the CUDA release's minimum and below its family's
//      minor-version-compatibility minimum.
// Among the survivors prefer stable wheels, then the newest PyTorch, then a
// CUDA the driver fully supports over one that runs by minor-version
// compatibility, then the newest CUDA. Where gpuplan installs the driver
// itself (data-center GPUs on Linux) it pins the branch of the chosen CUDA's
// minimum driver ("580.65.06" → cuda-drivers-580).
//
// Trade-offs: GRID drivers have no published branch→CUDA map; comparing the
// GRID driver's version number with the CUDA minimum-driver table is a
// derivation, reported as such. The Ubuntu-HPC image's driver is taken as the
// oldest one in our data (550.90.07), so the chosen CUDA also runs on newer
// images. Every constant lives in data/deploy/stack_matrix.csv with its source.
#include "deploy/stack.h"

#include <algorithm>
#include <set>

#include "core/strings.h"

namespace gpuplan::deploy {

std::string_view to_string(DriverSource s) {
  switch (s) {
    case DriverSource::kCloudInit:
      return "cloud-init";
    case DriverSource::kExtension:
      return "extension";
    case DriverSource::kImage:
      return "image";
  }
  return "?";
}

std::string architecture_for_cc(const Version& cc) {
  // NVIDIA's compute capability table (CUDA C++ Programming Guide).
  const int m = cc.major();
  const int n = cc.minor();
  if (m == 5) return "Maxwell";
  if (m == 6) return "Pascal";
  if (m == 7) return n >= 5 ? "Turing" : "Volta";
  if (m == 8) return n == 9 ? "Ada" : "Ampere";
  if (m == 9) return "Hopper";
  if (m >= 10) return "Blackwell";
  return "compute capability " + cc.to_string();
}

StackTarget make_target(const catalog::VmSize& size, const catalog::Gpu* gpu, catalog::Os os,
                        std::string image_with_driver) {
  StackTarget t;
  t.size = size.name;
  t.series = size.series;
  t.gpu_model = size.gpu_model;
  t.driver = size.driver;
  t.os = os;
  t.image_with_driver = std::move(image_with_driver);
  t.confidential = catalog::is_confidential(size);
  if (gpu != nullptr) {
    // "Ampere (GA102)" → "Ampere": the family name is what CUDA's notes use.
    t.architecture = gpu->architecture.substr(0, gpu->architecture.find(" ("));
    t.compute_capability = gpu->compute_capability;
  }
  return t;
}

namespace {

using catalog::Os;

const GridDriver* find_grid(const StackMatrix& m, const StackTarget& t) {
  for (const GridDriver& g : m.grid) {
    if (!t.series.empty() && strings::fold(g.series) == strings::fold(t.series)) return &g;
  }
  for (const GridDriver& g : m.grid) {
    if (!t.gpu_model.empty() && strings::fold(g.gpu) == strings::fold(t.gpu_model)) return &g;
  }
  return nullptr;
}

std::string gpu_label(const StackTarget& t, const Version& cc) {
  std::string arch = t.architecture.empty() ? architecture_for_cc(cc) : t.architecture;
  return t.gpu_model + " (" + arch + ", compute capability " + cc.to_string() + ")";
}

std::optional<Version> min_driver_for(const CudaRelease& c, Os os) {
  if (os == Os::kWindows) return c.windows_min_driver;
  return c.linux_min_driver;
}

std::optional<Version> family_min_driver(const CudaFamily& f, Os os) {
  if (os == Os::kWindows) return f.windows_min_driver;
  return f.linux_min_driver;
}

bool same_minor(const Version& a, const Version& b) {
  return a.major() == b.major() && a.minor() == b.minor();
}

struct Candidate {
  const PytorchWheel* wheel = nullptr;
  const CudaRelease* cuda = nullptr;
  bool minor_compat = false;
  Version min_driver;
};

// The driver version someone else installs (Azure's GRID extension, an HPC
// image), which caps the CUDA; none where gpuplan installs the driver.
struct FixedDriver {
  std::optional<Version> version;
  std::string by;  // "Azure's GRID driver 535.161.08 (NVadsA10_v5, linux)"
};

// Step 2: where the driver comes from (s.driver_source, with the reasons and
// warnings it brings) and, when someone else installs it, its version.
Result<FixedDriver> choose_driver_source(const StackMatrix& matrix, const StackTarget& target,
                                         const std::string& os_name, Stack& s) {
  FixedDriver fixed;
  if (target.driver == catalog::DriverKind::kGrid) {
    const GridDriver* g = find_grid(matrix, target);
    if (g == nullptr) {
      return failed_precondition(target.size +
                                 " needs the GRID/vGPU driver, and the matrix has no "
                                 "GRID driver version for series '" +
                                 target.series +
                                 "': there is no GRID-branch→CUDA map to choose a CUDA from");
    }
    fixed.version = target.os == Os::kWindows ? g->windows_driver : g->linux_driver;
    if (!fixed.version) {
      return failed_precondition(
          target.size + " (" + g->series + ") needs Azure's GRID driver, whose " + os_name +
          " version is not in the data (" + g->notes +
          "); with no GRID-branch→CUDA map gpuplan cannot pin a CUDA for it. Install the driver "
          "with the NvidiaGpuDriver extension and read the CUDA version `nvidia-smi` reports.");
    }
    s.driver_source = DriverSource::kExtension;
    s.provided_driver = fixed.version;
    if (g->pinned) {
      // The extension's default is the newest GRID branch, which dropped
      // this GPU: the stack holds only if the extension installs this one.
      s.pinned_driver = fixed.version;
      s.reasons.push_back("the driver extension is pinned to " + fixed.version->to_string() +
                          " (settings.driverVersion): its default, the newest GRID branch, "
                          "does not support the " +
                          target.gpu_model + " [" + g->source + "]");
    }
    if (g->no_secure_boot_vtpm && target.os == Os::kLinux) {
      s.no_secure_boot_vtpm = true;
      s.reasons.push_back("Azure's driver setup for " + g->series +
                          " runs its GRID driver with Secure Boot and vTPM disabled [" + g->source +
                          "]");
    }
    fixed.by = "Azure's GRID driver " + fixed.version->to_string() + " (" + g->series + ", " +
               os_name + ")";
    s.reasons.push_back(target.size +
                        " needs the GRID/vGPU driver; Azure's NvidiaGpuDriver "
                        "extension installs " +
                        fixed.version->to_string() + " [" + g->source + "]");
    s.warnings.push_back(
        "no GRID-branch→CUDA map is published: the CUDA ceiling comes from "
        "comparing GRID driver " +
        fixed.version->to_string() + " with NVIDIA's minimum-driver table (a derivation)");
  } else if (!target.image_with_driver.empty()) {
    const ImageDriver* img = matrix.find_image(target.image_with_driver);
    if (img == nullptr) {
      return internal_error("no image row '" + target.image_with_driver + "' in the stack matrix");
    }
    fixed.version = img->linux_driver;
    s.driver_source = DriverSource::kImage;
    s.provided_driver = fixed.version;
    fixed.by =
        "the " + img->image + " image's driver (" + fixed.version->to_string() + " or newer)";
    s.reasons.push_back("the " + img->image +
                        " image ships the NVIDIA driver and fabric manager; "
                        "the oldest in our data is " +
                        fixed.version->to_string() + " [" + img->source + "]");
  } else if (target.os == Os::kWindows) {
    s.driver_source = DriverSource::kExtension;
    s.reasons.push_back(
        "Windows: Azure's NvidiaGpuDriverWindows extension installs the "
        "data-center driver");
  } else {
    s.driver_source = DriverSource::kCloudInit;
  }

  return fixed;
}

// Step 3: a requested CUDA must exist and support the GPU's architecture; a
// requested PyTorch must be in the matrix.
Status check_request(const StackMatrix& matrix, const StackTarget& target,
                     const StackRequest& request, const Version& cc, const std::string& gpu) {
  if (request.cuda) {
    const CudaRelease* c = matrix.find_cuda(*request.cuda);
    if (c == nullptr) {
      std::string known;
      for (const CudaRelease& r : matrix.cuda)
        known += (known.empty() ? "" : ", ") + r.cuda.to_string();
      return invalid_argument("CUDA " + request.cuda->to_string() +
                                  " is not in NVIDIA's minimum-driver table (known: " + known + ")",
                              Where{"", 0, 0, "--cuda"});
    }
    if (c->min_cc && cc < *c->min_cc) {
      return failed_precondition(
          "CUDA " + c->cuda.to_string() + " cannot run on " + target.size + ": its GPU is " + gpu +
          ", and CUDA " + std::to_string(c->cuda.major()) +
          " dropped Maxwell, Pascal and Volta (it needs compute capability " +
          c->min_cc->to_string() + " or newer) [" + c->source + "]. Use CUDA 12.x on this size.");
    }
  }
  if (request.pytorch) {
    const bool known =
        std::any_of(matrix.pytorch.begin(), matrix.pytorch.end(),
                    [&](const PytorchWheel& w) { return same_minor(w.pytorch, *request.pytorch); });
    if (!known) {
      std::set<std::string> seen;
      std::string list;
      for (const PytorchWheel& w : matrix.pytorch) {
        if (seen.insert(w.pytorch.to_string()).second)
          list += (list.empty() ? "" : ", ") + w.pytorch.to_string();
      }
      return invalid_argument(
          "PyTorch " + request.pytorch->to_string() + " is not in the matrix (known: " + list + ")",
          Where{"", 0, 0, "--pytorch"});
    }
  }

  return {};
}

// Step 4: the wheels that can work, the preferred one first (stable, newest
// PyTorch, full driver support over minor-version compatibility, newest
// CUDA); kFailedPrecondition listing why each wheel was dropped when none can.
Result<Candidate> choose_wheel(const StackMatrix& matrix, const StackTarget& target,
                               const StackRequest& request, const Version& cc,
                               const std::string& gpu, const std::string& os_name,
                               const FixedDriver& fixed) {
  std::vector<Candidate> ok;
  std::vector<std::string> why;
  auto drop = [&](const PytorchWheel& w, const std::string& reason) {
    why.push_back("PyTorch " + w.pytorch.to_string() + " " + w.variant() + ": " + reason);
  };
  for (const PytorchWheel& w : matrix.pytorch) {
    if (request.pytorch && !same_minor(w.pytorch, *request.pytorch)) continue;
    if (request.cuda && !same_minor(w.cuda, *request.cuda)) continue;
    if (cc < w.min_cc || cc > w.max_cc) {
      drop(w, "built for compute capability " + w.min_cc.to_string() + "–" + w.max_cc.to_string() +
                  ", not " + cc.to_string() + " [" + w.source + "]");
      continue;
    }
    const CudaRelease* c = matrix.find_cuda(w.cuda);
    if (c == nullptr) {
      drop(w, "CUDA " + w.cuda.to_string() + " is not in NVIDIA's minimum-driver table");
      continue;
    }
    if (c->min_cc && cc < *c->min_cc) {
      drop(w, "CUDA " + c->cuda.to_string() + " needs compute capability " +
                  c->min_cc->to_string() + "+ [" + c->source + "]");
      continue;
    }
    const std::optional<Version> need = min_driver_for(*c, target.os);
    if (!need) {
      drop(w, "NVIDIA lists no " + os_name + " minimum driver for CUDA " + c->cuda.to_string());
      continue;
    }
    Candidate cand{&w, c, false, *need};
    if (fixed.version && *fixed.version < *need) {
      const CudaFamily* f = matrix.find_family(c->cuda.major());
      const std::optional<Version> fam = f ? family_min_driver(*f, target.os) : std::nullopt;
      if (fam && *fixed.version >= *fam) {
        cand.minor_compat = true;
        cand.min_driver = *fam;
      } else {
        drop(w, "CUDA " + c->cuda.to_string() + " needs driver " + need->to_string() +
                    (fam ? " (" + std::to_string(c->cuda.major()) +
                               ".x minor-version compatibility: " + fam->to_string() + ")"
                         : "") +
                    ", above " + fixed.by);
        continue;
      }
    }
    ok.push_back(cand);
  }
  if (ok.empty()) {
    std::string msg =
        "no PyTorch wheel works on " + target.size + " (" + gpu + ", " + os_name + ")";
    if (request.pytorch) msg += " with PyTorch " + request.pytorch->to_string();
    if (request.cuda) msg += " with CUDA " + request.cuda->to_string();
    msg += ":";
    for (const std::string& w : why) msg += "\n  - " + w;
    if (why.empty()) msg += "\n  - the matrix has no wheel for that combination";
    return failed_precondition(msg);
  }
  std::stable_sort(ok.begin(), ok.end(), [](const Candidate& a, const Candidate& b) {
    if (a.wheel->stable != b.wheel->stable) return a.wheel->stable;
    if (a.wheel->pytorch != b.wheel->pytorch) return a.wheel->pytorch > b.wheel->pytorch;
    if (a.minor_compat != b.minor_compat) return !a.minor_compat;
    return a.wheel->cuda > b.wheel->cuda;
  });
  return ok.front();
}

// Step 5: the stack from the chosen wheel, with its reasons and warnings,
// and the cuDNN release that covers its CUDA on this GPU.
void fill_stack(const StackMatrix& matrix, const StackTarget& target, const Candidate& best,
                const Version& cc, const std::string& os_name, const FixedDriver& fixed, Stack& s) {
  s.cuda = best.cuda->cuda;
  s.min_driver = best.min_driver;
  s.minor_version_compat = best.minor_compat;
  s.pytorch = best.wheel->pytorch;
  s.wheel_variant = best.wheel->variant();
  s.wheel_stable = best.wheel->stable;
  s.pytorch_index_url = "https://download.pytorch.org/whl/" + s.wheel_variant;
  if (s.driver_source == DriverSource::kCloudInit) {
    s.driver_branch = std::to_string(s.min_driver.major());
    // "For cutting-edge platforms such as NVIDIA Grace Hopper or NVIDIA
    // Blackwell, you must use the open-source GPU kernel modules" (NVIDIA
    // technical blog, "NVIDIA Transitions Fully Towards Open-Source GPU
    // Kernel Modules", 2024-07-17); the CUDA repository's nvidia-open-<branch>
    // installs them (NVIDIA driver installation guide, "Kernel Modules").
    // A confidential H100 (NCC...) too: Azure's onboarding for these sizes
    // (Azure/az-cgpu-onboarding, src/driver-package-list.txt) installs the
    // -open driver packages, since the GPU's confidential-computing mode is
    // driven by the open kernel modules.
    const bool open = cc.major() >= 10 || target.confidential;
    s.driver_package = (open ? "nvidia-open-" : "cuda-drivers-") + s.driver_branch;
    if (target.confidential && cc.major() < 10) {
      s.reasons.push_back(
          "confidential GPU: the open kernel modules (" + s.driver_package +
          "), as Azure/az-cgpu-onboarding installs for this size; the proprietary ones do not "
          "drive the GPU's confidential-computing mode");
    }
  }
  s.reasons.push_back("PyTorch " + s.pytorch.to_string() + " " + s.wheel_variant + " (" +
                      (s.wheel_stable ? "stable" : "experimental") +
                      "): the newest wheel built for compute capability " + cc.to_string() + " [" +
                      best.wheel->source + "]");
  s.reasons.push_back("CUDA " + s.cuda.to_string() +
                      " needs driver >= " + min_driver_for(*best.cuda, target.os)->to_string() +
                      " on " + os_name + " [" + best.cuda->source + "]");
  if (s.minor_version_compat) {
    s.warnings.push_back(
        "CUDA " + s.cuda.to_string() + " runs on " + fixed.by +
        " only through minor-version compatibility (driver >= " + s.min_driver.to_string() +
        "); some features (PTX JIT of newer code) "
        "need a newer driver");
  }
  if (!s.wheel_stable) {
    s.warnings.push_back("PyTorch " + s.pytorch.to_string() + " " + s.wheel_variant +
                         " is an experimental build");
  }
  for (const CudnnRelease& d : matrix.cudnn) {
    if (s.cuda >= d.cuda_min && s.cuda <= d.cuda_max && cc >= d.min_cc && cc <= d.max_cc) {
      s.cudnn = d.version;
      s.reasons.push_back("cuDNN " + d.version.to_string() + " covers CUDA " +
                          d.cuda_min.to_string() + "–" + d.cuda_max.to_string() +
                          " and compute capability " + d.min_cc.to_string() + "–" +
                          d.max_cc.to_string() + " [" + d.source + "]");
      break;
    }
  }
  if (!s.cudnn) {
    s.warnings.push_back("no cuDNN release in the matrix covers CUDA " + s.cuda.to_string() +
                         " on compute capability " + cc.to_string() +
                         "; the PyTorch wheel bundles its own");
  }
}

}  // namespace

Result<Stack> resolve_stack(const StackMatrix& matrix, const StackTarget& target,
                            const StackRequest& request) {
  const std::string os_name(catalog::to_string(target.os));
  // 1. Driver kind: AMD sizes have no rows in the matrix.
  if (target.driver == catalog::DriverKind::kAmd) {
    return failed_precondition(
        target.size + " has an AMD GPU (" + target.gpu_model +
        "): it needs AMD's driver and ROCm, and gpuplan's compatibility matrix has no ROCm rows "
        "(only NVIDIA driver/CUDA/cuDNN/PyTorch). Use AMD's GPU driver extension or the "
        "microsoft-dsvm:ubuntu-hpc:2204-rocm image and AMD's install guide.");
  }
  auto cc_parsed = Version::parse(target.compute_capability);
  if (!cc_parsed) {
    return failed_precondition("the compute capability of " + target.size + "'s GPU (" +
                               target.gpu_model + ") is unknown, so no CUDA can be chosen for it");
  }
  const Version cc = *cc_parsed;
  const std::string gpu = gpu_label(target, cc);

  Stack s;
  s.target = target;
  s.compute_capability = cc;

  // 2. Where the driver comes from, and whether its version is fixed.
  GPUPLAN_TRY(const FixedDriver fixed, choose_driver_source(matrix, target, os_name, s));
  // 3. A requested CUDA must exist and support the GPU's architecture.
  GPUPLAN_RETURN_IF_ERROR(check_request(matrix, target, request, cc, gpu));
  // 4. Filter the wheels, remembering why each was dropped; the best one.
  GPUPLAN_TRY(const Candidate best, choose_wheel(matrix, target, request, cc, gpu, os_name, fixed));
  // 5. Fill in the stack.
  fill_stack(matrix, target, best, cc, os_name, fixed, s);
  return s;
}

}  // namespace gpuplan::deploy
