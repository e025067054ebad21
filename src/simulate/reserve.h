// Growing work and reservations: when does buying a reservation pay? A fleet
// of one VM size whose size moves over weeks (hourly VMs in use) is billed
// pay-as-you-go except for the VMs covered by reservations; a policy decides,
// at the end of every hour, how many reservations to buy. This header has the
// demand series, one run, the hindsight optimum and the reservation policies
// (reserve.cc has the essay).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/units.h"
#include "simulate/demand.h"
#include "simulate/policy.h"

namespace gpuplan::simulate {

// What the work does after the simulated window, which decides what a
// reservation held at its end loses over the rest of its term
// (reservation.after_window).
enum class AfterWindow {
  kRepeat,      // "repeat-last-week": the window's last repeat_hours repeat
  kWorkEnds,    // "work-ends": nothing uses a reservation after the window
  kNotCharged,  // "not-charged": the plain window view, nothing charged
};

// Prices of one VM of the size, per hour.
struct ReservePrices {
  double payg_usd_per_hour = 0;
  double reserved_usd_per_hour = 0;   // the term's price spread over its hours
  double term_hours = kHoursPerYear;  // 1 year, or 3 x kHoursPerYear
  // How the work goes on after the window. kRepeat: its last repeat_hours
  // hours repeat for the rest of every reservation's term; the j-th
  // reservation is then used u_j of an hour on average over them
  // (clamp(VM-hours − j + 1, 0, 1) each), and each of its hours after the
  // window loses
  // max(0, reserved − payg × u_j) against pay-as-you-go; that loss is
  // charged. kWorkEnds: u_j = 0. kNotCharged: nothing is.
  AfterWindow after_window = AfterWindow::kRepeat;
  double repeat_hours = 168;  // a week: the daily and the weekly cycle
};

// VMs in use in each hour of the simulated window (hour h covers
// [h, h+1) hours from the start).
struct VmDemand {
  std::vector<int32_t> vms;  // the most VMs running at once in the hour
  // VM-hours billed in each hour (per second: 40 VMs for 15 minutes are 10);
  // empty: vms[h] all hour.
  std::vector<double> usage;
  std::vector<DropNote> drops;  // what the reader dropped
  std::string describe;         // where the demand came from

  // VM-hours of hour h (Azure's hourly usage quantity).
  [[nodiscard]] double vm_hours(size_t h) const { return usage.empty() ? vms[h] : usage[h]; }
  // What k reservations leave to pay-as-you-go in hour h. A reservation is
  // one VM-hour per clock hour, filled from any matching VMs, concurrent or
  // not (learn.microsoft.com, "How the Azure reservation discount is applied
  // to virtual machines": 0.75 h and 0.5 h of two VMs in one hour use one
  // reservation's hour and 0.25 h of pay-as-you-go).
  [[nodiscard]] double vm_hours_above(size_t h, int k = 0) const {
    return std::max(0.0, vm_hours(h) - std::max(k, 0));
  }
  // The share of the j-th reservation's hour h that is used.
  [[nodiscard]] double level_share(size_t h, int level) const {
    return std::clamp(vm_hours(h) - (level - 1), 0.0, 1.0);
  }
  // Levels ever used: ceil of the most VM-hours of an hour.
  [[nodiscard]] int32_t top() const;
};

// What the j-th reservation (level j, 1-based) loses per hour after the
// window against pay-as-you-go: max(0, reserved − payg × u_j), u_j its mean
// use over the window's last repeat_hours hours (0 above
// their peak, and for every level when the work ends: the whole reserved
// price); 0 for every level when nothing after the window is charged.
class AfterWindowLoss {
 public:
  AfterWindowLoss(const VmDemand& demand, const ReservePrices& prices);
  [[nodiscard]] double per_hour(int level) const {
    if (!on_ || level <= 0) return 0;
    const double u =
        static_cast<size_t>(level) <= use_.size() ? use_[static_cast<size_t>(level) - 1] : 0;
    return std::max(0.0, reserved_ - payg_ * u);
  }

