// report: exports generated here (a month of several VMs: a steady VM on a
// fully used reservation, a training VM left running over the weekend after
// its plan's hours, a dev VM with one anomalous day, a reservation nobody
// uses) read in both formats; the findings must be exactly those.
#include "report/report.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/internal/export_row.h"
#include "report/internal/findings.h"

namespace gpuplan::report {
namespace {

constexpr const char* kTrain = "Standard_NC40ads_H100_v5";
constexpr const char* kA100 = "Standard_NC24ads_A100_v4";
constexpr const char* kSub = "/subscriptions/0000/resourceGroups/rg/providers/";

const catalog::Catalog& cat() {
  static std::unique_ptr<catalog::Catalog> c = [] {
    auto r = catalog::Catalog::load_embedded_at("2026-12-01");
    EXPECT_TRUE(r.has_value());
    return std::move(*r);
  }();
  return *c;
}

double price(const char* size, catalog::Pricing p) {
  const catalog::Offer* o = cat().offer(size, "eastus", catalog::Os::kLinux, p);
  EXPECT_TRUE(o != nullptr && o->usd_per_hour) << size;
  return o && o->usd_per_hour ? *o->usd_per_hour : 0;
}

// One charge, format-neutral.
struct Charge {
  int day = 1;  // November 2026 (the 1st is a Sunday)
  std::string vm;
  std::string size;
  std::string pricing = "payg";  // payg | spot | committed
  double hours = 0;
  double cost = 0;         // amortized (FOCUS EffectiveCost)
  std::string commitment;  // id suffix
  enum Kind { kUsage, kUnused, kPurchase } kind = kUsage;
};

std::string date(int day) {
  return "2026-11-" + std::string(day < 10 ? "0" : "") + std::to_string(day);
}
std::string meter(const std::string& size) {  // "NC40ads H100 v5"
  std::string m = size.substr(9);
  for (char& c : m) c = c == '_' ? ' ' : c;
  return m;
}

// The month: see the file comment.
std::vector<Charge> month() {
  std::vector<Charge> out;
  const double a100_res = price(kA100, catalog::Pricing::kReserved1y);
  const double a100 = price(kA100, catalog::Pricing::kPayg);
  const double h100 = price(kTrain, catalog::Pricing::kPayg);
  const double h100_res = price(kTrain, catalog::Pricing::kReserved1y);
  for (int d = 1; d <= 30; ++d) {
    out.push_back({d, "steady-a100", kA100, "committed", 24, 24 * a100_res, "res-a100"});
    const int weekday = d % 7;  // 1 = Sunday
    const bool weekend = weekday == 1 || weekday == 0;
    if (d >= 2 && d <= 8) out.push_back({d, "train-h100", kTrain, "payg", 24, 24 * h100});
    if (d >= 2 && !weekend) {
      const double h = d == 18 ? 24 : 8;  // Wednesday the 18th: left on
      out.push_back({d, "dev-a100", kA100, "payg", h, h * a100});
    }
    Charge unused{d, "", kTrain, "committed", 0, 24 * h100_res, "res-h100"};
    unused.kind = Charge::kUnused;
    out.push_back(unused);
  }
  Charge buy_a100{1, "", kA100, "committed", 0, 720 * a100_res, "res-a100"};
  buy_a100.kind = Charge::kPurchase;
  Charge buy_h100{1, "", kTrain, "committed", 0, 720 * h100_res, "res-h100"};
  buy_h100.kind = Charge::kPurchase;
  out.push_back(buy_a100);
  out.push_back(buy_h100);
  return out;
}

std::string res_id(const std::string& c) {
  return "/providers/Microsoft.Capacity/reservationOrders/" + c + "/reservations/1";
}

std::string focus(const std::vector<Charge>& charges) {
  std::ostringstream o;
  o.precision(17);
  o << "BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ChargeFrequency,"
       "ChargePeriodStart,ChargePeriodEnd,CommitmentDiscountId,CommitmentDiscountName,"
       "CommitmentDiscountStatus,CommitmentDiscountType,ConsumedQuantity,ConsumedUnit,"
       "PricingCategory,RegionId,ResourceId,ResourceType,ServiceName,x_SkuMeterName,"
       "x_SkuDetails\n";
  for (const Charge& c : charges) {
    const bool committed = c.pricing == "committed";
    const std::string cat = committed ? "Committed" : c.pricing == "spot" ? "Dynamic" : "Standard";
    const std::string rid = c.vm.empty()
                                ? res_id(c.commitment)
                                : kSub + std::string("Microsoft.Compute/virtualMachines/") + c.vm;
    const std::string cid = c.commitment.empty() ? "" : res_id(c.commitment);
    const std::string details = "\"{\"\"ServiceType\"\":\"\"" + c.size + "\"\"}\"";
    if (c.kind == Charge::kPurchase) {
      o << c.cost << ",0,USD,Purchase,Recurring," << date(c.day) << "T00:00:00Z,," << cid << ","
        << c.commitment << ",,Reservation,1,,Committed,eastus," << rid << ",,Virtual Machines,"
        << meter(c.size) << "," << details << "\n";
      continue;
    }
    const double billed = committed ? 0 : c.cost;
    o << billed << "," << c.cost << ",USD,Usage,Usage-Based," << date(c.day) << "T00:00:00Z,"
      << date(c.day) << "T23:59:59Z," << cid << "," << c.commitment << ","
      << (c.commitment.empty()        ? ""
          : c.kind == Charge::kUnused ? "Unused"
                                      : "Used")
      << "," << (c.commitment.empty() ? "" : "Reservation") << ","
      << (c.kind == Charge::kUnused ? 24 : c.hours) << ",Hours," << cat << ",eastus," << rid
      << ",Virtual machine,Virtual Machines," << meter(c.size) << "," << details << "\n";
  }
  return o.str();
}

// Azure actual cost: covered hours at $0, the purchase as its own row, no
// unused rows (they exist only in amortized data).
std::string azure_actual(const std::vector<Charge>& charges) {
  std::ostringstream o;
  o.precision(17);
  o << "Date,MeterCategory,MeterSubCategory,MeterName,ResourceId,ResourceLocation,Quantity,"
       "UnitOfMeasure,CostInBillingCurrency,BillingCurrency,PricingModel,ChargeType,Frequency,"
       "ReservationId,ReservationName,AdditionalInfo\n";
  for (const Charge& c : charges) {
    if (c.kind == Charge::kUnused) continue;
    const std::string mdy =
        "11/" + std::string(c.day < 10 ? "0" : "") + std::to_string(c.day) + "/2026";
    const bool committed = c.pricing == "committed";
    const std::string model = committed ? "Reservation" : c.pricing == "spot" ? "Spot" : "OnDemand";
    if (c.kind == Charge::kPurchase) {
      o << mdy << ",,,," << res_id(c.commitment) << ",eastus,1,," << c.cost
        << ",USD,Reservation,Purchase,Recurring," << res_id(c.commitment) << "," << c.commitment
        << ",\n";
      continue;
    }
    o << mdy << ",Virtual Machines,NC Series," << meter(c.size) << "," << kSub
      << "Microsoft.Compute/virtualMachines/" << c.vm << ",EastUS," << c.hours << ",1 Hour,"
      << (committed ? 0 : c.cost) << ",USD," << model << ",Usage,UsageBased,"
      << (committed ? res_id(c.commitment) : "") << "," << c.commitment << ","
      << "\"{\"\"ServiceType\"\": \"\"" << c.size << "\"\", \"\"VCPUs\"\": 24}\"\n";
  }
  return o.str();
}

Result<Report> read(const std::string& text, const Options& o = {}) {
  std::istringstream in(text);
  return read_export(in, "costs.csv", cat(), o);
}

deploy::PlanOption train_plan() {
  deploy::PlanOption p;
  p.size = kTrain;
  p.count = 1;
  p.region = "eastus";
  p.hours = 120;
  p.cost_usd = p.cost_low_usd = p.cost_high_usd = 120 * price(kTrain, catalog::Pricing::kPayg);
  return p;
}

std::vector<std::string> kinds(const Report& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings)
    out.push_back(std::string(to_string(f.kind)) + " " + f.subject + " " + f.date);
  std::sort(out.begin(), out.end());
  return out;
}

const VmReport* vm(const Report& r, const std::string& name) {
  for (const VmReport& v : r.vms)
    if (v.name == name) return &v;
  return nullptr;
}

TEST(Report, FocusMonthFindsExactlyTheSeededFindings) {
  Options o;
  o.plan = train_plan();
  auto r = read(focus(month()), o);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->format, ExportFormat::kFocus);
  EXPECT_EQ(r->first_day, "2026-11-01");
  EXPECT_EQ(r->last_day, "2026-11-30");
  ASSERT_EQ(r->vms.size(), 3u);
  EXPECT_EQ(kinds(*r), (std::vector<std::string>{"anomaly dev-a100 2026-11-18",
                                                 "beyond-plan train-h100 2026-11-06",
                                                 "unused-commitment res-h100 "}));
  const VmReport* steady = vm(*r, "steady-a100");
  ASSERT_NE(steady, nullptr);
  EXPECT_EQ(steady->days_running, 30);
  EXPECT_DOUBLE_EQ(steady->hours_billed, 720);
  EXPECT_NEAR(steady->usd_by_category[static_cast<int>(Category::kCommitted)],
              720 * price(kA100, catalog::Pricing::kReserved1y), 1e-6);
  const VmReport* train = vm(*r, "train-h100");
  ASSERT_NE(train, nullptr);
  EXPECT_EQ(train->days_running, 7);
  EXPECT_NEAR(*train->effective_usd_per_gpu_hour, *train->list_usd_per_gpu_hour, 1e-9);
  for (const Finding& f : r->findings) {
    if (f.kind == FindingKind::kBeyondPlan) {
      EXPECT_NEAR(f.usd, 48 * price(kTrain, catalog::Pricing::kPayg), 1e-6);
      EXPECT_NE(f.what.find("2026-11-07 .. 2026-11-08"), std::string::npos) << f.what;
      EXPECT_NE(f.recommendation.find("deallocate"), std::string::npos);
    }
    if (f.kind == FindingKind::kUnusedCommitment) {
      EXPECT_NEAR(f.usd, 720 * price(kTrain, catalog::Pricing::kReserved1y), 1e-6);
      EXPECT_NE(f.recommendation.find("stop buying"), std::string::npos) << f.recommendation;
    }
    if (f.kind == FindingKind::kAnomaly) {
      EXPECT_NEAR(f.usd, 16 * price(kA100, catalog::Pricing::kPayg), 1e-6);
    }
  }
  for (const CommitmentReport& c : r->commitments) {
    ASSERT_TRUE(c.utilization) << c.id;
    EXPECT_DOUBLE_EQ(*c.utilization, c.name == "res-a100" ? 1.0 : 0.0) << c.id;
  }
}

