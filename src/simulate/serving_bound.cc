// The serving lower bound (the report's `optimal` row).
//
// Problem. How little could any fleet of this VM size have cost while
// serving the demand within the SLO for at least a share `a` of the
// requests, under the simulator's own physics (the same replica, the same
// start-up delay, the same cap)? A bound that ignores what the SLO needs
// within a second (the old one: each minute's mean work at full
// utilization) sits far below what any policy can do on bursty traffic: on
// the Azure conversation trace it was the price of one replica whose own SLO
// attainment is 79 %. A bound above what a policy can do is no bound.
//
// What the engine guarantees (serving.cc) for a request that meets the SLO:
//  1. Prefill. Prefills are serial per replica and start no earlier than the
//     arrival, so a request's prefill runs inside [arrival, arrival + TTFT].
//     For arrivals in a window W, the prefill seconds P(W) fit in the
//     replica-seconds of W extended by TTFT: some instant in it has at least
//     ceil(P(W) / (replicas_per_vm × (|W| + TTFT))) VMs serving.
//  2. Decode slots. A request meets TPOT only if the batch it joins has a
//     step within the target: at most K = max{k <= max_batch : step(k) <=
//     TPOT} sequences. The last admitted of the SLO-meeting requests that
//     decode (two output tokens or more) running together saw all the
//     others, so at most K of them run on a replica at once. An answer of
//     one token has no TPOT and meets the SLO beside any batch, so it is
//     not counted. Each counted request is certainly running from (arrival
//     + TTFT − prefill) to (arrival + prefill + (output − 1) × step(1)); at
//     every instant, those intervals that cover it need ceil(count / (K ×
//     replicas_per_vm)) VMs.
//  3. Requests whose prefill alone exceeds TTFT, or whose step at batch 1
//     exceeds TPOT, miss on any fleet ("hopeless").
// Chunked prefill (serving.cc) only stretches a prefill's wall time beyond
// its work, and a token never comes faster than step(B): all three hold.
// Missing a request removes it from these counts: a constraint with value V,
// capacity C per VM and largest item D needs at least ceil((V − n C) / D)
// misses for n VMs to hold it (each miss removes at most D).
//
// Cost. Time is cut into bound ticks (the policies' interval, at least four
// TTFTs, so that windows fit inside). Tick u requires r_u VMs at some instant
// in it. Cost is VM-seconds, decomposed by level: the k-th VM is billed while
// at least k serve plus a start-up delay each time level k is crossed upward
// (each crossing is a distinct VM becoming ready after start-up, billed while
// it started). Runs: map every tick whose level-k instant is served to the
// maximal interval during which level k is up that contains the instant.
// The ticks one interval serves are consecutive among the ticks that need
// level k (it is up throughout the ticks between its first and last
// instant), and it lasts at least from the instant in its first tick u_a to
// the one in its last tick u_b: (u_b − u_a − 1) ticks when u_b > u_a, and it
// began with a start-up — unless it is a level of the initial fleet up from
// time 0, which then lasts at least u_b ticks. A level's cost is therefore at
// least the least cost of splitting its ticks into such runs (a linear
// dynamic programme with a running minimum). Summing per pair of consecutive
// instants instead, (u' − u − 1) ticks each, does not telescope: a level
// needed in every tick would cost one start-up and no time at all, which is
// how the bound of the week example once sat at one replica on average while
// every policy paid for three. Levels up to min_replicas never drop (the
// engine keeps ready >= min_replicas) and are billed to the last arrival.
//
// Misses. A miss is charged to one tick, its arrival's: the prefill windows
// of a tick hold only its arrivals, and a request counts in the decode slots
// only up to the end of its arrival's tick (BoundBins::add). Counting it for
// as long as it certainly runs made one miss relieve every tick it ran
// through while the sum below charged it in each: on long answers over a
// capped fleet the bound rose above schedules that exist (0.74x for
// azure-autoscale on 1,500-token answers of a 70B model at 10 % attainment;
// simulate_test.cc, LowerBoundChargesAMissToOneTick). The slots lose the
// requests still decoding from earlier ticks; on the examples, where the
// prefills size the fleet, the bound did not move.
// With M = (1 − a) × requests allowed misses, choosing which ticks
// to leave short is a knapsack across levels. The bound is its Lagrangian
// dual: for any λ >= 0, Σ_k min_{S_k}[cost_k(S_k) + λ × misses of the ticks
// level k skips] − λ M is below the constrained minimum (misses telescope
// over levels: dropping level k in tick u costs c_{u,k} − c_{u,k+1} misses).
// Each level's minimum is a linear dynamic programme over its ticks; the
// bound is the best λ of a geometric grid — every λ gives a valid bound.
//
// Replays. The constraints above are fluid; what decides most misses on
// real traffic is not — a replica's prefill share over each request's
// decode (TPOT), prompts of very unequal length queueing behind one
// another, whole VMs. So each tick's count of misses at k VMs is also the
// engine's own: the tick's requests replayed on k VMs ready throughout it
// from an idle past (bound_replay.cc has the argument), and a tick's miss
// count at k is the larger of the two. On the week example the bound went
// from 1.0 VM on average (642 USD, where one A100 holds 2.3 % of 8 req/s)
// to 1.9 (1,263 USD), 1.13x below the hindsight schedule that meets 99 %.
// Ticks. Two grids of ticks, each a valid bound, and the higher counts:
// the policies' interval (at least four TTFTs), with the fluid constraints
// alone, and at least a minute, replayed too (replaying both doubled a
// run's wall time; every example's bound came from the minute's). A
// replay starts each tick idle, which favours the requests of its first
// seconds (their decode's prefill share, the queue): the longer the tick,
// the less of it that favours, and the more a fleet that peaks for an
// instant of the tick is credited for all of it. On the week example the
// bound was (counting up from the floor) 1,167 USD at 15-s ticks, 1,240 at
// 30, 1,265 at 60, 1,236 at 120 and 989 at 240; the short grid keeps what
// the fluid constraints see of bursts within a minute.
// Warm ticks. A replay's idle start is the most a fleet of k VMs could
// have been spared; but a fleet that had at most k VMs in the last tick too
// came into this one with the last tick's requests still queued, decoding
// and in its prefill share. So each minute tick is also replayed after the
// last one's requests on the same k VMs (bound_replay.cc, "Warm"), and a
// tick whose count is at least the last tick's counts the larger of its
// warm and idle misses; one whose count fell counts the idle ones. That
// couples neighbouring ticks, which the level programme cannot express:
// a dynamic programme over the count instead (count_cost), whose state is
// the last tick's count, costs (n - floor) T a tick, the start-up less a
// tick for each level started and a tick back for each ended. It prices a
// run of one tick at S - T where the level programme says S (knowing a
// run's length takes two ticks of state), so each gives a bound and the
// larger counts, at every multiplier. Warm replays need a fleet that a busier
// past never leaves lighter: with shed admission or a queue cap a busier
// past turns more away, and a fleet that turned more away holds less (a
// generated scenario's bound rose to 10^12 times its policies' cost), so
// only queued admission without a cap and clients that wait two ticks
// have them. On the examples the bound rose: long-context 4.78 -> 5.02
// USD, week 1,261.15 -> 1,266.09, growth 1,731.10 -> 1,739.24; the week's
// zero-miss counts rose 7.3 % warm, but the misses allowed sit below them.
// Trade-offs. Instants are bin starts and windows are aligned to bins (at
// most 1 s, half the TTFT below 2 s); coarser bins only lower the bound.
// Decode certainty uses step(1), so decode-heavy traffic gets a looser
// fluid bound than prefill-heavy traffic. The replays rest on the engine's
// monotonicity (bound_replay.cc); tests compare the bound with every
// schedule of small traces (simulate_test.cc, exhaustive schedules) and
// every policy on generated scenarios (tests/property).
#include <algorithm>
#include <cmath>
#include <limits>

