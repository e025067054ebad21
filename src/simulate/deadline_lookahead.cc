// markov-lookahead, our deadline policy, and its expected-cost programme.
//
// What it decides. At each step of a run, none / spot / on-demand, knowing
// the past and the present only. It learns a second-order Markov model of
// spot availability online — P(spot at the next step | spot one step ago,
// spot now), from transition counts over the trace's prefix before the start
// and every step seen since, with a Laplace prior (one pseudo-count per
// outcome) — and follows the plan that minimises the expected cost under
// that model with the deadline as a hard constraint (on-demand is always
// there). The second order tells a window that just opened (often a flicker
// on these traces) from an established one; on the 1-node AWS traces it
// lowered the mean cost by 4 % over first order. An exact safety check (the
// slack left after the worst case of this step must cover one changeover)
// backs the plan.
//
// The programme. V(k, availability state m, what runs, Q) = min over actions
// of the step's cost + E[V(k+1, ...)], where Q = P − R is the progress with
// the changeover counted as paid at the launch (deadline_optimum.cc explains
// the shift): a running VM adds one step to Q per step, a launch subtracts d,
// so what runs needs three states, not one per launch age. In the optimum
// the shift is exact; here it has one approximation: a spot VM evicted before
// its changeover is paid is valued as if the unpaid part had been progress
// lost (pessimistic by at most d), which makes launching into a window that
// then flickers look slightly dearer than it is.
//
// Re-planning. The previous version re-solved the whole programme on the
// 15 s grid (gcd of the 195 s step and the 720 s changeover: ~2,900 progress
// values × 11 running states × 4 availability states × the remaining steps)
// every 12 simulated hours: ~2.4 s per run at production scale. Two changes
// make it ~100 × cheaper:
//  1. A coarser grid. Progress is counted in units of g/n for the smallest n
//     (1 ≤ n ≤ 16) on which the changeover rounds to within 2.5 % of itself
//     (195 s / 720 s: n = 3, u = 65 s, d' = 715 s; 600 s / 720 s: n = 5, the
//     exact grid). The programme is then the exact one of a job whose
//     changeover is d' and whose progress is read rounded down to u; every
//     action's expected cost differs from the fine programme's by at most
//     p_od · (u + L·|d − d'|), L the launches left (≤ slack / d'), so a
//     decision changes only where two actions were that close.
//  2. Re-solve only what changed. The plan depends on the time left and the
//     learned probabilities only; every 12 simulated hours the probabilities
//     are compared with those of the last solve, and the programme is
//     re-solved (from the current step to the deadline) only when one moved
//     by more than kResolveDelta. After a long prefix the counts barely move
//     in 12 h, so most runs solve once.
// On the 8 stretched traces (45 days at 195 s, 100 runs each) the mean
// cost_vs_optimal is 1.146, against 1.233 for uniform-progress and 1.285 for
// greedy-spot (docs/simulate.md, "Performance").
//
// Memory, and time coarsening at fine steps. The plan keeps one byte per
// state, K × 4 × (2 + J) × W (K steps, J launch ages, W progress values in a
// step's feasible band); the values are two layers; none of it grows with the
// trace. It does grow with the job's window in steps: at a 30 s step the
// 60 h job above would need K = 7,200, J = 24, W ≈ 1,450, about 1.2 GB. So
// the programme runs on a policy step G = s·g, the smallest multiple of the
// trace's step whose plan fits kPlanBudgetBytes (32 MiB). On that job s = 1
// at 120, 180, 195, 300 and 600 s (17 MB at 195 s, so the figures above are
// those of the uncoarsened programme), s = 2 at 60, 90 and 150 s (J and W
// depend on how the changeover divides the step), s = 4 (G = 120 s) at 30 s.
// The chain is then learned from availability sampled every G, the plan is
// looked up at every fine step with (the last sample, availability now) as
// its state and progress rounded down to the coarse unit, and the exact
// safety check still runs at every fine step, so every deadline is met. What
// it costs: the plan acts as if it could change its mind only every G; the
// fine-step test in simulate_test.cc bounds the loss against the same
// availability at G (0.02 % there).
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "simulate/internal/deadline_grid.h"

