// The cost model: what running `count` VMs of one size in one region under one
// pricing model for some hours really costs, line by line, with the source of
// every rate. docs/cost.md explains each line and cost.cc derives the
// formulas.
//
// CONTRACT for plan, simulate, server and cli: the types and free functions
// below. The rates come from data/cost/rates.csv (compiled in) and the VM
// prices from the catalog; nothing here invents a price.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/result.h"

namespace gpuplan::cost {

// One row of data/cost/rates.csv: a named rate, optionally keyed (a disk tier,
// an egress tier, a geography) and regional ("all" when it applies everywhere).
struct Rate {
  std::string name;
  std::string key;
  std::string region;
  double value = 0;
  std::string unit;
  std::string as_of;
  std::string confidence;  // listed | derived | docs | third-party | estimated | default
  std::string source;
  std::string notes;
};

// The rate table plus the region -> geography map (data/cost/regions.csv).
// Immutable after construction; thread-safe for const use.
class Rates {
 public:
  // The compiled-in tables. kInternal when they do not parse (a build bug).
  [[nodiscard]] static Result<Rates> load_embedded();
  // Parses the two CSV documents. kInvalidArgument naming file, line and column
  // for a missing column, a non-numeric value or a negative rate.
  [[nodiscard]] static Result<Rates> parse(std::string_view rates_csv, std::string_view regions_csv,
                                           const std::string& rates_file = "rates.csv",
                                           const std::string& regions_file = "regions.csv");

  // The rate for (name, key) in `region`; falls back to region "all", then to
  // "eastus" (the region with the most rows). nullptr when none exists.
  // `*fell_back` (when given) is set to true when the row is not for `region`
  // or "all".
  [[nodiscard]] const Rate* find(std::string_view name, std::string_view key = "",
                                 std::string_view region = "all", bool* fell_back = nullptr) const;
  // Like find() but kInternal naming the missing rate (the data is compiled in).
  [[nodiscard]] Result<const Rate*> require(std::string_view name, std::string_view key = "",
                                            std::string_view region = "all",
                                            bool* fell_back = nullptr) const;
  // All rows named `name` (e.g. the egress tiers), in file order.
  [[nodiscard]] std::vector<const Rate*> all_named(std::string_view name,
                                                   std::string_view region = "all") const;
  // "north-america", "europe", "asia", "middle-east-africa", "south-america";
  // "" for a region not in regions.csv.
  [[nodiscard]] std::string geography(std::string_view region) const;
  [[nodiscard]] const std::vector<Rate>& rows() const { return rows_; }

