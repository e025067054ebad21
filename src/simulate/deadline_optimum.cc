// The hindsight optimum of a deadline job on a spot trace.
//
// Problem. Knowing the whole trace, the least cost of any schedule that
// decides none / spot / on-demand at the trace's steps, pays the same
// changeovers (d of billed, unproductive time per launch), loses the same
// progress at an eviction and finishes by the deadline — the model of
// deadline.cc, exactly. It is the `optimal` row and the denominator of every
// cost_vs_optimal, so it runs once per run of a sweep and must be cheap.
//
// The obvious programme. A shortest path over (step k, progress P, what runs
// and how many steps ago it was launched): the launch age matters because the
// first d seconds of a launch are unproductive, so a VM launched j steps ago
// makes g - max(0, d - j·g) of progress in this step. With g = 195 s and
// d = 720 s that is 11 running states per (k, P), and P lives on a grid of
// gcd(g, d) = 15 s: ~2,900 progress values × 11 states × 1,100 steps per run.
//
// Shifted progress. Count the changeover as paid when the VM is launched:
// Q = P − R, with R the changeover still to pay. A running VM then always
// adds exactly g to Q per step (whatever part of the step is changeover), a
// launch subtracts d from Q, and the step in which the job finishes is billed
// C − Q, exactly as before (R + C − P). The launch age disappears from the
// state: (k, Q, what runs), three running states instead of 11.
//
// Why it is exact. Q equals the true P − R in every schedule that never
// interrupts a changeover (never stops, switches or is evicted while R > 0).
// A schedule that does interrupt one is, in the shifted programme, charged
// as if the unpaid changeover had been lost progress — never better than in
// truth (the difference P − R − Q never decreases; a state with less progress
// never costs less), and entering "none" with Q < 0 is not allowed at all. But
// such schedules are never needed: a launch interrupted before its changeover
// is paid has made no progress (max(0, i·g − d) = 0 for i·g < d), so idling
// instead over those steps reaches a state at least as good for less money.
// So some optimal schedule is uninterrupted, and the shifted programme finds
// its cost. The tests check it equal to the full programme (the previous
// implementation, kept in deadline_test.cc as the reference) on every example
// trace and to brute-force enumeration on small ones.
//
// Evictions. The run takes back min(lost, progress since the launch): the
// progress the launch restored is durable (deadline.cc). The programme takes
// back `lost` from any progress, which is the same whenever the launch has
// made at least `lost`, and worse than the truth otherwise. Those schedules
// are not needed either: an eviction that takes back everything the launch
// made leaves the job where it was at the launch, which idling from the
// launch reaches for nothing. So no launch age is needed for the loss (the
// brute-force enumeration with relaunches and partial losses agrees:
// simulate_test.cc, HindsightOptimumEqualsBruteForceWithEvictionLosses).
//
// Cost. O(K × W) per run, K the steps before the deadline and W ≤ (D − C)/u
// + 1 the progress values a step can hold (below C − time left the job cannot
// finish; above k·g it cannot have progressed). Each step is three passes
// over contiguous arrays (run on-demand, run spot, take the best) that the
// compiler vectorizes. Memory: six arrays of C/u + d/u doubles, independent
// of the trace's length. The same grid rule as the full programme applies
// (u = gcd(g, d), coarsened to about g/120 with d and C rounded down — a lower
// bound — when that gcd is finer).
//
// Size. Both grow with the job over the step: a 1,000-hour job on 1-second
// steps needed 260 MB and ~10^12 cell updates (it ran past any timeout), an
// 80,000-hour one 8.7 GB before it was killed. So the programme is held to
// kMaxValues progress values (its arrays: 9 × 8 bytes each) and kMaxCells
// cell updates (about a second per 10^9): a grid that does not fit is
// coarsened (g/60, g/30, ... down to g itself: still a lower bound, d and C
// rounded down by less than a step), and a job that does not fit even on
// steps is bounded in O(K) instead: it must do its work C and pay at least
// one changeover d, no more of C than the spot time available before the
// deadline can run on spot, so cost >= spot·min(A, C) + od·max(0, C − A) +
// min(spot, od)·d. The report says which (hindsight_optimum_note).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/strings.h"
#include "simulate/deadline.h"
#include "simulate/internal/deadline_grid.h"

