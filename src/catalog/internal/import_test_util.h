// Test helpers shared by the importer tests (not part of the library).
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/internal/import_common.h"

namespace gpuplan::catalog::testing {

// The GPU sizes the fixtures in tests/data/azure/ use, as the catalog spells
// them (names and quota families copied from data/catalog/sizes.csv).
inline std::vector<VmSize> fixture_sizes() {
  auto size = [](std::string name, std::string family, std::string display, double gpus) {
    VmSize s;
    s.name = std::move(name);
    s.quota_family = std::move(family);
    s.quota_family_display = std::move(display);
    s.gpu_count = gpus;
    return s;
  };
  return {
      size("Standard_NC24ads_A100_v4", "StandardNCADSA100v4Family",
           "Standard NCADS_A100_v4 Family vCPUs", 1),
      size("Standard_NC40ads_H100_v5", "StandardNCadsH100v5Family",
           "Standard NCadsH100v5 Family vCPUs", 1),
      size("Standard_ND96isr_H100_v5", "standardNDSH100v5Family", "Standard NDSH100v5 Family vCPUs",
           8),
      size("Standard_NV6ads_A10_v5", "StandardNVADSA10v5Family", "Standard NVADSA10v5 Family vCPUs",
           0.1667),
      size("Standard_NC4as_T4_v3", "Standard NCASv3_T4 Family", "Standard NCASv3_T4 Family vCPUs",
           1),
  };
}

inline SizeFilter fixture_filter() { return SizeFilter::from_sizes(fixture_sizes()); }

inline std::string fixture(const std::string& name) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/tests/data/azure/" + name;
}

}  // namespace gpuplan::catalog::testing
