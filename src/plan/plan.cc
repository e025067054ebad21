// The planner: the essay on the algorithm, the entry points and the text
// helpers. The passes are in plan_settings.cc, plan_enumerate.cc,
// plan_feasibility.cc, plan_rank.cc and plan_quota.cc (internal/planner.h
// lists what each owns).
//
// Problem: among every GPU VM size × node count (1..64) × region × pricing
// model, find the options that do the work within the deadline, the budget,
// the allowed regions, the subscription's restrictions and quota, rank them
// by cost, time or a balance of the two, show the cost–time trade-off, give a
// plan B, and say why everything else was dropped — over the whole catalog
// (~55 sizes × 51 regions × 6 pricing models × 64 counts ≈ 1 M combinations,
// ~300 k of them real offers) in a few milliseconds.
//
// Approach: the work of an option depends on (size, count) only, and its
// price on (size, region, pricing) only, so the loops are nested that way:
//   1. Index once: sizes (retired ones skipped), regions (sorted), and a
//      dense table of the compute and licence price per (size, region,
//      pricing) read in one pass over the catalog's offers; quota headroom
//      and restrictions per (size, region); disks and transfer per region.
//   2. For each size and count, call the estimator once. A count that does
//      not fit drops all its regions × pricings at once; counts beyond
//      max_gpus are dropped in bulk without estimating; for serving, the
//      counts below the SLO's VM count and above it are bulk-dropped too
//      (fewer miss the SLO, more only add cost). Hours come from the cost
//      model's hours_model() — once for on-demand-like pricing, once for spot.
//   3. For each region and pricing: the filters in a fixed order (region
//      allowed → restricted → spot allowed → listed price → spot finishes →
//      deadline → budget → quota); the first that fails is the drop reason
//      counted. Cost is cost::cost_total(), the very arithmetic the printed
//      lines come from.
//   4. A feasible candidate updates, in O(1) or O(top):
//        - the top-N list by the objective (a small sorted array);
//        - the best per (size, count, spot?) group: within a group the hours
//          are identical, so only its cheapest member can be on the Pareto
//          frontier — the frontier is computed afterwards over ≤ 7 k groups
//          by sorting on hours and sweeping for strictly falling cost;
//        - the best per (size, region), for fallbacks;
//      and a quota-blocked candidate updates the best blocked per (size,
//      region), for quota requests.
//   5. Only the options that are printed are materialised: the estimator is
//      re-run for their (size, count) and the cost model builds their lines.
//
// Ranking (docs/plan.md): cost → (cost, hours); time → (hours, cost);
// balanced → (cost·√hours, cost, hours). Ties: an option in the workload's
// data_region first, then size name, count, region name and pricing order, so
// the output is deterministic. `balanced` weighs time half as much as money
// in log terms: a 2× speed-up is worth up to 41 % more money.
//
// Trade-offs: a candidate is attributed to the first failing filter only;
// spot options are judged on expected hours (their deadline risk is reported,
// not filtered); reserved/savings options with no utilization given pay the
// whole term, so they only win when the user says the commitment stays busy
// (--utilization).
#include "plan/plan.h"

#include <algorithm>
#include <cmath>

#include "core/strings.h"
#include "plan/internal/planner.h"

