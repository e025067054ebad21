// What the serving policies and the lower bound know before a run: a
// replica's capacity at the SLO (the largest batch whose decode step leaves
// room for prefills within the TPOT target, and the replica-seconds a
// request costs at it) and the demand profile (work, arrivals and the
// SLO-feasibility bins of each interval, read once from the demand source).
// static-peak sizes the fleet from the profile's peak; serving_bound.cc
// derives the `optimal` row from its bins.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "simulate/serving.h"

namespace gpuplan::simulate {

int ReplicaCapacity::batch_at_slo(double tpot_s) const {
  if (step_per_seq_s <= 0) return std::max(1, max_batch);
  // Half the TPOT budget goes to the decode step; the other half is headroom
  // for prefills, which stall decode steps (TPOT = step / (1 - prefill share)).
  double b = std::floor((tpot_s * kDecodeShareOfTpot - step_base_s) / step_per_seq_s);
  // A step too slow for the half budget even at batch 1 would make every
  // request look like a whole replica's work: plan on the whole budget then.
  if (b < 1) b = std::floor((tpot_s - step_base_s) / step_per_seq_s);
  return static_cast<int>(std::clamp(b, 1.0, static_cast<double>(std::max(1, max_batch))));
}

double ReplicaCapacity::work_s(double input_tokens, double output_tokens, double tpot_s) const {
  const double b = batch_at_slo(tpot_s);
  return work_s_at(input_tokens, output_tokens, b, step_s(b));
}

int DemandProfile::peak_replicas(double target_utilization, int replicas_per_vm) const {
  double peak = 0;
  for (double w : work_s) peak = std::max(peak, w / interval_s);
  const double per_vm = std::max(1, replicas_per_vm);
  return std::max(1, static_cast<int>(std::ceil(peak / target_utilization / per_vm - 1e-9)));
}

namespace {

// The replay grid's shortest tick (serving_bound.cc, "Ticks").
constexpr double kReplayMinuteS = 60;

// Ticks replayed together (serving_bound.cc's replays): at most this many,
// and at most kReplayBatchRequests requests held. Each batch's ticks search
// from the count the last batch's last tick needed (traffic moves little in
// a few minutes), so they are independent and run on the machine's threads;
// the batches, not the threads, decide every hint, so the bound does not
// depend on the thread count. A larger batch spends more replays on stale
// hints; 16 minute-ticks hold 43,200 requests at 45 req/s (about 2 MB).
constexpr size_t kReplayBatchTicks = 16;
constexpr size_t kReplayBatchRequests = size_t{1} << 20;
// Warm replays start this many counts under the count a tick needs from an
// idle start (serving_bound.cc, "Warm ticks").
constexpr int kWarmBelow = 2;

// One grid of bound ticks as the demand is read: its bins, and each tick's
// requests, replayed in batches once the next tick begins (bound_replay.cc).
struct GridBuilder {
  GridBuilder(const ServingConfig& c, double bin, double want_tick_s)
      : config(c), floor(bound_floor(c)), cap(bound_cap(c)) {
    grid.bins.grid(bin, static_cast<size_t>(std::max(1.0, std::ceil(want_tick_s / bin - 1e-9))));
    tick_s = bin * static_cast<double>(grid.bins.tick_bins());
    grid.replays.tick_s = tick_s;
    grid.warm.tick_s = tick_s;
    // A warm replay holds only where a busier past never leaves a lighter
    // fleet: requests wait in the queue (shed and a full queue turn away
    // more when busier, and a fleet that turned more away is lighter), and
    // none of the two ticks' requests can give up waiting
    // (serving_bound.cc, "Warm ticks").
    warm_ok = c.admission == Admission::kQueue && c.max_queue == 0 &&
              (c.queue_timeout_s <= 0 || c.queue_timeout_s >= 2 * tick_s);
  }
  // A request some fleet serves, whose prefill takes `pf` seconds and that
  // certainly runs until `certain_to` if it meets the SLO.
  Status add(const Request& r, double pf, double certain_to) {
    const double a = to_seconds(r.arrival), ttft = config.ttft_slo_s;
    grid.bins.add(a, pf, a + ttft - pf, certain_to);
    if (!replays) return {};
    if (const auto u = static_cast<size_t>(a / tick_s); pending.empty() || u != pending.back().u) {
      if (pending.size() == kReplayBatchTicks || held >= kReplayBatchRequests)
        GPUPLAN_RETURN_IF_ERROR(flush());
      pending.push_back({u, {}});
    }
    // Replayed when its TTFT deadline falls inside its tick; all of them
    // before the next tick's (replay_warm).
    Pending& t = pending.back();
    const double start = static_cast<double>(t.u) * tick_s;
    Request shifted = r;
    shifted.arrival -= seconds(start);
    t.all.push_back(shifted);
    ++held;
    if (a + ttft <= start + tick_s + 1e-9) {
      t.reqs.push_back(shifted);
      ++held;
    }
    return {};
  }
  // Replays the pending ticks, each into its own TickReplays on a pool of
  // threads, then appends them in tick order. The first error in tick order
  // is the batch's.
  Status flush() {
    const size_t n = pending.size();
    std::vector<TickReplays> out(n), warm(n);
    std::vector<Status> status(n);
    std::atomic<size_t> next{0};
    const auto replay = [&](size_t i) -> Status {
      const Pending& t = pending[i];
      GPUPLAN_RETURN_IF_ERROR(replay_tick(t.u, t.reqs, config, floor, cap, hint, out[i]));
      const Pending* last = i > 0 ? &pending[i - 1] : &before;
      if (!warm_ok || last->u + 1 != t.u) return {};
      // From a little under the count the tick needs from an idle start.
      const int from = std::max(floor, out[i].enough(t.u) - kWarmBelow);
      return replay_warm(t.u, last->all, t.reqs, tick_s, config, from, cap, warm[i]);
    };
    const auto worker = [&] {
      for (size_t i; (i = next++) < n;) status[i] = replay(i);
    };
    {
      const size_t hw = std::max(1u, std::thread::hardware_concurrency());
      std::vector<std::thread> pool;
      // As replay_policies (run_serving.cc): a thread that cannot start
      // leaves its share to the others.
      try {
        for (size_t k = 1; k < std::min(hw, n); ++k) pool.emplace_back(worker);
      } catch (const std::system_error&) {  // NOLINT(bugprone-empty-catch): fewer threads do
      }
      worker();
      for (std::thread& t : pool) t.join();
    }
    for (size_t i = 0; i < n; ++i) {
      GPUPLAN_RETURN_IF_ERROR(status[i]);
      append(out[i], grid.replays);
      append(warm[i], grid.warm);
      if (!pending[i].reqs.empty()) hint = std::max(floor, grid.replays.enough(pending[i].u));
    }
    if (n > 0) before = std::move(pending.back());
    pending.clear();
    held = 0;
    return {};
  }
  static void append(const TickReplays& r, TickReplays& all) {
    const auto base = static_cast<uint32_t>(all.k.size());
    all.k.insert(all.k.end(), r.k.begin(), r.k.end());
    all.misses.insert(all.misses.end(), r.misses.begin(), r.misses.end());
    all.tick.insert(all.tick.end(), r.tick.begin(), r.tick.end());
    for (size_t j = 1; j < r.begin.size(); ++j) all.begin.push_back(base + r.begin[j]);
  }
  struct Pending {
    size_t u = 0;
    std::vector<Request> reqs;  // replayed: TTFT deadline inside the tick
    std::vector<Request> all;   // every request of the tick some fleet serves
  };
  const ServingConfig& config;
  int floor, cap;
  int hint = 0;          // the count the last batch's last replayed tick needed
  bool replays = true;   // false: the bins alone
  bool warm_ok = false;  // warm replays too (replay_warm)
  double tick_s = 0;
  BoundGrid grid;
  std::vector<Pending> pending;                     // ticks not replayed yet, ascending
  Pending before{static_cast<size_t>(-2), {}, {}};  // the last batch's last tick
  size_t held = 0;                                  // requests their two lists hold
};

}  // namespace

Result<DemandProfile> profile_demand(DemandSource& source, const ServingConfig& config) {
  DemandProfile p;
  p.interval_s = config.timeline_s;
  const SimTime iv = seconds(config.timeline_s);
  Request r;
  double in_sum = 0, out_sum = 0, cached_sum = 0;
  const double b = config.replica.batch_at_slo(config.tpot_slo_s);
  const double step_b = config.replica.step_s(b);
  const ReplicaCapacity& rc = config.replica;
  const double ttft = config.ttft_slo_s, step1 = rc.step_s(1);
  const bool decode_ok = step1 <= config.tpot_slo_s;
  // Bins of at most 1 s, half the TTFT below 2 s; bound ticks a whole
  // number of bins: the policies' interval, at least four TTFTs (windows of
  // a burst fit inside), and a second grid of at least a minute
  // (serving_bound.cc, "Ticks").
  const double bin = std::min(1.0, ttft / 2);
  const double tick_s = std::max(config.interval_s, 4 * ttft);
  std::vector<GridBuilder> grids;
  for (double t : {tick_s, std::max(tick_s, kReplayMinuteS)}) {
    if (!grids.empty() && t <= grids.back().tick_s) break;
    grids.emplace_back(config, bin, t);
  }
  // Replays on the longest grid only: they cost a few engine runs of the
  // demand each (the week example's profile took 2x as long with both), and
  // the minute's grid bounded every example at least as high.
  for (size_t g = 0; g + 1 < grids.size(); ++g) grids[g].replays = false;
  DeadlinePoll poll(config.deadline);
  for (;;) {
    if (poll.expired()) return tl::unexpected(config.deadline.error("reading the demand"));
    GPUPLAN_TRY(bool more, source.next(r));
    if (!more) break;
    const size_t i = static_cast<size_t>(r.arrival / iv);
    if (i >= p.work_s.size()) {
      p.work_s.resize(i + 1, 0);
      p.arrivals.resize(i + 1, 0);
    }
    p.work_s[i] += config.replica.work_s_at(r.prefill_tokens(), r.output_tokens, b, step_b);
    p.arrivals[i] += 1;
    p.last_arrival_s = to_seconds(r.arrival);
    const double a = to_seconds(r.arrival), pf = rc.prefill_s(r.prefill_tokens());
    if ((!decode_ok && r.output_tokens > 1) || pf > ttft + 1e-6 || config.over_context(r)) {
      ++p.hopeless;
    } else {
      // An answer of one token meets its SLO on the TTFT alone, whatever the
      // batch it joins, so it holds no decode slot of the bound's (its
      // prefill still counts). Counted, it made the bound charge a second VM
      // where one served both requests at 100 % (cost_vs_optimal 0.14).
      const bool decodes = r.output_tokens > 1;
      const double certain_to =
          decodes ? a + pf + (static_cast<double>(r.output_tokens) - 1) * step1 : a + ttft - pf;
      for (GridBuilder& g : grids) GPUPLAN_RETURN_IF_ERROR(g.add(r, pf, certain_to));
    }
    in_sum += r.input_tokens;
    cached_sum += r.cached_tokens;
    out_sum += r.output_tokens;
    ++p.requests;
  }
  p.grids.clear();
  for (GridBuilder& g : grids) {
    GPUPLAN_RETURN_IF_ERROR(g.flush());
    p.grids.push_back(std::move(g.grid));
  }
  if (p.requests) {
    p.mean_input = in_sum / static_cast<double>(p.requests);
    p.mean_output = out_sum / static_cast<double>(p.requests);
    p.mean_cached = cached_sum / static_cast<double>(p.requests);
  }
  return p;
}

}  // namespace gpuplan::simulate
