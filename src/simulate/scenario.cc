// Scenario YAML parser: walks the yaml-cpp node tree with a reader that knows
// the file and the dotted key path, rejects unknown keys with "did you mean",
// and converts scalars with type and range checks, so every mistake comes
// back as file:line:column: key: what was expected.
#include "simulate/scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "core/files.h"
#include "core/strings.h"
#include "core/units.h"
#include "workload/yaml_load.h"

namespace gpuplan::simulate {

namespace {

// Ceilings of the numeric keys (docs/simulate.md, "Limits"). Each is far
// beyond a real scenario and low enough that the arithmetic derived from it
// (steps, requests, fleet sizes, int64 microseconds) cannot overflow or
// divide by a vanishing step: the parser rejects, with the key named, what
// used to abort the process (issue 15).
constexpr double kMaxHours = 10 * kHoursPerYear;  // any duration: 10 years
constexpr double kSecondsPerDay = 86400;
// Spot supply changes on the scale of Azure's 30 s eviction notice (Scheduled
// Events); a step below one second only multiplies the work.
constexpr double kMinGapSeconds = 1;
constexpr double kMaxTokens = 1e7;  // the longest context windows (10 M tokens)
constexpr double kMinRateRps = 1e-6;
constexpr double kMaxRateRps = 1e6;
constexpr double kMaxBurstMultiplier = 1000;
constexpr size_t kMaxBursts = 1000;
constexpr double kMinTimeScale = 1e-6;
constexpr double kMaxTimeScale = 1e6;
constexpr double kMaxVms = 1e5;
constexpr double kMaxUsdPerHour = 1e5;
// Rate noise: a CV of 2 already makes most periods near-silent and a few
// 10x busier (its 4-sigma clamp is ~13x the mean).
constexpr double kMaxNoiseCv = 2;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  Where where(const YAML::Node& n, const std::string& field) const {
    const YAML::Mark m = n.Mark();
    return Where{file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, field};
  }
  tl::unexpected<Error> bad(const YAML::Node& n, const std::string& field,
                            const std::string& msg) const {
    return invalid_argument(msg, where(n, field));
  }
  Status keys(const YAML::Node& map, const std::string& path,
              const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) return bad(map, path, "expected a mapping");
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string k = it->first.Scalar();
      bool ok = false;
      for (const auto& a : allowed) ok = ok || a == k;
      if (ok) continue;
      std::string msg = "unknown key '" + k + "'";
      if (auto c = strings::closest(k, allowed))
        msg += "; did you mean '" + *c + "'?";
      else {
        msg += "; expected one of:";
        for (const auto& a : allowed) msg += " " + a;
      }
      return bad(it->first, join(path, k), msg);
    }
    return {};
  }
  Result<double> num(const YAML::Node& n, const std::string& field, double lo, double hi) const {
    if (!n.IsScalar()) return bad(n, field, "expected a number");
    auto v = strings::parse_double(strings::trim(n.Scalar()));
    if (!v) return bad(n, field, "expected a number, got '" + n.Scalar() + "'");
    if (*v < lo || *v > hi)
      return bad(
          n, field,
          "expected a number in [" + strings::fixed(lo, lo == std::floor(lo) ? 0 : 3) + ", " +
              (hi >= 1e15 ? std::string("inf") : strings::fixed(hi, hi == std::floor(hi) ? 0 : 3)) +
              "], got " + n.Scalar());
    return *v;
  }
  // A number > 0 and at most `hi` (every field has a documented ceiling: see
  // the limits at the top of this file).
  Result<double> positive(const YAML::Node& n, const std::string& field, double hi) const {
    GPUPLAN_TRY(double v, num(n, field, 0, hi));
    if (!(v > 0)) return bad(n, field, "expected a number > 0, got " + n.Scalar());
    return v;
  }
  Result<int> integer(const YAML::Node& n, const std::string& field, int lo, int hi) const {
    GPUPLAN_TRY(double v, num(n, field, lo, hi));
    if (v != std::floor(v)) return bad(n, field, "expected a whole number, got " + n.Scalar());
    return static_cast<int>(v);
  }
  Result<std::string> str(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar() || n.Scalar().empty()) return bad(n, field, "expected a non-empty string");
    return n.Scalar();
  }
  static std::string join(const std::string& path, const std::string& k) {
    return path.empty() ? k : path + "." + k;
  }

 private:
  std::string file_;
};

std::string resolve(const std::string& dir, const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  return (std::filesystem::path(dir) / p).lexically_normal().string();
}

Status parse_tokens(const Reader& r, const YAML::Node& n, const std::string& f, TokenDist& out) {
  GPUPLAN_RETURN_IF_ERROR(r.keys(n, f, {"mean", "stddev", "min", "max"}));
  if (n["mean"]) {
    GPUPLAN_TRY(out.mean, r.positive(n["mean"], f + ".mean", kMaxTokens));
  }
  if (n["stddev"]) {
    GPUPLAN_TRY(out.stddev, r.num(n["stddev"], f + ".stddev", 0, kMaxTokens));
  }
  if (n["min"]) {
    GPUPLAN_TRY(out.min, r.num(n["min"], f + ".min", 0, kMaxTokens));
  }
  if (n["max"]) {
    GPUPLAN_TRY(out.max, r.positive(n["max"], f + ".max", kMaxTokens));
  }
  if (out.min > out.max) return r.bad(n, f, "min is larger than max");
  return {};
}