#include "simulate/serving.h"

namespace gpuplan::simulate {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Largest batch whose decode step meets the TPOT target (0: not even 1).
int slo_batch(const ServingConfig& c) {
  const ReplicaCapacity& r = c.replica;
  if (r.step_s(1) > c.tpot_slo_s) return 0;
  if (r.step_per_seq_s <= 0) return std::max(1, r.max_batch);
  const double k = std::floor((c.tpot_slo_s - r.step_base_s) / r.step_per_seq_s + 1e-9);
  return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(std::max(1, r.max_batch))));
}

// Bins hold sums in float (memory): ratios are rounded down by this much,
// so that rounding can only lower the bound, never raise it.
constexpr double kSlack = 1e-4;

// One constraint of a tick: value V, capacity per VM, largest removable item.
struct Constraint {
  double v, cap, item;
  [[nodiscard]] int levels() const {  // VMs needed without misses
    return static_cast<int>(std::ceil(v / cap - kSlack));
  }
  // Misses that bring the need down to `n` VMs.
  [[nodiscard]] double misses(int n) const {
    const double over = v - n * cap;
    return over > kSlack * cap ? std::max(0.0, std::ceil(over / item - kSlack)) : 0;
  }
};

}  // namespace

void BoundBins::grid(double first_bin_s, size_t tick_bins) {
  bin_s = first_bin_s;
  first_tick_bins_ = std::max<size_t>(1, tick_bins);
  tick_s_ = static_cast<double>(first_tick_bins_) * first_bin_s;
}

