// Storage the plan prices and deploy builds.
//
// The data disk: one managed disk per VM for data and checkpoints. Deploy
// builds it as Premium SSD (storageAccountType Premium_LRS), which attaches
// to any premium-storage VM without an availability zone; Premium SSD v2 is
// cheaper per GiB but, in most regions with zones, attaches only to zonal
// VMs (Microsoft Learn, "Deploy a Premium SSD v2", Limitations), which
// deploy does not create. A Premium SSD is billed at the smallest tier
// whose capacity holds it (rates.csv disk_premium_ssd_tier_gib, the managed
// disks size table), so the plan prices that tier. data_disk() is the one
// function both sides call, so the disk priced is the disk built.
#include <cmath>

#include "core/strings.h"
#include "cost/cost.h"

namespace gpuplan::cost {

Result<DataDisk> data_disk(const Rates& rates, std::optional<double> gib) {
  DataDisk d;
  d.sku = "Premium_LRS";
  if (gib) {
    d.gib = *gib;
    d.source = "--data-disk-gib";
  } else {
    GPUPLAN_TRY(const Rate* r, rates.require("data_disk_gib"));
    d.gib = r->value;
    d.source = "data/cost/rates.csv data_disk_gib (" + r->source + ")";
  }
  if (!std::isfinite(d.gib) || d.gib < 0) {
    return invalid_argument("data disk size cannot be negative",
                            Where{"", 0, 0, "--data-disk-gib"});
  }
  if (d.gib == 0) return d;  // no data disk
  const Rate* best = nullptr;
  for (const Rate* r : rates.all_named("disk_premium_ssd_tier_gib")) {
    if (r->value >= d.gib && (!best || r->value < best->value)) best = r;
  }
  if (!best) {
    return invalid_argument(
        "a " + strings::fixed(d.gib, 0) + " GiB data disk is above the largest Premium SSD tier",
        Where{"", 0, 0, "--data-disk-gib"});
  }
  d.tier = best->key;
  d.tier_gib = best->value;
  return d;
}

}  // namespace gpuplan::cost
