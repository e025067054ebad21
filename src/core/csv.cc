#include "core/csv.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include "core/files.h"
#include "core/strings.h"

namespace gpuplan::csv {

std::optional<size_t> Table::column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

// csv.h says what this accepts. Long because it is one state machine over
// the text (quoted fields, doubled quotes, CRLF, line counting); its states
// share the field, the row and the line numbers.
Result<Table> parse(std::string_view text, std::string file) {
  Table table;
  table.file = std::move(file);
  // Strip a UTF-8 byte-order mark.
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);

  std::vector<std::string> fields;
  std::string field;
  bool in_quotes = false;
  bool field_was_quoted = false;
  int line = 1;
  int row_start_line = 1;
  bool row_has_content = false;

  auto end_row = [&]() -> Status {
    fields.push_back(std::move(field));
    field.clear();
    field_was_quoted = false;
    bool blank = !row_has_content && fields.size() == 1 && fields[0].empty();
    if (!blank) {
      if (table.header.empty()) {
        for (auto& h : fields) h = std::string(strings::trim(h));
        // A column named twice: every reader takes the first, so the
        // second's values would be read as nothing (exit 2 instead). A
        // set, not every pair: 200,000 columns (a 1.9 MB file) took 31 s.
        std::unordered_set<std::string_view> seen;
        seen.reserve(fields.size());
        for (const std::string& name : fields) {
          if (!name.empty() && !seen.insert(name).second)
            return invalid_argument("column '" + name + "' is named twice in the header",
                                    Where{table.file, row_start_line, 0, name});
        }
        table.header = std::move(fields);
      } else {
        if (fields.size() != table.header.size()) {
          return invalid_argument("expected " + std::to_string(table.header.size()) +
                                      " fields as in the header, found " +
                                      std::to_string(fields.size()),
                                  Where{table.file, row_start_line, 0, ""});
        }
        table.rows.push_back(Row{row_start_line, std::move(fields)});
      }
    }
    fields.clear();
    fields.reserve(table.header.size());
    row_has_content = false;
    return {};
  };

  // Runs of ordinary characters are appended in one go rather than char by
  // char: the embedded catalog is ~280 KB of CSV parsed on every start.
  const size_t n = text.size();
  auto ordinary = [](char c) { return c != ',' && c != '"' && c != '\n' && c != '\r'; };
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < n && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        size_t end = text.find('"', i);
        if (end == std::string_view::npos) end = n;
        std::string_view run = text.substr(i, end - i);
        line += static_cast<int>(std::count(run.begin(), run.end(), '\n'));
        field.append(run);
        i = end - 1;
      }
      continue;
    }
    switch (c) {
      case '"':
        if (field.empty() && !field_was_quoted) {
          in_quotes = true;
          field_was_quoted = true;
          row_has_content = true;
        } else {
          field.push_back(c);
        }
        break;
      case ',':
        fields.push_back(std::move(field));
        field.clear();
        field_was_quoted = false;
        row_has_content = true;
        break;
      case '\r':
        break;
      case '\n': {
        GPUPLAN_RETURN_IF_ERROR(end_row());
        ++line;
        row_start_line = line;
        break;
      }
      default: {
        size_t end = i + 1;
        while (end < n && ordinary(text[end])) ++end;
        field.append(text.data() + i, end - i);
        row_has_content = true;
        i = end - 1;
      }
    }
  }
  if (in_quotes)
    return invalid_argument("unterminated quoted field", Where{table.file, row_start_line, 0, ""});
  if (row_has_content || !field.empty()) GPUPLAN_RETURN_IF_ERROR(end_row());
  if (table.header.empty()) return invalid_argument("empty file (no header)", Where{table.file});
  return table;
}

Result<Table> read_file(const std::string& path) {
  // Capped and checked as UTF-8 like every input read whole (files.h).
  GPUPLAN_TRY(std::string text, files::read_text(path));
  return parse(text, path);
}

Where RowReader::where(std::string_view column) const {
  return Where{table_.file, row_.line, 0, std::string(column)};
}

Result<std::string> RowReader::str(std::string_view column) const {
  auto idx = table_.column(column);
  if (!idx) return invalid_argument("missing column", where(column));
  return row_.fields[*idx];
}

Result<double> RowReader::number(std::string_view column) const {
  GPUPLAN_TRY(std::string text, str(column));
  auto v = strings::parse_double(strings::trim(text));
  if (!v) return invalid_argument("expected a number, found '" + text + "'", where(column));
  return *v;
}

Result<std::optional<double>> RowReader::optional_number(std::string_view column) const {
  GPUPLAN_TRY(std::string text, str(column));
  if (strings::trim(text).empty()) return std::optional<double>();
  auto v = strings::parse_double(strings::trim(text));
  if (!v) return invalid_argument("expected a number, found '" + text + "'", where(column));
  return std::optional<double>(*v);
}

Result<long long> RowReader::integer(std::string_view column) const {
  GPUPLAN_TRY(double v, number(column));
  if (v != std::floor(v)) return invalid_argument("expected an integer", where(column));
  // Beyond 2^53 a double no longer holds every integer, and beyond 2^63 the
  // conversion is undefined.
  if (std::fabs(v) > 9007199254740992.0)
    return invalid_argument("expected an integer of at most 2^53 in size", where(column));
  return static_cast<long long>(v);
}

std::string escape(std::string_view field) {
  if (field.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"')
      out += "\"\"";
    else
      out.push_back(c);
  }
  out += "\"";
  return out;
}

}  // namespace gpuplan::csv