size_t BoundBins::tick_bins() const {
  // A tick of p first-grid bins; bins are now 2^c of those: the least common
  // multiple of the two, in current bins, is p / gcd(p, 2^c).
  size_t p = first_tick_bins_;
  for (int i = 0; i < coarsened_ && p % 2 == 0; ++i) p /= 2;
  return p;
}

void BoundBins::add(double arrival_s, double prefill_s, double certain_from_s,
                    double certain_to_s) {
  // A request's count stops at the end of the tick it arrived in (see the
  // essay's "Misses"): each miss relieves the one tick it is charged to.
  if (tick_s_ > 0)
    certain_to_s = std::min(certain_to_s, (std::floor(arrival_s / tick_s_) + 1) * tick_s_);
  const auto index = [&](double t) { return static_cast<size_t>(std::max(0.0, t / bin_s)); };
  // The first bin start at or after t: instants are bin starts.
  const auto first_at_or_after = [&](double t) {
    return static_cast<size_t>(std::max(0.0, std::ceil(t / bin_s - 1e-12)));
  };
  size_t hi = index(arrival_s);
  const bool covers = certain_to_s > certain_from_s;
  if (covers) hi = std::max(hi, first_at_or_after(certain_to_s));
  while (hi >= kMaxBins) {
    coarsen();
    hi = std::max(index(arrival_s), covers ? first_at_or_after(certain_to_s) : 0);
  }
  if (hi >= prefill_s_sum.size()) {
    prefill_s_sum.resize(hi + 1, 0);
    prefill_s_max.resize(hi + 1, 0);
    cover_diff.resize(hi + 1, 0);
  }
  const size_t b = index(arrival_s);
  prefill_s_sum[b] += static_cast<float>(prefill_s);
  prefill_s_max[b] = std::max(prefill_s_max[b], static_cast<float>(prefill_s));
  if (covers) {
    const size_t from = first_at_or_after(certain_from_s), to = first_at_or_after(certain_to_s);
    if (from < to) {
      cover_diff[from] += 1;
      cover_diff[to] -= 1;
    }
  }
}

void BoundBins::coarsen() {
  // Bins twice as long: sums add, maxima take the larger, and the count at
  // new bin i's start is the old count at bin 2i's start. One more bin keeps
  // the count after the last old bin (intervals that ended there).
  const size_t old = prefill_s_sum.size();
  const size_t n = (old + 1) / 2 + 1;
  std::vector<float> sum(n, 0), mx(n, 0);
  std::vector<int32_t> diff(n, 0);
  std::vector<int64_t> count(old, 0);
  int64_t run = 0;
  for (size_t i = 0; i < old; ++i) {
    run += cover_diff[i];
    count[i] = run;
    sum[i / 2] += prefill_s_sum[i];
    mx[i / 2] = std::max(mx[i / 2], prefill_s_max[i]);
  }
  int64_t prev = 0;
  for (size_t i = 0; i + 1 < n; ++i) {
    const int64_t c = count[std::min(2 * i, old - 1)];
    diff[i] = static_cast<int32_t>(c - prev);
    prev = c;
  }
  diff[n - 1] = static_cast<int32_t>(run - prev);
  prefill_s_sum = std::move(sum);
  prefill_s_max = std::move(mx);
  cover_diff = std::move(diff);
  bin_s *= 2;
  ++coarsened_;
}

