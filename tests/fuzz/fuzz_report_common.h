// Shared by fuzz_focus.cc and fuzz_azure_cost.cc: runs the report reader on
// one input (and on it under `header` when its own header is refused) and
// aborts on any broken invariant.
#pragma once

#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "report/report.h"

namespace gpuplan::fuzz {

inline const catalog::Catalog& report_catalog() {
  static std::unique_ptr<catalog::Catalog> c = [] {
    auto r = catalog::Catalog::load_embedded_at("2026-12-01");
    if (!r) std::abort();
    return std::move(*r);
  }();
  return *c;
}

inline void check_one(const std::string& text) {
  std::istringstream in(text);
  report::Options o;
  auto r = report::read_export(in, "fuzz.csv", report_catalog(), o);
  if (!r) {
    if (r.error().code != ErrorCode::kInvalidArgument) std::abort();
    if (r.error().where.file != "fuzz.csv" || r.error().where.line < 1) std::abort();
    return;
  }
  if (!std::isfinite(r->usd_total) || !std::isfinite(r->usd_gpu_vms)) std::abort();
  for (const report::VmReport& v : r->vms) {
    if (!std::isfinite(v.usd_total) || !std::isfinite(v.hours_billed)) std::abort();
    if (v.days_running < 0 || static_cast<size_t>(v.days_running) > v.daily.size()) std::abort();
    if (v.daily.size() > 3 * 366) std::abort();
  }
  for (const report::Finding& f : r->findings) {
    if (!std::isfinite(f.usd) || f.recommendation.empty()) std::abort();
  }
  (void)report::to_json(*r).dump();
}

inline void check_report(std::string_view text, std::string_view header) {
  std::string own(text);
  check_one(own);
  check_one(std::string(header) + own);
}

}  // namespace gpuplan::fuzz
