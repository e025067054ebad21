// slo-guard: a serving policy sized at the SLO's time scale (ours).
//
// Problem. Keep at least the target share (99 %) of requests within the TTFT
// and TPOT targets on bursty traffic, at the least cost, when a VM serves
// only a start-up delay L (minutes) after it is launched. The classic
// policies size from a minute's mean (utilization, a forecast of the work
// rate): on real traces what decides TTFT is what arrives within a second,
// so they either under-provision bursts (79 % attainment on the Azure
// conversation trace) or pay for the peak all the time.
//
// Approach. Every interval the engine reports what a real router and engine
// see: the prefill seconds that arrived in the busiest windows of seconds,
// running and queued sequences, and how many requests missed the SLO.
//  1. Need at the SLO's time scale, in model replicas, the largest of:
//     - prefill queue (TTFT): the busiest window's prefill seconds within
//       the window plus the TTFT (prefills are serial per replica: the
//       bound's window constraint), over windows of 1, 2, 4, ... 64 s: on
//       the Azure LLM code trace (AzurePublicDataset, 2023-11-16) a crowd
//       brings an H100 0.2-1.7 prefill seconds a second for 17 s, where no
//       single second asks for more than 0.83 replicas (1.66 s over 1 + 1
//       s) and its busiest 4-s window for 1.21; and the
//       replicas at which the prefill queue — first come, first served over
//       N replicas, which is what the shortest-queue router makes of them:
//       M/G/N, Erlang C with the Allen–Cunneen correction — keeps
//       P(wait > TTFT − mean prefill) within the miss budget;
//     - prefill stalls and the batch (TPOT): chunked prefill stalls decode
//       steps, so a replica whose prefill share of an interval is s decodes
//       at step(B) / (1 − s) = (step_base + step_per_seq B) / (1 − s), and
//       its batch B is what it admits times their decode time (Little's
//       law). TPOT holds while the TPOT load — prefill seconds plus
//       step_per_seq × output tokens, arriving per second — stays within
//       1 − step_base / TPOT per replica;
//     - decode slots (KV-cache pressure): running sequences over the
//       planning batch's slots (decode step within half the TPOT) at 90 %
//       occupancy, the least count of the last minute (the loads are that
//       minute's means): when VMs come up after a crowd, the backlog they
//       admit at once is work draining within seconds, not a need a VM
//       launched now (ready in L) can serve (counted at the instant, the
//       week example's first crowd went from 15 VMs to 29 when its first
//       VMs came up). Queued requests hold no KV cache: a queue that grows
//       because the replicas are full shows as running sequences at the
//       KV bound, over the planning batch, and a backlog left by a crowd
//       is work to drain, which step 6 sizes as work. (Counting
//       the queue as slots bought 20 VMs where 4 serve a generated 5x
//       crowd of short answers: its 16,000 queued requests became 60
//       replicas of slots, arriving a start-up later, after the backlog
//       had missed.)
//     The stall term treats arrivals as compound Poisson split evenly by the
//     router: a replica's TPOT load over an interval T is mean m T / N with
//     variance q T / N (m, q: TPOT load seconds and their squares arriving
//     per second); N is the least count that keeps it within budget at z
//     standard deviations, z the normal quantile of the attainment target
//     (2.33 at 99 %): a replica-interval over budget costs its requests.
//     The Poisson split does not see the rate itself moving between
//     intervals (traffic's minute-to-minute noise: a coefficient of
//     variation of 0.25 per minute on the Azure conversation trace), and
//     TPOT has a cliff: while a replica's prefill share is over the limit,
//     every request it admits misses. So the stall
//     need is also m × r / share, where r is the attainment quantile (99 %)
//     of the ratio (an interval's TPOT load) / (the last minute's mean
//     load before it), learned online in a histogram whose weights halve
//     every 24 h, weighted by requests; the larger of the two needs counts. (A learned headroom
//     for growth within L once scaled the load as well; on a stationary
//     trace it measured noise, not growth, and bought 9 VMs where 4 serve
//     the long-context example. Growth is the trend's, step 2.)
//  2. Scale out at once to the larger of the need and its trend L + one
//     interval ahead (a VM launched now serves only then): the slope between
//     the mean need of the last 10 minutes and of the 10 before, never
//     negative (forecast()). It extrapolates a flash crowd's step for 20
//     minutes too; a trend that must show in every 5 minutes of the last
//     half hour cost 13 USD less on the week but lost a generated day with
//     a crowd (30/2: 99.21 % to 98.87 %), where the overshoot was what
//     absorbed its second half. Not for a need within the HPA's tolerance
//     (10 %, the kube-controller-manager default, which the HPA applies
//     both ways) over the count: 3.03 replicas of need bought a fourth H100
//     for the long-context example's first minutes, where three served as
//     well.
//  3. Scale in only to the largest need of the last L seconds (at least a
//     minute) — the ski-rental rule (Karlin, Manasse, Rudolph, Sleator,
//     "Competitive snoopy caching", Algorithmica 1988) with the start-up
//     delay as the break-even point: a VM stopped and needed again within L
//     costs a start-up (L VM-seconds billed before it serves), which is what
//     keeping it idle for L costs; the rule is 2-competitive. (It held 2L
//     once, counting from the launch; the hold is the idle time, and the
//     conv hour paid 8.69 USD for it instead of 7.59.) The initial fleet was
//     launched for no need and owes no hold: it shrinks to the need at the
//     first decision (waiting a minute for it cost the conv hour 7.59 USD
//     against static-peak's 6.82). Scale-in also waits until the held need
//     is below the lower count by the HPA's tolerance (10 %, the
//     kube-controller-manager default): a VM released while the need sits
//     just under a whole count comes back at the next noisy minute and pays
//     a start-up (on the week example this halved the scale events, 1,659
//     to 1,174, and raised attainment).
//  4. Calibration f (starts at 1, scales m and q): what the even split does
//     not see (a replica's queue, rate changes within an interval) shows up
//     as misses. When an interval's misses exceed half the attainment budget
//     (1 − target) of its arrivals by more than chance (z Poisson standard
//     deviations of that half), f grows by 5 %; while the last hour's
//     misses stay under a quarter of its budget, f decays by 0.1 % an
//     interval (about −20 % an hour at 15 s), within [0.8, 2]. Requests no
//     fleet serves (prefill alone over the TTFT: the router knows the
//     prompt's length) are left out of both counts, and so are the misses
//     of an interval in which VMs were starting: capacity is already on its
//     way, and raising f then (5 % an interval, 17 intervals of a start-up)
//     buys VMs that arrive after the cause is gone and stay for hours while
//     f decays — the flash crowds of the week example held f at its cap
//     long after them. Those misses still count against the day's budget
//     (weights halving every 24 h): while the day's misses are over it, f
//     does not decay. Ignoring them entirely let f sit at its floor on days
//     whose budget flash crowds had spent, where 75-100 % of the misses
//     came while VMs started: the target was met on 23 of 37 generated days
//     nobody tuned on (bench/serving_generated.py, seeds 14-18), and on 28
//     with the day's budget counted.
//  5. Miss curve: the margins of step 1 are quantiles (the 99th percentile
//     of the load's moves, z sigmas of the split), sized as though a
//     replica-interval over its limit lost all its requests; they bought
//     1.7x the mean need on the week example, where a TPOT stall over the
//     limit costs some requests of a replica, not all. The policy learns
//     what a margin costs instead: every interval adds its requests and
//     misses to the bin of the utilization it was served at (the mean need,
//     the step 1 terms with no margin or calibration, over the ready VMs the
//     decision kept). Where the curve shows a higher utilization than the
//     rule's within half the budget (safe_utilization()), the fleet is the
//     mean need at it, never more than the rule's. Exploration is free:
//     noise, lagging start-ups and whole-VM rounding put intervals above the
//     rule's utilization. It stops while the day's misses are over half the
//     budget, so that a flash crowd that spent it is not followed by leaner
//     hours (without that stop, 2 of 29 generated days fell under 99 %).
//  6. Backlog drain: a crowd larger than the fleet leaves a backlog (the
//     prefill the ready replicas have queued, the requests waiting for a
//     slot) that every later arrival waits behind, so each second it lasts
//     costs every request that arrives in it. VMs launched now serve at t
//     + L; the fleet that drains the backlog within one decision interval
//     of then is ready + X, X from the work waiting or arriving by then,
//     and that fleet (less as the backlog shrinks) is kept to the deadline
//     until the backlog is what a fleet meeting the TTFT has queued
//     (drain_vms()). It is not held by step 3: it ends with the backlog.
//     (A 3x crowd over two H100s, generated day 44/3, left 13,000
//     requests queued when the first new VMs came up: the day met 96.16 %
//     before, 96.75 % with the drain; day 43/4 97.36 and 97.57 %. 21 of
//     160 generated days cost less, by up to 8.9 %: a long drain's misses,
//     once VMs are up, raise f in step 4, which then buys VMs for hours.)
// Trade-offs. Bursts shorter than L that arrive unannounced are served by
// the headroom the peak-second rule keeps, not by new VMs; the calibration
// trades a little cost for the attainment target over the long run. All
// decisions are functions of what was observed, so runs are deterministic.
#include <algorithm>
#include <cmath>
#include <deque>
#include <utility>
#include <vector>

