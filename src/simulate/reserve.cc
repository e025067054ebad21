// Reservations for growing work.
//
// The problem. A team runs a fleet of one VM size whose size moves over
// weeks: an hourly series d(h) of VM-hours used, from job arrivals (the
// Alibaba GPU v2023 pods, billed per second: forty 5-minute pods in an hour
// are 3.3 VM-hours, not the 40 of the hour's peak, which once made
// pay-as-you-go look 12x dearer and bought 40 reservations for a fleet busy
// 8 % of the time) or a synthetic growth model. A reservation costs r per
// hour of its term (r < p: Azure's 1- and 3-year reservations), used or not,
// cannot be returned, and each hour covers one VM-hour of any matching VMs,
// concurrent or not (Azure fills it from every VM that ran in the hour:
// learn.microsoft.com, "How the Azure reservation discount is applied to
// virtual machines"); the rest is billed pay-as-you-go at p. When should the
// team buy, and how many?
//
// The accounting is Azure Cost Management's *amortized* view: a reservation's
// price is spread over the hours of its term and each hour of the simulated
// window is charged its share (an unused hour shows as UnusedReservation).
// The window must not be longer than the term, so no reservation expires
// inside it. What the reservations still owe after the window is reported
// beside the cost (`committed_after_usd`), never hidden.
//
// The window alone would hide what a reservation costs after it: a
// reservation bought for demand that ends inside the window is charged only
// its hours inside, and the optimum bought 40 one-year reservations for a
// job that ran 40 VMs for three weeks and 2 for the fourth — $69,233 in the
// window, $772,625 still owed, reported as cheaper than pay-as-you-go's
// $75,634 for the whole job. So the cost also charges what the reservations
// lose after the window, assuming the work goes on as it ended: the
// window's last week repeats (reservation.after_window: repeat-last-week;
// `work-ends` says nothing uses them after it). The j-th
// reservation is then used u_j of an hour on average over those hours
// (clamp(d(h) − j + 1, 0, 1) each); each hour of its term after the window
// costs r where
// pay-as-you-go would have cost p·u_j for the same use, a loss of
// max(0, r − p·u_j) (`loss_after_usd`, part of the cost). A reservation that
// keeps paying after the window (u_j above the break-even r/p) is charged
// nothing and credited nothing: the window's view never counted savings
// outside it, and crediting them would rank policies by work the window
// does not hold. `not-charged` is the plain window view.
//
// The engine steps hour by hour (a reservation is billed hourly, and hourly
// is the granularity of Azure's usage data, which is all a policy could see).
// At the end of hour h the policy sees d(h) and the reservations held, k, and
// may buy; a purchase covers hours h+1 onwards. Hour h costs
// p·max(0, d(h) − k(h)) + r·k(h); the k-th reservation held, bought to cover
// from hour s, adds max(0, r − p·u_k)·max(0, T − (H − s)) (T the term in
// hours). The end of the window is no decision: a purchase then covers none
// of its hours.
//
// The hindsight optimum is exact. Split the cost by level j = 1..max d: the
// j-th reservation, bought so that it covers hours from s_j on (s_j = H for
// never), makes level j cost c_j(s_j) = p·Σ_{h < s_j} clamp(d(h) − j + 1, 0, 1) +
// r·(H − s_j) + ℓ_j·max(0, T − (H − s_j)), ℓ_j = max(0, r − p·u_j) the
// loss per hour after the window, and summing over j gives
// exactly the cost of the schedule (for every hour, Σ_{j > k} clamp(d − j +
// 1, 0, 1) = max(0, d − k) and Σ_j [k ≥ j] = k). A schedule is a nondecreasing k, that
// is s_1 ≤ s_2 ≤ ...; every such sequence is a schedule. Without the loss
// term the per-level minima could be sorted at no cost (a swap of s_j > s_i,
// j < i, changes the cost by p·(use of level i − use of level j)
// ≤ 0 in between); with it a swap also moves the longer after-window tail
// R_b to level i, which loses more per hour (u_i ≤ u_j), and that costs
// (R_b − R_a)·(ℓ_i − ℓ_j) ≥ 0,
// so the order is kept explicitly: F_j(s) = c_j(s) + min_{s' ≤ s} F_{j−1}(s'),
// the optimum min_s F_top(s). O(max d × H) time, O(H) memory; each state
// carries its path's split of the cost, so no backtracking.
//
// The policies:
//   payg-only         never reserve (the ceiling when the work grows).
//   reserve-upfront   at the first decision, reserve what runs now, never
//                     again ("reserve today's fleet", the common habit).
//   advisor           Azure Advisor's recommendation: every review period,
//                     over the last `lookback` hours of usage, the quantity
//                     that would have saved the most — the largest k whose
//                     k-th unit was in use in more than r/p of the hours —
//                     and buy up to it (learn.microsoft.com, "Reservation
//                     recommendations": look-back 7, 30 or 60 days; 30 here).
//   forecast-reserve  ours: looks ahead instead of back. Every review it fits
//                     the growth of the daily means over the look-back with a
//                     Theil–Sen slope on their logarithm (the median of the
//                     pairwise slopes, so a single jump or outage does not
//                     steer it; Sen 1968), clamped to halving or doubling per
//                     week. It moves every observed hour forward by that
//                     growth and buys up to the least of three break-even
//                     quantities: a unit must pay before the next review
//                     (the hours moved to its middle; else waiting is
//                     cheaper, since it can buy then), and over its whole
//                     term both if the trend goes on (the projection's hours
//                     moved to its middle, the rest of the term at the level
//                     the trend reaches at its end) and if it stops now (the
//                     term at the last week's use). A reservation commits a
//                     year or three; the trend is a month's evidence. Asking
//                     only whether a unit pays over the 30-day projection
//                     bought, on the Alibaba GPU trace whose growth stalls in
//                     its last weeks, 18 reservations on the jump before the
//                     stall, which then idled for the rest of their year:
//                     1.46x the optimum, behind Advisor's 1.18x; 1.08x with
//                     the term (3-year term: 3.98x before, 1.19x now, Advisor
//                     1.40x). The price is a unit bought a review later on
//                     growth that goes on: 1.010-1.027x the optimum at 5-20 %
//                     a week (1.008-1.010x before), against Advisor's
//                     1.018-1.105x. Advisor asks the break-even question of
//                     the past; on growing work the past under-states what a
//                     unit will do, on shrinking work it over-states it. With
//                     no trend the two agree.
#include "simulate/reserve.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "core/strings.h"
#include "simulate/internal/scenario_parse.h"
#include "simulate/rng.h"

