#include "simulate/spot_trace.h"

#include <cmath>

#include "core/files.h"
#include "core/strings.h"
#include "cost/cost.h"

namespace gpuplan::simulate {

double SpotTrace::availability() const {
  if (available.empty()) return 0;
  int64_t up = 0;
  for (uint8_t v : available) up += v;
  return static_cast<double>(up) / static_cast<double>(available.size());
}

Result<SpotTrace> parse_spot_trace(const std::string& text, const std::string& file) {
  GPUPLAN_TRY(nlohmann::json doc, files::parse_json(text, file));
  SpotTrace t;
  t.file = file;
  if (!doc.is_object() || !doc.contains("metadata") || !doc["metadata"].is_object() ||
      !doc["metadata"].contains("gap_seconds") || !doc["metadata"]["gap_seconds"].is_number()) {
    return invalid_argument("expected {\"metadata\": {\"gap_seconds\": N}, \"data\": [...]}",
                            Where{file, 0, 0, "metadata.gap_seconds"});
  }
  t.gap_seconds = doc["metadata"]["gap_seconds"].get<double>();
  if (!(t.gap_seconds > 0) || !std::isfinite(t.gap_seconds)) {
    return invalid_argument("gap_seconds must be a positive number of seconds",
                            Where{file, 0, 0, "metadata.gap_seconds"});
  }
  if (!doc.contains("data") || !doc["data"].is_array() || doc["data"].empty()) {
    return invalid_argument("expected a non-empty array of per-step values",
                            Where{file, 0, 0, "data"});
  }
  const auto& data = doc["data"];
  t.available.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    const auto& v = data[i];
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() != std::floor(v.get<double>())) {
      return invalid_argument("expected a count >= 0 of instances that could not be had",
                              Where{file, 0, 0, "data[" + std::to_string(i) + "]"});
    }
    t.available.push_back(v.get<double>() == 0 ? 1 : 0);
  }
  return t;
}

Result<SpotTrace> load_spot_trace(const std::string& path) {
  GPUPLAN_TRY(std::string text, files::read_text(path));
  return parse_spot_trace(text, path);
}

SpotModel spot_model_for(const SpotModel& model, bool mean_up_given,
                         const catalog::SpotEviction* band, std::string& basis) {
  if (mean_up_given) {
    basis =
        "scenario file (spot.model.mean_up_hours; two-state Markov model, one trace drawn "
        "per run)";
    return model;
  }
  if (!band) {
    basis =
        "gpuplan default mean up (no Azure eviction band imported for the scenario's size "
        "and region: `gpuplan catalog import spot`, or set spot.model.mean_up_hours)";
    return model;
  }
  const cost::BandRates r = cost::band_rates(band->band);
  SpotModel m = model;
  m.mean_up_hours = 1.0 / r.expected_per_hour;
  basis = "Azure eviction band " + std::string(catalog::to_string(band->band)) + " % per hour" +
          (r.open_ended ? " (taken as 20-25 %)" : "") + " (" + band->source + ", " + band->as_of +
          "): " + strings::fixed(r.expected_per_hour, 4) +
          " evictions per hour at the band's middle, mean up = 1 / rate (docs/cost.md)";
  return m;
}

SpotTrace generate_spot_trace(const SpotModel& model, int64_t steps, Rng& rng) {
  SpotTrace t;
  t.file = "stochastic";
  t.gap_seconds = model.gap_seconds;
  const double step_h = model.gap_seconds / 3600.0;
  // Per-step transition probabilities of the discretized exponential holds.
  const double p_down = 1.0 - std::exp(-step_h / std::max(model.mean_up_hours, 1e-9));
  const double p_up = 1.0 - std::exp(-step_h / std::max(model.mean_down_hours, 1e-9));
  const double stationary_up = model.mean_up_hours / (model.mean_up_hours + model.mean_down_hours);
  bool up = rng.uniform() < stationary_up;
  t.available.reserve(static_cast<size_t>(steps));
  for (int64_t i = 0; i < steps; ++i) {
    t.available.push_back(up ? 1 : 0);
    up = up ? rng.uniform() >= p_down : rng.uniform() < p_up;
  }
  return t;
}

}  // namespace gpuplan::simulate
