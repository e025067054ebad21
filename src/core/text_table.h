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
  // Renders within `width` columns (display width) if it can: while a line is
  // wider, leaves out the next column of `drop_order` (headers, least useful
  // first). The headers left out go to `dropped` when given. Columns not in
  // `drop_order` are always shown, so the text may still be wider.
  [[nodiscard]] std::string render_fitting(size_t width, const std::vector<std::string>& drop_order,
                                           std::vector<std::string>* dropped = nullptr) const;

 private:
  [[nodiscard]] std::string render(const std::vector<bool>& shown) const;

  std::vector<std::string> headers_;
  std::vector<Align> aligns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gpuplan