TEST(Report, WithoutAPlanTheWeekendIsNotAFinding) {
  auto r = read(focus(month()));
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(kinds(*r), (std::vector<std::string>{"anomaly dev-a100 2026-11-18",
                                                 "unused-commitment res-h100 "}));
}

// An infinite k times a MAD of 0 is a NaN threshold; it once flagged every
// day of a steady VM. The flags refuse such a k; the rule itself flags no
// day against a threshold that is not a number.
TEST(Report, ANanThresholdFlagsNoDay) {
  Options o;
  o.rule.k = std::numeric_limits<double>::infinity();
  auto r = read(focus(month()), o);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(kinds(*r), (std::vector<std::string>{"unused-commitment res-h100 "}));
}

TEST(Report, AzureActualCostFindsTheSameFromPurchaseRows) {
  Options o;
  o.plan = train_plan();
  auto r = read(azure_actual(month()), o);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->format, ExportFormat::kAzureCost);
  EXPECT_EQ(kinds(*r), (std::vector<std::string>{"anomaly dev-a100 2026-11-18",
                                                 "beyond-plan train-h100 2026-11-06",
                                                 "unused-commitment res-h100 "}));
  for (const CommitmentReport& c : r->commitments) {
    ASSERT_TRUE(c.utilization) << c.id;
    EXPECT_DOUBLE_EQ(*c.utilization, c.name == "res-a100" ? 1.0 : 0.0) << c.basis;
  }
  const VmReport* steady = vm(*r, "steady-a100");
  ASSERT_NE(steady, nullptr);
  EXPECT_EQ(steady->region, "eastus");
  EXPECT_DOUBLE_EQ(steady->hours_by_category[static_cast<int>(Category::kCommitted)], 720);
}

