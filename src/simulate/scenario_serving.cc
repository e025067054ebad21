// The keys of a serving scenario: the model and its replica (estimated, or
// given as prefill/decode speeds), the SLO, the demand (an Azure LLM trace,
// an Alibaba QPS series or a synthetic rate with diurnal cycle, growth,
// noise and bursts), the fleet (start-up, replica limits, routing, queue),
// and the settings of the HPA and Azure-autoscale policies.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/strings.h"
#include "simulate/internal/scenario_parse.h"
#include "simulate/scenario.h"

namespace gpuplan::simulate::internal {

namespace {

constexpr double kMaxCacheBlocks = 1e7;  // demand.prefix_cache's index

// `replica:` given explicitly instead of estimated: its prefill speed and
// its decode step time (a base plus a per-sequence part), in ms.
Status parse_replica(const Reader& r, const YAML::Node& rep, Scenario& s) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(rep, "replica",
                                      {"prefill_tokens_per_s", "prefill_fixed_ms", "step_base_ms",
                                       "step_per_seq_ms", "max_batch", "source"}));
  ReplicaCapacity c;
  c.source = "scenario file";
  for (const char* k : {"prefill_tokens_per_s", "step_base_ms", "step_per_seq_ms", "max_batch"})
    if (!rep[k])
      return r.error(rep, std::string("replica.") + k, "required when replica: is given");
  // At least a token a second: 1e-6 made prefills of ~1e9 s that no run
  // ends, and 1e-300 overflowed the engine's microsecond clock into
  // negative costs.
  GPUPLAN_TRY(c.prefill_tokens_per_s,
              r.number(rep["prefill_tokens_per_s"], "replica.prefill_tokens_per_s", 1, 1e9));
  if (rep["prefill_fixed_ms"]) {
    GPUPLAN_TRY(double ms, r.number(rep["prefill_fixed_ms"], "replica.prefill_fixed_ms", 0, 1e6));
    c.prefill_fixed_s = ms / 1e3;
  }
  GPUPLAN_TRY(double base, r.positive(rep["step_base_ms"], "replica.step_base_ms", 1e6));
  GPUPLAN_TRY(double per, r.number(rep["step_per_seq_ms"], "replica.step_per_seq_ms", 0, 1e6));
  GPUPLAN_TRY(c.max_batch, r.integer(rep["max_batch"], "replica.max_batch", 1, 1 << 20));
  if (rep["source"]) {
    GPUPLAN_TRY(c.source, r.non_empty_string(rep["source"], "replica.source"));
  }
  c.step_base_s = base / 1e3;
  c.step_per_seq_s = per / 1e3;
  s.serving().replica = c;
  return {};
}

Status parse_slo(const Reader& r, const YAML::Node& slo, Scenario& s) {
  ServingSpec& spec = s.serving();
  GPUPLAN_RETURN_IF_ERROR(r.check_map(slo, "slo", {"ttft_ms", "tpot_ms", "attainment"}));
  if (slo["attainment"]) {
    // At least half: below, "the SLO" describes the exception, not the rule.
    GPUPLAN_TRY(spec.slo_attainment, r.number(slo["attainment"], "slo.attainment", 0.5, 1));
    spec.slo_attainment_given = true;
  }
  if (slo["ttft_ms"]) {
    GPUPLAN_TRY(spec.ttft_ms, r.positive(slo["ttft_ms"], "slo.ttft_ms", 1e7));
  }
  if (slo["tpot_ms"]) {
    GPUPLAN_TRY(spec.tpot_ms, r.positive(slo["tpot_ms"], "slo.tpot_ms", 1e7));
  }
  return {};
}