namespace gpuplan::simulate {

VmDemand synthetic_vms(const SyntheticVms& spec, uint64_t seed) {
  VmDemand out;
  const int64_t hours = static_cast<int64_t>(std::llround(spec.weeks * 168));
  out.vms.reserve(static_cast<size_t>(std::max<int64_t>(hours, 0)));
  Rng rng(seed);
  // Lognormal with mean 1: mu = −σ²/2, σ² = ln(1 + cv²).
  const double s2 = std::log1p(spec.noise * spec.noise);
  const double sigma = std::sqrt(s2);
  constexpr double kTwoPi = 6.283185307179586;
  for (int64_t h = 0; h < hours; ++h) {
    const double hour_of_day = static_cast<double>(h % 24);
    double v = spec.base_vms * std::pow(1 + spec.growth_per_week, static_cast<double>(h) / 168.0) *
               (1 + spec.diurnal_amplitude *
                        std::cos(kTwoPi * (hour_of_day - spec.diurnal_peak_hour) / 24.0));
    if (spec.noise > 0) v *= std::exp(-s2 / 2 + sigma * rng.normal());
    out.vms.push_back(static_cast<int32_t>(std::max(0.0, std::round(v))));
  }
  out.describe = "synthetic: " + strings::fixed(spec.base_vms, 1) + " VMs, growth " +
                 strings::fixed(spec.growth_per_week * 100, 1) + " %/week, " +
                 strings::fixed(spec.weeks, 1) + " weeks";
  return out;
}

Result<VmDemand> vms_from_jobs(const PodJobs& jobs, double gpus_per_vm, double time_scale,
                               double scale_down_s) {
  if (!(gpus_per_vm > 0))
    return invalid_argument("GPUs per VM must be positive", Where{"", 0, 0, "gpus_per_vm"});
  if (jobs.jobs.empty())
    return invalid_argument("the job trace has no job that uses a GPU", Where{"", 0, 0, "jobs"});
  struct Change {
    double t;
    double gpus;
  };
  // Hour 0 is the hour the first pod arrives in, counted in whole hours
  // from the trace's start: the same hours as before for a trace that
  // starts at 0, as the data set's does, and no decades of empty hours
  // for one in Unix time (1.7e9 s was refused as "19676 days", for one
  // 1-hour pod).
  double first = std::numeric_limits<double>::infinity();
  for (const PodJob& j : jobs.jobs) first = std::min(first, j.arrival_s / time_scale);
  const double origin = std::max(0.0, std::floor(first / 3600) * 3600);
  std::vector<Change> changes;
  changes.reserve(jobs.jobs.size() * 2);
  const PodJob* last = &jobs.jobs.front();  // the pod that ends last
  double last_end = -std::numeric_limits<double>::infinity();
  for (const PodJob& j : jobs.jobs) {
    const double a = j.arrival_s / time_scale - origin;
    const double e = a + j.duration_s / time_scale;
    changes.push_back({a, j.gpus});
    changes.push_back({e, -j.gpus});
    if (!(e <= last_end)) {
      last_end = e;
      last = &j;
    }
  }
  // Hours are allocated one by one: a pod deleted at 1e18 s once asked for
  // 3e14 of them (std::bad_alloc). No reservation term is longer than 3
  // years; ten are refused before any memory is taken, at the pod that
  // ends last.
  constexpr double kMaxHours = 10 * 8760.0;
  if (!(last_end / 3600.0 <= kMaxHours))
    return invalid_argument(
        "the pod ends " + strings::fixed(std::min(last_end + origin - first, 1e30) / 86400.0, 0) +
            " days after the first arrival, more than ten years; the longest reservation "
            "term is 3 years",
        Where{"", last->line, 0, "deletion_time"});
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& x, const Change& y) { return x.t < y.t; });
  // The VMs running: a step function, ceil(concurrent GPUs / per VM) from
  // each instant on (all changes at one instant applied together, so a job
  // that ends as another starts needs no second VM). 1e-9: sums of
  // milli-GPUs must not round 2.0000000001 GPUs up a VM.
  struct Step {
    double t;
    double vms;
  };
  std::vector<Step> need{{0, 0}};
  double running = 0;
  for (size_t i = 0; i < changes.size();) {
    const double t = changes[i].t;
    while (i < changes.size() && changes[i].t == t) running += changes[i++].gpus;
    const double v = std::ceil(std::max(0.0, running) / gpus_per_vm - 1e-9);
    // The synthetic demand's cap (scenario_parse.h): a pod of 1e12 GPUs
    // wrapped the count to -2,147,483,648 and cost $0.
    if (!(v <= internal::kMaxVms))
      return invalid_argument("hour " + strings::fixed(std::floor(t / 3600), 0) + " needs " +
                                  strings::fixed(std::min(v, 1e30), 0) + " VMs; at most " +
                                  strings::fixed(internal::kMaxVms, 0),
                              Where{"", 0, 0, "jobs"});
    if (t <= need.back().t)
      need.back().vms = v;
    else if (v != need.back().vms)
      need.push_back({t, v});
  }
  // What is billed: a VM stops scale_down_s after it is last needed, so the
  // fleet at t is the most needed over [t - scale_down_s, t] — a sliding
  // maximum over the steps (step i counts from its start until its end plus
  // the delay; ends come in the same order as starts), kept in a deque of
  // steps with decreasing values.
  std::vector<Step> billed;
  {
    std::deque<size_t> top;
    size_t next_start = 0, next_end = 0;
    const auto end_of = [&](size_t i) {
      return i + 1 < need.size() ? need[i + 1].t + scale_down_s
                                 : std::numeric_limits<double>::infinity();
    };
    while (next_start < need.size() || next_end < need.size()) {
      const double t = std::min(
          next_start < need.size() ? need[next_start].t : std::numeric_limits<double>::infinity(),
          end_of(next_end));
      if (!std::isfinite(t)) break;
      while (next_end < need.size() && end_of(next_end) <= t) {
        if (!top.empty() && top.front() == next_end) top.pop_front();
        ++next_end;
      }
      while (next_start < need.size() && need[next_start].t <= t) {
        while (!top.empty() && need[top.back()].vms <= need[next_start].vms) top.pop_back();
        top.push_back(next_start++);
      }
      const double v = top.empty() ? 0 : need[top.front()].vms;
      if (billed.empty() || v != billed.back().vms) billed.push_back({t, v});
    }
  }
  // The last VM stops (the fleet is 0 after): the last end plus the
  // scale-down delay, which a scenario keeps to a day.
  const double end = billed.back().t;
  if (!(end / 3600.0 <= kMaxHours + 24))
    return invalid_argument("the fleet runs " + strings::fixed(std::min(end, 1e30) / 86400.0, 0) +
                                " days after the first arrival's hour, more than ten years",
                            Where{"", 0, 0, "demand.scale_down_minutes"});
  const int64_t hours = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(end / 3600.0)));
  VmDemand out;
  out.vms.assign(static_cast<size_t>(hours), 0);
  out.usage.assign(static_cast<size_t>(hours), 0);
  // Each piece of the billed fleet, split at the hours it spans.
  for (size_t i = 0; i < billed.size(); ++i) {
    const double x = billed[i].t, v = billed[i].vms;
    const double y = i + 1 < billed.size() ? billed[i + 1].t : end;
    if (v <= 0 || y <= x) continue;
    for (auto h = static_cast<int64_t>(x / 3600); h < hours; ++h) {
      const double h0 = static_cast<double>(h) * 3600;
      if (h0 >= y) break;
      const double dt = std::min(y, h0 + 3600) - std::max(x, h0);
      if (dt <= 0) continue;
      out.usage[static_cast<size_t>(h)] += v * dt / 3600;
      out.vms[static_cast<size_t>(h)] =
          std::max(out.vms[static_cast<size_t>(h)], static_cast<int32_t>(v));
    }
  }
  out.drops = jobs.drops;
  return out;
}

