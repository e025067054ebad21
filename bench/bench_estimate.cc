// Estimator benchmarks (issue target: one workload across the whole catalog
// < 2 ms). Inputs: the real embedded catalog and the example workloads.
#include <string>

#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "workload/workload.h"

namespace {

using gpuplan::catalog::Catalog;

const Catalog& catalog() {
  static const auto c = std::move(*Catalog::load_embedded());
  return *c;
}

gpuplan::workload::Workload example(const std::string& name) {
  auto w = gpuplan::workload::parse_file(std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + name);
  return w ? *w : gpuplan::workload::Workload{};
}

// `gpuplan estimate WORKLOAD` in-process: every GPU size, smallest count that
// fits (and meets the deadline), with assumptions.
void BM_EstimateAll(benchmark::State& state, const char* file) {
  const auto w = example(file);
  const Catalog& c = catalog();
  size_t options = 0;
  for (auto _ : state) {
    auto all = gpuplan::estimate::estimate_all(w, c);
    options = all.size();
    benchmark::DoNotOptimize(all);
  }
  state.counters["sizes"] = static_cast<double>(options);
}
BENCHMARK_CAPTURE(BM_EstimateAll, finetune_llama3_8b, "finetune-llama3-8b.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EstimateAll, serve_llama3_8b, "serve-llama3-8b.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EstimateAll, pretrain_llama2_70b, "pretrain-llama2-70b.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EstimateAll, render_nv, "render-nv.yaml")->Unit(benchmark::kMillisecond);

// One estimate() call, as the planner makes per size x count.
void BM_EstimateOne(benchmark::State& state) {
  const auto w = example("finetune-llama3-8b.yaml");
  const Catalog& c = catalog();
  const auto* size = c.find_size("Standard_ND96isr_H100_v5");
  const auto* gpu = size ? c.find_gpu(size->gpu_model) : nullptr;
  if (!gpu) {
    state.SkipWithError("size not in catalog");
    return;
  }
  for (auto _ : state) {
    auto e = gpuplan::estimate::estimate(w, *size, *gpu, 2);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_EstimateOne)->Unit(benchmark::kMicrosecond);

}  // namespace
