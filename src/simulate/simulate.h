// The simulator's entry point: run a scenario's policies (and the `optimal`
// row) and report cost, SLO attainment, deadlines met, evictions and scale
// events, with a timeline and an event log. Deterministic: the same scenario,
// traces, options and seed give byte-identical reports and logs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/deadline.h"
#include "core/result.h"
#include "simulate/scenario.h"

namespace gpuplan::simulate {

struct RunOptions {
  std::vector<std::string> policies;     // empty: the scenario's; {"all"}: every policy
  std::optional<std::string> trace;      // replaces the scenario's demand trace
  std::vector<std::string> spot_traces;  // replace the scenario's spot traces
  std::optional<int> runs;
  std::optional<uint64_t> seed;
  bool event_log = false;  // fill SimReport::event_log
  bool timeline = false;   // fill SimReport::timeline
  // Called after each run (deadline: each start offset of each trace;
  // reserve: each demand draw) with the runs done and the total. Optional;
  // never called by two threads at once.
  std::function<void(int64_t done, int64_t total)> progress;
  // Deadline: threads running independent runs; 0 = the machine's hardware
  // threads. The report does not depend on it (byte for byte).
  int threads = 0;
  // Deadline: run only slice `index` (0-based) of `count` deterministic
  // slices of the runs and return a partial report (SimReport::partial).
  struct Shard {
    int index = 0;
    int count = 1;
  };
  std::optional<Shard> shard;
  // Serving: simulated seconds each replay may run (ServingConfig::
  // max_simulated_s); 0: no limit. The server sets it from its work caps.
  double max_simulated_s = 0;
  // Serving, with `timeline`: timeline points all policies' replays may keep
  // together (0: no limit); past it the run is kInvalidArgument at
  // fleet.timeline_seconds. The CLI sets it: a 1 s timeline of 88 h held
  // 1.4 GB, and of 876 h ran out of memory.
  double max_timeline_points = 0;
  // Serving: when no policy that can be deployed meets the target, search
  // for the fewest VMs a fixed fleet meets it with (more replays of the
  // demand, 2 log2 max_replicas + 1 at most) and note it. The server turns
  // it off: its work caps count the policies' replays, not these.
  bool fixed_fleet_search = true;
  // When to give up (kDeadlineExceeded): serving replays check it every
  // 1,024 events, deadline and reserve sweeps before each run. None by
  // default; the server sets one per request.
  Deadline deadline;
};

// One row of the report: means over every run of every trace (top level) or
// of one trace (per trace). Fields that do not apply are nullopt.
struct PolicyRow {
  std::string policy;
  double cost_usd = 0;
  std::optional<double> cost_vs_optimal;  // mean of per-run cost / optimal cost
  std::optional<double> slo_attainment;
  std::optional<double> p50_ttft_ms, p99_ttft_ms, p99_tpot_ms;
  // Serving rows only (the JSON has them there, null where a field does not
  // apply): median TPOT, VM-hours (replica-hours of the fleet), requests
  // turned away by admission.
  std::optional<double> p50_tpot_ms, vm_hours, rejected;
  // Serving: running requests lost to spot evictions (counted as misses).
  std::optional<double> evicted;
  // Serving: admitted requests that missed the TTFT, the TPOT (one may miss
  // both), and of the missed those no fleet serves (ServingRun's counts).
  std::optional<double> missed_ttft, missed_tpot, hopeless;
  std::optional<double> deadline_met_fraction;
  double evictions = 0;
  double scale_events = 0;
  double gpu_hours = 0;
  double on_demand_usd = 0;  // cost by pricing model
  double spot_usd = 0;
  std::optional<double> reserved_usd;         // reserve: reservation hours in the window
  std::optional<double> committed_after_usd;  // reserve: reservation hours owed after it
  std::optional<double> loss_after_usd;       // reserve: what they lose after it (in cost_usd)
  int runs = 0;
};

struct TraceRows {
  std::string file;
  double spot_availability = -1;  // deadline traces; -1 otherwise
  std::vector<PolicyRow> policies;
};

struct TimelineRow {
  std::string policy;
  double t_hours = 0;
  double demand = 0;     // serving: requests/s; deadline: progress (hours); reserve: VMs in use
  double replicas = 0;   // serving: VMs billed; deadline: 1 while a VM runs; reserve: reserved
  std::string capacity;  // "payg" | "spot" | "payg+spot" | "on-demand" | "none" | "reserved"
  double cost_usd = 0;   // cumulative
  // Serving: TTFT (mean, 99th percentile, maximum) and TPOT (mean, 99th
  // percentile), ms, of the requests admitted in the interval ending here;
  // nullopt for other kinds and empty intervals.
  std::optional<double> ttft_mean_ms, ttft_p99_ms, ttft_max_ms, tpot_mean_ms, tpot_p99_ms;
  // Serving: the requests that missed the SLO, each counted in the interval
  // in which it was admitted (and missed), turned away, or lost to an
  // eviction after meeting it; nullopt for other kinds.
  std::optional<int64_t> missed;
};

// One deadline run: the row of each policy, then the optimum's; what a
// partial report carries so that merging reproduces the single run's sums.
struct RunRecord {
  int trace = 0;  // index of the trace (block) in the report
  int run = 0;    // index of the run within it
  std::vector<PolicyRow> rows;
};

// What a shard ran: its slice, the number of runs in all slices, and each
// run's record in run order. Its SimReport has the header (scenario, seed,
// assumptions, notes, trace files) but no rows; merge_partials adds them.
struct Partial {
  int index = 0;
  int count = 1;
  int64_t total_runs = 0;
  std::vector<std::string> policies;  // in report order, "optimal" last
  std::vector<RunRecord> records;
};

// bugprone-exception-escape: clang-tidy 14 finds a throw in ordered_json's
// noexcept default constructor that value_t::null never reaches (as on
// SloGuardExport, autoscale_export.h; llvm/llvm-project#54956).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct SimReport {
  std::string scenario;
  std::string kind;  // "deadline" | "serving" | "reserve"
  int runs = 1;
  uint64_t seed = 1;
  std::vector<Assumed> assumptions;
  std::vector<PolicyRow> policies;  // the policies, then "optimal"
  std::vector<TraceRows> traces;
  std::vector<std::string> notes;     // what readers dropped, caveats
  std::vector<TimelineRow> timeline;  // first run of the first trace, per policy
  std::string event_log;
  // Serving: the nearest exportable rule set that ran (the cheapest of
  // azure-autoscale and slo-guard-autoscale that meets the attainment
  // target, else the one closest to it) as an ARM template that deploys its
  // Microsoft.Insights/autoscaleSettings on a scale set named by parameter;
  // null when neither ran. `simulate --export-autoscale` writes it.
  nlohmann::ordered_json autoscale_export;
  std::string autoscale_export_policy;
  int64_t events = 0;              // simulated events (serving)
  std::optional<Partial> partial;  // set by a --shard run (deadline)
};

