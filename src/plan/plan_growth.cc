// Growth over a horizon (workload data.growth_per_week > 0): what the growth
// does to the winner, week by week over horizon_weeks (default 4).
//
// Serving: the request rate grows as r0 (1 + g)^(t/168) (continuous
// compounding, as the simulator's synthetic demand). Each week lists the rate
// at its end and the replicas and VMs that meet it (what the scale set must be
// allowed to reach: capacity per replica from the estimator); the cost is
// that of a fleet that follows the load in whole VMs hour by hour (deploy
// sets up autoscaling): for a large fleet, today's times the mean demand
// factor (cost::mean_growth_factor), 2.505 x flat for +50 %/week over 4
// weeks; a fleet of one VM that still has room costs the same as flat. Every option's cost scales
// by the same factor, so the ranking holds; what changes is the bill, the fleet's cap and whether
// to reserve: a 1-year reservation bought today pays for the VMs the demand reaches within
// cost::reservation_pays_until_weeks.
//
// Training, fine-tuning and batch work that repeats (constraints.repeat:
// weekly, or monthly = every 4 weeks) runs on the grown data each time: its
// hours and cost scale with the data (linear in tokens or items, as the
// estimator's are), so the plan says the first week the winner misses the
// deadline and the cheapest frontier option that still meets it then.
// A budget that grows (constraints.budget_growth_per_week) is checked week by
// week. Work that runs once is planned on today's data.
#include <cmath>

#include "core/format.h"
#include "core/strings.h"
#include "core/units.h"
#include "cost/growth.h"
#include "plan/internal/planner.h"

