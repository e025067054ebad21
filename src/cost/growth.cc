// Demand that grows (growth.h): closed forms of continuous compounding.
// d(t) = d0 (1 + g)^(t/168); its mean over [0, H] is
//   (1/H) ∫ (1+g)^(t/168) dt = ((1+g)^(H/168) - 1) / ((H/168) ln(1+g)),
// i.e. (F - 1) / ln F with F = (1+g)^(H/168).
#include "cost/growth.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::cost {

double growth_factor(double growth_per_week, double hours) {
  if (growth_per_week <= 0 || hours <= 0) return 1.0;
  return std::pow(1.0 + growth_per_week, hours / kHoursPerWeek);
}

double mean_growth_factor(double growth_per_week, double hours) {
  const double f = growth_factor(growth_per_week, hours);
  if (f <= 1.0 + 1e-12) return 1.0;
  return (f - 1.0) / std::log(f);
}

double reservation_pays_until_weeks(double term_hours, double break_even_utilization) {
  if (term_hours <= 0 || break_even_utilization >= 1) return 0;
  return term_hours / kHoursPerWeek * (1.0 - std::max(0.0, break_even_utilization));
}

}  // namespace gpuplan::cost