namespace gpuplan::simulate::internal {

namespace {

constexpr int kM = 4;  // availability states: (spot one step ago, spot now), bit 0 = now

// The policy's grid: u = g/n for the smallest n whose changeover rounds to
// within 2.5 % of d (d' = round(d/u)·u); C and lost progress rounded down.
Grid make_policy_grid(const Exact& e) {
  int64_t n = 1;
  for (; n < 16; ++n) {
    if (e.g % n != 0) continue;
    const int64_t u = e.g / n;
    const int64_t du = (e.d + u / 2) / u;
    if (std::llabs(du * u - e.d) * 40 <= e.d) break;  // within 2.5 %
  }
  while (e.g % n != 0) --n;
  Grid gr;
  gr.u = e.g / n;
  gr.g = e.g;
  gr.gu = n;
  gr.du = (e.d + gr.u / 2) / gr.u;
  // At least one unit of work: a job shorter than u (a heuristic's grid, not
  // a bound) is planned as one unit, not as no work at all.
  gr.Cu = std::max<int64_t>(e.C > 0 ? 1 : 0, e.C / gr.u);
  gr.lostu = e.lost / gr.u;
  gr.D = e.D;
  gr.K = static_cast<int>((e.D + e.g - 1) / e.g);
  gr.J = static_cast<int>((gr.du + gr.gu - 1) / gr.gu);
  return gr;
}

// The expected-cost programme over (k, m, what runs, Q) under a stationary
// second-order chain; the argmin of every state is kept as the plan. What
// runs: none, on-demand, and spot by launch age — 1..J−1 steps (changeover
// still owed: R(j) = d − j·g) or paid — so that an eviction or a stop
// during a spot changeover returns to the true progress Q + R(j).
class LookaheadProgramme {
 public:
  explicit LookaheadProgramme(const Grid& gr)
      : gr_(gr),
        n_(static_cast<size_t>(gr.Cu + gr.du)),
        nc_(2 + std::max(1, gr.J)),
        next_(static_cast<size_t>(kM * nc_)),
        cur_(next_.size()),
        run_spot_(static_cast<size_t>(std::max(1, gr.J) + 1)),
        inf_(n_, kInf) {
    width_ = band_width(gr);
    plan_.assign(plan_bytes(gr), 2);
  }

  // Bytes the plan of a programme on this grid takes (one per state).
  [[nodiscard]] static size_t plan_bytes(const Grid& gr) {
    return static_cast<size_t>(gr.K) * kM * static_cast<size_t>(2 + std::max(1, gr.J)) *
           static_cast<size_t>(band_width(gr));
  }

  // Solves steps [k_from, K) for P(spot next | m) = p_up[m].
  void solve(double od_price, double spot_price, const std::array<double, kM>& p_up, int k_from) {
    for (auto* layer : {&next_, &cur_})
      for (auto& v : *layer) v.assign(n_, kInf);
    run_od_.assign(n_, kInf);
    for (auto& v : run_spot_) v.assign(n_, kInf);
    cont_.assign(n_, kInf);
    for (int k = gr_.K - 1; k >= k_from; --k) {
      for (int m = 0; m < kM; ++m) step(k, m, od_price, spot_price, p_up[static_cast<size_t>(m)]);
      std::swap(cur_, next_);
    }
  }

  // The plan's action at step k, availability state m, running c (spot: its
  // changeover still owed, `owed_us`), progress P (µs); on-demand where the
  // programme sees no way to finish.
  [[nodiscard]] Capacity action(int k, int m, Capacity c, int64_t p_us, int64_t owed_us) const {
    int state = static_cast<int>(c);
    int64_t q = 0;
    if (c == Capacity::kSpot && owed_us > 0 && gr_.J > 1) {
      // Launched j steps ago: R = d − j·g (to the nearest step on this grid).
      const int64_t j = (gr_.du * gr_.u - owed_us + gr_.g / 2) / gr_.g;
      const int jj = static_cast<int>(std::clamp<int64_t>(j, 1, gr_.J - 1));
      state = spot_state(jj);
      q = p_us / gr_.u - owed(jj);
    } else {
      const int64_t shifted = p_us - (c == Capacity::kNone ? 0 : owed_us);
      q = shifted >= 0 ? shifted / gr_.u : -((-shifted + gr_.u - 1) / gr_.u);  // floor
    }
    if (k < 0 || k >= gr_.K || q < lo(k) || q > hi(k)) return Capacity::kOnDemand;
    return static_cast<Capacity>(plan_[row(k, m, state) + static_cast<size_t>(q - lo(k))]);
  }

  [[nodiscard]] const Grid& grid() const { return gr_; }