 private:
  bool on_ = false;
  double payg_ = 0, reserved_ = 0;
  std::vector<double> use_;  // use_[j - 1]: u_j
};

// Synthetic growing work: VMs in hour h = round(base × (1 + growth)^(h/168)
// × (1 + A cos(2π (h mod 24 − peak) / 24)) × noise), noise lognormal with
// mean 1 and the given relative standard deviation (0: none), never below 0.
struct SyntheticVms {
  double base_vms = 4;
  double weeks = 26;
  double growth_per_week = 0;  // 0.1 = +10 % a week, compounded
  double diurnal_amplitude = 0;
  double diurnal_peak_hour = 14;
  double noise = 0;
};
[[nodiscard]] VmDemand synthetic_vms(const SyntheticVms& spec, uint64_t seed);

// VMs the jobs need: each job holds its GPUs from arrival for its duration
// (times divided by `time_scale`); at each instant the fleet runs
// ceil(concurrent GPUs / gpus_per_vm) VMs (GPUs shared between jobs, as the
// trace's fractional gpu_milli implies), and a VM no longer needed stops
// `scale_down_s` later (a cluster autoscaler's delay). vms[h] is the hour's
// peak and usage[h] its VM-hours: a VM is billed per second, so five minutes
// of 40 VMs in an hour are 40 × 5/60 VM-hours, not 40. kInvalidArgument
// when gpus_per_vm is not positive, there are no jobs, or an hour needs more
// than the cap.
[[nodiscard]] Result<VmDemand> vms_from_jobs(const PodJobs& jobs, double gpus_per_vm,
                                             double time_scale, double scale_down_s = 0);

struct ReserveStep {  // one timeline point
  double t_hours = 0;
  double demand_vms = 0;  // VM-hours of the hour
  int reserved = 0;
  double cost_usd = 0;  // cumulative
};

struct ReserveRun {
  double cost_usd = 0;  // payg + reserved within the window (amortized) + loss_after_usd
  double payg_usd = 0;
  double reserved_usd = 0;  // reservation hours inside the window
  double payg_vm_hours = 0;
  double reserved_vm_hours = 0;  // reservation hours inside the window (used or not)
  double unused_reserved_vm_hours = 0;
  double committed_after_usd = 0;  // reservation hours after the window, still owed
  // What those hours lose against pay-as-you-go (AfterWindowLoss): part of
  // cost_usd, since a reservation is paid for its whole term and cannot be
  // returned.
  double loss_after_usd = 0;
  int purchases = 0;  // hours in which reservations were bought
  int reserved_final = 0;
  std::vector<ReserveStep> timeline;  // filled when asked, every `timeline_hours`
};

// Simulates the policy over `demand`. At the end of hour h the policy sees
// the VMs in use in hour h and the reservations held and may buy; what it
// buys covers hours h+1 onwards until the term ends. Each hour costs
// payg × max(0, in use − reserved) + reserved price × reserved; the k-th
// reservation held also costs what its hours after the window lose
// (AfterWindowLoss; loss_after_usd). Appends a
// line per purchase to `log` when non-null. Deterministic.
[[nodiscard]] ReserveRun run_reserve(const VmDemand& demand, const ReservePrices& prices,
                                     ScalingPolicy& policy, std::string* log = nullptr,
                                     double timeline_hours = 0);

// The hindsight optimum: the least cost of any purchase schedule that buys at
// the same instants (end of an hour, covering the hours after it), knowing the
// whole demand, under the same cost (the loss after the window included).
// Exact (a dynamic programme over levels; reserve.cc proves it).
// Requires the window to be no longer than the term.
// The result has the cost, its payg / reserved split, what is owed after the
// window and the number of distinct purchase instants (no timeline).
[[nodiscard]] ReserveRun reserve_optimal(const VmDemand& demand, const ReservePrices& prices);

struct ReservePolicySettings {
  double review_hours = 168;      // advisor / forecast: how often they look
  double lookback_hours = 720;    // history they look at (Azure's Last30Days)
  double projection_hours = 720;  // forecast-reserve: how far ahead it projects
};

// The reservation policies by report name: "payg-only", "reserve-upfront",
// "advisor", "forecast-reserve". nullptr for another name.
[[nodiscard]] std::unique_ptr<ScalingPolicy> make_reserve_policy(
    const std::string& name, const ReservePolicySettings& settings);
// The names above, in report order.
[[nodiscard]] const std::vector<std::string>& reserve_policy_names();

}  // namespace gpuplan::simulate