// demand.synthetic.bursts: windows in which the rate is multiplied.
Status parse_bursts(const Reader& r, const YAML::Node& b, const std::string& f,
                    SyntheticDemand& sd) {
  if (!b.IsSequence()) return r.error(b, f + ".bursts", "expected a list");
  if (b.size() > kMaxBursts)
    return r.error(b, f + ".bursts", "at most " + std::to_string(kMaxBursts) + " bursts");
  for (size_t i = 0; i < b.size(); ++i) {
    const std::string bf = f + ".bursts[" + std::to_string(i) + "]";
    GPUPLAN_RETURN_IF_ERROR(r.check_map(b[i], bf, {"start_hour", "duration_hours", "multiplier"}));
    SyntheticDemand::Burst burst;
    if (!b[i]["start_hour"] || !b[i]["duration_hours"] || !b[i]["multiplier"])
      return r.error(b[i], bf, "a burst needs start_hour, duration_hours and multiplier");
    GPUPLAN_TRY(burst.start_hour, r.number(b[i]["start_hour"], bf + ".start_hour", 0, kMaxHours));
    GPUPLAN_TRY(burst.duration_hours,
                r.positive(b[i]["duration_hours"], bf + ".duration_hours", kMaxHours));
    GPUPLAN_TRY(burst.multiplier,
                r.number(b[i]["multiplier"], bf + ".multiplier", 0, kMaxBurstMultiplier));
    sd.bursts.push_back(burst);
  }
  return {};
}

// demand.synthetic: a Poisson rate with a diurnal cycle, weekly growth,
// noise and bursts.
Status parse_synthetic(const Reader& r, const YAML::Node& syn, SyntheticDemand& sd) {
  const std::string f = "demand.synthetic";
  GPUPLAN_RETURN_IF_ERROR(r.check_map(
      syn, f,
      {"rate_rps", "duration_hours", "diurnal_amplitude", "diurnal_peak_hour", "growth_per_week",
       "bursts", "input_tokens", "output_tokens", "noise_cv", "noise_period_seconds"}));
  if (!syn["rate_rps"]) return r.error(syn, f + ".rate_rps", "required");
  GPUPLAN_TRY(sd.rate_rps, r.number(syn["rate_rps"], f + ".rate_rps", kMinRateRps, kMaxRateRps));
  if (syn["duration_hours"]) {
    GPUPLAN_TRY(sd.duration_hours,
                r.positive(syn["duration_hours"], f + ".duration_hours", kMaxHours));
  }
  if (syn["diurnal_amplitude"]) {
    GPUPLAN_TRY(sd.diurnal_amplitude,
                r.number(syn["diurnal_amplitude"], f + ".diurnal_amplitude", 0, 1));
  }
  if (syn["diurnal_peak_hour"]) {
    GPUPLAN_TRY(sd.diurnal_peak_hour,
                r.number(syn["diurnal_peak_hour"], f + ".diurnal_peak_hour", 0, 24));
  }
  if (syn["growth_per_week"]) {
    GPUPLAN_TRY(sd.growth_per_week,
                r.number(syn["growth_per_week"], f + ".growth_per_week", -0.99, 100));
  }
  if (syn["noise_cv"]) {
    GPUPLAN_TRY(sd.noise_cv, r.number(syn["noise_cv"], f + ".noise_cv", 0, kMaxNoiseCv));
  }
  if (syn["noise_period_seconds"]) {
    GPUPLAN_TRY(sd.noise_period_s, r.number(syn["noise_period_seconds"],
                                            f + ".noise_period_seconds", 1, kSecondsPerDay));
  }
  if (syn["input_tokens"])
    GPUPLAN_RETURN_IF_ERROR(parse_tokens(r, syn["input_tokens"], f + ".input_tokens", sd.input));
  if (syn["output_tokens"])
    GPUPLAN_RETURN_IF_ERROR(parse_tokens(r, syn["output_tokens"], f + ".output_tokens", sd.output));
  if (const YAML::Node b = syn["bursts"]) GPUPLAN_RETURN_IF_ERROR(parse_bursts(r, b, f, sd));
  return {};
}

