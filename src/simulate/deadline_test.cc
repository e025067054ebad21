// The hindsight optimum (deadline_optimum.cc) against the programme it
// replaced: the full dynamic programme over (step, progress, what runs, launch
// age), kept here verbatim as the reference. They must agree on the example
// traces, the same traces stretched to a 195 s step, and jobs with lost
// progress at evictions, no changeover or a changeover finer than the grid.
#include "simulate/deadline.h"

#include <array>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/files.h"
#include "simulate/internal/deadline_grid.h"
#include "simulate/rng.h"
#include "simulate/spot_trace.h"
#include "simulate/test_util.h"

namespace gpuplan::simulate {
namespace {

using internal::Exact;
using internal::exact;
using internal::Grid;
using internal::kHoursPerMicro;
using internal::kInf;
using internal::make_grid;

// The dynamic programme shared by the hindsight optimum (availability known:
// one `a` per step, next availability certain) and markov-lookahead
// (availability a Markov chain: both `a`, next availability uncertain).
// `eval[k]` is a bitmask of the availabilities to evaluate at step k;
// `q[k][a]` the probability that spot is available at step k+1 given `a` at
// step k. Returns V(0, P=0, none, a0) for the first evaluated a0 and, when
// `actions` is non-null, the argmin of every state.
class Dp {
 public:
  // `order` 1: the availability state is spot-now; 2: (spot one step ago,
  // spot now) — a second-order chain that tells a fresh spot window from an
  // established one.
  Dp(const Grid& gr, int order) : gr_(gr), width_(gr.Cu + 1), m_(1 << order) {
    next_.assign(static_cast<size_t>(m_) * gr.ns() * width_, kInf);
    cur_.assign(next_.size(), kInf);
  }

  // `eval[k]`: bitmask of availability states to evaluate at step k;
  // `q[k][m]`: probability that spot is available at step k+1 given state m.
  double solve(double od_price, double spot_price, const std::vector<uint8_t>& eval,
               const std::vector<std::array<double, 4>>& q, std::vector<uint8_t>* actions,
               int k_from = 0) {
    const int ns = gr_.ns();
    const double step_h = static_cast<double>(gr_.g) * kHoursPerMicro;
    const double unit_h = static_cast<double>(gr_.u) * kHoursPerMicro;
    if (actions) actions->resize(static_cast<size_t>(gr_.K) * m_ * ns * width_, 0);
    std::fill(next_.begin(), next_.end(), kInf);  // step K: past the deadline
    for (int k = gr_.K - 1; k >= k_from; --k) {
      std::fill(cur_.begin(), cur_.end(), kInf);
      const int64_t len = gr_.len(k);
      const bool last = k == gr_.K - 1;
      const int64_t hi = std::min<int64_t>(gr_.Cu - 1, static_cast<int64_t>(k) * gr_.gu);
      const int64_t time_left_u = (gr_.D - static_cast<int64_t>(k) * gr_.g + gr_.u - 1) / gr_.u;
      const int64_t lo = std::max<int64_t>(0, gr_.Cu - time_left_u);
      for (int m = 0; m < m_; ++m) {
        if (!(eval[static_cast<size_t>(k)] & (1 << m))) continue;
        const int a = m & 1;
        const double p1 = q[static_cast<size_t>(k)][static_cast<size_t>(m)];
        const int m1 = ((m << 1) | 1) & (m_ - 1);
        const int m0 = (m << 1) & (m_ - 1);
        // Expected value of being in state s' with progress p at step k+1
        // (a spot VM is evicted when spot turns unavailable).
        auto cont = [&](int s_next, bool is_spot, int64_t p) -> double {
          double v = 0;
          if (p1 > 0) v += p1 * at(next_, m1, s_next, p);
          if (p1 < 1) {
            const double v0 = is_spot ? at(next_, m0, 0, std::max<int64_t>(0, p - gr_.lostu))
                                      : at(next_, m0, s_next, p);
            v += (1 - p1) * v0;
          }
          return v;
        };
        // Cost-to-go of running `is_spot ? spot : od` launched j steps ago.
        auto run = [&](bool is_spot, int j, int64_t p) -> double {
          const double price = is_spot ? spot_price : od_price;
          const int64_t r = std::max<int64_t>(0, gr_.du - static_cast<int64_t>(j) * gr_.gu);
          if (r + (gr_.Cu - p) <= len) return price * static_cast<double>(r + gr_.Cu - p) * unit_h;
          if (last) return kInf;
          const int64_t prod = std::max<int64_t>(0, gr_.gu - r);
          const int jn = std::min(j + 1, gr_.J);
          const double c = cont(is_spot ? gr_.spot_state(jn) : gr_.od_state(jn), is_spot, p + prod);
          return c >= kInf ? kInf : price * step_h + c;
        };
        for (int64_t p = lo; p <= hi; ++p) {
          const double idle = last ? kInf : cont(0, false, p);
          const double od_new = run(false, 0, p);
          const double spot_new = a ? run(true, 0, p) : kInf;
          for (int s = 0; s < ns; ++s) {
            const bool s_spot = s >= 1 && s <= 1 + gr_.J;
            const bool s_od = s > 1 + gr_.J;
            if (s_spot && a == 0) continue;  // evicted at this step's start: never here
            double best = idle;
            uint8_t act = 0;
            const double od = s_od ? run(false, s - gr_.od_state(0), p) : od_new;
            if (od < best) best = od, act = 2;
            const double sp = !a ? kInf : s_spot ? run(true, s - gr_.spot_state(0), p) : spot_new;
            if (sp < best) best = sp, act = 1;
            ref(cur_, m, s, p) = best;
            if (actions) (*actions)[index(k, m, s, p)] = act;
          }
        }
      }
      std::swap(cur_, next_);
    }
    for (int m = 0; m < m_; ++m)
      if (eval[static_cast<size_t>(k_from)] & (1 << m)) return at(next_, m, 0, 0);
    return kInf;
  }