int32_t VmDemand::top() const {
  double most = 0;
  for (size_t h = 0; h < vms.size(); ++h) most = std::max(most, vm_hours(h));
  return static_cast<int32_t>(std::ceil(most - 1e-9));
}

AfterWindowLoss::AfterWindowLoss(const VmDemand& demand, const ReservePrices& prices)
    : payg_(prices.payg_usd_per_hour), reserved_(prices.reserved_usd_per_hour) {
  const size_t n = demand.vms.size();
  on_ = prices.after_window != AfterWindow::kNotCharged;
  if (prices.after_window != AfterWindow::kRepeat) return;
  const size_t hours =
      std::min(n, static_cast<size_t>(std::llround(std::max(1.0, prices.repeat_hours))));
  if (hours == 0) return;
  double most = 0;
  for (size_t h = n - hours; h < n; ++h) most = std::max(most, demand.vm_hours(h));
  // reach[j - 1]: the hours' use of the j-th reservation.
  std::vector<double> reach(static_cast<size_t>(std::ceil(most - 1e-9)), 0);
  for (size_t h = n - hours; h < n; ++h)
    for (size_t j = 1; j <= reach.size(); ++j)
      reach[j - 1] += demand.level_share(h, static_cast<int>(j));
  use_.resize(reach.size());
  for (size_t j = 0; j < reach.size(); ++j) use_[j] = reach[j] / static_cast<double>(hours);
}

