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
// Spare VMs a spot serving fleet of `count` VMs needs so that evictions
// leave fewer than `count` serving at most 1 % of the time: evicted VMs are
// replaced after kSpotReplaceHours, so the number down at once is Poisson
// with mean count x rate x kSpotReplaceHours (M/G/inf), and the spares are
// its 99th percentile.
[[nodiscard]] int serving_spares(int count, double evictions_per_vm_hour);
// An evicted VM serves again after the autoscaler's next look (Azure
// autoscale evaluates every 5 minutes at the least, learn.microsoft.com
// "Autoscale best practices") and a GPU VM's start-up (boot, image and
// weights: 5-10 min for GPU scale-out on AKS, Microsoft Q&A 2025): 15 min.
inline constexpr double kSpotReplaceHours = 0.25;

[[nodiscard]] SpotRisk spot_risk(const cost::Usage& usage, const cost::HoursModel& h,
                                 std::optional<double> deadline_hours,
                                 const catalog::SpotEviction* band, bool overridden);

}  // namespace gpuplan::plan::internal
