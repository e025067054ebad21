// The spot risk of one plan option (plan.cc calls it; not API).
#pragma once

#include <optional>

#include "catalog/catalog.h"
#include "cost/cost.h"
#include "plan/plan.h"

namespace gpuplan::plan::internal {

// The risk of a spot option whose usage carries the option's eviction model
// and whose hours `h` come from it. `band` is Azure's band for the size and
// region (nullptr when none was imported); `overridden` when the user gave
// --eviction-rate / --eviction-rate-high. Without a band and without an
// override the level is "unknown" (never "low"): the rate is only gpuplan's
// default. Otherwise the level is "low" / "medium" / "high" by the chance
// to miss the deadline (< 5 %, < 25 %) when there is one and the work
// stretches, else by the expected evictions (< 1, < 10).
// Spare VMs a spot serving fleet that needs `count` VMs serving carries:
// the least k such that, of the count + k VMs (spares are evicted too),
// more than k are down at once at most 1 % of the time. Evicted VMs are
// replaced after kSpotReplaceHours, so the number down is Poisson with mean
// (count + k) x rate x kSpotReplaceHours (M/G/inf). The planner passes the
// high end of the eviction range (the band's upper edge), where the 1 %
// must still hold: a fleet sized at the band's middle is short more often
// exactly when the band is at its worst. At most `count` spares (the fleet
// doubled); `short_probability` is the share of time more than `vms` are
// down, which is over 1 % only at that cap.
struct ServingSpares {
  int vms = 0;
  double short_probability = 0;
};
[[nodiscard]] ServingSpares serving_spares(int count, double evictions_per_vm_hour);
// An evicted VM serves again after the autoscaler's next look (Azure
// autoscale evaluates every 5 minutes at the least, learn.microsoft.com
// "Autoscale best practices") and a GPU VM's start-up (boot, image and
// weights: 5-10 min for GPU scale-out on AKS, Microsoft Q&A 2025): 15 min.
inline constexpr double kSpotReplaceHours = 0.25;
// The share of time a spot service may have fewer VMs than it needs: 1 %,
// the miss budget of the 99th-percentile SLO the workload states by default.
inline constexpr double kSpareShortShare = 0.01;

[[nodiscard]] SpotRisk spot_risk(const cost::Usage& usage, const cost::HoursModel& h,
                                 std::optional<double> deadline_hours,
                                 const catalog::SpotEviction* band, bool overridden);

}  // namespace gpuplan::plan::internal
