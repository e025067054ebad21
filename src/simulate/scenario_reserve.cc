// The keys of a reserve scenario: `reservation:` (term, review, look-back
// and projection horizons) and the fleet's demand (an Alibaba pod trace or
// a synthetic fleet of VMs growing week by week). The synthetic fleet must
// stay countable at its peak and within one reservation term (renewals are
// not modelled).
#include <algorithm>
#include <cmath>
#include <string>

#include <yaml-cpp/yaml.h>

#include "core/strings.h"
#include "simulate/internal/scenario_parse.h"
#include "simulate/scenario.h"

namespace gpuplan::simulate::internal {

namespace {

// `reservation:`: the term bought and the horizons of the buying policies.
Status parse_reservation(const Reader& r, const YAML::Node& res, Scenario& s) {
  ReserveSpec& spec = s.reservation();
  GPUPLAN_RETURN_IF_ERROR(
      r.check_map(res, "reservation",
                  {"term", "review_hours", "lookback_hours", "projection_hours", "after_window"}));
  if (res["term"]) {
    GPUPLAN_TRY(std::string term, r.non_empty_string(res["term"], "reservation.term"));
    if (term == "1y")
      spec.term_years = 1;
    else if (term == "3y")
      spec.term_years = 3;
    else
      return r.error(
          res["term"], "reservation.term",
          "expected 1y or 3y, got '" + term + "'" + strings::did_you_mean(term, {"1y", "3y"}));
  }
  if (res["review_hours"]) {
    GPUPLAN_TRY(spec.policy.review_hours,
                r.number(res["review_hours"], "reservation.review_hours", 1, kHoursPerYear));
  }
  if (res["lookback_hours"]) {
    GPUPLAN_TRY(
        spec.policy.lookback_hours,
        r.number(res["lookback_hours"], "reservation.lookback_hours", 24, 3 * kHoursPerYear));
  }
  if (res["after_window"]) {
    GPUPLAN_TRY(std::string after,
                r.non_empty_string(res["after_window"], "reservation.after_window"));
    const std::vector<std::string> names = {"repeat-last-week", "work-ends", "not-charged"};
    if (after == names[0])
      spec.after_window = AfterWindow::kRepeat;
    else if (after == names[1])
      spec.after_window = AfterWindow::kWorkEnds;
    else if (after == names[2])
      spec.after_window = AfterWindow::kNotCharged;
    else
      return r.error(res["after_window"], "reservation.after_window",
                     "expected repeat-last-week, work-ends or not-charged, got '" + after + "'" +
                         strings::did_you_mean(after, names));
  }
  if (res["projection_hours"]) {
    GPUPLAN_TRY(
        spec.policy.projection_hours,
        r.number(res["projection_hours"], "reservation.projection_hours", 24, 3 * kHoursPerYear));
  }
  return {};
}

// demand.synthetic: a fleet of base_vms growing week by week, with a
// diurnal cycle and noise; bounded at its peak and by the term.
Status parse_synthetic_vms(const Reader& r, const YAML::Node& syn, int term_years,
                           SyntheticVms& sv) {
  const std::string f = "demand.synthetic";
  GPUPLAN_RETURN_IF_ERROR(r.check_map(
      syn, f,
      {"base_vms", "weeks", "growth_per_week", "diurnal_amplitude", "diurnal_peak_hour", "noise"}));
  if (!syn["base_vms"]) return r.error(syn, f + ".base_vms", "required");
  GPUPLAN_TRY(sv.base_vms, r.positive(syn["base_vms"], f + ".base_vms", kMaxVms));
  if (syn["weeks"]) {
    GPUPLAN_TRY(sv.weeks, r.number(syn["weeks"], f + ".weeks", 1, 156));
  }
  if (syn["growth_per_week"]) {
    GPUPLAN_TRY(sv.growth_per_week,
                r.number(syn["growth_per_week"], f + ".growth_per_week", -0.99, 10));
  }
  if (syn["diurnal_amplitude"]) {
    GPUPLAN_TRY(sv.diurnal_amplitude,
                r.number(syn["diurnal_amplitude"], f + ".diurnal_amplitude", 0, 1));
  }
  if (syn["diurnal_peak_hour"]) {
    GPUPLAN_TRY(sv.diurnal_peak_hour,
                r.number(syn["diurnal_peak_hour"], f + ".diurnal_peak_hour", 0, 24));
  }
  if (syn["noise"]) {
    GPUPLAN_TRY(sv.noise, r.number(syn["noise"], f + ".noise", 0, 10));
  }
  // The fleet at the end of the growth (noise drawn up to 3 sigma) must stay
  // countable: 1e300 VMs would overflow every counter downstream.
  const double peak = sv.base_vms * std::pow(1 + std::max(0.0, sv.growth_per_week), sv.weeks) *
                      (1 + sv.diurnal_amplitude) * (1 + 3 * sv.noise);
  if (!(peak <= kMaxVms))
    return r.error(syn["growth_per_week"] ? syn["growth_per_week"] : syn, f + ".growth_per_week",
                   "the fleet would grow to " + strings::fixed(std::min(peak, 1e30), 0) +
                       " VMs; at most " + strings::fixed(kMaxVms, 0));
  if (sv.weeks * 168 > term_years * kHoursPerYear)
    return r.error(syn["weeks"] ? syn["weeks"] : syn, f + ".weeks",
                   "longer than the reservation term: renewals are not modelled");
  return {};
}

}  // namespace

Status parse_reserve(const Reader& r, const YAML::Node& root, Scenario& s) {
  ReserveSpec& spec = s.reservation();
  if (const YAML::Node res = root["reservation"]) {
    GPUPLAN_RETURN_IF_ERROR(parse_reservation(r, res, s));
  }
  const YAML::Node d = root["demand"];
  if (!d)
    return r.error(root, "demand", "a reserve scenario needs demand: {alibaba_pods | synthetic}");
  GPUPLAN_RETURN_IF_ERROR(r.check_map(
      d, "demand",
      {"alibaba_pods", "synthetic", "gpus_per_vm", "time_scale", "scale_down_minutes"}));
  int sources = 0;
  if (d["alibaba_pods"]) {
    ++sources;
    spec.demand.format = "alibaba-pods";
    GPUPLAN_TRY(std::string p, r.non_empty_string(d["alibaba_pods"], "demand.alibaba_pods"));
    spec.demand.trace = resolve(s.dir, p);
  }
  if (d["gpus_per_vm"]) {
    // Azure's smallest GPU share is an eighth (NV4as_v4, 1/8 of an MI25);
    // 1e-300 overflowed the VM counts into negative GPU-hours.
    GPUPLAN_TRY(double v, r.number(d["gpus_per_vm"], "demand.gpus_per_vm", 0.125, 64));
    spec.gpus_per_vm = v;
  }
  if (d["scale_down_minutes"]) {
    GPUPLAN_TRY(spec.scale_down_minutes,
                r.number(d["scale_down_minutes"], "demand.scale_down_minutes", 0, 1440));
  }
  if (d["time_scale"]) {
    GPUPLAN_TRY(spec.demand.time_scale,
                r.number(d["time_scale"], "demand.time_scale", kMinTimeScale, kMaxTimeScale));
  }
  if (const YAML::Node syn = d["synthetic"]) {
    ++sources;
    spec.demand.format = "synthetic-vms";
    GPUPLAN_RETURN_IF_ERROR(parse_synthetic_vms(r, syn, spec.term_years, spec.synthetic_vms));
  }
  if (sources != 1) return r.error(d, "demand", "expected exactly one of alibaba_pods, synthetic");
  return {};
}

}  // namespace gpuplan::simulate::internal