ReserveRun run_reserve(const VmDemand& demand, const ReservePrices& prices, ScalingPolicy& policy,
                       std::string* log, double timeline_hours) {
  const AfterWindowLoss loss(demand, prices);
  PolicyContext ctx;
  ctx.od_usd_per_hour = prices.payg_usd_per_hour;
  ctx.reserved_usd_per_hour = prices.reserved_usd_per_hour;
  ctx.term_hours = prices.term_hours;
  policy.reset(ctx);
  ReserveRun run;
  const int64_t hours = static_cast<int64_t>(demand.vms.size());
  int reserved = 0;
  const int64_t every = timeline_hours > 0 ? std::max<int64_t>(1, std::llround(timeline_hours)) : 0;
  for (int64_t h = 0; h < hours; ++h) {
    const int d = demand.vms[static_cast<size_t>(h)];
    // Per-second billing: the VM-hours above the reservations' hours (whole
    // hours on synthetic demand).
    const double used = demand.vm_hours_above(static_cast<size_t>(h));
    const double payg = demand.vm_hours_above(static_cast<size_t>(h), reserved);
    run.payg_vm_hours += payg;
    run.reserved_vm_hours += reserved;
    run.unused_reserved_vm_hours += reserved - (used - payg);
    run.payg_usd += payg * prices.payg_usd_per_hour;
    run.reserved_usd += reserved * prices.reserved_usd_per_hour;
    PolicyInput in;
    in.now_s = static_cast<double>(h + 1) * 3600.0;
    in.demand_vms = d;
    in.demand_vm_hours = used;
    in.reserved = reserved;
    // The end of the window is no decision: what it bought would cover none
    // of the window's hours (the optimum has no such instant either), and
    // its reservations' whole term would be after it (72 one-year
    // reservations at the last hour of a generated 26-week growth).
    const int buy = h + 1 < hours ? std::max(0, policy.decide(in).buy) : 0;
    if (buy > 0) {
      reserved += buy;
      ++run.purchases;
      // Hours of the term after the window: owed; what they lose against
      // pay-as-you-go is in the cost.
      const double after = std::max(0.0, prices.term_hours - static_cast<double>(hours - h - 1));
      run.committed_after_usd += buy * after * prices.reserved_usd_per_hour;
      for (int k = reserved - buy + 1; k <= reserved; ++k)
        run.loss_after_usd += after * loss.per_hour(k);
      if (log) {
        *log += "t=" + strings::fixed(static_cast<double>(h + 1), 0) + "h " +
                std::string(policy.name()) + " buy " + std::to_string(buy) + " (in use " +
                std::to_string(d) + ", reserved " + std::to_string(reserved) + ")\n";
      }
    }
    if (every > 0 && ((h + 1) % every == 0 || h + 1 == hours))
      run.timeline.push_back({static_cast<double>(h + 1), used, reserved,
                              run.payg_usd + run.reserved_usd + run.loss_after_usd});
  }
  run.cost_usd = run.payg_usd + run.reserved_usd + run.loss_after_usd;
  run.reserved_final = reserved;
  return run;
}

