// Serving: replay requests against a fleet of model replicas that a policy
// scales, and measure cost and latency (serving.cc and serving_policies.cc
// have the essays).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/deadline.h"
#include "core/result.h"
#include "estimate/serving_engine.h"
#include "simulate/demand.h"
#include "simulate/histogram.h"
#include "simulate/policy.h"

namespace gpuplan::simulate {

// What one replica can do: continuous batching with a compute-bound prefill
// and a memory-bound decode step (the estimator's per-replica model, reduced
// to the four numbers the simulator needs — see replica_capacity()).
struct ReplicaCapacity {
  double prefill_tokens_per_s = 10000;  // prompt tokens per second of one replica
  double prefill_fixed_s = 0.005;       // per-request prefill overhead
  double step_base_s = 0.012;           // decode step at batch -> 0 (weights read)
  double step_per_seq_s = 0.0001;       // added per sequence in the batch (its KV read)
  int max_batch = 256;                  // concurrent sequences whose KV cache fits
  std::string source = "scenario";      // where the numbers come from
  double weight_bytes = 0;              // the model's weights (0: unknown), loaded at start-up
  // Chunked prefill: each engine step runs the batch's decode tokens and at
  // most this many prompt tokens (the estimator's budget by default).
  double chunk_tokens = estimate::kPrefillChunkTokens;

