// Reservation simulator benchmarks: the job trace to hourly VMs, the exact
// hindsight optimum and one policy over the Alibaba GPU v2023 trace (149 days,
// up to 65 VMs), and a 3-year synthetic fleet growing to ~250 VMs. Each
// reports simulated hours per second.
#include <benchmark/benchmark.h>

#include "simulate/demand.h"
#include "simulate/reserve.h"

namespace gpuplan::simulate {
namespace {

const VmDemand& pods_demand() {
  static const VmDemand d = [] {
    auto jobs = read_pod_jobs(GPUPLAN_SOURCE_DIR "/data/traces/alibaba_gpu_v2023_pods.csv");
    return *vms_from_jobs(*jobs, 1, 1);
  }();
  return d;
}

const VmDemand& three_years() {
  static const VmDemand d = [] {
    SyntheticVms s;
    s.base_vms = 10;
    s.weeks = 156;
    s.growth_per_week = 0.02;
    s.diurnal_amplitude = 0.3;
    s.noise = 0.1;
    return synthetic_vms(s, 1);
  }();
  return d;
}

ReservePrices prices() {
  ReservePrices p;
  p.payg_usd_per_hour = 3.673;
  p.reserved_usd_per_hour = 1.363;
  p.term_hours = 3 * 8760;
  return p;
}

void report_hours(benchmark::State& state, const VmDemand& d) {
  state.counters["hours_per_s"] = benchmark::Counter(
      static_cast<double>(d.vms.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void BM_ReserveJobsToVms(benchmark::State& state) {
  auto jobs = read_pod_jobs(GPUPLAN_SOURCE_DIR "/data/traces/alibaba_gpu_v2023_pods.csv");
  for (auto _ : state) benchmark::DoNotOptimize(vms_from_jobs(*jobs, 1, 1));
  report_hours(state, pods_demand());
}
BENCHMARK(BM_ReserveJobsToVms)->Unit(benchmark::kMillisecond);

void BM_ReserveOptimal(benchmark::State& state) {
  const VmDemand& d = state.range(0) == 0 ? pods_demand() : three_years();
  for (auto _ : state) benchmark::DoNotOptimize(reserve_optimal(d, prices()));
  report_hours(state, d);
}
BENCHMARK(BM_ReserveOptimal)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_ReserveForecastPolicy(benchmark::State& state) {
  const VmDemand& d = state.range(0) == 0 ? pods_demand() : three_years();
  for (auto _ : state) {
    auto p = make_reserve_policy("forecast-reserve", {});
    benchmark::DoNotOptimize(run_reserve(d, prices(), *p));
  }
  report_hours(state, d);
}
BENCHMARK(BM_ReserveForecastPolicy)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpuplan::simulate