ServingBoundModel::ServingBoundModel(const DemandProfile& p, const ServingConfig& c)
    : startup_s_(c.startup_s),
      // With a spot mix, at least a share (1 - share) of any fleet is
      // pay-as-you-go (the mix rounds that count up and adds its base), so
      // a VM-hour costs at least the blend; evictions only add VM-hours.
      usd_per_hour_(c.spot.share > 0
                        ? std::min(c.usd_per_hour, (1 - c.spot.share) * c.usd_per_hour +
                                                       c.spot.share * c.spot.usd_per_hour)
                        : c.usd_per_hour),
      requests_(p.requests) {
  const int cap = bound_cap(c);
  floor_ = bound_floor(c);
  initial_ = std::max(floor_, std::min(std::max(c.min_replicas, c.initial_replicas), cap));
  last_s_ = std::isfinite(p.last_arrival_s) ? p.last_arrival_s : p.interval_s * p.work_s.size();
  hopeless_ = static_cast<double>(p.hopeless);
  for (const BoundGrid& g : p.grids) {
    grids_.push_back(grid_of(g, c));
    Grid& back = grids_.back();
    if (!back.counts.empty()) back.count_forced = count_cost(back, 1, true);
  }
}

ServingBoundModel::Grid ServingBoundModel::grid_of(const BoundGrid& g,
                                                   const ServingConfig& c) const {
  Grid out;
  const double per_vm = std::max(1, c.replicas_per_vm);
  const int cap = bound_cap(c);
  const BoundBins& bins = g.bins;
  const TickReplays& replayed = g.replays;
  const double bin = bins.bin_s;
  const int k_slo = slo_batch(c);
  out.levels.assign(static_cast<size_t>(cap - floor_), {});
  out.peak = floor_;
  if (k_slo == 0 || bins.prefill_s_sum.empty()) return out;
  // Bound ticks: a whole number of bins (the grid profile_demand set;
  // longer once bins doubled).
  const size_t per_tick = bins.tick_bins();
  out.tick_s = static_cast<double>(per_tick) * bin;
  const size_t nbins = bins.prefill_s_sum.size();
  std::vector<double> cover(nbins, 0);
  int64_t run = 0;
  for (size_t i = 0; i < nbins; ++i) {
    run += bins.cover_diff[i];
    cover[i] = static_cast<double>(run);
  }
  const double slot_cap = static_cast<double>(k_slo) * per_vm;
  std::vector<Constraint> cs;
  std::vector<double> need;  // misses to get down to n VMs, n = floor..cap
  const size_t ticks = (nbins + per_tick - 1) / per_tick;
  // Each tick's windows read prefix sums and a sparse table of maxima: a
  // window is two reads, so a tick of p bins costs O(p log p). Scanning every
  // window end from every start cost O(p^2) a tick, which at a 1-h interval
  // and a 25-ms TTFT (bins of 12.5 ms, 288,000 to a tick) ran for minutes.
  // The replays' ticks are the first grid's; this tick holds a whole
  // number of them (BoundBins::tick_bins).
  const bool replays = replayed.tick_s > 0 && !replayed.tick.empty();
  const size_t fine_per_tick =
      replays ? static_cast<size_t>(std::max(1.0, std::round(out.tick_s / replayed.tick_s))) : 1;
  // Warm replays count when they are this grid's own ticks ("Warm ticks").
  const TickReplays& warm = g.warm;
  const bool counting = warm.tick_s > 0 && !warm.tick.empty() &&
                        std::abs(warm.tick_s - out.tick_s) < 1e-9 * out.tick_s;
  out.count_top = floor_;
  std::vector<double> prefix;
  std::vector<std::vector<float>> table;  // table[j][i]: max of bins i..i+2^j-1
  for (size_t u = 0; u < ticks; ++u) {
    cs.clear();
    const size_t b0 = u * per_tick, b1 = std::min(nbins, b0 + per_tick);
    const size_t width = b1 - b0;
    const double tick_end = static_cast<double>(u + 1) * out.tick_s;
    prefix.assign(width + 1, 0);
    for (size_t i = 0; i < width; ++i) prefix[i + 1] = prefix[i] + bins.prefill_s_sum[b0 + i];
    table.resize(1);
    table[0].assign(bins.prefill_s_max.begin() + static_cast<std::ptrdiff_t>(b0),
                    bins.prefill_s_max.begin() + static_cast<std::ptrdiff_t>(b1));
    for (size_t j = 1; (size_t{1} << j) <= width; ++j) {
      const size_t half = size_t{1} << (j - 1), n = width - (size_t{1} << j) + 1;
      table.resize(j + 1);
      table[j].resize(n);
      for (size_t i = 0; i < n; ++i)
        table[j][i] = std::max(table[j - 1][i], table[j - 1][i + half]);
    }
    // Bins [i, i + len) of this tick, len >= 1.
    const auto window_max = [&](size_t i, size_t len) {
      size_t j = 0;
      while ((size_t{2} << j) <= len) ++j;
      return static_cast<double>(std::max(table[j][i], table[j][i + len - (size_t{1} << j)]));
    };
    for (size_t b = b0; b < b1; ++b) {
      if (cover[b] > floor_ * slot_cap) cs.push_back({cover[b], slot_cap, 1});
      // A window of len bins from b fits when its arrivals' prefills end
      // inside the tick: b + len + TTFT no later than the tick's end.
      const double start = static_cast<double>(b) * bin;
      const auto fits = [&](size_t len) {
        return start + (static_cast<double>(len) * bin + c.ttft_slo_s) <= tick_end + 1e-9;
      };
      const double guess = std::floor((tick_end - start - c.ttft_slo_s) / bin);
      size_t longest =
          guess <= 0 ? 0 : std::min(b1 - b, static_cast<size_t>(std::min(guess, 1e15)));
      while (longest < b1 - b && fits(longest + 1)) ++longest;
      while (longest > 0 && !fits(longest)) --longest;
      // Windows of 1, 2, 4, ... bins and the longest that fits.
      const auto consider = [&](size_t len) {
        const double sum = prefix[b - b0 + len] - prefix[b - b0];
        const double mx = window_max(b - b0, len);
        const double ext = static_cast<double>(len) * bin + c.ttft_slo_s;
        if (mx > 0 && sum > floor_ * per_vm * ext) cs.push_back({sum, per_vm * ext, mx});
      };
      size_t len = 1;
      for (; len <= longest; len *= 2) consider(len);
      if (longest > 0 && len / 2 != longest) consider(longest);
    }
    int r = floor_;
    for (const Constraint& k : cs) r = std::max(r, k.levels());
    // The replays of the first grid's ticks inside this one (bound_replay.cc).
    const size_t fine0 = u * fine_per_tick, fine1 = fine0 + fine_per_tick;
    for (size_t f = fine0; f < fine1 && replays; ++f) r = std::max(r, replayed.enough(f));
    const int warm_r = counting ? warm.enough(u) : 0;
    if (r <= floor_ && warm_r <= floor_) continue;
    const int top = std::clamp(r, floor_, cap);
    out.peak = std::max(out.peak, top);
    // need[n - floor] = misses so that n VMs hold the tick: the most any
    // constraint or the replays count.
    need.assign(static_cast<size_t>(top - floor_) + 1, 0);
    for (const Constraint& k : cs)
      for (int n = floor_; n <= top; ++n)
        need[static_cast<size_t>(n - floor_)] =
            std::max(need[static_cast<size_t>(n - floor_)], k.misses(n));
    for (int n = floor_; replays && n <= top; ++n) {
      double misses = 0;
      for (size_t f = fine0; f < fine1; ++f) misses += replayed.at(f, n);
      need[static_cast<size_t>(n - floor_)] =
          std::max(need[static_cast<size_t>(n - floor_)], misses);
    }
    // Level k (floor < k <= top) dropped in this tick: need(k-1) - need(k).
    for (int k = floor_ + 1; k <= top; ++k) {
      const double delta =
          need[static_cast<size_t>(k - 1 - floor_)] - need[static_cast<size_t>(k - floor_)];
      out.levels[static_cast<size_t>(k - floor_ - 1)].push_back(
          {static_cast<int32_t>(u), std::max(0.0, delta)});
    }
    const double forced = need[static_cast<size_t>(top - floor_)];
    out.forced += forced;  // beyond the cap: missed on any fleet
    if (!counting) continue;
    const int wtop = std::min(std::max(top, warm_r), cap);
    out.count_top = std::max(out.count_top, wtop);
    out.counts.push_back({static_cast<int32_t>(u), wtop, static_cast<uint32_t>(out.cold.size())});
    for (int n = floor_; n <= wtop; ++n) {
      const double cold = n <= top ? need[static_cast<size_t>(n - floor_)] - forced : 0;
      out.cold.push_back(static_cast<float>(cold));
      out.warm.push_back(static_cast<float>(std::max(cold, warm.at(u, n) - forced)));
    }
  }
  return out;
}

