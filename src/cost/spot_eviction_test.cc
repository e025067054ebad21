// Tests of the band -> rate conversion (spot_eviction.cc): Azure's band is
// the chance to be evicted within an hour, r = -ln(1 - p).
#include <cmath>

#include <gtest/gtest.h>

#include "cost/cost.h"

namespace gpuplan::cost {
namespace {

using catalog::EvictionBand;

TEST(BandRates, MiddleAndUpperEdgeOfEachBand) {
  struct Row {
    EvictionBand band;
    double expected, high;
  };
  // Table of spot_eviction.cc (4 decimals).
  const Row rows[] = {{EvictionBand::k0To5, 0.0253, 0.0513},
                      {EvictionBand::k5To10, 0.0780, 0.1054},
                      {EvictionBand::k10To15, 0.1335, 0.1625},
                      {EvictionBand::k15To20, 0.1924, 0.2231},
                      {EvictionBand::k20Plus, 0.2549, 0.2877}};
  double last = 0;
  for (const Row& r : rows) {
    BandRates b = band_rates(r.band);
    EXPECT_NEAR(b.expected_per_hour, r.expected, 5e-5) << catalog::to_string(r.band);
    EXPECT_NEAR(b.high_per_hour, r.high, 5e-5) << catalog::to_string(r.band);
    EXPECT_LE(b.low_per_hour, b.expected_per_hour);
    EXPECT_GT(b.expected_per_hour, last);  // higher band, higher rate
    last = b.expected_per_hour;
    EXPECT_EQ(b.open_ended, r.band == EvictionBand::k20Plus);
  }
  EXPECT_DOUBLE_EQ(band_rates(EvictionBand::k0To5).low_per_hour, 0);
}

TEST(BandRates, ARateEvictsWithinAnHourWithTheBandsProbability) {
  // Poisson: P(evicted within 1 h) = 1 - exp(-r) gives back p.
  for (double p : {0.01, 0.1, 0.2, 0.5}) {
    EXPECT_NEAR(1 - std::exp(-rate_from_hourly_probability(p)), p, 1e-12);
  }
  EXPECT_EQ(rate_from_hourly_probability(0), 0);
  EXPECT_TRUE(std::isinf(rate_from_hourly_probability(1)));
}

TEST(BandRates, ApplyBandSetsTheRatesAndSaysWhere) {
  EvictionModel m;
  catalog::SpotEviction e{"Standard_NC24ads_A100_v4", "eastus", EvictionBand::k10To15,
                          "spot: page.json", "2026-11-30"};
  apply_band(m, e);
  EXPECT_NEAR(m.rate_per_hour, -std::log(1 - 0.125), 1e-12);
  EXPECT_NEAR(m.rate_high_per_hour, -std::log(1 - 0.15), 1e-12);
  EXPECT_EQ(m.basis, "Azure band 10-15 % evicted per hour, spot: page.json, 2026-11-30");
  // The rate is what hours_model() stretches the work by.
  Usage u;
  u.count = 1;
  u.work_hours = 10;
  u.setup_hours = 0;
  u.eviction = m;
  HoursModel h = hours_model(u, true);
  const double loss = m.restart_hours + m.checkpoint_interval_hours / 2;
  EXPECT_NEAR(h.wall_hours, 10 / (1 - m.rate_per_hour * loss), 1e-9);
}

}  // namespace
}  // namespace gpuplan::cost
