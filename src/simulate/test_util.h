// Fixtures shared by the simulator's test files.
#pragma once

#include "simulate/deadline.h"

namespace gpuplan::simulate {

// examples/sim-deadline-spot.yaml's job (48 h of work by 60 h on a V100
// size) at the catalog's pay-as-you-go and spot prices.
inline DeadlineJob example_job() {
  DeadlineJob j;
  j.work_hours = 48;
  j.deadline_hours = 60;
  j.changeover_hours = 0.2;
  j.od_usd_per_hour = 3.06;
  j.spot_usd_per_hour = 0.5655;
  return j;
}

}  // namespace gpuplan::simulate
