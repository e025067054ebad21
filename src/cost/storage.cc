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
//
// Blob storage: the dataset and the checkpoints live in a storage account
// for as long as the job runs. Azure bills Blob capacity per GB-month, at a
// price that depends on the access tier (hot, cool, cold, archive) and the
// redundancy (Azure Blob Storage pricing page; Microsoft Learn, "Access
// tiers for blob data": cool suits data "accessed or modified infrequently"
// and stored at least 30 days). gpuplan ships no Blob price — no listed
// figure with a source and a date was available to embed — so the price
// comes from --blob-usd-per-gb-month, or from a Retail Prices Storage page
// imported with `gpuplan catalog import retail-prices` (the General Block
// Blob v2 "<Tier> LRS Data Stored" meters, per region, graduated over the
// API's tierMinimumUnits bands; docs/catalog-import.md has the query). LRS
// is the assumption: locally redundant is the cheapest redundancy, and the
// data is a copy of a dataset kept elsewhere plus re-creatable checkpoints.
// Without either, the line says "no listed price" and leaves Blob out of
// the total rather than guess.
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

Result<BlobStorage> blob_storage(const Usage& u, std::string_view region) {
  BlobStorage b;
  b.gb = u.blob_gb;
  b.tier = u.blob_tier;
  if (!std::isfinite(u.blob_gb) || u.blob_gb < 0) {
    return invalid_argument("Blob storage cannot be negative", Where{"", 0, 0, "--blob-gb"});
  }
  if (u.blob_tier != "hot" && u.blob_tier != "cool") {
    return invalid_argument("Blob access tier '" + u.blob_tier + "': expected hot or cool",
                            Where{"", 0, 0, "--blob-tier"});
  }
  if (b.gb == 0) return b;
  const std::string what = strings::fixed(b.gb, b.gb < 10 ? 1 : 0) + " GB " + b.tier + " Blob" +
                           (u.blob_what.empty() ? "" : " (" + u.blob_what + ")");
  if (!u.blob_usd_per_gb_month) {
    const catalog::BlobPrice* listed = nullptr;
    for (const catalog::BlobPrice& p : u.blob_prices)
      if (p.region == region && p.tier == b.tier && p.redundancy == "LRS" && !p.bands.empty())
        listed = &p;
    if (listed) {
      b.priced = true;
      b.usd_per_month = catalog::blob_monthly_usd(*listed, b.gb);
      b.basis = what + " LRS x $" + strings::fixed(listed->bands.front().usd_per_gb_month, 4) +
                "/GB-month" +
                (listed->bands.size() > 1
                     ? " (lower rates above " + strings::fixed(listed->bands[1].from_gb, 0) + " GB)"
                     : "") +
                " = $" + strings::fixed(b.usd_per_month, 2) + "/month (" + listed->source +
                ", effective " + listed->as_of + ")";
      return b;
    }
    b.basis = what + ": no listed price" +
              (region.empty() || u.blob_prices.empty()
                   ? std::string()
                   : " in " + std::string(region) + " among the imported Blob prices") +
              ", not in the total (--blob-usd-per-gb-month prices it)";
    return b;
  }
  const double price = *u.blob_usd_per_gb_month;
  if (!std::isfinite(price) || price < 0) {
    return invalid_argument("a Blob price cannot be negative",
                            Where{"", 0, 0, "--blob-usd-per-gb-month"});
  }
  b.priced = true;
  b.usd_per_month = b.gb * price;
  b.basis = what + " x $" + strings::fixed(price, 4) + "/GB-month (" +
            (u.blob_price_source.empty() ? "given" : u.blob_price_source) + ")";
  return b;
}

}  // namespace gpuplan::cost
