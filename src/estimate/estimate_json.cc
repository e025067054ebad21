// The JSON of `gpuplan estimate --json` and POST /api/estimate (the contract
// of issue 3, documented in docs/estimator.md): the planner and the simulator
// read it.
#include "core/json_value.h"
#include "estimate/estimate.h"

namespace gpuplan::estimate {

// tp, pp and dp; grad_accum is written only for training (to_json below).
GPUPLAN_JSON_FIELDS(Layout, tp, pp, dp)
GPUPLAN_JSON_FIELDS(MemoryBreakdown, weights, gradients, optimizer, activations, kv_cache, overhead)
GPUPLAN_JSON_FIELDS(ServingEstimate, gpus_per_replica, replicas, replicas_needed, vms_needed,
                    max_batch, batch_at_slo, capacity_rps_per_replica, concurrency, ttft_ms,
                    tpot_ms, meets_slo)
GPUPLAN_JSON_FIELDS(Assumption, name, value, source)
GPUPLAN_JSON_FIELDS(Estimate, size, count, gpus, gpu, gpu_count, fits, reason, layout,
                    memory_needed_gib, memory_available_gib, memory, throughput, throughput_unit,
                    hours, mfu, mfu_compute, serving)

nlohmann::ordered_json to_json(const Estimate& e) {
  nlohmann::ordered_json j = e;
  const bool training = e.throughput_unit == "tokens/s";
  if (training) {
    j["layout"]["grad_accum"] = e.layout.grad_accum;
    j["layout"]["vpp"] = e.layout.vpp;
  }
  if (e.mfu <= 0) j["mfu"] = nullptr;  // no MFU model behind this kind
  if (e.mfu_compute <= 0) j["mfu_compute"] = nullptr;
  if (training) {
    j["batch_bound"] = e.batch_bound;
    nlohmann::ordered_json r = nlohmann::ordered_json::array();
    for (const RejectedLayout& x : e.rejected_layouts) {
      nlohmann::ordered_json one = x.layout;
      if (x.layout.vpp > 1) one["vpp"] = x.layout.vpp;
      one["reason"] = x.reason;
      r.push_back(std::move(one));
    }
    j["rejected_layouts"] = std::move(r);
  }
  j["assumptions"] = e.assumptions;
  return j;
}

nlohmann::ordered_json to_json(const workload::Workload& w, const std::vector<Estimate>& options) {
  nlohmann::ordered_json j;
  // The workload as a plan names it (docs/json.md): name, file, kind.
  j["workload"] = {{"name", w.name}, {"file", w.file}, {"kind", workload::to_string(w.kind)}};
  nlohmann::ordered_json opts = nlohmann::ordered_json::array();
  for (const Estimate& e : options) opts.push_back(to_json(e));
  j["options"] = std::move(opts);
  return j;
}

}  // namespace gpuplan::estimate
