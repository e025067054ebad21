// Spot availability: real traces (skypilot-org/spot-traces, the data of
// "Can't Be Late", NSDI'24) and a stochastic eviction model.
//
// Trace format: {"metadata": {"gap_seconds": N}, "data": [v0, v1, ...]}. A
// value is the number of requested instances that could NOT be had at that
// step, so spot is available exactly when the value is 0 (the authors'
// simulator reads it so; see data/traces/SOURCES.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/result.h"
#include "simulate/rng.h"

namespace gpuplan::simulate {

struct SpotTrace {
  std::string file;                // as given (for reports)
  double gap_seconds = 0;          // step length
  std::vector<uint8_t> available;  // 1 = a spot VM can be had during the step

  [[nodiscard]] double availability() const;  // share of steps available
  // Availability at step i, wrapping around the end (runs near the end of a
  // trace continue at its start).
  [[nodiscard]] bool at(int64_t i) const {
    const int64_t n = static_cast<int64_t>(available.size());
    return available[static_cast<size_t>(((i % n) + n) % n)] != 0;
  }
};

// Reads a trace file. kNotFound when unreadable; kInvalidArgument (file,
// line:column or field) on bad JSON, a missing or non-positive gap_seconds,
// an empty data array or a negative / non-integer value.
[[nodiscard]] Result<SpotTrace> load_spot_trace(const std::string& path);
// Same, from text already in memory.
[[nodiscard]] Result<SpotTrace> parse_spot_trace(const std::string& text, const std::string& file);

// A two-state Markov (Gilbert) model of spot availability: spot stays
// available for an exponentially distributed time of mean `mean_up_hours`
// (the eviction rate is its inverse) and stays unavailable for a mean of
// `mean_down_hours`. Discretized at `gap_seconds`.
struct SpotModel {
  double mean_up_hours = 10;
  double mean_down_hours = 2;
  double gap_seconds = 600;
};
// The model a scenario runs: `model` as the scenario gives it, except that
// when the file does not set mean_up_hours and Azure's eviction band for the
// scenario's size and region was imported (`band`), the mean time to an
// eviction is 1 / the band's expected rate per hour (cost::band_rates:
// Azure quotes a band as the chance to be evicted within the next hour).
// `basis` is set to where mean_up_hours came from, for the report.
[[nodiscard]] SpotModel spot_model_for(const SpotModel& model, bool mean_up_given,
                                       const catalog::SpotEviction* band, std::string& basis);

// A synthetic trace of `steps` steps drawn from the model with `rng`.
[[nodiscard]] SpotTrace generate_spot_trace(const SpotModel& model, int64_t steps, Rng& rng);

}  // namespace gpuplan::simulate
