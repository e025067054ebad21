// libFuzzer harness for the CSV reader every data file and trace goes
// through (core/csv.h): any input either parses or returns an Error that
// names the file; typed access never crashes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto table = gpuplan::csv::parse(text, "fuzz.csv");
  if (!table) {
    if (table.error().where.file != "fuzz.csv") __builtin_trap();
    return 0;
  }
  for (const auto& row : table->rows) {
    gpuplan::csv::RowReader reader(*table, row);
    for (const auto& column : table->header) {
      (void)reader.number(column);
      (void)reader.optional_number(column);
      (void)reader.integer(column);
    }
  }
  return 0;
}
