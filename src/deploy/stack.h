// The stack resolver: for a VM size (and optionally a requested PyTorch or
// CUDA version) choose the driver kind, driver, CUDA, cuDNN and PyTorch wheel
// that work together on that size — or refuse with the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/result.h"
#include "deploy/stack_matrix.h"

namespace gpuplan::deploy {

// Where the NVIDIA driver on the VM comes from.
enum class DriverSource {
  kCloudInit,  // gpuplan's cloud-init installs the pinned branch from NVIDIA's apt repository
  kExtension,  // Azure's NVIDIA GPU driver extension (Microsoft.HpcCompute) installs it
  kImage,      // the marketplace image ships it (Ubuntu-HPC)
};
[[nodiscard]] std::string_view to_string(DriverSource s);  // "cloud-init", "extension", "image"

// What the resolver needs to know about the machine.
struct StackTarget {
  std::string size;                // "Standard_NC40ads_H100_v5"
  std::string series;              // "NCads_H100_v5"
  std::string gpu_model;           // shared vocabulary, "H100-NVL"
  std::string architecture;        // "Hopper" ("" when unknown)
  std::string compute_capability;  // "9.0"; "gfx942" for AMD; "" when unknown
  catalog::DriverKind driver = catalog::DriverKind::kCuda;
  catalog::Os os = catalog::Os::kLinux;
  // Set when the image ships its own driver (the Ubuntu-HPC image for
  // multi-node InfiniBand): the name of an `image` row of the matrix.
  std::string image_with_driver;
  // A confidential-computing size (catalog::is_confidential): its GPU's
  // confidential mode is driven by the open GPU kernel modules.
  bool confidential = false;
};

// Builds a target from catalog facts. `gpu` may be null (then the compute
// capability is unknown and resolve_stack refuses NVIDIA sizes).
[[nodiscard]] StackTarget make_target(const catalog::VmSize& size, const catalog::Gpu* gpu,
                                      catalog::Os os, std::string image_with_driver = "");

// What the user asked for; empty fields mean "the newest that works".
struct StackRequest {
  std::optional<Version> pytorch;  // "2.9" (major.minor)
  std::optional<Version> cuda;     // "12.8" (major.minor)
};

struct Stack {
  StackTarget target;
  Version compute_capability;
  DriverSource driver_source = DriverSource::kCloudInit;
  // The lowest driver this stack runs on (for the chosen OS).
  Version min_driver;
  // Driver branch gpuplan installs (cloud-init: "580" → cuda-drivers-580);
  // "" when the extension or the image provides the driver.
  std::string driver_branch;
  // The package that installs it: "cuda-drivers-580", or "nvidia-open-580"
  // (open kernel modules) for Blackwell, which the proprietary modules do not
  // support; "" with driver_branch.
  std::string driver_package;
  // The driver known to be installed by the extension (GRID) or image; nullopt otherwise.
  std::optional<Version> provided_driver;
  // The version the driver extension must be told to install
  // (settings.driverVersion): set where its default, the newest GRID branch,
  // no longer supports the GPU (a "pinned" grid row: NVv3 on Windows, 538.46).
  std::optional<Version> pinned_driver;
  // The GRID row says the driver runs with Secure Boot and vTPM off (Linux).
  bool no_secure_boot_vtpm = false;
  Version cuda;  // toolkit major.minor
  // True when the CUDA runs on the provided driver only through minor-version
  // compatibility (driver below the release's GA minimum, above the family's).
  bool minor_version_compat = false;
  std::optional<Version> cudnn;  // nullopt: no cuDNN in the matrix covers this GPU and CUDA
  Version pytorch;               // "2.14"
  std::string wheel_variant;     // "cu130"
  bool wheel_stable = true;
  std::string pytorch_index_url;  // "https://download.pytorch.org/whl/cu130"
  // Why each choice was made, with the data it rests on.
  std::vector<std::string> reasons;
  std::vector<std::string> warnings;
};

// Resolves a stack. Errors:
//   kFailedPrecondition — the combination cannot work (AMD size: no ROCm rows;
//     CUDA 13 on a Volta/Pascal/Maxwell GPU; a GRID series whose driver version
//     is unknown; no PyTorch wheel fits); the message gives every reason.
//   kInvalidArgument — a requested PyTorch or CUDA version the matrix does not know.
[[nodiscard]] Result<Stack> resolve_stack(const StackMatrix& matrix, const StackTarget& target,
                                          const StackRequest& request);

// The --json form of a stack (schema gpuplan.stack/2) and a readable report.
[[nodiscard]] nlohmann::ordered_json to_json(const Stack& stack);
[[nodiscard]] std::string render_text(const Stack& stack);

// Architecture name for an NVIDIA compute capability ("7.0" → "Volta").
[[nodiscard]] std::string architecture_for_cc(const Version& cc);

}  // namespace gpuplan::deploy
