// Internal to gpuplan::report: the streaming CSV reader and one export row
// folded from either format into the fields the report needs.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "report/report.h"

namespace gpuplan::report::internal {

// RFC 4180 records from a stream, one at a time: memory is one record, not
// the file. Quoted fields may hold commas, doubled quotes and newlines; CR
// before LF is dropped; blank lines are skipped.
class CsvStream {
 public:
  CsvStream(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}
  // Reads the next record into `fields` (reused). false at the end;
  // kInvalidArgument (file:line) for a quote that never closes.
  [[nodiscard]] Result<bool> next(std::vector<std::string>& fields);
  // The line on which the last record started (1-based).
  [[nodiscard]] int line() const { return line_; }

 private:
  std::istream& in_;
  std::string file_;
  std::string buf_;
  int next_line_ = 1;
  int line_ = 0;
};

enum class CommitmentStatus { kNone, kUsed, kUnused };

// One row, folded. Views point into the reader's fields (valid until the next row).
struct CostRow {
  int day = 0;             // days since 1970-01-01 (UTC date of the charge)
  double cost = 0;         // EffectiveCost (FOCUS) / CostInBillingCurrency (Azure)
  double billed_cost = 0;  // BilledCost (FOCUS) / the same cost (Azure)
  std::string_view resource_id;
  bool vm_meter = false;       // a Virtual Machines meter
  std::string_view size_hint;  // ServiceType from the details, else the meter name
  std::string_view region;
  Category category = Category::kOther;
  double hours = 0;  // consumed quantity when its unit is hours, else 0
  std::string_view commitment_id;
  std::string_view commitment_name;
  std::string_view commitment_type;
  CommitmentStatus commitment_status = CommitmentStatus::kNone;
  bool purchase = false;   // a purchase (ChargeCategory/ChargeType "Purchase")
  double quantity = 0;     // raw quantity (purchases: instances reserved)
  bool recurring = false;  // Frequency / ChargeFrequency "Recurring"
  std::string_view currency;
};

// The header's columns, by logical name; -1 when absent.
struct ColumnMap {
  ExportFormat format = ExportFormat::kFocus;
  std::vector<std::string> header;
  int date = -1, cost = -1, billed = -1, resource = -1, service = -1, resource_type = -1;
  int meter_name = -1, details = -1, region = -1, region_name = -1, pricing = -1;
  int quantity = -1, unit = -1, commit_id = -1, commit_name = -1, commit_type = -1;
  int commit_status = -1, charge = -1, frequency = -1, currency = -1, product = -1;
};

// Recognises the format from the header. kInvalidArgument (file:1) naming
// the columns each format needs when it is neither.
[[nodiscard]] Result<ColumnMap> map_header(const std::vector<std::string>& header,
                                           const std::string& file);

// Folds one record. kInvalidArgument naming file:line:column and the column
// name for a wrong field count, an unparsable date or a non-numeric number.
[[nodiscard]] Result<CostRow> fold_row(const ColumnMap& map, const std::vector<std::string>& fields,
                                       int line, const std::string& file);

// Days since 1970-01-01 for "YYYY-MM-DD[...]" or "MM/DD/YYYY[...]"; nullopt otherwise.
[[nodiscard]] std::optional<int> parse_day(std::string_view s);
[[nodiscard]] std::string format_day(int day);  // YYYY-MM-DD

}  // namespace gpuplan::report::internal