  [[nodiscard]] size_t index(int k, int m, int s, int64_t p) const {
    return ((static_cast<size_t>(k) * m_ + m) * gr_.ns() + s) * width_ + static_cast<size_t>(p);
  }

 private:
  [[nodiscard]] double at(const std::vector<double>& v, int m, int s, int64_t p) const {
    if (p >= gr_.Cu) return 0;
    return v[(static_cast<size_t>(m) * gr_.ns() + s) * width_ + static_cast<size_t>(p)];
  }
  double& ref(std::vector<double>& v, int m, int s, int64_t p) {
    return v[(static_cast<size_t>(m) * gr_.ns() + s) * width_ + static_cast<size_t>(p)];
  }
  const Grid& gr_;
  size_t width_;
  int m_;
  std::vector<double> cur_, next_;
};

// The previous implementation of hindsight_optimal_cost.
double reference_optimal_cost(const DeadlineJob& job, const SpotTrace& trace, int64_t offset) {
  const Exact e = exact(job, trace.gap_seconds);
  const Grid grid = make_grid(e);
  Dp dp(grid, 1);
  std::vector<uint8_t> eval(static_cast<size_t>(grid.K));
  std::vector<std::array<double, 4>> q(static_cast<size_t>(grid.K));
  for (int k = 0; k < grid.K; ++k) {
    const int a = trace.at(offset + k) ? 1 : 0;
    const double next = trace.at(offset + k + 1) ? 1.0 : 0.0;
    eval[static_cast<size_t>(k)] = static_cast<uint8_t>(1 << a);
    q[static_cast<size_t>(k)] = {next, next, next, next};
  }
  return dp.solve(job.od_usd_per_hour, job.spot_usd_per_hour, eval, q, nullptr);
}

std::vector<SpotTrace> example_traces() {
  std::vector<SpotTrace> out;
  for (const char* name :
       {"us-west-2a_k80_1", "us-west-2a_k80_8", "us-west-2a_v100_1", "us-west-2a_v100_8",
        "us-west-2b_k80_1", "us-west-2b_k80_8", "us-west-2b_v100_1", "us-west-2b_v100_8"}) {
    auto t =
        load_spot_trace(std::string(GPUPLAN_SOURCE_DIR) +
                        "/data/traces/spot/availability-1node-aws-10-26-2022/" + name + ".json");
    EXPECT_TRUE(t) << name;
    if (t) out.push_back(std::move(*t));
  }
  return out;
}

// `t` resampled to `step` seconds by holding the last value
// (bench/stretch_spot_traces.py without the repetition).
SpotTrace stretched(const SpotTrace& t, double step) {
  SpotTrace s;
  s.file = t.file + "@" + std::to_string(static_cast<int>(step));
  s.gap_seconds = step;
  const int64_t n = static_cast<int64_t>(t.available.size());
  const int64_t steps = static_cast<int64_t>(static_cast<double>(n) * t.gap_seconds / step);
  for (int64_t i = 0; i < steps; ++i)
    s.available.push_back(
        t.at(static_cast<int64_t>(static_cast<double>(i) * step / t.gap_seconds)) ? 1 : 0);
  return s;
}

void expect_same(const DeadlineJob& job, const SpotTrace& t, int64_t offset) {
  const double want = reference_optimal_cost(job, t, offset);
  const double got = hindsight_optimal_cost(job, t, offset);
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, want))
      << t.file << " offset " << offset << " changeover " << job.changeover_hours << " h";
}