double ServingBoundModel::count_cost(const Grid& g, double lambda, bool misses_only) const {
  // v[n - floor]: the least cost of the ticks so far with the last at n.
  // A tick at n costs (n - floor) T; each level started costs the start-up
  // less a tick, each level ended gives back a tick (a run of L ticks costs
  // S + (L - 2) T; one of a single tick S - T, below the level programme's
  // S: valid, looser). The initial fleet is up at time 0: no start-up and,
  // before the first tick, nothing to give back.
  const int m = g.count_top - floor_ + 1;
  // misses_only: the least misses any count path leaves (no VM costs).
  const double t_s = misses_only ? 0 : g.tick_s, s_up = misses_only ? 0 : startup_s_ - g.tick_s;
  std::vector<double> v(static_cast<size_t>(m), kInf), next(static_cast<size_t>(m));
  std::vector<double> suffix(static_cast<size_t>(m) + 1);
  v[static_cast<size_t>(std::min(initial_, g.count_top) - floor_)] = 0;
  bool first = true;
  size_t c = 0;
  const int32_t last = g.counts.empty() ? -1 : g.counts.back().tick;
  for (int32_t u = 0; u <= last; ++u) {
    const CountTick* tick = c < g.counts.size() && g.counts[c].tick == u ? &g.counts[c++] : nullptr;
    const auto misses = [&](const std::vector<float>& x, int n) {
      if (tick == nullptr || n > tick->top) return 0.0;
      return static_cast<double>(x[tick->at + static_cast<uint32_t>(n - floor_)]);
    };
    // Ended: min over n' > n of v[n'] - T n' (nothing back before the first).
    suffix[static_cast<size_t>(m)] = kInf;
    for (int i = m - 1; i >= 0; --i)
      suffix[static_cast<size_t>(i)] = std::min(suffix[static_cast<size_t>(i) + 1],
                                                v[static_cast<size_t>(i)] - (first ? 0 : t_s * i));
    double prefix = kInf;  // started: min over n' <= n of v[n'] - S' n'
    for (int i = 0; i < m; ++i) {
      const int n = floor_ + i;
      prefix = std::min(prefix, v[static_cast<size_t>(i)] - s_up * i);
      const double up = prefix + s_up * i;
      const double down = suffix[static_cast<size_t>(i) + 1] + (first ? 0 : t_s * i);
      next[static_cast<size_t>(i)] =
          (n - floor_) * t_s +
          std::min(up + lambda * misses(g.warm, n), down + lambda * misses(g.cold, n));
    }
    v.swap(next);
    first = false;
  }
  double best = kInf;
  for (int i = 0; i < m; ++i) best = std::min(best, v[static_cast<size_t>(i)] - t_s * i);
  return best;
}