// `demand:`: exactly one source (a trace, a QPS series or synthetic), with
// the token distributions and bucket of QPS series and a time scale.
Status parse_demand(const Reader& r, const YAML::Node& root, Scenario& s) {
  ServingSpec& spec = s.serving();
  const YAML::Node d = root["demand"];
  if (!d)
    return r.error(root, "demand",
                   "a serving scenario needs demand: {request_trace | alibaba_qps | synthetic}");
  GPUPLAN_RETURN_IF_ERROR(
      r.check_map(d, "demand",
                  {"azure_trace", "request_trace", "alibaba_qps", "synthetic", "time_scale",
                   "bucket_seconds", "input_tokens", "output_tokens", "prefix_cache", "burstgpt"}));
  int sources = 0;
  // A request trace: `request_trace`, or `azure_trace` as the first
  // scenarios named it; the format (Azure LLM, BurstGPT, Mooncake) is read
  // from the file's first line.
  for (const char* key : {"azure_trace", "request_trace"}) {
    if (!d[key]) continue;
    ++sources;
    spec.demand.format = "request-trace";
    GPUPLAN_TRY(std::string p, r.non_empty_string(d[key], std::string("demand.") + key));
    spec.demand.trace = resolve(s.dir, p);
  }
  if (d["alibaba_qps"]) {
    ++sources;
    spec.demand.format = "alibaba-qps";
    GPUPLAN_TRY(std::string p, r.non_empty_string(d["alibaba_qps"], "demand.alibaba_qps"));
    spec.demand.trace = resolve(s.dir, p);
  }
  if (d["input_tokens"])
    GPUPLAN_RETURN_IF_ERROR(
        parse_tokens(r, d["input_tokens"], "demand.input_tokens", spec.qps_input));
  if (d["output_tokens"])
    GPUPLAN_RETURN_IF_ERROR(
        parse_tokens(r, d["output_tokens"], "demand.output_tokens", spec.qps_output));
  if (d["bucket_seconds"]) {
    GPUPLAN_TRY(spec.qps_bucket_s,
                r.number(d["bucket_seconds"], "demand.bucket_seconds", 1, kSecondsPerDay));
  }
  if (d["time_scale"]) {
    GPUPLAN_TRY(spec.demand.time_scale,
                r.number(d["time_scale"], "demand.time_scale", kMinTimeScale, kMaxTimeScale));
  }
  if (const YAML::Node syn = d["synthetic"]) {
    ++sources;
    spec.demand.format = "synthetic";
    GPUPLAN_RETURN_IF_ERROR(parse_synthetic(r, syn, spec.synthetic));
  }
  if (sources != 1)
    return r.error(d, "demand", "expected exactly one of request_trace, alibaba_qps, synthetic");
  if (const YAML::Node bg = d["burstgpt"]) {
    if (spec.demand.format != "request-trace")
      return r.error(bg, "demand.burstgpt", "filters the rows of a BurstGPT request trace");
    GPUPLAN_RETURN_IF_ERROR(r.check_map(bg, "demand.burstgpt", {"model", "log_type"}));
    if (bg["model"]) {
      GPUPLAN_TRY(spec.burstgpt.model, r.non_empty_string(bg["model"], "demand.burstgpt.model"));
    }
    if (bg["log_type"]) {
      GPUPLAN_TRY(spec.burstgpt.log_type,
                  r.non_empty_string(bg["log_type"], "demand.burstgpt.log_type"));
    }
  }
  if (const YAML::Node pc = d["prefix_cache"]) {
    if (spec.demand.format != "request-trace")
      return r.error(pc, "demand.prefix_cache",
                     "a prefix cache reads the prompt blocks a request trace names");
    GPUPLAN_RETURN_IF_ERROR(
        r.check_map(pc, "demand.prefix_cache", {"capacity_tokens", "block_tokens"}));
    spec.prefix_cache.enabled = true;
    if (!pc["capacity_tokens"])
      return r.error(pc, "demand.prefix_cache.capacity_tokens",
                     "expected the tokens the cache holds (e.g. 50000000)");
    GPUPLAN_TRY(spec.prefix_cache.capacity_tokens,
                r.number(pc["capacity_tokens"], "demand.prefix_cache.capacity_tokens", 0, 1e12));
    if (pc["block_tokens"]) {
      GPUPLAN_TRY(spec.prefix_cache.block_tokens,
                  r.number(pc["block_tokens"], "demand.prefix_cache.block_tokens", 1, 1e6));
    }
    // The cache's index costs ~100 bytes a block: 10 M blocks (5 G tokens
    // of 512, a pool of KV far beyond a cluster's DRAM and SSD) is ~1 GB.
    if (spec.prefix_cache.capacity_tokens / spec.prefix_cache.block_tokens > kMaxCacheBlocks)
      return r.error(pc["capacity_tokens"], "demand.prefix_cache.capacity_tokens",
                     "at most 10,000,000 blocks (capacity_tokens / block_tokens): the cache's "
                     "index is held in memory");
  }
  return {};
}