namespace gpuplan::simulate {

namespace {

using internal::Grid;
using internal::kInf;

// Value arrays over shifted progress Q in [−du, Cu − 1] (index Q + du).
struct Values {
  std::vector<double> none, spot, od;
  explicit Values(size_t n) : none(n, kInf), spot(n, kInf), od(n, kInf) {}
};

class ShiftedProgramme {
 public:
  explicit ShiftedProgramme(const Grid& gr)
      : gr_(gr),
        n_(static_cast<size_t>(gr.Cu + gr.du)),
        next_(n_),
        cur_(n_),
        run_od_(n_, kInf),
        run_spot_(n_, kInf),
        inf_(n_, kInf) {}

  // V(0, Q = 0, none) for availability `avail(k)` at step k (k ≤ K).
  template <typename Avail>
  double solve(double od_price, double spot_price, const Avail& avail) {
    const double step_h = static_cast<double>(gr_.g) * internal::kHoursPerMicro;
    const double unit_h = static_cast<double>(gr_.u) * internal::kHoursPerMicro;
    const int64_t du = gr_.du;
    for (int k = gr_.K - 1; k >= 0; --k) {
      const bool last = k == gr_.K - 1;
      const bool a = avail(k), a_next = avail(k + 1);
      const int64_t len = gr_.len(k);
      // Q from which running to the deadline can finish, and at most k·g.
      const int64_t lo = std::max<int64_t>(-du, gr_.Cu - gr_.time_left(k));
      const int64_t hi = std::min<int64_t>(gr_.Cu - 1, static_cast<int64_t>(k) * gr_.gu);
      if (lo > hi) {
        std::swap(cur_, next_);
        continue;
      }
      run_step(od_price, step_h, unit_h, len, last, lo, hi, next_.od, run_od_);
      if (a) {
        if (a_next || last)
          run_step(spot_price, step_h, unit_h, len, last, lo, hi, next_.spot, run_spot_);
        else
          run_evicted(spot_price, step_h, unit_h, len, lo, hi, run_spot_);
      }
      choose(a, last, lo, hi);
      std::swap(cur_, next_);
    }
    return next_.none[idx(0)];
  }

 private:
  [[nodiscard]] size_t idx(int64_t q) const { return static_cast<size_t>(q + gr_.du); }

  // out[Q] = cost-to-go of running at `price` this step from shifted progress
  // Q (changeover already charged): finish within the step, else a full step
  // and the running state at k+1 with Q + g.
  void run_step(double price, double step_h, double unit_h, int64_t len, bool last, int64_t lo,
                int64_t hi, const std::vector<double>& next_run, std::vector<double>& out) const {
    const int64_t fin = std::max(lo, gr_.Cu - len);  // Q from which this step finishes
    for (int64_t q = fin; q <= hi; ++q)
      out[idx(q)] = price * static_cast<double>(gr_.Cu - q) * unit_h;
    if (last) {
      for (int64_t q = lo; q < fin; ++q) out[idx(q)] = kInf;
      return;
    }
    const double* nx = next_run.data() + idx(gr_.gu);  // nx[i] = next_run at Q + g
    double* o = out.data() + idx(0);                   // o[q] = out at Q = q
    for (int64_t q = lo; q < fin; ++q) {
      o[q] = std::min(kInf, price * step_h + nx[q]);  // kInf stays kInf
    }
  }

  // Running spot when spot is gone at the next step: evicted there, idle with
  // max(0, Q + g − lost).
  void run_evicted(double price, double step_h, double unit_h, int64_t len, int64_t lo, int64_t hi,
                   std::vector<double>& out) const {
    const int64_t fin = std::max(lo, gr_.Cu - len);
    for (int64_t q = fin; q <= hi; ++q)
      out[idx(q)] = price * static_cast<double>(gr_.Cu - q) * unit_h;
    for (int64_t q = lo; q < fin; ++q) {
      const int64_t after = std::max<int64_t>(0, q + gr_.gu - gr_.lostu);
      const double c = next_.none[idx(after)];
      out[idx(q)] = c >= kInf ? kInf : price * step_h + c;
    }
  }

  // The best action of each state at step k: idle (or stop), keep running,
  // or launch (from none or as a switch: Q − d). Entering none with Q < 0 (a
  // changeover interrupted) is not allowed (see the essay). Branch-free inner
  // loops: "not possible" reads from an array of kInf.
  void choose(bool a, bool last, int64_t lo, int64_t hi) {
    const size_t z = idx(0);
    const double* nn = (last ? inf_.data() : next_.none.data()) + z;
    const double* ro = run_od_.data() + z;
    const double* rs = (a ? run_spot_.data() : inf_.data()) + z;
    double* cn = cur_.none.data() + z;
    double* co = cur_.od.data() + z;
    double* cs = cur_.spot.data() + z;
    for (int64_t q = lo; q <= std::min<int64_t>(hi, -1); ++q) {  // mid-changeover
      cn[q] = kInf;
      co[q] = ro[q];
      cs[q] = rs[q];
    }
    const int64_t du = gr_.du;
    for (int64_t q = std::max<int64_t>(lo, 0); q <= hi; ++q) {
      const double idle = nn[q];
      const double od_new = ro[q - du];
      const double spot_new = rs[q - du];
      cn[q] = std::min(idle, std::min(od_new, spot_new));
      co[q] = std::min(idle, std::min(ro[q], spot_new));
      cs[q] = std::min(idle, std::min(rs[q], od_new));
    }
  }