TEST(Report, SteadyOnDemandVmForAMonthIsWorthAReservation) {
  std::vector<Charge> c;
  const double a100 = price(kA100, catalog::Pricing::kPayg);
  for (int d = 1; d <= 30; ++d) c.push_back({d, "always-on", kA100, "payg", 24, 24 * a100});
  auto r = read(focus(c));
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kBuyReservation);
  const double res = price(kA100, catalog::Pricing::kReserved1y);
  EXPECT_NEAR(r->findings[0].usd, 730 * (a100 - res), 1e-6);
  // The same VM read against a short plan: the work ends before it pays.
  Options o;
  o.plan = train_plan();
  o.plan->size = kA100;
  o.plan->hours = 720;
  auto short_plan = read(focus(c), o);
  ASSERT_TRUE(short_plan);
  EXPECT_TRUE(short_plan->findings.empty()) << short_plan->findings[0].what;
}

TEST(Report, ExtraVmAndLargerSizeAgainstThePlan) {
  std::vector<Charge> c;
  const double big = price("Standard_NC80adis_H100_v5", catalog::Pricing::kPayg);
  const double small = price(kTrain, catalog::Pricing::kPayg);
  for (int d = 2; d <= 6; ++d) {
    c.push_back({d, "big", "Standard_NC80adis_H100_v5", "payg", 24, 24 * big});
    c.push_back({d, "one", kTrain, "payg", 24, 24 * small});
    c.push_back({d, "two", kTrain, "payg", 24, 24 * small});
  }
  Options o;
  o.plan = train_plan();
  auto r = read(focus(c), o);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(kinds(*r), (std::vector<std::string>{"not-in-plan big ", "not-in-plan two "}));
  for (const Finding& f : r->findings) {
    if (f.subject == "big") {
      EXPECT_NE(f.recommendation.find("downsize to the plan's size"), std::string::npos);
      EXPECT_NEAR(f.usd, 120 * (big - small), 1e-6);
    }
  }
}

