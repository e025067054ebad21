// The JSON of `gpuplan estimate --json` and POST /api/estimate (the contract
// of issue 3, documented in docs/estimator.md): the planner and the simulator
// read it.
#include "estimate/estimate.h"

namespace gpuplan::estimate {

nlohmann::ordered_json to_json(const Estimate& e) {
  nlohmann::ordered_json j;
  j["size"] = e.size;
  j["count"] = e.count;
  j["gpus"] = e.gpus;
  j["gpu"] = e.gpu;
  j["gpu_count"] = e.gpu_count;
  j["fits"] = e.fits;
  j["reason"] = e.reason;
  j["layout"] = {{"tp", e.layout.tp}, {"pp", e.layout.pp}, {"dp", e.layout.dp}};
  if (e.throughput_unit == "tokens/s") j["layout"]["grad_accum"] = e.layout.grad_accum;
  j["memory_needed_gib"] = e.memory_needed_gib;
  j["memory_available_gib"] = e.memory_available_gib;
  j["memory"] = {{"weights", e.memory.weights},     {"gradients", e.memory.gradients},
                 {"optimizer", e.memory.optimizer}, {"activations", e.memory.activations},
                 {"kv_cache", e.memory.kv_cache},   {"overhead", e.memory.overhead}};
  j["throughput"] = e.throughput;
  j["throughput_unit"] = e.throughput_unit;
  j["hours"] = e.hours;
  j["mfu"] = e.mfu > 0 ? nlohmann::ordered_json(e.mfu) : nullptr;
  if (e.serving) {
    const auto& s = *e.serving;
    j["serving"] = {{"gpus_per_replica", s.gpus_per_replica},
                    {"replicas", s.replicas},
                    {"replicas_needed", s.replicas_needed},
                    {"vms_needed", s.vms_needed},
                    {"max_batch", s.max_batch},
                    {"batch_at_slo", s.batch_at_slo},
                    {"capacity_rps_per_replica", s.capacity_rps_per_replica},
                    {"concurrency", s.concurrency},
                    {"ttft_ms", s.ttft_ms},
                    {"tpot_ms", s.tpot_ms},
                    {"meets_slo", s.meets_slo}};
  } else {
    j["serving"] = nullptr;
  }
  if (e.throughput_unit == "tokens/s") {
    j["batch_bound"] = e.batch_bound;
    nlohmann::ordered_json r = nlohmann::ordered_json::array();
    for (const RejectedLayout& x : e.rejected_layouts) {
      r.push_back(
          {{"tp", x.layout.tp}, {"pp", x.layout.pp}, {"dp", x.layout.dp}, {"reason", x.reason}});
    }
    j["rejected_layouts"] = std::move(r);
  }
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& x : e.assumptions) {
    a.push_back({{"name", x.name}, {"value", x.value}, {"source", x.source}});
  }
  j["assumptions"] = std::move(a);
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