  [[nodiscard]] double prefill_s(double tokens) const {
    return prefill_fixed_s + tokens / prefill_tokens_per_s;
  }
  [[nodiscard]] double step_s(double batch) const { return step_base_s + step_per_seq_s * batch; }
  // Seconds of one prefill chunk's compute.
  [[nodiscard]] double chunk_s() const { return chunk_tokens / prefill_tokens_per_s; }
  // Share of the TPOT target the decode step may take at the planning batch.
  static constexpr double kDecodeShareOfTpot = 0.5;
  // Largest batch <= max_batch whose decode step takes at most half of
  // `tpot_s`; the rest is headroom for prefill stalls. When even batch 1
  // needs more than half (a slow step, e.g. tensor parallelism over PCIe),
  // the largest batch whose step fits the whole of `tpot_s`; 1 when none does.
  [[nodiscard]] int batch_at_slo(double tpot_s) const;
  // GPU-seconds one request occupies a replica running at batch_at_slo:
  // its prefill plus its share of the decode steps.
  [[nodiscard]] double work_s(double input_tokens, double output_tokens, double tpot_s) const;
  // work_s() with the planning batch `b` and its step step_s(b) computed
  // once (the engine's and the profile's per-request path); equal to work_s.
  [[nodiscard]] double work_s_at(double input_tokens, double output_tokens, double b,
                                 double step_b) const {
    return prefill_s(input_tokens) + output_tokens * step_b / b;
  }
};

// How the router picks a replica for a request (among those that admit: ready,
// below max_batch). kShortestQueue: join the shortest queue, measured as the
// prefill work queued on the replica (the time its queued prefills end),
// then the fewest running sequences — what a router that knows each
// engine's waiting prompts does (SGLang's shortest-queue, vLLM production
// stack's least-loaded). kLeastSequences: the fewest running sequences,
// i.e. the least KV cache in sequences.
enum class Routing : uint8_t { kShortestQueue, kLeastSequences };

// What the router does with a request no replica can take as it is.
// kQueue: a replica admits while below max_batch (the KV-cache bound), as
// vLLM does; a request none admits waits in one FIFO queue (up to
// max_queue). Under overload every replica then runs a batch whose step
// misses the TPOT and a prefill queue that misses the TTFT, so every
// request misses until capacity arrives. kShed: the router admits a request
// only to a ready replica on which, by the engine's own latency model, it
// meets both targets (its prefill ends within the TTFT; the step of the
// batch it joins, stretched by the prefill share of its decode's window, is
// within the TPOT), and
// turns it away (an HTTP 429, counted as a miss) when none can — Clockwork's
// rule (Gujarati et al., "Serving DNNs like Clockwork", OSDI 2020: a request
// that cannot meet its deadline is rejected, not run late). Overload then
// costs the requests beyond capacity, not every request. Requests no fleet
// serves (prefill alone over the TTFT, a batch-1 step over the TPOT) are
// admitted as under kQueue: shedding them saves nothing they could have met.
enum class Admission : uint8_t { kQueue, kShed };

// A share of the fleet on Azure Spot, as a flexible scale set's Spot
// Priority Mix sets it (learn.microsoft.com, "Spot Priority Mix for
// high availability and cost savings"): the first `base_regular` VMs are
// pay-as-you-go, and of the VMs above them a share `share` is spot
// (regularPriorityPercentageAboveBase = 100 x (1 - share)). A spot VM is
// evicted after an exponential time at `evictions_per_hour` (Azure quotes
// eviction rates per hour, in bands of 0-5 %, 5-10 %, ... of VMs); the
// Scheduled Events Preempt notice comes `notice_s` before (Azure: "up to 30
// seconds"), when the router stops sending it requests; at the eviction its
// running requests are lost (they miss the SLO, `evicted`). The policies see
// the ready count drop and scale out again; the mix picks the new VM's
// priority.
struct SpotMix {
  double share = 0;  // of the VMs above the base; 0: no spot
  int base_regular = 0;
  double evictions_per_hour = 0;  // per spot VM
  double notice_s = 30;
  double usd_per_hour = 0;  // the spot price
  uint64_t seed = 1;        // of the eviction draws
  // Pay-as-you-go VMs in a fleet of n (the mix rounds the regular count up).
  [[nodiscard]] int regular_of(int n) const {
    if (share <= 0 || n <= base_regular) return n;
    return base_regular + static_cast<int>(std::ceil((n - base_regular) * (1 - share) - 1e-9));
  }
};

// Units. The fleet is counted in VMs — what is launched, billed, started up
// and scaled (a scale set's instance count). Each VM runs `replicas_per_vm`
// model replicas (floor(GPUs per VM / tensor_parallel): an 8B model on a
// 2-GPU VM at tensor_parallel 1 is two independent engines) that start and
// stop with it. Requests are routed to model replicas; the policies' counts
// (min/initial/max_replicas, PolicyInput, PolicyDecision) are VMs, and their
// utilization is the work per model replica averaged over the ready VMs.
struct ServingConfig {
  ReplicaCapacity replica;  // one model replica
  double ttft_slo_s = 1.0;
  double tpot_slo_s = 0.05;
  double slo_attainment = 0.99;     // share of requests that must meet both (the bound's target)
  double startup_s = 300;           // VM start-up to first token served
  double usd_per_hour = 0;          // per VM, pay-as-you-go
  double gpus_per_vm = 1;           // GPU-hours = VM-hours x gpus_per_vm
  int replicas_per_vm = 1;          // model replicas one VM runs (>= 1)
  int min_replicas = 1;             // VMs
  int initial_replicas = 1;         // VMs ready at the start of the replay
  int max_replicas = 64;            // VMs: scaling cap and quota cap, whichever is lower
  double interval_s = 15;           // policy evaluation period
  double timeline_s = 60;           // timeline point spacing (also the optimum's interval)
  double target_utilization = 0.8;  // static-peak, predictive
  Routing routing = Routing::kShortestQueue;
  Admission admission = Admission::kQueue;
  SpotMix spot;
  // kQueue: requests that may wait when every replica is full; the next is
  // turned away (counted, never meets the SLO). 0: no limit.
  int64_t max_queue = 0;
  // kQueue: a request that has waited this long for a replica is given up
  // by its client and leaves the queue (counted as turned away). The
  // default is OpenAI's Python client's request timeout (openai-python,
  // DEFAULT_TIMEOUT = 600 s). 0: clients wait for ever.
  double queue_timeout_s = 600;
  // The model's context: a request whose prompt and answer exceed it is
  // refused at arrival (vLLM answers 400, "maximum context length"),
  // counted as turned away and as one no fleet serves. 0: no limit.
  double max_context_tokens = 0;
  // Simulated seconds a replay may run (0: no limit): one still running
  // past it — a backlog draining long after the last arrival, as when
  // clients wait for ever (queue_timeout_s 0) — stops with kInvalidArgument
  // at fleet.queue_timeout_seconds (or demand, with a timeout). The server
  // sets it from its work caps, which count the demand's duration only.
  double max_simulated_s = 0;
  // Timeline points a replay may keep (0: no limit): one that would keep
  // more stops with kInvalidArgument at fleet.timeline_seconds. Each point
  // is ~100 bytes here and several times that once written.
  double max_timeline_points = 0;
  // When a replay gives up (kDeadlineExceeded): checked every 1,024 events,
  // and by profile_demand. None by default; the server sets one.
  Deadline deadline;
  [[nodiscard]] bool over_context(const Request& r) const {
    return max_context_tokens > 0 &&
           static_cast<double>(r.input_tokens) + r.output_tokens > max_context_tokens;
  }
};

// The longest window over which the engine measures a request's prefill
// share (serving.cc): answers that decode longer see their last 10 minutes.
inline constexpr double kPrefillShareHorizonS = 600;

// The most requests the engine holds waiting; more are turned away. A
// queue that long (64 MiB of requests) is an overload no timeout drains:
// 100,000 req/s on 4 replicas queued 100 MB a second until the process
// ran out of memory.
inline constexpr int64_t kMaxWaiting = int64_t{1} << 22;

struct TimelinePoint {
  double t_hours = 0;
  double demand_rps = 0;
  double replicas = 0;       // VMs billed at the point (ready + starting + draining)
  double spot_replicas = 0;  // of them, spot VMs
  double cost_usd = 0;       // cumulative
  // Latency of the requests admitted in the interval ending at the point
  // (0 when none was): time to first token, mean, 99th percentile and the
  // slowest; time per output token, mean and 99th percentile.
  double ttft_mean_ms = 0;
  double ttft_p99_ms = 0;
  double ttft_max_ms = 0;
  double tpot_mean_ms = 0;
  double tpot_p99_ms = 0;
  // Requests of the interval that missed the SLO: admitted and missed,
  // turned away, or met and then lost to an eviction (the policy input's
  // `missed`, per timeline interval).
  int64_t missed = 0;
};

struct ServingRun {
  double cost_usd = 0;
  double vm_hours = 0;
  double gpu_hours = 0;
  int64_t requests = 0;  // rejected ones included
  int64_t slo_met = 0;
  // turned away by admission (max_queue, shed, kMaxWaiting) or given up
  // after queue_timeout_s in the queue
  int64_t rejected = 0;
  // Spot: VM-hours billed at the spot price (in vm_hours too), evictions,
  // and the running requests they lost (counted as missed: a request that
  // had met the SLO at admission no longer does).
  double spot_vm_hours = 0;
  double spot_usd = 0;  // of cost_usd, at the spot price
  int evictions = 0;    // Preempt notices (a VM whose requests all end in time stops then)
  int64_t evicted = 0;
  // Admitted requests that missed, by cause (one request may miss both):
  // TTFT over its target, TPOT over its target; and of the missed, those no
  // fleet serves (their prefill alone over the TTFT, or a batch-1 decode
  // step over the TPOT).
  int64_t missed_ttft = 0, missed_tpot = 0, hopeless = 0;
  Histogram ttft_ms;  // admitted requests
  Histogram tpot_ms;
  int scale_events = 0;
  int peak_replicas = 0;  // VMs
  // Events the engine processed: arrivals, completions, replicas ready,
  // policy ticks and timeline points (each counted once when handled).
  int64_t events = 0;
  double end_s = 0;
  std::vector<TimelinePoint> timeline;
  [[nodiscard]] double slo_attainment() const {
    return requests ? static_cast<double>(slo_met) / static_cast<double>(requests) : 1.0;
  }
};

// What the lower bound reads from the demand (serving_bound.cc), per bin of
// `bin_s` seconds: the prefill seconds of the requests arriving in the bin
// that some fleet could serve within the SLO, the longest of them, and the
// number of such requests certainly running at the bin's start, counting
// each only up to the end of the bound tick it arrived in (a difference
// array: the count at bin i is the sum of cover_diff[0..i]; the bound charges
// a miss to one tick, its arrival's). Bins start at `grid`'s bin and double in
// length when there would be more than kMaxBins, so memory stays bounded
// whatever the trace's length; the bound's ticks then grow to whole numbers
// of both (tick_bins()).
struct BoundBins {
  static constexpr size_t kMaxBins = size_t{1} << 21;
  double bin_s = 1;
  std::vector<float> prefill_s_sum, prefill_s_max;
  std::vector<int32_t> cover_diff;
  // Bins of `bin_s` seconds and bound ticks of `tick_bins` of them; before add().
  void grid(double first_bin_s, size_t tick_bins);
  // A request arriving at `arrival_s` whose prefill takes `prefill_s` and
  // that, if it meets the SLO, certainly runs during [from, to).
  void add(double arrival_s, double prefill_s, double certain_from_s, double certain_to_s);
  // Bins of the current size per bound tick: a whole number of ticks of the
  // first grid, so that every count stays inside its arrival's tick.
  [[nodiscard]] size_t tick_bins() const;

