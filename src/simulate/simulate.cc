// The simulator's entry point and what its three runners share. run_scenario
// checks the options that do not depend on the kind and hands the scenario
// to the runner of its kind (run_deadline.cc, run_serving.cc,
// run_reserve.cc). The shared parts live here: prices from the scenario or
// the catalog, always recorded with their source and date; the report's rows
// and how runs add up to means; the report's header and the choice of
// policies. The models are in deadline.cc, serving.cc and reserve.cc; the
// output formats in report.cc.
#include "simulate/simulate.h"

#include <algorithm>

#include "core/strings.h"
#include "simulate/internal/runner.h"

namespace gpuplan::simulate {

namespace internal {

// A Linux price of the scenario's size and region from the catalog, recorded
// with its source and date (and its rule when estimated).
Result<double> catalog_price(const Scenario& s, const catalog::Catalog* cat, catalog::Pricing pr,
                             const std::string& what, std::vector<Assumed>& assumed) {
  if (!cat)
    return not_found("no catalog to look up the " + what + " price; give prices: in the scenario",
                     s.where("prices"));
  const catalog::Offer* o = cat->offer(s.vm_size, s.region, catalog::Os::kLinux, pr);
  if (!o || !o->usd_per_hour)
    return not_found("the catalog has no " + what + " price for " + s.vm_size + " in " +
                         (s.region.empty() ? "(no region)" : s.region) +
                         "; give prices: in the scenario",
                     s.where("vm.size"));
  assumed.push_back({what + "_usd_per_hour", strings::fixed(*o->usd_per_hour, 4),
                     "catalog: " + o->source + " as of " + o->as_of +
                         (o->estimated ? " (estimated: " + o->rule.text() + ")" : "")});
  return *o->usd_per_hour;
}

// Where explicit prices come from.
std::string price_source(const Scenario& s) {
  return s.price_source.empty()
             ? "scenario file"
             : s.price_source + (s.price_as_of.empty() ? "" : " as of " + s.price_as_of);
}

// On-demand (payg) and spot prices with their provenance.
Result<Prices> resolve_prices(const Scenario& s, const catalog::Catalog* cat, bool need_spot,
                              std::vector<Assumed>& assumed) {
  Prices p;
  auto from_catalog = [&](catalog::Pricing pr, const char* what) {
    return catalog_price(s, cat, pr, what, assumed);
  };
  const std::string src = price_source(s);
  if (s.od_usd_per_hour) {
    p.od = *s.od_usd_per_hour;
    assumed.push_back({"on_demand_usd_per_hour", strings::fixed(p.od, 4), src});
  } else {
    GPUPLAN_TRY(p.od, from_catalog(catalog::Pricing::kPayg, "on_demand"));
  }
  if (!need_spot) return p;
  if (s.spot_usd_per_hour) {
    p.spot = *s.spot_usd_per_hour;
    assumed.push_back({"spot_usd_per_hour", strings::fixed(p.spot, 4), src});
  } else if (s.spot_ratio) {
    p.spot = p.od * *s.spot_ratio;
    assumed.push_back(
        {"spot_usd_per_hour", strings::fixed(p.spot, 4),
         "on-demand x spot_ratio " + strings::fixed(*s.spot_ratio, 4) + " (" + src + ")"});
  } else {
    GPUPLAN_TRY(p.spot, from_catalog(catalog::Pricing::kSpot, "spot"));
  }
  assumed.push_back({"spot_to_on_demand_ratio", strings::fixed(p.spot / p.od, 4), "derived"});
  return p;
}

PolicyRow finish_row(PolicyRow r, double n) {
  if (n <= 0) return r;
  r.cost_usd /= n;
  if (r.cost_vs_optimal) *r.cost_vs_optimal /= n;
  if (r.deadline_met_fraction) *r.deadline_met_fraction /= n;
  r.evictions /= n;
  r.scale_events /= n;
  r.gpu_hours /= n;
  r.on_demand_usd /= n;
  r.spot_usd /= n;
  if (r.reserved_usd) *r.reserved_usd /= n;
  if (r.committed_after_usd) *r.committed_after_usd /= n;
  if (r.loss_after_usd) *r.loss_after_usd /= n;
  return r;
}

// Adds a run's row (runs 0: one run) or a sum of rows (runs: how many).
void accumulate(PolicyRow& into, const PolicyRow& one) {
  into.cost_usd += one.cost_usd;
  if (one.cost_vs_optimal)
    into.cost_vs_optimal = into.cost_vs_optimal.value_or(0) + *one.cost_vs_optimal;
  if (one.deadline_met_fraction)
    into.deadline_met_fraction =
        into.deadline_met_fraction.value_or(0) + *one.deadline_met_fraction;
  into.evictions += one.evictions;
  into.scale_events += one.scale_events;
  into.gpu_hours += one.gpu_hours;
  into.on_demand_usd += one.on_demand_usd;
  into.spot_usd += one.spot_usd;
  if (one.reserved_usd) into.reserved_usd = into.reserved_usd.value_or(0) + *one.reserved_usd;
  if (one.committed_after_usd)
    into.committed_after_usd = into.committed_after_usd.value_or(0) + *one.committed_after_usd;
  if (one.loss_after_usd)
    into.loss_after_usd = into.loss_after_usd.value_or(0) + *one.loss_after_usd;
  into.runs += std::max(one.runs, 1);
}

// A report's header (scenario, kind, seed, runs) and the policies to run:
// the options', else the scenario's, else every policy of the kind; a name
// the kind does not know is kInvalidArgument at --policy.
Result<std::vector<std::string>> start_report(const Scenario& s, const RunOptions& o,
                                              const std::string& kind,
                                              const std::vector<std::string>& all, SimReport& rep,
                                              const std::vector<std::string>& on_request) {
  rep.scenario = s.name;
  rep.kind = kind;
  rep.runs = o.runs.value_or(s.runs);
  rep.seed = o.seed.value_or(s.seed);
  std::vector<std::string> chosen = o.policies.empty() ? s.policies : o.policies;
  if (chosen.empty() || (chosen.size() == 1 && chosen[0] == "all")) return all;
  for (const auto& p : chosen) {
    if (std::find(all.begin(), all.end(), p) != all.end()) continue;
    if (std::find(on_request.begin(), on_request.end(), p) != on_request.end()) continue;
    std::string msg = "unknown policy '" + p + "' for a " + kind + " scenario";
    if (auto c = strings::closest(p, all))
      msg += "; did you mean '" + *c + "'?";
    else {
      msg += "; expected all or one of:";
      for (const auto& a : all) msg += " " + a;
    }
    return invalid_argument(msg, Where{"", 0, 0, "--policy"});
  }
  // A name given twice runs once: its rows would repeat, and each run's
  // bookkeeping (hindsight's search notes) is one per name.
  std::vector<std::string> once;
  for (const auto& p : chosen)
    if (std::find(once.begin(), once.end(), p) == once.end()) once.push_back(p);
  return once;
}

}  // namespace internal

Result<SimReport> run_scenario(const Scenario& scenario, const catalog::Catalog* catalog,
                               const RunOptions& options) {
  if (options.runs && *options.runs < 1)
    return invalid_argument("expected --runs >= 1", Where{"", 0, 0, "--runs"});
  if (scenario.kind() == ScenarioKind::kDeadline) {
    if (options.trace)
      return invalid_argument(
          "--trace replaces a demand trace; a deadline scenario has spot traces (--spot-trace)",
          Where{"", 0, 0, "--trace"});
    return internal::run_deadline_scenario(scenario, catalog, options);
  }
  if (!options.spot_traces.empty())
    return invalid_argument(
        "--spot-trace applies to deadline scenarios; this one is " +
            std::string(scenario.kind() == ScenarioKind::kReserve ? "reserve" : "serving"),
        Where{"", 0, 0, "--spot-trace"});
  if (scenario.kind() == ScenarioKind::kReserve)
    return internal::run_reserve_scenario(scenario, catalog, options);
  return internal::run_serving_scenario(scenario, catalog, options);
}

}  // namespace gpuplan::simulate
