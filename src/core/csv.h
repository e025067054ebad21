// A small RFC 4180 CSV reader that remembers where each row came from, so
// every error can name the file, line and column name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpuplan::csv {

struct Row {
  int line = 0;                     // 1-based line on which the row starts
  std::vector<std::string> fields;  // unquoted
};

struct Table {
  std::string file;  // name used in errors
  std::vector<std::string> header;
  std::vector<Row> rows;

  // Index of a header column, or nullopt.
  [[nodiscard]] std::optional<size_t> column(std::string_view name) const;
};

// Parses `text`. `file` is only used in error messages. Errors
// (kInvalidArgument): unterminated quote, a row whose field count differs
// from the header's, an empty document (no header). Blank lines are skipped.
[[nodiscard]] Result<Table> parse(std::string_view text, std::string file);

// Reads and parses a file; kNotFound when it cannot be opened.
[[nodiscard]] Result<Table> read_file(const std::string& path);

// Typed access to one row of a table with errors that name file:line: column.
class RowReader {
 public:
  RowReader(const Table& table, const Row& row) : table_(table), row_(row) {}

  // The raw text of a column; kInvalidArgument if the header lacks it.
  [[nodiscard]] Result<std::string> str(std::string_view column) const;
  // A finite number; kInvalidArgument on empty, non-numeric, NaN or inf.
  [[nodiscard]] Result<double> number(std::string_view column) const;
  // Like number() but nullopt when the cell is empty.
  [[nodiscard]] Result<std::optional<double>> optional_number(std::string_view column) const;
  [[nodiscard]] Result<long long> integer(std::string_view column) const;
  [[nodiscard]] Where where(std::string_view column) const;
  [[nodiscard]] int line() const { return row_.line; }

 private:
  const Table& table_;
  const Row& row_;
};

// Quotes a field for output when it holds a comma, quote or newline.
[[nodiscard]] std::string escape(std::string_view field);

}  // namespace gpuplan::csv