TEST(DeadlineOptimum, EqualsTheFullProgrammeOnTheExampleTraces) {
  const DeadlineJob job = example_job();
  Rng rng(3);
  for (const SpotTrace& t : example_traces())
    for (int i = 0; i < 12; ++i)
      expect_same(job, t, static_cast<int64_t>(rng.below(t.available.size())));
}

TEST(DeadlineOptimum, EqualsTheFullProgrammeAtA195SecondStep) {
  // The production-scale step: gcd(195 s, 720 s) = 15 s, ~2,900 progress
  // values per step in both programmes.
  const DeadlineJob job = example_job();
  const std::vector<SpotTrace> traces = example_traces();
  Rng rng(4);
  for (size_t i = 0; i < traces.size(); i += 3) {
    const SpotTrace t = stretched(traces[i], 195);
    expect_same(job, t, static_cast<int64_t>(rng.below(t.available.size())));
  }
}

TEST(DeadlineOptimum, EqualsTheFullProgrammeForOtherJobs) {
  const std::vector<SpotTrace> traces = example_traces();
  Rng rng(5);
  for (int trial = 0; trial < 24; ++trial) {
    DeadlineJob job = example_job();
    job.work_hours = 4 + 20 * rng.uniform();
    job.deadline_hours = job.work_hours * (1.1 + 0.6 * rng.uniform()) + 0.5;
    // No changeover, one finer than the grid, one of several steps.
    const double d[] = {0, 0.05, 0.2, 0.75, 1.3};
    job.changeover_hours = d[trial % 5];
    job.checkpoint_s = trial % 3 == 0 ? 300 : 0;  // 270 s lost per eviction
    if (job.work_hours + job.changeover_hours > job.deadline_hours) continue;
    const SpotTrace& t = traces[static_cast<size_t>(trial) % traces.size()];
    expect_same(job, t, static_cast<int64_t>(rng.below(t.available.size())));
  }
}

// Work that is not a whole number of grid units of gcd(step, changeover):
// half an hour on an hourly trace with no changeover once had u = 1 h and
// Cu = 0, and the programme read past its arrays (a crash on a scenario a
// user could write). The grid now divides the work too: spot all the way
// costs the half hour at the spot price, as the full programme finds. Work
// shorter than g/120 (10 s) has no grid unit: the optimum is bounded by the
// work and one changeover at the cheaper price, below every schedule's cost.
TEST(DeadlineOptimum, WorkShorterThanAStep) {
  DeadlineJob job = example_job();
  job.work_hours = 0.5;
  job.deadline_hours = 0.625;
  job.changeover_hours = 0;
  SpotTrace hourly;
  hourly.file = "hourly";
  hourly.gap_seconds = 3600;
  hourly.available = {1, 1, 1};
  const Grid gr = make_grid(exact(job, hourly.gap_seconds));
  EXPECT_EQ(gr.Cu * gr.u, exact(job, hourly.gap_seconds).C);  // the work is a grid point
  EXPECT_NEAR(hindsight_optimal_cost(job, hourly, 0), 0.5 * job.spot_usd_per_hour, 1e-9);
  expect_same(job, hourly, 0);
  hourly.available = {0, 0, 0};  // no spot: on-demand
  EXPECT_NEAR(hindsight_optimal_cost(job, hourly, 0), 0.5 * job.od_usd_per_hour, 1e-9);

  job.work_hours = 10.0 / 3600;
  job.changeover_hours = 0.01;  // 36 s
  job.deadline_hours = 0.5;
  hourly.available = {1, 1, 1};
  ASSERT_EQ(make_grid(exact(job, hourly.gap_seconds)).Cu, 0);
  const double opt = hindsight_optimal_cost(job, hourly, 0);
  EXPECT_NEAR(opt, 46.0 / 3600 * job.spot_usd_per_hour, 1e-12);
  // markov-lookahead plans on its own grid (u = g/n, n < 16), on which the
  // 10 s are under one unit: planned as one, it still meets the deadline.
  auto pol = internal::make_markov_lookahead(job, hourly.gap_seconds);
  const DeadlineRun r = run_deadline(job, hourly, 0, *pol, nullptr, false);
  EXPECT_TRUE(r.deadline_met);
  EXPECT_GE(r.cost_usd, opt);
}

