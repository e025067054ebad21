// Serving simulation: the scaling policies. Each is a ScalingPolicy the
// engine (serving.cc) asks, once an interval, how many VMs the fleet should
// have, given the interval's utilization, queue, arrivals and prefill load.
//
// Policies (their sources):
//   static-peak     — the peak interval's work at target utilization, all the
//                     time (capacity planning for the peak).
//   azure-autoscale — Azure Monitor autoscale: metric rules over a time window
//                     at a 1-minute time grain; scale out when any scale-out
//                     rule fires, scale in only when all scale-in rules agree
//                     and the projected metric after scale-in would not fire a
//                     scale-out rule (Azure's flapping check); a cooldown after
//                     every action (learn.microsoft.com, "Autoscale best
//                     practices", "Understand autoscale settings").
//   hpa             — Kubernetes HPA: desired = ceil(current × metric/target),
//                     no change while |metric/target - 1| <= 0.1, scale-down
//                     to the highest recommendation of the last 5 minutes
//                     (kubernetes.io, "Horizontal Pod Autoscaling": algorithm
//                     details, --horizontal-pod-autoscaler-tolerance=0.1,
//                     downscale stabilization window 300 s).
//   predictive      — forecasts the work rate start-up + 2 intervals ahead by
//                     Holt's linear exponential smoothing (Holt 1957; α 0.5,
//                     β 0.1 per interval), never below the last 5 minutes'
//                     peak, and provisions for it at target utilization ahead
//                     of the start-up delay (the idea of AWS predictive scaling
//                     and SkyServe, EuroSys'25); scale-down waits 5 minutes.
//   optimal         — not a policy: the lower bound of serving_bound.cc.
//   slo-guard       — slo_guard.cc; slo-guard-autoscale is the azure-autoscale
//                     policy fed slo-guard's deficit as a custom metric.
#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "simulate/autoscale_export.h"
#include "simulate/internal/window_max.h"
#include "simulate/serving.h"

namespace gpuplan::simulate {

namespace {

class StaticPeakPolicy final : public ScalingPolicy {
 public:
  std::string_view name() const override { return "static-peak"; }
  void reset(const PolicyContext& ctx) override { n_ = ctx.peak_replicas; }
  PolicyDecision decide(const PolicyInput&) override { return {n_, Capacity::kOnDemand}; }

 private:
  int n_ = 1;
};

class AzureAutoscalePolicy final : public ScalingPolicy {
 public:
  explicit AzureAutoscalePolicy(AutoscaleSettings s, std::unique_ptr<ScalingPolicy> deficit = {},
                                std::string name = "azure-autoscale")
      : s_(std::move(s)), deficit_src_(std::move(deficit)), name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  void reset(const PolicyContext& ctx) override {
    if (deficit_src_) deficit_src_->reset(ctx);
    grain_util_.clear();
    grain_queue_.clear();
    grain_deficit_.clear();
    acc_deficit_ = -1e300;
    acc_util_ = acc_queue_ = 0;
    acc_n_ = 0;
    last_action_s_ = -1e18;
    target_ = -1;
    cooldown_s_ = 0;
  }
  PolicyDecision decide(const PolicyInput& in) override {
    const int current = in.ready + in.starting;
    if (target_ < 0) target_ = current;
    acc_util_ += in.utilization * 100;
    acc_queue_ += in.queued;
    ++acc_n_;
    // The custom metric SloGuardDeficitVms: what the router's slo-guard wants
    // minus the count, at its Maximum over the grain (autoscale_export.h).
    if (deficit_src_)
      acc_deficit_ =
          std::max(acc_deficit_, static_cast<double>(deficit_src_->decide(in).replicas - current));
    // Metrics are aggregated per time grain; rules run once per grain.
    const double grain_end = (std::floor(in.now_s / s_.time_grain_s + 1e-9)) * s_.time_grain_s;
    if (in.now_s + 1e-9 < grain_end || grain_end <= last_grain_)
      return {target_, Capacity::kOnDemand};
    last_grain_ = grain_end;
    grain_util_.push_back(acc_util_ / acc_n_);
    grain_queue_.push_back(acc_queue_ / acc_n_);
    grain_deficit_.push_back(acc_deficit_);
    acc_util_ = acc_queue_ = 0;
    acc_deficit_ = -1e300;
    acc_n_ = 0;
    const size_t keep = static_cast<size_t>(max_window_grains()) + 1;
    while (grain_util_.size() > keep)
      grain_util_.pop_front(), grain_queue_.pop_front(), grain_deficit_.pop_front();
    if (in.now_s - last_action_s_ < cooldown_s_) return {target_, Capacity::kOnDemand};
    target_ = current;
    // Scale out when any scale-out rule fires.
    for (const AutoscaleRule& r : s_.rules) {
      if (!r.scale_out) continue;
      double v;
      if (fires(r, 1.0, &v)) return act(in, current + r.change, r.cooldown_s);
    }
    // Scale in only when every scale-in rule fires, and the projected metric
    // after scale-in would not trigger a scale-out rule (flapping check).
    int change = 0;
    double cooldown = 0;
    bool any = false;
    for (const AutoscaleRule& r : s_.rules) {
      if (r.scale_out) continue;
      any = true;
      double v;
      if (!fires(r, 1.0, &v)) return {target_, Capacity::kOnDemand};
      change = std::max(change, r.change);
      cooldown = std::max(cooldown, r.cooldown_s);
    }
    if (!any || current - change < 1) return {target_, Capacity::kOnDemand};
    const double scale = static_cast<double>(current) / (current - change);
    for (const AutoscaleRule& r : s_.rules) {
      double v;
      if (r.scale_out && r.metric == "utilization" && fires(r, scale, &v))
        return {target_, Capacity::kOnDemand};
    }
    return act(in, current - change, cooldown);
  }

