// Deadline jobs on spot capacity: a checkpointable job needs `work` hours of
// compute by a deadline; each step (the spot trace's step) a policy runs it
// on nothing, spot or on-demand. This header has the job, the simulation of
// one run, the hindsight optimum and the deadline policies (deadline.cc has
// the essay).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "simulate/event_queue.h"
#include "simulate/policy.h"
#include "simulate/spot_trace.h"

namespace gpuplan::simulate {

struct DeadlineJob {
  double work_hours = 48;         // compute the job needs on one VM
  double deadline_hours = 60;     // from the start
  double changeover_hours = 0.2;  // restart cost of every launch (boot, restore)
  double eviction_notice_s = 30;  // Azure Scheduled Events' Preempt notice
  double checkpoint_s = 0;        // time to write a checkpoint; progress beyond
                                  // the notice is lost at an eviction
  double od_usd_per_hour = 0;     // per VM
  double spot_usd_per_hour = 0;   // per VM
};

// Validates a job against a step length: kInvalidArgument when a number is
// not positive, the deadline is shorter than work + changeover (no policy,
// not even on-demand, could meet it), spot costs more than on-demand, or the
// deadline spans more than kMaxDeadlineSteps steps.
[[nodiscard]] Status validate(const DeadlineJob& job, double step_seconds);
// Steps a run may span: 10 million, 116 days of 1-second steps, 190 years of
// 10-minute ones (every policy steps through them; a trace holds a value each).
inline constexpr double kMaxDeadlineSteps = 1e7;
// The deadline is shorter than work + changeover, in the whole microseconds
// the simulation counts.
[[nodiscard]] bool deadline_too_short(const DeadlineJob& job);

struct DeadlineStep {  // one timeline point per step
  double t_hours = 0;
  Capacity capacity = Capacity::kNone;
  bool spot_available = false;
  double progress_hours = 0;
  double cost_usd = 0;  // cumulative
};

struct DeadlineRun {
  double cost_usd = 0;
  double od_usd = 0;
  double spot_usd = 0;
  double od_hours = 0;    // VM-hours billed on-demand
  double spot_hours = 0;  // VM-hours billed on spot
  double finish_hours = 0;
  bool deadline_met = false;
  int evictions = 0;
  int scale_events = 0;                // launches and stops
  std::vector<DeadlineStep> timeline;  // filled when asked
};

// Simulates one run of `job` from step `offset` of `trace` under `policy`.
// The policy is reset with the trace's prefix before `offset` as history.
// Appends one line per event to `log` when non-null; fills the timeline when
// `timeline` is true. Deterministic.
[[nodiscard]] DeadlineRun run_deadline(const DeadlineJob& job, const SpotTrace& trace,
                                       int64_t offset, ScalingPolicy& policy,
                                       std::string* log = nullptr, bool timeline = false);

// The hindsight optimum of one run: the least cost of any schedule that
// decides at the same steps, pays the same changeover and eviction costs and
// meets the deadline, knowing the whole trace (a dynamic programme over
// steps × progress × what runs; see deadline.cc). Where the changeover is not
// a multiple of the progress grid it is rounded down, so the result is a
// lower bound and cost_vs_optimal is conservative.
// A job too large for the programme (deadline_optimum.cc, "Size") gets a
// coarser grid or, beyond that, a simpler lower bound.
[[nodiscard]] double hindsight_optimal_cost(const DeadlineJob& job, const SpotTrace& trace,
                                            int64_t offset);
// What the report says about the optimum of `job` on steps of `step_s`
// seconds when it is not the programme on its finest grid; "" when it is.
[[nodiscard]] std::string hindsight_optimum_note(const DeadlineJob& job, double step_s);

// The deadline policies by report name: "on-demand", "greedy-spot",
// "uniform-progress", "markov-lookahead". nullptr for another name.
[[nodiscard]] std::unique_ptr<ScalingPolicy> make_deadline_policy(const std::string& name,
                                                                  const DeadlineJob& job,
                                                                  double step_seconds);
// The names above, in report order.
[[nodiscard]] const std::vector<std::string>& deadline_policy_names();

}  // namespace gpuplan::simulate
