// The keys of a deadline scenario: `job:` (work, deadline, changeover,
// checkpoint and eviction-notice times) and `spot:` (recorded availability
// traces, or the parameters of the stochastic up/down model that generates
// them). A deadline shorter than work + changeover is refused here: no
// policy, not even on-demand only, could meet it.
#include <cmath>
#include <string>

#include <yaml-cpp/yaml.h>

#include "core/strings.h"
#include "simulate/deadline.h"
#include "simulate/internal/scenario_parse.h"
#include "simulate/scenario.h"

namespace gpuplan::simulate::internal {

Status parse_deadline(const Reader& r, const YAML::Node& root, Scenario& s) {
  DeadlineSpec& spec = s.deadline();
  const YAML::Node job = root["job"];
  if (!job)
    return r.error(root, "job", "a deadline scenario needs job: {work_hours, deadline_hours}");
  GPUPLAN_RETURN_IF_ERROR(r.check_map(job, "job",
                                      {"work_hours", "deadline_hours", "changeover_hours",
                                       "checkpoint_seconds", "eviction_notice_seconds"}));
  if (!job["work_hours"]) return r.error(job, "job.work_hours", "required");
  if (!job["deadline_hours"]) return r.error(job, "job.deadline_hours", "required");
  GPUPLAN_TRY(spec.job.work_hours, r.positive(job["work_hours"], "job.work_hours", kMaxHours));
  GPUPLAN_TRY(spec.job.deadline_hours,
              r.positive(job["deadline_hours"], "job.deadline_hours", kMaxHours));
  if (job["changeover_hours"]) {
    GPUPLAN_TRY(spec.job.changeover_hours,
                r.number(job["changeover_hours"], "job.changeover_hours", 0, kMaxHours));
  }
  if (job["checkpoint_seconds"]) {
    GPUPLAN_TRY(spec.job.checkpoint_s,
                r.number(job["checkpoint_seconds"], "job.checkpoint_seconds", 0, kSecondsPerDay));
  }
  if (job["eviction_notice_seconds"]) {
    GPUPLAN_TRY(spec.job.eviction_notice_s,
                r.number(job["eviction_notice_seconds"], "job.eviction_notice_seconds", 0, 3600));
  }
  if (deadline_too_short(spec.job))
    return r.error(job["deadline_hours"], "job.deadline_hours",
                   "shorter than work_hours + changeover_hours: not even on-demand can meet it");
  const YAML::Node spot = root["spot"];
  if (!spot)
    return r.error(root, "spot",
                   "a deadline scenario needs spot: {traces: [...]} or spot: {model: ...}");
  GPUPLAN_RETURN_IF_ERROR(r.check_map(spot, "spot", {"traces", "model"}));
  if (spot["traces"]) {
    const YAML::Node t = spot["traces"];
    if (!t.IsSequence() || t.size() == 0)
      return r.error(t, "spot.traces", "expected a non-empty list of trace files");
    for (size_t i = 0; i < t.size(); ++i) {
      GPUPLAN_TRY(std::string p,
                  r.non_empty_string(t[i], "spot.traces[" + std::to_string(i) + "]"));
      spec.spot_traces.push_back(resolve(s.dir, p));
    }
  }
  if (spot["model"]) {
    const YAML::Node m = spot["model"];
    GPUPLAN_RETURN_IF_ERROR(
        r.check_map(m, "spot.model", {"mean_up_hours", "mean_down_hours", "gap_seconds", "hours"}));
    SpotModel model;
    if (m["mean_up_hours"]) {
      GPUPLAN_TRY(model.mean_up_hours,
                  r.positive(m["mean_up_hours"], "spot.model.mean_up_hours", kMaxHours));
      spec.spot_model_up_given = true;
    }
    if (m["mean_down_hours"]) {
      GPUPLAN_TRY(model.mean_down_hours,
                  r.positive(m["mean_down_hours"], "spot.model.mean_down_hours", kMaxHours));
    }
    if (m["gap_seconds"]) {
      GPUPLAN_TRY(model.gap_seconds, r.number(m["gap_seconds"], "spot.model.gap_seconds",
                                              kMinGapSeconds, kSecondsPerDay));
    }
    double hours = 30 * 24;
    if (m["hours"]) {
      GPUPLAN_TRY(hours, r.positive(m["hours"], "spot.model.hours", kMaxHours));
    }
    // A value per step in memory: 87,600 h of 1-s steps was 315 million.
    const double steps = std::ceil(hours * 3600 / model.gap_seconds);
    if (steps > kMaxDeadlineSteps)
      return r.error(m["hours"] ? m["hours"] : m, "spot.model.hours",
                     strings::fixed(hours, 0) + " h of " + strings::general(model.gap_seconds) +
                         "-s steps is " + strings::fixed(steps, 0) + " steps; at most " +
                         strings::fixed(kMaxDeadlineSteps, 0));
    spec.spot_model = model;
    spec.spot_model_steps = static_cast<int64_t>(steps);
  }
  if (spec.spot_traces.empty() && !spec.spot_model)
    return r.error(spot, "spot", "expected traces: [...] or model: {...}");
  return {};
}

}  // namespace gpuplan::simulate::internal
