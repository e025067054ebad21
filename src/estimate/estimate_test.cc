#include "estimate/estimate.h"

#include <gtest/gtest.h>

#include "estimate/internal/physics.h"

namespace gpuplan::estimate {
namespace {

TEST(Validate, CalibrationFileWithinBounds) {
  auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat.has_value()) << cat.error().to_string();
  auto table = csv::read_file(std::string(GPUPLAN_SOURCE_DIR) + "/tests/data/published_measurements.csv");
  ASSERT_TRUE(table.has_value()) << table.error().to_string();
  auto v = validate(*table, **cat);
  ASSERT_TRUE(v.has_value()) << v.error().to_string();
  for (const auto& r : v->rows) {
    std::printf("%-50s %10.1f %10.1f %+6.1f\n", r.id.c_str(), r.predicted, r.published, r.error_percent);
  }
  for (const auto& s : v->skipped) std::printf("skipped %s: %s\n", s.id.c_str(), s.reason.c_str());
  for (const auto& s : v->summary) {
    std::printf("%s n=%d median %.1f\n", s.metric.c_str(), s.n, s.median_abs_error_percent);
  }
}

}  // namespace
}  // namespace gpuplan::estimate
