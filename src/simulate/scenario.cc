// Scenario YAML parser: walks the yaml-cpp node tree with a reader that knows
// the file and the dotted key path, rejects unknown keys with "did you mean",
// and converts scalars with type and range checks, so every mistake comes
// back as file:line:column: key: what was expected.//
// This file owns the top level of a scenario (name, kind, vm, prices,
// runs, seed, policies; which keys each kind may have), the token
// distributions and paths shared by the kinds, the start-up default, and
// the up-front work estimate the server uses to refuse oversized requests.
// Each kind's own sections are read in scenario_deadline.cc,
// scenario_serving.cc and scenario_reserve.cc; the limits of every key are
// in internal/scenario_parse.h, the walker in workload/yaml_reader.h.
#include "simulate/scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "core/files.h"
#include "core/strings.h"
#include "core/units.h"
#include "simulate/internal/deadline_grid.h"
#include "simulate/internal/scenario_parse.h"
#include "workload/yaml_reader.h"

namespace gpuplan::simulate {

namespace internal {

std::string resolve(const std::string& dir, const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  return (std::filesystem::path(dir) / p).lexically_normal().string();
}

Status parse_tokens(const Reader& r, const YAML::Node& n, const std::string& f, TokenDist& out) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(n, f, {"mean", "stddev", "min", "max"}));
  if (n["mean"]) {
    GPUPLAN_TRY(out.mean, r.positive(n["mean"], f + ".mean", kMaxTokens));
  }
  if (n["stddev"]) {
    GPUPLAN_TRY(out.stddev, r.number(n["stddev"], f + ".stddev", 0, kMaxTokens));
  }
  if (n["min"]) {
    GPUPLAN_TRY(out.min, r.number(n["min"], f + ".min", 0, kMaxTokens));
  }
  if (n["max"]) {
    GPUPLAN_TRY(out.max, r.positive(n["max"], f + ".max", kMaxTokens));
  }
  if (out.min > out.max) return r.error(n, f, "min is larger than max");
  return {};
}

}  // namespace internal

using internal::Reader;

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

namespace {

// `kind:`, the one key every scenario needs. Returns its name as written.
Result<std::string> parse_kind(const Reader& r, const YAML::Node& root, Scenario& s) {
  if (!root["kind"]) return r.error(root, "kind", "required: deadline, serving or reserve");
  GPUPLAN_TRY(std::string kind, r.non_empty_string(root["kind"], "kind"));
  if (kind == "deadline")
    s.spec = DeadlineSpec{};
  else if (kind == "serving")
    s.spec = ServingSpec{};
  else if (kind == "reserve")
    s.spec = ReserveSpec{};
  else
    return r.error(root["kind"], "kind",
                   "expected deadline, serving or reserve, got '" + kind + "'" +
                       strings::did_you_mean(kind, {"deadline", "serving", "reserve"}));
  return kind;
}

Status parse_vm(const Reader& r, const YAML::Node& vm, Scenario& s) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(vm, "vm", {"size", "region"}));
  if (vm["size"]) {
    GPUPLAN_TRY(s.vm_size, r.non_empty_string(vm["size"], "vm.size"));
  }
  if (vm["region"]) {
    GPUPLAN_TRY(s.region, r.non_empty_string(vm["region"], "vm.region"));
  }
  return {};
}