Status parse_deadline(const Reader& r, const YAML::Node& root, Scenario& s) {
  const YAML::Node job = root["job"];
  if (!job)
    return r.bad(root, "job", "a deadline scenario needs job: {work_hours, deadline_hours}");
  GPUPLAN_RETURN_IF_ERROR(r.keys(job, "job",
                                 {"work_hours", "deadline_hours", "changeover_hours",
                                  "checkpoint_seconds", "eviction_notice_seconds"}));
  if (!job["work_hours"]) return r.bad(job, "job.work_hours", "required");
  if (!job["deadline_hours"]) return r.bad(job, "job.deadline_hours", "required");
  GPUPLAN_TRY(s.job.work_hours, r.positive(job["work_hours"], "job.work_hours", kMaxHours));
  GPUPLAN_TRY(s.job.deadline_hours,
              r.positive(job["deadline_hours"], "job.deadline_hours", kMaxHours));
  if (job["changeover_hours"]) {
    GPUPLAN_TRY(s.job.changeover_hours,
                r.num(job["changeover_hours"], "job.changeover_hours", 0, kMaxHours));
  }
  if (job["checkpoint_seconds"]) {
    GPUPLAN_TRY(s.job.checkpoint_s,
                r.num(job["checkpoint_seconds"], "job.checkpoint_seconds", 0, kSecondsPerDay));
  }
  if (job["eviction_notice_seconds"]) {
    GPUPLAN_TRY(s.job.eviction_notice_s,
                r.num(job["eviction_notice_seconds"], "job.eviction_notice_seconds", 0, 3600));
  }
  if (s.job.work_hours + s.job.changeover_hours > s.job.deadline_hours)
    return r.bad(job["deadline_hours"], "job.deadline_hours",
                 "shorter than work_hours + changeover_hours: not even on-demand can meet it");
  const YAML::Node spot = root["spot"];
  if (!spot)
    return r.bad(root, "spot",
                 "a deadline scenario needs spot: {traces: [...]} or spot: {model: ...}");
  GPUPLAN_RETURN_IF_ERROR(r.keys(spot, "spot", {"traces", "model"}));
  if (spot["traces"]) {
    const YAML::Node t = spot["traces"];
    if (!t.IsSequence() || t.size() == 0)
      return r.bad(t, "spot.traces", "expected a non-empty list of trace files");
    for (size_t i = 0; i < t.size(); ++i) {
      GPUPLAN_TRY(std::string p, r.str(t[i], "spot.traces[" + std::to_string(i) + "]"));
      s.spot_traces.push_back(resolve(s.dir, p));
    }
  }
  if (spot["model"]) {
    const YAML::Node m = spot["model"];
    GPUPLAN_RETURN_IF_ERROR(
        r.keys(m, "spot.model", {"mean_up_hours", "mean_down_hours", "gap_seconds", "hours"}));
    SpotModel model;
    if (m["mean_up_hours"]) {
      GPUPLAN_TRY(model.mean_up_hours,
                  r.positive(m["mean_up_hours"], "spot.model.mean_up_hours", kMaxHours));
      s.spot_model_up_given = true;
    }
    if (m["mean_down_hours"]) {
      GPUPLAN_TRY(model.mean_down_hours,
                  r.positive(m["mean_down_hours"], "spot.model.mean_down_hours", kMaxHours));
    }
    if (m["gap_seconds"]) {
      GPUPLAN_TRY(model.gap_seconds, r.num(m["gap_seconds"], "spot.model.gap_seconds",
                                           kMinGapSeconds, kSecondsPerDay));
    }
    double hours = 30 * 24;
    if (m["hours"]) {
      GPUPLAN_TRY(hours, r.positive(m["hours"], "spot.model.hours", kMaxHours));
    }
    s.spot_model = model;
    s.spot_model_steps = static_cast<int64_t>(std::ceil(hours * 3600 / model.gap_seconds));
  }
  if (s.spot_traces.empty() && !s.spot_model)
    return r.bad(spot, "spot", "expected traces: [...] or model: {...}");
  return {};
}

