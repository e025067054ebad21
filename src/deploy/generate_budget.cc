// budget.json: the body of a Microsoft.Consumption/budgets PUT at the
// resource group's scope, sized from the plan option's cost.
//
// The amount is what one month can cost at the pessimistic end of the
// option's cost range (cost_high_usd): the work's cost at the rate it
// accrues, 730 h a month (DESIGN.md) — all of it for work of a month or
// less — rounded up to whole dollars. (Dividing by the months the budget
// spans halved it for a 730.25-hour service: a $10,287 month got a $5,144
// budget, and the 100 % alert fired mid-month.) Alerts fire at 50 % (early
// warning), at the expected cost (cost_usd as a share of the amount), at
// 100 % actual, and when Azure forecasts 100 %. The start date comes from
// --start-date (Azure budgets start on the first of a month), so the file is
// deterministic. The end date covers the work at the plan's high end
// (budget_window): Azure stops evaluating a budget after its endDate, and a
// window counted in whole months from the first (one month for a 12-day job
// deployed on the 25th) expired with most of the work still to run. The time
// grain stays Monthly, so the amount (a month's cost) is compared with each
// calendar month's spend; deploy says so when the work spans several.
// contactEmails is left empty here: deploy.sh fills in $BUDGET_EMAIL
// (default: the signed-in account) at run time, so no address is stored in
// the file.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "core/units.h"
#include "deploy/internal/generate.h"

namespace gpuplan::deploy {

using namespace internal;
using ordered_json = nlohmann::ordered_json;

std::string internal::add_months(const std::string& first_of_month, int months) {
  int year = std::stoi(first_of_month.substr(0, 4));
  int month = std::stoi(first_of_month.substr(5, 2)) - 1 + months;
  year += month / 12;
  month = month % 12 + 1;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-01", year, month);
  return buf;
}

std::string internal::add_days(const std::string& date, int days) {
  using namespace std::chrono;
  const year_month_day from{year{std::stoi(date.substr(0, 4))},
                            month{static_cast<unsigned>(std::stoi(date.substr(5, 2)))},
                            day{static_cast<unsigned>(std::stoi(date.substr(8, 2)))}};
  const year_month_day to{sys_days{from} + std::chrono::days{days}};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(to.year()),
                static_cast<unsigned>(to.month()), static_cast<unsigned>(to.day()));
  return buf;
}

BudgetWindow internal::budget_window(const DeploySpec& spec) {
  // Ten years of days bounds the arithmetic; no plan runs that long.
  constexpr double kMaxDays = 3660;
  const PlanOption& o = spec.option;
  BudgetWindow w;
  w.start = spec.start_date;
  w.worst_hours = std::max(o.hours, o.hours_high);
  const std::string& from = spec.work_start_date.empty() ? spec.start_date : spec.work_start_date;
  const double days = std::min(kMaxDays, std::ceil(w.worst_hours / 24 - 1e-9));
  w.last_work_day = add_days(from, static_cast<int>(days));
  w.end = add_months(w.last_work_day, 1);
  const auto month_index = [](const std::string& d) {
    return std::stoi(d.substr(0, 4)) * 12 + std::stoi(d.substr(5, 2));
  };
  w.months = month_index(w.end) - month_index(w.start);
  return w;
}

namespace {

// Azure takes a notification threshold as a percentage from 0.01 to 1000
// (Consumption Budgets REST API, Notification.threshold: "Threshold value
// associated with a notification ... It is always percent and has to be
// between 0.01 and 1000"). Whole percents from 1 % (77 % for $100 of $130);
// below 1 %, hundredths, never under 0.01.
struct ExpectedCostAlert {
  ordered_json threshold;  // a whole number from 1 %, else hundredths
  std::string key;         // "77", "0_25": part of the notification's name
};

ExpectedCostAlert expected_cost_alert(double percent) {
  constexpr double kMinThreshold = 0.01, kMaxThreshold = 1000;
  percent = std::clamp(percent, kMinThreshold, kMaxThreshold);
  if (percent >= 1) {
    const long whole = std::lround(percent);
    return {whole, std::to_string(whole)};
  }
  // 1..99 hundredths (percent < 1 here).
  const int hundredths = static_cast<int>(std::clamp(std::lround(percent * 100), 1L, 99L));
  return {static_cast<double>(hundredths) / 100,
          std::string(hundredths < 10 ? "0_0" : "0_") + std::to_string(hundredths)};
}

ordered_json notification(const ordered_json& threshold, const char* type) {
  return ordered_json{{"enabled", true},
                      {"operator", "GreaterThan"},
                      {"threshold", threshold},
                      {"thresholdType", type},
                      {"contactEmails", ordered_json::array()},
                      {"contactRoles", ordered_json::array({"Owner", "Contributor"})},
                      {"locale", "en-us"}};
}

}  // namespace

ordered_json internal::budget_properties(const DeploySpec& spec) {
  const PlanOption& o = spec.option;
  const BudgetWindow window = budget_window(spec);
  const double month_share = o.hours > 0 ? std::min(1.0, kHoursPerMonth / o.hours) : 1.0;
  const double amount = std::max(1.0, std::ceil(o.cost_high_usd * month_share - 1e-9));
  const ExpectedCostAlert expected =
      expected_cost_alert(100.0 * (o.cost_usd * month_share) / amount);

  ordered_json notes = ordered_json::object();
  notes["actual_50_percent"] = notification(50, "Actual");
  // The expected-cost alert is kept at any share: a wide spot range puts the
  // expected cost far below the amount (a $43,024 job under a $300,948
  // amount is 14 %), which is when the first warning matters most. Only a
  // threshold equal to the 50 % or 100 % alert's would repeat it.
  if (expected.threshold != 50 && expected.threshold != 100) {
    notes["actual_expected_cost_" + expected.key + "_percent"] =
        notification(expected.threshold, "Actual");
  }
  notes["actual_100_percent"] = notification(100, "Actual");
  notes["forecasted_100_percent"] = notification(100, "Forecasted");

  return {{"category", "Cost"},
          // Whole dollars, written as an integer (the ARM schema types it int).
          {"amount", static_cast<int64_t>(amount)},
          {"timeGrain", "Monthly"},
          {"timePeriod",
           {{"startDate", window.start + "T00:00:00Z"}, {"endDate", window.end + "T00:00:00Z"}}},
          {"notifications", notes}};
}

std::string render_budget(const DeploySpec& spec) {
  ordered_json body;
  body["properties"] = budget_properties(spec);
  return body.dump(2) + "\n";
}

std::vector<GeneratedFile> generate_files(const DeploySpec& spec) {
  std::vector<GeneratedFile> files;
  files.push_back({"deploy.sh", render_deploy_script(spec), true});
  files.push_back({"template.json", render_arm_template(spec), false});
  if (is_windows(spec)) {
    files.push_back({"setup.ps1", render_setup_ps1(spec), false});
  } else {
    files.push_back({"cloud-init.yaml", render_cloud_init(spec), false});
  }
  files.push_back({"budget.json", render_budget(spec), false});
  if (spec.serving) files.push_back({"autoscale.json", render_autoscale(spec), false});
  return files;
}

}  // namespace gpuplan::deploy