// `prices:` overrides the catalog; which prices a scenario may give depends
// on its kind (a reserve scenario has a reserved price and no spot price).
Status parse_prices(const Reader& r, const YAML::Node& p, Scenario& s) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(p, "prices",
                                      {"on_demand_usd_per_hour", "spot_usd_per_hour", "spot_ratio",
                                       "reserved_usd_per_hour", "source", "as_of"}));
  if (p["on_demand_usd_per_hour"]) {
    GPUPLAN_TRY(double v, r.positive(p["on_demand_usd_per_hour"], "prices.on_demand_usd_per_hour",
                                     internal::kMaxUsdPerHour));
    s.od_usd_per_hour = v;
  }
  if (p["spot_usd_per_hour"]) {
    GPUPLAN_TRY(double v, r.positive(p["spot_usd_per_hour"], "prices.spot_usd_per_hour",
                                     internal::kMaxUsdPerHour));
    s.spot_usd_per_hour = v;
  }
  if (p["spot_ratio"]) {
    GPUPLAN_TRY(double v, r.number(p["spot_ratio"], "prices.spot_ratio", 0.001, 1));
    s.spot_ratio = v;
  }
  if (p["reserved_usd_per_hour"]) {
    if (s.kind() != ScenarioKind::kReserve)
      return r.error(p["reserved_usd_per_hour"], "prices.reserved_usd_per_hour",
                     "a price of reserve scenarios only");
    GPUPLAN_TRY(double v, r.positive(p["reserved_usd_per_hour"], "prices.reserved_usd_per_hour",
                                     internal::kMaxUsdPerHour));
    s.reservation().reserved_usd_per_hour = v;
  }
  for (const char* k : {"spot_usd_per_hour", "spot_ratio"})
    if (p[k] && s.kind() == ScenarioKind::kReserve)
      return r.error(p[k], std::string("prices.") + k, "a reserve scenario has no spot price");
  if (p["source"]) {
    GPUPLAN_TRY(s.price_source, r.non_empty_string(p["source"], "prices.source"));
  }
  if (p["as_of"]) {
    GPUPLAN_TRY(s.price_as_of, r.non_empty_string(p["as_of"], "prices.as_of"));
  }
  if (s.spot_usd_per_hour && s.spot_ratio)
    return r.error(p["spot_ratio"], "prices.spot_ratio",
                   "give spot_usd_per_hour or spot_ratio, not both");
  return {};
}

// `policies:`: all, one name or a list of the kind's policies.
Status parse_policies(const Reader& r, const YAML::Node& pol, const std::string& kind,
                      Scenario& s) {
  std::vector<std::string> names = s.kind() == ScenarioKind::kDeadline  ? deadline_policy_names()
                                   : s.kind() == ScenarioKind::kServing ? serving_policy_names()
                                                                        : reserve_policy_names();
  if (s.kind() == ScenarioKind::kServing)
    names.insert(names.end(), serving_on_request_names().begin(), serving_on_request_names().end());
  std::vector<YAML::Node> items;
  if (pol.IsScalar())
    items.push_back(pol);
  else if (pol.IsSequence())
    for (size_t i = 0; i < pol.size(); ++i) items.push_back(pol[i]);
  else
    return r.error(pol, "policies", "expected all, a policy name or a list of names");
  for (const YAML::Node& n : items) {
    GPUPLAN_TRY(std::string p, r.non_empty_string(n, "policies"));
    if (p == "all") {
      s.policies.clear();
      break;
    }
    bool ok = false;
    for (const auto& k : names) ok = ok || k == p;
    if (!ok) {
      std::string msg = "unknown policy '" + p + "' for a ";
      msg += kind;
      msg += " scenario";
      if (auto c = strings::closest(p, names)) msg += "; did you mean '" + *c + "'?";
      return r.error(n, "policies", msg);
    }
    s.policies.push_back(p);
  }
  return {};
}

