// The GPU software compatibility matrix: which NVIDIA driver each CUDA release
// needs, which cuDNN and PyTorch wheels go with which CUDA and GPU
// architecture, which GRID driver Azure installs per size series, and the
// driver the Ubuntu-HPC image ships. Loaded from data/deploy/stack_matrix.csv
// (embedded; sources in data/deploy/SOURCES.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpuplan::deploy {

// A dotted version ("580.65.06", "12.8", "7.5") compared part by part;
// missing parts count as 0, so "580" < "580.65.06" and "12" == "12.0".
struct Version {
  std::vector<int> parts;
  std::string text;  // as written ("580.65.06" keeps its zero), "" when built from parts

  // kInvalidArgument unless the text is digits separated by single dots.
  [[nodiscard]] static Result<Version> parse(std::string_view text);
  [[nodiscard]] std::string to_string() const;
  [[nodiscard]] int major() const { return parts.empty() ? 0 : parts[0]; }
  [[nodiscard]] int minor() const { return parts.size() < 2 ? 0 : parts[1]; }
  [[nodiscard]] bool empty() const { return parts.empty(); }
  friend bool operator==(const Version& a, const Version& b);
  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
};

// A CUDA minor release and the drivers it needs (GA minimums).
struct CudaRelease {
  Version cuda;                               // "13.0"
  Version linux_min_driver;                   // "580.65.06"
  std::optional<Version> windows_min_driver;  // nullopt: NVIDIA lists none
  std::optional<Version> min_cc;              // lowest compute capability supported
  std::string notes;
  std::string source;
};

// Minor-version compatibility of a CUDA major family: any X.y app runs on
// drivers >= these (with a possibly limited feature set).
struct CudaFamily {
  int major = 0;
  Version linux_min_driver;
  std::optional<Version> windows_min_driver;
  std::string notes;
  std::string source;
};

struct CudnnRelease {
  Version version;   // "9.17.0"
  Version cuda_min;  // covered CUDA range, inclusive
  Version cuda_max;
  Version min_cc;
  Version max_cc;
  std::string notes;
  std::string source;
};

// One PyTorch wheel variant: release x CUDA build.
struct PytorchWheel {
  Version pytorch;     // "2.9"
  Version cuda;        // "12.8"
  bool stable = true;  // false: experimental
  Version min_cc;
  Version max_cc;
  std::string notes;
  std::string source;

  // "cu128"
  [[nodiscard]] std::string variant() const;
};

// The GRID driver Azure installs on a size series.
struct GridDriver {
  std::string series;                   // "NVadsA10_v5"
  std::string gpu;                      // shared vocabulary, "A10"
  std::optional<Version> linux_driver;  // nullopt: not in the data
  std::optional<Version> windows_driver;
  // status "pinned": the extension must be told to install exactly these
  // versions (settings.driverVersion), because its default, the newest GRID
  // branch, no longer supports the GPU (NVv3's M60: GRID 17.x dropped it,
  // hpccompute-gpu-windows.md). "" = the version the extension installs by
  // itself (or its documented minimum).
  bool pinned = false;
  // status "no-secure-boot-vtpm": Azure's driver setup for the series runs
  // its Linux GRID driver with Secure Boot and vTPM disabled (RTX PRO 6000
  // BSE v6: GRID v20 installed with -M open).
  bool no_secure_boot_vtpm = false;
  std::string notes;
  std::string source;
};

// The driver a marketplace image ships.
struct ImageDriver {
  std::string image;  // "ubuntu-hpc-2204"
  Version linux_driver;
  std::string notes;
  std::string source;
};

struct StackMatrix {
  std::vector<CudaRelease> cuda;  // newest first
  std::vector<CudaFamily> families;
  std::vector<CudnnRelease> cudnn;    // newest first
  std::vector<PytorchWheel> pytorch;  // newest release first, then newest CUDA
  std::vector<GridDriver> grid;
  std::vector<ImageDriver> images;

  [[nodiscard]] const CudaRelease* find_cuda(const Version& cuda) const;  // by major.minor
  [[nodiscard]] const CudaFamily* find_family(int major) const;
  [[nodiscard]] const ImageDriver* find_image(std::string_view image) const;
};

// Parses the matrix CSV. kInvalidArgument naming file:line: column on any bad
// cell (a version that is not dotted digits, an unknown table or status).
[[nodiscard]] Result<StackMatrix> parse_stack_matrix(std::string_view csv_text,
                                                     const std::string& file);

// The embedded matrix (data/deploy/stack_matrix.csv), parsed once.
// kInternal if the embedded data is broken (a build bug).
[[nodiscard]] Result<const StackMatrix*> embedded_stack_matrix();

}  // namespace gpuplan::deploy
