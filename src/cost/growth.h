// Demand that grows: the arithmetic both `plan` and `simulate` use for a
// workload whose data or traffic grows a fixed fraction a week
// (workload data.growth_per_week), compounded continuously as the simulator's
// synthetic demand is: d(t) = d0 (1 + g)^(t / 168 h).
#pragma once

namespace gpuplan::cost {

// Hours in a week.
inline constexpr double kHoursPerWeek = 168.0;

// The demand factor (1 + g)^(hours / 168) at `hours` from now.
[[nodiscard]] double growth_factor(double growth_per_week, double hours);

// The mean of the demand factor over [0, hours]: the integral of
// (1 + g)^(t/168) divided by `hours`, = (F - 1) / ln(F) with F the factor at
// `hours`; 1 when g or hours is 0. A fleet that follows the load (autoscaled)
// costs this many times the flat fleet: 2.505 for +50 %/week over 4 weeks.
[[nodiscard]] double mean_growth_factor(double growth_per_week, double hours);

// Reservations for a growing demand. A commitment of N VMs bought now with a
// term of `term_hours` is idle until the demand reaches N VMs (at t_N) and
// busy from then on (the demand only grows), so its utilization is
// (term - t_N) / term; it beats pay-as-you-go when that is at least
// `break_even_utilization` (commitment rate / pay-as-you-go rate, see
// break_even_utilization()). Returns the latest t_N, in weeks, for which it
// still pays: term/168 x (1 - break_even); 0 when it never pays
// (break-even >= 1). Reserve now the VMs the demand will need by then.
[[nodiscard]] double reservation_pays_until_weeks(double term_hours, double break_even_utilization);

}  // namespace gpuplan::cost