// The kind's own sections, after refusing the keys of the other kinds.
Status parse_kind_sections(const Reader& r, const YAML::Node& root, Scenario& s) {
  if (s.kind() == ScenarioKind::kDeadline) {
    for (const char* k : {"model", "replica", "prefill_chunk_tokens", "slo", "demand", "fleet",
                          "hpa", "slo_guard", "autoscale", "reservation"})
      if (root[k]) return r.error(root[k], k, "not a key of a deadline scenario");
    return internal::parse_deadline(r, root, s);
  }
  if (s.kind() == ScenarioKind::kReserve) {
    for (const char* k :
         {"job", "spot", "model", "precision", "tensor_parallel", "prefill_chunk_tokens", "replica",
          "slo", "fleet", "hpa", "slo_guard", "autoscale"})
      if (root[k]) return r.error(root[k], k, "not a key of a reserve scenario");
    GPUPLAN_RETURN_IF_ERROR(internal::parse_reserve(r, root, s));
    if (s.vm_size.empty() && (!s.od_usd_per_hour || !s.reservation().reserved_usd_per_hour))
      return r.error(root, "vm.size",
                     "name a VM size (prices come from the catalog) or give "
                     "prices: {on_demand_usd_per_hour, reserved_usd_per_hour}");
    return {};
  }
  for (const char* k : {"job", "spot", "reservation"})
    if (root[k]) return r.error(root[k], k, "not a key of a serving scenario");
  GPUPLAN_RETURN_IF_ERROR(internal::parse_serving(r, root, s));
  if (!s.serving().replica && s.serving().model.empty())
    return r.error(
        root, "model",
        "a serving scenario needs model: (the estimator sizes a replica) or replica: {...}");
  return {};
}

}  // namespace

Result<Scenario> parse_scenario_string(const std::string& text, const std::string& name,
                                       const std::string& dir) {
  // Syntax, UTF-8 and keys given twice: workload/yaml_reader.h.
  GPUPLAN_TRY(YAML::Node root, yaml::load(text, name));
  Reader r(name);
  if (!root || !root.IsMap())
    return invalid_argument("expected a mapping of scenario keys", Where{name, 1, 1, ""});
  GPUPLAN_RETURN_IF_ERROR(r.check_map(root, "",
                                      {"name",
                                       "kind",
                                       "vm",
                                       "prices",
                                       "policies",
                                       "runs",
                                       "seed",
                                       "job",
                                       "spot",
                                       "model",
                                       "precision",
                                       "tensor_parallel",
                                       "prefill_chunk_tokens",
                                       "replica",
                                       "slo",
                                       "demand",
                                       "fleet",
                                       "hpa",
                                       "slo_guard",
                                       "autoscale",
                                       "reservation"}));
  Scenario s;
  s.file = name;
  s.dir = dir;
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    s.places.emplace(key, r.where(kv.second, key));
    if (kv.second.IsMap())
      for (const auto& sub : kv.second) {
        if (!sub.first.IsScalar()) continue;  // the section's own check names it
        const std::string field = key + "." + sub.first.as<std::string>();
        s.places.emplace(field, r.where(sub.second, field));
      }
  }
  s.name = std::filesystem::path(name).stem().string();
  if (root["name"]) {
    GPUPLAN_TRY(s.name, r.non_empty_string(root["name"], "name"));
  }
  GPUPLAN_TRY(const std::string kind, parse_kind(r, root, s));
  if (const YAML::Node vm = root["vm"]) GPUPLAN_RETURN_IF_ERROR(parse_vm(r, vm, s));
  if (const YAML::Node p = root["prices"]) GPUPLAN_RETURN_IF_ERROR(parse_prices(r, p, s));
  if (root["runs"]) {
    GPUPLAN_TRY(s.runs, r.integer(root["runs"], "runs", 1, 1000000));
  }
  if (root["seed"]) {
    GPUPLAN_TRY(int seed, r.integer(root["seed"], "seed", 0, 2147483647));
    s.seed = static_cast<uint64_t>(seed);
  }
  if (const YAML::Node pol = root["policies"]) {
    GPUPLAN_RETURN_IF_ERROR(parse_policies(r, pol, kind, s));
  }
  GPUPLAN_RETURN_IF_ERROR(parse_kind_sections(r, root, s));
  if (s.vm_size.empty() && (!s.od_usd_per_hour || (s.kind() == ScenarioKind::kDeadline &&
                                                   !s.spot_usd_per_hour && !s.spot_ratio)))
    return r.error(root, "vm.size",
                   "name a VM size (prices come from the catalog) or give prices: explicitly");
  return s;
}

Where Scenario::where(const std::string& field) const {
  const auto it = places.find(field);
  return it != places.end() ? it->second : Where{file, 0, 0, field};
}

Error Scenario::located(Error e) const {
  if (e.where.file.empty() && !e.where.field.empty()) e.where = where(e.where.field);
  return e;
}

