// Internal pieces shared by the scenario runners (simulate.cc and the three
// run_*.cc files): prices with their provenance, the report's rows and how
// they add up, and the runner of each scenario kind. Not API: other modules
// use simulate.h only.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/json_value.h"
#include "core/result.h"
#include "core/strings.h"
#include "simulate/scenario.h"
#include "simulate/simulate.h"

namespace gpuplan::simulate {

// An assumption as the report and a partial report write it (report.cc,
// partial.cc), beside the type's namespace where argument-dependent lookup
// finds it.
GPUPLAN_JSON_FIELDS(Assumed, name, value, source)

}  // namespace gpuplan::simulate

namespace gpuplan::simulate::internal {

// `v` with `digits` decimals (reports and assumptions).

struct Prices {
  double od = 0;    // on-demand (pay-as-you-go), per VM-hour
  double spot = 0;  // spot, per VM-hour (0 when not asked for)
};

// A Linux price of the scenario's size and region from the catalog, recorded
// in `assumed` with its source and date (and its rule when estimated).
// kNotFound without a catalog or when the catalog has no such offer.
[[nodiscard]] Result<double> catalog_price(const Scenario& s, const catalog::Catalog* cat,
                                           catalog::Pricing pr, const std::string& what,
                                           std::vector<Assumed>& assumed);

// Where explicit prices come from ("scenario file" or the scenario's source
// and date).
[[nodiscard]] std::string price_source(const Scenario& s);

// On-demand (payg) and, when `need_spot`, spot prices: the scenario's, else
// the catalog's; each recorded in `assumed`.
[[nodiscard]] Result<Prices> resolve_prices(const Scenario& s, const catalog::Catalog* cat,
                                            bool need_spot, std::vector<Assumed>& assumed);

// A sum of `n` runs' rows turned into their mean.
[[nodiscard]] PolicyRow finish_row(PolicyRow r, double n);

// Adds a run's row (runs 0: one run) or a sum of rows (runs: how many).
void accumulate(PolicyRow& into, const PolicyRow& one);

// A report's header (scenario, kind, seed, runs) and the policies to run:
// the options', else the scenario's, else every policy of the kind (`all`);
// a name neither in `all` nor in `on_request` is kInvalidArgument at --policy.
[[nodiscard]] Result<std::vector<std::string>> start_report(
    const Scenario& s, const RunOptions& o, const std::string& kind,
    const std::vector<std::string>& all, SimReport& rep,
    const std::vector<std::string>& on_request = {});

// The deadline report's rows (per trace, then over all traces) from every
// run's record, in run order: the same sums whether the runs came from one
// process or from the partial reports of several.
void finish_deadline_report(SimReport& rep, const std::vector<std::string>& names,
                            const std::vector<RunRecord>& records);

// The runners of each kind (run_deadline.cc, run_serving.cc, run_reserve.cc).
[[nodiscard]] Result<SimReport> run_deadline_scenario(const Scenario& s,
                                                      const catalog::Catalog* cat,
                                                      const RunOptions& o);
[[nodiscard]] Result<SimReport> run_serving_scenario(const Scenario& s, const catalog::Catalog* cat,
                                                     const RunOptions& o);
[[nodiscard]] Result<SimReport> run_reserve_scenario(const Scenario& s, const catalog::Catalog* cat,
                                                     const RunOptions& o);

}  // namespace gpuplan::simulate::internal
