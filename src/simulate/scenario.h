// Simulation scenarios: the YAML a user writes for `gpuplan simulate`
// (docs/simulate.md documents every key, its default and its unit).
//
// Three kinds:
//   deadline — a checkpointable job with a deadline on spot + on-demand
//              capacity of one VM size, over real spot traces or a
//              stochastic eviction model;
//   serving  — a model served from replicas of one VM size, scaled by a
//              policy, over a request trace (Azure LLM, Alibaba QPS) or
//              synthetic demand;
//   reserve  — a fleet of one VM size whose size grows (job arrivals or a
//              synthetic growth model): when to buy reservations.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/result.h"
#include "simulate/deadline.h"
#include "simulate/demand.h"
#include "simulate/reserve.h"
#include "simulate/serving.h"
#include "simulate/spot_trace.h"

namespace gpuplan::simulate {

// In the order of Scenario::spec's alternatives.
enum class ScenarioKind { kDeadline, kServing, kReserve };

// A number with where it came from, printed beside every result.
struct Assumed {
  std::string name;
  std::string value;
  std::string source;
};

// What a deadline scenario adds: the job and the spot capacity it runs on.
struct DeadlineSpec {
  DeadlineJob job;
  std::vector<std::string> spot_traces;  // resolved paths
  std::optional<SpotModel> spot_model;
  bool spot_model_up_given = false;  // spot.model.mean_up_hours set (else Azure's band, if any)
  int64_t spot_model_steps = 0;      // length of each generated trace
};

// Where the demand of a serving or reserve scenario comes from.
struct DemandInput {
  std::string format;     // serving: "request-trace" | "alibaba-qps" | "synthetic";
                          // reserve: "alibaba-pods" | "synthetic-vms"
  std::string trace;      // resolved path
  double time_scale = 1;  // demand.time_scale
};

// What a serving scenario adds: the model, its SLO, the demand and the fleet.
struct ServingSpec {
  std::string model;        // workload model name ("llama-3.1-8b")
  std::string precision;    // empty: the model's released weights (bf16 for most)
  int tensor_parallel = 0;  // GPUs per replica; 0 = all GPUs of the VM
  std::optional<double> prefill_chunk_tokens;  // the engine's token budget a step
  std::optional<ReplicaCapacity> replica;      // explicit; else from the estimator
  double ttft_ms = 1000;
  double tpot_ms = 50;
  double slo_attainment = 0.99;  // slo.attainment: the share the bound and slo-guard aim at
  bool slo_attainment_given = false;
  DemandInput demand;
  SyntheticDemand synthetic;
  TokenDist qps_input{1000, 0, 1, 1e6}, qps_output{200, 0, 1, 1e6};
  double qps_bucket_s = 60;
  PrefixCacheSpec prefix_cache;     // demand.prefix_cache
  BurstGptFilter burstgpt;          // demand.burstgpt
  std::optional<double> startup_s;  // fleet.startup_seconds; else boot + image + weights
  std::optional<double> boot_s;     // fleet.boot_seconds; else per series
  double image_s = 60;              // fleet.image_seconds: pull and start the serving image
  double weights_gbps = 1;          // fleet.weights_gbps: GB/s the weights load at
  int min_replicas = 1;
  int initial_replicas = 1;
  int max_replicas = 32;
  std::optional<double> quota_vcpus;
  double interval_s = 15;
  double timeline_s = 60;
  double target_utilization = 0.8;
  Routing routing = Routing::kShortestQueue;  // fleet.routing
  bool routing_given = false;
  int64_t max_queue = 0;         // fleet.max_queue (0: no limit)
  double queue_timeout_s = 600;  // fleet.queue_timeout_seconds (0: none)
  bool queue_timeout_given = false;
  Admission admission = Admission::kQueue;  // fleet.admission
  SpotMix spot;                  // fleet.spot (its price comes from prices: or the catalog)
  bool spot_base_given = false;  // else the base is min_replicas
  bool admission_given = false;
  SloGuardSettings slo_guard;
  AutoscaleSettings autoscale = default_autoscale_settings();
  HpaSettings hpa;
};

// What a reserve scenario adds: the reservation's price and term, the
// policy's settings and the fleet's demand.
struct ReserveSpec {
  std::optional<double> reserved_usd_per_hour;      // prices.reserved_usd_per_hour
  int term_years = 1;                               // reservation.term: 1y or 3y
  AfterWindow after_window = AfterWindow::kRepeat;  // reservation.after_window
  ReservePolicySettings policy;
  DemandInput demand;
  SyntheticVms synthetic_vms;
  std::optional<double> gpus_per_vm;         // demand.gpus_per_vm; else the size's GPUs
  std::optional<double> scale_down_minutes;  // demand.scale_down_minutes (job traces)
};

// A scenario: what every kind shares, and its kind's own part. The kind is
// the alternative `spec` holds, so a serving setting cannot be read from a
// deadline scenario (the accessors throw std::bad_variant_access on a
// programming error of that sort, never on user input: the parser picks the
// alternative from `kind:`).
struct Scenario {
  std::string name;
  std::string file;                         // path as given ("" for strings)
  std::string dir;                          // directory relative paths resolve against
  std::string vm_size;                      // "Standard_NC6s_v3"
  std::string region;                       // "eastus"
  std::optional<double> od_usd_per_hour;    // prices.on_demand_usd_per_hour
  std::optional<double> spot_usd_per_hour;  // prices.spot_usd_per_hour
  std::optional<double> spot_ratio;         // prices.spot_ratio (spot = ratio × on-demand)
  std::string price_source;                 // prices.source, or the catalog offer's
  std::string price_as_of;
  std::vector<std::string> policies;  // empty = all of the kind
  int runs = 1;
  uint64_t seed = 1;
  std::variant<DeadlineSpec, ServingSpec, ReserveSpec> spec;