// fleet: start-up, routing and queue (what a replica takes to serve).
Status parse_fleet_replica(const Reader& r, const YAML::Node& fl, Scenario& s) {
  ServingSpec& spec = s.serving();
  if (fl["boot_seconds"]) {
    GPUPLAN_TRY(double v, r.number(fl["boot_seconds"], "fleet.boot_seconds", 0, kSecondsPerDay));
    spec.boot_s = v;
  }
  if (fl["image_seconds"]) {
    GPUPLAN_TRY(spec.image_s,
                r.number(fl["image_seconds"], "fleet.image_seconds", 0, kSecondsPerDay));
  }
  if (fl["weights_gbps"]) {
    // From a slow disk (0.01 GB/s) to a node-local NVMe array (100 GB/s).
    GPUPLAN_TRY(spec.weights_gbps, r.number(fl["weights_gbps"], "fleet.weights_gbps", 0.01, 100));
  }
  if (fl["routing"]) {
    GPUPLAN_TRY(size_t i,
                r.choice(fl["routing"], "fleet.routing", {"shortest-queue", "least-sequences"}));
    spec.routing = i == 0 ? Routing::kShortestQueue : Routing::kLeastSequences;
    spec.routing_given = true;
  }
  // Azure's worst eviction-rate band is "20+" % an hour; 10 an hour (a spot
  // VM living 6 minutes, less than two start-ups) is past any fleet worth
  // simulating, and each eviction scans the event queue, so a scenario —
  // the server's too — cannot ask for millions.
  constexpr double kMaxEvictionsPerHour = 10;
  if (const YAML::Node sp = fl["spot"]) {
    GPUPLAN_RETURN_IF_ERROR(r.check_map(
        sp, "fleet.spot", {"share", "base_regular", "evictions_per_hour", "notice_seconds"}));
    if (!sp["share"] || !sp["evictions_per_hour"])
      return r.error(sp, "fleet.spot",
                     "needs share (of the VMs above base_regular on spot) and evictions_per_hour "
                     "(per spot VM: the portal's eviction-rate band, e.g. 0.10 for 5-10 %)");
    GPUPLAN_TRY(spec.spot.share, r.number(sp["share"], "fleet.spot.share", 0, 1));
    GPUPLAN_TRY(spec.spot.evictions_per_hour,
                r.number(sp["evictions_per_hour"], "fleet.spot.evictions_per_hour", 0,
                         kMaxEvictionsPerHour));
    if (sp["base_regular"]) {
      GPUPLAN_TRY(spec.spot.base_regular,
                  r.integer(sp["base_regular"], "fleet.spot.base_regular", 0, 100000));
      spec.spot_base_given = true;
    }
    if (sp["notice_seconds"]) {
      // Azure's is "up to 30 seconds"; other clouds give 120 s. A notice
      // longer than the lives it announces would keep every VM from serving.
      GPUPLAN_TRY(spec.spot.notice_s,
                  r.number(sp["notice_seconds"], "fleet.spot.notice_seconds", 0, 300));
    }
  }
  if (fl["admission"]) {
    GPUPLAN_TRY(size_t i, r.choice(fl["admission"], "fleet.admission", {"queue", "shed"}));
    spec.admission = i == 0 ? Admission::kQueue : Admission::kShed;
    spec.admission_given = true;
  }
  if (fl["max_queue"]) {
    GPUPLAN_TRY(int v, r.integer(fl["max_queue"], "fleet.max_queue", 0, 10000000));
    // Shedding queues nothing: a limit on the queue would say otherwise.
    if (spec.admission == Admission::kShed && v > 0)
      return r.error(fl["max_queue"], "fleet.max_queue",
                     "no queue with admission: shed (a request no replica meets the SLO on is "
                     "turned away at once); drop max_queue or use admission: queue");
    spec.max_queue = v;
  }
  if (fl["queue_timeout_seconds"]) {
    GPUPLAN_TRY(double v, r.number(fl["queue_timeout_seconds"], "fleet.queue_timeout_seconds", 0,
                                   kSecondsPerDay));
    if (spec.admission == Admission::kShed && v > 0)
      return r.error(fl["queue_timeout_seconds"], "fleet.queue_timeout_seconds",
                     "no queue with admission: shed (a request no replica meets the SLO on is "
                     "turned away at once); drop queue_timeout_seconds or use admission: queue");
    spec.queue_timeout_s = v;
    spec.queue_timeout_given = true;
  }
  if (fl["startup_seconds"]) {
    GPUPLAN_TRY(double v,
                r.number(fl["startup_seconds"], "fleet.startup_seconds", 0, kSecondsPerDay));
    spec.startup_s = v;
  }
  return {};
}

