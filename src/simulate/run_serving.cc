// The serving scenario's runner: the price, the model replica (the
// scenario's, or the estimator's at the demand's mean context in the layout a
// deployment would choose), the fleet's settings, one replay of the demand
// per policy (in parallel, gathered in policy order so that the report does
// not depend on the schedule), the lower bound that is the `optimal` row,
// and the rows. The engine is in serving.cc, the policies in
// serving_policies.cc.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <memory>
#include <system_error>
#include <thread>

#include "catalog/lookup.h"
#include "core/format.h"
#include "estimate/estimate.h"
#include "simulate/autoscale_export.h"
#include "simulate/demand.h"
#include "simulate/internal/runner.h"
#include "simulate/serving.h"
#include "workload/models.h"

namespace gpuplan::simulate::internal {

namespace {

Result<std::unique_ptr<DemandSource>> open_demand(const Scenario& s, const std::string& trace,
                                                  uint64_t seed) {
  const ServingSpec& spec = s.serving();
  if (spec.demand.format == "request-trace")
    return open_request_trace(trace, spec.demand.time_scale, spec.prefix_cache, spec.burstgpt);
  if (spec.demand.format == "alibaba-qps")
    return open_alibaba_qps(trace, spec.demand.time_scale, spec.qps_bucket_s, spec.qps_input,
                            spec.qps_output, seed);
  return make_synthetic(spec.synthetic, spec.demand.time_scale, seed);
}

// The demand's mean tokens: the estimator's context length (input + half
// the output) and the means of input and output.
struct MeanTokens {
  double context = 0, input = 0, output = 0;
  double input_sd = 0, output_sd = 0, input_max = 1, output_max = 1;
};

// A demand that drew no request: the trace file, or the scenario's
// demand: key when the demand is generated (a rate too low for the
// duration draws none).
tl::unexpected<Error> no_requests(const Scenario& s, const std::string& trace) {
  if (!trace.empty()) return invalid_argument("the demand has no requests", Where{trace, 0, 0, ""});
  return invalid_argument(
      "the demand has no requests (the rate over the duration drew none; raise "
      "rate_rps or duration_hours)",
      s.where("demand"));
}

Result<MeanTokens> mean_tokens(const Scenario& s, const std::string& trace, uint64_t seed) {
  GPUPLAN_TRY(auto src, open_demand(s, trace, seed));
  Request r;
  double in = 0, out = 0, in2 = 0, out2 = 0, in_max = 1, out_max = 1;
  int64_t n = 0;
  for (;;) {
    GPUPLAN_TRY(bool more, src->next(r));
    if (!more) break;
    in += r.input_tokens;
    out += r.output_tokens;
    in2 += static_cast<double>(r.input_tokens) * r.input_tokens;
    out2 += static_cast<double>(r.output_tokens) * r.output_tokens;
    in_max = std::max(in_max, static_cast<double>(r.input_tokens));
    out_max = std::max(out_max, static_cast<double>(r.output_tokens));
    ++n;
  }
  if (n == 0) return no_requests(s, trace);
  MeanTokens m;
  m.context = (in + out / 2) / static_cast<double>(n);
  m.input = in / static_cast<double>(n);
  m.output = out / static_cast<double>(n);
  const double dn = static_cast<double>(n);
  m.input_sd = std::sqrt(std::max(0.0, in2 / dn - m.input * m.input));
  m.output_sd = std::sqrt(std::max(0.0, out2 / dn - m.output * m.output));
  m.input_max = in_max;
  m.output_max = out_max;
  return m;
}

std::string describe_replica(const ReplicaCapacity& c) {
  return "prefill " + strings::fixed(c.prefill_tokens_per_s, 0) + " tok/s, step " +
         strings::fixed(c.step_base_s * 1e3, 2) + " ms + " +
         strings::fixed(c.step_per_seq_s * 1e3, 4) + " ms/seq, max batch " +
         std::to_string(c.max_batch);
}

// The scenario's model at its precision as an inference workload.
Result<workload::Workload> serving_workload(const Scenario& s, const workload::Model& m) {
  const ServingSpec& spec = s.serving();
  workload::Workload w;
  w.kind = workload::Kind::kInfer;
  w.model = m;
  if (spec.precision.empty()) {
    workload::serve_released_weights(w);
    return w;
  }
  const auto p = workload::precision_named(spec.precision);
  if (!p)
    return invalid_argument("unknown precision '" + spec.precision + "'", s.where("precision"));
  w.precision = *p;
  return w;
}

// The estimator's replica model reduced to the simulator's four numbers.
ReplicaCapacity fit_replica(const estimate::ReplicaModel& rm, double mean_context) {
  ReplicaCapacity c;
  const double mb = std::max(1.0, std::floor(rm.max_batch(mean_context)));
  const double b2 = std::min(mb, 64.0);
  const double s1 = rm.decode_step_seconds(1, mean_context);
  const double s2 = rm.decode_step_seconds(b2, mean_context);
  c.step_per_seq_s = b2 > 1 ? std::max(0.0, (s2 - s1) / (b2 - 1)) : 0;
  c.step_base_s = std::max(1e-6, s1 - c.step_per_seq_s);
  const double p1 = rm.prefill_seconds(1000), p2 = rm.prefill_seconds(2000);
  c.prefill_tokens_per_s = p2 > p1 ? 1000 / (p2 - p1) : 1000 / std::max(p1, 1e-9);
  c.prefill_fixed_s = std::max(0.0, p1 - 1000 / c.prefill_tokens_per_s);
  c.max_batch = static_cast<int>(mb);
  c.weight_bytes = rm.weight_bytes;
  return c;
}

// The model replica and its tensor-parallel size `*tp` (GPUs per replica).
// Without tensor_parallel: an explicit replica: takes all GPUs of the VM; the
// estimator's replica takes the layout the estimator's one layout search
// (estimate::choose_serving_layout) picks for the demand's token moments and
// the scenario's SLO: the most requests per GPU within the SLO.
Result<ReplicaCapacity> resolve_replica(const Scenario& s, const catalog::Catalog* cat,
                                        const MeanTokens& mean, double tpot_s, int* tp,
                                        std::vector<Assumed>& assumed) {
  const ServingSpec& spec = s.serving();
  const catalog::VmSize* vm = cat && !s.vm_size.empty() ? cat->find_size(s.vm_size) : nullptr;
  // Without a catalog size (explicit prices and replica), a VM is one replica.
  const int vm_gpus = vm ? std::max(1, static_cast<int>(std::floor(vm->gpu_count)))
                         : std::max(1, spec.tensor_parallel);
  if (spec.tensor_parallel > vm_gpus)
    return invalid_argument("tensor_parallel " + std::to_string(spec.tensor_parallel) +
                                " exceeds the " + std::to_string(vm_gpus) + " GPU(s) of " +
                                (vm ? s.vm_size : std::string("the VM")),
                            s.where("tensor_parallel"));
  if (spec.replica) {
    *tp = spec.tensor_parallel > 0 ? spec.tensor_parallel : vm_gpus;
    assumed.push_back({"replica", describe_replica(*spec.replica), spec.replica->source});
    return *spec.replica;
  }
  if (!cat)
    return not_found("no catalog to size the replica; give replica: in the scenario",
                     s.where("replica"));
  GPUPLAN_TRY(const catalog::VmSize* size,
              catalog::lookup_size(*cat, s.vm_size, s.where("vm.size")));
  const catalog::Gpu* gpu = cat->find_gpu(size->gpu_model);
  if (!gpu)
    return not_found("the catalog has no GPU '" + size->gpu_model + "'", s.where("vm.size"));
  const workload::Model* m = workload::find_model(spec.model);
  if (!m) return not_found("unknown model '" + spec.model + "'", s.where("model"));
  GPUPLAN_TRY(const workload::Workload w,
              serving_workload(s, workload::named_model(*m, spec.model)));
  ReplicaCapacity c;
  if (spec.tensor_parallel > 0) {
    // Tensor parallelism splits the attention heads and the KV heads (vLLM
    // refuses a size that does not divide them or a whole multiple of the
    // KV heads), as estimate's layouts require.
    if (!workload::serving_tensor_parallel_fits(*m, spec.tensor_parallel)) {
      return invalid_argument(
          "tensor_parallel " + std::to_string(spec.tensor_parallel) + " does not divide " +
              spec.model + "'s " + std::to_string(m->heads) + " attention heads and " +
              std::to_string(m->kv_heads) + " KV heads (or a whole multiple of them)",
          s.where("tensor_parallel"));
    }
    *tp = spec.tensor_parallel;
    auto rm = estimate::replica_model(w, *gpu, size->nvlink, *tp);
    // The layout the file asks for does not hold the model: the file's to
    // fix, at its tensor_parallel (it exited 1, naming no field).
    if (!rm)
      return invalid_argument(std::to_string(*tp) + " of " + s.vm_size + "'s GPUs cannot hold " +
                                  spec.model + ": " + rm.error().message,
                              s.where("tensor_parallel"));
    c = fit_replica(*rm, mean.context);
  } else {
    workload::Workload ws = w;
    ws.serving.input_tokens = {"lognormal", mean.input, mean.input_sd, 1, mean.input_max};
    ws.serving.output_tokens = {"lognormal", mean.output, mean.output_sd, 1, mean.output_max};
    ws.serving.ttft_ms = spec.ttft_ms;
    ws.serving.tpot_ms = tpot_s * 1e3;
    ws.serving.percentile = spec.slo_attainment * 100;
    const estimate::ServingLayout lay =
        estimate::choose_serving_layout(ws, *gpu, size->nvlink, vm_gpus);
    if (lay.tp == 0)
      return invalid_argument(
          "no tensor-parallel layout of " + s.vm_size + " holds " + m->name + ": " + lay.why_not,
          s.where("vm.size"));
    if (!lay.meets_slo)
      assumed.push_back({"layout_misses_slo", lay.why_not,
                         "estimator: no layout meets the SLO at the demand's token moments; "
                         "the smallest that holds the weights is simulated"});
    *tp = lay.tp;
    c = fit_replica(lay.model, mean.context);
  }
  c.source = "estimator: " + std::string(m->name) + " " +
             std::string(workload::to_string(w.precision)) + " on " + std::to_string(*tp) + "x " +
             gpu->model + " at mean context " + strings::fixed(mean.context, 0) +
             " tokens (linear fit of the decode step at batch 1 and " +
             strings::fixed(std::min(c.max_batch, 64), 0) + ")";
  assumed.push_back({"replica", describe_replica(c), c.source});
  return c;
}

// Allocation, boot and GPU driver start of a GPU VM in a scale set.
// Microsoft Q&A (learn.microsoft.com/answers, 2025: "5-10 min scale-out
// latency for A100 (Standard_NC96ads_A100_v4) on AKS is expected"; ~10-11
// min observed before a new GPU node is ready, driver and device plugin
// included) — we take the lower end for a VM whose image has the driver
// baked in: 3 min for NC/NV, 7 min for ND (8 GPUs, InfiniBand).
constexpr const char* kBootSource =
    "estimate: 3 min NC/NV, 7 min ND (Microsoft Q&A 2025: 5-10 min GPU scale-out on AKS, driver "
    "included)";
// Weights from Blob storage: a single block blob reads up to the storage
// account's egress limit (learn.microsoft.com, "Scalability and performance
// targets for Blob storage", 2026), so the VM's network and the download
// tool bound it; 1 GB/s (8 Gbit/s) is within the 20+ Gbit/s NICs of the
// NC A100/H100 sizes.
constexpr const char* kWeightsSource =
    "Blob single-blob throughput up to the account's egress limit (Azure Blob scalability "
    "targets); 1 GB/s default";
double default_boot_seconds(const std::string& vm_size) {
  const std::string f = strings::fold(vm_size);
  return f.rfind("standardnd", 0) == 0 || f.rfind("nd", 0) == 0 ? 420 : 180;
}

// The VMs: replicas per VM, start-up delay, fleet limits (the quota's cap
// included), the policies' intervals and targets; each recorded in the
// report's assumptions.
Status fleet_config(const Scenario& s, const catalog::Catalog* cat, int tp, ServingConfig& c,
                    SimReport& rep) {
  const ServingSpec& spec = s.serving();
  // A VM is the unit launched, billed and scaled; it runs floor(GPUs / tp)
  // model replicas (serving.h, "Units").
  const catalog::VmSize* size = cat && !s.vm_size.empty() ? cat->find_size(s.vm_size) : nullptr;
  c.gpus_per_vm = size ? size->gpu_count : tp;
  c.replicas_per_vm =
      size ? std::max(1, static_cast<int>(std::floor(size->gpu_count + 1e-9)) / tp) : 1;
  if (size)
    rep.assumptions.push_back(
        {"replicas_per_vm",
         std::to_string(c.replicas_per_vm) + " (tensor_parallel " + std::to_string(tp) + " on " +
             strings::fixed(size->gpu_count,
                            size->gpu_count == std::floor(size->gpu_count) ? 0 : 4) +
             " GPU(s) per VM; fleet counts, scale events and static-peak are VMs)",
         spec.tensor_parallel > 0 ? "scenario file"
                                  : "the layout serving the most requests per VM (estimator)"});
  if (spec.prefix_cache.enabled)
    rep.assumptions.push_back(
        {"prefix_cache",
         strings::fixed(spec.prefix_cache.capacity_tokens, 0) + " tokens in blocks of " +
             strings::fixed(spec.prefix_cache.block_tokens, 0) +
             ", one cache shared by the fleet (a request's leading blocks found there are not "
             "prefilled; least recently used out)",
         "scenario file (one pool for the fleet as in Mooncake, FAST'25; per-replica caches "
         "hit less)"});
  if (spec.startup_s) {
    c.startup_s = *spec.startup_s;
    rep.assumptions.push_back({"startup_seconds", strings::fixed(c.startup_s, 0), "scenario file"});
  } else if (c.replica.weight_bytes > 0) {
    // Scale-out latency: allocation, boot and driver, the serving image, and
    // every replica's weights over the VM's network at weights_gbps.
    const double boot = spec.boot_s.value_or(default_boot_seconds(s.vm_size));
    const double gb = c.replica.weight_bytes * c.replicas_per_vm / 1e9;
    c.startup_s = boot + spec.image_s + gb / spec.weights_gbps;
    rep.assumptions.push_back(
        {"startup_seconds",
         strings::fixed(c.startup_s, 0) + " = boot " + strings::fixed(boot, 0) + " s + image " +
             strings::fixed(spec.image_s, 0) + " s + " + strings::fixed(gb, 1) +
             " GB of weights at " + strings::fixed(spec.weights_gbps, 2) + " GB/s",
         std::string(spec.boot_s ? "fleet.boot_seconds" : kBootSource) +
             "; image pull and weights: fleet.image_seconds, fleet.weights_gbps (" +
             kWeightsSource + ")"});
  } else {
    Assumed a = default_startup(s.vm_size);
    c.startup_s = std::stod(a.value);
    rep.assumptions.push_back(a);
  }
  c.min_replicas = spec.min_replicas;
  c.initial_replicas = spec.initial_replicas;
  c.max_replicas = spec.max_replicas;
  if (spec.quota_vcpus && size && size->vcpus > 0) {
    const int cap = static_cast<int>(std::floor(*spec.quota_vcpus / size->vcpus));
    rep.assumptions.push_back({"quota_cap_replicas", std::to_string(cap),
                               "fleet.quota_vcpus " + strings::fixed(*spec.quota_vcpus, 0) + " / " +
                                   std::to_string(size->vcpus) + " vCPUs per VM"});
    // A quota below one VM, or below the fleet the file starts or keeps,
    // is a fleet Azure refuses to deploy: the file's to fix. (The cap held
    // one VM under a quota of none, and the engine started every initial
    // VM above the cap while the bound held it: policies beat the bound's
    // own "at most" attainment.)
    const int wanted = std::max(c.min_replicas, c.initial_replicas);
    if (cap < std::max(1, wanted))
      return invalid_argument(
          "allows " + std::to_string(cap) + " VM(s) of " + s.vm_size + " (" +
              std::to_string(size->vcpus) + " vCPUs each), fewer than " +
              (cap < 1 ? std::string("one")
                       : std::to_string(wanted) + " (fleet." +
                             (c.initial_replicas >= c.min_replicas ? "initial_replicas"
                                                                   : "min_replicas") +
                             ")"),
          s.where("fleet.quota_vcpus"));
    c.max_replicas = std::min(c.max_replicas, cap);
  }
  c.interval_s = spec.interval_s;
  c.timeline_s = spec.timeline_s;
  c.target_utilization = spec.target_utilization;
  c.routing = spec.routing;
  c.max_queue = spec.max_queue;
  c.queue_timeout_s = spec.queue_timeout_s;
  rep.assumptions.push_back({"routing",
                             c.routing == Routing::kShortestQueue
                                 ? "shortest queue (the replica whose queued prefills end first)"
                                 : "fewest running sequences",
                             spec.routing_given ? "scenario file" : "default"});
  c.admission = spec.admission;
  rep.assumptions.push_back(
      {"admission",
       c.admission == Admission::kShed
           ? "shed (a request no ready replica meets the SLO on is turned away, HTTP 429)"
           : "queue (replicas admit up to the KV-cache bound; the rest wait in one FIFO queue)",
       spec.admission_given ? "scenario file" : "default"});
  if (c.max_queue > 0)
    rep.assumptions.push_back(
        {"max_queue",
         std::to_string(c.max_queue) +
             " requests wait when all replicas are full; more are turned away",
         "scenario file"});
  if (c.admission == Admission::kQueue)
    rep.assumptions.push_back(
        {"queue_timeout",
         c.queue_timeout_s > 0
             ? strings::general(c.queue_timeout_s) +
                   " s: a request that waits longer for a replica is given up by its client "
                   "(counted as turned away)"
             : "none: queued requests wait for ever",
         spec.queue_timeout_given ? "scenario file"
                                  : "default: OpenAI's Python client's request timeout"});
  rep.assumptions.push_back({"slo",
                             "TTFT <= " + strings::fixed(spec.ttft_ms, 0) +
                                 " ms and TPOT <= " + strings::fixed(spec.tpot_ms, 0) + " ms",
                             "scenario file"});
  rep.assumptions.push_back({"slo_attainment_target",
                             strings::fixed(c.slo_attainment * 100, 1) + " %",
                             spec.slo_attainment_given ? "scenario file" : "default (issue 11)"});
  rep.assumptions.push_back({"planning_batch", std::to_string(c.replica.batch_at_slo(c.tpot_slo_s)),
                             "largest batch whose decode step is <= half the TPOT target"});
  rep.assumptions.push_back({"replicas",
                             "min " + std::to_string(c.min_replicas) + ", initial " +
                                 std::to_string(c.initial_replicas) + ", max " +
                                 std::to_string(c.max_replicas),
                             "scenario file"});
  return {};
}

// The profile pass over the demand: static-peak's size and the bound.
struct ProfileOut {
  DemandProfile profile;
  std::vector<std::string> notes;
};

// The replays: each policy's run and the profile pass.
struct Replays {
  std::vector<Result<ServingRun>> runs;  // in policy order
  std::vector<std::string> logs;
  Result<ProfileOut> profile;
  double hindsight_margin = 0;  // the search's margin and engine runs, when it ran
  int hindsight_runs = 0;
};

// One policy's replay. static-peak and hindsight wait for the profile pass
// (static-peak's size, hindsight's future); hindsight is a search over
// several replays and records its margin and run count in `out`.
Result<ServingRun> replay_one(const Scenario& s, const ServingConfig& c, const PolicyContext& ctx,
                              const std::string& name,
                              const std::shared_future<Result<ProfileOut>>& profile_f,
                              const std::string& trace, uint64_t seed, std::string* log,
                              bool timeline, Replays& out) {
  const ServingSpec& spec = s.serving();
  PolicyContext pc = ctx;
  if (name == "static-peak" || name == "hindsight") {
    const Result<ProfileOut>& pr = profile_f.get();
    if (!pr) return tl::unexpected(pr.error());
    pc.peak_replicas = std::min(c.max_replicas,
                                pr->profile.peak_replicas(c.target_utilization, c.replicas_per_vm));
    if (name == "hindsight") {
      GPUPLAN_TRY(HindsightRun h,
                  run_hindsight(c, pr->profile, pc, [&](ScalingPolicy& p) -> Result<ServingRun> {
                    GPUPLAN_TRY(auto src, open_demand(s, trace, seed));
                    return run_serving(c, *src, p, pc, nullptr, timeline);
                  }));
      out.hindsight_margin = h.margin;
      out.hindsight_runs = h.runs;
      return std::move(h.run);
    }
  }
  std::unique_ptr<ScalingPolicy> pol;
  if (name == "azure-autoscale")
    pol = make_azure_autoscale_policy(spec.autoscale);
  else if (name == "hpa")
    pol = make_hpa_policy(spec.hpa);
  else if (name == "slo-guard")
    pol = make_slo_guard_policy(spec.slo_guard);
  else if (name == "slo-guard-autoscale")
    pol = make_slo_guard_autoscale_policy(
        slo_guard_autoscale_settings(spec.slo_guard, c.startup_s, c.interval_s, AutoscaleTarget{})
            .rules,
        spec.slo_guard);
  else
    pol = make_serving_policy(name, c);
  GPUPLAN_TRY(auto src, open_demand(s, trace, seed));
  return run_serving(c, *src, *pol, pc, log, timeline);
}

// The profile pass and each policy's run are independent replays of the
// same demand: they run on up to hardware_concurrency threads. Only
// static-peak waits for the profile. Results, logs and errors are gathered
// in policy order, so the report does not depend on the schedule.
Replays replay_policies(const Scenario& s, const ServingConfig& c, const PolicyContext& ctx,
                        const std::vector<std::string>& policies, const std::string& trace,
                        uint64_t seed, bool event_log, bool timeline) {
  const std::shared_future<Result<ProfileOut>> profile_f =
      std::async(std::launch::async, [&]() -> Result<ProfileOut> {
        ProfileOut out;
        GPUPLAN_TRY(auto psrc, open_demand(s, trace, seed));
        GPUPLAN_TRY(out.profile, profile_demand(*psrc, c));
        if (out.profile.requests == 0) return no_requests(s, trace);
        for (const DropNote& d : psrc->drops())
          out.notes.push_back(psrc->describe() + ": " + std::to_string(d.count) + " " + d.what);
        return out;
      }).share();
  Replays out{std::vector<Result<ServingRun>>(policies.size(), ServingRun{}),
              std::vector<std::string>(policies.size()), ProfileOut{}};
  std::atomic<size_t> next_job{0};
  const auto worker = [&] {
    for (size_t i; (i = next_job++) < policies.size();)
      out.runs[i] = replay_one(s, c, ctx, policies[i], profile_f, trace, seed,
                               event_log ? &out.logs[i] : nullptr, timeline, out);
  };
  {
    const size_t hw = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    // As run_pool (run_deadline.cc): a thread that cannot start leaves its
    // share to the others.
    try {
      for (size_t k = 1; k < std::min(hw, policies.size()); ++k) pool.emplace_back(worker);
    } catch (const std::system_error&) {  // NOLINT(bugprone-empty-catch): fewer threads do
    }
    worker();
    for (std::thread& t : pool) t.join();
  }
  out.profile = profile_f.get();
  return out;
}

// One policy's replay as a report row. cost_vs_optimal divides by the bound
// at the SLO target, or at the policy's own attainment when it fell short
// (what the cheapest fleet serving as many requests within the SLO costs):
// no policy can be below 1.
PolicyRow row_of(const std::string& name, const ServingRun& r, const ServingBoundModel& bounds,
                 double target) {
  PolicyRow row;
  row.policy = name;
  row.cost_usd = r.cost_usd;
  const ServingBound bound = bounds.at(std::min(target, r.slo_attainment()));
  row.cost_vs_optimal =
      bound.cost_usd > 0 ? std::optional<double>(r.cost_usd / bound.cost_usd) : std::nullopt;
  row.slo_attainment = r.slo_attainment();
  row.p50_ttft_ms = r.ttft_ms.quantile(0.5);
  row.p99_ttft_ms = r.ttft_ms.quantile(0.99);
  row.p99_tpot_ms = r.tpot_ms.quantile(0.99);
  row.p50_tpot_ms = r.tpot_ms.quantile(0.5);
  row.vm_hours = r.vm_hours;
  row.rejected = static_cast<double>(r.rejected);
  row.evicted = static_cast<double>(r.evicted);
  row.evictions = r.evictions;
  row.missed_ttft = static_cast<double>(r.missed_ttft);
  row.missed_tpot = static_cast<double>(r.missed_tpot);
  row.hopeless = static_cast<double>(r.hopeless);
  row.scale_events = r.scale_events;
  row.gpu_hours = r.gpu_hours;
  row.spot_usd = r.spot_usd;
  row.on_demand_usd = r.cost_usd - r.spot_usd;
  row.runs = 1;
  return row;
}

// The rule set `policy` ran with, as a deployable ARM template: parameters
// vmssName (the scale set it scales) and location; capacity from the
// fleet's limits; its custom metrics named in the metadata (something on
// the serving side must publish them, as for deploy's autoscale.json).
nlohmann::ordered_json autoscale_template(const Scenario& s, const ServingConfig& c,
                                          const PolicyRow& row) {
  AutoscaleTarget t;
  // Named after the scale set: a scenario's name may hold characters an
  // Azure resource name may not.
  t.name = "[concat(parameters('vmssName'), '-autoscale')]";
  t.location = "[parameters('location')]";
  t.target_resource_uri =
      "[resourceId('Microsoft.Compute/virtualMachineScaleSets', parameters('vmssName'))]";
  // The fleet limits that were simulated, min_replicas 0 included.
  t.minimum = std::max(0, c.min_replicas);
  t.maximum = std::max({1, t.minimum, c.max_replicas});
  t.default_capacity = std::clamp(c.initial_replicas, t.minimum, t.maximum);
  const bool guard = row.policy == "slo-guard-autoscale";
  nlohmann::ordered_json resource =
      guard ? slo_guard_autoscale_settings(s.serving().slo_guard, c.startup_s, c.interval_s, t)
                  .resource
            : azure_autoscale_settings(s.serving().autoscale, t);
  // The custom metrics its rules read, from the rules themselves.
  std::vector<std::string> names;
  for (const auto& rule : resource["properties"]["profiles"][0]["rules"]) {
    const std::string m = rule["metricTrigger"]["metricName"].get<std::string>();
    if (std::find(names.begin(), names.end(), m) == names.end()) names.push_back(m);
  }
  std::string metrics;
  for (size_t i = 0; i < names.size(); ++i)
    metrics += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  nlohmann::ordered_json doc;
  doc["$schema"] =
      "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#";
  doc["contentVersion"] = "1.0.0.0";
  doc["metadata"] = {
      {"description",
       "gpuplan simulate " + s.name + ": the " + row.policy + " rule set, simulated at " +
           strings::fixed(*row.slo_attainment * 100, 2) + " % SLO attainment (target " +
           strings::fixed(c.slo_attainment * 100, 1) + " %) for " +
           strings::fixed(row.cost_usd, 2) + " USD. Its rules read the custom metrics " + metrics +
           " in namespace " + t.metric_namespace + ", which the serving side must publish."}};
  doc["parameters"] = {
      {"vmssName",
       {{"type", "string"}, {"metadata", {{"description", "the scale set the setting scales"}}}}},
      {"location", {{"type", "string"}, {"defaultValue", "[resourceGroup().location]"}}}};
  doc["resources"] = nlohmann::ordered_json::array({resource});
  return doc;
}

// Whether an attainment meets the scenario's target (the float error of a
// share of counts left out).
bool meets_target(double attainment, const ServingConfig& c) {
  return attainment + 1e-12 >= c.slo_attainment;
}

// Item 5 of issue 11: slo-guard is not an Azure autoscale setting. When it
// ran, the report says what the export cannot express and recommends the
// nearest exportable rule set that ran — the cheapest of azure-autoscale and
// slo-guard-autoscale that meets the target, else the one closest to it —
// with its simulated SLO and cost beside slo-guard's.
void recommend_export(const Scenario& s, const ServingConfig& c, SimReport& rep) {
  std::vector<std::string>& notes = rep.notes;
  const PolicyRow* guard = nullptr;
  const PolicyRow* best = nullptr;
  const auto better = [&](const PolicyRow& a, const PolicyRow& b) {
    const bool am = meets_target(*a.slo_attainment, c), bm = meets_target(*b.slo_attainment, c);
    if (am != bm) return am;
    return am ? a.cost_usd < b.cost_usd : *a.slo_attainment > *b.slo_attainment;
  };
  for (const PolicyRow& r : rep.policies) {
    if (!r.slo_attainment) continue;
    if (r.policy == "slo-guard") guard = &r;
    if ((r.policy == "azure-autoscale" || r.policy == "slo-guard-autoscale") &&
        (!best || better(r, *best)))
      best = &r;
  }
  if (best) {
    rep.autoscale_export = autoscale_template(s, c, *best);
    rep.autoscale_export_policy = best->policy;
  }
  if (!guard) return;
  const SloGuardExport e = slo_guard_autoscale_settings(s.serving().slo_guard, c.startup_s,
                                                        c.interval_s, AutoscaleTarget{});
  std::string what;
  for (const std::string& line : e.not_expressed) what += (what.empty() ? "" : "; ") + line;
  const auto fig = [](const PolicyRow& r) {
    return strings::fixed(*r.slo_attainment * 100, 2) + " % SLO at " +
           strings::fixed(r.cost_usd, 2) + " USD";
  };
  std::string note =
      "export: slo-guard is not expressible as Azure autoscale settings (" + what + "). ";
  if (best)
    note += "Nearest exportable rule set: " + best->policy + " (" + fig(*best) +
            (meets_target(*best->slo_attainment, c) ? ", meets" : ", misses") + " the " +
            strings::fixed(c.slo_attainment * 100, 1) + " % target; slo-guard: " + fig(*guard) +
            ")";
  else
    note += "Run --policy slo-guard-autoscale (or all) to simulate the nearest exportable rule set";
  notes.push_back(note);
}

// When no deployable policy met the target: the fewest VMs that, ready
// from the start and held throughout (min_replicas = initial_replicas =
// max_replicas = N, so any policy holds them), meet it on the same demand.
// On traffic whose crowds come sooner than a VM starts (the Azure LLM code
// hour: crowds of 100-450 prompts after minutes of silence, a 300-s
// start-up) every autoscaler misses while a fixed fleet of five H100s meets
// 99.7 % for less than they pay; a user should hear that, with the fleet
// that does it. Sized in hindsight, as static-peak is: a search over fleet
// sizes by replay — doubling from static-peak's size up to max_replicas,
// then bisection, which assumes that a larger fixed fleet meets at least
// as many requests (it names the fleet one smaller and what that met, so
// the step is visible).
struct FixedFleet {
  int vms = 0;  // the fewest found meeting the target; 0: none up to the cap
  double attainment = 0, cost_usd = 0;
  int smaller_vms = 0;  // the size just below, replayed (0: none); vms 0: the cap
  double smaller_attainment = 0;
  std::string smaller_stopped;  // why the engine stopped its replay, if it did
  int runs = 0;
};

FixedFleet fixed_fleet(const Scenario& s, const ServingConfig& c, const PolicyContext& ctx,
                       const std::string& trace, uint64_t seed, int first) {
  FixedFleet out;
  // One size's replay. A replay the engine stops (a backlog a fleet this
  // small never drains, a work cap of the server's) does not meet the
  // target: the search goes on above it, and the note says why.
  struct Outcome {
    bool met = false;
    double attainment = 0, cost_usd = 0;
    std::string stopped;
  };
  const auto replay = [&](int n) {
    ServingConfig f = c;
    f.min_replicas = f.initial_replicas = f.max_replicas = n;
    // As the scenario file with that fleet would run: a spot mix's
    // pay-as-you-go base is min_replicas unless the file sets it.
    if (f.spot.share > 0 && !s.serving().spot_base_given) f.spot.base_regular = n;
    PolicyContext pc = ctx;
    pc.min_replicas = pc.max_replicas = pc.peak_replicas = n;
    const std::unique_ptr<ScalingPolicy> pol = make_serving_policy("static-peak", f);
    ++out.runs;
    Outcome o;
    Result<ServingRun> r = open_demand(s, trace, seed).and_then([&](auto src) {
      return run_serving(f, *src, *pol, pc, nullptr, false);
    });
    if (!r) {
      o.stopped = r.error().message;
      return o;
    }
    o.attainment = r->slo_attainment(), o.cost_usd = r->cost_usd;
    o.met = meets_target(o.attainment, c);
    return o;
  };
  const auto took = [&](int n, const Outcome& o) {
    if (o.met) {
      out.vms = n, out.attainment = o.attainment, out.cost_usd = o.cost_usd;
    } else {
      out.smaller_vms = n, out.smaller_attainment = o.attainment;
      out.smaller_stopped = o.stopped;
    }
    return o.met;
  };
  // Galloping up from `first` (static-peak's size) to the cap, so that no
  // replay holds far more VMs than the demand needs (a cap of thousands
  // routes every arrival over thousands of replicas), then bisection.
  const int cap = std::max(1, c.max_replicas);
  int lo = 0, hi = std::clamp(first, 1, cap);
  while (!took(hi, replay(hi))) {
    if (hi == cap) return out;  // not even the cap: vms stays 0
    lo = hi;
    hi = std::min(cap, 2 * hi);
  }
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (took(mid, replay(mid)) ? hi : lo) = mid;
  }
  if (out.smaller_vms != out.vms - 1) out.smaller_vms = 0;  // only the size just below
  return out;
}

// The note on fixed_fleet's answer.
std::string fixed_fleet_note(const ServingConfig& c, const FixedFleet& f) {
  const std::string target = strings::fixed(c.slo_attainment * 100, 1) + " %";
  const auto fleet = [&](int n) {
    return std::to_string(n) + (c.replicas_per_vm > 1 ? " VM" : " replica") + (n == 1 ? "" : "s");
  };
  // What the size below (or the cap) did.
  const std::string smaller = f.smaller_stopped.empty()
                                  ? strings::fixed(f.smaller_attainment * 100, 2) + " %"
                                  : "its replay stopped: " + f.smaller_stopped;
  if (f.vms == 0)
    return "fixed fleet: no policy that can be deployed met the " + target +
           " target, and neither does a fleet of max_replicas (" + fleet(f.smaller_vms) +
           ") ready from the start and held (" + smaller +
           "). A larger fleet, a faster VM size or a looser SLO is what this demand needs";
  std::string note = "fixed fleet: no policy that can be deployed met the " + target + " target; " +
                     fleet(f.vms) + " ready from the start and held (min_replicas = " +
                     "initial_replicas = max_replicas = " + std::to_string(f.vms) +
                     (f.vms == 1 ? ") meets " : ") meet ") + strings::fixed(f.attainment * 100, 2) +
                     " % for " + strings::fixed(f.cost_usd, 2) + " USD";
  if (f.smaller_vms > 0) note += " (" + std::to_string(f.smaller_vms) + ": " + smaller + ")";
  note += ", found by " + std::to_string(f.runs) +
          " replays (doubling from static-peak's size, then bisection; sized in hindsight, as "
          "static-peak is). It waits for no start-up (" +
          strings::fixed(c.startup_s, 0) +
          " s here) and keeps its VMs through lulls: replay with that fleet to compare";
  return note;
}

}  // namespace