TEST(Report, BadInputNamesFileLineAndColumn) {
  auto not_export = read("a,b\n1,2\n");
  ASSERT_FALSE(not_export);
  EXPECT_EQ(not_export.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(not_export.error().message.find("ChargePeriodStart"), std::string::npos);

  std::string text = focus(month());
  text += "abc,0,USD,Usage,Usage-Based,2026-11-30T00:00:00Z,,,,,,1,Hours,Standard,eastus,x,,,,\n";
  auto bad_number = read(text);
  ASSERT_FALSE(bad_number);
  EXPECT_EQ(bad_number.error().where.file, "costs.csv");
  EXPECT_EQ(bad_number.error().where.line, static_cast<int>(month().size()) + 2);
  EXPECT_EQ(bad_number.error().where.column, 1);
  EXPECT_EQ(bad_number.error().where.field, "BilledCost");

  auto bad_date = read("Date,CostInBillingCurrency,ResourceId\n2026-13-01,1,x\n");
  ASSERT_FALSE(bad_date);
  EXPECT_EQ(bad_date.error().where.line, 2);
  EXPECT_EQ(bad_date.error().where.field, "Date");

  auto short_row = read("Date,CostInBillingCurrency,ResourceId\n2026-11-01,1\n");
  ASSERT_FALSE(short_row);
  EXPECT_EQ(short_row.error().where.line, 2);

  auto open_quote = read("Date,CostInBillingCurrency,ResourceId\n2026-11-01,1,\"x\n");
  ASSERT_FALSE(open_quote);
  EXPECT_EQ(open_quote.error().where.line, 2);
  EXPECT_NE(open_quote.error().message.find("never closes"), std::string::npos);

  // A Windows-1252 resource name (0x92, a curly apostrophe) would reach the
  // JSON report, which holds only UTF-8: refused where it stands.
  auto latin = read("Date,CostInBillingCurrency,ResourceId\n2026-11-01,1,bob\x92s-vm\n");
  ASSERT_FALSE(latin);
  EXPECT_EQ(latin.error().where.line, 2);
  EXPECT_EQ(latin.error().where.column, 17);  // "2026-11-01,1,bob" is 16 bytes
  EXPECT_NE(latin.error().message.find("not UTF-8"), std::string::npos);
}

TEST(Report, DamagedDatesAndAmountsAreRefusedNotAccumulated) {
  auto centuries = read("Date,CostInBillingCurrency,ResourceId\n2026-11-01,1,x\n9999-01-01,1,x\n");
  ASSERT_FALSE(centuries);
  EXPECT_EQ(centuries.error().where.line, 3);
  EXPECT_EQ(centuries.error().where.field, "Date");
  auto huge = read("Date,CostInBillingCurrency,ResourceId\n2026-11-01,1e300,x\n");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().where.field, "CostInBillingCurrency");
}

