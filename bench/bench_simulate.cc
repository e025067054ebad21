// Simulator benchmarks (DESIGN.md: >= 10 M events/s/core; a week at 45 req/s,
// ~27 M requests, in < 10 s). Each reports events/s as a counter.
#include <benchmark/benchmark.h>

#include "simulate/deadline.h"
#include "simulate/demand.h"
#include "simulate/event_queue.h"
#include "simulate/rng.h"
#include "simulate/serving.h"

namespace gpuplan::simulate {
namespace {

// The event queue alone: a steady 1,000 pending events (a busy fleet's
// running sequences), one pop and one push per event.
void BM_SimulateEventQueue(benchmark::State& state) {
  EventQueue q;
  Rng rng(1);
  for (int i = 0; i < 1000; ++i) q.push(static_cast<SimTime>(rng.below(1'000'000)), 0);
  int64_t n = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1000; ++i) {
      Event e = q.pop();
      q.push(e.time + static_cast<SimTime>(rng.below(1'000'000)), e.kind, e.a);
    }
    n += 1000;
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimulateEventQueue);

ServingConfig week_config() {
  ServingConfig c;
  c.replica = {15000, 0.005, 0.0113, 0.000153, 383, "bench"};
  c.usd_per_hour = 3.673;
  c.startup_s = 300;
  c.min_replicas = 1;
  c.initial_replicas = 8;
  c.max_replicas = 64;
  return c;
}

SyntheticDemand week_demand(double hours) {
  SyntheticDemand d;
  d.rate_rps = 45;
  d.duration_hours = hours;
  d.diurnal_amplitude = 0.3;
  d.input = {1155, 1100, 1, 14000};
  d.output = {211, 200, 1, 1000};
  return d;
}

// The whole serving simulation (synthetic arrivals generated on the fly,
// routing, batching, completions, HPA ticks) for `range(0)` hours at 45 req/s.
void BM_SimulateServing45rps(benchmark::State& state) {
  const ServingConfig c = week_config();
  int64_t events = 0, requests = 0;
  for (auto _ : state) {
    auto src = make_synthetic(week_demand(static_cast<double>(state.range(0))), 1, 1);
    auto pol = make_serving_policy("hpa", c);
    auto r = run_serving(c, *src, *pol, PolicyContext{});
    events += r->events;
    requests += r->requests;
    benchmark::DoNotOptimize(r->cost_usd);
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["requests"] =
      static_cast<double>(requests) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_SimulateServing45rps)->Arg(1)->Arg(168)->Unit(benchmark::kMillisecond)->Iterations(1);

// The same replay under slo-guard (ours: per-interval need model, learned
// headroom, calibration) and the lower bound's profile pass and dual over
// the same demand: what `simulate --policy all` adds per policy and once.
void BM_SimulateServingSloGuard45rps(benchmark::State& state) {
  ServingConfig c = week_config();
  int64_t events = 0;
  double bound_usd = 0;
  for (auto _ : state) {
    auto src = make_synthetic(week_demand(static_cast<double>(state.range(0))), 1, 1);
    auto pol = make_slo_guard_policy(SloGuardSettings{});
    PolicyContext ctx;
    ctx.startup_s = c.startup_s;
    ctx.slots_per_replica = c.replica.batch_at_slo(c.tpot_slo_s);
    ctx.step_base_s = c.replica.step_base_s;
    ctx.step_per_seq_s = c.replica.step_per_seq_s;
    auto r = run_serving(c, *src, *pol, ctx);
    events += r->events;
    auto psrc = make_synthetic(week_demand(static_cast<double>(state.range(0))), 1, 1);
    auto prof = profile_demand(*psrc, c);
    bound_usd = serving_lower_bound(*prof, c, c.slo_attainment).cost_usd;
    benchmark::DoNotOptimize(r->cost_usd);
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["bound_usd"] = bound_usd;
}
BENCHMARK(BM_SimulateServingSloGuard45rps)->Arg(24)->Unit(benchmark::kMillisecond)->Iterations(1);

// The lower bound alone where its ticks are long and its bins short: an
// hourly interval and a 25-ms TTFT (12.5-ms bins, 288,000 to a tick). The
// windows of a tick used to be scanned end by end from every start, O(p^2)
// a tick: a day of this took minutes (a server request held its worker).
void BM_ServingBoundLongTick(benchmark::State& state) {
  ServingConfig c = week_config();
  c.interval_s = 3600;
  c.ttft_slo_s = 0.025;
  SyntheticDemand d = week_demand(24);
  d.rate_rps = 2;
  d.input = {100, 50, 1, 400};
  double bound_usd = 0;
  for (auto _ : state) {
    auto src = make_synthetic(d, 1, 1);
    auto prof = profile_demand(*src, c);
    bound_usd = serving_lower_bound(*prof, c, c.slo_attainment).cost_usd;
  }
  state.counters["bound_usd"] = bound_usd;
}
BENCHMARK(BM_ServingBoundLongTick)->Unit(benchmark::kMillisecond)->Iterations(1);

// Demand generation alone (the share of the above that is not the engine).
void BM_SimulateSyntheticDemand(benchmark::State& state) {
  int64_t n = 0;
  for (auto _ : state) {
    auto src = make_synthetic(week_demand(1), 1, 1);
    Request r;
    while (*src->next(r)) ++n;
  }
  state.counters["requests_per_s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimulateSyntheticDemand)->Unit(benchmark::kMillisecond);

// One 60-hour deadline run per policy, and the hindsight optimum.
void BM_SimulateDeadlineRun(benchmark::State& state) {
  DeadlineJob job;
  job.od_usd_per_hour = 3.06;
  job.spot_usd_per_hour = 0.5655;
  Rng rng(3);
  const SpotTrace t = generate_spot_trace(SpotModel{6, 2, 600}, 4000, rng);
  const auto& names = deadline_policy_names();
  const size_t which = static_cast<size_t>(state.range(0));
  auto pol = which < names.size() ? make_deadline_policy(names[which], job, 600) : nullptr;
  int64_t off = 0;
  for (auto _ : state) {
    off = (off + 97) % 3500;
    if (pol)
      benchmark::DoNotOptimize(run_deadline(job, t, off, *pol).cost_usd);
    else
      benchmark::DoNotOptimize(hindsight_optimal_cost(job, t, off));
  }
  state.SetLabel(which < names.size() ? names[which] : "optimal");
}
BENCHMARK(BM_SimulateDeadlineRun)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpuplan::simulate
