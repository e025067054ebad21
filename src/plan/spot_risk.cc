// Spot risk of a plan option: Azure's eviction band for the size and region
// when imported, gpuplan's default range (and the level "unknown") otherwise.
//
// The rates come from cost::band_rates() (spot_eviction.cc derives them from
// Azure's definition of a band); this file only names the risk. Levels: a
// job with a deadline is judged by its chance to miss it (Poisson evictions
// at the job's rate, cost::deadline_miss_probability); a job without one,
// and a service, by the evictions it should expect. Thresholds: under 5 %
// / 25 % to miss, under 1 / 10 evictions. They are the planner's
// presentation of numbers that are printed beside them, not inputs to any
// cost.
#include "plan/internal/spot_risk.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::plan::internal {

ServingSpares serving_spares(int count, double evictions_per_vm_hour) {
  const double per_vm = std::max(0.0, evictions_per_vm_hour * kSpotReplaceHours);
  // P(X > k) for Poisson(mean): 1 - the CDF, summed term by term.
  const auto over = [](double mean, int k) {
    double term = std::exp(-mean), cdf = term;
    for (int i = 1; i <= k; ++i) {
      term *= mean / i;
      cdf += term;
    }
    return std::max(0.0, 1 - cdf);
  };
  ServingSpares s;
  s.short_probability = over(count * per_vm, 0);
  while (s.short_probability > kSpareShortShare && s.vms < count) {
    ++s.vms;
    s.short_probability = over((count + s.vms) * per_vm, s.vms);
  }
  return s;
}

SpotRisk spot_risk(const cost::Usage& usage, const cost::HoursModel& h,
                   std::optional<double> deadline_hours, const catalog::SpotEviction* band,
                   bool overridden) {
  SpotRisk risk;
  risk.eviction_rate_per_hour = usage.eviction.rate_per_hour;
  risk.eviction_rate_high_per_hour = usage.eviction.rate_high_per_hour;
  risk.job_eviction_rate_per_hour = h.job_eviction_rate;
  risk.expected_evictions = h.expected_evictions;
  risk.deadline_miss_probability =
      deadline_hours ? cost::deadline_miss_probability(usage, h, *deadline_hours) : 0.0;
  risk.rate_basis = overridden ? "override" : band ? "azure-band" : "default";
  if (band) {
    risk.band = std::string(catalog::to_string(band->band));
    risk.band_source = band->source;
    risk.band_as_of = band->as_of;
  }
  if (!band && !overridden) {
    risk.level = "unknown";
    return risk;
  }
  const double p = risk.deadline_miss_probability;
  if (deadline_hours && usage.eviction.stretches_hours) {
    risk.level = p < 0.05 ? "low" : p < 0.25 ? "medium" : "high";
  } else {
    const double n = h.expected_evictions;
    risk.level = n < 1 ? "low" : n < 10 ? "medium" : "high";
  }
  return risk;
}

}  // namespace gpuplan::plan::internal
