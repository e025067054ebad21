// The reserve scenario's runner: the pay-as-you-go and reservation prices
// with their provenance, the demand (the pods trace, replayed once, or
// synthetic fleets drawn per run), every policy and the hindsight optimum on
// each run, and the rows that average them. The model and the policies are
// in reserve.cc.
#include <memory>

#include "core/units.h"
#include "simulate/demand.h"
#include "simulate/internal/runner.h"
#include "simulate/reserve.h"

namespace gpuplan::simulate::internal {

namespace {

// The payg and reservation prices and the reservation settings, each recorded
// in the report's assumptions. kInvalidArgument when reserving saves nothing.
Result<ReservePrices> reserve_prices(const Scenario& s, const catalog::Catalog* cat,
                                     SimReport& rep) {
  const ReserveSpec& spec = s.reservation();
  GPUPLAN_TRY(const Prices payg, resolve_prices(s, cat, false, rep.assumptions));
  ReservePrices prices;
  prices.payg_usd_per_hour = payg.od;
  prices.term_hours = spec.term_years * kHoursPerYear;
  prices.after_window = spec.after_window;
  const std::string term = spec.term_years == 3 ? "reserved-3y" : "reserved-1y";
  if (spec.reserved_usd_per_hour) {
    prices.reserved_usd_per_hour = *spec.reserved_usd_per_hour;
    rep.assumptions.push_back({"reserved_usd_per_hour",
                               strings::fixed(prices.reserved_usd_per_hour, 4), price_source(s)});
  } else {
    GPUPLAN_TRY(prices.reserved_usd_per_hour,
                catalog_price(s, cat,
                              spec.term_years == 3 ? catalog::Pricing::kReserved3y
                                                   : catalog::Pricing::kReserved1y,
                              "reserved", rep.assumptions));
  }
  if (!(prices.reserved_usd_per_hour < prices.payg_usd_per_hour))
    return invalid_argument("the reservation costs as much as pay-as-you-go: nothing to decide",
                            s.where("prices.reserved_usd_per_hour"));
  rep.assumptions.push_back({"term", term + " (" + strings::fixed(prices.term_hours, 0) + " h)",
                             "reservation.term (default 1y)"});
  rep.assumptions.push_back(
      {"break_even_utilization",
       strings::fixed(prices.reserved_usd_per_hour / prices.payg_usd_per_hour, 4),
       "derived: reserved / payg price"});
  rep.assumptions.push_back({"review_hours", strings::fixed(spec.policy.review_hours, 0),
                             "advisor and forecast-reserve look this often"});
  rep.assumptions.push_back({"lookback_hours", strings::fixed(spec.policy.lookback_hours, 0),
                             "Azure reservation recommendations' Last30Days look-back"});
  rep.assumptions.push_back({"projection_hours", strings::fixed(spec.policy.projection_hours, 0),
                             "forecast-reserve projects this far ahead"});
  rep.assumptions.push_back({"accounting",
                             "amortized: each hour pays its share of the reservations held",
                             "Azure Cost Management amortized cost view"});
  const char* after =
      spec.after_window == AfterWindow::kRepeat
          ? "repeat-last-week: the window's last 168 h repeat over the rest of each "
            "reservation's term; what a reservation loses there against pay-as-you-go is charged"
      : spec.after_window == AfterWindow::kWorkEnds
          ? "work-ends: nothing uses a reservation after the window; its hours there are charged"
          : "not-charged: the window alone (reservations assumed to pay after it)";
  rep.assumptions.push_back({"after_window", after,
                             "reservation.after_window (default "
                             "repeat-last-week)"});
  return prices;
}

// The pods trace as hourly VMs (--trace replaces the scenario's), with what
// its reader dropped in the notes. kInvalidArgument when it spans longer
// than the reservation term.
Result<VmDemand> trace_demand(const Scenario& s, const RunOptions& o, const ReservePrices& prices,
                              double gpus, SimReport& rep) {
  const ReserveSpec& spec = s.reservation();
  const std::string file = o.trace.value_or(spec.demand.trace);
  GPUPLAN_TRY(PodJobs pods, read_pod_jobs(file));
  const double per_vm = spec.gpus_per_vm.value_or(gpus);
  // More GPUs per VM than the size has packed 8 pods' GPUs into a 1-GPU
  // VM and cost the growth example $31,691 instead of $201,288.
  if (per_vm > gpus + 1e-9)
    return invalid_argument(strings::fixed(per_vm, 3) + " GPUs per VM, but " + s.vm_size + " has " +
                                strings::fixed(gpus, 3),
                            s.where("demand.gpus_per_vm"));
  // AKS cluster autoscaler's scale-down-unneeded-time default.
  constexpr double kDefaultScaleDownMinutes = 10;
  const double scale_down_minutes = spec.scale_down_minutes.value_or(kDefaultScaleDownMinutes);
  GPUPLAN_TRY(VmDemand jobs_demand,
              vms_from_jobs(pods, per_vm, spec.demand.time_scale, scale_down_minutes * 60)
                  .map_error([&](Error e) {
                    e.where.file = file;
                    return e;
                  }));
  jobs_demand.describe = "alibaba-pods: " + file;
  if (static_cast<double>(jobs_demand.vms.size()) > prices.term_hours)
    return invalid_argument("the trace spans " + strings::fixed(jobs_demand.vms.size() / 24.0, 0) +
                                " days, longer than the reservation term (renewals are not "
                                "modelled); use demand.time_scale or a 3y term",
                            s.where("demand.time_scale"));
  rep.assumptions.push_back({"gpus_per_vm", strings::fixed(per_vm, 2),
                             spec.gpus_per_vm ? "scenario file" : "catalog (VM size)"});
  rep.assumptions.push_back({"billing",
                             "per second: an hour bills each VM for the part of it that VM runs",
                             "Azure VMs are billed per second"});
  rep.assumptions.push_back(
      {"scale_down_minutes", strings::fixed(scale_down_minutes, 1),
       spec.scale_down_minutes
           ? "scenario file (demand.scale_down_minutes)"
           : "AKS cluster autoscaler's scale-down-unneeded-time default (learn.microsoft.com, "
             "\"Cluster autoscaler profile\"); demand.scale_down_minutes"});
  for (const DropNote& d : jobs_demand.drops)
    rep.notes.push_back("trace: dropped " + std::to_string(d.count) + " " + d.what);
  return jobs_demand;
}

// One run as a report row.
PolicyRow row_of(const ReserveRun& r, double opt, double gpu_hours) {
  PolicyRow one;
  one.cost_usd = r.cost_usd;
  one.cost_vs_optimal = opt > 0 ? r.cost_usd / opt : 1.0;
  one.scale_events = r.purchases;
  one.gpu_hours = gpu_hours;
  one.on_demand_usd = r.payg_usd;
  one.reserved_usd = r.reserved_usd;
  one.committed_after_usd = r.committed_after_usd;
  one.loss_after_usd = r.loss_after_usd;
  return one;
}

}  // namespace

Result<SimReport> run_reserve_scenario(const Scenario& s, const catalog::Catalog* cat,
                                       const RunOptions& o) {
  const ReserveSpec& spec = s.reservation();
  SimReport rep;
  GPUPLAN_TRY(const auto policies, start_report(s, o, "reserve", reserve_policy_names(), rep));
  GPUPLAN_TRY(const ReservePrices prices, reserve_prices(s, cat, rep));

  // The demand: the job trace (--trace replaces it) or synthetic runs.
  const bool synthetic = spec.demand.format == "synthetic-vms" && !o.trace;
  if (!synthetic) rep.runs = 1;  // a job trace is replayed once
  double gpus = 1;
  if (cat && !s.vm_size.empty())
    if (const catalog::VmSize* z = cat->find_size(s.vm_size)) gpus = z->gpu_count;
  VmDemand jobs_demand;
  if (!synthetic) {
    GPUPLAN_TRY(jobs_demand, trace_demand(s, o, prices, gpus, rep));
  }

  std::vector<std::unique_ptr<ScalingPolicy>> pols;
  for (const auto& name : policies) pols.push_back(make_reserve_policy(name, spec.policy));
  std::vector<PolicyRow> rows(policies.size() + 1);
  for (int run = 0; run < rep.runs; ++run) {
    GPUPLAN_RETURN_IF_ERROR(
        o.deadline.check(std::to_string(run) + " of " + std::to_string(rep.runs) + " runs done"));
    const VmDemand demand =
        synthetic ? synthetic_vms(spec.synthetic_vms, rep.seed * 1000003ULL + run) : jobs_demand;
    if (demand.vms.empty()) return invalid_argument("the demand has no hours", s.where("demand"));
    const ReserveRun best_run = reserve_optimal(demand, prices);
    const double opt = best_run.cost_usd;
    const bool first = run == 0;
    if (first && o.event_log)
      rep.event_log += "# " + demand.describe + " run 0, " + std::to_string(demand.vms.size()) +
                       " hours, optimal $" + strings::fixed(opt, 4) + "\n";
    double vm_hours = 0;
    for (size_t h = 0; h < demand.vms.size(); ++h) vm_hours += demand.vm_hours_above(h);
    for (size_t i = 0; i < pols.size(); ++i) {
      ReserveRun r =
          run_reserve(demand, prices, *pols[i], first && o.event_log ? &rep.event_log : nullptr,
                      first && o.timeline ? 24 : 0);
      accumulate(rows[i], row_of(r, opt, vm_hours * gpus));
      for (const ReserveStep& st : r.timeline)
        rep.timeline.push_back({policies[i], st.t_hours, st.demand_vms,
                                static_cast<double>(st.reserved), "reserved", st.cost_usd});
    }
    PolicyRow best = row_of(best_run, opt, vm_hours * gpus);
    best.cost_vs_optimal = 1.0;
    accumulate(rows.back(), best);
    if (o.progress) o.progress(run + 1, rep.runs);
  }
  TraceRows tr;
  tr.file = synthetic ? "synthetic" : o.trace.value_or(spec.demand.trace);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].policy = i < policies.size() ? policies[i] : "optimal";
    rep.policies.push_back(finish_row(rows[i], rows[i].runs));
  }
  tr.policies = rep.policies;
  rep.traces.push_back(std::move(tr));
  rep.notes.push_back(
      "optimal: the hindsight optimum of each run (knows the whole demand, buys at the same "
      "instants); cost_vs_optimal is the mean over runs of cost / optimal");
  rep.notes.push_back(
      "cost is amortized over the window plus loss_after_usd: what the reservations held at its "
      "end lose against pay-as-you-go over the rest of their term, as after_window says the "
      "work goes on (a reservation is paid for its whole term); committed_after_usd is all "
      "they still owe after the window");
  return rep;
}

}  // namespace gpuplan::simulate::internal
