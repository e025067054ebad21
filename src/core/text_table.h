// Aligned plain-text tables for the CLI (numbers right-aligned, text left).
#pragma once

#include <string>
#include <vector>

namespace gpuplan {

class TextTable {
 public:
  enum class Align { kLeft, kRight };

  // Adds a column; returns its index.
  size_t add_column(std::string header, Align align = Align::kLeft);
  // Adds a row; missing cells are blank, extra cells are an assert.
  void add_row(std::vector<std::string> cells);
  [[nodiscard]] size_t rows() const { return rows_.size(); }
  // Renders with two spaces between columns and a dashed rule under the header.
  [[nodiscard]] std::string render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> aligns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gpuplan