// `fleet:`: the replica limits and the scaling loop's cadence and target.
Status parse_fleet(const Reader& r, const YAML::Node& fl, Scenario& s) {
  ServingSpec& spec = s.serving();
  GPUPLAN_RETURN_IF_ERROR(r.check_map(
      fl, "fleet",
      {"startup_seconds", "min_replicas", "initial_replicas", "max_replicas", "quota_vcpus",
       "interval_seconds", "timeline_seconds", "target_utilization", "routing", "admission", "spot",
       "max_queue", "queue_timeout_seconds", "boot_seconds", "image_seconds", "weights_gbps"}));
  GPUPLAN_RETURN_IF_ERROR(parse_fleet_replica(r, fl, s));
  if (fl["min_replicas"]) {
    GPUPLAN_TRY(spec.min_replicas, r.integer(fl["min_replicas"], "fleet.min_replicas", 0, 100000));
  }
  spec.initial_replicas = std::max(spec.min_replicas, 1);
  if (fl["initial_replicas"]) {
    GPUPLAN_TRY(spec.initial_replicas,
                r.integer(fl["initial_replicas"], "fleet.initial_replicas", 0, 100000));
  }
  if (fl["max_replicas"]) {
    GPUPLAN_TRY(spec.max_replicas, r.integer(fl["max_replicas"], "fleet.max_replicas", 1, 100000));
  }
  if (fl["quota_vcpus"]) {
    GPUPLAN_TRY(double v, r.positive(fl["quota_vcpus"], "fleet.quota_vcpus", 1e7));
    spec.quota_vcpus = v;
  }
  if (fl["interval_seconds"]) {
    GPUPLAN_TRY(spec.interval_s,
                r.number(fl["interval_seconds"], "fleet.interval_seconds", 1, 3600));
  }
  if (fl["timeline_seconds"]) {
    GPUPLAN_TRY(spec.timeline_s,
                r.number(fl["timeline_seconds"], "fleet.timeline_seconds", 1, kSecondsPerDay));
  }
  if (fl["target_utilization"]) {
    GPUPLAN_TRY(spec.target_utilization,
                r.number(fl["target_utilization"], "fleet.target_utilization", 0.05, 1));
  }
  if (spec.min_replicas > spec.max_replicas)
    return r.error(fl, "fleet.min_replicas", "larger than max_replicas");
  // Nine VMs started and billed until the first decision, above a cap the
  // autoscale export then wrote as the default.
  if (spec.initial_replicas > spec.max_replicas)
    return r.error(fl["initial_replicas"] ? fl["initial_replicas"] : fl, "fleet.initial_replicas",
                   "larger than max_replicas");
  return {};
}

// `hpa:`: the Kubernetes Horizontal Pod Autoscaler policy's settings.
Status parse_hpa(const Reader& r, const YAML::Node& h, HpaSettings& hpa) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(
      h, "hpa", {"target_utilization", "tolerance", "scale_down_stabilization_seconds"}));
  if (h["target_utilization"]) {
    GPUPLAN_TRY(hpa.target_utilization,
                r.number(h["target_utilization"], "hpa.target_utilization", 0.05, 1));
  }
  if (h["tolerance"]) {
    GPUPLAN_TRY(hpa.tolerance, r.number(h["tolerance"], "hpa.tolerance", 0, 1));
  }
  if (h["scale_down_stabilization_seconds"]) {
    GPUPLAN_TRY(hpa.scale_down_stabilization_s,
                r.number(h["scale_down_stabilization_seconds"],
                         "hpa.scale_down_stabilization_seconds", 0, kSecondsPerDay));
  }
  return {};
}

