// The Azure GPU catalog: sizes, GPUs, offers (size x region x OS x pricing)
// with provenance, quota and subscription restrictions.
//
// CONTRACT for every other module (estimate, cost, plan, simulate, deploy,
// server): these types and Catalog's public methods. Internals (loading,
// indexes, the SQLite store, importers) are the catalog module's own.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpuplan::catalog {

// Shared vocabulary (DESIGN.md): payg, spot, reserved-1y, reserved-3y,
// savings-1y, savings-3y.
enum class Pricing { kPayg, kSpot, kReserved1y, kReserved3y, kSavings1y, kSavings3y };
inline constexpr Pricing kAllPricing[] = {Pricing::kPayg,       Pricing::kSpot,
                                          Pricing::kReserved1y, Pricing::kReserved3y,
                                          Pricing::kSavings1y,  Pricing::kSavings3y};
enum class Os { kLinux, kWindows };
// The driver a size needs: NVIDIA data-center (CUDA), NVIDIA GRID/vGPU, or AMD.
enum class DriverKind { kCuda, kGrid, kAmd };
// Computed from a size's dated facts and today's date (VmSize, Catalog::today).
enum class SizeStatus { kCurrent, kPreview, kRetiring, kRetired };
// Whether anyone can deploy in a region, or only customers Microsoft admits
// (the regions list's "access restricted" regions: in-country disaster
// recovery, a business need in that country).
enum class RegionAccess { kOpen, kRestricted };

[[nodiscard]] std::string_view to_string(Pricing p);
[[nodiscard]] std::string_view to_string(Os os);
[[nodiscard]] std::string_view to_string(DriverKind k);    // "cuda", "grid", "amd"
[[nodiscard]] std::string_view to_string(SizeStatus s);    // "current", ...
[[nodiscard]] std::string_view to_string(RegionAccess a);  // "open", "restricted"
// kInvalidArgument naming the accepted spellings.
[[nodiscard]] Result<Pricing> parse_pricing(std::string_view s);
// kInvalidArgument at `where` (the flag, key or parameter) unless linux or windows.
[[nodiscard]] Result<Os> parse_os(std::string_view s, Where where = {});
// Term of a reserved or savings-plan commitment in hours (8,760 per year); 0 otherwise.
[[nodiscard]] double commitment_hours(Pricing p);

// One GPU model, keyed by the shared vocabulary ("H100-SXM", "A10", ...).
// Rates are dense (no sparsity), per GPU; 0 when the GPU has no such unit or
// the figure is unknown (then `verified` is false and `notes` says so).
struct Gpu {
  std::string model;               // "H100-SXM"
  std::string vendor;              // "NVIDIA" | "AMD"
  std::string architecture;        // "Hopper"
  std::string compute_capability;  // "9.0", "gfx942"
  double fp32_tflops = 0;
  double tf32_tflops = 0;
  double fp16_tflops = 0;  // tensor, dense
  double bf16_tflops = 0;
  double fp8_tflops = 0;
  double int8_tops = 0;
  double memory_gib = 0;        // per physical GPU
  double memory_bw_gbs = 0;     // GB/s
  double interconnect_gbs = 0;  // NVLink/Infinity Fabric per GPU, 0 = PCIe only
  double tdp_w = 0;
  // Maximum achievable matmul FLOPS (the best of a brute-force search of
  // shapes) as a share of the peak, 16-bit and FP8, where someone measured
  // it (data/catalog/gpus.csv names where); 0 = not measured.
  double matmul_efficiency = 0;
  double fp8_matmul_efficiency = 0;
  bool verified = true;  // false when any figure above is UNVERIFIED upstream
  std::string notes;
  std::string source;
};