Status parse_serving(const Reader& r, const YAML::Node& root, Scenario& s) {
  if (root["model"]) {
    GPUPLAN_TRY(s.model, r.str(root["model"], "model"));
  }
  if (root["precision"]) {
    GPUPLAN_TRY(s.precision, r.str(root["precision"], "precision"));
  }
  if (root["tensor_parallel"]) {
    GPUPLAN_TRY(s.tensor_parallel, r.integer(root["tensor_parallel"], "tensor_parallel", 1, 64));
  }
  if (const YAML::Node rep = root["replica"]) {
    GPUPLAN_RETURN_IF_ERROR(r.keys(rep, "replica",
                                   {"prefill_tokens_per_s", "prefill_fixed_ms", "step_base_ms",
                                    "step_per_seq_ms", "max_batch", "source"}));
    ReplicaCapacity c;
    c.source = "scenario file";
    for (const char* k : {"prefill_tokens_per_s", "step_base_ms", "step_per_seq_ms", "max_batch"})
      if (!rep[k])
        return r.bad(rep, std::string("replica.") + k, "required when replica: is given");
    GPUPLAN_TRY(c.prefill_tokens_per_s,
                r.positive(rep["prefill_tokens_per_s"], "replica.prefill_tokens_per_s", 1e9));
    if (rep["prefill_fixed_ms"]) {
      GPUPLAN_TRY(double ms, r.num(rep["prefill_fixed_ms"], "replica.prefill_fixed_ms", 0, 1e6));
      c.prefill_fixed_s = ms / 1e3;
    }
    GPUPLAN_TRY(double base, r.positive(rep["step_base_ms"], "replica.step_base_ms", 1e6));
    GPUPLAN_TRY(double per, r.num(rep["step_per_seq_ms"], "replica.step_per_seq_ms", 0, 1e6));
    GPUPLAN_TRY(c.max_batch, r.integer(rep["max_batch"], "replica.max_batch", 1, 1 << 20));
    if (rep["source"]) {
      GPUPLAN_TRY(c.source, r.str(rep["source"], "replica.source"));
    }
    c.step_base_s = base / 1e3;
    c.step_per_seq_s = per / 1e3;
    s.replica = c;
  }
  if (const YAML::Node slo = root["slo"]) {
    GPUPLAN_RETURN_IF_ERROR(r.keys(slo, "slo", {"ttft_ms", "tpot_ms", "attainment"}));
    if (slo["attainment"]) {
      // At least half: below, "the SLO" describes the exception, not the rule.
      GPUPLAN_TRY(s.slo_attainment, r.num(slo["attainment"], "slo.attainment", 0.5, 1));
      s.slo_attainment_given = true;
    }
    if (slo["ttft_ms"]) {
      GPUPLAN_TRY(s.ttft_ms, r.positive(slo["ttft_ms"], "slo.ttft_ms", 1e7));
    }
    if (slo["tpot_ms"]) {
      GPUPLAN_TRY(s.tpot_ms, r.positive(slo["tpot_ms"], "slo.tpot_ms", 1e7));
    }
  }
  const YAML::Node d = root["demand"];
  if (!d)
    return r.bad(root, "demand",
                 "a serving scenario needs demand: {azure_trace | alibaba_qps | synthetic}");
  GPUPLAN_RETURN_IF_ERROR(r.keys(d, "demand",
                                 {"azure_trace", "alibaba_qps", "synthetic", "time_scale",
                                  "bucket_seconds", "input_tokens", "output_tokens"}));
  int sources = 0;
  if (d["azure_trace"]) {
    ++sources;
    s.demand_format = "azure-llm";
    GPUPLAN_TRY(std::string p, r.str(d["azure_trace"], "demand.azure_trace"));
    s.demand_trace = resolve(s.dir, p);
  }
  if (d["alibaba_qps"]) {
    ++sources;
    s.demand_format = "alibaba-qps";
    GPUPLAN_TRY(std::string p, r.str(d["alibaba_qps"], "demand.alibaba_qps"));
    s.demand_trace = resolve(s.dir, p);
  }
  if (d["input_tokens"])
    GPUPLAN_RETURN_IF_ERROR(parse_tokens(r, d["input_tokens"], "demand.input_tokens", s.qps_input));
  if (d["output_tokens"])
    GPUPLAN_RETURN_IF_ERROR(
        parse_tokens(r, d["output_tokens"], "demand.output_tokens", s.qps_output));
  if (d["bucket_seconds"]) {
    GPUPLAN_TRY(s.qps_bucket_s,
                r.num(d["bucket_seconds"], "demand.bucket_seconds", 1, kSecondsPerDay));
  }
  if (d["time_scale"]) {
    GPUPLAN_TRY(s.time_scale,
                r.num(d["time_scale"], "demand.time_scale", kMinTimeScale, kMaxTimeScale));
  }
  if (const YAML::Node syn = d["synthetic"]) {
    ++sources;
    s.demand_format = "synthetic";
    const std::string f = "demand.synthetic";
    GPUPLAN_RETURN_IF_ERROR(r.keys(
        syn, f,
        {"rate_rps", "duration_hours", "diurnal_amplitude", "diurnal_peak_hour", "growth_per_week",
         "bursts", "input_tokens", "output_tokens", "noise_cv", "noise_period_seconds"}));
    SyntheticDemand& sd = s.synthetic;
    if (!syn["rate_rps"]) return r.bad(syn, f + ".rate_rps", "required");
    GPUPLAN_TRY(sd.rate_rps, r.num(syn["rate_rps"], f + ".rate_rps", kMinRateRps, kMaxRateRps));
    if (syn["duration_hours"]) {
      GPUPLAN_TRY(sd.duration_hours,
                  r.positive(syn["duration_hours"], f + ".duration_hours", kMaxHours));
    }
    if (syn["diurnal_amplitude"]) {
      GPUPLAN_TRY(sd.diurnal_amplitude,
                  r.num(syn["diurnal_amplitude"], f + ".diurnal_amplitude", 0, 1));
    }
    if (syn["diurnal_peak_hour"]) {
      GPUPLAN_TRY(sd.diurnal_peak_hour,
                  r.num(syn["diurnal_peak_hour"], f + ".diurnal_peak_hour", 0, 24));
    }
    if (syn["growth_per_week"]) {
      GPUPLAN_TRY(sd.growth_per_week,
                  r.num(syn["growth_per_week"], f + ".growth_per_week", -0.99, 100));
    }
    if (syn["noise_cv"]) {
      GPUPLAN_TRY(sd.noise_cv, r.num(syn["noise_cv"], f + ".noise_cv", 0, kMaxNoiseCv));
    }
    if (syn["noise_period_seconds"]) {
      GPUPLAN_TRY(sd.noise_period_s, r.num(syn["noise_period_seconds"], f + ".noise_period_seconds",
                                           1, kSecondsPerDay));
    }
    if (syn["input_tokens"])
      GPUPLAN_RETURN_IF_ERROR(parse_tokens(r, syn["input_tokens"], f + ".input_tokens", sd.input));
    if (syn["output_tokens"])
      GPUPLAN_RETURN_IF_ERROR(
          parse_tokens(r, syn["output_tokens"], f + ".output_tokens", sd.output));
    if (const YAML::Node b = syn["bursts"]) {
      if (!b.IsSequence()) return r.bad(b, f + ".bursts", "expected a list");
      if (b.size() > kMaxBursts)
        return r.bad(b, f + ".bursts", "at most " + std::to_string(kMaxBursts) + " bursts");
      for (size_t i = 0; i < b.size(); ++i) {
        const std::string bf = f + ".bursts[" + std::to_string(i) + "]";
        GPUPLAN_RETURN_IF_ERROR(r.keys(b[i], bf, {"start_hour", "duration_hours", "multiplier"}));
        SyntheticDemand::Burst burst;
        if (!b[i]["start_hour"] || !b[i]["duration_hours"] || !b[i]["multiplier"])
          return r.bad(b[i], bf, "a burst needs start_hour, duration_hours and multiplier");
        GPUPLAN_TRY(burst.start_hour, r.num(b[i]["start_hour"], bf + ".start_hour", 0, kMaxHours));
        GPUPLAN_TRY(burst.duration_hours,
                    r.positive(b[i]["duration_hours"], bf + ".duration_hours", kMaxHours));
        GPUPLAN_TRY(burst.multiplier,
                    r.num(b[i]["multiplier"], bf + ".multiplier", 0, kMaxBurstMultiplier));
        sd.bursts.push_back(burst);
      }
    }
  }
  if (sources != 1)
    return r.bad(d, "demand", "expected exactly one of azure_trace, alibaba_qps, synthetic");
  if (const YAML::Node fl = root["fleet"]) {
    GPUPLAN_RETURN_IF_ERROR(
        r.keys(fl, "fleet",
               {"startup_seconds", "min_replicas", "initial_replicas", "max_replicas",
                "quota_vcpus", "interval_seconds", "timeline_seconds", "target_utilization",
                "routing", "max_queue", "boot_seconds", "image_seconds", "weights_gbps"}));
    if (fl["boot_seconds"]) {
      GPUPLAN_TRY(double v, r.num(fl["boot_seconds"], "fleet.boot_seconds", 0, 86400));
      s.boot_s = v;
    }
    if (fl["image_seconds"]) {
      GPUPLAN_TRY(s.image_s, r.num(fl["image_seconds"], "fleet.image_seconds", 0, 86400));
    }
    if (fl["weights_gbps"]) {
      // From a slow disk (0.01 GB/s) to a node-local NVMe array (100 GB/s).
      GPUPLAN_TRY(s.weights_gbps, r.num(fl["weights_gbps"], "fleet.weights_gbps", 0.01, 100));
    }
    if (fl["routing"]) {
      GPUPLAN_TRY(std::string v, r.str(fl["routing"], "fleet.routing"));
      if (v == "shortest-queue")
        s.routing = Routing::kShortestQueue;
      else if (v == "least-sequences")
        s.routing = Routing::kLeastSequences;
      else
        return r.bad(fl["routing"], "fleet.routing",
                     "expected shortest-queue or least-sequences, got '" + v + "'");
      s.routing_given = true;
    }
    if (fl["max_queue"]) {
      GPUPLAN_TRY(int v, r.integer(fl["max_queue"], "fleet.max_queue", 0, 10000000));
      s.max_queue = v;
    }
    if (fl["startup_seconds"]) {
      GPUPLAN_TRY(double v, r.num(fl["startup_seconds"], "fleet.startup_seconds", 0, 86400));
      s.startup_s = v;
    }
    if (fl["min_replicas"]) {
      GPUPLAN_TRY(s.min_replicas, r.integer(fl["min_replicas"], "fleet.min_replicas", 0, 100000));
    }
    s.initial_replicas = std::max(s.min_replicas, 1);
    if (fl["initial_replicas"]) {
      GPUPLAN_TRY(s.initial_replicas,
                  r.integer(fl["initial_replicas"], "fleet.initial_replicas", 0, 100000));
    }
    if (fl["max_replicas"]) {
      GPUPLAN_TRY(s.max_replicas, r.integer(fl["max_replicas"], "fleet.max_replicas", 1, 100000));
    }
    if (fl["quota_vcpus"]) {
      GPUPLAN_TRY(double v, r.positive(fl["quota_vcpus"], "fleet.quota_vcpus", 1e7));
      s.quota_vcpus = v;
    }
    if (fl["interval_seconds"]) {
      GPUPLAN_TRY(s.interval_s, r.num(fl["interval_seconds"], "fleet.interval_seconds", 1, 3600));
    }
    if (fl["timeline_seconds"]) {
      GPUPLAN_TRY(s.timeline_s, r.num(fl["timeline_seconds"], "fleet.timeline_seconds", 1, 86400));
    }
    if (fl["target_utilization"]) {
      GPUPLAN_TRY(s.target_utilization,
                  r.num(fl["target_utilization"], "fleet.target_utilization", 0.05, 1));
    }
    if (s.min_replicas > s.max_replicas)
      return r.bad(fl, "fleet.min_replicas", "larger than max_replicas");
  }
  if (const YAML::Node h = root["hpa"]) {
    GPUPLAN_RETURN_IF_ERROR(
        r.keys(h, "hpa", {"target_utilization", "tolerance", "scale_down_stabilization_seconds"}));
    if (h["target_utilization"]) {
      GPUPLAN_TRY(s.hpa.target_utilization,
                  r.num(h["target_utilization"], "hpa.target_utilization", 0.05, 1));
    }
    if (h["tolerance"]) {
      GPUPLAN_TRY(s.hpa.tolerance, r.num(h["tolerance"], "hpa.tolerance", 0, 1));
    }
    if (h["scale_down_stabilization_seconds"]) {
      GPUPLAN_TRY(s.hpa.scale_down_stabilization_s,
                  r.num(h["scale_down_stabilization_seconds"],
                        "hpa.scale_down_stabilization_seconds", 0, 86400));
    }
  }
  if (const YAML::Node a = root["autoscale"]) {
    GPUPLAN_RETURN_IF_ERROR(r.keys(a, "autoscale", {"time_grain_seconds", "rules"}));
    if (a["time_grain_seconds"]) {
      GPUPLAN_TRY(s.autoscale.time_grain_s,
                  r.num(a["time_grain_seconds"], "autoscale.time_grain_seconds", 60, 43200));
    }
    if (const YAML::Node rules = a["rules"]) {
      if (!rules.IsSequence() || rules.size() == 0)
        return r.bad(rules, "autoscale.rules", "expected a non-empty list");
      s.autoscale.rules.clear();
      for (size_t i = 0; i < rules.size(); ++i) {
        const std::string f = "autoscale.rules[" + std::to_string(i) + "]";
        const YAML::Node n = rules[i];
        GPUPLAN_RETURN_IF_ERROR(
            r.keys(n, f,
                   {"metric", "operator", "threshold", "window_seconds", "time_aggregation",
                    "direction", "change", "cooldown_seconds"}));
        AutoscaleRule rule;
        for (const char* k : {"metric", "operator", "threshold", "direction"})
          if (!n[k]) return r.bad(n, f + "." + k, "required");
        GPUPLAN_TRY(rule.metric, r.str(n["metric"], f + ".metric"));
        if (rule.metric != "utilization" && rule.metric != "queue")
          return r.bad(n["metric"], f + ".metric",
                       "expected utilization (percent) or queue (requests waiting)");
        GPUPLAN_TRY(rule.op, r.str(n["operator"], f + ".operator"));
        if (rule.op != "GreaterThan" && rule.op != "GreaterThanOrEqual" && rule.op != "LessThan" &&
            rule.op != "LessThanOrEqual")
          return r.bad(n["operator"], f + ".operator",
                       "expected GreaterThan, GreaterThanOrEqual, LessThan or LessThanOrEqual");
        GPUPLAN_TRY(rule.threshold, r.num(n["threshold"], f + ".threshold", 0, 1e9));
        if (n["window_seconds"]) {
          GPUPLAN_TRY(rule.window_s, r.num(n["window_seconds"], f + ".window_seconds", 60, 43200));
        }
        if (n["time_aggregation"]) {
          GPUPLAN_TRY(rule.time_aggregation, r.str(n["time_aggregation"], f + ".time_aggregation"));
          if (rule.time_aggregation != "Average" && rule.time_aggregation != "Maximum" &&
              rule.time_aggregation != "Minimum")
            return r.bad(n["time_aggregation"], f + ".time_aggregation",
                         "expected Average, Maximum or Minimum");
        }
        GPUPLAN_TRY(std::string dir, r.str(n["direction"], f + ".direction"));
        if (dir != "out" && dir != "in")
          return r.bad(n["direction"], f + ".direction", "expected out or in");
        rule.scale_out = dir == "out";
        if (n["change"]) {
          GPUPLAN_TRY(rule.change, r.integer(n["change"], f + ".change", 1, 1000));
        }
        if (n["cooldown_seconds"]) {
          GPUPLAN_TRY(rule.cooldown_s,
                      r.num(n["cooldown_seconds"], f + ".cooldown_seconds", 60, 604800));
        }
        s.autoscale.rules.push_back(rule);
      }
    }
  }
  return {};
}