// `slo_guard:`: slo-guard's settings (slo_guard.cc), for measuring what
// each of its steps does; the defaults are the policy.
Status parse_slo_guard(const Reader& r, const YAML::Node& g, SloGuardSettings& sg) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(g, "slo_guard",
                                      {"slot_occupancy", "calibration_seconds", "hold_seconds",
                                       "forecast_seconds", "drain_backlog"}));
  if (g["slot_occupancy"]) {
    GPUPLAN_TRY(sg.slot_occupancy,
                r.number(g["slot_occupancy"], "slo_guard.slot_occupancy", 0.05, 1));
  }
  if (g["calibration_seconds"]) {
    GPUPLAN_TRY(sg.calibration_s, r.number(g["calibration_seconds"],
                                           "slo_guard.calibration_seconds", 1, 7 * kSecondsPerDay));
  }
  // 0: the start-up delay (hold) and the start-up plus an interval (forecast).
  if (g["hold_seconds"]) {
    GPUPLAN_TRY(sg.hold_s,
                r.number(g["hold_seconds"], "slo_guard.hold_seconds", 0, kSecondsPerDay));
  }
  if (g["forecast_seconds"]) {
    GPUPLAN_TRY(sg.forecast_s,
                r.number(g["forecast_seconds"], "slo_guard.forecast_seconds", 0, kSecondsPerDay));
  }
  if (g["drain_backlog"]) {
    GPUPLAN_TRY(sg.drain_backlog, r.boolean(g["drain_backlog"], "slo_guard.drain_backlog"));
  }
  return {};
}

// One Azure autoscale rule (metric, operator, threshold, window,
// aggregation, direction, change, cooldown), with Azure Monitor's names.
Result<AutoscaleRule> parse_autoscale_rule(const Reader& r, const YAML::Node& n,
                                           const std::string& f) {
  GPUPLAN_RETURN_IF_ERROR(
      r.check_map(n, f,
                  {"metric", "operator", "threshold", "window_seconds", "time_aggregation",
                   "direction", "change", "cooldown_seconds"}));
  AutoscaleRule rule;
  for (const char* k : {"metric", "operator", "threshold", "direction"})
    if (!n[k]) return r.error(n, f + "." + k, "required");
  GPUPLAN_TRY(rule.metric, r.non_empty_string(n["metric"], f + ".metric"));
  if (rule.metric != "utilization" && rule.metric != "queue")
    return r.error(n["metric"], f + ".metric",
                   "expected utilization (percent) or queue (requests waiting)" +
                       strings::did_you_mean(rule.metric, {"utilization", "queue"}));
  GPUPLAN_TRY(rule.op, r.non_empty_string(n["operator"], f + ".operator"));
  if (rule.op != "GreaterThan" && rule.op != "GreaterThanOrEqual" && rule.op != "LessThan" &&
      rule.op != "LessThanOrEqual")
    return r.error(n["operator"], f + ".operator",
                   "expected GreaterThan, GreaterThanOrEqual, LessThan or LessThanOrEqual" +
                       strings::did_you_mean(rule.op, {"GreaterThan", "GreaterThanOrEqual",
                                                       "LessThan", "LessThanOrEqual"}));
  GPUPLAN_TRY(rule.threshold, r.number(n["threshold"], f + ".threshold", 0, 1e9));
  if (n["window_seconds"]) {
    // Azure Monitor's MetricTrigger.timeWindow: between 5 minutes and 12
    // hours (Microsoft.Azure.Management.Insights MetricTrigger.TimeWindow).
    GPUPLAN_TRY(rule.window_s, r.number(n["window_seconds"], f + ".window_seconds", 300, 43200));
  }
  if (n["time_aggregation"]) {
    GPUPLAN_TRY(rule.time_aggregation,
                r.non_empty_string(n["time_aggregation"], f + ".time_aggregation"));
    const std::vector<std::string> kinds = {"Average", "Maximum", "Minimum", "Last"};
    if (std::find(kinds.begin(), kinds.end(), rule.time_aggregation) == kinds.end())
      return r.error(n["time_aggregation"], f + ".time_aggregation",
                     "expected Average, Maximum, Minimum or Last" +
                         strings::did_you_mean(rule.time_aggregation, kinds));
  }
  GPUPLAN_TRY(std::string dir, r.non_empty_string(n["direction"], f + ".direction"));
  if (dir != "out" && dir != "in")
    return r.error(n["direction"], f + ".direction",
                   "expected out or in" + strings::did_you_mean(dir, {"out", "in"}));
  rule.scale_out = dir == "out";
  if (n["change"]) {
    GPUPLAN_TRY(rule.change, r.integer(n["change"], f + ".change", 1, 1000));
  }
  if (n["cooldown_seconds"]) {
    GPUPLAN_TRY(rule.cooldown_s,
                r.number(n["cooldown_seconds"], f + ".cooldown_seconds", 60, 604800));
  }
  return rule;
}

