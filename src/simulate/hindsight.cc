// hindsight: a fleet schedule that knows the future (an upper bound on the
// optimum, not a policy anyone can deploy).
//
// Problem. The `optimal` row is a lower bound: no fleet can cost less. How
// much could a fleet that knew every arrival in advance cost? Between the
// two lies the true optimum; a policy's distance to this schedule says how
// much better any policy could possibly do, which the bound alone cannot
// when it sits far below everything that runs.
//
// Approach. The schedule reads the demand profile's per-bin prefill seconds
// (the requests some fleet can serve; serving_bound.cc's bins). For an
// interval of length T starting at t its need, in model replicas, is the
// larger of
//   - m x P(t, t + T) / (s x T): the interval's prefill seconds at a prefill
//     share s = 1 - step(B) / TPOT, above which the engine's next interval
//     misses TPOT (B: the running sequences per ready replica now), and
//   - the busiest bin's prefill within the bin plus the TTFT.
// At each decision it asks for the largest need of the intervals from now to
// one start-up delay and two intervals ahead: a VM launched now serves only
// after the start-up, and one kept now is the one that serves then (keeping
// it is the hindsight ski-rental). The margin m covers what the fleet-wide
// share does not see: the router's uneven split and batch changes within an
// interval. run_hindsight() searches m: 1, then 2, then doublings up to 32
// while the target is missed (on Azure's LLM code hour, crowds whose waiting
// prompts stall the decodes beside them, m = 2 met 95.6 % and m = 5 met the
// 99 %), then bisection between the largest that missed the attainment
// target and the smallest that met it (five halvings), and returns the
// cheapest run that met it (when none did, the run of the highest
// attainment from m = 2 on). Every run is a real engine run, so the result
// is a cost some fleet reaches: an upper bound on the optimum at that
// attainment.
//
// Trade-offs. Up to eleven engine runs (seven where m = 2 meets the
// target); the search assumes attainment grows with m, and where it does
// not, the cheapest run that met the target is still a valid upper bound,
// only perhaps not the lowest of the family.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "simulate/internal/window_max.h"
#include "simulate/serving.h"

namespace gpuplan::simulate {

namespace {

class HindsightPolicy final : public ScalingPolicy {
 public:
  HindsightPolicy(const BoundBins& bins, double margin) : bins_(bins), margin_(margin) {}
  std::string_view name() const override { return "hindsight"; }
  void reset(const PolicyContext& ctx) override {
    ctx_ = ctx;
    interval_s_ = 0;
    last_t_ = 0;
    next_block_ = 0;
    sums_.clear();
    peaks_.clear();
  }
  PolicyDecision decide(const PolicyInput& in) override {
    if (interval_s_ <= 0 && in.now_s > 0) interval_s_ = in.now_s - last_t_;
    last_t_ = in.now_s;
    const double iv = interval_s_ > 0 ? interval_s_ : in.now_s;
    const double per_vm = std::max(1, ctx_.replicas_per_vm);
    const double batch = std::max(1.0, static_cast<double>(in.sequences) /
                                           std::max(1.0, static_cast<double>(in.ready) * per_vm));
    const double step = ctx_.step_base_s + ctx_.step_per_seq_s * batch;
    const double share = std::clamp(1 - step / ctx_.tpot_slo_s, 0.05, 1.0);
    double need = 1;
    if (iv > 0) {
      // The intervals from now to one start-up and two intervals ahead, on
      // the decisions' grid (the engine decides at whole intervals). Their
      // largest prefill sum and busiest bin, as the window slides one
      // interval a decision: amortized O(1), where reading every bin ahead
      // was (start-up / bin) reads a decision (a day's start-up at a 1-s
      // interval held a server worker for minutes).
      const auto first = static_cast<int64_t>(std::floor(in.now_s / iv + 1e-9));
      const auto count = std::max<int64_t>(
          1, static_cast<int64_t>(std::ceil((ctx_.startup_s + 2 * iv) / iv - 1e-9)));
      const int64_t last = first + count - 1;
      // (A second decision at the same instant reads no new interval.)
      if (next_block_ < first) next_block_ = first;
      for (; next_block_ <= last; ++next_block_) {
        const auto [s, p] = block(next_block_, iv);
        const auto at = static_cast<double>(next_block_);
        sums_.push(at, s, static_cast<double>(count - 1));
        peaks_.push(at, p, static_cast<double>(count - 1));
      }
      need = std::max({need, margin_ * sums_.max() / (share * iv),
                       peaks_.max() / (bins_.bin_s + ctx_.ttft_slo_s)});
    }
    return {std::max(1, static_cast<int>(std::ceil(need / per_vm - 1e-9))), Capacity::kOnDemand};
  }