 private:
  static constexpr int kNone = 0, kPaid = 1, kOd = 2;  // states; spot ages from 3
  [[nodiscard]] int spot_state(int j) const { return j >= gr_.J ? kPaid : 2 + j; }
  [[nodiscard]] int64_t owed(int j) const {
    return std::max<int64_t>(0, gr_.du - static_cast<int64_t>(j) * gr_.gu);
  }
  // The band of Q worth a state at step k: from what must be done by now
  // (less a changeover owed) to what can have been done.
  [[nodiscard]] static int64_t band_lo(const Grid& gr, int k) {
    return std::max<int64_t>(-gr.du, gr.Cu - gr.time_left(k));
  }
  [[nodiscard]] static int64_t band_hi(const Grid& gr, int k) {
    return std::min<int64_t>(gr.Cu - 1, static_cast<int64_t>(k) * gr.gu);
  }
  [[nodiscard]] static int64_t band_width(const Grid& gr) {
    int64_t w = 1;
    for (int k = 0; k < gr.K; ++k) w = std::max<int64_t>(w, band_hi(gr, k) - band_lo(gr, k) + 1);
    return w;
  }
  [[nodiscard]] int64_t lo(int k) const { return band_lo(gr_, k); }
  [[nodiscard]] int64_t hi(int k) const { return band_hi(gr_, k); }
  [[nodiscard]] size_t row(int k, int m, int c) const {
    return ((static_cast<size_t>(k) * kM + static_cast<size_t>(m)) * static_cast<size_t>(nc_) +
            static_cast<size_t>(c)) *
           static_cast<size_t>(width_);
  }
  [[nodiscard]] size_t idx(int64_t q) const { return static_cast<size_t>(q + gr_.du); }
  [[nodiscard]] size_t at(int m, int c) const {
    return static_cast<size_t>(m) * static_cast<size_t>(nc_) + static_cast<size_t>(c);
  }

  // run[Q] = cost-to-go of running at `price` this step from Q: finish within
  // the step, else a full step and E[value at k+1 from Q + g] (cont_).
  void run(double price, double step_h, double unit_h, int k, int64_t lo, int64_t hi,
           std::vector<double>& out) const {
    const bool last = k == gr_.K - 1;
    const int64_t fin = std::max(lo, gr_.Cu - gr_.len(k));
    double* o = out.data() + idx(0);
    for (int64_t q = fin; q <= hi; ++q) o[q] = price * static_cast<double>(gr_.Cu - q) * unit_h;
    const double* c = cont_.data() + idx(gr_.gu);  // c[q] = cont at Q + g
    for (int64_t q = lo; q < fin; ++q) o[q] = last ? kInf : std::min(kInf, price * step_h + c[q]);
  }

  // cont_[Q] = E[value at k+1 in state `c` with Q] from availability state m;
  // a spot VM of age j is evicted when spot goes, back to P = Q + R(j).
  void expect(int m, int c, int j, double p1, int64_t lo, int64_t hi) {
    const int m1 = ((m << 1) | 1) & (kM - 1), m0 = (m << 1) & (kM - 1);
    const bool spot = c != kNone && c != kOd;
    const double* up = next_[at(m1, c)].data() + idx(0);
    const double* down = next_[at(m0, spot ? kNone : c)].data() + idx(0);
    double* o = cont_.data() + idx(0);
    if (spot) {
      // Clamped above too: the band holds states this j never reaches
      // (done = Q + R(j) past the job), whose P would index past the layer.
      const int64_t back = owed(j) - gr_.lostu;
      for (int64_t q = lo; q <= hi; ++q)
        o[q] = p1 * up[q] + (1 - p1) * down[std::clamp<int64_t>(q + back, 0, gr_.Cu - 1)];
    } else {
      for (int64_t q = lo; q <= hi; ++q) o[q] = p1 * up[q] + (1 - p1) * down[q];
    }
  }

  void step(int k, int m, double od_price, double spot_price, double p1) {
    const bool a = (m & 1) != 0, last = k == gr_.K - 1;
    const int64_t l = lo(k), h = hi(k);
    const double step_h = static_cast<double>(gr_.g) * kHoursPerMicro;
    const double unit_h = static_cast<double>(gr_.u) * kHoursPerMicro;
    // Q + g over the range of the next step.
    const int64_t cl = l + gr_.gu, ch = std::min(h + gr_.gu, gr_.Cu - 1);
    if (!last) expect(m, kOd, 0, p1, cl, ch);
    run(od_price, step_h, unit_h, k, l, h, run_od_);
    if (a) {  // run_spot_[j]: spot launched j steps ago (0: now; J: paid)
      const int J = std::max(1, gr_.J);
      for (int j = 0; j <= J; ++j) {
        const int jn = std::min(j + 1, J);
        if (!last) expect(m, spot_state(jn), jn, p1, cl, ch);
        run(spot_price, step_h, unit_h, k, l, h, run_spot_[static_cast<size_t>(j)]);
      }
    }
    if (!last) expect(m, kNone, 0, p1, std::max<int64_t>(l, 0), h);
    choose(k, m, a, last, l, h);
  }

