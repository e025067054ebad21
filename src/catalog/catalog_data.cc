// Parsers for the embedded catalog files in data/catalog/ (gpus.csv,
// sizes.csv, offers.csv, pricing_rules.csv). The files are produced by
// scripts/clean_catalog.py; their columns are documented in
// data/catalog/SOURCES.md. Every cell is checked: a wrong type, a negative
// or non-finite number or an unknown enum spelling is an error naming the
// file, line and column, never a silent default.
#include "catalog/internal/catalog_data.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/csv.h"
#include "core/strings.h"

namespace gpuplan::catalog::internal {
namespace {

Result<bool> boolean(const csv::RowReader& r, std::string_view col) {
  GPUPLAN_TRY(std::string s, r.str(col));
  if (s == "true") return true;
  if (s == "false") return false;
  return invalid_argument("expected true or false, got '" + s + "'", r.where(col));
}

Result<double> non_negative(const csv::RowReader& r, std::string_view col) {
  GPUPLAN_TRY(double v, r.number(col));
  if (v < 0) return invalid_argument("must not be negative", r.where(col));
  return v;
}

Result<std::string> non_empty(const csv::RowReader& r, std::string_view col) {
  GPUPLAN_TRY(std::string s, r.str(col));
  if (strings::trim(s).empty()) return invalid_argument("must not be empty", r.where(col));
  return s;
}

// An optional date column: "" or YYYY-MM-DD.
Result<std::string> date_or_empty(const csv::RowReader& r, std::string_view col) {
  GPUPLAN_TRY(std::string s, r.str(col));
  if (!s.empty() && !is_date(s)) {
    return invalid_argument("expected a date YYYY-MM-DD or nothing, got '" + s + "'", r.where(col));
  }
  return s;
}

Result<DriverKind> parse_driver(const csv::RowReader& r, std::string_view col) {
  GPUPLAN_TRY(std::string s, r.str(col));
  if (s == "cuda") return DriverKind::kCuda;
  if (s == "grid") return DriverKind::kGrid;
  if (s == "amd") return DriverKind::kAmd;
  return invalid_argument("unknown driver kind '" + s + "' (expected cuda, grid, amd)",
                          r.where(col));
}

// A share in (0, 1] from an optional column (a file written before the
// column existed has none); 0 when the column or the cell is empty.
Result<double> optional_share(const csv::Table& t, const csv::RowReader& r, std::string_view col) {
  if (!t.column(col)) return 0.0;
  GPUPLAN_TRY(const std::optional<double> e, r.optional_number(col));
  if (e && (*e <= 0 || *e > 1))
    return invalid_argument("must be a share in (0, 1] or empty", r.where(col));
  return e.value_or(0);
}

}  // namespace

Result<std::vector<Gpu>> parse_gpus(std::string_view text, const std::string& file) {
  GPUPLAN_TRY(csv::Table t, csv::parse(text, file));
  std::vector<Gpu> out;
  out.reserve(t.rows.size());
  for (const csv::Row& row : t.rows) {
    csv::RowReader r(t, row);
    Gpu g;
    GPUPLAN_TRY(g.model, non_empty(r, "model"));
    GPUPLAN_TRY(g.vendor, non_empty(r, "vendor"));
    GPUPLAN_TRY(g.architecture, r.str("architecture"));
    GPUPLAN_TRY(g.compute_capability, r.str("compute_capability"));
    GPUPLAN_TRY(g.fp32_tflops, non_negative(r, "fp32_tflops"));
    GPUPLAN_TRY(g.tf32_tflops, non_negative(r, "tf32_tflops"));
    GPUPLAN_TRY(g.fp16_tflops, non_negative(r, "fp16_tflops"));
    GPUPLAN_TRY(g.bf16_tflops, non_negative(r, "bf16_tflops"));
    GPUPLAN_TRY(g.fp8_tflops, non_negative(r, "fp8_tflops"));
    GPUPLAN_TRY(g.int8_tops, non_negative(r, "int8_tops"));
    GPUPLAN_TRY(g.memory_gib, non_negative(r, "memory_gib"));
    GPUPLAN_TRY(g.memory_bw_gbs, non_negative(r, "memory_bw_gbs"));
    GPUPLAN_TRY(g.interconnect_gbs, non_negative(r, "interconnect_gbs"));
    GPUPLAN_TRY(g.tdp_w, non_negative(r, "tdp_w"));
    GPUPLAN_TRY(g.matmul_efficiency, optional_share(t, r, "matmul_efficiency"));
    GPUPLAN_TRY(g.fp8_matmul_efficiency, optional_share(t, r, "fp8_matmul_efficiency"));
    GPUPLAN_TRY(g.verified, boolean(r, "verified"));
    GPUPLAN_TRY(g.notes, r.str("notes"));
    GPUPLAN_TRY(g.source, r.str("source"));
    out.push_back(std::move(g));
  }
  return out;
}

Result<std::vector<VmSize>> parse_sizes(std::string_view text, const std::string& file) {
  GPUPLAN_TRY(csv::Table t, csv::parse(text, file));
  std::vector<VmSize> out;
  out.reserve(t.rows.size());
  for (const csv::Row& row : t.rows) {
    csv::RowReader r(t, row);
    VmSize s;
    GPUPLAN_TRY(s.name, non_empty(r, "name"));
    GPUPLAN_TRY(s.series, non_empty(r, "series"));
    GPUPLAN_TRY(s.family_letter, non_empty(r, "family_letter"));
    GPUPLAN_TRY(s.retire_date, date_or_empty(r, "retire_date"));
    GPUPLAN_TRY(s.reservations_end, date_or_empty(r, "reservations_end"));
    GPUPLAN_TRY(s.preview, boolean(r, "preview"));
    GPUPLAN_TRY(s.ga_date, date_or_empty(r, "ga_date"));
    GPUPLAN_TRY(s.status_source, r.str("status_source"));
    if ((!s.retire_date.empty() || !s.reservations_end.empty() || s.preview) &&
        strings::trim(s.status_source).empty()) {
      return invalid_argument("a dated status fact needs its source", r.where("status_source"));
    }
    GPUPLAN_TRY(long long vcpus, r.integer("vcpus"));
    if (vcpus <= 0) return invalid_argument("must be positive", r.where("vcpus"));
    s.vcpus = static_cast<int>(vcpus);
    GPUPLAN_TRY(s.memory_gib, non_negative(r, "memory_gib"));
    GPUPLAN_TRY(s.gpu_model, non_empty(r, "gpu_model"));
    GPUPLAN_TRY(s.gpu_count, non_negative(r, "gpu_count"));
    if (s.gpu_count <= 0) return invalid_argument("must be positive", r.where("gpu_count"));
    // A vGPU slice is 1/k of a GPU (NVadsA10 v5: 1/6, 1/3, 1/2; NVv4: 1/8
    // ...), written to 4 places (0.1667): read as the exact fraction, or
    // $/GPU-h of two slices priced alike differed in the 4th digit and the
    // sort ordered them by that rounding.
    if (s.gpu_count < 1) {
      const double k = std::round(1 / s.gpu_count);
      if (k > 1 && std::abs(1 / k - s.gpu_count) <= 5e-5) s.gpu_count = 1 / k;
    }
    GPUPLAN_TRY(s.gpu_memory_gib, non_negative(r, "gpu_memory_gib"));
    GPUPLAN_TRY(s.nvlink, boolean(r, "nvlink"));
    GPUPLAN_TRY(s.infiniband_gbps, non_negative(r, "infiniband_gbps"));
    GPUPLAN_TRY(s.temp_disk_gib, non_negative(r, "temp_disk_gib"));
    GPUPLAN_TRY(s.quota_family, r.str("quota_family"));
    GPUPLAN_TRY(s.quota_family_display, r.str("quota_family_display"));
    GPUPLAN_TRY(s.driver, parse_driver(r, "driver"));
    GPUPLAN_TRY(s.encryption_at_host, boolean(r, "encryption_at_host"));
    GPUPLAN_TRY(s.source, r.str("source"));
    GPUPLAN_TRY(s.notes, r.str("notes"));
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<Offer>> parse_offers(std::string_view text, const std::string& file) {
  GPUPLAN_TRY(csv::Table t, csv::parse(text, file));
  std::vector<Offer> out;
  out.reserve(t.rows.size() * 4);
  for (const csv::Row& row : t.rows) {
    csv::RowReader r(t, row);
    Offer o;
    GPUPLAN_TRY(o.size, non_empty(r, "size"));
    GPUPLAN_TRY(o.region, non_empty(r, "region"));
    GPUPLAN_TRY(std::string os, r.str("os"));
    auto parsed_os = parse_os(os);
    if (!parsed_os) return invalid_argument(parsed_os.error().message, r.where("os"));
    o.os = *parsed_os;
    GPUPLAN_TRY(std::string pricing, r.str("pricing"));
    auto parsed_pricing = parse_pricing(pricing);
    if (!parsed_pricing) {
      return invalid_argument(parsed_pricing.error().message, r.where("pricing"));
    }
    o.pricing = *parsed_pricing;
    GPUPLAN_TRY(o.usd_per_hour, r.optional_number("usd_per_hour"));
    if (o.usd_per_hour && *o.usd_per_hour < 0) {
      return invalid_argument("must not be negative", r.where("usd_per_hour"));
    }
    GPUPLAN_TRY(o.source, non_empty(r, "source"));
    GPUPLAN_TRY(o.as_of, non_empty(r, "as_of"));
    if (!is_date(o.as_of)) return invalid_argument("expected a date YYYY-MM-DD", r.where("as_of"));
    o.retrieved = o.as_of;  // the embedded prices are one snapshot, dated as_of
    GPUPLAN_TRY(std::string notes, r.str("notes"));
    if (!notes.empty()) o.source += "; " + notes;
    out.push_back(std::move(o));
  }
  return out;
}

Result<std::vector<PricingRule>> parse_pricing_rules(std::string_view text,
                                                     const std::string& file) {
  GPUPLAN_TRY(csv::Table t, csv::parse(text, file));
  std::vector<PricingRule> out;
  for (const csv::Row& row : t.rows) {
    csv::RowReader r(t, row);
    PricingRule p;
    GPUPLAN_TRY(p.rule, non_empty(r, "rule"));
    if (p.rule != "windows_surcharge" && p.rule != "discount" && p.rule != "not_offered" &&
        p.rule != "no_windows") {
      return invalid_argument("unknown rule '" + p.rule +
                                  "' (expected windows_surcharge, discount, not_offered, "
                                  "no_windows)",
                              r.where("rule"));
    }
    GPUPLAN_TRY(p.applies_to, non_empty(r, "applies_to"));
    GPUPLAN_TRY(std::string pricing, r.str("pricing"));
    auto parsed = parse_pricing(pricing);
    if (!parsed) return invalid_argument(parsed.error().message, r.where("pricing"));
    p.pricing = *parsed;
    GPUPLAN_TRY(p.value, non_negative(r, "value"));
    if (p.rule == "discount" && p.value >= 1) {
      return invalid_argument("a discount is a fraction below 1", r.where("value"));
    }
    if ((p.rule == "discount" || p.rule == "not_offered") && commitment_hours(p.pricing) == 0) {
      return invalid_argument("a " + p.rule + " rule applies to reserved-* or savings-* only",
                              r.where("pricing"));
    }
    if (p.rule == "not_offered" && (p.applies_to == "*" || p.applies_to.rfind("series:", 0) == 0))
      return invalid_argument("a not_offered rule names one size", r.where("applies_to"));
    if ((p.rule == "windows_surcharge" || p.rule == "no_windows") && p.pricing != Pricing::kPayg &&
        p.pricing != Pricing::kSpot) {
      return invalid_argument("a " + p.rule + " rule applies to payg or spot", r.where("pricing"));
    }
    if (p.rule == "no_windows" && p.applies_to == "*")
      return invalid_argument("a no_windows rule names a size or a series:", r.where("applies_to"));
    GPUPLAN_TRY(p.source, non_empty(r, "source"));
    GPUPLAN_TRY(p.confidence, r.str("confidence"));
    GPUPLAN_TRY(p.notes, r.str("notes"));
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<RegionInfo>> parse_regions(std::string_view text, const std::string& file) {
  GPUPLAN_TRY(csv::Table t, csv::parse(text, file));
  std::vector<RegionInfo> out;
  for (const csv::Row& row : t.rows) {
    csv::RowReader r(t, row);
    RegionInfo info;
    GPUPLAN_TRY(info.region, non_empty(r, "region"));
    info.region = strings::to_lower(info.region);
    GPUPLAN_TRY(std::string access, r.str("access"));
    if (access == "open") {
      info.access = RegionAccess::kOpen;
    } else if (access == "restricted") {
      info.access = RegionAccess::kRestricted;
    } else {
      return invalid_argument("unknown access '" + access + "' (expected open or restricted)",
                              r.where("access"));
    }
    GPUPLAN_TRY(info.source, non_empty(r, "source"));
    out.push_back(std::move(info));
  }
  return out;
}

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  const int y = std::stoi(std::string(s.substr(0, 4)));
  const int m = std::stoi(std::string(s.substr(5, 2)));
  const int d = std::stoi(std::string(s.substr(8, 2)));
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return !(m == 2 && d == 29 && !leap);
}

void apply_status(std::vector<VmSize>& sizes, std::string_view today) {
  for (VmSize& s : sizes) {
    // Dates compare as strings; a fact dated today has taken effect.
    const bool retired = !s.retire_date.empty() && today >= s.retire_date;
    const bool in_preview = s.preview && (s.ga_date.empty() || today < s.ga_date);
    if (retired) {
      s.status = SizeStatus::kRetired;
    } else if (!s.retire_date.empty()) {
      s.status = SizeStatus::kRetiring;
    } else if (in_preview) {
      s.status = SizeStatus::kPreview;
    } else {
      s.status = SizeStatus::kCurrent;
    }
    s.status_date = s.retire_date;
    // Reservations are not sold for preview sizes (facts.md, "Reserved VM
    // Instances"), nor for retired ones, nor after the announced end of sales.
    const bool sales_ended = !s.reservations_end.empty() && today >= s.reservations_end;
    s.reservable = !retired && !in_preview && !sales_ended;
  }
}

}  // namespace gpuplan::catalog::internal