 private:
  std::vector<Rate> rows_;
  std::vector<std::pair<std::string, std::string>> geography_;  // region -> geography
};

// How spot evictions are modelled. Defaults come from rates.csv.
struct EvictionModel {
  double rate_per_hour = 0.05;             // evictions per VM-hour (expected case)
  double rate_high_per_hour = 0.20;        // for the high end of the range
  double restart_hours = 0.25;             // per eviction: reallocate, boot, reload
  double checkpoint_interval_hours = 1.0;  // half of it is lost per eviction on average
  // True when the VMs run in lock-step (data/tensor parallel training): one
  // eviction stops all of them, so the job's eviction rate is count x rate.
  bool gang = true;
  // False for serving: the service runs for a fixed duration; an eviction
  // drops capacity (an SLO risk) but does not stretch the hours.
  bool stretches_hours = true;
  // Where the two rates come from, for the cost line: "" for the defaults,
  // else e.g. "Azure band 10-15 % (spot: FILE, 2026-11-30)" (apply_band()).
  std::string basis;
};

// Spot eviction rates per VM-hour from an Azure eviction-rate band
// (spot_eviction.cc derives them; docs/cost.md): Azure quotes a band as the
// chance that a VM is evicted within the next hour, and a Poisson process of
// rate r evicts within an hour with probability 1 - exp(-r), so
// r = -ln(1 - p). The expected rate is at the band's middle, the high one at
// its upper edge; "20+" has no upper edge and is taken as 20-25 %
// (`open_ended` true; the output says so).
struct BandRates {
  double low_per_hour = 0;       // at the band's lower edge
  double expected_per_hour = 0;  // at its middle
  double high_per_hour = 0;      // at its upper edge
  bool open_ended = false;       // "20+"
};
[[nodiscard]] BandRates band_rates(catalog::EvictionBand band);
// The eviction rate per hour that evicts within one hour with probability
// `p` in [0, 1): -ln(1 - p).
[[nodiscard]] double rate_from_hourly_probability(double p);
// Sets the model's expected and high rates from the band and its basis text
// from `e` (the imported band with its source and date).
void apply_band(EvictionModel& model, const catalog::SpotEviction& e);

// What is being costed besides the VM price. Every field has a default in
// rates.csv (see default_usage()).
struct Usage {
  int count = 1;              // VMs
  double work_hours = 0;      // hours of work on all VMs in parallel (the estimator's)
  double setup_hours = 0.25;  // per launch: provisioning, driver, data staging (billed idle)
  // Reserved / savings plan: fraction of the commitment's term that is used
  // (by this and any other work), in (0, 1]. The term is paid in full, so the
  // cost of the hours used is rate x hours / utilization. nullopt: the
  // commitment is bought for this work alone (utilization = billed hours /
  // term hours, i.e. the whole term is paid).
  std::optional<double> utilization;
  catalog::Os os = catalog::Os::kLinux;
  bool hybrid_benefit = false;
  double billing_granularity_seconds = 1;
  double billing_minimum_seconds = 300;  // per VM launch
  std::string os_disk_tier = "P10";      // Premium SSD tier, one per VM; "" = none
  double data_disk_gib = 512;            // Premium SSD (data_disk()) per VM; 0 = none
  double egress_internet_gb = 0;         // to the internet, this month
  double transfer_gb = 0;                // moved from data_region to the compute region
  std::string data_region;               // "" = data already where the VMs run
  // Blob storage for the dataset and checkpoints while the job runs
  // (blob_storage(), storage.cc). 0 GB = none.
  double blob_gb = 0;
  std::string blob_what;          // what the GB are, for the cost line
  std::string blob_tier = "hot";  // "hot" | "cool" access tier
  // Per GB-month for the tier; nullopt = no listed price: the line says so
  // and the total leaves it out (never a made-up number).
  std::optional<double> blob_usd_per_gb_month;
  std::string blob_price_source;  // where the price came from
  // Imported Blob capacity prices (Catalog::blob_prices()): used for the
  // compute region's hot/cool LRS price when blob_usd_per_gb_month is unset.
  std::vector<catalog::BlobPrice> blob_prices;
  EvictionModel eviction;
};

// The data disk each VM gets: what `plan` prices and what `deploy` builds,
// from this one function so the two always agree (storage.cc says why it is
// Premium SSD, Premium_LRS). `gib` overrides rates.csv's data_disk_gib.
struct DataDisk {
  std::string sku;      // ARM storageAccountType: "Premium_LRS"
  std::string tier;     // the billed tier, the smallest that holds gib ("P20"); "" when gib is 0
  double gib = 0;       // size to create; 0 = no data disk
  double tier_gib = 0;  // the tier's capacity
  std::string source;   // where gib came from
};
// kInvalidArgument (field --data-disk-gib) for a negative size or one above
// the largest tier; kInternal when rates.csv lacks data_disk_gib.
[[nodiscard]] Result<DataDisk> data_disk(const Rates& rates, std::optional<double> gib);

// Blob storage for the dataset and checkpoints: the GB, the access tier and
// the monthly bill when a price is known. Azure bills Blob capacity per
// GB-month (Azure Blob Storage pricing page; hot and cool tiers differ), so
// the cost is usd_per_month x wall hours / 730. Without a price (`priced`
// false) usd_per_month is 0 and `basis` says "no listed price".
struct BlobStorage {
  double gb = 0;
  std::string tier;
  bool priced = false;
  double usd_per_month = 0;
  std::string basis;
};
// The price: blob_usd_per_gb_month when given; else the imported LRS price
// of the tier in `region` (graduated over its volume bands); else none.
// kInvalidArgument for negative GB or price, or a tier other than hot/cool.
[[nodiscard]] Result<BlobStorage> blob_storage(const Usage& usage, std::string_view region = "");

// Usage with every default read from rates.csv (eviction, restart, checkpoint,
// setup, billing minimum, OS disk tier, data disk size). kInternal if a rate is
// missing from the compiled-in data.
[[nodiscard]] Result<Usage> default_usage(const Rates& rates);

// The VM price an option pays, per VM-hour, split into the compute meter and
// the Windows licence meter (Azure bills Windows as the Linux compute meter
// plus a licence meter; Hybrid Benefit removes the licence meter;
// reservations and savings plans cover only the compute meter).
struct PriceQuote {
  catalog::Pricing pricing = catalog::Pricing::kPayg;
  double compute_usd_per_hour = 0;  // per VM; a commitment's hourly equivalent (term / hours)
  double licence_usd_per_hour = 0;  // per VM; 0 on Linux or with Hybrid Benefit
  std::string source;               // of the compute price
  std::string as_of;
  bool estimated = false;
  std::string rule;           // when estimated
  std::string licence_basis;  // how the licence was found ("" when 0 and Linux)
};

// Resolves the price of `size` in `region` under `pricing` for `os`.
// kNotFound when the catalog has no offer with a price for the compute meter
// ("no listed price": never treated as free).
[[nodiscard]] Result<PriceQuote> quote(const catalog::Catalog& catalog, const Rates& rates,
                                       const catalog::VmSize& size, std::string_view region,
                                       catalog::Pricing pricing, catalog::Os os,
                                       bool hybrid_benefit);

// The offers a quote is resolved from; any may be null or have no price.
struct OfferSet {
  const catalog::Offer* linux = nullptr;       // the pricing model asked for
  const catalog::Offer* windows = nullptr;     // the pricing model asked for
  const catalog::Offer* linux_payg = nullptr;  // for the licence under commitments
  const catalog::Offer* windows_payg = nullptr;
};
// The size runs no Windows: the catalog marks its Windows pay-as-you-go
// offer not offered (a no_windows rule: its documentation lists Linux images
// only). quote_offers() gives no Windows quote then.
[[nodiscard]] bool linux_only(const OfferSet& offers);
// quote() without catalog lookups, for the planner's hot path. With
// `with_text` false no string is built (source, as_of, rule and
// licence_basis stay empty). nullopt when the compute meter has no price.
// `licence_usd_per_vcpu_hour` is rates.csv's windows_licence_usd_per_vcpu_hour.
[[nodiscard]] std::optional<PriceQuote> quote_offers(
    const OfferSet& offers, const catalog::VmSize& size, catalog::Pricing pricing, catalog::Os os,
    bool hybrid_benefit, double licence_usd_per_vcpu_hour, bool with_text);

// Wall-clock and billing hours of one option: setup + work, stretched by spot
// evictions. Depends only on the usage and whether the option is spot, so the
// planner computes it once per (size, count) and pricing class.
struct HoursModel {
  double wall_hours = 0;       // expected
  double wall_hours_low = 0;   // no eviction
  double wall_hours_high = 0;  // at the high eviction rate
  double billed_hours = 0;     // per VM, with per-second rounding and the minimum per launch
  double billed_hours_low = 0;
  double billed_hours_high = 0;
  double job_eviction_rate = 0;   // evictions per hour that interrupt the work (0 unless spot)
  double expected_evictions = 0;  // over all VMs
  bool finishes = true;           // false: eviction overhead >= 100 % (the work never ends)
};
[[nodiscard]] HoursModel hours_model(const Usage& usage, bool spot);

// The size-independent, region-dependent part of a cost: disks per VM-month
// and data transfer, with the rows they come from.
struct RegionCosts {
  std::string region;
  double os_disk_usd_per_vm_month = 0;
  double data_disk_usd_per_vm_month = 0;
  double egress_usd = 0;  // internet + inter-region transfer, once per job
  std::string os_disk_basis;
  std::string data_disk_basis;
  std::string egress_basis;
  BlobStorage blob;  // once per job, not per VM
};
// kInternal when a rate the usage needs is missing; kInvalidArgument for an
// unknown OS disk tier or negative sizes.
[[nodiscard]] Result<RegionCosts> region_costs(const Rates& rates, const Usage& usage,
                                               std::string_view region);

// The totals of one option, without text: what the planner ranks.
struct CostNumbers {
  double compute_usd = 0;            // work hours at the compute rate
  double unused_commitment_usd = 0;  // reserved/savings: the unused share of the term
  double licence_usd = 0;
  double setup_usd = 0;             // setup (idle) hours at compute + licence rates
  double eviction_usd = 0;          // spot: restart + lost progress hours
  double billing_rounding_usd = 0;  // per-second rounding and launch minimums
  double os_disk_usd = 0;
  double data_disk_usd = 0;
  double egress_usd = 0;
  double blob_usd = 0;   // 0 when Blob has no price (the line says so)
  double total_usd = 0;  // expected
  double low_usd = 0;
  double high_usd = 0;
  double usd_per_hour = 0;  // all VMs: compute / utilization + licence
};
// Pure arithmetic; never fails. The same function backs breakdown(), so the
// planner's ranking and the printed lines always agree.
[[nodiscard]] CostNumbers cost_numbers(const PriceQuote& quote, const Usage& usage,
                                       const HoursModel& hours, const RegionCosts& region);

// The total as a linear form of the two meters and the region's disks:
//   total = compute_mult x compute $/h + licence_mult x licence $/h
//           + disk_mult x (OS + data disk $/month) + transfer
// with compute_mult = VMs x billed hours / utilization, licence_mult = VMs x
// billed hours, disk_mult = VMs x wall hours / 730. It depends only on the
// pricing model, the usage and the hours, so the planner computes it once per
// (size, count, pricing) and applies it to every region's price.
struct CostFactors {
  double compute_mult = 0;
  double licence_mult = 0;
  double disk_mult = 0;
  double storage_months = 0;  // wall hours / 730: Blob GB-months per GB
};
[[nodiscard]] CostFactors cost_factors(catalog::Pricing pricing, const Usage& usage,
                                       double wall_hours, double billed_hours);
[[nodiscard]] inline double apply_factors(const CostFactors& f, double compute_usd_per_hour,
                                          double licence_usd_per_hour, const RegionCosts& region) {
  return f.compute_mult * compute_usd_per_hour + f.licence_mult * licence_usd_per_hour +
         f.disk_mult * (region.os_disk_usd_per_vm_month + region.data_disk_usd_per_vm_month) +
         f.storage_months * region.blob.usd_per_month + region.egress_usd;
}

// cost_numbers(...).total_usd without the other fields: apply_factors() of
// cost_factors(), the very expression total_usd is, so they agree exactly;
// the lines split it within rounding.
[[nodiscard]] double cost_total(const PriceQuote& quote, const Usage& usage,
                                const HoursModel& hours, const RegionCosts& region);

struct CostLine {
  std::string name;  // "compute", "windows licence", "setup (idle)", ...
  double usd = 0;
  std::string assumption;  // the arithmetic and the source of each rate
};

struct CostBreakdown {
  std::vector<CostLine> lines;  // sum of usd == total_usd (within 1e-9)
  CostNumbers numbers;
  HoursModel hours;
  PriceQuote quote;
  [[nodiscard]] double total_usd() const { return numbers.total_usd; }
};

// The lines of one option. `lines` always sum to numbers.total_usd (within
// floating-point rounding).
[[nodiscard]] CostBreakdown breakdown(const PriceQuote& quote, const Usage& usage,
                                      const HoursModel& hours, const RegionCosts& region);

// Convenience: quote + hours_model + region_costs + breakdown.
[[nodiscard]] Result<CostBreakdown> cost(const catalog::Catalog& catalog, const Rates& rates,
                                         const catalog::VmSize& size, std::string_view region,
                                         catalog::Pricing pricing, const Usage& usage);

// The utilization of a commitment's term above which it is cheaper than
// pay-as-you-go for the compute meter: commitment rate / payg rate (both per
// hour). Returns a value > 1 when the commitment never pays off.
[[nodiscard]] double break_even_utilization(double commitment_usd_per_hour,
                                            double payg_usd_per_hour);

// Probability that a spot job misses `deadline_hours`: the slack after setup
// and work allows k = floor(slack / per-eviction loss) evictions; evictions
// arrive as a Poisson process at the job's rate over the work hours plus k
// losses. 0 when the rate is 0 and the work fits, 1 when it does not fit even
// without evictions. A job whose VMs are evicted independently (batch items
// pulled from one queue, EvictionModel::gang false) shares each loss over its
// `count` VMs: it misses when more than floor(slack x count / loss)
// evictions come at count x the VM rate (one VM's figure was printed for 64).
[[nodiscard]] double deadline_miss_probability(const Usage& usage, const HoursModel& hours,
                                               double deadline_hours);

// One size's cost under every pricing model (`gpuplan cost`).
struct PricingCost {
  catalog::Pricing pricing = catalog::Pricing::kPayg;
  std::optional<CostBreakdown> breakdown;  // nullopt: no listed price (see `missing`)
  std::string missing;
  bool not_offered = false;  // no price because Azure does not sell it (catalog::Offer)
  // Commitments: the utilization of the term above which this beats
  // pay-as-you-go (compute meter only); nullopt for payg/spot or without a
  // payg price.
  std::optional<double> break_even_utilization;
};
struct SizeCost {
  std::string size;
  std::string gpu;       // GPU model, as the catalog names it
  double gpu_count = 0;  // GPUs per VM
  std::string region;
  catalog::Os os = catalog::Os::kLinux;
  bool hybrid_benefit = false;
  int count = 1;
  double hours = 0;                                              // of use in the period
  std::optional<double> utilization;                             // of a commitment's term
  std::vector<PricingCost> rows;                                 // kAllPricing order
  std::vector<std::pair<std::string, std::string>> assumptions;  // name -> value and source
  // What the prices alone do not say: a retired, retiring or preview size,
  // and prices past their refresh limits with the refresh commands
  // (catalog::freshness_lines), one sentence each.
  std::vector<std::string> warnings;
};
// Prices `count` VMs of `size` in `region` for one Azure month (730 h):
// with `hours` given, that many hours of use (a commitment then serves only
// them, so its whole term is paid); with `utilization` U, U x 730 h of use and
// commitments amortised at U; with neither, the whole month. VM meters only
// (no setup, disks or transfer; spot without eviction overhead — `gpuplan
// plan` adds those). kInvalidArgument for hours < 0, utilization outside
// (0, 1], both given, or count < 1; kNotFound when the size has no offer in
// the region at all.
[[nodiscard]] Result<SizeCost> cost_size(const catalog::Catalog& catalog, const Rates& rates,
                                         const catalog::VmSize& size, std::string_view region,
                                         catalog::Os os, bool hybrid_benefit,
                                         std::optional<double> hours,
                                         std::optional<double> utilization, int count = 1);

// What `gpuplan cost --json` prints (cost_json.cc; docs/cost.md): {size,
// region, os, hybrid_benefit, count, hours, utilization, pricing: [{pricing,
// available, ...prices, cost_usd, break_even_utilization, source, as_of,
// estimated, rule, cost_lines}], assumptions}. Dollars rounded to 4 decimals.
[[nodiscard]] nlohmann::ordered_json to_json(const SizeCost& cost);

}  // namespace gpuplan::cost
