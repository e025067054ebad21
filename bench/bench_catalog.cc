// Catalog benchmarks (DESIGN.md targets: embedded load < 10 ms, a filtered
// query < 1 ms). Inputs are the real embedded catalog.
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"

namespace {

using gpuplan::catalog::Catalog;
using gpuplan::catalog::CatalogQuery;

// Parse the four embedded CSVs, derive every estimated price, build indexes.
void BM_CatalogLoadEmbedded(benchmark::State& state) {
  for (auto _ : state) {
    auto c = Catalog::load_embedded();
    if (!c) state.SkipWithError("load_embedded failed");
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_CatalogLoadEmbedded)->Unit(benchmark::kMillisecond);

const Catalog& catalog() {
  static const auto c = std::move(*Catalog::load_embedded());
  return *c;
}

// `gpuplan catalog --gpu H100 --region eastus`.
void BM_CatalogQueryH100Eastus(benchmark::State& state) {
  CatalogQuery q;
  q.gpu = "H100";
  q.regions = {"eastus"};
  for (auto _ : state) {
    auto rows = catalog().query(q);
    benchmark::DoNotOptimize(rows);
  }
}
BENCHMARK(BM_CatalogQueryH100Eastus)->Unit(benchmark::kMicrosecond);

// The whole default listing (every current size x region, payg linux, by price).
void BM_CatalogQueryAll(benchmark::State& state) {
  CatalogQuery q;
  for (auto _ : state) {
    auto rows = catalog().query(q);
    benchmark::DoNotOptimize(rows);
  }
}
BENCHMARK(BM_CatalogQueryAll)->Unit(benchmark::kMicrosecond);

// One offer lookup, as the planner does per (size, region, pricing).
void BM_CatalogOfferLookup(benchmark::State& state) {
  for (auto _ : state) {
    auto* o = catalog().offer("Standard_NC40ads_H100_v5", "eastus", gpuplan::catalog::Os::kLinux,
                              gpuplan::catalog::Pricing::kReserved1y);
    benchmark::DoNotOptimize(o);
  }
}
BENCHMARK(BM_CatalogOfferLookup);

}  // namespace
