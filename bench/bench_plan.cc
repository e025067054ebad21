// Planning over the whole embedded catalog: every GPU size (AMD included) x
// region x pricing model x node counts 1..64, in-process. DESIGN.md's target
// is a p50 under 5 ms; the median of the repetitions is the p50 to read.
#include <cstdlib>
#include <iostream>
#include <memory>

#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "cost/cost.h"
#include "plan/plan.h"
#include "workload/workload.h"

namespace {

using namespace gpuplan;

struct Inputs {
  std::unique_ptr<catalog::Catalog> catalog;
  cost::Rates rates;
  workload::Workload finetune;
};

const Inputs& inputs() {
  static const Inputs* in = [] {
    auto* i = new Inputs;
    auto cat = catalog::Catalog::load_embedded();
    auto rates = cost::Rates::load_embedded();
    auto w =
        workload::parse_file(std::string(GPUPLAN_SOURCE_DIR) + "/examples/finetune-llama3-8b.yaml");
    if (!cat || !rates || !w) {
      std::cerr << "bench_plan: cannot load the embedded catalog, rates or the example\n";
      std::exit(1);
    }
    i->catalog = std::move(*cat);
    i->rates = std::move(*rates);
    i->finetune = std::move(*w);
    return i;
  }();
  return *in;
}

// Whole catalog: no node limit, no region limit, no deadline, AMD allowed.
void BM_PlanWholeCatalog(benchmark::State& state) {
  const Inputs& in = inputs();
  workload::Workload w = in.finetune;
  w.constraints.max_nodes = 0;
  w.constraints.deadline_hours.reset();
  plan::PlanOptions o;
  o.max_count = 64;
  o.allow_amd = true;
  long long considered = 0;
  for (auto _ : state) {
    auto p = plan::make_plan(w, *in.catalog, in.rates, o);
    if (!p) state.SkipWithError(p.error().to_string().c_str());
    considered = p->considered;
    benchmark::DoNotOptimize(p);
  }
  state.counters["candidates"] = static_cast<double>(considered);
}
BENCHMARK(BM_PlanWholeCatalog)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(15)
    ->ReportAggregatesOnly(true);

// The README's first command as the CLI runs it (max_nodes 8, 48 h deadline).
void BM_PlanFinetuneExample(benchmark::State& state) {
  const Inputs& in = inputs();
  plan::PlanOptions o;
  o.top = 5;
  for (auto _ : state) {
    auto p = plan::make_plan(in.finetune, *in.catalog, in.rates, o);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PlanFinetuneExample)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(15)
    ->ReportAggregatesOnly(true);

// The whole catalog with an Azure eviction band imported for every (size,
// region) pair (the five bands in turn): spot hours are computed per band.
void BM_PlanWholeCatalogWithBands(benchmark::State& state) {
  const Inputs& in = inputs();
  std::vector<catalog::SpotEviction> bands;
  int i = 0;
  for (const catalog::VmSize& s : in.catalog->sizes())
    for (const std::string& r : in.catalog->regions_for(s.name))
      bands.push_back(
          {s.name, r, catalog::kAllEvictionBands[i++ % 5], "spot: bench", "2026-11-30"});
  auto cat = catalog::Catalog::from_parts(in.catalog->gpus(), in.catalog->sizes(),
                                          in.catalog->offers(), {}, {}, bands);
  workload::Workload w = in.finetune;
  w.constraints.max_nodes = 0;
  w.constraints.deadline_hours.reset();
  plan::PlanOptions o;
  o.max_count = 64;
  o.allow_amd = true;
  for (auto _ : state) {
    auto p = plan::make_plan(w, *cat, in.rates, o);
    if (!p) state.SkipWithError(p.error().to_string().c_str());
    benchmark::DoNotOptimize(p);
  }
  state.counters["bands"] = static_cast<double>(bands.size());
}
BENCHMARK(BM_PlanWholeCatalogWithBands)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(15)
    ->ReportAggregatesOnly(true);

}  // namespace
