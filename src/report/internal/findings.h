// Internal to gpuplan::report: the rules that turn totals into findings.
#pragma once

#include <vector>

#include "catalog/catalog.h"
#include "report/report.h"

namespace gpuplan::report::internal {

// Fills report.findings (sorted by money at stake, descending), the
// commitments' utilization and basis, and report.assumptions.
// `period_days` is the export's span, first to last day.
void judge(Report& report, const catalog::Catalog& catalog, const Options& options,
           int period_days);

// The median of `v` (reordered); 0 when empty.
[[nodiscard]] double median(std::vector<double> v);

}  // namespace gpuplan::report::internal