namespace gpuplan::plan {

namespace internal {

const char* const kReasonText[kNumReasons] = {"AMD GPU",
                                              "series not allowed",
                                              "confidential size not asked",
                                              "not confidential computing",
                                              "does not fit",
                                              "misses SLO",
                                              "more VMs than the SLO needs",
                                              "over max_gpus",
                                              "region not allowed",
                                              "restricted for the subscription",
                                              "spot not allowed",
                                              "no listed price",
                                              "spot never finishes",
                                              "misses deadline",
                                              "over budget",
                                              "family quota",
                                              "spot quota"};

// kInvalidArgument at the workload's length field when an option the plan
// lists (ranked, frontier or fallback: any may be deployed) has hours or
// dollars past kMaxPlanFigure. Its inputs are each in range; together they
// imply work no plan describes usefully (8.7e15 h is 10^12 years).
Status Planner::within_bounds(const Plan& plan) const {
  for (const auto* list : {&plan.options, &plan.frontier, &plan.fallbacks}) {
    for (const Option& o : *list) {
      const double most = std::max(
          {o.hours, o.hours_high, o.cost_usd, o.cost_high_usd, o.cost_low_usd, o.usd_per_hour});
      if (most <= kMaxPlanFigure) continue;  // NaN fails this test too
      return invalid_argument(
          "the option " + o.size + " x" + std::to_string(o.count) + " in " + o.region + " takes " +
              strings::general(o.hours_high) + " h and " + strings::general(o.cost_high_usd) +
              " USD at most, beyond the " + strings::general(kMaxPlanFigure) +
              " a plan may hold (deploy and report read no more): make the job smaller",
          Where{w_.file, 0, 0, length_field(w_)});
    }
  }
  return {};
}

std::string hours_text(double h) {
  using strings::fixed;
  if (h >= 100) return fixed(h, 0);
  if (h >= 10) return fixed(h, 1);
  return fixed(h, 2);
}

std::string percent(double x) { return strings::fixed(x * 100, x < 0.1 ? 1 : 0) + "%"; }

std::string layout_text(const estimate::Estimate& e) {
  if (e.throughput_unit.empty()) return "";
  std::string s = "tp=" + std::to_string(e.layout.tp) + " pp=" + std::to_string(e.layout.pp) +
                  (e.layout.vpp > 1 ? " v=" + std::to_string(e.layout.vpp) : "") +
                  " dp=" + std::to_string(e.layout.dp);
  if (e.serving) {
    s = std::to_string(e.serving->replicas) +
        (e.serving->replicas == 1 ? " replica" : " replicas") + " of " +
        std::to_string(e.serving->gpus_per_replica) + " GPU" +
        (e.serving->gpus_per_replica == 1 ? "" : "s");
  }
  return s;
}

Result<Plan> Planner::run() {
  GPUPLAN_RETURN_IF_ERROR(settle());
  GPUPLAN_RETURN_IF_ERROR(index());
  enumerate();
  Plan plan;
  plan.workload_name = w_.name;
  plan.workload_file = w_.file;
  plan.kind = std::string(workload::to_string(w_.kind));
  plan.objective = opt_.objective;
  finish(plan);
  GPUPLAN_RETURN_IF_ERROR(within_bounds(plan));
  plan.considered = considered_;
  plan.feasible = feasible_;
  return plan;
}

}  // namespace internal

std::string length_field(const workload::Workload& workload) {
  switch (workload.kind) {
    case workload::Kind::kBatch:
      return "data.items";
    case workload::Kind::kInfer:
      return "serving.duration_hours";
    case workload::Kind::kTrain:
    case workload::Kind::kFinetune:
      break;
  }
  return workload.data.tokens ? "data.tokens" : "data.samples";
}

Status estimates_within_bounds(const workload::Workload& workload,
                               const std::vector<estimate::Estimate>& results) {
  for (const estimate::Estimate& e : results) {
    if (!e.fits || e.hours <= kMaxPlanFigure) continue;  // NaN fails this test too
    return invalid_argument("on " + e.size + " x" + std::to_string(e.count) + " the job takes " +
                                strings::general(e.hours) + " h, beyond the " +
                                strings::general(kMaxPlanFigure) +
                                " a plan may hold: make the job smaller",
                            Where{workload.file, 0, 0, length_field(workload)});
  }
  return {};
}

std::string_view to_string(Objective o) {
  switch (o) {
    case Objective::kCost:
      return "cost";
    case Objective::kTime:
      return "time";
    case Objective::kBalanced:
      return "balanced";
  }
  return "?";
}

Result<Objective> parse_objective(std::string_view s) {
  std::string v = strings::to_lower(strings::trim(s));
  if (v == "cost") return Objective::kCost;
  if (v == "time") return Objective::kTime;
  if (v == "balanced") return Objective::kBalanced;
  return invalid_argument("unknown objective '" + std::string(s) +
                          "' (expected cost, time or balanced)" +
                          strings::did_you_mean(v, {"cost", "time", "balanced"}));
}

double objective_score(Objective o, double cost_usd, double hours) {
  switch (o) {
    case Objective::kCost:
      return cost_usd;
    case Objective::kTime:
      return hours;
    case Objective::kBalanced:
      return cost_usd * std::sqrt(std::max(0.0, hours));
  }
  return cost_usd;
}

Result<Plan> make_plan(const workload::Workload& workload, const catalog::Catalog& catalog,
                       const cost::Rates& rates, const PlanOptions& options,
                       const EstimateFn& estimator) {
  internal::Planner planner(workload, catalog, rates, options, estimator, estimator);
  return planner.run();
}

Result<Plan> make_plan(const workload::Workload& workload, const catalog::Catalog& catalog,
                       const cost::Rates& rates, const PlanOptions& options) {
  // The enumeration needs only fit and hours: the estimator's call without
  // its assumption texts is ~10x cheaper, and the printed options are
  // re-estimated in full.
  EstimateFn quick = [&workload](const catalog::VmSize& size, const catalog::Gpu& gpu, int count) {
    return estimate::estimate(workload, size, gpu, count, /*explain=*/false);
  };
  EstimateFn full = [&workload](const catalog::VmSize& size, const catalog::Gpu& gpu, int count) {
    return estimate::estimate(workload, size, gpu, count);
  };
  internal::Planner planner(workload, catalog, rates, options, quick, full);
  return planner.run();
}

}  // namespace gpuplan::plan