// The report's notes on the bound, the hindsight search, the export, the
// fleet's reach and the demand.
void add_notes(const Scenario& s, const ServingConfig& c, const ServingBound& bound,
               const DemandProfile& profile, int peak_replicas, const Replays& replays,
               SimReport& rep) {
  rep.notes.push_back(
      "optimal: a lower bound on any fleet of this size meeting the SLO for " +
      strings::fixed(bound.attainment * 100, 1) +
      " % of requests under the same physics (serial prefills within the TTFT at every "
      "second's peak, at most " +
      "the TPOT-bound batch per replica, each tick's requests replayed on as many VMs from an "
      "idle start, the same start-up delay and fleet limits); it serves no "
      "requests, so its latency fields are null; a policy below the target is compared with the "
      "bound at its own attainment");
  if (replays.hindsight_runs > 0) {
    // Below the target no margin of the search reached it: its cost
    // brackets the optimum at its own attainment only.
    double reached = 1;
    for (const PolicyRow& r : rep.policies)
      if (r.policy == "hindsight") reached = r.slo_attainment.value_or(1);
    rep.notes.push_back(
        "hindsight: a schedule that knows every future arrival (not a deployable policy): the "
        "need of each interval from now to one start-up ahead, its prefill at the TPOT stall "
        "limit times a margin m, searched over " +
        std::to_string(replays.hindsight_runs) +
        " engine runs; m = " + strings::fixed(replays.hindsight_margin, 3) +
        (meets_target(reached, c)
             ? ". A fleet reaches its cost, so the optimum lies between the optimal row and it"
             : ". No margin up to " + strings::fixed(kHindsightMaxMargin, 0) + " met the " +
                   strings::fixed(c.slo_attainment * 100, 1) + " % target (it reached " +
                   strings::fixed(reached * 100, 2) +
                   " %): the optimum at its own attainment lies between the optimal row and "
                   "it"));
  }
  // A policy whose own attainment the bound reaches at no cost has no ratio
  // (0 USD divides nothing): say so instead of leaving the column blank.
  std::string unrated;
  for (const PolicyRow& r : rep.policies)
    if (r.policy != "optimal" && !r.cost_vs_optimal)
      unrated += (unrated.empty() ? "" : ", ") + r.policy + " (" +
                 strings::fixed(r.slo_attainment.value_or(0) * 100, 2) + " %)";
  if (!unrated.empty())
    rep.notes.push_back(
        "vs opt is blank for " + unrated +
        ": a policy below the target is compared with the bound at its own attainment, and "
        "there the bound is 0 USD (with min_replicas " +
        std::to_string(c.min_replicas) +
        ", a fleet that serves that few requests within the SLO needs no VM by the bound's "
        "physics), so no ratio is defined");
  recommend_export(s, c, rep);
  if (bound.max_attainment < c.slo_attainment)
    rep.notes.push_back("no fleet within max_replicas reaches " +
                        strings::fixed(c.slo_attainment * 100, 1) + " %: at most " +
                        strings::fixed(bound.max_attainment * 100, 2) + " % (" +
                        std::to_string(profile.hopeless) +
                        " requests cannot meet the SLO on any fleet of this size)");
  // Why requests missed, per policy that missed any: what to change (more
  // replicas for the queue, fewer sequences or prefills per replica for
  // TPOT) differs, and hopeless requests need a faster replica, not more.
  std::string causes;
  for (const PolicyRow& r : rep.policies) {
    if (!r.missed_ttft || !r.missed_tpot || !r.hopeless || !r.rejected) continue;
    if (*r.missed_ttft + *r.missed_tpot + *r.rejected <= 0) continue;
    causes += (causes.empty() ? "" : "; ") + r.policy + " " + strings::fixed(*r.missed_ttft, 0) +
              " / " + strings::fixed(*r.missed_tpot, 0) + " / " + strings::fixed(*r.hopeless, 0) +
              " / " + strings::fixed(*r.rejected, 0);
  }
  std::string spot;
  for (const PolicyRow& r : rep.policies)
    if (r.evicted && r.evictions > 0)
      spot += (spot.empty() ? "" : "; ") + r.policy + " " + strings::fixed(r.evictions, 0) + " / " +
              strings::fixed(*r.evicted, 0) + " / " + format::usd(r.spot_usd) + " of " +
              format::usd(r.cost_usd);
  if (!spot.empty())
    rep.notes.push_back(
        "spot (evictions / running requests they lost, counted as misses / spot cost of the "
        "total): " +
        spot);
  if (!causes.empty())
    rep.notes.push_back(
        "misses by cause (over the TTFT / over the TPOT, one request may miss both / of "
        "those, no fleet of this size serves them / turned away): " +
        causes);
  // A step that carries a whole prefill chunk is over the TPOT even beside
  // one sequence: a request that decodes while prompts wait for their
  // prefill misses on any fleet that lets prompts wait. Sarathi-Serve sizes
  // the token budget so that a step fits the TBT target (Agrawal et al.,
  // OSDI 2024, §4.3); a smaller chunk also adds a decode step to each chunk
  // of every prefill, so which way it goes is for a replay to say (on the
  // A100 examples it costs attainment; on the Azure code hour it gains:
  // docs/simulate.md).
  const double step1 = c.replica.step_s(1), chunk = c.replica.chunk_s();
  bool tpot_missed = false;
  for (const PolicyRow& r : rep.policies)
    tpot_missed = tpot_missed || (r.missed_tpot && *r.missed_tpot > 0);
  if (tpot_missed && step1 + chunk > c.tpot_slo_s) {
    const double fits = std::floor((c.tpot_slo_s - step1) * c.replica.prefill_tokens_per_s);
    rep.notes.push_back(
        "a step that carries a whole " + strings::fixed(c.replica.chunk_tokens, 0) +
        "-token prefill chunk takes " + strings::fixed((step1 + chunk) * 1e3, 1) +
        " ms beside one sequence, over the " + strings::fixed(c.tpot_slo_s * 1e3, 0) +
        " ms TPOT: a request that decodes while prompts wait for their prefill misses it. " +
        (fits >= 16 ? "prefill_chunk_tokens: " + strings::fixed(fits, 0) +
                          " or less keeps such a step within the TPOT (Sarathi-Serve's "
                          "token budget, OSDI 2024 §4.3) but adds a decode step to each chunk "
                          "of every prefill: replay with it to see which way it goes"
                    : "no chunk of 16 tokens or more fits beside a decode step"));
  }
  rep.notes.push_back(
      "requests " + std::to_string(profile.requests) + ", mean " +
      strings::fixed(profile.mean_input, 0) + " input / " + strings::fixed(profile.mean_output, 0) +
      " output tokens" +
      (profile.mean_cached > 0
           ? " (" + strings::fixed(profile.mean_cached, 0) +
                 " of the input held by the prefix cache, " +
                 strings::fixed(100 * profile.mean_cached / std::max(1.0, profile.mean_input), 1) +
                 " %, not prefilled)"
           : std::string()) +
      "; static-peak holds " + std::to_string(peak_replicas) +
      (c.replicas_per_vm > 1 ? " VMs" : " replicas"));
}

