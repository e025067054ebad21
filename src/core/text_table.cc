#include "core/text_table.h"

#include <algorithm>
#include <cassert>

namespace gpuplan {

namespace {
// Display width: counts UTF-8 code points, not bytes.
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}
}  // namespace

size_t TextTable::add_column(std::string header, Align align) {
  headers_.push_back(std::move(header));
  aligns_.push_back(align);
  return headers_.size() - 1;
}

void TextTable::add_row(std::vector<std::string> cells) {
  assert(cells.size() <= headers_.size());
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) {
    width[c] = display_width(headers_[c]);
    for (const auto& r : rows_) width[c] = std::max(width[c], display_width(r[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      size_t pad = width[c] - display_width(cells[c]);
      bool last = c + 1 == cells.size();
      if (aligns_[c] == Align::kRight) {
        out.append(pad, ' ');
        out += cells[c];
      } else {
        out += cells[c];
        if (!last) out.append(pad, ' ');
      }
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_);
  std::vector<std::string> rule;
  for (size_t w : width) rule.emplace_back(w, '-');
  out += line(rule);
  for (const auto& r : rows_) out += line(r);
  return out;
}

}  // namespace gpuplan
