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
// Counts. A tick's misses are counted at each k, in order, until one
// misses none; past 8 counts they are counted at 1.5x steps and the last
// gap is bisected, and a count between two replayed ones reads the larger
// one's misses (fewer: the bound only drops). Each count keeps the fewest
// misses of any count at or below it, so a level never adds misses.
// Trade-offs. "No better state, no more replicas" is the engine's
// monotonicity, which its router (shortest queue, least sequences) does not
// guarantee request by request; the exhaustive-schedule tests
// (simulate_test.cc) compare the bound with every schedule of small traces
// replayed by the same engine. Replays cost a few engine runs of each
// tick's requests: on the week example (4.9 M requests, 40,320 ticks)
// about as long as one policy's run.
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

}  // namespace

int bound_floor(const ServingConfig& c) {
  const int cap = std::max({c.min_replicas, c.max_replicas, 1});
  int floor = std::min(c.min_replicas, cap);
  // A spot VM can be evicted, and until the policy's next decision replaces
  // it the fleet is below min_replicas; only the mix's pay-as-you-go base
  // (regular_of(n) = n up to it) is never evicted.
  if (c.spot.share > 0 && c.spot.evictions_per_hour > 0)
    floor = std::min(floor, c.spot.base_regular);
  return std::max(0, floor);
}

Status replay_tick(size_t u, std::span<const Request> reqs, const ServingConfig& config, int from_k,
                   int cap, TickReplays& out) {
  if (reqs.empty()) return {};
  std::vector<std::pair<int, double>> points;
  const auto misses_at = [&](int k) -> Result<double> {
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
    GPUPLAN_TRY(ServingRun run, run_serving(c, src, hold, PolicyContext{}));
    return static_cast<double>(run.requests - run.slo_met);
  };
  int k = std::max(0, from_k);
  int last_missing = -1;  // the largest count seen missing
  int none_at = -1;       // the least count seen missing none
  while (k <= cap) {
    GPUPLAN_TRY(double m, misses_at(k));
    points.emplace_back(k, m);
    if (m <= 0) {
      none_at = k;
      break;
    }
    last_missing = k;
    if (k == cap) break;
    const int steps = static_cast<int>(points.size());
    k = steps < kLinearCounts
            ? k + 1
            : std::min(cap, std::max(k + 1, static_cast<int>(std::ceil(k * kGallop))));
  }
  // Bisect the last gap between a count that missed and one that did not.
  while (none_at > 0 && last_missing >= 0 && none_at - last_missing > 1) {
    const int mid = last_missing + (none_at - last_missing) / 2;
    GPUPLAN_TRY(double m, misses_at(mid));
    points.emplace_back(mid, m);
    (m <= 0 ? none_at : last_missing) = mid;
  }
  std::sort(points.begin(), points.end());
  // Nonincreasing in k: a count reads the fewest misses of any count at or
  // below it (the largest nonincreasing function under the replays').
  for (size_t i = 1; i < points.size(); ++i)
    points[i].second = std::min(points[i].second, points[i - 1].second);
  if (points.empty() || points.front().second <= 0) return {};
  for (const auto& [count, m] : points) {
    if (m <= 0) break;  // past the last count that misses, reads 0
    out.k.push_back(count);
    out.misses.push_back(static_cast<float>(m));
  }
  out.tick.push_back(u);
  out.begin.push_back(static_cast<uint32_t>(out.k.size()));
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
