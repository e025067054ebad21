// Reading cost exports: one streaming CSV reader and two column maps.
//
// Problem. A month of hourly charges for 1,000 VMs is ~720 k rows (hundreds
// of MB in FOCUS's ~50 columns); the report needs a handful of columns per
// row. Approach: read one record at a time (CsvStream keeps one record in
// memory), look the needed columns up once in the header, and fold each row
// into CostRow — the caller accumulates per resource and per day, so memory
// grows with resources x days, not with rows.
//
// The two formats (column names matched case-insensitively: Microsoft's
// MCA files spell them camelCase, EA files PascalCase):
//  - FOCUS 1.0-1.2 (FinOps Open Cost and Usage Specification, focus.finops.org;
//    Microsoft's FocusCost 1.0 dataset, learn.microsoft.com
//    /cloud-computing/finops/focus/metadata, created 2024-06-20):
//    ChargePeriodStart (date), EffectiveCost (amortized; BilledCost when
//    absent), BilledCost (purchases), ResourceId, ServiceName / ResourceType,
//    x_SkuMeterName and x_SkuDetails (Azure's extensions: the meter name
//    and the AdditionalInfo JSON with "ServiceType": the VM size),
//    RegionId / RegionName, PricingCategory (Standard = on-demand, Dynamic =
//    spot, Committed), ConsumedQuantity + ConsumedUnit, CommitmentDiscountId
//    / Name / Type / Status (Used, Unused), ChargeCategory (Usage, Purchase,
//    ...), ChargeFrequency, BillingCurrency.
//  - Azure cost details, actual or amortized (MicrosoftDocs azure-docs
//    articles/cost-management-billing/automate/understand-usage-details-fields.md,
//    2023-04-04): Date, CostInBillingCurrency (EA: Cost), ResourceId,
//    MeterCategory ("Virtual Machines"), MeterName, AdditionalInfo
//    (ServiceType), ResourceLocation, PricingModel (OnDemand, Spot,
//    Reservation, SavingsPlan), Quantity + UnitOfMeasure, ReservationId /
//    ReservationName (BenefitId / BenefitName for savings plans), ChargeType
//    (Usage, Purchase, UnusedReservation, UnusedSavingsPlan), Frequency,
//    BillingCurrency. The mapping between the two is Microsoft's own
//    (microsoft/finops-toolkit docs/focus/convert.md): PricingModel OnDemand
//    -> Standard, Spot -> Dynamic, Reservation/SavingsPlan -> Committed;
//    ChargeType UnusedReservation/UnusedSavingsPlan -> status Unused.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "core/strings.h"
#include "report/internal/export_row.h"