// What every serving policy knows before the run: the price, the start-up
// delay, the fleet limits, the SLO, and one replica's slots and decode step.
PolicyContext policy_context(const ServingConfig& c, double od_usd_per_hour) {
  PolicyContext ctx;
  ctx.od_usd_per_hour = od_usd_per_hour;
  ctx.startup_s = c.startup_s;
  ctx.min_replicas = c.min_replicas;
  ctx.max_replicas = c.max_replicas;
  ctx.ttft_slo_s = c.ttft_slo_s;
  ctx.tpot_slo_s = c.tpot_slo_s;
  ctx.slo_attainment = c.slo_attainment;
  ctx.replicas_per_vm = c.replicas_per_vm;
  ctx.slots_per_replica = c.replica.batch_at_slo(c.tpot_slo_s);
  ctx.step_base_s = c.replica.step_base_s;
  ctx.step_per_seq_s = c.replica.step_per_seq_s;
  return ctx;
}

Result<SimReport> run_serving_scenario(const Scenario& s, const catalog::Catalog* cat,
                                       const RunOptions& o) {
  const ServingSpec& spec = s.serving();
  SimReport rep;
  GPUPLAN_TRY(const auto policies, start_report(s, o, "serving", serving_policy_names(), rep,
                                                serving_on_request_names()));
  rep.runs = 1;  // a demand trace is replayed once
  GPUPLAN_TRY(Prices prices, resolve_prices(s, cat, spec.spot.share > 0, rep.assumptions));
  const std::string trace = o.trace.value_or(spec.demand.trace);
  if (o.trace && spec.demand.format == "synthetic")
    return invalid_argument(
        "--trace replaces a trace file, but this scenario's demand is synthetic",
        s.where("demand"));

  // Mean tokens of the demand (the estimator's context length), then the
  // replica model, then the fleet.
  MeanTokens mean;
  if (!spec.replica) {
    GPUPLAN_TRY(mean, mean_tokens(s, trace, rep.seed));
  }
  ServingConfig c;
  c.ttft_slo_s = spec.ttft_ms / 1e3;
  c.tpot_slo_s = spec.tpot_ms / 1e3;
  c.slo_attainment = spec.slo_attainment;
  int tp = 1;
  GPUPLAN_TRY(c.replica, resolve_replica(s, cat, mean, c.tpot_slo_s, &tp, rep.assumptions));
  if (spec.prefill_chunk_tokens) c.replica.chunk_tokens = *spec.prefill_chunk_tokens;
  rep.assumptions.push_back(
      {"prefill_chunk",
       strings::fixed(c.replica.chunk_tokens, 0) + " tokens (" +
           strings::fixed(c.replica.chunk_s() * 1e3, 1) +
           " ms): each step decodes the batch and prefills at most this much, so a token waits "
           "one chunk at most beside prefills and a prefill shares its steps with the decodes",
       spec.prefill_chunk_tokens ? "scenario file"
                                 : "default: Sarathi-Serve's token budget, Agrawal et al. OSDI "
                                   "2024 §5; vLLM's V1 engine always chunks"});
  c.usd_per_hour = prices.od;
  if (const workload::Model* m = workload::find_model(spec.model); m && m->max_context > 0) {
    c.max_context_tokens = m->max_context;
    rep.assumptions.push_back({"max_context",
                               std::to_string(m->max_context) +
                                   " tokens: a longer prompt + answer is "
                                   "refused at arrival (turned away; no fleet serves it)",
                               "model " + spec.model});
  }
  GPUPLAN_RETURN_IF_ERROR(fleet_config(s, cat, tp, c, rep));
  c.max_simulated_s = o.max_simulated_s;
  if (o.timeline && o.max_timeline_points > 0)
    c.max_timeline_points = std::max(
        1.0, o.max_timeline_points / static_cast<double>(std::max<size_t>(1, policies.size())));
  c.deadline = o.deadline;
  if (spec.spot.share > 0) {
    c.spot = spec.spot;
    c.spot.usd_per_hour = prices.spot;
    c.spot.seed = rep.seed;
    if (!spec.spot_base_given) c.spot.base_regular = c.min_replicas;
    rep.assumptions.push_back(
        {"spot",
         "Spot Priority Mix: the first " + std::to_string(c.spot.base_regular) +
             " VMs pay-as-you-go, " + strings::fixed(c.spot.share * 100, 0) +
             " % spot above them; " + strings::fixed(c.spot.evictions_per_hour * 100, 1) +
             " % of spot VMs evicted per hour (exponential lifetimes, seed " +
             std::to_string(rep.seed) + "), Preempt notice " + strings::fixed(c.spot.notice_s, 0) +
             " s before; running requests lost",
         std::string("scenario file (fleet.spot") +
             (spec.spot_base_given ? ")" : "; base_regular defaults to min_replicas)") +
             "; Azure: 30 s eviction notice, eviction rates per hour in bands"});
  }

  // The replays, then the bound from the demand's profile.
  PolicyContext ctx = policy_context(c, prices.od);
  Replays replays = replay_policies(s, c, ctx, policies, trace, rep.seed, o.event_log, o.timeline);
  GPUPLAN_TRY(ProfileOut prof, std::move(replays.profile));
  const DemandProfile& profile = prof.profile;
  for (std::string& n : prof.notes) rep.notes.push_back(std::move(n));
  const ServingBoundModel bounds(profile, c);
  const ServingBound bound = bounds.at(c.slo_attainment);
  ctx.peak_replicas =
      std::min(c.max_replicas, profile.peak_replicas(c.target_utilization, c.replicas_per_vm));

  // The rows, in policy order, then the bound's.
  TraceRows tr;
  tr.file = spec.demand.format == "synthetic" ? "synthetic" : trace;
  for (size_t i = 0; i < policies.size(); ++i) {
    // The engine names a field; the scenario knows its line.
    GPUPLAN_TRY(ServingRun r, std::move(replays.runs[i]).map_error([&](Error e) {
      return s.located(std::move(e));
    }));
    rep.event_log += replays.logs[i];
    rep.events += r.events;
    tr.policies.push_back(row_of(policies[i], r, bounds, c.slo_attainment));
    for (const TimelinePoint& p : r.timeline) {
      // What the billed VMs are: the column said payg in spot fleets too.
      const char* capacity = p.spot_replicas <= 0            ? "payg"
                             : p.spot_replicas >= p.replicas ? "spot"
                                                             : "payg+spot";
      TimelineRow row{policies[i], p.t_hours, p.demand_rps, p.replicas, capacity, p.cost_usd};
      row.missed = p.missed;
      if (p.ttft_max_ms > 0) {
        row.ttft_mean_ms = p.ttft_mean_ms, row.ttft_p99_ms = p.ttft_p99_ms;
        row.ttft_max_ms = p.ttft_max_ms;
        row.tpot_mean_ms = p.tpot_mean_ms, row.tpot_p99_ms = p.tpot_p99_ms;
      }
      rep.timeline.push_back(std::move(row));
    }
  }
  PolicyRow opt;
  opt.policy = "optimal";
  opt.cost_usd = bound.cost_usd;
  opt.cost_vs_optimal = 1.0;
  opt.gpu_hours = bound.vm_hours * c.gpus_per_vm;
  opt.vm_hours = bound.vm_hours;
  opt.on_demand_usd = bound.cost_usd;
  opt.runs = 1;
  tr.policies.push_back(opt);
  rep.policies = tr.policies;
  rep.traces.push_back(std::move(tr));
  add_notes(s, c, bound, profile, ctx.peak_replicas, replays, rep);
  // No deployable policy met the target: what a fixed fleet does.
  bool ran = false, met = false;
  for (const PolicyRow& r : rep.policies) {
    if (r.policy == "optimal" || r.policy == "hindsight" || !r.slo_attainment) continue;
    ran = true;
    met = met || meets_target(*r.slo_attainment, c);
  }
  // Not where the requests no fleet of this size serves (a prefill alone
  // over the TTFT, a step at batch 1 over the TPOT) are more than the
  // target allows: no size meets it, and a search would replay every size
  // up to the cap for nothing.
  const double hopeless_share = static_cast<double>(profile.hopeless) /
                                static_cast<double>(std::max<int64_t>(1, profile.requests));
  if (ran && !met && meets_target(1 - hopeless_share, c))
    rep.notes.push_back(
        o.fixed_fleet_search
            ? fixed_fleet_note(c, fixed_fleet(s, c, ctx, trace, rep.seed, ctx.peak_replicas))
            : "fixed fleet: not searched here (it replays the demand again for each fleet size "
              "it tries, which this run's work caps do not count); `gpuplan simulate` names "
              "the fewest VMs that, ready from the start and held, meet the target");
  return rep;
}

}  // namespace gpuplan::simulate::internal