 private:
  void coarsen();
  double tick_s_ = 0;  // the first grid's tick (0: one bin)
  size_t first_tick_bins_ = 1;
  int coarsened_ = 0;  // times the bins doubled
};

// The bound's replays (bound_replay.cc has the essay): per bound tick of
// the first grid, how many of the requests that arrived in it (those whose
// TTFT deadline falls inside it, of those some fleet serves) the engine
// misses with k VMs ready throughout the tick and idle before it. Only
// ticks that miss some at the floor are kept (sparse: a trace may span
// years), each with the counts it replayed that miss, ascending, and their
// misses, nonincreasing; a count between two of them reads the larger
// one's misses, and a count past the last one 0.
struct TickReplays {
  double tick_s = 0;                  // 0: no replays
  std::vector<size_t> tick;           // ascending
  std::vector<uint32_t> begin = {0};  // tick[i]'s points: [begin[i], begin[i + 1])
  std::vector<int32_t> k;
  std::vector<float> misses;
  // Misses that at most `vms` VMs leave in tick `u`.
  [[nodiscard]] double at(size_t u, int vms) const;
  // The least count that misses none in tick u (0: the floor misses none).
  [[nodiscard]] int enough(size_t u) const;
};

// One grid of bound ticks: the fluid constraints' bins and the replays.
struct BoundGrid {
  BoundBins bins;
  TickReplays replays;
  // The same tick's misses when the last tick's requests ran on the same
  // VMs before it (replay_warm): they count when the fleet was no larger
  // in the last tick than in this one (serving_bound.cc, "Warm ticks").
  TickReplays warm;
};

// What the demand asks of the fleet, per `timeline_s` interval (one pass over
// the source): work in model-replica-seconds at batch_at_slo, and arrivals;
// and what the lower bound needs, on two grids of bound ticks (the policies'
// interval, at least four TTFTs; and at least a minute: serving_bound.cc,
// "Ticks"). grids.front().bins is the interval grid's.
struct DemandProfile {
  double interval_s = 60;
  std::vector<double> work_s;     // per interval
  std::vector<int64_t> arrivals;  // per interval
  double mean_input = 0, mean_output = 0;
  double mean_cached = 0;  // of the input, tokens a shared prefix cache held
  int64_t requests = 0;
  // Requests no fleet serves within the SLO: prefill alone longer than the
  // TTFT target, or (all of them) a decode step at batch 1 above the TPOT.
  int64_t hopeless = 0;
  std::vector<BoundGrid> grids = std::vector<BoundGrid>(1);  // a profile of no demand: one, empty
  // Every policy's fleet runs at least until then; infinity (unknown) bills
  // the last interval whole.
  double last_arrival_s = std::numeric_limits<double>::infinity();
  // VMs of `replicas_per_vm` model replicas that carry the peak interval's
  // work at `target_utilization` (>= 1).
  [[nodiscard]] int peak_replicas(double target_utilization, int replicas_per_vm = 1) const;
};
[[nodiscard]] Result<DemandProfile> profile_demand(DemandSource& source,
                                                   const ServingConfig& config);

// The lower bound ("optimal" row; serving_bound.cc has the essay and the
// proof): no fleet of this VM size that meets the SLO for a share
// `attainment` of the requests, under the engine's physics (serial prefills
// within the TTFT, at most K sequences per replica whose step meets the
// TPOT, the same start-up delay, min/initial/max replicas), can cost less.
// It reads the per-second prefill peaks and certain decode concurrency, not
// a minute's mean. `max_attainment` is the most any fleet within the cap can
// reach; the bound is computed at min(attainment, max_attainment).
struct ServingBound {
  double cost_usd = 0;
  double vm_hours = 0;
  int peak_replicas = 0;  // VMs some tick needs without misses (capped)
  double attainment = 1;
  double max_attainment = 1;
};
class ServingBoundModel {
 public:
  ServingBoundModel(const DemandProfile& profile, const ServingConfig& config);
  [[nodiscard]] ServingBound at(double attainment) const;

