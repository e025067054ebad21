// Deadline jobs on spot capacity.
//
// Problem. A checkpointable job needs C hours of compute on one VM and must
// finish by a deadline D. Spot VMs cost a fraction of on-demand ones but may
// be unavailable or evicted; every launch (first start, after an eviction, a
// switch between spot and on-demand) costs a changeover delay d of billed but
// unproductive time (boot, restore the checkpoint). On-demand is always
// available. Which capacity should the job use at each moment so that it
// meets the deadline at the least cost? ("Can't Be Late", Wu et al., NSDI'24,
// whose setting and traces this follows.)
//
// Model. Time advances in the steps of the spot trace (600 s for the
// 1-node AWS traces); a trace value of 0 means spot can be had during the
// step. At each step's start: a spot VM is evicted if spot is not available
// (Azure gives 30 s notice; the job checkpoints in it, and loses
// checkpoint_s - 30 s of progress when a checkpoint takes longer), then the
// policy chooses none / spot / on-demand; a change launches a new VM, whose
// first d seconds are unproductive. A launch restores the last checkpoint, so
// an eviction takes back at most the progress made since the launch: the
// progress restored at the launch is on durable storage already. (Taking back
// the whole loss from the total let an eviction 10 minutes after a relaunch
// wipe out the 0.9 h the relaunch had just restored.) Billing is per second
// (Azure bills VMs per second); the step in which the job finishes is billed
// up to the finish.
// All times are integer microseconds, so runs are exact and reproducible.
//
// This file is the model: validation and the simulation of one run. The
// hindsight optimum is in deadline_optimum.cc, the policies in
// deadline_policies.cc.
#include "simulate/deadline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/strings.h"
#include "simulate/internal/deadline_grid.h"