 private:
  // Prefill seconds arriving in interval j, [j iv, (j + 1) iv), and its
  // busiest bin's.
  std::pair<double, double> block(int64_t j, double iv) const {
    const auto& sum = bins_.prefill_s_sum;
    const auto bin_at = [&](double t) {
      return std::min(sum.size(),
                      static_cast<size_t>(std::max(0.0, std::min(t / bins_.bin_s, 1e15))));
    };
    const size_t lo = bin_at(static_cast<double>(j) * iv);
    const size_t hi = bin_at(static_cast<double>(j + 1) * iv);
    double total = 0, peak = 0;
    for (size_t b = lo; b < hi; ++b) {
      total += sum[b];
      peak = std::max(peak, static_cast<double>(sum[b]));
    }
    return {total, peak};
  }

  const BoundBins& bins_;
  double margin_;
  PolicyContext ctx_;
  double interval_s_ = 0, last_t_ = 0;
  int64_t next_block_ = 0;  // the first interval not yet read into the windows
  internal::WindowMax<double> sums_, peaks_;
};

}  // namespace

std::unique_ptr<ScalingPolicy> make_hindsight_policy(const BoundBins& bins, double margin) {
  return std::make_unique<HindsightPolicy>(bins, margin);
}

Status search_hindsight_margin(const std::function<Result<bool>(double)>& met) {
  GPUPLAN_TRY(bool met_low, met(1));
  if (met_low) return {};
  GPUPLAN_TRY(bool met_high, met(2));
  double lo = 1, hi = 2;
  // Doubling while the target is missed: where 2 misses it (crowds whose
  // waiting prompts stall every decode beside them) a larger margin may
  // reach it, and then the schedule brackets the optimum at the target
  // instead of below it. (Stopping at the first doubling that bought no
  // attainment stopped too soon: a margin buys nothing until it crosses a
  // whole replica.)
  for (int i = 0; !met_high && i < kHindsightDoublings; ++i) {
    lo = hi, hi *= 2;
    GPUPLAN_TRY(met_high, met(hi));
  }
  if (!met_high) return {};
  for (int i = 0; i < kHindsightHalvings; ++i) {
    const double mid = (lo + hi) / 2;
    GPUPLAN_TRY(bool met_mid, met(mid));
    (met_mid ? hi : lo) = mid;
  }
  return {};
}

Result<HindsightRun> run_hindsight(const ServingConfig& config, const DemandProfile& profile,
                                   const PolicyContext& context,
                                   const std::function<Result<ServingRun>(ScalingPolicy&)>& run) {
  HindsightRun best;
  bool met_any = false;
  const auto attempt = [&](double m) -> Result<bool> {
    auto pol = make_hindsight_policy(profile.grids.front().bins, m);
    pol->reset(context);
    GPUPLAN_TRY(ServingRun r, run(*pol));
    const bool met = r.slo_attainment() >= config.slo_attainment - 1e-12;
    // Until one meets the target, the run of the highest attainment from m
    // = 2 on (best.margin < 2: none kept yet).
    const bool higher = !met_any && !met && m >= 2 &&
                        (best.margin < 2 || r.slo_attainment() > best.run.slo_attainment());
    if ((met && (!met_any || r.cost_usd < best.run.cost_usd)) || higher) {
      best.run = std::move(r);
      best.margin = m;
    }
    met_any = met_any || met;
    ++best.runs;
    return met;
  };
  GPUPLAN_RETURN_IF_ERROR(search_hindsight_margin(attempt));
  return best;
}

}  // namespace gpuplan::simulate