Status parse_reserve(const Reader& r, const YAML::Node& root, Scenario& s) {
  if (const YAML::Node res = root["reservation"]) {
    GPUPLAN_RETURN_IF_ERROR(
        r.keys(res, "reservation", {"term", "review_hours", "lookback_hours", "projection_hours"}));
    if (res["term"]) {
      GPUPLAN_TRY(std::string term, r.str(res["term"], "reservation.term"));
      if (term == "1y")
        s.term_years = 1;
      else if (term == "3y")
        s.term_years = 3;
      else
        return r.bad(res["term"], "reservation.term", "expected 1y or 3y, got '" + term + "'");
    }
    if (res["review_hours"]) {
      GPUPLAN_TRY(s.reserve.review_hours,
                  r.num(res["review_hours"], "reservation.review_hours", 1, 8760));
    }
    if (res["lookback_hours"]) {
      GPUPLAN_TRY(s.reserve.lookback_hours,
                  r.num(res["lookback_hours"], "reservation.lookback_hours", 24, 26280));
    }
    if (res["projection_hours"]) {
      GPUPLAN_TRY(s.reserve.projection_hours,
                  r.num(res["projection_hours"], "reservation.projection_hours", 24, 26280));
    }
  }
  const YAML::Node d = root["demand"];
  if (!d)
    return r.bad(root, "demand", "a reserve scenario needs demand: {alibaba_pods | synthetic}");
  GPUPLAN_RETURN_IF_ERROR(
      r.keys(d, "demand", {"alibaba_pods", "synthetic", "gpus_per_vm", "time_scale"}));
  int sources = 0;
  if (d["alibaba_pods"]) {
    ++sources;
    s.demand_format = "alibaba-pods";
    GPUPLAN_TRY(std::string p, r.str(d["alibaba_pods"], "demand.alibaba_pods"));
    s.demand_trace = resolve(s.dir, p);
  }
  if (d["gpus_per_vm"]) {
    GPUPLAN_TRY(double v, r.positive(d["gpus_per_vm"], "demand.gpus_per_vm", 64));
    s.gpus_per_vm = v;
  }
  if (d["time_scale"]) {
    GPUPLAN_TRY(s.time_scale,
                r.num(d["time_scale"], "demand.time_scale", kMinTimeScale, kMaxTimeScale));
  }
  if (const YAML::Node syn = d["synthetic"]) {
    ++sources;
    s.demand_format = "synthetic-vms";
    const std::string f = "demand.synthetic";
    GPUPLAN_RETURN_IF_ERROR(r.keys(syn, f,
                                   {"base_vms", "weeks", "growth_per_week", "diurnal_amplitude",
                                    "diurnal_peak_hour", "noise"}));
    SyntheticVms& sv = s.synthetic_vms;
    if (!syn["base_vms"]) return r.bad(syn, f + ".base_vms", "required");
    GPUPLAN_TRY(sv.base_vms, r.positive(syn["base_vms"], f + ".base_vms", kMaxVms));
    if (syn["weeks"]) {
      GPUPLAN_TRY(sv.weeks, r.num(syn["weeks"], f + ".weeks", 1, 156));
    }
    if (syn["growth_per_week"]) {
      GPUPLAN_TRY(sv.growth_per_week,
                  r.num(syn["growth_per_week"], f + ".growth_per_week", -0.99, 10));
    }
    if (syn["diurnal_amplitude"]) {
      GPUPLAN_TRY(sv.diurnal_amplitude,
                  r.num(syn["diurnal_amplitude"], f + ".diurnal_amplitude", 0, 1));
    }
    if (syn["diurnal_peak_hour"]) {
      GPUPLAN_TRY(sv.diurnal_peak_hour,
                  r.num(syn["diurnal_peak_hour"], f + ".diurnal_peak_hour", 0, 24));
    }
    if (syn["noise"]) {
      GPUPLAN_TRY(sv.noise, r.num(syn["noise"], f + ".noise", 0, 10));
    }
    // The fleet at the end of the growth (noise drawn up to 3 sigma) must stay
    // countable: 1e300 VMs would overflow every counter downstream.
    const double peak = sv.base_vms * std::pow(1 + std::max(0.0, sv.growth_per_week), sv.weeks) *
                        (1 + sv.diurnal_amplitude) * (1 + 3 * sv.noise);
    if (!(peak <= kMaxVms))
      return r.bad(syn["growth_per_week"] ? syn["growth_per_week"] : syn, f + ".growth_per_week",
                   "the fleet would grow to " + strings::fixed(std::min(peak, 1e30), 0) +
                       " VMs; at most " + strings::fixed(kMaxVms, 0));
    if (sv.weeks * 168 > s.term_years * 8760.0)
      return r.bad(syn["weeks"] ? syn["weeks"] : syn, f + ".weeks",
                   "longer than the reservation term: renewals are not modelled");
  }
  if (sources != 1) return r.bad(d, "demand", "expected exactly one of alibaba_pods, synthetic");
  return {};
}

}  // namespace

