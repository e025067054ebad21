// The bound's replays: what a tick's own requests cost k VMs at best.
//
// Problem. The bound's constraints (serving_bound.cc) are fluid: prefill
// seconds within windows plus the TTFT, decode slots at the TPOT's batch.
// They see neither what decides most misses on real traffic — a replica's
// prefill share over a request's decode, which the engine turns into TPOT,
// and the queueing of prompts of very unequal length — nor the whole-VM
// steps in between. On the week example they said one A100 serves 8 req/s
// (0.66 prefill-seconds a second) where one holds 2.3 % of the requests,
// two 97.0-98.8 % and three 99.9 %: the bound sat at 1.0 VM on average
// while every policy that met 99 % paid for three.
//
// Approach. Replay each bound tick's requests through the engine itself on
// k VMs, for k = the floor, floor + 1, ... until none misses, from the
// state most favourable to them: every replica ready throughout the tick,
// idle for the engine's whole share horizon before it (no prefill share,
// no queue, no running batch), no spot evictions, and only the tick's own
// requests. A fleet with at most k VMs ready at any instant of the tick
// serves the same requests from a state no better and with no more
// replicas, so it misses at least as many: that is the tick's floor at k,
// taken as the larger of it and the fluid constraints' count, and the
// bound's knapsack over levels (serving_bound.cc, "Misses") reads it.
// What is replayed: the requests that some fleet serves (the others are the
// bound's "hopeless", counted once) and that arrived early enough for their
// TTFT deadline to fall inside the tick — a later one may be served by VMs
// of the next tick. The engine is causal (a request's TTFT and TPOT are set
// when it is admitted, from what ran before it), so leaving the later
// arrivals out changes nothing for those replayed.
// Counts. The search starts at the count the last batch of ticks needed
// (traffic moves little in a few minutes; serving_profile.cc replays
// batches of ticks on the machine's threads), goes up or down one count at
// a time for 8, then in growing steps, to a count that misses none and one
// that misses, and bisects between them. Below that count: each of the 8
// counts under it; then, of the counts further down, those with count +
// tick even, at most 32; then halving the distance to the floor, which is
// always replayed. A count between two replayed ones reads the larger
// one's misses (fewer: the bound only drops), and each keeps the fewest
// misses of any count at or below it, so a level never adds misses.
// Why every count, and every other tick. The bound's knapsack (serving_bound.cc)
// charges a level of a tick the misses that dropping it adds: a count
// never replayed reads its neighbour's, so its level is free in that tick.
// Free in every tick, a level drops out of the bound altogether: on a day
// at 45 req/s (bench_simulate.cc, about 25 VMs a tick) the bound was 643
// USD replaying 8 counts under the need and halving below, 711 replaying
// every count. A level free in a tick between two it holds costs the same
// (its run spans the gap, serving_bound.cc's "Cost") unless a new start-up
// is cheaper than bridging one tick: replaying the deep counts every other
// tick gave 695 USD in 28 % less time than every tick (15.1 s against
// 20.9 s on 2 cores). Beyond 32 of them the halving is looser, and a tick
// of 500 VMs still costs tens of replays, not 500. A replay the engine
// stops (a backlog it cannot drain within its allowance, clients that
// wait for ever) leaves its count and those above it unknown, read as
// missing none.
// Warm. replay_warm replays the last tick's requests (all of them) and then
// this tick's on the same k VMs, from an idle past, for k from 2 under the
// count this tick needs idle up to the least that misses none; this tick's
// misses are the run's less those of the last tick's requests alone (the
// engine is causal: the last tick's requests are served the same with this
// tick's after them). A fleet with at most k VMs through both ticks comes
// into this one no lighter (it also carries what came before, and with
// queued admission a busier past only queues more), so it misses at least
// as many (serving_bound.cc, "Warm ticks").
// Trade-offs. "No better state, no more replicas" is the engine's
// monotonicity, which its router (shortest queue, least sequences) does not
// guarantee request by request; the exhaustive-schedule tests
// (simulate_test.cc) compare the bound with every schedule of small traces
// replayed by the same engine. Replays cost tens of engine runs of each
// tick's requests, in parallel: on the week example (4.9 M requests, 10,080
// minute-ticks) about as long as two policies' runs.
#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "simulate/serving.h"

namespace gpuplan::simulate {

namespace {

// k VMs, whatever happens.
class HoldPolicy final : public ScalingPolicy {
 public:
  explicit HoldPolicy(int vms) : vms_(vms) {}
  std::string_view name() const override { return "bound-replay"; }
  void reset(const PolicyContext&) override {}
  PolicyDecision decide(const PolicyInput&) override { return {vms_, Capacity::kOnDemand}; }

 private:
  int vms_;
};

// A tick's requests, shifted so that the tick starts one share horizon in.
class ShiftedSource final : public DemandSource {
 public:
  ShiftedSource(std::span<const Request> reqs, SimTime shift) : reqs_(reqs), shift_(shift) {}
  Result<bool> next(Request& out) override {
    if (i_ == reqs_.size()) return false;
    out = reqs_[i_++];
    out.arrival += shift_;
    return true;
  }
  std::string describe() const override { return "the bound's replay of one tick"; }