  // The best action of each state (see deadline_optimum.cc's choose).
  void choose(int k, int m, bool a, bool last, int64_t l, int64_t h) {
    const size_t z = idx(0);
    const double* idle = (last ? inf_.data() : cont_.data()) + z;
    const double* ro = run_od_.data() + z;
    const int J = std::max(1, gr_.J);
    const double* rs0 = (a ? run_spot_[0].data() : inf_.data()) + z;
    const int64_t du = gr_.du;
    auto launched = [&](const double* run, int64_t q) { return q - du >= l ? run[q - du] : kInf; };
    double* vn = cur_[at(m, kNone)].data() + z;
    double* vo = cur_[at(m, kOd)].data() + z;
    uint8_t* pn = plan_.data() + row(k, m, kNone) - l;
    uint8_t* po = plan_.data() + row(k, m, kOd) - l;
    for (int64_t q = l; q <= h; ++q) {
      const double id = q < 0 ? kInf : idle[q];
      const double od_new = launched(ro, q), spot_new = launched(rs0, q);
      pick(id, od_new, spot_new, vn[q], pn[q]);
      if (q < 0) vn[q] = kInf;  // not a state: none has P ≥ 0
      pick(id, ro[q], spot_new, vo[q], po[q]);
    }
    for (int j = 1; j <= J; ++j) {  // spot of age j (J: paid), owing R(j)
      const int c = spot_state(j);
      const int64_t r = owed(j);
      const double* rs = (a ? run_spot_[static_cast<size_t>(j)].data() : inf_.data()) + z;
      double* vs = cur_[at(m, c)].data() + z;
      uint8_t* ps = plan_.data() + row(k, m, c) - l;
      for (int64_t q = l; q <= h; ++q) {
        const bool real = q + r >= 0 && q + r <= h;  // P = Q + R(j)
        const double stop = real ? idle[q + r] : kInf;
        const double to_od = real ? launched(ro, q + r) : kInf;
        pick(stop, to_od, rs[q], vs[q], ps[q]);
      }
    }
  }

  static void pick(double idle, double od, double spot, double& v, uint8_t& act) {
    v = idle;
    act = 0;
    if (od < v) v = od, act = 2;
    if (spot < v) v = spot, act = 1;
  }

  const Grid gr_;
  size_t n_;
  int nc_;  // states of what runs: none, spot paid, on-demand, spot ages 1..J−1
  int64_t width_ = 1;
  std::vector<std::vector<double>> next_, cur_;  // [m · nc_ + c][Q + du]
  std::vector<double> run_od_, cont_;
  std::vector<std::vector<double>> run_spot_;  // by launch age
  std::vector<double> inf_;
  std::vector<uint8_t> plan_;
};

// The plan's memory budget: a choice (a few MB per run keeps thousands of
// runs on many threads within a laptop's memory), not a fitted constant.
constexpr size_t kPlanBudgetBytes = size_t{32} << 20;

// The smallest stride s (policy step s·g) whose programme's plan fits the
// budget.
int policy_stride(const DeadlineJob& job, double step_s) {
  for (int s = 1;; ++s) {
    const Grid gr = make_policy_grid(exact(job, step_s * s));
    if (gr.K <= 1 || LookaheadProgramme::plan_bytes(gr) <= kPlanBudgetBytes) return s;
  }
}

class MarkovLookaheadPolicy final : public ScalingPolicy {
 public:
  MarkovLookaheadPolicy(const DeadlineJob& job, double step_s)
      : job_(job),
        stride_(policy_stride(job, step_s)),
        programme_(make_policy_grid(exact(job, step_s * stride_))) {
    resolve_every_ = resolve_every(step_s * stride_);
  }
  // Policy steps between two looks at the model (so between two solves).
  static int resolve_every(double policy_step_s) {
    return std::max(1, static_cast<int>(std::llround(kResolveHours * 3600.0 / policy_step_s)));
  }
  std::string_view name() const override { return "markov-lookahead"; }
  void reset(const PolicyContext& ctx) override {
    for (auto& row : counts_) row = {kPrior, kPrior};
    hist_ = -1;
    // The chain's samples are stride_ steps apart and the run's first step
    // is one: the history's samples end stride_ steps before it.
    const size_t n = ctx.spot_history.size(), s = static_cast<size_t>(stride_);
    for (size_t i = n % s; i < n; i += s) observe(ctx.spot_history[i] ? 1 : 0);
    solved_at_ = -1;
  }
  PolicyDecision decide(const PolicyInput& in) override {
    const Grid& gr = programme_.grid();
    const int64_t fine = std::llround(in.now_s / in.step_s);
    const bool sample = fine % stride_ == 0;
    const int k = static_cast<int>(fine / stride_);
    const int a = in.spot_available ? 1 : 0;
    if (sample) observe(a);
    if (k >= gr.K) return {0, Capacity::kOnDemand};
    if (solved_at_ < 0 || (sample && k - solved_at_ >= resolve_every_ && model_moved())) solve(k);
    // The observed state in the programme's terms: (the last sample, spot
    // now), progress rounded down to the grid (conservative).
    const int m = sample ? state() : (((hist_ & 1) << 1) | a);
    Capacity want = programme_.action(k, m, in.running, us(in.work_done_s),
                                      in.running == Capacity::kNone ? 0 : us(in.overhead_left_s));
    if (want == Capacity::kSpot && !a) want = Capacity::kNone;
    if (want != Capacity::kOnDemand && unsafe_without_od(in, want)) want = Capacity::kOnDemand;
    return {0, want};
  }