namespace gpuplan::report::internal {
namespace {

constexpr double kMaxMagnitude = 1e12;

// Appends the fields of `line` starting at `pos`; returns true when a quoted
// field is still open at the end of the line (the record continues).
bool split_into(std::string_view line, std::vector<std::string>& fields, size_t& n,
                bool& in_quotes) {
  size_t i = 0;
  while (true) {
    if (!in_quotes) {
      if (n == fields.size()) fields.emplace_back();
      fields[n].clear();
      if (i < line.size() && line[i] == '"') {
        in_quotes = true;
        ++i;
      } else {
        size_t end = line.find(',', i);
        if (end == std::string_view::npos) {
          fields[n++].assign(line.substr(i));
          return false;
        }
        fields[n++].assign(line.substr(i, end - i));
        i = end + 1;
        continue;
      }
    }
    // Inside quotes: copy until a lone quote.
    std::string& f = fields[n];
    while (i < line.size()) {
      size_t q = line.find('"', i);
      if (q == std::string_view::npos) {
        f.append(line.substr(i));
        i = line.size();
        break;
      }
      f.append(line.substr(i, q - i));
      if (q + 1 < line.size() && line[q + 1] == '"') {
        f.push_back('"');
        i = q + 2;
        continue;
      }
      in_quotes = false;
      i = q + 1;
      break;
    }
    if (in_quotes) return true;  // the newline belongs to the field
    // After the closing quote: text up to the next comma is kept (lenient).
    size_t end = line.find(',', i);
    if (end == std::string_view::npos) {
      f.append(line.substr(i));
      ++n;
      return false;
    }
    f.append(line.substr(i, end - i));
    ++n;
    i = end + 1;
  }
}

int find_column(const std::vector<std::string>& header,
                std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (strings::to_lower(strings::trim(header[i])) == strings::to_lower(name))
        return static_cast<int>(i);
    }
  }
  return -1;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool icontains(std::string_view s, std::string_view part) {
  if (part.size() > s.size()) return false;
  for (size_t i = 0; i + part.size() <= s.size(); ++i)
    if (iequals(s.substr(i, part.size()), part)) return true;
  return false;
}

// "ServiceType": "Standard_NC40ads_H100_v5" inside the AdditionalInfo /
// x_SkuDetails JSON; "" when absent. A plain scan: parsing JSON per row
// would dominate the reading time.
std::string_view service_type(std::string_view details) {
  size_t k = details.find("ServiceType");
  if (k == std::string_view::npos) return {};
  size_t colon = details.find(':', k);
  if (colon == std::string_view::npos) return {};
  size_t open = details.find('"', colon);
  if (open == std::string_view::npos) return {};
  size_t close = details.find('"', open + 1);
  if (close == std::string_view::npos) return {};
  return details.substr(open + 1, close - open - 1);
}

// A purchase row has no meter; its product name may name the size
// ("Reserved VM Instance, Standard_NC40ads_H100_v5, US East, 1 Year"):
// the "Standard_..." token, else "".
std::string_view size_in_product(std::string_view product) {
  size_t at = product.find("Standard_");
  if (at == std::string_view::npos) return {};
  size_t end = product.find_first_of(", ", at);
  return product.substr(at, end == std::string_view::npos ? end : end - at);
}

Category fold_category(std::string_view s) {
  s = strings::trim(s);
  // FOCUS PricingCategory values (spec 1.0 section 3.x PricingCategory) and
  // Azure PricingModel values (convert.md mapping above).
  if (iequals(s, "Standard") || iequals(s, "OnDemand") || iequals(s, "On Demand"))
    return Category::kOnDemand;
  if (iequals(s, "Dynamic") || iequals(s, "Spot")) return Category::kSpot;
  if (iequals(s, "Committed") || iequals(s, "Reservation") || iequals(s, "SavingsPlan") ||
      iequals(s, "Savings Plan"))
    return Category::kCommitted;
  return Category::kOther;
}

std::string_view cell(const std::vector<std::string>& f, int i) {
  return i < 0 ? std::string_view() : strings::trim(f[static_cast<size_t>(i)]);
}

Error field_error(const ColumnMap& map, const std::string& file, int line, int col,
                  std::string message) {
  return Error{ErrorCode::kInvalidArgument, std::move(message),
               Where{file, line, col + 1, map.header[static_cast<size_t>(col)]}};
}

// A number; `empty_ok` makes "" zero (quantities are blank on purchases).
Result<double> number(const ColumnMap& map, const std::vector<std::string>& f, int col,
                      const std::string& file, int line, bool empty_ok) {
  if (col < 0) return 0.0;
  std::string_view s = cell(f, col);
  if (s.empty()) {
    if (empty_ok) return 0.0;
    return tl::unexpected(field_error(map, file, line, col, "empty; expected a number"));
  }
  auto v = strings::parse_double(s);
  if (!v) {
    return tl::unexpected(field_error(
        map, file, line, col, "expected a number, got '" + std::string(s.substr(0, 40)) + "'"));
  }
  // No single charge or quantity comes near a trillion; beyond it the file
  // is damaged, and sums of such values could overflow to infinity.
  if (std::fabs(*v) > kMaxMagnitude) {
    return tl::unexpected(field_error(
        map, file, line, col,
        "implausible value " + std::string(s.substr(0, 40)) + " (more than 1e12 in magnitude)"));
  }
  return *v;
}

// The longest line an export may have: a cost export's row is a few hundred
// bytes (FOCUS has ~50 columns, tags included); std::getline alone grew a
// line without bound on a file with no newline (`report /dev/zero` held 4 GB
// after 10 s).
constexpr size_t kMaxLineBytes = size_t{1} << 20;

// std::getline with that cap. false at the end of the input; `too_long` set
// (and false) when a line passes the cap.
bool getline_capped(std::istream& in, std::string& out, bool& too_long) {
  out.clear();
  std::array<char, 4096> chunk{};
  for (;;) {
    in.getline(chunk.data(), chunk.size());
    const auto got = static_cast<size_t>(in.gcount());
    const bool ended = !in.fail();  // a newline (counted in gcount) or the input ended it
    if (!ended && (in.bad() || got == 0)) return !out.empty() && !in.bad();
    out.append(chunk.data(), ended && !in.eof() ? got - 1 : got);
    if (out.size() > kMaxLineBytes) {
      too_long = true;
      return false;
    }
    if (ended) return true;
    in.clear();  // the chunk filled before a newline
  }
}

}  // namespace

