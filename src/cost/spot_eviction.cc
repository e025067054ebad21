// Spot eviction rates from Azure's eviction-rate bands.
//
// Problem: the cost of a spot option depends on how often its VMs are
// evicted (hours_model() stretches the work by restart + lost progress per
// eviction), and Azure publishes that only as a band per size and region:
// "0-5", "5-10", "10-15", "15-20" or "20+" percent (Resource Graph
// SpotResources, properties.evictionRate). The model needs a rate per
// VM-hour.
//
// What a band means, in Azure's words: "Eviction rates are quoted _per
// hour_. For example, an eviction rate of 10% means a VM has a 10% chance of
// being evicted within the next hour, based on historical eviction data of
// the last 7 days." (MicrosoftDocs/azure-compute-docs
// articles/virtual-machines/spot-vms.md, "Pricing and eviction history",
// ms.date 08/05/2024, commit 3bbed19b98e0). The same page says Resource
// Graph holds "eviction rates for the last 28 trailing days"; the band is
// a rate over a trailing window either way, which is what the cost model's
// constant-rate Poisson process assumes.
//
// Conversion: a Poisson process of rate r per hour evicts a VM within one
// hour with probability p = 1 - exp(-r), so r = -ln(1 - p). For a band
// [a %, b %]: expected rate at the middle, p = (a + b) / 2; high rate at
// the upper edge, p = b; low rate at the lower edge, p = a (hours_model()'s
// low end is still "no eviction", the best case of any band).
//   band    p middle  expected r/h   p upper  high r/h
//   0-5      2.5 %     0.0253          5 %     0.0513
//   5-10     7.5 %     0.0780         10 %     0.1054
//   10-15   12.5 %     0.1335         15 %     0.1625
//   15-20   17.5 %     0.1924         20 %     0.2231
//   20+     22.5 %     0.2549         25 %     0.2877  (assumed edge)
// "20+" has no upper edge in Azure's data. gpuplan takes it as 20-25 %, the
// width of the other four bands (kOpenBandAssumedWidthPercent), and says so
// in the cost line; a user who knows better passes --eviction-rate and
// --eviction-rate-high.
//
// Trade-offs: the middle of a band is a point estimate of a range Azure
// does not resolve further; the high end of the cost range uses the upper
// edge, so the range covers the band. Using p directly as a rate would
// differ by under 3 % within 0-15 % and 13 % at 25 %.
#include <cmath>

#include "core/strings.h"
#include "cost/cost.h"

namespace gpuplan::cost {

namespace {

// Azure gives "20+" no upper edge; the other bands are 5 points wide
// (MicrosoftDocs/architecture-center docs/guide/spot/spot-eviction-content.md:
// "0-5%, 5-10%, 10-15%, 15-20%, 20+%"). An assumption, printed with the band.
constexpr double kOpenBandAssumedWidthPercent = 5;

}  // namespace

double rate_from_hourly_probability(double p) {
  if (p <= 0) return 0;
  if (p >= 1) return INFINITY;
  return -std::log1p(-p);
}

BandRates band_rates(catalog::EvictionBand band) {
  const double low = catalog::band_low_percent(band);
  const std::optional<double> edge = catalog::band_high_percent(band);
  const double high = edge ? *edge : low + kOpenBandAssumedWidthPercent;
  BandRates r;
  r.open_ended = !edge;
  r.low_per_hour = rate_from_hourly_probability(low / 100);
  r.expected_per_hour = rate_from_hourly_probability((low + high) / 200);
  r.high_per_hour = rate_from_hourly_probability(high / 100);
  return r;
}

void apply_band(EvictionModel& model, const catalog::SpotEviction& e) {
  const BandRates r = band_rates(e.band);
  model.rate_per_hour = r.expected_per_hour;
  model.rate_high_per_hour = r.high_per_hour;
  model.basis = "Azure band " + std::string(catalog::to_string(e.band)) + " % evicted per hour" +
                (r.open_ended ? " (taken as 20-25 %)" : "") + ", " + e.source + ", " + e.as_of;
}

}  // namespace gpuplan::cost