struct VmSize {
  std::string name;           // "Standard_NC40ads_H100_v5"
  std::string series;         // "NCads_H100_v5"
  std::string family_letter;  // "NC" | "ND" | "NV" | "NG"
  // Dated facts (data/catalog/sizes.csv, each with status_source); "" = none announced.
  std::string retire_date;       // announced retirement date, "2026-09-30"
  std::string reservations_end;  // last day reservations could be bought is the day before
  bool preview = false;          // the source lists the size as a public preview
  std::string ga_date;           // general availability, when a preview size has one
  std::string status_source;     // where the dates come from; "" = `source`
  // Computed from the facts and today's date when a catalog is loaded
  // (internal::apply_status): retired on/after retire_date, retiring before
  // it, preview until ga_date (if any), else current. A retired or preview
  // size, or one on/after reservations_end, is not reservable: it gets no
  // reserved or savings-plan offer, listed or estimated.
  SizeStatus status = SizeStatus::kCurrent;
  std::string status_date;  // = retire_date
  bool reservable = true;
  int vcpus = 0;
  double memory_gib = 0;
  std::string gpu_model;       // shared vocabulary, key into gpus()
  double gpu_count = 0;        // fractional for vGPU slices (NV6ads_A10_v5 = 0.1667)
  double gpu_memory_gib = 0;   // total the VM gets
  bool nvlink = false;         // GPUs in the VM linked by NVLink/Infinity Fabric
  double infiniband_gbps = 0;  // per VM scale-out; 0 = none
  double temp_disk_gib = 0;
  std::string quota_family;          // API name, "standardNCADSH100v5Family"
  std::string quota_family_display;  // list-usage localizedValue, may be ""
  DriverKind driver = DriverKind::kCuda;
  bool encryption_at_host = true;
  std::string source;
  std::string notes;
};

// Why a size gets no reserved or savings-plan offer ("retired 2026-09-30: no
// reservations", "reservation sales ended 2025-11-02", "preview: no
// reservations"); "" when it is reservable.
[[nodiscard]] std::string reservation_note(const VmSize& s);

// A confidential-computing size (the NCC series: CPU and GPU in one trusted
// execution environment, MicrosoftDocs nccadsh100v5-series.md). The planner
// offers it only when asked; deploy builds it as a Confidential VM.
[[nodiscard]] bool is_confidential(const VmSize& s);
// Whether a workload's constraints.series entry names `s`: its family
// letter ("NV") or its series ("NVadsA10v5"), ignoring case.
[[nodiscard]] bool names_series(const std::string& want, const VmSize& s);
// Whether a constraints.series list admits `s`: empty, or an entry names it.
[[nodiscard]] bool series_admits(const std::vector<std::string>& series, const VmSize& s);

// An Arm64 size: the GB200 and GB300 superchips pair each two Blackwell GPUs
// with an NVIDIA Grace (Arm Neoverse V2) CPU (Microsoft Learn, ND GB200 v6
// and ND GB300 v6 series). The Windows Server images gpuplan prices and
// deploys are x64 only, so these sizes get no Windows offer.
[[nodiscard]] bool is_arm64(const VmSize& s);

namespace internal {
struct PricingRule;  // a row of data/catalog/pricing_rules.csv (catalog_internal.h)
}  // namespace internal

// How an estimated price was derived: the rule (shared with the catalog that
// made it, so a copy outlives the catalog) and the inputs it was applied to.
// The human-readable text is produced only when asked for: a load derives
// ~8k estimates and a command prints a handful, so building every text at
// load time was 40 % of the load (bench/bench_catalog.cc).
class EstimateRule {
 public:
  // Which derivation (catalog_pricing.cc's essay):
  //   kWindowsPayg        linux payg + windows licence per vCPU
  //   kWindowsSpot        linux spot + windows spot licence per vCPU
  //   kCommitment         linux payg x (1 - discount) for reserved/savings
  //   kWindowsCommitment  linux commitment price + payg windows licence
  enum class Kind : unsigned char {
    kNone,
    kWindowsPayg,
    kWindowsSpot,
    kCommitment,
    kWindowsCommitment
  };