std::vector<std::string> Scenario::trace_files() const {
  switch (kind()) {
    case ScenarioKind::kDeadline:
      return deadline().spot_traces;
    case ScenarioKind::kServing:
      if (!serving().demand.trace.empty()) return {serving().demand.trace};
      break;
    case ScenarioKind::kReserve:
      if (!reservation().demand.trace.empty()) return {reservation().demand.trace};
      break;
  }
  return {};
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
  // Whether every policy of the kind runs (none named, or `all`).
  const bool all = s.policies.empty() || (s.policies.size() == 1 && s.policies[0] == "all");
  switch (s.kind()) {
    case ScenarioKind::kServing: {
      const ServingSpec& v = s.serving();
      // The replay's span: time_scale stretches the demand's clock (0.5
      // replays an hour over two; 1e-6 made an hour a million, and the
      // server counted its policy decisions over the hour).
      const double hours =
          v.demand.format == "synthetic" ? v.synthetic.duration_hours / v.demand.time_scale : 0;
      if (v.demand.format == "synthetic") w.requests = max_requests(v.synthetic);
      w.routings = w.requests * std::max({v.min_replicas, v.initial_replicas, v.max_replicas, 1});
      // Every policy of the run replays the trace (hindsight once per run
      // of its margin search).
      const auto& names = all ? serving_policy_names() : s.policies;
      double policies = 0;
      for (const std::string& n : names) policies += n == "hindsight" ? kHindsightMaxRuns : 1;
      if (v.demand.format == "synthetic")
        // Each noise period thins at the bound x its factor, whose mean is
        // 1: the expected count (the factor's 4-sigma clamp, up to 71x at
        // a CV of 2, refused requests that ran in 0.04 s).
        w.candidates =
            v.synthetic.thinning_rate() * v.synthetic.duration_hours * 3600 * (policies + 1);
      w.timeline_points = hours * 3600 / v.timeline_s * policies;
      w.policy_ticks = hours * 3600 / v.interval_s * policies;
      w.simulated_s = hours * 3600;
      break;
    }
    case ScenarioKind::kDeadline: {
      const DeadlineSpec& d = s.deadline();
      if (!d.spot_model) break;
      // The DP of deadline.cc: K = D/g steps, at most (D - C)/u + 1 progress
      // values a step with u >= g/120, 1 + 2(J + 1) run states, J = ceil(d/g)
      // (D deadline, C work, d changeover, all in seconds; g the step).
      const double g = d.spot_model->gap_seconds;
      const double deadline_s = d.job.deadline_hours * 3600;
      const double work_s = d.job.work_hours * 3600;
      const double changeover_s = d.job.changeover_hours * 3600;
      w.decision_steps = std::ceil(deadline_s / g);
      const double width = std::max(0.0, deadline_s - work_s) / (g / 120.0) + 1;
      w.dp_cells = w.decision_steps * width * (3 + 2 * std::ceil(changeover_s / g));
      if (all ||
          std::find(s.policies.begin(), s.policies.end(), "markov-lookahead") != s.policies.end())
        w.lookahead_states = internal::markov_lookahead_states(d.job, g);
      w.trace_steps = static_cast<double>(d.spot_model_steps) *
                      static_cast<double>(std::max<size_t>(1, d.spot_traces.size()));
      break;
    }
    case ScenarioKind::kReserve: {
      if (s.reservation().demand.format != "synthetic-vms") break;
      const SyntheticVms& v = s.reservation().synthetic_vms;
      w.vm_hours = v.base_vms * std::pow(1 + std::max(0.0, v.growth_per_week), v.weeks) *
                   (1 + v.diurnal_amplitude) * (1 + 3 * v.noise) * v.weeks * 168;
      const ReservePolicySettings& p = s.reservation().policy;
      w.review_hours = v.weeks * 168 / p.review_hours * (p.lookback_hours + p.projection_hours);
      break;
    }
  }
  return w;
}

}  // namespace gpuplan::simulate