double ServingBoundModel::level_cost(const Grid& g, const std::vector<LevelTick>& ticks,
                                     bool initial, double lambda) const {
  // Runs (the essay's "Cost"): f = least cost with the ticks before index m
  // decided; open = min over j < m of f[j] - u_j T, a run that began at j.
  // A run over indices j..m costs a start-up plus (u_m - u_j - 1) T, or
  // u_m T from time 0 for a level of the initial fleet; a skipped tick
  // costs lambda x its misses.
  double f = 0, open = kInf;
  for (const LevelTick& t : ticks) {
    const double u = static_cast<double>(t.tick);
    double run = f + startup_s_;  // a run of this tick alone
    if (open < kInf) run = std::min(run, startup_s_ + (u - 1) * g.tick_s + open);
    if (initial) run = std::min(run, u * g.tick_s);
    open = std::min(open, f - u * g.tick_s);
    f = std::min(f + lambda * t.delta, run);
  }
  return f;
}

ServingBound ServingBoundModel::at(double attainment) const {
  // Every grid gives a lower bound: the answer is the highest, at the
  // attainment no grid rules out.
  ServingBound out;
  const double n = static_cast<double>(requests_);
  double forced = 0;
  for (const Grid& g : grids_) {
    out.peak_replicas = std::max(out.peak_replicas, g.peak);
    forced = std::max(forced, g.forced + g.count_forced);
  }
  const double unavoidable = hopeless_ + forced;
  out.max_attainment = n > 0 ? std::max(0.0, 1 - unavoidable / n) : 1;
  out.attainment = std::min(std::clamp(attainment, 0.0, 1.0), out.max_attainment);
  const double allowed_all = std::floor((1 - out.attainment) * n + 1e-9) - hopeless_;
  double best = 0;
  for (const Grid& g : grids_)
    best = std::max(best, vm_seconds(g, std::max(0.0, allowed_all - g.forced)));
  out.vm_hours = best / 3600;
  out.cost_usd = out.vm_hours * usd_per_hour_;
  return out;
}

