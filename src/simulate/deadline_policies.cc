// The deadline policies: each decides none / spot / on-demand at every step
// of a run, from the past and present only (deadline.cc has the model).
//   on-demand        — always on-demand: the cost ceiling, always on time.
//   greedy-spot      — spot whenever it is available, otherwise wait; when the
//                      slack (time left - work left) falls under max(2d, d+g),
//                      commit to on-demand until the end (NSDI'24 §3, "Greedy").
//   uniform-progress — Can't Be Late's policy (NSDI'24 §4): keep progress on
//                      the line C·t/D; run spot whenever it is available; when
//                      idle and behind the line, run on-demand; on on-demand
//                      stay until ahead of the line at t + 2d (hysteresis);
//                      the same safety net as greedy.
//   markov-lookahead — ours: an expected-cost plan under a learned Markov
//                      model of availability (deadline_lookahead.cc has its
//                      essay). Unlike uniform-progress it has no fixed
//                      progress line: where spot is plentiful it waits like
//                      greedy, where it is scarce it runs on-demand early like
//                      UP, and it weighs the changeover price explicitly.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "simulate/deadline.h"
#include "simulate/internal/deadline_grid.h"

namespace gpuplan::simulate {

namespace {

using internal::unsafe_without_od;

class OnDemandPolicy final : public ScalingPolicy {
 public:
  std::string_view name() const override { return "on-demand"; }
  void reset(const PolicyContext&) override {}
  PolicyDecision decide(const PolicyInput&) override { return {0, Capacity::kOnDemand}; }
};

// Greedy with the safety net of NSDI'24 (margin max(2d, d + g)).
class GreedySpotPolicy final : public ScalingPolicy {
 public:
  std::string_view name() const override { return "greedy-spot"; }
  void reset(const PolicyContext&) override { committed_ = false; }
  PolicyDecision decide(const PolicyInput& in) override {
    const double slack = (in.deadline_s - in.now_s) - (in.work_total_s - in.work_done_s);
    const double margin = std::max(2 * in.changeover_s, in.changeover_s + in.step_s);
    const Capacity want = in.spot_available ? Capacity::kSpot : Capacity::kNone;
    if (committed_ || slack < margin || unsafe_without_od(in, want)) {
      committed_ = true;
      return {0, Capacity::kOnDemand};
    }
    return {0, want};
  }

 private:
  bool committed_ = false;
};

// Uniform Progress, the rules of NSDI'24 §4.
class UniformProgressPolicy final : public ScalingPolicy {
 public:
  std::string_view name() const override { return "uniform-progress"; }
  void reset(const PolicyContext&) override { committed_ = false; }
  PolicyDecision decide(const PolicyInput& in) override {
    const double slack = (in.deadline_s - in.now_s) - (in.work_total_s - in.work_done_s);
    const double margin = std::max(2 * in.changeover_s, in.changeover_s + in.step_s);
    auto expected = [&](double t) { return in.work_total_s * t / in.deadline_s; };
    const double cp = in.work_done_s;
    Capacity want;
    if (in.running == Capacity::kOnDemand && cp < expected(in.now_s + 2 * in.changeover_s)) {
      want = Capacity::kOnDemand;  // hysteresis
    } else if (in.spot_available) {
      want = Capacity::kSpot;  // take the risk
    } else {
      want = cp < expected(in.now_s) ? Capacity::kOnDemand : Capacity::kNone;
    }
    if (committed_ || (want == Capacity::kNone && slack < margin) ||
        (want != Capacity::kOnDemand && unsafe_without_od(in, want))) {
      committed_ = true;  // safety net
      return {0, Capacity::kOnDemand};
    }
    return {0, want};
  }

 private:
  bool committed_ = false;
};

}  // namespace

std::unique_ptr<ScalingPolicy> make_deadline_policy(const std::string& name, const DeadlineJob& job,
                                                    double step_seconds) {
  if (name == "on-demand") return std::make_unique<OnDemandPolicy>();
  if (name == "greedy-spot") return std::make_unique<GreedySpotPolicy>();
  if (name == "uniform-progress") return std::make_unique<UniformProgressPolicy>();
  if (name == "markov-lookahead") return internal::make_markov_lookahead(job, step_seconds);
  return nullptr;
}

const std::vector<std::string>& deadline_policy_names() {
  static const std::vector<std::string> kNames = {"on-demand", "greedy-spot", "uniform-progress",
                                                  "markov-lookahead"};
  return kNames;
}

}  // namespace gpuplan::simulate