Assumed default_startup(const std::string& vm_size) {
  // VM allocation and boot, image with the driver baked in, container start
  // and weight load. Azure does not publish a start-up time per series; these
  // are estimates (docs/simulate.md, "Start-up delay").
  const std::string f = strings::fold(vm_size);
  if (f.rfind("standardnd", 0) == 0 || f.rfind("nd", 0) == 0)
    return {"startup_seconds", "600",
            "estimate for ND (8-GPU, InfiniBand) sizes: 10 min; override fleet.startup_seconds"};
  return {"startup_seconds", "300",
          "estimate for NC/NV sizes: 5 min (boot ~2 min + weights load); override "
          "fleet.startup_seconds"};
}

Result<Scenario> parse_scenario_string(const std::string& text, const std::string& name,
                                       const std::string& dir) {
  // Syntax, UTF-8 and keys given twice: workload/yaml_load.h.
  GPUPLAN_TRY(YAML::Node root, workload::load_yaml(text, name));
  Reader r(name);
  if (!root || !root.IsMap())
    return invalid_argument("expected a mapping of scenario keys", Where{name, 1, 1, ""});
  GPUPLAN_RETURN_IF_ERROR(r.keys(root, "",
                                 {"name", "kind", "vm", "prices", "policies", "runs", "seed", "job",
                                  "spot", "model", "precision", "tensor_parallel", "replica", "slo",
                                  "demand", "fleet", "hpa", "autoscale", "reservation"}));
  Scenario s;
  s.file = name;
  s.dir = dir;
  s.name = std::filesystem::path(name).stem().string();
  if (root["name"]) {
    GPUPLAN_TRY(s.name, r.str(root["name"], "name"));
  }
  if (!root["kind"]) return r.bad(root, "kind", "required: deadline, serving or reserve");
  GPUPLAN_TRY(std::string kind, r.str(root["kind"], "kind"));
  if (kind == "deadline")
    s.kind = ScenarioKind::kDeadline;
  else if (kind == "serving")
    s.kind = ScenarioKind::kServing;
  else if (kind == "reserve")
    s.kind = ScenarioKind::kReserve;
  else
    return r.bad(root["kind"], "kind", "expected deadline, serving or reserve, got '" + kind + "'");
  if (const YAML::Node vm = root["vm"]) {
    GPUPLAN_RETURN_IF_ERROR(r.keys(vm, "vm", {"size", "region"}));
    if (vm["size"]) {
      GPUPLAN_TRY(s.vm_size, r.str(vm["size"], "vm.size"));
    }
    if (vm["region"]) {
      GPUPLAN_TRY(s.region, r.str(vm["region"], "vm.region"));
    }
  }
  if (const YAML::Node p = root["prices"]) {
    GPUPLAN_RETURN_IF_ERROR(r.keys(p, "prices",
                                   {"on_demand_usd_per_hour", "spot_usd_per_hour", "spot_ratio",
                                    "reserved_usd_per_hour", "source", "as_of"}));
    if (p["on_demand_usd_per_hour"]) {
      GPUPLAN_TRY(double v, r.positive(p["on_demand_usd_per_hour"], "prices.on_demand_usd_per_hour",
                                       kMaxUsdPerHour));
      s.od_usd_per_hour = v;
    }
    if (p["spot_usd_per_hour"]) {
      GPUPLAN_TRY(double v,
                  r.positive(p["spot_usd_per_hour"], "prices.spot_usd_per_hour", kMaxUsdPerHour));
      s.spot_usd_per_hour = v;
    }
    if (p["spot_ratio"]) {
      GPUPLAN_TRY(double v, r.num(p["spot_ratio"], "prices.spot_ratio", 0.001, 1));
      s.spot_ratio = v;
    }
    if (p["reserved_usd_per_hour"]) {
      if (s.kind != ScenarioKind::kReserve)
        return r.bad(p["reserved_usd_per_hour"], "prices.reserved_usd_per_hour",
                     "a price of reserve scenarios only");
      GPUPLAN_TRY(double v, r.positive(p["reserved_usd_per_hour"], "prices.reserved_usd_per_hour",
                                       kMaxUsdPerHour));
      s.reserved_usd_per_hour = v;
    }
    for (const char* k : {"spot_usd_per_hour", "spot_ratio"})
      if (p[k] && s.kind == ScenarioKind::kReserve)
        return r.bad(p[k], std::string("prices.") + k, "a reserve scenario has no spot price");
    if (p["source"]) {
      GPUPLAN_TRY(s.price_source, r.str(p["source"], "prices.source"));
    }
    if (p["as_of"]) {
      GPUPLAN_TRY(s.price_as_of, r.str(p["as_of"], "prices.as_of"));
    }
    if (s.spot_usd_per_hour && s.spot_ratio)
      return r.bad(p["spot_ratio"], "prices.spot_ratio",
                   "give spot_usd_per_hour or spot_ratio, not both");
  }
  if (root["runs"]) {
    GPUPLAN_TRY(s.runs, r.integer(root["runs"], "runs", 1, 1000000));
  }
  if (root["seed"]) {
    GPUPLAN_TRY(int seed, r.integer(root["seed"], "seed", 0, 2147483647));
    s.seed = static_cast<uint64_t>(seed);
  }
  const auto& names = s.kind == ScenarioKind::kDeadline  ? deadline_policy_names()
                      : s.kind == ScenarioKind::kServing ? serving_policy_names()
                                                         : reserve_policy_names();
  if (const YAML::Node pol = root["policies"]) {
    std::vector<YAML::Node> items;
    if (pol.IsScalar())
      items.push_back(pol);
    else if (pol.IsSequence())
      for (size_t i = 0; i < pol.size(); ++i) items.push_back(pol[i]);
    else
      return r.bad(pol, "policies", "expected all, a policy name or a list of names");
    for (const YAML::Node& n : items) {
      GPUPLAN_TRY(std::string p, r.str(n, "policies"));
      if (p == "all") {
        s.policies.clear();
        break;
      }
      bool ok = false;
      for (const auto& k : names) ok = ok || k == p;
      if (!ok) {
        std::string msg = "unknown policy '" + p + "' for a " + kind + " scenario";
        if (auto c = strings::closest(p, names)) msg += "; did you mean '" + *c + "'?";
        return r.bad(n, "policies", msg);
      }
      s.policies.push_back(p);
    }
  }
  if (s.kind == ScenarioKind::kDeadline) {
    for (const char* k :
         {"model", "replica", "slo", "demand", "fleet", "hpa", "autoscale", "reservation"})
      if (root[k]) return r.bad(root[k], k, "not a key of a deadline scenario");
    GPUPLAN_RETURN_IF_ERROR(parse_deadline(r, root, s));
  } else if (s.kind == ScenarioKind::kReserve) {
    for (const char* k : {"job", "spot", "model", "precision", "tensor_parallel", "replica", "slo",
                          "fleet", "hpa", "autoscale"})
      if (root[k]) return r.bad(root[k], k, "not a key of a reserve scenario");
    GPUPLAN_RETURN_IF_ERROR(parse_reserve(r, root, s));
    if (s.vm_size.empty() && (!s.od_usd_per_hour || !s.reserved_usd_per_hour))
      return r.bad(root, "vm.size",
                   "name a VM size (prices come from the catalog) or give "
                   "prices: {on_demand_usd_per_hour, reserved_usd_per_hour}");
  } else {
    for (const char* k : {"job", "spot", "reservation"})
      if (root[k]) return r.bad(root[k], k, "not a key of a serving scenario");
    GPUPLAN_RETURN_IF_ERROR(parse_serving(r, root, s));
    if (!s.replica && s.model.empty())
      return r.bad(
          root, "model",
          "a serving scenario needs model: (the estimator sizes a replica) or replica: {...}");
  }
  if (s.vm_size.empty() && (!s.od_usd_per_hour || (s.kind == ScenarioKind::kDeadline &&
                                                   !s.spot_usd_per_hour && !s.spot_ratio)))
    return r.bad(root, "vm.size",
                 "name a VM size (prices come from the catalog) or give prices: explicitly");
  return s;
}