  // No rule: a listed price. text() is "".
  EstimateRule() = default;
  // `base_usd_per_hour` is the price the rule is applied to (linux payg,
  // linux spot, or the linux commitment price for kWindowsCommitment);
  // `pricing` the commitment for kCommitment/kWindowsCommitment;
  // `base_listed` whether that linux commitment price was listed
  // (kWindowsCommitment only). `rule` must not be null.
  EstimateRule(Kind kind, std::shared_ptr<const internal::PricingRule> rule,
               double base_usd_per_hour, int vcpus, Pricing pricing, bool base_listed);

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] bool empty() const { return kind_ == Kind::kNone; }
  // The rule as the user reads it: base price, rate, scope and source, e.g.
  // "linux payg $6.98 x (1 - 34.6%) reserved-1y discount, default (SOURCE)".
  // "" when empty(). Builds a new string on every call.
  [[nodiscard]] std::string text() const;

 private:
  std::shared_ptr<const internal::PricingRule> rule_;
  double base_usd_per_hour_ = 0;
  int vcpus_ = 0;
  Kind kind_ = Kind::kNone;
  Pricing pricing_ = Pricing::kPayg;
  bool base_listed_ = false;
};

// A price: one size in one region under one OS and pricing model.
struct Offer {
  std::string size;
  std::string region;
  Os os = Os::kLinux;
  Pricing pricing = Pricing::kPayg;
  std::optional<double> usd_per_hour;  // per VM; nullopt = no listed price
  std::string source;  // "Azure Retail Prices API, 2026-05-20 (...)", the publisher first
  std::string as_of;   // YYYY-MM-DD: effective date, else the snapshot's
  // When the price was read from its source, YYYY-MM-DD: the snapshot date of
  // the embedded data, the import date of a store's price. A price's age
  // (freshness.h) counts from here: an effectiveStartDate years back is an
  // unchanged price, not a stale one. An estimate has its base price's date.
  std::string retrieved;
  bool estimated = false;  // derived by a rule, not listed
  EstimateRule rule;       // the rule when estimated; rule.text() to print it
  // No price because Azure does not sell this (size, pricing) at all (a
  // not_offered pricing rule); `source` says why. False for a price that is
  // merely unknown.
  bool not_offered = false;
};

// vCPU quota for one region: the regional total, one VM family, or the spot pool.
struct Quota {
  std::string region;
  std::string family;  // API or display name of the family; "" for regional total;
                       // "lowPriorityCores" for the spot pool
  double limit = 0;
  double used = 0;
  std::string source;
  std::string as_of;
};

// A size not offered to this subscription in a region (from list-skus).
struct Restriction {
  std::string size;
  std::string region;
  std::string reason;              // "NotAvailableForSubscription"
  std::vector<std::string> zones;  // restricted zones; empty = whole region
};

// Azure's spot eviction-rate band for a size in a region (Resource Graph
// SpotResources, type microsoft.compute/skuspotevictionrate/location,
// properties.evictionRate): "0-5", "5-10", "10-15", "15-20" or "20+" percent.
// Azure: "Eviction rates are quoted per hour. For example, an eviction rate of
// 10% means a VM has a 10% chance of being evicted within the next hour"
// (MicrosoftDocs/azure-compute-docs articles/virtual-machines/spot-vms.md,
// ms.date 08/05/2024); cost::band_rates() turns a band into rates per hour.
enum class EvictionBand { k0To5, k5To10, k10To15, k15To20, k20Plus };
inline constexpr EvictionBand kAllEvictionBands[] = {EvictionBand::k0To5, EvictionBand::k5To10,
                                                     EvictionBand::k10To15, EvictionBand::k15To20,
                                                     EvictionBand::k20Plus};
[[nodiscard]] std::string_view to_string(EvictionBand b);  // "0-5", ..., "20+"
// Exactly one of Azure's five spellings; nullopt for anything else.
[[nodiscard]] std::optional<EvictionBand> parse_eviction_band(std::string_view s);
// Percent of VMs evicted within an hour at the band's edges; the open band
// "20+" has no upper edge (nullopt).
[[nodiscard]] double band_low_percent(EvictionBand b);
[[nodiscard]] std::optional<double> band_high_percent(EvictionBand b);