 private:
  static constexpr double kPrior = 1.0;        // Laplace: one pseudo-transition of each kind
  static constexpr double kResolveHours = 12;  // look at the model this often
  // Re-solve when a learned probability moved by more than this since the
  // last solve. A choice, not a fitted constant: small against the spread of
  // the probabilities between traces (0.6 to 0.99 on the AWS traces).
  static constexpr double kResolveDelta = 0.01;
  // The availability state: the last two samples (bit 0 = the latest).
  [[nodiscard]] int state() const { return hist_ < 0 ? 0 : hist_ & (kM - 1); }
  void observe(int a) {
    if (hist_ >= kM) counts_[static_cast<size_t>(hist_ & (kM - 1))][static_cast<size_t>(a)] += 1;
    // Until two observations exist, pretend the unseen past equalled now.
    if (hist_ < 0) hist_ = a ? (kM - 1) : 0;
    hist_ = (((hist_ << 1) | a) & (kM - 1)) | kM;  // kM bit: "seen at least one step"
  }
  [[nodiscard]] std::array<double, kM> p_up() const {
    std::array<double, kM> p{};
    for (size_t m = 0; m < kM; ++m) p[m] = counts_[m][1] / (counts_[m][0] + counts_[m][1]);
    return p;
  }
  [[nodiscard]] bool model_moved() const {
    const std::array<double, kM> p = p_up();
    for (size_t m = 0; m < kM; ++m)
      if (std::abs(p[m] - solved_p_[m]) > kResolveDelta) return true;
    return false;
  }
  void solve(int k) {
    solved_at_ = k;
    solved_p_ = p_up();
    programme_.solve(job_.od_usd_per_hour, job_.spot_usd_per_hour, solved_p_, k);
  }
  DeadlineJob job_;
  int stride_ = 1;  // trace steps per policy step
  LookaheadProgramme programme_;
  std::array<std::array<double, 2>, kM> counts_{};
  std::array<double, kM> solved_p_{};
  int hist_ = -1;
  int solved_at_ = -1;
  int resolve_every_ = 221;
};

}  // namespace

double markov_lookahead_states(const DeadlineJob& job, double step_seconds) {
  // Outside what validate() accepts, or too many steps for the grid's int:
  // the run refuses it, or the server's step cap does first.
  const double steps = job.deadline_hours * 3600 / step_seconds;
  if (!(step_seconds >= 1e-3) || !(steps >= 1) || steps > 1e8 || !(job.work_hours >= 0) ||
      !(job.changeover_hours >= 0))
    return 0;
  const int stride = policy_stride(job, step_seconds);
  const Grid gr = make_policy_grid(exact(job, step_seconds * stride));
  const double full = static_cast<double>(LookaheadProgramme::plan_bytes(gr));
  // A solve at step k covers [k, K); re-solves come every resolve_every
  // steps at most (when the model moved), so the states of all of them are
  // full x the sum of (K - k) / K over k = 0, r, 2r, ... < K.
  const int r = MarkovLookaheadPolicy::resolve_every(step_seconds * stride);
  const double K = gr.K, n = std::floor((K - 1) / r) + 1;
  return full * (n - static_cast<double>(r) * n * (n - 1) / 2 / K);
}

std::unique_ptr<ScalingPolicy> make_markov_lookahead(const DeadlineJob& job, double step_seconds) {
  return std::make_unique<MarkovLookaheadPolicy>(job, step_seconds);
}

}  // namespace gpuplan::simulate::internal
