// The cost model.
//
// Problem: a VM price per hour is not what a piece of GPU work costs. The
// bill also holds the time the VMs sit idle while they are provisioned, the
// work lost and the restarts after spot evictions, the unused part of a
// reservation or savings plan, the Windows licence meter, the disks (billed
// for as long as they exist, monthly prices prorated hourly), the data moved
// between regions or out to the internet, and per-second billing with a
// minimum per launch.
//
// Approach: split the problem in three pure parts so the planner can cost
// hundreds of thousands of candidates quickly and still print exactly the
// same numbers it ranked by:
//   1. quote(): the VM price per hour, split into Azure's two meters — the
//      compute meter (the Linux price; what reservations and savings plans
//      discount) and the Windows licence meter (Windows price − Linux price,
//      or 0.046 $/vCPU-hour from rates.csv when the catalog lacks one of
//      them; 0 with Hybrid Benefit, which "pays only the compute (Linux-
//      equivalent) meter", facts.md §3).
//   2. hours_model(): wall-clock hours = setup + work, stretched for spot.
//      With a job eviction rate λ (per hour: rate × count when the VMs work
//      in lock-step, since any eviction stops all of them) and a loss per
//      eviction o = restart + checkpoint interval / 2 (progress since the
//      last checkpoint is lost; on average half an interval), the run time W
//      satisfies W = work + λ·W·o, so W = work / (1 − λ·o). When λ·o ≥ 1 the
//      work never finishes. Billing rounds each VM's hours up to the billing
//      granularity and charges at least the minimum per launch (each eviction
//      is a new launch). The low end is no eviction; the high end uses the
//      high eviction rate (stretch capped at kMaxStretch when even that never
//      finishes).
//   3. cost_numbers(): linear in the two meters:
//        VMs × billed hours × (compute / utilization + licence)
//        + VMs × (OS disk + data disk per month) × wall hours / 730
//        + transfer.
//      A commitment's term is paid whether used or not, so the used hours
//      cost compute / utilization; with no utilization given the commitment
//      serves only this work and the whole term is paid. The licence meter is
//      never discounted by commitments (facts.md: "A reservation covers VM
//      compute only, not Windows software").
// breakdown() splits the same numbers into lines with their arithmetic.
//
// Files: this one holds the hours model, the numbers and their breakdown;
// rates.cc the rates table and default usage; quote.cc the two meters;
// storage.cc the disks, transfer and Blob of a region (region_costs);
// growth.cc the horizon under growing demand; spot_eviction.cc bands to
// rates.
//
// Trade-offs: evictions are a Poisson process with a constant rate (Azure
// publishes only bands over a trailing window; spot_eviction.cc turns a band
// into rates), restarts are a constant, the 100 GB free
// internet egress is assumed fully available, disks are billed for the wall
// clock only (created at the start, deleted at the end). Regions without a
// disk rate use eastus's (said so in the line). Every constant is a row of
// data/cost/rates.csv with its source.
#include "cost/cost.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "catalog/freshness.h"
#include "core/csv.h"
#include "core/strings.h"
#include "core/units.h"
#include "cost/internal/cost_text.h"