ReserveRun reserve_optimal(const VmDemand& demand, const ReservePrices& prices) {
  ReserveRun out;
  const int64_t hours = static_cast<int64_t>(demand.vms.size());
  if (hours == 0) return out;
  const int32_t top = demand.top();
  const double p = prices.payg_usd_per_hour;
  const double r = prices.reserved_usd_per_hour;
  const AfterWindowLoss loss(demand, prices);
  // A path: levels 1..j bought at s_1 <= ... <= s_j, its cost and split.
  struct Path {
    double cost = 0, payg_usd = 0, payg_h = 0, reserved_usd = 0, reserved_h = 0;
    double committed = 0, loss = 0;
    int held = 0, purchases = 0;
    int64_t last = 0;  // s_j (0: no level yet)
  };
  // best[s]: the least path whose last level covers from s' <= s
  // (s = 1..hours; s = hours is "never"; the first decision is at the end of
  // hour 0). Level 0's is the empty path.
  std::vector<Path> best(static_cast<size_t>(hours) + 1);
  for (int32_t level = 1; level <= top; ++level) {
    double used = 0;  // hours at this level before s (parts of hours on job traces)
    Path run;         // the prefix minimum of this level's paths
    for (int64_t s = 1; s <= hours; ++s) {
      used += demand.level_share(static_cast<size_t>(s - 1), level);
      const Path& prev = best[static_cast<size_t>(s)];
      Path c = prev;
      c.payg_usd += p * used;
      c.payg_h += used;
      if (s < hours) {
        const double after = std::max(0.0, prices.term_hours - static_cast<double>(hours - s));
        c.reserved_usd += r * static_cast<double>(hours - s);
        c.reserved_h += static_cast<double>(hours - s);
        c.committed += after * r;
        c.loss += after * loss.per_hour(level);
        ++c.held;
        if (prev.last != s) ++c.purchases;
      }
      c.cost = c.payg_usd + c.reserved_usd + c.loss;
      c.last = s;
      if (s == 1 || c.cost < run.cost) run = c;
      best[static_cast<size_t>(s)] = run;
    }
  }
  const Path& opt = best[static_cast<size_t>(hours)];
  out.payg_usd = opt.payg_usd;
  out.payg_vm_hours = opt.payg_h;
  out.reserved_usd = opt.reserved_usd;
  out.reserved_vm_hours = opt.reserved_h;
  out.committed_after_usd = opt.committed;
  out.loss_after_usd = opt.loss;
  out.reserved_final = opt.held;
  out.purchases = opt.purchases;
  out.cost_usd = opt.payg_usd + opt.reserved_usd + opt.loss;
  return out;
}