double ServingBoundModel::vm_seconds(const Grid& grid, double allowed) const {
  const double fixed = floor_ * last_s_;
  // The dual g(lambda) is concave: a geometric grid, then golden-section
  // search around its best point. Every lambda gives a valid bound.
  const auto g = [&](double lambda) {
    double v = -lambda * allowed;
    for (size_t k = 0; k < grid.levels.size(); ++k)
      v += level_cost(grid, grid.levels[k], floor_ + static_cast<int>(k) + 1 <= initial_, lambda);
    // Where warm replays were made, the count programme too: each is a
    // valid bound, and the larger holds. Its misses cannot go below
    // count_forced (at() keeps the attainment within it; this keeps float
    // rounding from sending the multiplier's term to infinity).
    if (!grid.counts.empty())
      v = std::max(v,
                   count_cost(grid, lambda, false) - lambda * std::max(allowed, grid.count_forced));
    return fixed + v;
  };
  double best = fixed, best_lambda = 0;
  for (double lambda = 1e-3; lambda < 1e13; lambda *= 1.5) {
    const double v = g(lambda);
    if (v > best) best = v, best_lambda = lambda;
  }
  if (best_lambda > 0 && allowed > 0) {
    constexpr double kPhi = 0.6180339887498949;
    double lo = best_lambda / 1.5, hi = best_lambda * 1.5;
    double x1 = hi - kPhi * (hi - lo), x2 = lo + kPhi * (hi - lo);
    double g1 = g(x1), g2 = g(x2);
    for (int i = 0; i < 40; ++i) {
      if (g1 < g2) {
        lo = x1, x1 = x2, g1 = g2, x2 = lo + kPhi * (hi - lo), g2 = g(x2);
      } else {
        hi = x2, x2 = x1, g2 = g1, x1 = hi - kPhi * (hi - lo), g1 = g(x1);
      }
    }
    best = std::max({best, g1, g2});
  }
  // The dual subtracts lambda x allowed from sums of the same size: where
  // they cancel (the misses allowed are exactly those the bound may drop)
  // rounding left ~1e-19 VM-seconds, so a bound of 0 read as positive and
  // cost_vs_optimal as 1e20. Less than the engine's clock (1 us) is 0.
  return best < 1e-6 ? 0 : best;
}

ServingBound serving_lower_bound(const DemandProfile& profile, const ServingConfig& config,
                                 double attainment) {
  return ServingBoundModel(profile, config).at(attainment);
}

}  // namespace gpuplan::simulate