 private:
  std::span<const Request> reqs_;
  SimTime shift_;
  size_t i_ = 0;
};

constexpr int kLinearCounts = 8;
constexpr double kGallop = 1.5;
constexpr int kStridedCounts = 32;
constexpr size_t kStride = 2;

}  // namespace

int bound_cap(const ServingConfig& c) { return std::max({c.min_replicas, c.max_replicas, 1}); }

int bound_floor(const ServingConfig& c) {
  int floor = std::min(c.min_replicas, bound_cap(c));
  // A spot VM can be evicted, and until the policy's next decision replaces
  // it the fleet is below min_replicas; only the mix's pay-as-you-go base
  // (regular_of(n) = n up to it) is never evicted.
  if (c.spot.share > 0 && c.spot.evictions_per_hour > 0)
    floor = std::min(floor, c.spot.base_regular);
  return std::max(0, floor);
}

namespace {

// Misses of `reqs` (times from their first tick's start) on k VMs ready
// throughout, from an idle past. A replay the engine stops (a backlog k VMs
// cannot drain within its allowance) sets *stopped and reads 0; the
// server's deadline ends the whole profile.
Result<double> fixed_fleet_misses(std::span<const Request> reqs, const ServingConfig& config, int k,
                                  bool* stopped) {
  if (reqs.empty()) return 0.0;
  if (k <= 0) return static_cast<double>(reqs.size());  // no VM: every TTFT passes
  ServingConfig c = config;
  c.min_replicas = c.initial_replicas = c.max_replicas = k;
  c.spot = SpotMix{};
  // No policy ticks or timeline points: the fleet never changes.
  c.interval_s = c.timeline_s = 1e9;
  c.max_simulated_s = 0;
  c.max_timeline_points = 0;
  HoldPolicy hold(k);
  ShiftedSource src(reqs, seconds(kPrefillShareHorizonS));
  auto run = run_serving(c, src, hold, PolicyContext{});
  if (!run) {
    if (run.error().code == ErrorCode::kDeadlineExceeded) return tl::unexpected(run.error());
    *stopped = true;
    return 0.0;
  }
  return static_cast<double>(run->requests - run->slo_met);
}

// Adds tick u's replayed (count, misses) to `out`: sorted, each count
// reading the fewest misses of any count at or below it (the largest
// nonincreasing function under the replays'), up to the last that misses.
void keep(size_t u, std::vector<std::pair<int, double>>& points, TickReplays& out) {
  std::sort(points.begin(), points.end());
  for (size_t i = 1; i < points.size(); ++i)
    points[i].second = std::min(points[i].second, points[i - 1].second);
  if (points.empty() || points.front().second <= 0) return;
  for (const auto& [count, m] : points) {
    if (m <= 0) break;  // past the last count that misses, reads 0
    out.k.push_back(count);
    out.misses.push_back(static_cast<float>(m));
  }
  out.tick.push_back(u);
  out.begin.push_back(static_cast<uint32_t>(out.k.size()));
}

}  // namespace

namespace {

// From `missing` (a count that misses), up one count at a time for
// kLinearCounts, then in steps of kGallop, until one misses none (`none`)
// or the cap. `replay(k)` replays count k; `stopped` ends the search.
template <class Replay>
Status climb(const Replay& replay, int cap, const bool& stopped, int& missing, int& none) {
  if (missing < 0 || none >= 0)
    return {};  // nothing missed yet, or the least that misses none known
  for (int step = 1, k = missing; !stopped && missing == k && k < cap; ++step) {
    k = step <= kLinearCounts
            ? k + 1
            : std::min(cap, std::max(k + 1, static_cast<int>(std::ceil(k * kGallop))));
    GPUPLAN_TRY(double m, replay(k));
    if (stopped) break;
    (m > 0 ? missing : none) = k;
  }
  return {};
}

// The count where misses end, bisected between `missing` and `none`.
template <class Replay>
Status bisect(const Replay& replay, const bool& stopped, int& missing, int& none) {
  while (!stopped && none >= 0 && missing >= 0 && none - missing > 1) {
    const int mid = missing + (none - missing) / 2;
    GPUPLAN_TRY(double m, replay(mid));
    if (stopped) break;
    (m > 0 ? missing : none) = mid;
  }
  return {};
}

}  // namespace

Status replay_tick(size_t u, std::span<const Request> reqs, const ServingConfig& config, int from_k,
                   int cap, int hint, TickReplays& out) {
  if (reqs.empty()) return {};
  from_k = std::max(0, from_k);
  cap = std::max(cap, from_k);
  std::vector<std::pair<int, double>> points;
  bool stopped = false;  // a replay that did not finish: no counts above it
  const auto misses_at = [&](int k) { return fixed_fleet_misses(reqs, config, k, &stopped); };
  const auto replay = [&](int k) -> Result<double> {
    GPUPLAN_TRY(double m, misses_at(k));
    if (!stopped) points.emplace_back(k, m);
    return m;
  };
  // Start where the last batch needed none (the hint): traffic moves little
  // from one tick to the next, so the count that misses none is near it.
  int start = std::clamp(hint, from_k, cap);
  GPUPLAN_TRY(double at_start, replay(start));
  int missing = -1, none = -1;  // the largest count seen missing, the least seen not
  (at_start > 0 ? missing : none) = start;
  // Up from a count that misses: one by one for a few, then in growing
  // steps, until one misses none (or the cap).
  GPUPLAN_RETURN_IF_ERROR(climb(replay, cap, stopped, missing, none));
  // Down from a count that misses none, until one misses.
  for (int step = 1, k = start; !stopped && none == k && k > from_k; ++step) {
    k = step <= kLinearCounts ? k - 1 : std::max(from_k, k - (k - from_k + 1) / 2);
    GPUPLAN_TRY(double m, replay(k));
    (m > 0 ? missing : none) = k;
  }
  // The count where misses end, bisected between the two.
  GPUPLAN_RETURN_IF_ERROR(bisect(replay, stopped, missing, none));
  // Below: every one of the kLinearCounts counts under the least that
  // misses none (the way up may have skipped some), then halving the
  // distance to the floor, which is always replayed.
  const auto seen = [&](int k) {
    return std::any_of(points.begin(), points.end(), [k](const auto& p) { return p.first == k; });
  };
  const int top = none > 0 ? none : missing >= 0 ? missing + 1 : start;
  for (int k = top - 1; !stopped && k >= std::max(from_k, top - kLinearCounts); --k) {
    if (seen(k)) continue;
    GPUPLAN_TRY(double m, replay(k));
    (void)m;
  }
  // Further below: every other count, alternating with the tick, at most
  // kStridedCounts of them ("Why every count" above); then halving the
  // distance to the floor, which is always replayed.
  for (int k = top - kLinearCounts - 1, n = 0; !stopped && k > from_k && n < kStridedCounts; --k) {
    if ((static_cast<size_t>(k) + u) % kStride != 0 || seen(k)) continue;
    GPUPLAN_TRY(double m, replay(k));
    (void)m;
    ++n;
  }
  for (;;) {
    if (stopped || points.empty()) break;
    const int lowest = std::min_element(points.begin(), points.end())->first;
    if (lowest <= from_k) break;
    GPUPLAN_TRY(double m, replay(std::max(from_k, lowest - (lowest - from_k + 1) / 2)));
    (void)m;
  }
  keep(u, points, out);
  return {};
}

Status replay_warm(size_t u, std::span<const Request> before, std::span<const Request> reqs,
                   double tick_s, const ServingConfig& config, int from_k, int cap,
                   TickReplays& out) {
  if (reqs.empty() || before.empty()) return {};
  // The last tick's requests, then this one's a tick later; this tick's
  // misses are the difference (the engine is causal: the last tick's
  // requests are served the same with or without this one's after them).
  std::vector<Request> both(before.begin(), before.end());
  for (Request r : reqs) {
    r.arrival += seconds(tick_s);
    both.push_back(r);
  }
  std::vector<std::pair<int, double>> points;
  bool stopped = false;  // unknown there and above: read as missing none
  const auto replay = [&](int k) -> Result<double> {
    GPUPLAN_TRY(double all, fixed_fleet_misses(both, config, k, &stopped));
    GPUPLAN_TRY(double earlier, fixed_fleet_misses(before, config, k, &stopped));
    const double m = std::max(0.0, all - earlier);
    if (!stopped) points.emplace_back(k, m);
    return m;
  };
  // Up from from_k as replay_tick goes up (a backlog the last tick left can
  // need many more VMs than an idle start), then bisected; a count between
  // two replayed ones reads the larger one's.
  from_k = std::max(0, from_k);
  cap = std::max(cap, from_k);
  GPUPLAN_TRY(double at_from, replay(from_k));
  int missing = -1, none = -1;
  if (!stopped) (at_from > 0 ? missing : none) = from_k;
  GPUPLAN_RETURN_IF_ERROR(climb(replay, cap, stopped, missing, none));
  GPUPLAN_RETURN_IF_ERROR(bisect(replay, stopped, missing, none));
  keep(u, points, out);
  return {};
}

namespace {
// Index of tick u among those kept, or -1.
std::ptrdiff_t kept(const std::vector<size_t>& ticks, size_t u) {
  const auto it = std::lower_bound(ticks.begin(), ticks.end(), u);
  return it != ticks.end() && *it == u ? it - ticks.begin() : -1;
}
}  // namespace

double TickReplays::at(size_t u, int vms) const {
  const std::ptrdiff_t i = kept(tick, u);
  if (i < 0) return 0;
  const auto first = k.begin() + begin[static_cast<size_t>(i)];
  const auto last = k.begin() + begin[static_cast<size_t>(i) + 1];
  const auto it = std::lower_bound(first, last, vms);
  return it == last ? 0 : misses[static_cast<size_t>(it - k.begin())];
}

int TickReplays::enough(size_t u) const {
  const std::ptrdiff_t i = kept(tick, u);
  return i < 0 ? 0 : k[begin[static_cast<size_t>(i) + 1] - 1] + 1;
}

}  // namespace gpuplan::simulate