#include "simulate/internal/window_max.h"
#include "simulate/serving.h"

namespace gpuplan::simulate {

namespace {

// Log-spaced bins over [lo, hi] (values outside fall in the end bins): what
// the load-ratio histogram (step 1) and the miss curve (step 5) bin by.
struct LogBins {
  double lo, hi;
  size_t n;
  [[nodiscard]] size_t index(double x) const {
    const double at = std::log(std::max(x, 1e-300) / lo) / std::log(hi / lo) * count();
    return static_cast<size_t>(std::clamp(at, 0.0, count() - 1));
  }
  [[nodiscard]] double upper(size_t i) const {
    return lo * std::pow(hi / lo, (static_cast<double>(i) + 1) / count());
  }
  [[nodiscard]] double count() const { return static_cast<double>(n); }
};
constexpr LogBins kRatioBins{1.0 / 8, 8, 256};
constexpr LogBins kCurveBins{1.0 / 16, 4, 64};

class SloGuardPolicy final : public ScalingPolicy {
 public:
  explicit SloGuardPolicy(SloGuardSettings s) : s_(s) {}
  std::string_view name() const override { return "slo-guard"; }
  void reset(const PolicyContext& ctx) override {
    ctx_ = ctx;
    // A VM launched for a need is ready L later and then kept L more.
    hold_s_ = s_.hold_s > 0 ? s_.hold_s : std::max(ctx.startup_s, kSmoothS);
    f_ = 1;
    n_ = 0;
    // z of the attainment target: the share of replica-intervals allowed over.
    double lo = 0, hi = 8;
    const double p = std::clamp(ctx.slo_attainment, 0.5, 1 - 1e-9);
    for (int i = 0; i < 60; ++i) {
      const double mid = (lo + hi) / 2;
      (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    z_ = hi;
    last_t_ = 0;
    interval_s_ = 0;
    needs_.clear();
    drain_deadline_ = -1;
    trend_.clear();
    recent_in_.clear();
    std::fill(ratio_hist_.begin(), ratio_hist_.end(), 0.0);
    ratio_weight_ = 0;
    ratio_samples_ = 0;
    ratio_count_ = 0;
    last_load_ = 0;
    window_.clear();
    arrivals_w_ = missed_w_ = 0;
    run_arrivals_ = run_missed_ = 0;
    std::fill(curve_.begin(), curve_.end(), CurveBin{});
    pending_u_ = -1;
  }

  PolicyDecision decide(const PolicyInput& in) override {
    if (n_ > 0 && interval_s_ <= 0) interval_s_ = in.now_s - last_t_;
    last_t_ = in.now_s;
    ++n_;
    calibrate(in);
    learn_curve(in);
    // The load of the last minute (m, q averaged; a rate seen for one
    // interval only is what the z-sigma margin is for).
    recent_in_.push_back({in.now_s, in.prefill_mean_s, in.prefill_sq_s, in.tpot_load_s,
                          in.tpot_load_sq_s, in.sequences});
    while (recent_in_.front().t < in.now_s - kSmoothS + 1e-9) recent_in_.pop_front();
    PolicyInput smooth = in;
    smooth.prefill_mean_s = smooth.prefill_sq_s = smooth.tpot_load_s = smooth.tpot_load_sq_s = 0;
    for (const Load& l : recent_in_) {
      smooth.prefill_mean_s += l.m, smooth.prefill_sq_s += l.q;
      smooth.tpot_load_s += l.tm, smooth.tpot_load_sq_s += l.tq;
      smooth.sequences = std::min(smooth.sequences, l.sequences);
    }
    const double samples = static_cast<double>(recent_in_.size());
    smooth.prefill_mean_s /= samples, smooth.prefill_sq_s /= samples;
    smooth.tpot_load_s /= samples, smooth.tpot_load_sq_s /= samples;
    // Once the last minute's mean held a whole minute (decisions come at
    // the end of each interval, the first one interval in).
    if (interval_s_ > 0 && in.now_s >= kSmoothS + 2 * interval_s_ - 1e-9)
      learn_ratio(in.tpot_load_s,
                  static_cast<double>(std::max<int64_t>(0, in.arrivals - in.hopeless)));
    last_load_ = smooth.tpot_load_s;
    double mean_need = 0;
    const double need = need_vms(smooth, &mean_need);
    const double want = std::max(need, forecast(in.now_s, need));
    const double recent = std::max(0.0, needs_.push(in.now_s, want, hold_s_));
    // The backlog's drain (step 6): the VMs to launch for it and the fleet
    // to keep while it lasts. Not held by step 3: it ends with the backlog.
    const Drain drain = drain_vms(in, smooth.tpot_load_s);
    const double out = std::max(want, drain.launch);
    const int current = in.ready + in.starting;
    int target = current;
    // Out past the tolerance, in below it (both sides, as the HPA does).
    if (out > current * (1 + kScaleTolerance) + 1e-9) {
      target = std::max(current, whole(out));
    } else {
      const int down = whole(std::max({recent, drain.launch, drain.keep}) * (1 + kScaleTolerance));
      // The initial fleet was not launched for any need: it owes no hold.
      if (down < current) target = down;
    }
    // The next interval is served by the ready VMs this decision keeps (the
    // engine keeps min_replicas whatever the target: counting fewer would
    // credit their misses to a utilization they did not run at).
    const int serving = std::min(in.ready, std::max(target, ctx_.min_replicas));
    pending_u_ = serving > 0 ? mean_need / serving : kCurveBins.hi;
    return {target, Capacity::kOnDemand};
  }

 private:
  // The backlog's drain (step 6), in VMs (0: none). Launch: work waiting
  // or arriving by t + L + D (L the start-up, D the drain time) is backlog
  // + m (L + D), m the TPOT load arriving per second (the last minute's
  // mean, as the need's: one noisy interval over the ready VMs, projected
  // over L + D, bought a drain for a backlog there was not). The ready
  // replicas do share x ready x (L + D) of it (share = 1 - step_base /
  // TPOT, the stall term's), and X more, ready by t + L (those starting and
  // those launched now: the starting ones' time before t + L is not
  // counted, so X errs high), share x X x D. So the fleet is ready + X, X =
  // (backlog + (m - share ready) (L + D)) / (share D), when X > 0: a
  // backlog the ready VMs do not clear, or an overload that is building
  // one. D = L for an overload, D = one decision interval for a backlog a
  // fleet meeting the TTFT would not have (the ready replicas do not clear
  // it within a TTFT): every request that arrives while a backlog lasts
  // waits behind it and misses, so D is paid in requests at the crowd's
  // rate on top of the start-up's L, which no causal policy avoids; and a
  // drain's misses, once its VMs are up, raise f (step 4), which buys VMs
  // for hours. X VMs for L + D cost about (backlog / share)(L / D + 1)
  // VM-seconds: a short D buys more VMs, billed mostly for the start-up.
  // A mean load just over the count with nothing queued yet is the HPA's
  // tolerance, not a drain: at D = one interval, 2 % over three VMs asked
  // for two more. (D = L drained a 2.8x crowd over three H100s in four
  // minutes after its VMs came up, with 6,400 misses, more than the 4,000
  // of the start-up itself. Generated three-day scenarios with up to 6
  // crowds, bench/serving_generated.py --hours 72: on seeds 5-9 x 4, D = L
  // met the target on 13 of 20 at 60,435 USD, this rule on 15 at 60,034;
  // the week example went from 1,955.12 USD at 99.43 % to 1,958.66 at
  // 99.46 %. D = one interval for overloads too met 15 at 59,065 but cost
  // the week 1,982.13. Checked once on held-out draws, seeds 14-18 x 8:
  // 31 to 32 of the 34 some policy met (the HPA 31), 41,468 to 41,360 USD
  // over them.)
  // Keep: a launch sets the drain's deadline, t + L + D. Once its VMs are
  // up, the same formula, whose horizon has moved on by L, sees them clear
  // the rest by the later t + 2L + D and asks for nothing, while the plan
  // needs them until the deadline; and a fleet sized at each decision to
  // clear what is left within D from then shrinks with the backlog and
  // never clears it. So until the backlog is what a fleet meeting the TTFT
  // has queued (the ready replicas clear it within a TTFT), the fleet that
  // clears it by the deadline beside the arrivals is kept: (backlog + m T)
  // / (share T), T the time left to the deadline (one interval once it has
  // passed). (Without a keep the drain's VMs were released as they came up
  // and launched again an interval later; ending it once the ready VMs
  // cleared the rest within an interval left the tail to the one VM the
  // load needs.)
  struct Drain {
    double launch = 0, keep = 0;
  };
  Drain drain_vms(const PolicyInput& in, double m) {
    if (!s_.drain_backlog) return {};
    const double per_vm = std::max(1, ctx_.replicas_per_vm);
    const double share = tpot_share(), iv = interval();
    const double l = std::max(ctx_.startup_s, iv);
    const double ready = in.ready * per_vm;
    const double cap = std::max(1, ctx_.max_replicas);
    Drain out;
    const double excess = m - share * ready;  // load over what the ready VMs take
    const auto extra = [&](double d) { return (in.backlog_s + excess * (l + d)) / (share * d); };
    const bool queued = in.backlog_s > share * ready * ctx_.ttft_slo_s;
    double x = extra(l), d = l;
    if (queued && extra(iv) > 0) x = extra(iv), d = iv;
    if (x > 0) {
      out.launch = std::min((ready + x) / per_vm, cap);
      if (drain_deadline_ < 0) drain_deadline_ = in.now_s + l + d;
    }
    if (in.backlog_s <= share * ready * ctx_.ttft_slo_s) {
      drain_deadline_ = -1;  // what a fleet meeting the TTFT has queued
    } else if (drain_deadline_ >= 0) {
      const double left = std::max(iv, drain_deadline_ - in.now_s);
      out.keep = std::min((in.backlog_s + m * left) / (share * left) / per_vm, cap);
    }
    return out;
  }

  // A replica's share of time prefill may take beside decodes that keep
  // TPOT at batch -> 0: 1 - step_base / TPOT (the stall term's limit).
  double tpot_share() const {
    return std::clamp(1 - ctx_.step_base_s / ctx_.tpot_slo_s, 0.05, 1.0);
  }
  // The decision interval, 15 s until a second decision measures it.
  double interval() const { return interval_s_ > 0 ? interval_s_ : 15; }

  // The need's trend (step 2): the slope between the mean need of the last
  // 10 minutes and of the 10 before, never negative, L + one interval on.
  double forecast(double now_s, double need) {
    trend_.push_back({now_s, need});
    while (trend_.front().first < now_s - 2 * kTrendWindowS) trend_.pop_front();
    double now_sum = 0, before_sum = 0;
    int now_n = 0, before_n = 0;
    for (const auto& [t, v] : trend_) {
      if (t > now_s - kTrendWindowS)
        now_sum += v, ++now_n;
      else
        before_sum += v, ++before_n;
    }
    if (now_n == 0 || before_n == 0 || trend_.front().first > now_s - 2 * kTrendWindowS + 1e-9)
      return 0;
    const double slope = (now_sum / now_n - before_sum / before_n) / kTrendWindowS;
    const double ahead_s = s_.forecast_s > 0 ? s_.forecast_s : ctx_.startup_s + interval_s_;
    return slope > 0 ? now_sum / now_n + slope * (ahead_s + kTrendWindowS / 2) : 0;
  }
  static constexpr double kTrendWindowS = 600;
  static constexpr double kSmoothS = 60;  // Azure Monitor's and the HPA's metric grain
  // The HPA's tolerance (HpaSettings: kube-controller-manager's default,
  // kubernetes.io, "Horizontal Pod Autoscaling", algorithm details): the HPA
  // leaves the count alone while the desired/current ratio is within it, up
  // or down.
  static constexpr double kScaleTolerance = HpaSettings{}.tolerance;
  struct Load {
    double t, m, q, tm, tq;  // prefill and TPOT loads, their squares
    int sequences;           // running, at the decision
  };
  std::deque<Load> recent_in_;
  static int whole(double vms) { return std::max(1, static_cast<int>(std::ceil(vms - 1e-9))); }

  // Replicas N such that one replica's share of the load arriving over
  // `window_s` — compound Poisson split evenly by the router: mean m T / N,
  // variance q T / N — stays within `budget_s` at z standard deviations:
  // m T / N + z sqrt(q T / N) <= budget, solved for x = 1 / sqrt(N).
  static double replicas_for(double m, double q, double window_s, double budget_s, double z) {
    if (m <= 0 || budget_s <= 0) return 0;
    const double a = m * window_s, b = z * std::sqrt(std::max(0.0, q) * window_s);
    const double x = (-b + std::sqrt(b * b + 4 * a * budget_s)) / (2 * a);
    return 1 / (x * x);
  }

  // Replicas N such that a prefill queue fed at m prefill seconds per second
  // (λ requests per second, second moment q / λ) keeps P(wait > TTFT −
  // mean prefill) within the miss budget. The shortest-queue router sends
  // each arrival to the replica whose queued prefills end first, which is a
  // first-come-first-served queue with N servers: M/G/N, whose wait is
  // Erlang C's with the Allen–Cunneen correction for the service time's
  // variability (Allen, "Probability, Statistics and Queueing Theory", 1978):
  // P(W > t) ≈ C(N, A) exp(−(N − A) t / E[S] × 2 / (1 + c²)), A = m the
  // offered load, c² the service time's squared coefficient of variation.
  // (N independent M/G/1 queues, the model this replaced, ignored that an
  // idle replica takes the next prompt: on prompts near the TTFT it asked
  // for 20 replicas per replica of load and bought 7x what static-peak
  // paid for the same attainment.) The least-sequences router pools less;
  // the calibration covers the difference.
  double replicas_for_wait(double m, double q, double rps, double ttft) const {
    if (m <= 0 || rps <= 0) return 0;
    const double es = m / rps, es2 = std::max(q / rps, es * es);
    const double t = ttft - es;
    if (t <= 0) return m / 0.05;  // the mean prompt alone takes the TTFT
    // A large pool: square-root staffing, N = A + z sqrt(A) (Halfin and
    // Whitt, Operations Research 1981), instead of O(N) Erlang sums per
    // bisection step at every decision.
    if (m > kExactWaitLoad) return m + z_ * std::sqrt(m);
    const double budget = std::max(1e-6, 1 - ctx_.slo_attainment);
    const double decay = t / es * 2 / (es2 / (es * es));  // 2 / (1 + c^2) = 2 E[S]^2 / E[S^2]
    // Whether k replicas carry load a within the budget.
    const auto holds = [&](int k, double a) {
      if (a >= k) return false;
      double erlang_b = 1;
      for (int j = 1; j <= k; ++j) erlang_b = a * erlang_b / (j + a * erlang_b);
      const double erlang_c = k * erlang_b / (k - a * (1 - erlang_b));
      return erlang_c * std::exp(-(k - a) * decay) <= budget;
    };
    // The most load k replicas carry (bisection).
    const auto most = [&](int k) {
      double lo = 0, hi = k;
      for (int i = 0; i < 30; ++i) {
        const double mid = (lo + hi) / 2;
        (holds(k, mid) ? lo : hi) = mid;
      }
      return lo;
    };
    int k = std::max(1, static_cast<int>(std::ceil(m)));
    while (k < kMaxWaitReplicas && !holds(k, m)) ++k;
    // A fractional need, as the other terms are: between the counts that
    // bracket the load, in proportion to the load each carries.
    const double upper = most(k), lower = k > 1 ? most(k - 1) : 0;
    if (upper <= lower) return k;
    return (k - 1) + std::clamp((m - lower) / (upper - lower), 0.0, 1.0);
  }
  static constexpr int kMaxWaitReplicas = 4096;
  static constexpr double kExactWaitLoad = 256;  // replicas of prefill load

  // Model replicas the interval asked for, in VMs.
  // The need in VMs; `*mean` gets the same terms at the mean, with no margin
  // and no calibration (the miss curve's utilization is over it).
  double need_vms(const PolicyInput& in, double* mean) const {
    const double per_vm = std::max(1, ctx_.replicas_per_vm);
    const double m = f_ * in.prefill_mean_s, q = f_ * in.prefill_sq_s;
    const double ttft = ctx_.ttft_slo_s;
    // TTFT: the busiest window within its length plus the TTFT, and the
    // prefill queue of the mean rate (M/G/N).
    const double window = in.prefill_window_need;
    const double burst = std::max(f_ * window, replicas_for_wait(m, q, in.arrival_rps, ttft));
    const double slots = std::max(1, ctx_.slots_per_replica) * s_.slot_occupancy;
    const double decode = in.sequences / slots;
    // TPOT: a replica that admits λ requests a second decodes at
    // step(N) / (1 − s), s = λ E[prefill] its prefill share and N = λ
    // E[output] TPOT its batch (Little's law), so TPOT holds while
    // λ (E[prefill] + step_per_seq E[output]) <= 1 − step_base / TPOT: the
    // TPOT load (prefill plus per-sequence decode seconds arriving) within
    // that share, at z sigmas. (Sizing the share at the batch running now
    // missed the batch the extra load brings: a generated day of 300-token
    // prompts and 211-token answers at 23 req/s on an H100, 80 ms TPOT, met
    // 98.0 % of requests that way, 100 % this way.)
    const double tm = f_ * in.tpot_load_s, tq = f_ * in.tpot_load_sq_s;
    const double share = tpot_share(), iv = interval();
    // The split's variance, and the rate's own moves between intervals.
    const double stall =
        std::max(replicas_for(tm, tq, iv, share * iv, z_), tm * load_ratio() / share);
    const double rule = std::max({burst, stall, decode}) / per_vm;
    *mean = std::max({window, in.prefill_mean_s, in.tpot_load_s / share, decode}) / per_vm;
    // Where the miss curve shows a higher utilization safe, the mean need
    // over it; never more than the rule.
    const double u = safe_utilization();
    return *mean > 0 && u * rule > *mean ? *mean / u : rule;
  }

  // The miss curve (step 5): the share of an interval's requests that
  // missed, by the fleet's utilization at its start (the mean need over the
  // VMs that serve it), in log-spaced bins whose weights halve every 24 h.
  void learn_curve(const PolicyInput& in) {
    const double decay = day_decay();
    for (CurveBin& b : curve_) b.arrivals *= decay, b.missed *= decay, b.intervals *= decay;
    if (pending_u_ < 0) return;
    CurveBin& b = curve_[kCurveBins.index(pending_u_)];
    b.arrivals += static_cast<double>(std::max<int64_t>(0, in.arrivals - in.hopeless));
    b.missed += static_cast<double>(std::max<int64_t>(0, in.missed - in.hopeless));
    b.intervals += 1;
  }
  // The highest utilization the curve shows safe, 0 if none: a bin's misses
  // pooled with every bin above it (the curve only rises with utilization,
  // so the pool's share bounds the bin's) stay under half the budget with z
  // Poisson standard deviations to spare, over at least 1 / (1 − target)
  // intervals of evidence. At most 1: past it the mean load is over the
  // fleet and a queue grows. None while the day's misses are over half the
  // budget: what is left of it is for what no curve foresees.
  double safe_utilization() const {
    const double budget = std::max(1e-6, 1 - ctx_.slo_attainment);
    if (run_missed_ > kCurveShare * budget * run_arrivals_) return 0;
    const double allowed = kCurveShare * budget, min_intervals = 1 / std::max(1e-3, budget);
    for (size_t b = curve_.size(); b-- > 0;) {
      double arrivals = 0, missed = 0, intervals = 0;
      for (size_t j = b; j < curve_.size(); ++j) {
        arrivals += curve_[j].arrivals, missed += curve_[j].missed;
        intervals += curve_[j].intervals;
        if (intervals >= min_intervals &&
            missed + 1 + z_ * std::sqrt(missed + 1) <= allowed * arrivals)
          return std::min(1.0, kCurveBins.upper(b));
      }
    }
    return 0;
  }
  struct CurveBin {
    double arrivals = 0, missed = 0, intervals = 0;
  };
  static constexpr double kCurveShare = 0.5;  // of the attainment budget

  // The interval's load over the last minute's mean before it: each
  // interval adds log(ratio) to a histogram over [1/8, 8] whose weights
  // halve every 24 h (a day holds every hour of the daily cycle), weighted by
  // its requests (the attainment is per request) and only once a whole
  // minute precedes it (a trace's first minute, rising from nothing, set
  // the ratio to 2.8 at once and bought the Azure conversation hour a second
  // replica it never needed).
  void learn_ratio(double load, double weight) {
    if (last_load_ <= 0 || weight <= 0) return;
    const double decay = day_decay();
    for (double& w : ratio_hist_) w *= decay;
    ratio_weight_ = ratio_weight_ * decay + weight;
    ratio_count_ = ratio_count_ * decay + 1;
    ++ratio_samples_;
    ratio_hist_[kRatioBins.index(std::max(load, 1e-12) / last_load_)] += weight;
  }
  // Its attainment quantile, at least 1; 1 until a few intervals are seen
  // (the Poisson term alone sizes the first minutes). The histogram starts
  // from a prior of n0 = 1 / (1 − target) intervals at ratio 1 (the Poisson
  // term's own assumption), each of the mean interval's weight: the
  // empirical p-quantile of fewer than 1 / (1 − p) samples is their
  // maximum, so a flash crowd among a short trace's first intervals set r
  // to the crowd's own 3.3x and held 9 VMs where 3 served for the rest of
  // the half hour (a generated 30-minute H100 scenario: 33.98 USD, 23.69
  // with the prior, both at 95.45 %). The prior stays n0 intervals' worth:
  // after n intervals a ratio must hold more than (1 − p)(n + n0) of the
  // weight to set the quantile, so it matters while n is of the order of n0
  // and fades after (a 3x crowd in one of 234 intervals: 1.3 % of the
  // weight alone, 0.9 % with the prior).
  double load_ratio() const {
    if (ratio_samples_ < kMinRatioSamples || ratio_weight_ <= 0) return 1;
    const double p = std::clamp(ctx_.slo_attainment, 0.5, 1.0);
    double prior = ratio_weight_ / std::max(1.0, ratio_count_) / std::max(1e-6, 1 - p);
    const double want = p * (ratio_weight_ + prior);
    double acc = 0;
    for (size_t i = 0; i < ratio_hist_.size(); ++i) {
      acc += ratio_hist_[i];
      // The prior's mass sits in the bin that ends at ratio 1.
      if (2 * (i + 1) >= kRatioBins.n) acc += std::exchange(prior, 0.0);
      if (acc >= want) return std::max(1.0, kRatioBins.upper(i));
    }
    return kRatioBins.hi;
  }
  static constexpr double kHalfLifeS = 86400;
  // One interval's decay of the day-long weights (the ratio histogram's and
  // the run's misses): they halve every kHalfLifeS.
  double day_decay() const { return std::exp2(-interval() / kHalfLifeS); }
  static constexpr int64_t kMinRatioSamples = 8;

  // f follows the misses against the attainment budget.
  void calibrate(const PolicyInput& in) {
    const double budget_share = std::max(1e-6, 1 - ctx_.slo_attainment);
    // Requests no fleet serves (their prefill alone is over the TTFT) say
    // nothing about the fleet's size: they leave the count, or every long
    // prompt would buy capacity that cannot help it.
    const int64_t arrivals = in.arrivals - in.hopeless;
    const int64_t missed = in.starting > 0 ? 0 : in.missed - in.hopeless;
    window_.push_back({in.now_s, arrivals, missed});
    arrivals_w_ += arrivals;
    missed_w_ += missed;
    while (window_.front().t < in.now_s - s_.calibration_s) {
      arrivals_w_ -= window_.front().arrivals;
      missed_w_ -= window_.front().missed;
      window_.pop_front();
    }
    // The run's own attainment over the last day (weights halve every 24 h,
    // as the load ratio's do), counting every miss, those while VMs start
    // too: what a start-up's misses say is that the budget is spent, and a
    // spent budget is no time to shave capacity.
    const double decay = day_decay();
    run_arrivals_ = run_arrivals_ * decay + static_cast<double>(arrivals);
    run_missed_ = run_missed_ * decay + static_cast<double>(in.missed - in.hopeless);
    const bool spent = run_missed_ > budget_share * run_arrivals_;
    // Grow when the interval's misses are over half its budget by more than
    // chance: misses at half the budget are Poisson with mean h = half the
    // budget's count, so more than h + z sqrt(h) (z of the attainment) is a
    // real excess. (Growing at any count over h grew f at single misses:
    // with 120 arrivals an interval and a 1 % budget one miss is over h =
    // 0.6, and once TPOT was measured over each request's own decode, misses
    // came one at a time and f bought the week example 60 % more VMs than
    // the HPA, at 99.86 % against 99.41 %.)
    const double half = 0.5 * budget_share * static_cast<double>(arrivals);
    if (arrivals > 0 && static_cast<double>(missed) > half + z_ * std::sqrt(half))
      f_ = std::min(kMaxF, f_ * 1.05);
    else if (!spent && static_cast<double>(missed_w_) <
                           0.25 * budget_share * static_cast<double>(arrivals_w_))
      f_ = std::max(kMinF, f_ * 0.999);
  }
  static constexpr double kMinF = 0.8, kMaxF = 2;

  struct Tick {
    double t;
    int64_t arrivals, missed;
  };
  SloGuardSettings s_;
  PolicyContext ctx_;
  double hold_s_ = 300, f_ = 1, last_t_ = 0, interval_s_ = 0, z_ = 2.33;
  int64_t n_ = 0, arrivals_w_ = 0, missed_w_ = 0;
  internal::WindowMax<double> needs_;  // of the hold
  std::deque<std::pair<double, double>> trend_;
  std::vector<double> ratio_hist_ = std::vector<double>(kRatioBins.n, 0.0);
  double ratio_weight_ = 0, last_load_ = 0;
  double run_arrivals_ = 0, run_missed_ = 0;  // decayed as the ratio's weights
  int64_t ratio_samples_ = 0;
  double ratio_count_ = 0;  // intervals learned, decayed as the weights are
  std::deque<Tick> window_;
  std::vector<CurveBin> curve_ = std::vector<CurveBin>(kCurveBins.n);
  double pending_u_ = -1;       // utilization the last decision left the next interval at
  double drain_deadline_ = -1;  // step 6: simulated seconds; -1: no drain
};

}  // namespace

std::unique_ptr<ScalingPolicy> make_slo_guard_policy(const SloGuardSettings& s) {
  return std::make_unique<SloGuardPolicy>(s);
}

}  // namespace gpuplan::simulate
