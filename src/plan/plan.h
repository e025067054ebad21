// The planner: which VM size, how many, in which region, on which pricing
// model — ranked, with the cost–time Pareto frontier, fallbacks, the drops
// explained in aggregate and the quota requests that would unlock a better
// option. docs/plan.md documents the objectives and the JSON; plan.cc starts
// with the algorithm.
//
// CONTRACT for cli, server and deploy: the types and functions below.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/result.h"
#include "cost/cost.h"
#include "estimate/estimate.h"
#include "workload/workload.h"

namespace gpuplan::plan {

enum class Objective { kCost, kTime, kBalanced };
inline constexpr Objective kAllObjectives[] = {Objective::kCost, Objective::kTime,
                                               Objective::kBalanced};
[[nodiscard]] std::string_view to_string(Objective o);  // "cost", "time", "balanced"
// kInvalidArgument naming the accepted spellings.
[[nodiscard]] Result<Objective> parse_objective(std::string_view s);

// What the user may override on the command line (or the server's request).
// Unset fields take the workload's value, then rates.csv's default; each one
// used is listed in Plan::assumptions with where it came from.
struct PlanOptions {
  Objective objective = Objective::kCost;
  int top = 10;        // options[] length (>= 1)
  int max_count = 64;  // VMs per option, upper bound (default cap)
  // True when max_count was given explicitly (--max-nodes): it then replaces
  // the workload's max_nodes; otherwise max_nodes, when set, replaces the
  // default cap (up to kMaxVmsPerOption, beyond which planning is an error).
  bool max_count_given = false;
  std::vector<std::string> regions;        // replaces the workload's allowed regions
  std::vector<catalog::Pricing> pricings;  // empty = all six
  std::optional<catalog::Os> os;
  std::optional<bool> hybrid_benefit;
  std::optional<bool> allow_spot;       // false = like `spot: never`
  std::optional<double> utilization;    // commitments, (0, 1]
  std::optional<double> eviction_rate;  // per VM-hour
  std::optional<double> eviction_rate_high;
  std::optional<double> restart_hours;
  std::optional<double> checkpoint_hours;
  std::optional<double> setup_hours;
  std::optional<double> data_disk_gib;
  std::optional<double> egress_gb;   // to the internet
  std::optional<double> dataset_gb;  // moved from the workload's data_region
  // Blob storage for the dataset and checkpoints (docs/cost.md, "Blob
  // storage"): GB (default: derived from the workload), access tier, and the
  // price per GB-month (none: the line says "no listed price").
  std::optional<double> blob_gb;
  std::optional<std::string> blob_tier;  // "hot" (default) | "cool"
  std::optional<double> blob_usd_per_gb_month;
  std::optional<double> billing_minimum_seconds;
  std::optional<double> deadline_hours;  // replaces the workload's
  std::optional<double> budget_usd;      // replaces the workload's
  std::optional<int> horizon_weeks;      // replaces constraints.horizon_weeks
  int fallbacks_per_kind = 3;            // other regions, other sizes
  // AMD GPUs (MI300X, MI25, V620, V710) need ROCm/AMD drivers, which
  // `gpuplan stack`/`deploy` do not set up; they are dropped unless allowed.
  bool allow_amd = false;
  // Access-restricted regions (catalog::RegionAccess) are dropped unless
  // this is set or the region is named (workload or --region), with a note.
  bool include_restricted_regions = false;
};

// The most VMs one option may have: a Virtual Machine Scale Set holds up to
// 1,000 VMs (Microsoft Learn, "Virtual Machine Scale Sets overview", scale
// limits). A max_nodes above it is an error, never silently capped.
inline constexpr int kMaxVmsPerOption = 1000;
// The largest hours or dollars a plan may hold, the bound `deploy` and
// `report --plan` apply when they read PLAN.json (1e308 hours once became a
// 309-digit line of deploy.sh). make_plan and `estimate` apply it too, so
// that gpuplan never writes a plan it then refuses to read: a batch of 1e15
// items of a week each planned 8.7e15 h, which deploy refused.
inline constexpr double kMaxPlanFigure = 1e15;
// The workload field that sets a job's length (data.items, data.tokens,
// data.samples, serving.duration_hours): where a plan or an estimate past
// kMaxPlanFigure is refused.
[[nodiscard]] std::string length_field(const workload::Workload& workload);
// kInvalidArgument at length_field when an estimate that fits takes more
// than kMaxPlanFigure hours: what `estimate` and the server's /api/estimate
// answer, so that neither shows a job make_plan would refuse to plan.
[[nodiscard]] Status estimates_within_bounds(const workload::Workload& workload,
                                             const std::vector<estimate::Estimate>& results);
// The most replicas or VMs a growth week shows (GrowthWeek): counts past it
// (+1,000 % a week for 10 weeks is 2.6e10 times the load) are capped here.
inline constexpr int kGrowthCountCap = 1'000'000'000;

// The estimator as the planner sees it: the default is estimate::estimate;
// tests pass a fake.
using EstimateFn =
    std::function<estimate::Estimate(const catalog::VmSize&, const catalog::Gpu&, int count)>;

struct SpotRisk {
  double eviction_rate_per_hour = 0;       // per VM, expected
  double eviction_rate_high_per_hour = 0;  // per VM, for cost_high
  double job_eviction_rate_per_hour = 0;   // what interrupts the work
  double expected_evictions = 0;
  double deadline_miss_probability = 0;  // 0 without a deadline
  // "unknown" when no Azure band was imported for the size and region (and
  // no --eviction-rate given): the rates are then gpuplan's default range.
  // Else "low" / "medium" / "high" (spot_risk.h says how).
  std::string level;
  std::string rate_basis;           // "azure-band" | "default" | "override"
  std::optional<std::string> band;  // Azure's band ("10-15"), when imported
  std::string band_source;          // the import it came from
  std::string band_as_of;           // YYYY-MM-DD
  // Serving: VMs added beyond those that carry the request rate, so that
  // evictions leave the rate served (internal::serving_spares); the
  // option's count includes them. 0 for jobs.
  int spare_vms = 0;
};

// One ranked option. Field meanings follow docs/plan.md's JSON.
struct Option {
  int rank = 0;  // 1-based in its list
  std::string size;
  int count = 0;          // VMs
  double gpus = 0;        // GPUs in all VMs: count x gpu_count
  std::string gpu_model;  // "H100-SXM" (JSON "gpu", as in the catalog)
  double gpu_count = 0;   // GPUs per VM (fractional for partial GPUs: 0.1667)
  std::string region;
  catalog::Pricing pricing = catalog::Pricing::kPayg;
  catalog::Os os = catalog::Os::kLinux;
  bool hybrid_benefit = false;
  double hours = 0;  // expected wall-clock
  double hours_low = 0;
  double hours_high = 0;
  double work_hours = 0;  // estimator's
  double cost_usd = 0;
  double cost_low_usd = 0;
  double cost_high_usd = 0;
  double usd_per_hour = 0;  // all VMs
  double usd_per_gpu_hour = 0;
  int vcpus = 0;  // all VMs
  bool quota_ok = true;
  bool quota_known = false;
  std::optional<double> quota_headroom_vcpus;
  std::string quota_family;
  std::string kind;    // workload kind
  std::string layout;  // "tp=8 pp=2 dp=4"
  double throughput = 0;
  std::string throughput_unit;
  double mfu = 0;
  cost::PriceQuote price;
  std::optional<SpotRisk> spot_risk;
  std::string why;
  std::string fallback_for;  // fallbacks only: "region" | "size"
  // A confidential-computing size (NCC*): offered only when the workload
  // sets constraints.confidential; `caveats` then say what it requires.
  bool confidential = false;
  // What an engineer must know before choosing this option (confidential
  // computing's requirements, ...); shown under the option.
  std::vector<std::string> caveats;
  // Why this option's price looks wrong (a spot discount beyond its series'
  // usual range, a price far below its same-GPU siblings'); empty when it
  // looks right. Such options rank after every option without a warning.
  std::vector<std::string> price_warnings;
  std::vector<cost::CostLine> lines;
};

struct Drop {
  std::string reason;   // "does not fit", "misses deadline", "family quota", ...
  long long count = 0;  // candidates dropped for it
  int regions = 0;      // distinct regions among them
  int sizes = 0;        // distinct sizes among them
  std::string example;  // one of them, with the numbers
};

// One vCPU limit that stands in the way of an option.
struct QuotaLimit {
  std::string scope;     // "family" | "regional" (all families) | "spot" (low-priority pool)
  std::string resource;  // the quota's name: the family, "cores", "lowPriorityCores"
  double limit = 0;      // current
  double used = 0;
  double needed = 0;     // vCPUs the option needs
  double new_limit = 0;  // the value to ask for: used + needed
  std::string command;   // `az quota` that asks for it
};

// A request that would unlock a better option. The top-level fields describe
// the first limit (the family or the spot pool when it binds, else the
// regional total); `limits` names every limit that binds, each with its own
// command — on a new subscription the regional total (`cores`) often binds
// before the family does.
struct QuotaRequest {
  std::vector<QuotaLimit> limits;
  std::string family;
  std::string region;
  bool spot = false;
  double limit = 0;
  double used = 0;
  double vcpus_needed = 0;  // for the option
  double new_limit = 0;     // used + needed
  Option unlocks;
  double saves_usd = 0;  // vs the winner; 0 when nothing else is feasible
  std::string command;
};

struct Assumption {
  std::string name;
  std::string value;
  std::string source;
};

// One week of a growing workload, for the winner.
struct GrowthWeek {
  int week = 0;              // 1-based
  double demand_factor = 0;  // (1 + g)^week: data or request rate vs today
  // Serving: the rate at the week's end, the replicas and VMs that meet it
  // (what the scale set must reach), the week's cost with the fleet
  // following the load. Training/fine-tuning that repeats: the run's hours
  // and cost on that week's data.
  double rate_rps = 0;
  int replicas = 0;
  int vms = 0;
  double hours = 0;
  double cost_usd = 0;
  std::optional<double> budget_usd;  // the week's budget when one is set
  bool meets_deadline = true;
  bool within_budget = true;
  // Serving: the load needs more VMs than one scale set holds
  // (kMaxVmsPerOption); replicas and vms are then capped at 10^9.
  bool beyond_scale_set = false;
};

// What growth does to the plan (data.growth_per_week > 0), over
// horizon_weeks. docs/plan.md, "Growth".
struct Growth {
  double growth_per_week = 0;
  int horizon_weeks = 0;
  std::vector<GrowthWeek> weeks;
  // Serving: the horizon's cost with the fleet following the load, against
  // today's fleet held flat; their ratio is cost::mean_growth_factor.
  double flat_cost_usd = 0;
  double grown_cost_usd = 0;
  double mean_load_factor = 1;
  // Serving: a 1-year reservation bought today pays for the VMs the demand
  // needs by this week (cost::reservation_pays_until_weeks); nullopt without
  // a reserved-1y price.
  std::optional<double> reserve_pays_until_week;
  int reserve_vms = 0;
  // Recurring training: the first week the winner misses the deadline, and
  // the frontier option that still meets it then ("" when none does).
  std::optional<int> misses_deadline_week;
  std::string move_to;
  std::optional<int> over_budget_week;
  std::optional<int> beyond_scale_set_week;  // serving: the first week beyond_scale_set
  std::string summary;                       // one sentence: what growth does to the choice
};

struct Plan {
  std::string workload_name;
  std::string workload_file;
  std::string kind;
  Objective objective = Objective::kCost;
  long long considered = 0;  // candidates enumerated
  long long feasible = 0;
  std::vector<Option> options;   // ranked, best first
  std::vector<Option> frontier;  // fastest first
  std::vector<Option> fallbacks;
  std::vector<Drop> dropped;  // most frequent first
  std::vector<std::string> warnings;
  std::vector<Assumption> assumptions;
  std::vector<QuotaRequest> quota_requests;
  std::optional<Growth> growth;  // data.growth_per_week > 0 and an option exists
};

// Plans `workload` over `catalog`. Errors: kInvalidArgument for bad options
// (top < 1, utilization outside (0, 1], negative hours). Nothing feasible is
// NOT an error: the Plan has no options and `dropped` says why (the CLI
// exits 1).
[[nodiscard]] Result<Plan> make_plan(const workload::Workload& workload,
                                     const catalog::Catalog& catalog, const cost::Rates& rates,
                                     const PlanOptions& options);
// The same with an injected estimator (tests, what-if tools).
[[nodiscard]] Result<Plan> make_plan(const workload::Workload& workload,
                                     const catalog::Catalog& catalog, const cost::Rates& rates,
                                     const PlanOptions& options, const EstimateFn& estimator);

// The score an objective ranks by (lower is better): cost, hours, or
// cost x sqrt(hours). Exposed so tests and tools rank the same way.
[[nodiscard]] double objective_score(Objective o, double cost_usd, double hours);

// The schema string of the plan JSON this gpuplan writes (docs/json.md).
// Readers (deploy, report) accept it and "gpuplan.plan/1".
inline constexpr std::string_view kPlanSchema = "gpuplan.plan/2";

// The stable JSON of docs/plan.md and docs/json.md ("schema": kPlanSchema),
// every number at full precision.
[[nodiscard]] nlohmann::ordered_json to_json(const Plan& plan);
[[nodiscard]] nlohmann::ordered_json to_json(const Option& option);

}  // namespace gpuplan::plan