namespace gpuplan::cost {

namespace internal {

std::string cite(const Rate& r, bool fell_back, std::string_view region) {
  std::string s = r.source;
  if (!r.as_of.empty()) s += ", " + r.as_of;
  if (r.confidence != "listed") s += ", " + r.confidence;
  if (fell_back) s += "; " + r.region + " rate used, none for " + std::string(region);
  return s;
}

double tiered(double amount, const std::vector<Tier>& tiers) {
  double usd = 0;
  for (size_t i = 0; i < tiers.size(); ++i) {
    const double lo = tiers[i].from;
    const double hi = i + 1 < tiers.size() ? tiers[i + 1].from : amount;
    if (amount <= lo) break;
    usd += (std::min(amount, hi) - lo) * tiers[i].usd_per_unit;
  }
  return usd;
}

}  // namespace internal

using internal::hrs;
using internal::is_commitment;
using internal::rate_text;

namespace {

// When even the high eviction rate never finishes, the high end of the range
// is capped at this stretch of the work hours (documented in docs/cost.md).
constexpr double kMaxStretch = 10.0;

double round_up_billing(double hours, double granularity_s) {
  if (granularity_s <= 0) return hours;
  double seconds = hours * 3600.0;
  // Guard against 13.95 h becoming 50220.000000001 s and rounding up a step.
  double steps = std::ceil(seconds / granularity_s - 1e-9);
  return steps * granularity_s / 3600.0;
}

double billed(double wall_hours, double launches, const Usage& u) {
  double rounded = round_up_billing(wall_hours, u.billing_granularity_seconds);
  double minimum = launches * u.billing_minimum_seconds / 3600.0;
  return std::max(rounded, minimum);
}

// Terms of a commitment bought for `billed_hours` of one VM's use.
double commitment_terms(catalog::Pricing p, double billed_hours) {
  const double term = catalog::commitment_hours(p);
  if (term <= 0 || billed_hours <= 0) return 1;
  return std::max(1.0, std::ceil(billed_hours / term - 1e-9));
}

// Effective utilization of a commitment for `billed_hours` of use.
double utilization_for(catalog::Pricing p, const Usage& u, double billed_hours) {
  double term = catalog::commitment_hours(p);
  if (term <= 0) return 1.0;
  if (u.utilization) return std::clamp(*u.utilization, 1e-9, 1.0);
  if (billed_hours <= 0) return 1.0;
  // Bought for this work alone: a VM uses at most one term's hours of its
  // reservation, so work longer than the term renews it, and every term
  // bought is paid in full (20,000 h on a 1-year reservation is three
  // terms, 26,280 h paid; priced as 20,000 h at the hourly rate it ranked
  // above a 3-year savings plan that cost less).
  return billed_hours / (commitment_terms(p, billed_hours) * term);
}

// Total for one point of the range (wall, billed): the same formula as the
// expected case's lines.
double total_at(const PriceQuote& q, const Usage& u, double wall, double billed_h,
                const RegionCosts& rc) {
  return apply_factors(cost_factors(q.pricing, u, wall, billed_h), q.compute_usd_per_hour,
                       q.licence_usd_per_hour, rc);
}

}  // namespace

CostFactors cost_factors(catalog::Pricing pricing, const Usage& u, double wall_hours,
                         double billed_hours) {
  CostFactors f;
  double n = u.count;
  double util = utilization_for(pricing, u, billed_hours);
  f.licence_mult = n * billed_hours;
  f.compute_mult = f.licence_mult / util;
  f.disk_mult = n * wall_hours / kHoursPerMonth;
  f.storage_months = wall_hours / kHoursPerMonth;
  return f;
}

// ------------------------------------------------------------------ hours

HoursModel hours_model(const Usage& u, bool spot) {
  HoursModel h;
  const EvictionModel& e = u.eviction;
  double base = u.setup_hours + u.work_hours;
  h.wall_hours = h.wall_hours_low = h.wall_hours_high = base;
  double per_vm_launches = 1;
  if (spot) {
    double vms_per_eviction_domain = e.gang ? u.count : 1;
    double loss = e.restart_hours + e.checkpoint_interval_hours / 2.0;
    double lambda = e.rate_per_hour * vms_per_eviction_domain;
    double lambda_hi = e.rate_high_per_hour * vms_per_eviction_domain;
    h.job_eviction_rate = lambda;
    if (!e.stretches_hours) {
      // Serving: the duration is fixed; evicted replicas are replaced.
      h.expected_evictions = e.rate_per_hour * u.count * u.work_hours;
      per_vm_launches = 1 + e.rate_per_hour * u.work_hours;
    } else {
      double x = lambda * loss;
      if (x >= 1.0) {
        h.finishes = false;
        h.wall_hours = u.setup_hours + u.work_hours * kMaxStretch;
      } else {
        h.wall_hours = u.setup_hours + u.work_hours / (1.0 - x);
      }
      double run = h.wall_hours - u.setup_hours;
      double x_hi = lambda_hi * loss;
      h.wall_hours_high =
          u.setup_hours +
          u.work_hours * (x_hi >= 1.0 ? kMaxStretch : std::min(kMaxStretch, 1.0 / (1.0 - x_hi)));
      double job_evictions = lambda * run;  // each stops its domain
      h.expected_evictions = e.gang ? job_evictions : job_evictions * u.count;
      per_vm_launches = 1 + (e.gang ? job_evictions : e.rate_per_hour * run);
    }
  }
  h.billed_hours = billed(h.wall_hours, per_vm_launches, u);
  h.billed_hours_low = billed(h.wall_hours_low, 1, u);
  double launches_hi = spot ? 1 + e.rate_high_per_hour * (e.gang ? u.count : 1) *
                                      std::max(0.0, h.wall_hours_high - u.setup_hours)
                            : 1;
  h.billed_hours_high = billed(h.wall_hours_high, launches_hi, u);
  return h;
}

// ------------------------------------------------------------------ numbers

namespace {
// The expected case's components and their total.
void expected_components(const PriceQuote& q, const Usage& u, const HoursModel& h,
                         const RegionCosts& rc, CostNumbers& c) {
  double n = u.count;
  double rate = q.compute_usd_per_hour;
  double lic = q.licence_usd_per_hour;
  double util = utilization_for(q.pricing, u, h.billed_hours);
  double work = u.work_hours;
  double setup = std::min(u.setup_hours, h.wall_hours);
  double eviction_hours = std::max(0.0, h.wall_hours - setup - work);
  double rounding_hours = h.billed_hours - h.wall_hours;
  c.compute_usd = n * work * rate;
  c.licence_usd = n * work * lic;
  c.setup_usd = n * setup * (rate + lic);
  c.eviction_usd = n * eviction_hours * (rate + lic);
  c.billing_rounding_usd = n * rounding_hours * (rate + lic);
  c.unused_commitment_usd = n * h.billed_hours * rate * (1.0 / util - 1.0);
  c.os_disk_usd = n * rc.os_disk_usd_per_vm_month * h.wall_hours / kHoursPerMonth;
  c.data_disk_usd = n * rc.data_disk_usd_per_vm_month * h.wall_hours / kHoursPerMonth;
  c.egress_usd = rc.egress_usd;
  c.blob_usd = rc.blob.usd_per_month * h.wall_hours / kHoursPerMonth;
  // The total is the same closed form as the low and high ends (the lines
  // above split it; they sum to it within rounding).
  c.total_usd = total_at(q, u, h.wall_hours, h.billed_hours, rc);
  c.usd_per_hour = n * (rate / util + lic);
}
}  // namespace

double cost_total(const PriceQuote& q, const Usage& u, const HoursModel& h, const RegionCosts& rc) {
  return total_at(q, u, h.wall_hours, h.billed_hours, rc);
}

CostNumbers cost_numbers(const PriceQuote& q, const Usage& u, const HoursModel& h,
                         const RegionCosts& rc) {
  CostNumbers c;
  expected_components(q, u, h, rc, c);
  c.low_usd = total_at(q, u, h.wall_hours_low, h.billed_hours_low, rc);
  c.high_usd = total_at(q, u, h.wall_hours_high, h.billed_hours_high, rc);
  // Keep the range around the expected value despite rounding.
  c.low_usd = std::min(c.low_usd, c.total_usd);
  c.high_usd = std::max(c.high_usd, c.total_usd);
  return c;
}

namespace {

// The spot eviction line's text: for serving, capacity lost per eviction;
// for a job, the hours evictions add, from the rate, the restart and half a
// checkpoint interval lost each time.
std::string eviction_text(const Usage& u, const HoursModel& h, const std::string& vms,
                          double usd_per_hour, double setup, double work) {
  double loss = u.eviction.restart_hours + u.eviction.checkpoint_interval_hours / 2.0;
  std::string text;
  if (!u.eviction.stretches_hours) {
    text = "serving: " + strings::fixed(h.expected_evictions, 2) +
           " expected evictions drop capacity for " + hrs(u.eviction.restart_hours) +
           " h each (an SLO risk, not extra hours)";
  } else {
    text = vms + " x " + rate_text(usd_per_hour) + " x " +
           hrs(std::max(0.0, h.wall_hours - setup - work)) +
           " h: " + strings::fixed(h.expected_evictions, 2) + " expected evictions at " +
           strings::fixed(u.eviction.rate_per_hour, 3) + "/VM-h" +
           (u.eviction.gang && u.count > 1
                ? " (any of " + std::to_string(u.count) + " VMs stops the job)"
                : "") +
           ", each losing " + hrs(loss) + " h (restart " + hrs(u.eviction.restart_hours) +
           " h + half a " + hrs(u.eviction.checkpoint_interval_hours) + " h checkpoint interval)" +
           (h.finishes ? "" : "; the work never finishes at this rate");
  }
  if (!u.eviction.basis.empty()) text += "; rate: " + u.eviction.basis;
  return text;
}

}  // namespace

CostBreakdown breakdown(const PriceQuote& q, const Usage& u, const HoursModel& h,
                        const RegionCosts& rc) {
  CostBreakdown b;
  b.quote = q;
  b.hours = h;
  b.numbers = cost_numbers(q, u, h, rc);
  const CostNumbers& c = b.numbers;
  std::string vms = std::to_string(u.count) + (u.count == 1 ? " VM" : " VMs");
  std::string pricing(catalog::to_string(q.pricing));
  std::string price_src = q.source + (q.as_of.empty() ? "" : ", as of " + q.as_of) +
                          (q.estimated ? ", estimated: " + q.rule : "");
  double util = utilization_for(q.pricing, u, h.billed_hours);
  double work = u.work_hours;
  double setup = std::min(u.setup_hours, h.wall_hours);
  double with_lic = q.compute_usd_per_hour + q.licence_usd_per_hour;

  b.lines.push_back({"compute", c.compute_usd,
                     vms + " x " + rate_text(q.compute_usd_per_hour) + " " + pricing + " x " +
                         hrs(work) + " h of work (" + price_src + ")"});
  if (is_commitment(q.pricing)) {
    std::string how = u.utilization
                          ? "utilization " + strings::fixed(util * 100, 1) + "% of the term (given)"
                      : commitment_terms(q.pricing, h.billed_hours) > 1
                          ? "bought for this work only: " + hrs(h.billed_hours) + " h over " +
                                strings::fixed(commitment_terms(q.pricing, h.billed_hours), 0) +
                                " consecutive terms of " +
                                strings::fixed(catalog::commitment_hours(q.pricing), 0) +
                                " h (one VM uses one term's hours; renewed, each term paid "
                                "in full)"
                          : "bought for this work only: " + hrs(h.billed_hours) + " h of the " +
                                strings::fixed(catalog::commitment_hours(q.pricing), 0) +
                                " h term used, the rest is paid anyway";
    b.lines.push_back({"unused commitment", c.unused_commitment_usd,
                       vms + " x " + rate_text(q.compute_usd_per_hour) + " x " +
                           hrs(h.billed_hours) + " h x (1/" + strings::fixed(util, 4) + " - 1); " +
                           how});
  }
  if (u.os == catalog::Os::kWindows) {
    std::string basis = q.licence_basis.empty() ? "included" : q.licence_basis;
    b.lines.push_back(
        {u.hybrid_benefit ? "windows licence (hybrid benefit)" : "windows licence", c.licence_usd,
         vms + " x " + rate_text(q.licence_usd_per_hour) + " x " + hrs(work) + " h; " + basis});
  }
  b.lines.push_back({"setup (idle)", c.setup_usd,
                     vms + " x " + rate_text(with_lic) + " x " + hrs(setup) +
                         " h billed while provisioning, installing drivers and staging data"});
  if (q.pricing == catalog::Pricing::kSpot) {
    const std::string text = eviction_text(u, h, vms, with_lic, setup, work);
    b.lines.push_back({"spot eviction overhead", c.eviction_usd, text});
  }
  if (c.billing_rounding_usd > 0) {  // every cent-fraction too: the lines sum to the total
    // Under a minute of rounding reads in seconds ("0.9 s"), not as "0 h".
    const double extra_h = h.billed_hours - h.wall_hours;
    const std::string extra =
        extra_h < 1.0 / 60 ? strings::fixed(extra_h * 3600, 1) + " s" : hrs(extra_h) + " h";
    b.lines.push_back({"billing minimum", c.billing_rounding_usd,
                       vms + " x " + rate_text(with_lic) + " x " + extra +
                           ": per-second billing with a " +
                           strings::fixed(u.billing_minimum_seconds, 0) + " s minimum per launch"});
  }
  if (!u.os_disk_tier.empty()) {
    b.lines.push_back({"os disk", c.os_disk_usd,
                       vms + " x " + rc.os_disk_basis + " x " + hrs(h.wall_hours) + " h / 730"});
  }
  if (u.data_disk_gib > 0) {
    b.lines.push_back({"data disk", c.data_disk_usd,
                       vms + " x " + rc.data_disk_basis + " x " + hrs(h.wall_hours) + " h / 730"});
  }
  if (!rc.egress_basis.empty()) b.lines.push_back({"data transfer", c.egress_usd, rc.egress_basis});
  if (rc.blob.gb > 0) {
    b.lines.push_back(
        {"blob storage", c.blob_usd,
         rc.blob.priced ? rc.blob.basis + " x " + hrs(h.wall_hours) + " h / 730" : rc.blob.basis});
  }
  return b;
}

Result<CostBreakdown> cost(const catalog::Catalog& catalog, const Rates& rates,
                           const catalog::VmSize& size, std::string_view region,
                           catalog::Pricing pricing, const Usage& usage) {
  if (usage.count < 1) return invalid_argument("count must be at least 1 VM");
  if (usage.work_hours < 0 || usage.setup_hours < 0) {
    return invalid_argument("hours cannot be negative");
  }
  if (usage.utilization && (*usage.utilization <= 0 || *usage.utilization > 1)) {
    return invalid_argument("utilization must be in (0, 1]");
  }
  GPUPLAN_TRY(PriceQuote q,
              quote(catalog, rates, size, region, pricing, usage.os, usage.hybrid_benefit));
  HoursModel h = hours_model(usage, pricing == catalog::Pricing::kSpot);
  GPUPLAN_TRY(RegionCosts rc, region_costs(rates, usage, region));
  return breakdown(q, usage, h, rc);
}

Result<SizeCost> cost_size(const catalog::Catalog& catalog, const Rates& rates,
                           const catalog::VmSize& size, std::string_view region, catalog::Os os,
                           bool hybrid_benefit, std::optional<double> hours,
                           std::optional<double> utilization, int count) {
  if (hours && utilization) {
    return invalid_argument("give --hours or --utilization, not both");
  }
  if (hours && (*hours < 0 || !std::isfinite(*hours))) {
    return invalid_argument("hours cannot be negative", Where{"", 0, 0, "--hours"});
  }
  if (utilization && (*utilization <= 0 || *utilization > 1)) {
    return invalid_argument("utilization must be in (0, 1]", Where{"", 0, 0, "--utilization"});
  }
  if (count < 1) return invalid_argument("count must be at least 1", Where{"", 0, 0, "--count"});
  const std::vector<std::string> regions = catalog.regions_for(size.name);
  const std::string want = strings::to_lower(region);
  if (std::none_of(regions.begin(), regions.end(),
                   [&](const std::string& r) { return strings::to_lower(r) == want; })) {
    return not_found(size.name + " is not offered in " + std::string(region) +
                     " (see `gpuplan catalog --region " + std::string(region) + "`)");
  }
  GPUPLAN_TRY(Usage u, default_usage(rates));
  u.count = count;
  u.os = os;
  u.hybrid_benefit = hybrid_benefit;
  u.setup_hours = 0;
  u.os_disk_tier = "";
  u.data_disk_gib = 0;
  u.billing_minimum_seconds = 0;
  u.eviction.rate_per_hour = 0;
  u.eviction.rate_high_per_hour = 0;
  SizeCost out;
  out.size = size.name;
  out.gpu = size.gpu_model;
  out.gpu_count = size.gpu_count;
  out.region = std::string(region);
  out.os = os;
  out.hybrid_benefit = hybrid_benefit;
  out.count = count;
  if (hours) {
    u.work_hours = *hours;
    out.assumptions.push_back({"hours", hrs(*hours) + " h of use (--hours); a reservation or "
                                                      "savings plan serves only these hours"});
  } else if (utilization) {
    u.work_hours = *utilization * kHoursPerMonth;
    u.utilization = *utilization;
    out.utilization = utilization;
    out.assumptions.push_back({"hours", hrs(u.work_hours) +
                                            " h = " + strings::fixed(*utilization * 100, 1) +
                                            "% of a 730 h month (--utilization); commitments "
                                            "amortised at the same utilization"});
  } else {
    u.work_hours = kHoursPerMonth;
    u.utilization = 1.0;
    out.utilization = 1.0;
    out.assumptions.push_back({"hours",
                               "730 h: the whole Azure month (DESIGN.md), commitments "
                               "fully used"});
  }
  out.hours = u.work_hours;
  out.assumptions.push_back({"scope",
                             "VM meters only: no setup time, disks or data transfer; "
                             "spot without eviction overhead (gpuplan plan adds them)"});
  // What the spot price buys, which a price alone does not say.
  out.assumptions.push_back(
      {"spot",
       "no SLA: Azure evicts a spot VM whenever it needs the capacity back, with a Scheduled "
       "Events Preempt notice of at least 30 s (Microsoft Learn, 'Use Azure Spot Virtual "
       "Machines' and 'Scheduled Events')"});
  // What catalog and plan said and cost did not (a retired NC6s_v3 was
  // priced at $3.06/h with no word).
  if (size.status == catalog::SizeStatus::kRetired)
    out.warnings.push_back("warning: " + size.name + " was retired on " + size.retire_date +
                           ": Azure no longer deploys it, and these prices are history (gpuplan "
                           "catalog --include-retired lists it)");
  else if (size.status == catalog::SizeStatus::kRetiring)
    out.warnings.push_back("warning: " + size.name + " retires on " + size.retire_date +
                           ": plan work that ends before it");
  else if (size.status == catalog::SizeStatus::kPreview)
    out.warnings.push_back("note: " + size.name +
                           " is in preview: deploying it may need a sign-up, and it has no "
                           "reservations or savings plans");
  {
    std::vector<const catalog::Offer*> offers;
    for (catalog::Pricing p : catalog::kAllPricing)
      offers.push_back(catalog.offer(size.name, region, catalog::Os::kLinux, p));
    for (std::string& line : catalog::freshness_lines(
             catalog::price_ages(offers, catalog.today(), catalog::FreshnessPolicy{}), region))
      out.warnings.push_back(std::move(line));
  }
  auto payg = quote(catalog, rates, size, region, catalog::Pricing::kPayg, os, hybrid_benefit);
  for (catalog::Pricing p : catalog::kAllPricing) {
    PricingCost row;
    row.pricing = p;
    auto b = cost(catalog, rates, size, region, p, u);
    if (b) {
      row.breakdown = std::move(*b);
      if (is_commitment(p) && payg) {
        row.break_even_utilization = break_even_utilization(
            row.breakdown->quote.compute_usd_per_hour, payg->compute_usd_per_hour);
      }
    } else {
      row.missing = b.error().message;
      const catalog::Offer* o = catalog.offer(size.name, region, catalog::Os::kLinux, p);
      const catalog::Offer* w =
          os == catalog::Os::kWindows
              ? catalog.offer(size.name, region, catalog::Os::kWindows, catalog::Pricing::kPayg)
              : nullptr;
      // Not offered: the commitment for the size, or Windows on a Linux-only size.
      row.not_offered = (o && o->not_offered) || (w && w->not_offered);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

double break_even_utilization(double commitment_usd_per_hour, double payg_usd_per_hour) {
  if (payg_usd_per_hour <= 0) return commitment_usd_per_hour > 0 ? 2.0 : 0.0;
  return commitment_usd_per_hour / payg_usd_per_hour;
}

double deadline_miss_probability(const Usage& u, const HoursModel& h, double deadline_hours) {
  double slack = deadline_hours - u.setup_hours - u.work_hours;
  if (slack < 0) return 1.0;
  double lambda = h.job_eviction_rate;
  if (lambda <= 0 || !u.eviction.stretches_hours) return 0.0;
  double loss = u.eviction.restart_hours + u.eviction.checkpoint_interval_hours / 2.0;
  // Independent VMs pulling from one queue: the others take up a lost
  // item's time, so the job's slack absorbs count times as many losses,
  // arriving count times as often.
  const double domains = u.eviction.gang ? 1.0 : std::max(1, u.count);
  double k_max = loss > 0 ? std::floor(slack * domains / loss) : 1e9;
  if (k_max > 1e6) return 0.0;
  double mean = lambda * domains * (u.work_hours + k_max * loss / domains);
  // P(N <= k_max) for N ~ Poisson(mean), summed in log space for stability.
  double term = std::exp(-mean);
  double cdf = term;
  for (int k = 1; k <= static_cast<int>(k_max); ++k) {
    term *= mean / k;
    cdf += term;
    if (term < 1e-18 && k > mean) break;
  }
  return std::clamp(1.0 - cdf, 0.0, 1.0);
}

}  // namespace gpuplan::cost
