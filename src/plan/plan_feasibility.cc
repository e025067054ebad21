// The planner's feasibility filters (step 3 of the essay in plan.cc): for one
// (size, count) the estimator said fits, every region and pricing model goes
// through the filters in a fixed order — region allowed → restricted → spot
// allowed → listed price → spot finishes → deadline → budget → quota — and
// the first that fails is the drop counted, with one example kept per reason
// (for deadline and budget, the closest miss). Cost is cost::apply_factors,
// the linear form of cost::cost_total, so the number filtered is the number
// printed. A candidate that passes goes to the ranking (plan_rank.cc); one
// blocked only by quota is kept for the quota requests (plan_quota.cc).
#include "core/format.h"
#include "core/strings.h"
#include "plan/internal/planner.h"
#include "plan/internal/spot_risk.h"

namespace gpuplan::plan::internal {

using catalog::Pricing;
using strings::fixed;

std::string Planner::candidate_name(int si, int count, int r, int p) const {
  return sizes_[si]->name + " x" + std::to_string(count) + " in " + regions_[r] + " (" +
         std::string(catalog::to_string(catalog::kAllPricing[p])) + ")";
}

void Planner::candidates(int si, int count, const estimate::Estimate& e) {
  const size_t R = regions_.size();
  usage_.count = count;
  set_work(e);
  const long long per_region = static_cast<long long>(pricings_.size());
  // Hours per hours class: 0 is not spot; spot ones depend on the region's
  // eviction class and are computed when a region of that class comes up.
  cost::HoursModel hm[kHoursClasses];
  bool have_hm[kHoursClasses] = {};
  hm[0] = cost::hours_model(usage_, false);
  have_hm[0] = true;
  cost::CostFactors spot_factors[kHoursClasses];
  // A service on spot carries spare VMs so that evictions leave its rate
  // served (serving_spares): priced, counted against quota and shown. A
  // fleet sized exactly at the rate (23 VMs for 20.03 req/s against 20)
  // was below it whenever one VM was down, ~25 % of the month. Sized at
  // the high end of the eviction range: at its middle (0.05 per VM-hour by
  // default) 50 VMs got 3 spares, which leave the fleet short 27 % of the
  // time at the range's 0.20; 7 hold it within 1 % there.
  int spares[kHoursClasses] = {};
  const bool serving = w_.kind == workload::Kind::kInfer;
  auto spot_hours = [&](int hc) {
    if (!have_hm[hc]) {
      set_spot_rates(hc - 1);
      if (serving)
        spares[hc] = serving_spares(count, std::max(usage_.eviction.rate_per_hour,
                                                    usage_.eviction.rate_high_per_hour))
                         .vms;
      usage_.count = count + spares[hc];
      hm[hc] = cost::hours_model(usage_, true);
      spot_factors[hc] =
          cost::cost_factors(Pricing::kSpot, usage_, hm[hc].wall_hours, hm[hc].billed_hours);
      usage_.count = count;
      have_hm[hc] = true;
    }
  };
  // The cost of every region's price for this (size, count): one linear form
  // per pricing model (cost::cost_factors, the arithmetic of cost_total).
  cost::CostFactors factors[kNumPricing];
  for (Pricing pricing : pricings_) {
    if (pricing == Pricing::kSpot) continue;  // per eviction class: spot_hours()
    factors[pricing_index(pricing)] =
        cost::cost_factors(pricing, usage_, hm[0].wall_hours, hm[0].billed_hours);
  }
  for (int r : size_regions_[si]) {
    const size_t pair = static_cast<size_t>(si) * R + r;
    if (!allowed_[r]) {
      // A region the workload did not exclude but Azure restricts: say so,
      // and how to include it ("not in the allowed regions" read as if the
      // workload had a regions list).
      drop(kRegionNotAllowed, per_region, si, r, [&] {
        return candidate_name(si, count, r, 0) +
               (catalog_.region_access(regions_[r]) == catalog::RegionAccess::kRestricted
                    ? ": access-restricted region (open on request to customers with a business "
                      "need there); name it in constraints.regions or pass "
                      "--include-restricted-regions"
                    : ": not in the allowed regions");
      });
      continue;
    }
    if (restricted_[pair]) {
      drop(kRestricted, per_region, si, r, [&] {
        return candidate_name(si, count, r, 0) + ": list-skus says NotAvailableForSubscription";
      });
      continue;
    }
    for (Pricing pricing : pricings_) {
      if (pricing == Pricing::kSpot) {
        const int hc = 1 + spot_class_[pair];
        spot_hours(hc);
        candidate(si, count + spares[hc], r, pricing, hc, hm[hc], spot_factors[hc], spares[hc]);
      } else {
        candidate(si, count, r, pricing, 0, hm[0], factors[pricing_index(pricing)]);
      }
    }
  }
}

void Planner::candidate(int si, int count, int r, Pricing pricing, int hc,
                        const cost::HoursModel& h, const cost::CostFactors& f, int spares) {
  const catalog::VmSize& size = *sizes_[si];
  const size_t pair = static_cast<size_t>(si) * regions_.size() + r;
  const int p = pricing_index(pricing);
  const bool spot = pricing == Pricing::kSpot;
  auto name = [&] { return candidate_name(si, count, r, p); };
  if (spot && !spot_allowed_) {
    drop(kSpotNotAllowed, 1, si, r, [&] { return name() + ": the workload says spot: never"; });
    return;
  }
  const PriceCell& cell = prices_[pair * kNumPricing + p];
  if (!cell.has) {
    drop(kNoPrice, 1, si, r, [&] {
      // A Linux-only size (its Windows offers marked not offered) says why.
      if (os_ == catalog::Os::kWindows && cost::linux_only(cell.offers))
        return name() + ": no Windows: " + cell.offers.windows_payg->source;
      return name() + ": no listed " + std::string(catalog::to_string(os_)) + " price";
    });
    return;
  }
  if (spot && !h.finishes) {
    drop(kSpotNeverFinishes, 1, si, r, [&] {
      return name() + ": " + fixed(h.job_eviction_rate, 2) + " evictions/h x " +
             hours_text(usage_.eviction.restart_hours +
                        usage_.eviction.checkpoint_interval_hours / 2) +
             " h lost each >= 100%";
    });
    return;
  }
  if (deadline_ && h.wall_hours > *deadline_) {
    DropStats& d = drops_[kDeadline];
    bool closer = d.count == 0 || h.wall_hours < d.best;
    drop(kDeadline, 1, si, r, [] { return std::string(); });
    if (closer) {
      d.best = h.wall_hours;
      d.example = "fastest: " + name() + ": " + hours_text(h.wall_hours) + " h > " +
                  hours_text(*deadline_) + " h";
    }
    return;
  }
  const double total = cost::apply_factors(f, cell.compute, cell.licence, region_costs_[r]);
  if (budget_ && total > *budget_) {
    DropStats& d = drops_[kBudget];
    bool closer = d.count == 0 || total < d.best;
    drop(kBudget, 1, si, r, [] { return std::string(); });
    if (closer) {
      d.best = total;
      d.example = "cheapest: " + name() + ": " + format::usd(total) + " > " + format::usd(*budget_);
    }
    return;
  }
  Cand c;
  c.cost = total;
  c.hours = h.wall_hours;
  c.score = objective_score(opt_.objective, total, h.wall_hours);
  c.s = si;
  c.count = count;
  c.r = r;
  c.p = p;
  c.hc = hc;
  c.spares = spares;
  c.in_data_region = r == data_region_index_;
  c.suspect = cell.flags != 0;
  c.tie = tie_key(c.in_data_region, size_rank_[si], count, r, p);
  const double need = static_cast<double>(count) * size.vcpus;
  const std::optional<double>& room = headroom_[pair * 2 + (spot ? 1 : 0)];
  if (room && *room < need) {
    drop(spot ? kSpotQuota : kQuota, 1, si, r, [&] {
      return name() + ": needs " + fixed(need, 0) + " vCPUs of " +
             (spot ? std::string("lowPriorityCores") : size.quota_family) + ", " +
             fixed(std::max(0.0, *room), 0) + " free";
    });
    Cand& b = blocked_best_[pair];
    if (!b.valid() || order_(c, b)) b = c;
    return;
  }
  ++considered_;
  consider(c);
}

}  // namespace gpuplan::plan::internal