 private:
  int max_window_grains() const {
    double w = 0;
    for (const auto& r : s_.rules) w = std::max(w, r.window_s);
    return static_cast<int>(std::ceil(w / s_.time_grain_s));
  }
  bool fires(const AutoscaleRule& r, double scale, double* value) const {
    const auto& series = r.metric == "queue"     ? grain_queue_
                         : r.metric == "deficit" ? grain_deficit_
                                                 : grain_util_;
    const size_t n = static_cast<size_t>(std::ceil(r.window_s / s_.time_grain_s - 1e-9));
    // Last: the newest grain in the window, which one grain already holds.
    if (r.time_aggregation == "Last") {
      if (series.empty() || n == 0) return false;
      *value = series.back() * scale;
      return compare(r, *value);
    }
    if (series.size() < n || n == 0) return false;
    double agg = r.time_aggregation == "Maximum"   ? -1e300
                 : r.time_aggregation == "Minimum" ? 1e300
                                                   : 0;
    for (size_t i = series.size() - n; i < series.size(); ++i) {
      const double v = series[i];
      if (r.time_aggregation == "Maximum")
        agg = std::max(agg, v);
      else if (r.time_aggregation == "Minimum")
        agg = std::min(agg, v);
      else
        agg += v;
    }
    if (r.time_aggregation != "Maximum" && r.time_aggregation != "Minimum")
      agg /= static_cast<double>(n);
    agg *= scale;
    *value = agg;
    return compare(r, agg);
  }
  static bool compare(const AutoscaleRule& r, double v) {
    return r.op == "GreaterThan"          ? v > r.threshold
           : r.op == "GreaterThanOrEqual" ? v >= r.threshold
           : r.op == "LessThan"           ? v < r.threshold
                                          : v <= r.threshold;
  }
  PolicyDecision act(const PolicyInput& in, int target, double cooldown) {
    last_action_s_ = in.now_s;
    cooldown_s_ = cooldown;
    target_ = std::max(1, target);
    return {target_, Capacity::kOnDemand};
  }
  AutoscaleSettings s_;
  std::unique_ptr<ScalingPolicy> deficit_src_;  // slo-guard, for the "deficit" metric
  std::string name_;
  std::deque<double> grain_util_, grain_queue_, grain_deficit_;
  double acc_util_ = 0, acc_queue_ = 0, acc_deficit_ = -1e300;
  int acc_n_ = 0;
  double last_grain_ = -1, last_action_s_ = -1e18, cooldown_s_ = 0;
  int target_ = -1;
};

class HpaPolicy final : public ScalingPolicy {
 public:
  explicit HpaPolicy(HpaSettings s) : s_(s) {}
  std::string_view name() const override { return "hpa"; }
  void reset(const PolicyContext&) override { recs_.clear(); }
  PolicyDecision decide(const PolicyInput& in) override {
    const int current = std::max(1, in.ready + in.starting);
    // Not-ready replicas count as 0 % used (the HPA's conservative rule for
    // pods without metrics when scaling up).
    const double metric =
        in.ready > 0 ? in.utilization * in.ready / current : (in.utilization > 0 ? 10.0 : 0.0);
    const double ratio = metric / s_.target_utilization;
    int desired = current;
    if (std::abs(ratio - 1) > s_.tolerance)
      desired = static_cast<int>(std::ceil(current * ratio - 1e-9));
    desired = std::max(1, desired);
    const int stabilized = recs_.push(in.now_s, desired, s_.scale_down_stabilization_s);
    // Scale up at once; scale down only to the highest recent recommendation.
    return {desired > current ? desired : std::min(current, stabilized), Capacity::kOnDemand};
  }