namespace gpuplan::simulate {

std::string_view to_string(Capacity c) {
  switch (c) {
    case Capacity::kNone:
      return "none";
    case Capacity::kSpot:
      return "spot";
    case Capacity::kOnDemand:
      return "on-demand";
  }
  return "none";
}

namespace {

using internal::kHoursPerMicro;

std::string hours(double t_us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fh", t_us / 3.6e9);
  return buf;
}

}  // namespace

bool deadline_too_short(const DeadlineJob& job) {
  // Compared as the simulation counts time, in whole microseconds: in
  // doubles 0.1 h + 0.2 h is above a 0.3 h deadline that on-demand meets.
  const auto us = [](double h) { return std::llround(h * 3.6e9); };
  return us(job.work_hours) + us(job.changeover_hours) > us(job.deadline_hours);
}

Status validate(const DeadlineJob& job, double step_seconds) {
  auto bad = [](const std::string& field, const std::string& msg) {
    return invalid_argument(msg, Where{"", 0, 0, field});
  };
  if (!(job.work_hours > 0)) return bad("job.work_hours", "must be > 0 hours");
  if (!(job.deadline_hours > 0)) return bad("job.deadline_hours", "must be > 0 hours");
  if (!(job.changeover_hours >= 0)) return bad("job.changeover_hours", "must be >= 0 hours");
  if (!(job.checkpoint_s >= 0)) return bad("job.checkpoint_seconds", "must be >= 0 seconds");
  if (!(job.od_usd_per_hour > 0)) return bad("prices.on_demand_usd_per_hour", "must be > 0");
  if (!(job.spot_usd_per_hour > 0)) return bad("prices.spot_usd_per_hour", "must be > 0");
  if (job.spot_usd_per_hour > job.od_usd_per_hour)
    return bad("prices.spot_usd_per_hour",
               "spot costs more than on-demand: no policy would use it");
  if (!(step_seconds > 0)) return bad("spot.gap_seconds", "must be > 0 seconds");
  // Every policy steps through the run and the trace holds a value per
  // step: an 87,000-hour deadline on 1-second steps is 313 million of them.
  const double steps = std::ceil(job.deadline_hours * 3600 / step_seconds);
  if (steps > kMaxDeadlineSteps)
    return bad(
        "job.deadline_hours",
        strings::fixed(job.deadline_hours, 0) + " h on the spot trace's " +
            strings::general(step_seconds) + "-s steps is " + strings::fixed(steps, 0) +
            " steps; at most " + strings::fixed(kMaxDeadlineSteps, 0) + " (steps of at least " +
            strings::fixed(std::ceil(job.deadline_hours * 3600 / kMaxDeadlineSteps), 0) + " s)");
  if (deadline_too_short(job))
    return bad("job.deadline_hours",
               "shorter than work_hours + changeover_hours: not even on-demand can meet it");
  return {};
}

namespace {

// What a policy sees at time `t` (microseconds, as every argument): the
// work done of the total, the deadline, the changeover and the step, what
// runs with its start-up overhead left, whether spot is available; in
// seconds.
PolicyInput policy_input(const internal::Exact& e, int64_t t, int64_t done, int64_t overhead_left,
                         Capacity running, bool spot_available) {
  PolicyInput in;
  in.now_s = static_cast<double>(t) * 1e-6;
  in.work_done_s = static_cast<double>(done) * 1e-6;
  in.work_total_s = static_cast<double>(e.C) * 1e-6;
  in.deadline_s = static_cast<double>(e.D) * 1e-6;
  in.changeover_s = static_cast<double>(e.d) * 1e-6;
  in.step_s = static_cast<double>(e.g) * 1e-6;
  in.running = running;
  in.overhead_left_s = static_cast<double>(overhead_left) * 1e-6;
  in.eviction_loss_s = static_cast<double>(e.lost) * 1e-6;
  in.spot_available = spot_available;
  return in;
}

}  // namespace

DeadlineRun run_deadline(const DeadlineJob& job, const SpotTrace& trace, int64_t offset,
                         ScalingPolicy& policy, std::string* log, bool timeline) {
  const internal::Exact e = internal::exact(job, trace.gap_seconds);
  PolicyContext ctx;
  ctx.od_usd_per_hour = job.od_usd_per_hour;
  ctx.spot_usd_per_hour = job.spot_usd_per_hour;
  const int64_t n = static_cast<int64_t>(trace.available.size());
  const int64_t start = ((offset % n) + n) % n;
  ctx.spot_history = std::span<const uint8_t>(trace.available.data(), static_cast<size_t>(start));
  policy.reset(ctx);

  DeadlineRun out;
  int64_t P = 0, R = 0, cost_od_us = 0, cost_spot_us = 0;  // cost_* in billed microseconds
  int64_t restored = 0;  // progress at the running VM's launch (its checkpoint)
  Capacity I = Capacity::kNone;
  const int64_t max_steps = 20 * ((e.D + e.g - 1) / e.g) + 10;
  auto emit = [&](int64_t t, const std::string& what) {
    if (log)
      *log += hours(static_cast<double>(t)) + " " + std::string(policy.name()) + " " + what + "\n";
  };
  int64_t finish = -1;
  for (int64_t k = 0; k < max_steps; ++k) {
    const int64_t t = k * e.g;
    const bool a = trace.at(offset + k);
    if (I == Capacity::kSpot && !a) {
      I = Capacity::kNone;
      R = 0;
      const int64_t lost = std::min(P - restored, e.lost);
      P -= lost;
      ++out.evictions;
      if (log) {
        char notice[64];
        std::snprintf(notice, sizeof notice, "evicted (%g s notice, ", job.eviction_notice_s);
        emit(t, notice + (lost > 0 ? "checkpoint longer than the notice: " +
                                         hours(static_cast<double>(lost)) + " of progress lost)"
                                   : std::string("checkpointed)")));
      }
    }
    Capacity A = policy.decide(policy_input(e, t, P, R, I, a)).capacity;
    if (A == Capacity::kSpot && !a) A = Capacity::kNone;
    if (A != I) {
      ++out.scale_events;
      emit(t, A == Capacity::kNone ? std::string("stop ") + std::string(to_string(I))
                                   : std::string("launch ") + std::string(to_string(A)));
      I = A;
      R = A == Capacity::kNone ? 0 : e.d;
      restored = P;
    }
    int64_t billed = 0;
    if (I != Capacity::kNone) {
      const int64_t prod = std::max<int64_t>(0, e.g - R);
      const int64_t rb = R;
      R = std::max<int64_t>(0, R - e.g);
      if (P + prod >= e.C) {
        billed = rb + (e.C - P);
        finish = t + billed;
        P = e.C;
      } else {
        billed = e.g;
        P += prod;
      }
      (I == Capacity::kSpot ? cost_spot_us : cost_od_us) += billed;
    }
    if (timeline) {
      DeadlineStep st;
      st.t_hours = static_cast<double>(t) / 3.6e9;
      st.capacity = I;
      st.spot_available = a;
      st.progress_hours = static_cast<double>(P) / 3.6e9;
      st.cost_usd = static_cast<double>(cost_od_us) * kHoursPerMicro * job.od_usd_per_hour +
                    static_cast<double>(cost_spot_us) * kHoursPerMicro * job.spot_usd_per_hour;
      out.timeline.push_back(st);
    }
    if (finish >= 0) {
      emit(finish, "done");
      break;
    }
  }
  out.od_hours = static_cast<double>(cost_od_us) * kHoursPerMicro;
  out.spot_hours = static_cast<double>(cost_spot_us) * kHoursPerMicro;
  out.od_usd = out.od_hours * job.od_usd_per_hour;
  out.spot_usd = out.spot_hours * job.spot_usd_per_hour;
  out.cost_usd = out.od_usd + out.spot_usd;
  out.finish_hours = finish >= 0 ? static_cast<double>(finish) / 3.6e9 : -1;
  out.deadline_met = finish >= 0 && finish <= e.D;
  if (!out.deadline_met) emit(static_cast<int64_t>(max_steps) * e.g, "deadline missed");
  return out;
}

}  // namespace gpuplan::simulate