// The imported band of one size in one region.
struct SpotEviction {
  std::string size;
  std::string region;
  EvictionBand band = EvictionBand::k0To5;
  std::string source;  // "spot: FILE" (the import)
  std::string as_of;   // YYYY-MM-DD: the day the band was read from Azure
};

// A Blob capacity price from an imported Retail Prices Storage page
// (serviceName "Storage", productName "General Block Blob v2", meterName
// "<Tier> <Redundancy> Data Stored", unitOfMeasure "1 GB/Month"): one region,
// access tier and redundancy, with its graduated volume bands (the API's
// tierMinimumUnits: the first 50 TB, the next 450 TB, ...).
struct BlobPrice {
  struct Band {
    double from_gb = 0;  // tierMinimumUnits: the band starts above this many GB
    double usd_per_gb_month = 0;
  };
  std::string region;
  std::string tier;         // "hot", "cool", "cold", "archive"
  std::string redundancy;   // "LRS", "ZRS", "GRS", "RA-GRS", "GZRS", "RA-GZRS"
  std::vector<Band> bands;  // ascending from_gb, the first at 0 (graduated: cost/storage.cc)
  std::string as_of;        // YYYY-MM-DD: effectiveStartDate of the newest band
  std::string source;       // "Azure Retail Prices API, imported DATE (FILE)"
};

// A listing query (`gpuplan catalog`, the server's catalog route).
// Sort orders: price and gpu-price ascending (rows without a price last),
// size and region alphabetical, gpu-memory and gpus descending; ties by
// size name then region.
enum class CatalogSort { kPrice, kGpuPrice, kSize, kRegion, kGpuMemory, kGpus };
inline constexpr CatalogSort kAllCatalogSorts[] = {CatalogSort::kPrice,     CatalogSort::kGpuPrice,
                                                   CatalogSort::kSize,      CatalogSort::kRegion,
                                                   CatalogSort::kGpuMemory, CatalogSort::kGpus};
[[nodiscard]] std::string_view to_string(CatalogSort s);  // "price", "gpu-price", ...
// kInvalidArgument naming the accepted spellings.
[[nodiscard]] Result<CatalogSort> parse_catalog_sort(std::string_view s);

struct CatalogQuery {
  // Series names ("NCads_H100_v5") or family letters ("NC", "ND", "NV",
  // "NG"); a size matches when any entry does. Case-insensitive. Empty = all.
  std::vector<std::string> series;
  // A GPU model in the shared vocabulary, or a prefix of one ending at a '-'
  // ("H100" matches H100-SXM and H100-NVL; "A10" matches A10 only).
  // Case-insensitive. Empty = all.
  std::string gpu;
  std::vector<std::string> regions;  // empty = every region
  // GPU memory per GPU the VM can use: gpu_memory_gib / gpu_count for whole
  // GPUs, the VM's whole share for fractional ones.
  double min_gpu_memory_gib = 0;
  double min_total_gpu_memory_gib = 0;  // the VM's total GPU memory
  std::optional<double> min_gpus;       // gpu_count bounds, inclusive
  std::optional<double> max_gpus;
  std::optional<double> max_usd_per_hour;  // when set, rows without a price are dropped
  Pricing pricing = Pricing::kPayg;
  Os os = Os::kLinux;
  bool include_retired = false;
  bool include_restricted = false;          // sizes list-skus denies this subscription
  bool include_restricted_regions = false;  // access-restricted regions (RegionAccess)
  CatalogSort sort = CatalogSort::kPrice;
};

// One row of a listing: a size in a region under the query's pricing and OS.
struct CatalogRow {
  const VmSize* size = nullptr;
  std::string region;                  // "" for a size no price source places in any region
  const Offer* offer = nullptr;        // nullptr when there is no offer for this pricing/OS here
  std::optional<double> usd_per_hour;  // the offer's price, nullopt when not listed
  std::optional<double> usd_per_gpu_hour;      // usd_per_hour / gpu_count
  std::optional<double> quota_headroom_vcpus;  // nullopt when no quota was imported
  bool restricted = false;                     // only with include_restricted
  RegionAccess region_access =
      RegionAccess::kOpen;  // kRestricted only with include_restricted_regions
  std::string note;         // why there is no price ("spot price unknown", ...)
};