 private:
  HpaSettings s_;
  internal::WindowMax<int> recs_;  // recommendations of the stabilization window
};

class PredictivePolicy final : public ScalingPolicy {
 public:
  explicit PredictivePolicy(double target) : target_util_(target) {}
  std::string_view name() const override { return "predictive"; }
  void reset(const PolicyContext& ctx) override {
    startup_s_ = ctx.startup_s;
    level_ = trend_ = 0;
    n_ = 0;
    recent_.clear();
    recs_.clear();
  }
  PolicyDecision decide(const PolicyInput& in) override {
    // Work rate in replicas at full utilization.
    const double w =
        in.capacity_rps_per_replica > 0 ? in.arrival_rps / in.capacity_rps_per_replica : 0;
    if (interval_s_ <= 0 && n_ > 0) interval_s_ = in.now_s - last_t_;
    last_t_ = in.now_s;
    if (n_ == 0) {
      level_ = w;
    } else {
      const double prev = level_;
      level_ = kAlpha * w + (1 - kAlpha) * (level_ + trend_);
      trend_ = kBeta * (level_ - prev) + (1 - kBeta) * trend_;
    }
    ++n_;
    const double peak = std::max(0.0, recent_.push(in.now_s, w, 300));
    const double steps = interval_s_ > 0 ? (startup_s_ + 2 * interval_s_) / interval_s_ : 0;
    const double forecast = std::max(level_ + trend_ * steps, peak);
    int desired = std::max(1, static_cast<int>(std::ceil(forecast / target_util_ - 1e-9)));
    const int hold = recs_.push(in.now_s, desired, 300);
    const int current = in.ready + in.starting;
    return {desired >= current ? desired : std::min(current, hold), Capacity::kOnDemand};
  }

 private:
  static constexpr double kAlpha = 0.5, kBeta = 0.1;
  double target_util_;
  double startup_s_ = 0, level_ = 0, trend_ = 0, interval_s_ = 0, last_t_ = 0;
  int64_t n_ = 0;
  internal::WindowMax<double> recent_;  // work rates of the last 5 minutes
  internal::WindowMax<int> recs_;       // recommendations of the last 5 minutes
};

}  // namespace

AutoscaleSettings default_autoscale_settings() {
  AutoscaleSettings s;
  s.time_grain_s = 60;
  AutoscaleRule out_util{"utilization", "GreaterThan", 70, 300, "Average", "Average", true, 1, 300};
  AutoscaleRule out_queue{"queue", "GreaterThan", 10, 300, "Average", "Average", true, 1, 300};
  AutoscaleRule in_util{"utilization", "LessThan", 35, 600, "Average", "Average", false, 1, 600};
  AutoscaleRule in_queue{"queue", "LessThan", 1, 600, "Average", "Average", false, 1, 600};
  s.rules = {out_util, out_queue, in_util, in_queue};
  return s;
}

std::unique_ptr<ScalingPolicy> make_azure_autoscale_policy(const AutoscaleSettings& s) {
  return std::make_unique<AzureAutoscalePolicy>(s);
}
std::unique_ptr<ScalingPolicy> make_slo_guard_autoscale_policy(const AutoscaleSettings& rules,
                                                               const SloGuardSettings& guard) {
  return std::make_unique<AzureAutoscalePolicy>(rules, make_slo_guard_policy(guard),
                                                "slo-guard-autoscale");
}
std::unique_ptr<ScalingPolicy> make_hpa_policy(const HpaSettings& s) {
  return std::make_unique<HpaPolicy>(s);
}

std::unique_ptr<ScalingPolicy> make_serving_policy(const std::string& name,
                                                   const ServingConfig& config) {
  if (name == "static-peak") return std::make_unique<StaticPeakPolicy>();
  if (name == "azure-autoscale") return make_azure_autoscale_policy(default_autoscale_settings());
  if (name == "hpa") return make_hpa_policy(HpaSettings{});
  if (name == "predictive") return std::make_unique<PredictivePolicy>(config.target_utilization);
  if (name == "slo-guard") return make_slo_guard_policy(SloGuardSettings{});
  if (name == "slo-guard-autoscale")
    return make_slo_guard_autoscale_policy(
        slo_guard_autoscale_settings(SloGuardSettings{}, config.startup_s, config.interval_s,
                                     AutoscaleTarget{})
            .rules,
        SloGuardSettings{});
  return nullptr;
}

const std::vector<std::string>& serving_policy_names() {
  static const std::vector<std::string> kNames = {
      "static-peak", "azure-autoscale", "hpa", "predictive", "slo-guard", "slo-guard-autoscale"};
  return kNames;
}

const std::vector<std::string>& serving_on_request_names() {
  static const std::vector<std::string> kNames = {"hindsight"};
  return kNames;
}

}  // namespace gpuplan::simulate
