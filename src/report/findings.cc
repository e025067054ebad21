// The rules that read a bill against the plan.
//
// Anomalous days. A VM's daily cost is compared with its own recent past,
// not with a fixed budget: the threshold is the median of the previous
// `window_days` days plus k robust standard deviations, sigma = 1.4826 x
// MAD (the median absolute deviation scaled to be consistent with the
// standard deviation of a normal distribution; Rousseeuw & Croux, "Alternatives
// to the Median Absolute Deviation", JASA 88(424), 1993). Leys et al.,
// "Detecting outliers: Do not use standard deviation around the mean, use
// absolute deviation around the median", J. Exp. Soc. Psych. 49(4), 2013,
// call k = 3 "very conservative" and 2.5 "moderately conservative"; a false
// alarm on a bill costs attention, so the default is 3 (--anomaly-k changes
// it). Median and MAD ignore the anomaly itself, unlike mean and standard
// deviation, so one bad day does not hide the next. The window is a week
// (7 days) so weekday/weekend cycles are inside it; 5 days of history are
// needed before a day is judged. A VM that runs the same hours every day has
// MAD 0, so the excess must also exceed `min_excess_hours` (1 h) of the VM's
// own hourly rate: Azure bills per second (per-minute for some offers), so a
// job that starts a little earlier moves a day's cost by minutes, and less
// than an hour of one VM is not worth a finding (--anomaly-min-hours).
//
// Hours beyond the plan. The plan's option says how many wall-clock hours
// the work takes; each VM of the plan's size (the first `count` to start)
// may bill that many hours, times the plan's own high case (cost_high /
// cost: spot evictions, the estimate's range). Hours past it are billed
// while the plan says the VM should be off; the days are listed.
//
// Commitments. Utilisation is used / (used + unused) amortized cost where
// the export has unused rows (FOCUS CommitmentDiscountStatus = Unused, Azure
// ChargeType UnusedReservation / UnusedSavingsPlan, amortized data).
// Actual-cost data has no unused rows ("Unused reservation costs are seen
// only when viewing amortized cost", MicrosoftDocs azure-docs
// articles/cost-management-billing/automate/get-small-usage-datasets-on-demand.md,
// 2023-11-17);
// there a monthly purchase row gives the reserved instances, and the share
// is hours used / (instances x hours of the export). The break-even is
// cost::break_even_utilization (commitment $/h over payg $/h) — the one the
// cost model and `gpuplan cost` use.
//
// Reservations worth buying. A VM billed on demand for at least the
// break-even share of a month or more (the export must span 28 days) of a
// 1-year reservation of its size, when the plan (if given) runs at least
// that share of the term, would cost less reserved; the finding says by how
// much a month (730 h, Azure's month).
#include "report/internal/findings.h"

#include <algorithm>
#include <cmath>

#include "core/format.h"
#include "core/strings.h"
#include "core/units.h"
#include "cost/cost.h"