TEST(Report, CsvStreamHandlesQuotesNewlinesAndCrlf) {
  std::istringstream in("a,b\r\n\"x,\"\"y\"\"\",\"two\nlines\"\r\n\n3,4\n");
  internal::CsvStream s(in, "f.csv");
  std::vector<std::string> f;
  ASSERT_TRUE(*s.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(*s.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{"x,\"y\"", "two\nlines"}));
  EXPECT_EQ(s.line(), 2);
  ASSERT_TRUE(*s.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(s.line(), 5);
  EXPECT_FALSE(*s.next(f));
}

// Lines longer than the reader's 4 KiB chunk are read whole (a last line
// with no newline too); one over 1 MiB is refused at its line, where a
// file with no newline at all (/dev/zero) once grew without bound.
TEST(Report, CsvStreamReadsLongLinesAndRefusesEndlessOnes) {
  const std::string tag(10000, 't');
  std::istringstream in("a,b\n" + tag + ",x\n" + std::string(4095, 'y') + "\nlast," + tag);
  internal::CsvStream s(in, "f.csv");
  std::vector<std::string> f;
  ASSERT_TRUE(*s.next(f));
  ASSERT_TRUE(*s.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{tag, "x"}));
  ASSERT_TRUE(*s.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{std::string(4095, 'y')}));
  ASSERT_TRUE(*s.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{"last", tag}));
  EXPECT_FALSE(*s.next(f));
  std::istringstream endless("a,b\n" + std::string((size_t{1} << 20) + 10, '\0'));
  internal::CsvStream e(endless, "zero.csv");
  ASSERT_TRUE(*e.next(f));
  auto r = e.next(f);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().to_string(), "zero.csv:2: a line longer than 1 MiB (is this a cost export?)");
}

TEST(Report, DaysRoundTripAndRejectImpossibleDates) {
  EXPECT_EQ(internal::parse_day("1970-01-01"), 0);
  EXPECT_EQ(internal::format_day(*internal::parse_day("2024-02-29T10:00:00Z")), "2024-02-29");
  EXPECT_EQ(internal::parse_day("02/29/2024"), internal::parse_day("2024-02-29"));
  EXPECT_FALSE(internal::parse_day("2023-02-29"));
  EXPECT_FALSE(internal::parse_day("2023-04-31"));
  EXPECT_FALSE(internal::parse_day("2023-04-01x"));
  EXPECT_DOUBLE_EQ(internal::median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(internal::median({4, 1, 2, 3}), 2.5);
}

}  // namespace
}  // namespace gpuplan::report