namespace {

// A quantity of whole units, held within an int: a trend projected over a
// long horizon reaches any size (100 VMs doubling each week, projected
// 5,000 h: 10^11), and the conversion of a double past INT_MAX is undefined
// (on x86-64 it gave INT_MIN, read as 0: forecast-reserve never bought).
// No fleet is a billion VMs; the policy takes the least of its quantities.
int whole_units(double v) {
  constexpr double kMostUnits = 1e9;
  return static_cast<int>(std::floor(std::clamp(v, 0.0, kMostUnits) + 1e-9));
}

// The largest k whose k-th unit is in use (value ≥ k) in more than
// `break_even` of the hours, each (value, weight) pair `weight` hours: the
// quantity that maximises savings when the hours repeat. Values are VMs in
// use. Unit k is in use in the weight of the values ≥ k, nonincreasing in
// k; with the values sorted down, the first whose running weight passes
// break_even × the total is the least value that weight reaches, and the
// answer is its floor.
int weighted_break_even_quantity(std::vector<std::pair<double, double>> values, double break_even) {
  double total = 0;
  for (const auto& [v, w] : values) total += w;
  if (values.empty() || total <= 0) return 0;
  std::sort(values.begin(), values.end(), std::greater<>());
  const double need = break_even * total;
  double acc = 0;
  for (const auto& [v, w] : values) {
    acc += w;
    if (acc > need) return whole_units(v);
  }
  return 0;
}

// The same with every value one hour.
int break_even_quantity(const std::vector<double>& values, double break_even) {
  std::vector<std::pair<double, double>> hours;
  hours.reserve(values.size());
  for (double v : values) hours.emplace_back(v, 1.0);
  return weighted_break_even_quantity(std::move(hours), break_even);
}

class PaygOnly final : public ScalingPolicy {
 public:
  std::string_view name() const override { return "payg-only"; }
  void reset(const PolicyContext&) override {}
  PolicyDecision decide(const PolicyInput&) override { return {}; }
};

class ReserveUpfront final : public ScalingPolicy {
 public:
  std::string_view name() const override { return "reserve-upfront"; }
  void reset(const PolicyContext&) override { done_ = false; }
  PolicyDecision decide(const PolicyInput& in) override {
    PolicyDecision d;
    if (!done_) d.buy = std::max(0, in.demand_vms - in.reserved);
    done_ = true;
    return d;
  }

 private:
  bool done_ = false;
};

// Shared by advisor and forecast-reserve: the look-back window of hourly
// usage and the review clock.
class Reviewer : public ScalingPolicy {
 public:
  explicit Reviewer(const ReservePolicySettings& s) : settings_(s) {}
  void reset(const PolicyContext& c) override {
    history_.clear();
    hours_ = 0;
    break_even_ = c.od_usd_per_hour > 0 ? c.reserved_usd_per_hour / c.od_usd_per_hour : 1;
    term_hours_ = c.term_hours;
  }
  PolicyDecision decide(const PolicyInput& in) override {
    history_.push_back(in.demand_vm_hours);
    const size_t keep = static_cast<size_t>(std::max(1.0, settings_.lookback_hours));
    if (history_.size() > keep) history_.pop_front();
    ++hours_;
    const int64_t review = std::max<int64_t>(1, std::llround(settings_.review_hours));
    PolicyDecision d;
    if (hours_ % review != 0) return d;
    d.buy = std::max(0, target() - in.reserved);
    return d;
  }

 protected:
  // Reservations the policy wants held after this review.
  virtual int target() const = 0;
  ReservePolicySettings settings_;
  std::deque<double> history_;  // hourly VM-hours (Azure's usage), oldest first
  int64_t hours_ = 0;
  double break_even_ = 1;
  double term_hours_ = 0;  // a reservation's term
};

class Advisor final : public Reviewer {
 public:
  using Reviewer::Reviewer;
  std::string_view name() const override { return "advisor"; }