// One region for `gpuplan regions`.
struct RegionSummary {
  std::string region;
  RegionAccess access = RegionAccess::kOpen;
  std::vector<std::string> gpu_models;         // sorted, from non-retired sizes offered there
  int sizes = 0;                               // non-retired sizes offered there
  std::optional<double> total_headroom_vcpus;  // regional total limit - used, when imported
  std::optional<double> spot_headroom_vcpus;   // low-priority pool, when imported
  // The most vCPUs of any one GPU size family offered there that can still
  // start (its family's headroom, capped by the regional total); nullopt
  // when no GPU family's quota was imported. The regional total alone once
  // showed 100 vCPUs free where every GPU family's quota was 0.
  std::optional<double> gpu_headroom_vcpus;
};

// Today's date for statuses and price ages, "YYYY-MM-DD" (UTC): the
// environment variable GPUPLAN_TODAY when set (tests, "what if" runs), else
// the system clock. kInvalidArgument naming GPUPLAN_TODAY when it is not a
// valid date.
[[nodiscard]] Result<std::string> today();
// Days from `from` to `to` ("YYYY-MM-DD" each); nullopt when either is not a date.
[[nodiscard]] std::optional<int> days_between(std::string_view from, std::string_view to);
// The embedded catalog's own dates and source, read without loading it
// (`gpuplan --version`): e.g. "prices 2026-05-20 (Azure Retail Prices API, ...),
// facts 2026-12-02".
[[nodiscard]] std::string embedded_catalog_version();

// The queryable catalog. Cheap to copy-construct? No: pass by const&.
// Thread-safe for concurrent const use.
class Catalog {
 public:
  // The embedded default (compiled into the binary): sizes, GPUs, offers
  // with estimated prices filled in by the rules in data/. Never fails on a
  // correct build (errors are bugs in data/, reported as kInternal).
  // Statuses are computed for today's date (catalog::today(): $GPUPLAN_TODAY
  // or the clock); kInvalidArgument when GPUPLAN_TODAY is not a date.
  [[nodiscard]] static Result<std::unique_ptr<Catalog>> load_embedded();
  // The same for a given date, "YYYY-MM-DD" (kInvalidArgument otherwise).
  [[nodiscard]] static Result<std::unique_ptr<Catalog>> load_embedded_at(const std::string& today);
  // The embedded default overlaid with a store's imports (newest listed price
  // wins; listed beats estimated). kUnavailable if the store can't be opened.
  [[nodiscard]] static Result<std::unique_ptr<Catalog>> load(const std::string& db_path);
  [[nodiscard]] static Result<std::unique_ptr<Catalog>> load_at(const std::string& db_path,
                                                                const std::string& today);
  // A catalog built from parts (tests, random catalogs for the planner).
  [[nodiscard]] static std::unique_ptr<Catalog> from_parts(
      std::vector<Gpu> gpus, std::vector<VmSize> sizes, std::vector<Offer> offers,
      std::vector<Quota> quotas = {}, std::vector<Restriction> restrictions = {},
      std::vector<SpotEviction> spot = {});

  // The date statuses were computed for, "YYYY-MM-DD" ("" for from_parts).
  [[nodiscard]] const std::string& today() const;
  // Access to a region: kRestricted for the access-restricted regions of
  // data/catalog/regions.csv, kOpen for every other (and unknown) region.
  [[nodiscard]] RegionAccess region_access(std::string_view region) const;
  // Where the access fact comes from ("" when the region is not listed).
  [[nodiscard]] std::string region_access_source(std::string_view region) const;
  // Bad input unless `region` is an Azure region (data/catalog/regions.csv,
  // Microsoft Learn's regions list): "'eastsu' is not an Azure region; did
  // you mean 'eastus'?" at `where`. A catalog without the list (from_parts)
  // accepts every name.
  [[nodiscard]] Status check_region_name(std::string_view region, const Where& where) const;
  // check_region_name, then kFailedPrecondition (exit 1) when the region is
  // real but the catalog has no GPU size there.
  [[nodiscard]] Status check_gpu_region(std::string_view region, const Where& where) const;