// A job too large for the programme (a 1,000-hour job on 1-second steps:
// 3.6 million progress values, ~10^12 cell updates; it once ran past every
// timeout) is bounded in one pass: spot for the available spot time, the rest
// on-demand, one changeover at the cheaper price — below what every policy
// pays, and said in the report's note.
TEST(DeadlineOptimum, LargeJobsAreBoundedInsteadOfRunningForHours) {
  DeadlineJob job = example_job();
  job.work_hours = 1000;
  job.deadline_hours = 1100;
  job.changeover_hours = 0.2;
  SpotTrace t;
  t.file = "alternating";
  t.gap_seconds = 1;
  for (int i = 0; i < 4000000; ++i) t.available.push_back((i / 36000) % 3 != 0 ? 1 : 0);
  ASSERT_NE(hindsight_optimum_note(job, t.gap_seconds).find("even on whole steps"),
            std::string::npos);
  const double opt = hindsight_optimal_cost(job, t, 0);
  // Spot is there in two 10-h blocks of every three: 73 of the 110 blocks
  // before the deadline, 730 h, so the bound runs 730 h on spot, 270 on
  // demand, and the changeover at spot.
  int64_t spot_s = 0;
  for (int i = 0; i < 1100 * 3600; ++i) spot_s += t.available[static_cast<size_t>(i)];
  ASSERT_EQ(spot_s, 730 * 3600);
  EXPECT_NEAR(opt, (730 + 0.2) * job.spot_usd_per_hour + 270 * job.od_usd_per_hour, 1e-6);
  for (const char* name : {"on-demand", "greedy-spot", "uniform-progress"}) {
    auto pol = make_deadline_policy(name, job, t.gap_seconds);
    ASSERT_NE(pol, nullptr);
    EXPECT_GE(run_deadline(job, t, 0, *pol).cost_usd, opt) << name;
  }
  // No spot at all: the bound is on-demand's own cost, which it reaches.
  std::fill(t.available.begin(), t.available.end(), 0);
  auto od = make_deadline_policy("on-demand", job, t.gap_seconds);
  EXPECT_NEAR(hindsight_optimal_cost(job, t, 0), run_deadline(job, t, 0, *od).cost_usd, 1e-6);

  // The example's own jobs keep the exact programme.
  EXPECT_EQ(hindsight_optimum_note(example_job(), 600), "");
}

// Between the two, a coarser grid: a 195-s step (gcd with 720 s: 15-s
// units) held to half its cells takes 32.5-s units (195/6), d and C rounded
// down: a lower bound still.
TEST(DeadlineOptimum, AGridThatDoesNotFitIsCoarsened) {
  DeadlineJob job = example_job();
  const Exact e = exact(job, 195);
  const Grid fine = make_grid(e);
  ASSERT_EQ(fine.u, internal::us(15));
  const double cells = internal::programme_cells(fine);
  const std::optional<Grid> coarse = internal::fitting_grid(e, 1e9, cells / 2);
  ASSERT_TRUE(coarse.has_value());
  EXPECT_EQ(coarse->u, internal::us(32.5));
  EXPECT_LE(internal::programme_cells(*coarse), cells / 2);
  EXPECT_FALSE(internal::fitting_grid(e, 10, 1e18).has_value());  // not even whole steps
  EXPECT_EQ(internal::fitting_grid(e)->u, fine.u);                // the default budget fits
}

TEST(DeadlineOptimum, DeadlinesBeyondTenMillionStepsAreRefused) {
  DeadlineJob job = example_job();
  job.work_hours = 80000;
  job.deadline_hours = 87000;
  const Status s = validate(job, 1);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().where.field, "job.deadline_hours");
  EXPECT_NE(s.error().message.find("313200000 steps; at most 10000000 (steps of at least 32 s)"),
            std::string::npos)
      << s.error().message;
  EXPECT_TRUE(validate(job, 32).has_value());
}

// What the server counts for markov-lookahead: one solve when the window is
// shorter than its 12-h look at the model, and for a longer window every
// re-solve it may make, each from its step to the deadline (about half a
// solve each on average), never more than one full solve per look.
TEST(MarkovLookahead, StatesCountEveryReSolve) {
  DeadlineJob job;
  job.work_hours = 8;
  job.deadline_hours = 10;  // one look at the model: one solve
  job.changeover_hours = 0.2;
  const double one = internal::markov_lookahead_states(job, 600);
  EXPECT_GT(one, 0);
  // The same slack over 20x the window: a look every 12 h, 17 of them.
  job.work_hours = 198;
  job.deadline_hours = 200;
  const double many = internal::markov_lookahead_states(job, 600);
  DeadlineJob single = job;
  single.deadline_hours = 10;  // states of one solve of a 10-h window...
  single.work_hours = 8;
  const double per_solve_20x = one * 20;  // ...so a full 200-h solve is 20x that
  EXPECT_GT(many, per_solve_20x * 8);     // 17 looks, about half a solve each
  EXPECT_LE(many, per_solve_20x * 17);
  job.deadline_hours = -1;  // what validate() refuses counts nothing
  EXPECT_EQ(internal::markov_lookahead_states(job, 600), 0);
  EXPECT_EQ(internal::markov_lookahead_states(single, 0), 0);
}

}  // namespace
}  // namespace gpuplan::simulate