 private:
  struct LevelTick {
    int32_t tick;
    double delta;  // misses that dropping this level in this tick costs
  };
  // A tick's misses by count, for the count programme ("Warm ticks"):
  // cold[at + n - floor] and warm[...] for floor <= n <= top, beyond the
  // tick's forced misses; none above top.
  struct CountTick {
    int32_t tick, top;
    uint32_t at;
  };
  // What one grid of ticks requires.
  struct Grid {
    double tick_s = 1, forced = 0;
    int peak = 0;
    std::vector<std::vector<LevelTick>> levels;  // levels floor+1 .. cap
    std::vector<CountTick> counts;               // ticks with warm replays, ascending
    std::vector<float> cold, warm;
    int count_top = 0;
    double count_forced = 0;  // misses beyond `forced` every count path leaves
  };
  [[nodiscard]] Grid grid_of(const BoundGrid& g, const ServingConfig& c) const;
  [[nodiscard]] double level_cost(const Grid& g, const std::vector<LevelTick>& ticks, bool initial,
                                  double lambda) const;
  // The count programme's least cost plus lambda x misses ("Warm ticks");
  // with misses_only, its least misses.
  [[nodiscard]] double count_cost(const Grid& g, double lambda, bool misses_only) const;
  // VM-seconds grid g requires at `attainment` (with `allowed` misses).
  [[nodiscard]] double vm_seconds(const Grid& g, double allowed) const;
  double startup_s_, usd_per_hour_;
  int64_t requests_;
  double last_s_ = 0, hopeless_ = 0;
  int floor_ = 0, initial_ = 0;
  std::vector<Grid> grids_;
};
// The least VMs the bound counts in any tick: min_replicas within the cap,
// or a spot mix's pay-as-you-go base when spot VMs can be evicted.
[[nodiscard]] int bound_floor(const ServingConfig& config);
// The most VMs the bound counts: max_replicas, at least min_replicas and 1.
[[nodiscard]] int bound_cap(const ServingConfig& config);
// Replays `reqs` (tick u's, in arrival order, times from the tick's start)
// on k VMs ready throughout, from_k <= k <= cap: from `hint` up or down to
// the least count that misses none, and below it down to from_k (bound_replay.cc,
// "Counts"); adds tick u to `out` when from_k misses some. kDeadlineExceeded
// when config.deadline passes.
[[nodiscard]] Status replay_tick(size_t u, std::span<const Request> reqs,
                                 const ServingConfig& config, int from_k, int cap, int hint,
                                 TickReplays& out);
// Tick u's misses on k VMs ready throughout ticks u - 1 and u, which
// `before` (all of tick u - 1's requests some fleet serves, times from its
// start) and then `reqs` (tick u's, as replay_tick's) arrive at: k from
// from_k up to the least that misses none (or cap); adds tick u to `out`
// when from_k misses some (bound_replay.cc, "Warm").
[[nodiscard]] Status replay_warm(size_t u, std::span<const Request> before,
                                 std::span<const Request> reqs, double tick_s,
                                 const ServingConfig& config, int from_k, int cap,
                                 TickReplays& out);
[[nodiscard]] ServingBound serving_lower_bound(const DemandProfile& profile,
                                               const ServingConfig& config,
                                               double attainment = 1.0);

// Runs one replay. The policy is reset with `context` first. Appends scale
// and fleet events to `log` when non-null; fills the timeline when asked.
[[nodiscard]] Result<ServingRun> run_serving(const ServingConfig& config, DemandSource& source,
                                             ScalingPolicy& policy, const PolicyContext& context,
                                             std::string* log = nullptr, bool timeline = false);

// Parameters of the azure-autoscale policy (also what autoscale_export.h writes).
struct AutoscaleRule {
  // "utilization" (percent), "queue" (requests waiting) or "deficit"
  // (slo-guard's wanted VMs minus the count; slo-guard-autoscale only)
  std::string metric = "utilization";
  std::string op = "GreaterThan";  // GreaterThan | LessThan
  double threshold = 70;
  double window_s = 300;                     // timeWindow
  std::string statistic = "Average";         // over the time grain
  std::string time_aggregation = "Average";  // over the window
  bool scale_out = true;                     // direction Increase / Decrease
  int change = 1;                            // ChangeCount
  double cooldown_s = 300;
};
struct AutoscaleSettings {
  double time_grain_s = 60;
  std::vector<AutoscaleRule> rules;
};
[[nodiscard]] AutoscaleSettings default_autoscale_settings();

struct HpaSettings {
  double target_utilization = 0.6;  // metric target (averageUtilization 60 %)
  double tolerance = 0.1;           // kube-controller-manager default
  double scale_down_stabilization_s = 300;
};

// Parameters of slo-guard (slo_guard.cc has the essay).
struct SloGuardSettings {
  double slot_occupancy = 0.9;  // of the planning batch's decode slots
  double calibration_s = 3600;  // misses are compared with the budget over this
  double hold_s = 0;            // scale-in waits this long below; 0: the start-up delay
  double forecast_s = 0;        // look-ahead of the trend; 0: start-up + one interval
  bool drain_backlog = true;    // step 6 (slo_guard.cc); off only to measure it
};

// Serving policies by report name: "static-peak", "azure-autoscale", "hpa",
// "predictive", "slo-guard". nullptr for another name.
[[nodiscard]] std::unique_ptr<ScalingPolicy> make_serving_policy(const std::string& name,
                                                                 const ServingConfig& config);
[[nodiscard]] std::unique_ptr<ScalingPolicy> make_azure_autoscale_policy(
    const AutoscaleSettings& s);
[[nodiscard]] std::unique_ptr<ScalingPolicy> make_hpa_policy(const HpaSettings& s);
[[nodiscard]] std::unique_ptr<ScalingPolicy> make_slo_guard_policy(const SloGuardSettings& s);
// The azure-autoscale engine running `rules` whose "deficit" metric is what
// slo-guard wants minus the count: slo-guard as Azure autoscale can run it
// (autoscale_export.h), reported as "slo-guard-autoscale".
[[nodiscard]] std::unique_ptr<ScalingPolicy> make_slo_guard_autoscale_policy(
    const AutoscaleSettings& rules, const SloGuardSettings& guard);
[[nodiscard]] const std::vector<std::string>& serving_policy_names();
// Rows run only when named (--policy or the scenario's list), never by
// `all`: "hindsight".
[[nodiscard]] const std::vector<std::string>& serving_on_request_names();

// hindsight (hindsight.cc): a schedule that reads the demand profile's
// future prefill load, sized with a margin m on the TPOT stall limit; an
// upper bound on the optimum, not a deployable policy.
[[nodiscard]] std::unique_ptr<ScalingPolicy> make_hindsight_policy(const BoundBins& bins,
                                                                   double margin);
struct HindsightRun {
  ServingRun run;  // the cheapest run that met the attainment target (else the
                   // highest attainment from m = 2 on)
  double margin = 0;
  int runs = 0;  // engine runs the search made
};
// The most engine runs run_hindsight makes: the margins 1 and 2, doublings
// up to 32 while 2 misses the target and the margin still buys attainment,
// then five halvings between the last that missed and the first that met.
inline constexpr int kHindsightDoublings = 4;
inline constexpr int kHindsightHalvings = 5;
inline constexpr int kHindsightMaxRuns = 2 + kHindsightDoublings + kHindsightHalvings;
// The largest margin the doublings reach (32).
inline constexpr double kHindsightMaxMargin = 2 << kHindsightDoublings;
// The search over m: `met(m)` replays with margin m and says whether it met
// the attainment target. 1; if it missed, 2; while the target is missed,
// doublings up to 2 x 2^kHindsightDoublings; then kHindsightHalvings
// bisection steps between the last margin that missed and the first that
// met. An error from `met` ends it.
[[nodiscard]] Status search_hindsight_margin(const std::function<Result<bool>(double)>& met);
// Searches m (search_hindsight_margin) with `run` replaying the demand
// under the given policy each time.
[[nodiscard]] Result<HindsightRun> run_hindsight(
    const ServingConfig& config, const DemandProfile& profile, const PolicyContext& context,
    const std::function<Result<ServingRun>(ScalingPolicy&)>& run);

}  // namespace gpuplan::simulate