  [[nodiscard]] ScenarioKind kind() const { return static_cast<ScenarioKind>(spec.index()); }
  [[nodiscard]] DeadlineSpec& deadline() { return std::get<DeadlineSpec>(spec); }
  [[nodiscard]] const DeadlineSpec& deadline() const { return std::get<DeadlineSpec>(spec); }
  [[nodiscard]] ServingSpec& serving() { return std::get<ServingSpec>(spec); }
  [[nodiscard]] const ServingSpec& serving() const { return std::get<ServingSpec>(spec); }
  [[nodiscard]] ReserveSpec& reservation() { return std::get<ReserveSpec>(spec); }
  [[nodiscard]] const ReserveSpec& reservation() const { return std::get<ReserveSpec>(spec); }
  // The trace files the scenario reads: its spot traces or its demand
  // trace; empty when its supply and demand are generated.
  [[nodiscard]] std::vector<std::string> trace_files() const;
  // Where a key ("vm.size", "demand") is in the file, for errors found after
  // parsing (a size the catalog lacks, a model no layout holds): its line and
  // column when the file gave it, else the file and the key alone.
  [[nodiscard]] Where where(const std::string& field) const;
  // `e` at its field's place in this file, when the code that found it named
  // a field but knew no file (the engines and validators below the parser).
  [[nodiscard]] Error located(Error e) const;
  // Keys of the top level and the level below, as written, and where.
  std::map<std::string, Where> places;
};

// Parses a scenario. kNotFound when the file cannot be read; kInvalidArgument
// with file:line:column and the key for YAML errors, unknown keys (with "did
// you mean"), wrong types and out-of-range values, an unknown policy for the
// kind, a deadline shorter than work + changeover, or a kind without its
// required keys (deadline: spot.traces or spot.model; serving: demand).
[[nodiscard]] Result<Scenario> parse_scenario_file(const std::string& path);
[[nodiscard]] Result<Scenario> parse_scenario_string(const std::string& text,
                                                     const std::string& name,
                                                     const std::string& dir = ".");

// The work running a scenario causes, estimated from its inputs alone before
// anything is read or allocated. Every figure is an upper bound for one run
// (bursts, growth and the diurnal peak included), so a caller that must bound
// its work — the HTTP server — can refuse a request up front.
struct WorkEstimate {
  double requests = 0;  // serving: arrivals of one run
  // serving: the generator's thinning candidates of one run, every replay's
  // (each policy's, hindsight's margin search, the bound's profile): the
  // generator draws them at its bound, whatever it accepts (expected: the
  // noise factor has mean 1)
  double candidates = 0;
  // serving: arrivals x the VMs the fleet may hold — the router scans every
  // replica an arrival could go to (more with several replicas per VM)
  double routings = 0;
  double timeline_points = 0;  // serving: timeline rows of one run, every policy's
  // serving: policy decisions of one run, every policy's (duration /
  // interval each: a year at a 1 s interval is 220 M at no traffic at all)
  double policy_ticks = 0;
  // serving: the synthetic demand's duration, which the counts above span
  // (a replay runs on while its backlog drains: ServingConfig::
  // max_simulated_s holds it to what the caps allow)
  double simulated_s = 0;
  double decision_steps = 0;  // deadline: policy steps of one run (spot model)
  double dp_cells = 0;        // deadline: states of one dynamic programme
  // deadline: states markov-lookahead solves in one run at most (its plan x
  // its re-solves every 12 simulated hours; 0 when it does not run)
  double lookahead_states = 0;
  double trace_steps = 0;  // deadline: steps of the generated spot traces of one run
  double vm_hours = 0;     // reserve: VM-hours of demand of one run
  // reserve: hours of history and projection the policies read, summed over
  // their reviews (review_hours apart) in one run
  double review_hours = 0;
};
[[nodiscard]] WorkEstimate estimate_work(const Scenario& s);

// VM start-up delay default for a size (seconds) and where it comes from.
[[nodiscard]] Assumed default_startup(const std::string& vm_size);

}  // namespace gpuplan::simulate