// Runs the scenario. `catalog` may be null when the scenario gives its prices
// and replica explicitly. Errors: kNotFound (a trace, a size or a price the
// catalog lacks), kInvalidArgument (bad traces, options, a policy name).
[[nodiscard]] Result<SimReport> run_scenario(const Scenario& scenario,
                                             const catalog::Catalog* catalog,
                                             const RunOptions& options);

// A shard's partial report as JSON (every number round-trips exactly), and
// the report of the whole sweep from all partials of one sweep, identical to
// the report of a single run. kInvalidArgument (naming the file) when a
// partial is malformed, belongs to another sweep, repeats a slice or one is
// missing.
[[nodiscard]] nlohmann::ordered_json partial_json(const SimReport& report);
[[nodiscard]] Result<SimReport> merge_partials(const std::vector<nlohmann::json>& partials,
                                               const std::vector<std::string>& files);

// Output formats (stable key order).
[[nodiscard]] nlohmann::ordered_json to_json(const SimReport& report);
// Tables and wrapped text within `width` columns (at least 60); sources in
// full when `verbose`, else their short form (strings::short_source).
[[nodiscard]] std::string to_text(const SimReport& report, size_t width = 100,
                                  bool verbose = false);
[[nodiscard]] std::string timeline_csv(const SimReport& report);
[[nodiscard]] nlohmann::ordered_json timeline_json(const SimReport& report);
// timeline_json(report).dump(indent), written a point at a time: a DOM of a
// long deadline sweep's timeline held 12x the file's size (579 MB for 66 MB).
[[nodiscard]] std::string timeline_json_text(const SimReport& report, int indent);
// The scripts a plot page carries inline: the charting library (Chart.js,
// server/web_files.h finds it) and the code that draws the simulation's
// charts with it (src/server/web/charts.js, the web page's own).
struct PlotScripts {
  std::string_view library;
  std::string_view charts;
};
// A self-contained HTML page: the policy table, and charts of cost and the
// service figure by policy, and of demand, replicas, latency (serving) and
// cumulative cost over time, with axes, units and legends. It loads nothing
// from elsewhere.
[[nodiscard]] std::string plot_html(const SimReport& report, const PlotScripts& scripts);

}  // namespace gpuplan::simulate