 private:
  int target() const override {
    return break_even_quantity(std::vector<double>(history_.begin(), history_.end()), break_even_);
  }
};

class ForecastReserve final : public Reviewer {
 public:
  using Reviewer::Reviewer;
  std::string_view name() const override { return "forecast-reserve"; }

 private:
  // Growth per hour: Theil–Sen slope of ln(daily mean), newest days last.
  double growth_per_hour() const {
    const size_t days = history_.size() / 24;
    if (days < 2) return 0;
    std::vector<double> logs;
    const size_t first = history_.size() - days * 24;
    for (size_t d = 0; d < days; ++d) {
      double sum = 0;
      for (size_t h = 0; h < 24; ++h) sum += history_[first + d * 24 + h];
      logs.push_back(std::log(std::max(sum / 24.0, 0.25)));
    }
    std::vector<double> slopes;
    for (size_t i = 0; i < days; ++i)
      for (size_t j = i + 1; j < days; ++j)
        slopes.push_back((logs[j] - logs[i]) / static_cast<double>(j - i));
    const size_t mid = slopes.size() / 2;
    std::nth_element(slopes.begin(), slopes.begin() + static_cast<std::ptrdiff_t>(mid),
                     slopes.end());
    double per_day = slopes[mid];
    if (slopes.size() % 2 == 0) {
      const double upper = per_day;
      per_day = (upper + *std::max_element(slopes.begin(),
                                           slopes.begin() + static_cast<std::ptrdiff_t>(mid))) /
                2;
    }
    // At most doubling or halving a week: a trend, not a jump, is projected.
    const double cap = std::log(2.0) / 7.0;
    return std::clamp(per_day, -cap, cap) / 24.0;
  }
  // The look-back's hourly usage, each hour grown by the trend from when it
  // was observed to `ahead` hours from now: the distribution of usage the
  // policy expects around then.
  std::vector<double> projected_sample(double g, double ahead) const {
    std::vector<double> out;
    out.reserve(history_.size());
    const double n = static_cast<double>(history_.size());
    for (size_t i = 0; i < history_.size(); ++i)
      out.push_back(history_[i] * std::exp(g * (n - static_cast<double>(i) + ahead)));
    return out;
  }
  int target() const override {
    const double g = growth_per_hour();
    // A unit is bought when it pays both until the next review (else waiting
    // a review is cheaper) and over its term (else it would idle).
    const int next =
        break_even_quantity(projected_sample(g, settings_.review_hours / 2), break_even_);
    // Over its term, whether the trend goes on or stops: (a) the trend holds
    // through the projection and the work stays at its level there for the
    // rest of the term; (b) the work stays at the last week's use.
    const double span = std::max(1.0, settings_.projection_hours);
    const double rest = std::max(0.0, term_hours_ - span);
    const std::vector<double> during = projected_sample(g, span / 2);
    const std::vector<double> after = projected_sample(g, span);
    std::vector<std::pair<double, double>> goes_on;
    goes_on.reserve(during.size() + after.size());
    for (double v : during) goes_on.emplace_back(v, span / static_cast<double>(during.size()));
    for (double v : after) goes_on.emplace_back(v, rest / static_cast<double>(after.size()));
    const size_t week = std::min<size_t>(history_.size(), 168);
    const std::vector<double> stops(history_.end() - static_cast<std::ptrdiff_t>(week),
                                    history_.end());
    return std::min({next, weighted_break_even_quantity(std::move(goes_on), break_even_),
                     break_even_quantity(stops, break_even_)});
  }
};

}  // namespace

std::unique_ptr<ScalingPolicy> make_reserve_policy(const std::string& name,
                                                   const ReservePolicySettings& settings) {
  if (name == "payg-only") return std::make_unique<PaygOnly>();
  if (name == "reserve-upfront") return std::make_unique<ReserveUpfront>();
  if (name == "advisor") return std::make_unique<Advisor>(settings);
  if (name == "forecast-reserve") return std::make_unique<ForecastReserve>(settings);
  return nullptr;
}

const std::vector<std::string>& reserve_policy_names() {
  static const std::vector<std::string> kNames = {"payg-only", "reserve-upfront", "advisor",
                                                  "forecast-reserve"};
  return kNames;
}

}  // namespace gpuplan::simulate