namespace gpuplan::plan::internal {

using catalog::Pricing;
using strings::fixed;

namespace {

std::string times(double x) { return fixed(x, 2) + "x"; }
std::string vms(int n) {
  if (n >= kGrowthCountCap) return "over 10^9 VMs";
  return std::to_string(n) + (n == 1 ? " VM" : " VMs");
}

}  // namespace

void Planner::finish_growth(Plan& plan) {
  const double g = w_.data.growth_per_week;
  if (g <= 0 || plan.options.empty()) return;
  Growth gr;
  gr.growth_per_week = g;
  gr.horizon_weeks = horizon_weeks_;
  if (w_.kind == workload::Kind::kInfer) {
    growth_serving(plan, gr);
  } else {
    growth_repeat(plan, gr);
  }
  plan.growth = std::move(gr);
}

// The week's budget: the horizon's budget spread evenly over its weeks (for
// serving, the budget is for serving.duration_hours), grown week by week.
std::optional<double> Planner::week_budget(int week, double per_week) const {
  if (!budget_) return std::nullopt;
  return per_week * std::pow(1.0 + w_.constraints.budget_growth_per_week, week - 1);
}

void Planner::growth_serving(Plan& plan, Growth& gr) {
  const Option& best = plan.options.front();
  estimate::Estimate unused;
  const estimate::Estimate& e = estimate_for(top_.front(), true, unused);
  const double g = gr.growth_per_week;
  const double r0 = w_.serving.request_rate;
  const double cap = e.serving ? e.serving->capacity_rps_per_replica : 0;
  const double replicas_per_vm =
      e.serving && best.count > 0 ? static_cast<double>(e.serving->replicas) / best.count : 0;
  const double vm_hour = best.count > 0 ? best.usd_per_hour / best.count : 0;
  // VMs today's load needs, unrounded (0 when the estimator gives no capacity).
  const double exact_vms = cap > 0 && replicas_per_vm > 0 ? r0 / cap / replicas_per_vm : 0;
  const double per_week_budget =
      budget_ ? *budget_ * cost::kHoursPerWeek / std::max(1.0, w_.serving.duration_hours) : 0;
  for (int wk = 1; wk <= gr.horizon_weeks; ++wk) {
    GrowthWeek row;
    row.week = wk;
    row.demand_factor = cost::growth_factor(g, wk * cost::kHoursPerWeek);
    row.rate_rps = r0 * row.demand_factor;
    if (cap > 0 && replicas_per_vm > 0) {
      // Counts in doubles, capped: +1,000 % a week for 10 weeks is 2.6e10
      // times today's load, past int (the JSON once said -2147483648 VMs).
      const double replicas = std::ceil(row.rate_rps / cap - 1e-9);
      const double n = std::ceil(replicas / replicas_per_vm - 1e-9);
      row.replicas = static_cast<int>(std::min<double>(replicas, kGrowthCountCap));
      row.vms = static_cast<int>(std::min<double>(n, kGrowthCountCap));
      row.beyond_scale_set = n > kMaxVmsPerOption;
      if (row.beyond_scale_set && !gr.beyond_scale_set_week) gr.beyond_scale_set_week = wk;
    }
    // The fleet follows the load in whole VMs, hour by hour: ceil(VMs the
    // load needs at the hour's end), never fewer than today's plan keeps
    // when the load is not known per VM.
    double vm_hours = 0;
    for (int h = 1; h <= static_cast<int>(cost::kHoursPerWeek); ++h) {
      const double t = (wk - 1) * cost::kHoursPerWeek + h;
      vm_hours += exact_vms > 0 ? std::ceil(exact_vms * cost::growth_factor(g, t) - 1e-9)
                                : best.count * cost::growth_factor(g, t);
    }
    row.hours = cost::kHoursPerWeek;
    row.cost_usd = vm_hour * vm_hours;
    row.budget_usd = week_budget(wk, per_week_budget);
    row.within_budget = !row.budget_usd || row.cost_usd <= *row.budget_usd;
    if (!row.within_budget && !gr.over_budget_week) gr.over_budget_week = wk;
    gr.grown_cost_usd += row.cost_usd;
    gr.weeks.push_back(row);
  }
  const double horizon_hours = gr.horizon_weeks * cost::kHoursPerWeek;
  gr.mean_load_factor = cost::mean_growth_factor(g, horizon_hours);
  gr.flat_cost_usd = vm_hour * best.count * horizon_hours;
  growth_reservation(best, gr);
  const GrowthWeek& last = gr.weeks.back();
  gr.summary =
      "Traffic grows " + percent(g) + " a week: by week " + std::to_string(gr.horizon_weeks) +
      " it is " + times(last.demand_factor) + " today's" +
      (last.vms > 0 ? " and needs " + vms(last.vms) + " (today " + std::to_string(best.count) + ")"
                    : "") +
      "; following the load in whole VMs, the " + std::to_string(gr.horizon_weeks) +
      " weeks' compute costs " + format::usd(gr.grown_cost_usd) + ", " +
      times(gr.flat_cost_usd > 0 ? gr.grown_cost_usd / gr.flat_cost_usd : 1) +
      " today's fleet held flat (" + format::usd(gr.flat_cost_usd) + "; mean load " +
      times(gr.mean_load_factor) + ")" +
      ". Growth scales every option alike, so the ranking holds; " +
      (gr.beyond_scale_set_week
           ? "from week " + std::to_string(*gr.beyond_scale_set_week) +
                 " the load needs more VMs than one scale set holds (" +
                 std::to_string(kMaxVmsPerOption) +
                 "): spread it over several scale sets or regions, with the quota for them, "
                 "or this growth cannot be served on this size"
           : "let the scale set reach " + vms(std::max(last.vms, best.count))) +
      (gr.over_budget_week ? "; the budget runs out in week " + std::to_string(*gr.over_budget_week)
                           : "") +
      ".";
}

// When a 1-year reservation pays for a growing demand (cost::growth.h).
void Planner::growth_reservation(const Option& best, Growth& gr) {
  const catalog::VmSize* size = catalog_.find_size(best.size);
  if (!size) return;
  auto res = cost::quote(catalog_, rates_, *size, best.region, Pricing::kReserved1y, os_, hybrid_);
  auto payg = cost::quote(catalog_, rates_, *size, best.region, Pricing::kPayg, os_, hybrid_);
  if (!res || !payg || payg->compute_usd_per_hour <= 0) return;
  const double be =
      cost::break_even_utilization(res->compute_usd_per_hour, payg->compute_usd_per_hour);
  const double weeks = cost::reservation_pays_until_weeks(kHoursPerYear, be);
  gr.reserve_pays_until_week = weeks;
  const int within = static_cast<int>(std::min<double>(gr.horizon_weeks, std::floor(weeks)));
  gr.reserve_vms = within >= 1 ? gr.weeks[within - 1].vms : (weeks > 0 ? best.count : 0);
}

void Planner::growth_repeat(Plan& plan, Growth& gr) {
  const Option& best = plan.options.front();
  const workload::Repeat repeat = w_.constraints.repeat;
  const double g = gr.growth_per_week;
  if (repeat == workload::Repeat::kNone) {
    gr.summary = "The data grows " + percent(g) +
                 " a week, but the job runs once (constraints.repeat: none): it is planned on "
                 "today's data.";
    return;
  }
  const int step = repeat == workload::Repeat::kWeekly ? 1 : 4;  // monthly = every 4 weeks
  for (int wk = step; wk <= gr.horizon_weeks; wk += step) {
    GrowthWeek row;
    row.week = wk;
    row.demand_factor = cost::growth_factor(g, wk * cost::kHoursPerWeek);
    row.hours = best.hours * row.demand_factor;
    row.cost_usd = best.cost_usd * row.demand_factor;
    row.meets_deadline = !deadline_ || row.hours <= *deadline_;
    if (!row.meets_deadline && !gr.misses_deadline_week) {
      gr.misses_deadline_week = wk;
      // The cheapest frontier option that still meets it on that week's data.
      for (auto it = plan.frontier.rbegin(); it != plan.frontier.rend(); ++it) {
        if (it->hours * row.demand_factor <= *deadline_) {
          gr.move_to = it->size + " x" + std::to_string(it->count) + " in " + it->region + " (" +
                       std::string(catalog::to_string(it->pricing)) + ")";
          break;
        }
      }
    }
    row.budget_usd = week_budget(wk, budget_ ? *budget_ : 0);
    row.within_budget = !row.budget_usd || row.cost_usd <= *row.budget_usd;
    if (!row.within_budget && !gr.over_budget_week) gr.over_budget_week = wk;
    gr.weeks.push_back(row);
  }
  std::string s = "The data grows " + percent(g) + " a week and the job runs " +
                  std::string(workload::to_string(repeat)) + ": ";
  if (gr.weeks.empty()) {
    s += "no run falls within the " + std::to_string(gr.horizon_weeks) + "-week horizon";
  } else if (gr.misses_deadline_week) {
    s += "the winner misses the deadline from week " + std::to_string(*gr.misses_deadline_week) +
         (gr.move_to.empty() ? ", and no feasible option meets it then"
                             : "; move to " + gr.move_to + " then");
  } else {
    s += "the winner still meets the deadline in week " + std::to_string(gr.weeks.back().week) +
         " (" + times(gr.weeks.back().demand_factor) + " the data)";
  }
  if (gr.over_budget_week)
    s += "; a run is over budget from week " + std::to_string(*gr.over_budget_week);
  gr.summary = s + ".";
}

}  // namespace gpuplan::plan::internal
