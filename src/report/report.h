// The bill read back against the plan (`gpuplan report COSTS.csv`).
//
// CONTRACT for cli and server: the types and free functions below. A cost
// export — FOCUS 1.x (FinOps Open Cost and Usage Specification) or Azure's
// classic actual-cost (or amortized) CSV — is streamed row by row (memory
// grows with VMs x days, never with rows) into per-VM and per-commitment
// totals; findings (anomalous days, hours beyond the plan, unused
// commitments, reservations worth buying) each carry a recommendation and
// the money at stake. docs/report.md documents the columns read, the rules
// and the --json schema (gpuplan.report/1).
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/result.h"
#include "cost/cost.h"
#include "deploy/plan_input.h"

namespace gpuplan::report {

enum class ExportFormat { kFocus, kAzureCost };
[[nodiscard]] std::string_view to_string(ExportFormat f);  // "focus", "azure-cost"

// How a charge was priced, folded from FOCUS PricingCategory (Standard,
// Dynamic, Committed) and Azure's PricingModel (OnDemand, Spot, Reservation,
// SavingsPlan); kOther for anything else or empty.
enum class Category { kOnDemand, kSpot, kCommitted, kOther };
inline constexpr int kCategories = 4;
[[nodiscard]] std::string_view to_string(Category c);  // "on-demand", "spot", "committed", "other"

// The anomaly rule: a day is anomalous when its cost exceeds
//   median(previous `window_days` days) + k x 1.4826 x MAD(same days)
// and exceeds that median by at least `min_excess_hours` of the VM's own
// hourly rate (findings.cc explains each constant and its source). Days
// before `min_history_days` of history are never judged.
struct AnomalyRule {
  int window_days = 7;
  double k = 3.0;
  int min_history_days = 5;
  double min_excess_hours = 1.0;
  [[nodiscard]] std::string text() const;  // the rule as printed
};

struct Options {
  AnomalyRule rule;
  // The plan option the bill is read against (deploy::parse_plan_json);
  // nullopt: no plan checks.
  std::optional<deploy::PlanOption> plan;
  std::string plan_file;
  int plan_option = 1;  // 1-based, for the output
};

struct DayCost {
  std::string date;  // YYYY-MM-DD
  double usd = 0;    // every meter billed to the VM that day
  double hours = 0;  // compute hours billed that day
};

// One GPU VM (a ResourceId whose compute meter is a GPU size of the catalog).
struct VmReport {
  std::string resource_id;
  std::string name;    // last segment of the resource id
  std::string size;    // "Standard_NC40ads_H100_v5"
  std::string region;  // "eastus"
  std::string gpu_model;
  double gpu_count = 0;                                // per VM
  int days_running = 0;                                // days with compute hours billed
  double hours_billed = 0;                             // compute hours
  double usd_total = 0;                                // all meters of the resource
  double usd_compute = 0;                              // the compute meter
  double usd_by_category[kCategories] = {0, 0, 0, 0};  // compute meter
  double hours_by_category[kCategories] = {0, 0, 0, 0};
  std::optional<double> effective_usd_per_gpu_hour;  // compute usd / (hours x GPUs)
  std::optional<double> list_usd_per_gpu_hour;       // catalog payg, linux
  std::string list_source;
  std::string list_as_of;
  std::vector<DayCost> daily;  // every calendar day from first to last billed day
};

// One reservation or savings plan (FOCUS CommitmentDiscountId, Azure
// ReservationId/BenefitId).
struct CommitmentReport {
  std::string id;
  std::string name;
  std::string type;         // "Reservation" | "Savings Plan" | ""
  std::string size;         // the size its usage ran on, when one
  std::string region;       // where that usage ran
  double used_hours = 0;    // compute hours it covered
  double used_usd = 0;      // amortized cost of those hours (0 in actual-cost data)
  double unused_usd = 0;    // unused rows (amortized data)
  double purchase_usd = 0;  // purchase rows (actual-cost data)
  double purchase_quantity = 0;
  bool one_time_purchase = false;     // paid upfront (Frequency OneTime), not monthly
  std::optional<double> utilization;  // used share of the commitment, [0, 1]
  std::string basis;                  // how utilization was found
};

enum class FindingKind {
  kAnomaly,           // a day above the rule
  kBeyondPlan,        // billed hours past the plan's
  kNotInPlan,         // more VMs than the plan has, or another size
  kUnusedCommitment,  // a commitment not fully used
  kBuyReservation,    // on-demand hours above a reservation's break-even
};
[[nodiscard]] std::string_view to_string(FindingKind k);

struct Finding {
  FindingKind kind = FindingKind::kAnomaly;
  std::string subject;         // VM name or commitment name
  std::string date;            // the day (anomaly), the first day (beyond plan), else ""
  std::string what;            // what was seen, with the figures
  double usd = 0;              // money at stake (excess, waste or saving)
  std::string recommendation;  // what to do
};

struct Report {
  std::string file;
  ExportFormat format = ExportFormat::kFocus;
  long long rows = 0;
  std::string first_day, last_day;
  std::string currency;       // BillingCurrency / billingCurrency, "" when absent
  double usd_total = 0;       // every row's cost: EffectiveCost (FOCUS) or the cost column (Azure)
  double usd_gpu_vms = 0;     // rows billed to the GPU VMs
  std::vector<VmReport> vms;  // by cost, descending
  std::vector<CommitmentReport> commitments;  // by id
  std::vector<Finding> findings;              // by usd, descending
  AnomalyRule rule;
  std::optional<deploy::PlanOption> plan;
  std::string plan_file;
  int plan_option = 1;
  std::vector<std::string> assumptions;
};

// Reads an export from `in`. `file` names it in errors. kInvalidArgument
// naming file, line, column number and column name for: a header that is
// neither format, a row with a different field count, an unterminated quote,
// a date or number that does not parse. Rows of other services are summed
// into usd_total and otherwise ignored.
[[nodiscard]] Result<Report> read_export(std::istream& in, const std::string& file,
                                         const catalog::Catalog& catalog, const Options& options);
// Opens `path` (kNotFound when it cannot be read) and calls read_export.
[[nodiscard]] Result<Report> read_export_file(const std::string& path,
                                              const catalog::Catalog& catalog,
                                              const Options& options);

// What `gpuplan report --json` prints (schema gpuplan.report/1, docs/report.md).
[[nodiscard]] nlohmann::ordered_json to_json(const Report& report);

}  // namespace gpuplan::report