Result<bool> CsvStream::next(std::vector<std::string>& fields) {
  size_t n = 0;
  bool in_quotes = false;
  bool too_long = false;
  for (;;) {
    if (!getline_capped(in_, buf_, too_long)) {
      if (too_long)
        return invalid_argument("a line longer than 1 MiB (is this a cost export?)",
                                Where{file_, next_line_, 0, ""});
      break;
    }
    int this_line = next_line_++;
    if (!buf_.empty() && buf_.back() == '\r') buf_.pop_back();
    // Exports are UTF-8 like every input (core/files.h); other bytes would
    // reach the JSON report, which cannot hold them (found by fuzz_focus).
    if (auto bad = strings::invalid_utf8_at(buf_)) {
      return invalid_argument("not UTF-8 text (byte 0x" + strings::hex_byte(buf_[*bad]) + ")",
                              Where{file_, this_line, static_cast<int>(*bad) + 1, ""});
    }
    if (!in_quotes) {
      if (strings::trim(buf_).empty()) continue;
      line_ = this_line;
    } else {
      fields[n].push_back('\n');
    }
    in_quotes = split_into(buf_, fields, n, in_quotes);
    if (!in_quotes) {
      fields.resize(n);
      return true;
    }
  }
  if (in_quotes) {
    return invalid_argument("a quoted field opened here never closes", Where{file_, line_, 0, ""});
  }
  return false;
}

std::optional<int> parse_day(std::string_view s) {
  s = strings::trim(s);
  int y = 0, m = 0, d = 0;
  auto digits = [&](size_t at, size_t len, int& out) {
    if (at + len > s.size()) return false;
    out = 0;
    for (size_t i = at; i < at + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      out = out * 10 + (s[i] - '0');
    }
    return true;
  };
  size_t used = 0;
  if (s.size() >= 10 && s[4] == '-' && s[7] == '-') {
    if (!digits(0, 4, y) || !digits(5, 2, m) || !digits(8, 2, d)) return std::nullopt;
    used = 10;
  } else if (s.size() >= 10 && s[2] == '/' && s[5] == '/') {
    if (!digits(0, 2, m) || !digits(3, 2, d) || !digits(6, 4, y)) return std::nullopt;
    used = 10;
  } else {
    return std::nullopt;
  }
  if (used < s.size() && s[used] != 'T' && s[used] != ' ' && s[used] != 'Z') return std::nullopt;
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1970 || y > 9999 || m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return std::nullopt;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m == 2 && d == 29 && !leap) return std::nullopt;
  // Days from civil (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  y -= m <= 2;
  const int era = y / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::string format_day(int z) {
  z += 719468;
  const int era = z / 146097;
  const int doe = z - era * 146097;
  const int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int mp = (5 * doy + 2) / 153;
  const int d = doy - (153 * mp + 2) / 5 + 1;
  const int m = mp + (mp < 10 ? 3 : -9);
  const int y = yoe + era * 400 + (m <= 2);
  char out[48];
  std::snprintf(out, sizeof out, "%04d-%02d-%02d", y, m, d);
  return out;
}