// `autoscale:`: the Azure autoscale policy's time grain and rules (given
// rules replace the default set).
Status parse_autoscale(const Reader& r, const YAML::Node& a, AutoscaleSettings& out) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(a, "autoscale", {"time_grain_seconds", "rules"}));
  if (a["time_grain_seconds"]) {
    GPUPLAN_TRY(out.time_grain_s,
                r.number(a["time_grain_seconds"], "autoscale.time_grain_seconds", 60, 43200));
  }
  if (const YAML::Node rules = a["rules"]) {
    if (!rules.IsSequence() || rules.size() == 0)
      return r.error(rules, "autoscale.rules", "expected a non-empty list");
    out.rules.clear();
    for (size_t i = 0; i < rules.size(); ++i) {
      const std::string f = "autoscale.rules[" + std::to_string(i) + "]";
      GPUPLAN_TRY(AutoscaleRule rule, parse_autoscale_rule(r, rules[i], f));
      out.rules.push_back(rule);
    }
  }
  return {};
}

}  // namespace

Status parse_serving(const Reader& r, const YAML::Node& root, Scenario& s) {
  ServingSpec& spec = s.serving();
  if (root["model"]) {
    GPUPLAN_TRY(spec.model, r.non_empty_string(root["model"], "model"));
  }
  if (root["precision"]) {
    GPUPLAN_TRY(spec.precision, r.non_empty_string(root["precision"], "precision"));
  }
  if (root["tensor_parallel"]) {
    GPUPLAN_TRY(spec.tensor_parallel, r.integer(root["tensor_parallel"], "tensor_parallel", 1, 64));
  }
  if (root["prefill_chunk_tokens"]) {
    // At least one KV page (vLLM's block_size, 16 tokens).
    GPUPLAN_TRY(double t, r.number(root["prefill_chunk_tokens"], "prefill_chunk_tokens", 16, 1e7));
    spec.prefill_chunk_tokens = t;
  }
  if (const YAML::Node rep = root["replica"]) GPUPLAN_RETURN_IF_ERROR(parse_replica(r, rep, s));
  if (const YAML::Node slo = root["slo"]) GPUPLAN_RETURN_IF_ERROR(parse_slo(r, slo, s));
  GPUPLAN_RETURN_IF_ERROR(parse_demand(r, root, s));
  if (const YAML::Node fl = root["fleet"]) GPUPLAN_RETURN_IF_ERROR(parse_fleet(r, fl, s));
  if (const YAML::Node h = root["hpa"]) GPUPLAN_RETURN_IF_ERROR(parse_hpa(r, h, spec.hpa));
  if (const YAML::Node g = root["slo_guard"])
    GPUPLAN_RETURN_IF_ERROR(parse_slo_guard(r, g, spec.slo_guard));
  if (const YAML::Node a = root["autoscale"]) {
    GPUPLAN_RETURN_IF_ERROR(parse_autoscale(r, a, spec.autoscale));
  }
  return {};
}

}  // namespace gpuplan::simulate::internal