  [[nodiscard]] const std::vector<VmSize>& sizes() const;
  [[nodiscard]] const std::vector<Gpu>& gpus() const;
  [[nodiscard]] const VmSize* find_size(
      std::string_view name) const;  // case-insensitive; "NC40ads_H100_v5" also matches
  [[nodiscard]] const Gpu* find_gpu(std::string_view model) const;
  // A GPU as others name it: the catalog's name (find_gpu), or a vendor's,
  // a benchmark's or NVML's ("NVIDIA H200-SXM-141GB", "H100 SXM 80GB",
  // "NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-32GB") when its chip, part and
  // memory leave one catalog GPU. kNotFound naming the candidates when they
  // leave several ("H100": the NVL or the SXM part), or none.
  [[nodiscard]] Result<const Gpu*> resolve_gpu(std::string_view name) const;
  // Every region with at least one offer, sorted.
  [[nodiscard]] const std::vector<std::string>& regions() const;
  // Regions where a size has any offer (priced or not), sorted.
  [[nodiscard]] std::vector<std::string> regions_for(std::string_view size) const;
  // The winning offer for (size, region, os, pricing), or nullptr if the
  // size is not offered there. The offer may have no price (usd_per_hour nullopt).
  [[nodiscard]] const Offer* offer(std::string_view size, std::string_view region, Os os,
                                   Pricing pricing) const;
  // All winning offers (one per key).
  [[nodiscard]] const std::vector<Offer>& offers() const;

  // Quota: vCPUs still free for this size's family in a region, the lesser of
  // the family and regional headroom (spot: the low-priority pool and the
  // regional total). nullopt when no quota was imported for the region, or
  // the import has no row for the size's family (spot: no low-priority row).
  [[nodiscard]] std::optional<double> quota_headroom_vcpus(const VmSize& size,
                                                           std::string_view region,
                                                           bool spot) const;
  [[nodiscard]] const std::vector<Quota>& quotas() const;
  // True when list-skus said this size is unavailable to the subscription
  // in the region (whole region, not just some zones).
  [[nodiscard]] bool restricted(std::string_view size, std::string_view region) const;
  [[nodiscard]] const std::vector<Restriction>& restrictions() const;
  // The imported spot eviction band of `size` in `region` (newest import),
  // or nullptr when none was imported: the risk is then unknown.
  [[nodiscard]] const SpotEviction* spot_eviction(std::string_view size,
                                                  std::string_view region) const;
  [[nodiscard]] const std::vector<SpotEviction>& spot_evictions() const;
  // Imported Blob capacity prices (newest import per region, tier and
  // redundancy); empty when none was imported. cost::blob_storage() picks
  // the option's region's.
  [[nodiscard]] const std::vector<BlobPrice>& blob_prices() const;
  // Zones list-skus offers the size in within a region; empty when unknown
  // (nothing imported) or when the size has no zones there.
  [[nodiscard]] std::vector<std::string> zones(std::string_view size,
                                               std::string_view region) const;

  // The rows of a listing, filtered and sorted as the query says. kNotFound
  // (with a "did you mean") for an unknown GPU model, series or region.
  [[nodiscard]] Result<std::vector<CatalogRow>> query(const CatalogQuery& q) const;
  // Every region with an offer, with its GPU models and quota headroom;
  // access-restricted regions only when asked for.
  [[nodiscard]] std::vector<RegionSummary> region_summaries(
      bool include_restricted_regions = false) const;

  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

 private:
  Catalog();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuplan::catalog