namespace gpuplan::report {

std::string AnomalyRule::text() const {
  return "a day is anomalous when its cost > median(previous " + std::to_string(window_days) +
         " days) + " + strings::fixed(k, 1) +
         " x 1.4826 x MAD (Leys et al. 2013) and the excess > " +
         strings::fixed(min_excess_hours, 1) + " h of the VM's own rate; " +
         std::to_string(min_history_days) + " days of history needed";
}

std::string_view to_string(FindingKind k) {
  switch (k) {
    case FindingKind::kAnomaly:
      return "anomaly";
    case FindingKind::kBeyondPlan:
      return "beyond-plan";
    case FindingKind::kNotInPlan:
      return "not-in-plan";
    case FindingKind::kUnusedCommitment:
      return "unused-commitment";
    case FindingKind::kBuyReservation:
      return "buy-reservation";
  }
  return "anomaly";
}

namespace internal {
namespace {

constexpr double kMadToSigma = 1.4826;      // Rousseeuw & Croux 1993
constexpr int kMinDaysForReservation = 28;  // a month of history before "buy"

std::string pct(double v) { return strings::fixed(v * 100, 0) + "%"; }
std::string hours(double h) { return strings::fixed(h, h >= 100 ? 0 : 1) + " h"; }

std::optional<double> list_price(const catalog::Catalog& catalog, const std::string& size,
                                 const std::string& region, catalog::Pricing pricing) {
  const catalog::Offer* o = catalog.offer(size, region, catalog::Os::kLinux, pricing);
  if (o == nullptr || !o->usd_per_hour) return std::nullopt;
  return *o->usd_per_hour;
}

void anomalies(const VmReport& vm, const AnomalyRule& rule, std::vector<Finding>& out) {
  if (vm.hours_billed <= 0) return;
  const double rate = vm.usd_compute / vm.hours_billed;
  for (size_t i = static_cast<size_t>(std::max(rule.min_history_days, 1)); i < vm.daily.size();
       ++i) {
    const size_t from = i > static_cast<size_t>(rule.window_days) ? i - rule.window_days : 0;
    std::vector<double> window;
    std::vector<double> window_hours;
    for (size_t j = from; j < i; ++j) {
      window.push_back(vm.daily[j].usd);
      window_hours.push_back(vm.daily[j].hours);
    }
    const double med = median(window);
    std::vector<double> dev;
    dev.reserve(window.size());
    for (double w : window) dev.push_back(std::fabs(w - med));
    const double sigma = kMadToSigma * median(dev);
    const double threshold = med + std::max(rule.k * sigma, rule.min_excess_hours * rate);
    const DayCost& day = vm.daily[i];
    // Written so that a NaN threshold (a k or an hour figure no flag lets
    // through, times a MAD of 0) flags nothing: `<=` let every day pass.
    if (!(day.usd > threshold)) continue;
    const double typical_hours = median(window_hours);
    Finding f;
    f.kind = FindingKind::kAnomaly;
    f.subject = vm.name;
    f.date = day.date;
    f.usd = day.usd - med;
    f.what = day.date + " cost " + format::usd(day.usd) + " against a median " + format::usd(med) +
             " (threshold " + format::usd(threshold) + "); " + hours(day.hours) +
             " billed, typically " + hours(typical_hours);
    if (day.hours > typical_hours + rule.min_excess_hours) {
      f.recommendation =
          "deallocate it when idle: autostop (gpuplan deploy --autostop MINUTES) stops a VM "
          "left running";
    } else {
      f.recommendation =
          "the excess is not compute hours: look at that day's other meters (disks, egress, "
          "a price change)";
    }
    out.push_back(std::move(f));
  }
}

void beyond_plan(const VmReport& vm, const deploy::PlanOption& plan, std::vector<Finding>& out) {
  const double high = plan.cost_usd > 0 ? std::max(1.0, plan.cost_high_usd / plan.cost_usd) : 1.0;
  const double allowance = plan.hours * high;
  if (vm.hours_billed <= allowance) return;
  double cum = 0;
  std::string ended, first_off, last_off;
  int off_days = 0;
  for (const DayCost& d : vm.daily) {
    const bool was_over = cum >= allowance;
    cum += d.hours;
    if (!was_over && cum >= allowance) ended = d.date;
    if (was_over && d.hours > 0) {
      if (first_off.empty()) first_off = d.date;
      last_off = d.date;
      ++off_days;
    }
  }
  const double excess = vm.hours_billed - allowance;
  Finding f;
  f.kind = FindingKind::kBeyondPlan;
  f.subject = vm.name;
  f.date = ended;
  f.usd = excess * vm.usd_compute / vm.hours_billed;
  f.what = "billed " + hours(vm.hours_billed) + " against the plan's " + hours(plan.hours) +
           (high > 1 ? " (" + hours(allowance) + " in its high case)" : "") + ", used up on " +
           ended;
  if (off_days > 0) {
    f.what += "; billed on " + std::to_string(off_days) + " day" + (off_days > 1 ? "s" : "") +
              " after it (" + first_off + (last_off != first_off ? " .. " + last_off : "") + ")";
  }
  f.recommendation =
      "deallocate it when the job ends (a stopped VM still bills compute); gpuplan deploy "
      "--autostop, on by default for training, deallocates after 60 idle minutes";
  out.push_back(std::move(f));
}

void plan_checks(const Report& rep, const catalog::Catalog& catalog, const deploy::PlanOption& plan,
                 std::vector<Finding>& out) {
  const catalog::VmSize* plan_size = catalog.find_size(plan.size);
  const std::string plan_name = plan_size ? plan_size->name : plan.size;
  std::vector<const VmReport*> same;
  for (const VmReport& vm : rep.vms) {
    // A VM with another GPU model runs other work: not read against this plan.
    if (plan_size != nullptr && vm.gpu_model != plan_size->gpu_model) continue;
    if (strings::fold(vm.size) == strings::fold(plan_name)) {
      same.push_back(&vm);
      continue;
    }
    Finding f;
    f.kind = FindingKind::kNotInPlan;
    f.subject = vm.name;
    f.usd = vm.usd_total;
    f.what = vm.size + " is not the plan's size " + plan_name + " (" + hours(vm.hours_billed) +
             ", " + format::usd(vm.usd_total) + ")";
    auto mine = list_price(catalog, vm.size, vm.region, catalog::Pricing::kPayg);
    auto theirs = list_price(catalog, plan_name, vm.region, catalog::Pricing::kPayg);
    if (mine && theirs && *theirs < *mine) {
      f.usd = vm.hours_billed * (*mine - *theirs);
      f.recommendation = "downsize to the plan's size " + plan_name + ": " + format::usd(*theirs) +
                         "/h instead of " + format::usd(*mine) + "/h (payg list) saves " +
                         format::usd(f.usd) + " over these hours";
    } else {
      f.recommendation = "deallocate it, or re-plan if the work needs " + vm.size;
    }
    out.push_back(std::move(f));
  }
  // The first `count` VMs to start are the plan's; the rest are extra.
  std::stable_sort(same.begin(), same.end(), [](const VmReport* a, const VmReport* b) {
    return a->daily.front().date < b->daily.front().date;
  });
  for (size_t i = 0; i < same.size(); ++i) {
    if (i < static_cast<size_t>(plan.count)) {
      beyond_plan(*same[i], plan, out);
      continue;
    }
    Finding f;
    f.kind = FindingKind::kNotInPlan;
    f.subject = same[i]->name;
    f.usd = same[i]->usd_total;
    f.what = "one VM more than the plan's " + std::to_string(plan.count) + " x " + plan_name +
             " (" + hours(same[i]->hours_billed) + ", " + format::usd(same[i]->usd_total) + ")";
    f.recommendation = "deallocate it, or re-plan with more VMs if the work needs them";
    out.push_back(std::move(f));
  }
}

// Utilisation and unused money of one commitment; fills basis.
void measure(CommitmentReport& c, int period_days) {
  if (c.unused_usd > 0 || c.used_usd > 0) {
    c.utilization = c.used_usd / (c.used_usd + c.unused_usd);
    c.basis = "amortized cost: used " + format::usd(c.used_usd) + " / (used + unused " +
              format::usd(c.unused_usd) + ")";
    return;
  }
  if (c.purchase_usd > 0 && c.purchase_quantity > 0 && !c.one_time_purchase && period_days > 0) {
    const double reserved_hours = c.purchase_quantity * period_days * 24.0;
    c.utilization = std::min(1.0, c.used_hours / reserved_hours);
    c.unused_usd = c.purchase_usd * (1 - *c.utilization);
    c.basis = "actual cost: " + hours(c.used_hours) + " used of " +
              strings::fixed(c.purchase_quantity, 0) + " instance(s) x " +
              std::to_string(period_days) + " days x 24 h (monthly payment " +
              format::usd(c.purchase_usd) + "; instance size flexibility not counted)";
    return;
  }
  c.basis = "unknown: no unused rows and no monthly purchase row; export amortized cost or FOCUS";
}

void commitment_finding(const CommitmentReport& c, const catalog::Catalog& catalog, int period_days,
                        std::vector<Finding>& out) {
  if (!c.utilization || c.unused_usd < 0.01) return;
  const double u = *c.utilization;
  Finding f;
  f.kind = FindingKind::kUnusedCommitment;
  f.subject = c.name.empty() ? c.id : c.name;
  f.usd = c.unused_usd;
  f.what = (c.type.empty() ? std::string("commitment") : c.type) + " " + pct(u) +
           " used: " + format::usd(c.unused_usd) + " paid for nothing (" + c.basis + ")";
  // Its own rate per committed hour, else the catalog's 1-year price.
  std::optional<double> rate;
  if (u > 0 && c.used_hours > 0) {
    const double committed_hours = c.used_hours / u;
    const double paid = c.purchase_usd > 0 && c.unused_usd > 0 && c.used_usd == 0
                            ? c.purchase_usd
                            : c.used_usd + c.unused_usd;
    rate = paid / committed_hours;
  }
  std::optional<double> payg;
  if (!c.size.empty()) {
    payg = list_price(catalog, c.size, c.region, catalog::Pricing::kPayg);
    if (!rate) rate = list_price(catalog, c.size, c.region, catalog::Pricing::kReserved1y);
  }
  (void)period_days;
  if (rate && payg && *payg > 0) {
    const double b = cost::break_even_utilization(*rate, *payg);
    if (u < b) {
      f.recommendation = "stop buying it: at " + pct(u) + " use it costs more than payg " + c.size +
                         " (break-even " + pct(b) + "); do not renew it";
    } else {
      f.recommendation = "keep it (above its break-even " + pct(b) + ") and move on-demand " +
                         c.size + " work onto it to use the " + format::usd(c.unused_usd) +
                         " unused";
    }
  } else {
    f.recommendation = "move on-demand work of its size onto it, or do not renew it";
  }
  out.push_back(std::move(f));
}

void buy_reservation(const VmReport& vm, const catalog::Catalog& catalog, int period_days,
                     const std::optional<deploy::PlanOption>& plan, std::vector<Finding>& out) {
  const int od = static_cast<int>(Category::kOnDemand);
  if (period_days < kMinDaysForReservation || vm.hours_by_category[od] <= 0) return;
  auto payg = list_price(catalog, vm.size, vm.region, catalog::Pricing::kPayg);
  const catalog::Offer* res =
      catalog.offer(vm.size, vm.region, catalog::Os::kLinux, catalog::Pricing::kReserved1y);
  if (!payg || res == nullptr || !res->usd_per_hour) return;
  const double b = cost::break_even_utilization(*res->usd_per_hour, *payg);
  const double share = vm.hours_by_category[od] / (period_days * 24.0);
  if (share < b) return;
  if (plan && plan->hours < b * catalog::commitment_hours(catalog::Pricing::kReserved1y)) return;
  const double month_factor = kHoursPerMonth / (period_days * 24.0);
  const double saving = vm.usd_by_category[od] * month_factor - *res->usd_per_hour * kHoursPerMonth;
  if (saving <= 0) return;
  Finding f;
  f.kind = FindingKind::kBuyReservation;
  f.subject = vm.name;
  f.usd = saving;
  f.what = hours(vm.hours_by_category[od]) + " on demand in " + std::to_string(period_days) +
           " days (" + pct(share) + " of the time; a 1-year reservation breaks even at " + pct(b) +
           ")";
  f.recommendation = "buy a 1-year reservation for " + vm.size + " in " + vm.region + " at " +
                     format::usd(*res->usd_per_hour) + "/h (" +
                     (res->estimated ? "estimated: " + res->rule.text() : res->source) +
                     "): saves about " + format::usd(saving) + " a month";
  out.push_back(std::move(f));
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) {
    m = (m + *std::max_element(v.begin(), v.begin() + static_cast<long>(mid))) / 2;
  }
  return m;
}

void judge(Report& rep, const catalog::Catalog& catalog, const Options& options, int period_days) {
  rep.rule = options.rule;
  rep.plan = options.plan;
  rep.plan_file = options.plan_file;
  rep.plan_option = options.plan_option;
  std::vector<Finding> found;
  for (const VmReport& vm : rep.vms) anomalies(vm, options.rule, found);
  if (options.plan) plan_checks(rep, catalog, *options.plan, found);
  for (CommitmentReport& c : rep.commitments) {
    measure(c, period_days);
    commitment_finding(c, catalog, period_days, found);
  }
  for (const VmReport& vm : rep.vms) buy_reservation(vm, catalog, period_days, options.plan, found);
  std::stable_sort(found.begin(), found.end(),
                   [](const Finding& a, const Finding& b) { return a.usd > b.usd; });
  rep.findings = std::move(found);
  rep.assumptions.push_back("anomaly rule: " + options.rule.text());
  rep.assumptions.push_back(
      "list prices: the catalog's payg Linux price of each size in its region (a Windows VM "
      "pays a licence on top)");
  if (rep.format == ExportFormat::kAzureCost) {
    rep.assumptions.push_back(
        "Azure actual cost bills reservation-covered hours at $0 (the purchase is its own row): "
        "effective $/GPU-hour of committed hours is 0 there; FOCUS or amortized data spreads it");
  }
}

}  // namespace internal
}  // namespace gpuplan::report