  const Grid& gr_;
  size_t n_;
  Values next_, cur_;
  std::vector<double> run_od_, run_spot_;
  std::vector<double> inf_;  // all kInf: what an impossible action reads
};

}  // namespace

namespace internal {

double programme_values(const Grid& gr) { return static_cast<double>(gr.Cu + gr.du) + 1; }

double programme_cells(const Grid& gr) {
  // A step's band of progress values is at most the slack D/u − C/u wide
  // (and never wider than the arrays).
  const int64_t slack_units = std::max<int64_t>(0, gr.D / gr.u - gr.Cu);  // whole units
  const auto slack = static_cast<double>(slack_units);
  return static_cast<double>(gr.K) *
         std::min(programme_values(gr), slack + static_cast<double>(gr.du) + 1);
}

std::optional<Grid> fitting_grid(const Exact& e, double max_values, double max_cells) {
  for (int64_t parts = 120;; parts /= 2) {
    const Grid gr = make_grid(e, std::max<int64_t>(parts, 1));
    if (programme_values(gr) <= max_values && programme_cells(gr) <= max_cells) return gr;
    if (parts <= 1) return std::nullopt;
  }
}

}  // namespace internal

using internal::fitting_grid;
using internal::programme_values;

std::string hindsight_optimum_note(const DeadlineJob& job, double step_s) {
  const internal::Exact e = internal::exact(job, step_s);
  const std::optional<Grid> gr = fitting_grid(e);
  const Grid fine = internal::make_grid(e);
  if (gr && gr->u == fine.u) return "";
  const std::string size =
      strings::fixed(job.work_hours, 0) + " h of work on " + strings::general(step_s) + "-s steps";
  if (gr)
    return "optimal: " + size + " is too large for the exact programme's finest grid; it runs " +
           "on progress units of " + strings::general(static_cast<double>(gr->u) * 1e-6) +
           " s (changeover and work rounded down: still a lower bound, a little lower)";
  return "optimal: " + size + " is too large for the programme even on whole steps (" +
         strings::general(programme_values(internal::make_grid(e, 1))) +
         " progress values); the row " +
         "is the bound spot x min(available spot time, work) + on-demand x the rest + one " +
         "changeover at the cheaper price, which no schedule may reach";
}

double hindsight_optimal_cost(const DeadlineJob& job, const SpotTrace& trace, int64_t offset) {
  const internal::Exact e = internal::exact(job, trace.gap_seconds);
  const double cheaper = std::min(job.od_usd_per_hour, job.spot_usd_per_hour);
  const std::optional<Grid> fits = fitting_grid(e);
  if (!fits) {
    // The O(K) bound (the essay's "Size"): spot time available before the
    // deadline caps the work spot can do.
    const Grid gr = internal::make_grid(e, 1);
    int64_t spot_us = 0;
    for (int k = 0; k < gr.K; ++k)
      if (trace.at(offset + k)) spot_us += std::min(gr.g, gr.D - static_cast<int64_t>(k) * gr.g);
    const int64_t on_spot = std::min(spot_us, e.C);
    // The changeover: at least once, at spot's price only if spot ever is.
    return (static_cast<double>(on_spot) * job.spot_usd_per_hour +
            static_cast<double>(e.C - on_spot) * job.od_usd_per_hour +
            static_cast<double>(e.d) * (spot_us > 0 ? cheaper : job.od_usd_per_hour)) *
           internal::kHoursPerMicro;
  }
  const Grid& grid = *fits;
  // Work shorter than one grid unit (about g/120): every schedule bills at
  // least the work and one changeover, at no less than the cheaper price.
  if (grid.Cu <= 0) return static_cast<double>(e.C + e.d) * internal::kHoursPerMicro * cheaper;
  ShiftedProgramme p(grid);
  return p.solve(job.od_usd_per_hour, job.spot_usd_per_hour,
                 [&](int k) { return trace.at(offset + k); });
}

}  // namespace gpuplan::simulate
