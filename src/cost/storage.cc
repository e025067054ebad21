// Storage the plan prices and deploy builds, and each region's storage and
// transfer costs (region_costs: OS and data disks, egress, Blob).
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
#include <algorithm>
#include <cmath>

#include "core/format.h"
#include "core/strings.h"
#include "cost/internal/cost_text.h"

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
    return invalid_argument("Blob access tier '" + u.blob_tier + "': expected hot or cool" +
                                strings::did_you_mean(u.blob_tier, {"hot", "cool"}),
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
      std::vector<internal::Tier> bands;
      for (const auto& band : listed->bands) bands.push_back({band.from_gb, band.usd_per_gb_month});
      b.usd_per_month = internal::tiered(b.gb, bands);
      b.basis = what + " LRS x " + format::usd(listed->bands.front().usd_per_gb_month) +
                "/GB-month" +
                (listed->bands.size() > 1
                     ? " (lower rates above " + strings::fixed(listed->bands[1].from_gb, 0) + " GB)"
                     : "") +
                " = " + format::usd(b.usd_per_month) + "/month (" + listed->source +
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
  b.basis = what + " x " + format::usd(price) + "/GB-month (" +
            (u.blob_price_source.empty() ? "given" : u.blob_price_source) + ")";
  return b;
}

// ---- Disks, transfer and Blob of one region (region_costs) ----

Result<RegionCosts> region_costs(const Rates& rates, const Usage& u, std::string_view region) {
  RegionCosts rc;
  rc.region = std::string(region);
  if (u.data_disk_gib < 0 || u.egress_internet_gb < 0 || u.transfer_gb < 0) {
    return invalid_argument("disk sizes and transfer volumes cannot be negative");
  }
  // OS disk: one Premium SSD tier per VM.
  if (!u.os_disk_tier.empty()) {
    bool fb = false;
    const Rate* r = rates.find("disk_premium_ssd_usd_per_month", u.os_disk_tier, region, &fb);
    if (!r) {
      return invalid_argument("unknown Premium SSD tier '" + u.os_disk_tier +
                              "' for the OS disk (P4, P6, P10, P15, P20, P30, P40, P50, ...)");
    }
    rc.os_disk_usd_per_vm_month = r->value;
    rc.os_disk_basis = "Premium SSD " + u.os_disk_tier + " " + format::usd(r->value) + "/month (" +
                       internal::cite(*r, fb, region) + ")";
  }
  // Data disk: the Premium SSD deploy builds, billed at its tier (data_disk()).
  if (u.data_disk_gib > 0) {
    GPUPLAN_TRY(DataDisk disk, data_disk(rates, u.data_disk_gib));
    bool fb = false;
    const Rate* r = rates.find("disk_premium_ssd_usd_per_month", disk.tier, region, &fb);
    if (!r) return internal_error("rates.csv: no price for Premium SSD tier " + disk.tier);
    rc.data_disk_usd_per_vm_month = r->value;
    rc.data_disk_basis = "Premium SSD " + strings::fixed(disk.gib, 0) + " GiB (" + disk.sku +
                         ", billed as " + disk.tier + " " + strings::fixed(disk.tier_gib, 0) +
                         " GiB) " + format::usd(r->value) + "/month (" +
                         internal::cite(*r, fb, region) + ")";
  }
  // Transfer: internet egress on the tier ladder, inter-region by geography.
  std::vector<std::string> parts;
  if (u.egress_internet_gb > 0) {
    std::vector<internal::Tier> tiers;
    for (const Rate* r : rates.all_named("egress_internet_usd_per_gb")) {
      auto from = strings::parse_double(r->key);
      if (!from)
        return internal_error("rates.csv: egress tier key '" + r->key + "' is not a number");
      tiers.push_back({*from, r->value});
    }
    std::sort(tiers.begin(), tiers.end(),
              [](const internal::Tier& a, const internal::Tier& b) { return a.from < b.from; });
    double usd = internal::tiered(u.egress_internet_gb, tiers);
    rc.egress_usd += usd;
    parts.push_back(strings::fixed(u.egress_internet_gb, 0) +
                    " GB to the internet = " + format::usd(usd) +
                    " (first 100 GB free, then $0.087/GB to 10 TB; third-party rates)");
  }
  if (u.transfer_gb > 0 && !u.data_region.empty()) {
    std::string from = strings::to_lower(u.data_region);
    std::string to = strings::to_lower(region);
    const Rate* r = nullptr;
    std::string how;
    if (from == to) {
      GPUPLAN_TRY(r, rates.require("egress_same_region_usd_per_gb"));
      how = "same region";
    } else {
      std::string g1 = rates.geography(from), g2 = rates.geography(to);
      std::string key = (!g1.empty() && g1 == g2) ? g1 : "inter-continent";
      GPUPLAN_TRY(r, rates.require("egress_inter_region_usd_per_gb", key));
      how = key == "inter-continent" ? "between continents" : "within " + key;
    }
    double usd = u.transfer_gb * r->value;
    rc.egress_usd += usd;
    parts.push_back(strings::fixed(u.transfer_gb, 0) + " GB " + from + " -> " + to + " (" + how +
                    ") x " + format::usd(r->value) + "/GB = " + format::usd(usd) + " (" +
                    r->source + ", " + r->confidence + ")");
  }
  for (size_t i = 0; i < parts.size(); ++i) rc.egress_basis += (i ? "; " : "") + parts[i];
  GPUPLAN_TRY(rc.blob, blob_storage(u, region));
  return rc;
}

}  // namespace gpuplan::cost