Result<Scenario> parse_scenario_file(const std::string& path) {
  GPUPLAN_TRY(std::string text, files::read_text(path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return parse_scenario_string(text, path, dir);
}

namespace {

// Upper bound of the arrivals of synthetic demand: the rate at its diurnal
// peak, with growth integrated exactly and overlapping bursts multiplied, over
// the segments between burst boundaries. Doubles overflow to inf, which every
// cap refuses.
double max_requests(const SyntheticDemand& d) {
  std::vector<double> cuts{0, d.duration_hours};
  for (const auto& b : d.bursts) {
    if (b.start_hour < d.duration_hours) cuts.push_back(b.start_hour);
    if (b.start_hour + b.duration_hours < d.duration_hours)
      cuts.push_back(b.start_hour + b.duration_hours);
  }
  std::sort(cuts.begin(), cuts.end());
  const double g = std::log1p(d.growth_per_week) / 168.0;  // per hour
  double hours = 0;                                        // rate-weighted hours
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const double a = cuts[i], b = cuts[i + 1];
    if (b <= a) continue;
    double mult = 1;
    for (const auto& burst : d.bursts)
      if (a >= burst.start_hour && a < burst.start_hour + burst.duration_hours)
        mult *= burst.multiplier;
    const double grown = std::abs(g) < 1e-12 ? b - a : (std::exp(g * b) - std::exp(g * a)) / g;
    hours += mult * grown;
  }
  return d.rate_rps * (1 + d.diurnal_amplitude) * d.noise_max() * hours * 3600;
}

}  // namespace

WorkEstimate estimate_work(const Scenario& s) {
  WorkEstimate w;
  switch (s.kind) {
    case ScenarioKind::kServing: {
      const double hours = s.demand_format == "synthetic" ? s.synthetic.duration_hours : 0;
      if (s.demand_format == "synthetic") w.requests = max_requests(s.synthetic);
      w.timeline_points = hours * 3600 / s.timeline_s;
      break;
    }
    case ScenarioKind::kDeadline: {
      if (!s.spot_model) break;
      // The DP of deadline.cc: K = D/g steps, at most (D - C)/u + 1 progress
      // values a step with u >= g/120, 1 + 2(J + 1) run states, J = ceil(d/g).
      const double g = s.spot_model->gap_seconds;
      const double D = s.job.deadline_hours * 3600;
      const double C = s.job.work_hours * 3600;
      const double d = s.job.changeover_hours * 3600;
      w.decision_steps = std::ceil(D / g);
      const double width = std::max(0.0, D - C) / (g / 120.0) + 1;
      w.dp_cells = w.decision_steps * width * (3 + 2 * std::ceil(d / g));
      break;
    }
    case ScenarioKind::kReserve: {
      if (s.demand_format != "synthetic-vms") break;
      const SyntheticVms& v = s.synthetic_vms;
      w.vm_hours = v.base_vms * std::pow(1 + std::max(0.0, v.growth_per_week), v.weeks) *
                   (1 + v.diurnal_amplitude) * (1 + 3 * v.noise) * v.weeks * 168;
      break;
    }
  }
  return w;
}

}  // namespace gpuplan::simulate