Result<ColumnMap> map_header(const std::vector<std::string>& header_in, const std::string& file) {
  ColumnMap m;
  m.header = header_in;
  if (!m.header.empty() && m.header[0].rfind("\xEF\xBB\xBF", 0) == 0) m.header[0].erase(0, 3);
  const auto& h = m.header;
  const int focus_date = find_column(h, {"ChargePeriodStart"});
  const int focus_cost = find_column(h, {"EffectiveCost", "BilledCost"});
  const int azure_date = find_column(h, {"Date", "UsageDate"});
  const int azure_cost = find_column(h, {"CostInBillingCurrency", "Cost", "PreTaxCost"});
  if (focus_date >= 0 && focus_cost >= 0) {
    m.format = ExportFormat::kFocus;
    m.date = focus_date;
    m.cost = focus_cost;
    m.billed = find_column(h, {"BilledCost"});
    m.resource = find_column(h, {"ResourceId"});
    m.service = find_column(h, {"ServiceName", "x_SkuMeterCategory"});
    m.resource_type = find_column(h, {"ResourceType"});
    m.meter_name = find_column(h, {"x_SkuMeterName"});
    m.details = find_column(h, {"x_SkuDetails"});
    m.region = find_column(h, {"RegionId"});
    m.region_name = find_column(h, {"RegionName"});
    m.pricing = find_column(h, {"PricingCategory"});
    m.quantity = find_column(h, {"ConsumedQuantity"});
    m.unit = find_column(h, {"ConsumedUnit"});
    m.commit_id = find_column(h, {"CommitmentDiscountId"});
    m.commit_name = find_column(h, {"CommitmentDiscountName"});
    m.commit_type = find_column(h, {"CommitmentDiscountType"});
    m.commit_status = find_column(h, {"CommitmentDiscountStatus"});
    m.charge = find_column(h, {"ChargeCategory"});
    m.frequency = find_column(h, {"ChargeFrequency"});
    m.currency = find_column(h, {"BillingCurrency"});
    if (m.resource < 0) {
      return invalid_argument("FOCUS export without a ResourceId column: VMs cannot be told apart",
                              Where{file, 1, 0, "ResourceId"});
    }
    return m;
  }
  if (azure_date >= 0 && azure_cost >= 0) {
    m.format = ExportFormat::kAzureCost;
    m.date = azure_date;
    m.cost = azure_cost;
    m.resource = find_column(h, {"ResourceId", "InstanceId"});
    m.service = find_column(h, {"MeterCategory"});
    m.meter_name = find_column(h, {"MeterName"});
    m.details = find_column(h, {"AdditionalInfo"});
    m.region = find_column(h, {"ResourceLocation"});
    m.region_name = find_column(h, {"MeterRegion"});
    m.pricing = find_column(h, {"PricingModel"});
    m.quantity = find_column(h, {"Quantity", "ConsumedQuantity"});
    m.unit = find_column(h, {"UnitOfMeasure"});
    m.commit_id = find_column(h, {"ReservationId", "BenefitId"});
    m.commit_name = find_column(h, {"ReservationName", "BenefitName"});
    m.charge = find_column(h, {"ChargeType"});
    m.frequency = find_column(h, {"Frequency"});
    m.currency = find_column(h, {"BillingCurrency", "BillingCurrencyCode", "Currency"});
    m.product = find_column(h, {"ProductName", "Product"});
    if (m.resource < 0) {
      return invalid_argument("Azure cost export without a ResourceId column",
                              Where{file, 1, 0, "ResourceId"});
    }
    return m;
  }
  return invalid_argument(
      "not a cost export gpuplan reads: FOCUS needs ChargePeriodStart and EffectiveCost or "
      "BilledCost; Azure's cost details need Date and CostInBillingCurrency (or Cost)",
      Where{file, 1, 0, ""});
}

