// Internal pieces of the deadline model shared by the run (deadline.cc), the
// hindsight optimum (deadline_optimum.cc) and the policies
// (deadline_policies.cc): the job in integer microseconds and the progress
// grid of the dynamic programmes. Not API.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>

#include "simulate/deadline.h"
#include "simulate/policy.h"

namespace gpuplan::simulate::internal {

inline constexpr double kInf = 1e30;
inline constexpr double kHoursPerMicro = 1.0 / 3.6e9;

inline int64_t us(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1e6)); }

// The job in integer microseconds: step g, changeover d, work C, deadline D,
// progress lost per eviction.
struct Exact {
  int64_t g = 0, d = 0, C = 0, D = 0, lost = 0;
};

inline Exact exact(const DeadlineJob& job, double step_s) {
  Exact e;
  e.g = us(step_s);
  e.d = us(job.changeover_hours * 3600);
  e.C = us(job.work_hours * 3600);
  e.D = us(job.deadline_hours * 3600);
  e.lost = std::max<int64_t>(0, us(job.checkpoint_s - job.eviction_notice_s));
  return e;
}

// The progress grid of a dynamic programme: progress, changeover, work and
// loss in units of u (a divisor of the step).
struct Grid {
  int64_t u = 1;      // grid unit, microseconds
  int64_t gu = 0;     // step, units (exact)
  int64_t du = 0;     // changeover, units (rounded down, or to nearest: make_policy_grid)
  int64_t Cu = 0;     // work, units (rounded down)
  int64_t lostu = 0;  // progress lost per eviction, units (rounded down)
  int64_t D = 0;      // deadline, microseconds
  int64_t g = 0;      // step, microseconds
  int K = 0;          // steps before the deadline
  int J = 0;          // steps until a launch's changeover is paid
  // Whether a unit the deadline cuts counts as before it (a policy's plan on
  // a coarse grid) or after it (the optimum's grid, on which every finish
  // time is a grid point: make_grid).
  bool deadline_cuts_up = true;
  // States of a programme that tracks the launch age: none, spot launched
  // j = 0..J steps ago, on-demand launched j steps ago.
  [[nodiscard]] int ns() const { return 1 + 2 * (J + 1); }
  [[nodiscard]] int spot_state(int j) const { return 1 + j; }
  [[nodiscard]] int od_state(int j) const { return 2 + J + j; }
  // Units of time before the deadline in step k (the last may be partial).
  [[nodiscard]] int64_t len(int k) const { return std::min(gu, time_left(k)); }
  // Units of time from step k's start to the deadline.
  [[nodiscard]] int64_t time_left(int k) const {
    const int64_t left = D - static_cast<int64_t>(k) * g;
    return deadline_cuts_up ? (left + u - 1) / u : left / u;
  }
};

// The hindsight optimum's grid: u = gcd(g, d, C, lost), on which every
// reachable progress value, the work itself and every finish time (a step's
// start plus changeover and work left) are grid points (exact); when that is
// finer than g/120, a divisor of g near g/120, with d, C and lost rounded
// down (a lower bound: every finish time is then no later than the true
// one). A finish time on the grid is within the deadline when it is within
// the last grid point before it, so a unit the deadline cuts is after it.
// (Rounding that unit up let the optimum of a 2-h job due at 2.2 h on 600-s
// steps finish at 2.333 h: the optimum of a deadline 8 minutes later. Lost
// progress left out of the gcd was rounded down to the grid: on hourly steps
// a 3,570-s loss was none, 6.7 % below the true optimum.)
// (Without C, a job of half an hour on a trace of hourly steps and no
// changeover had u = 1 h and no work at all: Cu = 0, and the programme read
// past its arrays.) Cu is 0 only for work shorter than about g/120;
// hindsight_optimal_cost bounds that case without the programme. `parts`
// (120 by default) sets the finest grid, g / parts; fewer parts make a
// coarser grid (a lower bound, as above) for jobs whose programme would not
// fit (deadline_optimum.cc).
inline Grid make_grid(const Exact& e, int64_t parts = 120) {
  Grid gr;
  int64_t u = std::gcd(std::gcd(e.g, e.d > 0 ? e.d : e.g), e.C > 0 ? e.C : e.g);
  if (e.lost > 0) u = std::gcd(u, e.lost);
  const int64_t finest = std::max<int64_t>(1, e.g / std::max<int64_t>(1, parts));
  if (u < finest) {
    int64_t n = std::max<int64_t>(1, parts);
    while (n > 1 && e.g % n != 0) --n;
    u = e.g / n;
  }
  gr.u = u;
  gr.g = e.g;
  gr.gu = e.g / u;
  gr.du = e.d / u;
  gr.Cu = e.C / u;
  gr.lostu = e.lost / u;
  gr.D = e.D;
  gr.K = static_cast<int>((e.D + e.g - 1) / e.g);
  gr.J = static_cast<int>((gr.du + gr.gu - 1) / gr.gu);
  gr.deadline_cuts_up = false;
  return gr;
}

// The hindsight optimum's size on a grid (deadline_optimum.cc, "Size"): the
// progress values its arrays hold, and the cell updates of a run.
[[nodiscard]] double programme_values(const Grid& gr);
[[nodiscard]] double programme_cells(const Grid& gr);
inline constexpr double kMaxProgrammeValues = 1 << 21;  // 9 arrays of 8 bytes: 151 MB
inline constexpr double kMaxProgrammeCells = 4e9;       // about 4 s
// The finest grid (g/120, g/60, ... g) whose programme fits the budget, or
// nullopt: the job is bounded without the programme.
[[nodiscard]] std::optional<Grid> fitting_grid(const Exact& e,
                                               double max_values = kMaxProgrammeValues,
                                               double max_cells = kMaxProgrammeCells);

// The exact safety check of every spot-using policy: after this step, even if
// spot is lost at the next one — taking back the progress a checkpoint longer
// than the notice loses (deadline.cc) — the slack left must still cover one
// on-demand changeover. (Counting the changeover alone, a job with 18 min of
// slack took spot with a 30-min checkpoint: one eviction, and every run of
// the three spot policies missed its deadline, some paying more than
// on-demand.)
inline bool unsafe_without_od(const PolicyInput& in, Capacity action) {
  const double T = in.deadline_s - in.now_s;
  double done = in.work_done_s;
  if (action == Capacity::kSpot) {
    const double r = in.running == Capacity::kSpot ? in.overhead_left_s : in.changeover_s;
    done = std::max(0.0, done + std::max(0.0, in.step_s - r) - in.eviction_loss_s);
  }
  return (T - in.step_s) - (in.work_total_s - done) < in.changeover_s + 1e-6;
}

// markov-lookahead (deadline_lookahead.cc).
[[nodiscard]] std::unique_ptr<ScalingPolicy> make_markov_lookahead(const DeadlineJob& job,
                                                                   double step_seconds);
// States markov-lookahead's programme solves in one run at most: its plan's
// states x the re-solves (every 12 h from the step reached to the deadline,
// when the learned model moved). 0 outside what a run accepts.
[[nodiscard]] double markov_lookahead_states(const DeadlineJob& job, double step_seconds);

}  // namespace gpuplan::simulate::internal