Result<CostRow> fold_row(const ColumnMap& map, const std::vector<std::string>& f, int line,
                         const std::string& file) {
  if (f.size() != map.header.size()) {
    return invalid_argument(
        "has " + std::to_string(f.size()) + " fields; the header has " +
            std::to_string(map.header.size()),
        Where{file, line, static_cast<int>(std::min(f.size(), map.header.size())) + 1, ""});
  }
  CostRow r;
  auto day = parse_day(cell(f, map.date));
  if (!day) {
    return tl::unexpected(
        field_error(map, file, line, map.date,
                    "expected a date YYYY-MM-DD[Thh:mm:ssZ] or MM/DD/YYYY, got '" +
                        std::string(cell(f, map.date).substr(0, 40)) + "'"));
  }
  r.day = *day;
  GPUPLAN_TRY(r.cost, number(map, f, map.cost, file, line, false));
  if (map.billed >= 0) {
    GPUPLAN_TRY(r.billed_cost, number(map, f, map.billed, file, line, false));
  } else {
    r.billed_cost = r.cost;
  }
  GPUPLAN_TRY(r.quantity, number(map, f, map.quantity, file, line, true));
  r.resource_id = cell(f, map.resource);
  std::string_view service = cell(f, map.service);
  r.vm_meter = iequals(service, "Virtual Machines") ||
               icontains(cell(f, map.resource_type), "virtualmachines") ||
               iequals(cell(f, map.resource_type), "Virtual machine");
  r.size_hint = service_type(cell(f, map.details));
  if (r.size_hint.empty()) r.size_hint = cell(f, map.meter_name);
  if (r.size_hint.empty()) r.size_hint = size_in_product(cell(f, map.product));
  r.region = cell(f, map.region);
  if (r.region.empty()) r.region = cell(f, map.region_name);
  r.category = fold_category(cell(f, map.pricing));
  std::string_view unit = cell(f, map.unit);
  if (icontains(unit, "hour")) r.hours = r.quantity;
  r.commitment_id = cell(f, map.commit_id);
  r.commitment_name = cell(f, map.commit_name);
  r.commitment_type = cell(f, map.commit_type);
  std::string_view charge = cell(f, map.charge);
  std::string_view status = cell(f, map.commit_status);
  if (iequals(status, "Unused") || iequals(charge, "UnusedReservation") ||
      iequals(charge, "UnusedSavingsPlan")) {
    r.commitment_status = CommitmentStatus::kUnused;
    if (r.commitment_type.empty())
      r.commitment_type = iequals(charge, "UnusedSavingsPlan") ? "Savings Plan" : "Reservation";
  } else if (iequals(status, "Used") ||
             (!r.commitment_id.empty() && r.category == Category::kCommitted)) {
    r.commitment_status = CommitmentStatus::kUsed;
  }
  if (r.commitment_type.empty() && !r.commitment_id.empty()) {
    // Microsoft's rule (convert.md): a BenefitId under /microsoft.capacity/
    // is a reservation, under /microsoft.billingbenefits/ a savings plan.
    if (icontains(r.commitment_id, "/microsoft.billingbenefits/"))
      r.commitment_type = "Savings Plan";
    else if (icontains(r.commitment_id, "/microsoft.capacity/") ||
             map.format == ExportFormat::kAzureCost)
      r.commitment_type = "Reservation";
  }
  r.purchase = iequals(charge, "Purchase");
  r.recurring = iequals(cell(f, map.frequency), "Recurring");
  r.currency = cell(f, map.currency);
  return r;
}

}  // namespace gpuplan::report::internal
