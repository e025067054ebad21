#include "core/text_table.h"

#include <algorithm>
#include <cassert>

#include "core/strings.h"

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
  // Cells quote input (a cost export's ResourceId, a quota family's name):
  // escaped here, so no table prints a control a terminal would act on.
  for (std::string& cell : cells) cell = strings::escape_controls(cell);
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const { return render(std::vector<bool>(headers_.size(), true)); }

std::string TextTable::render_fitting(size_t width, const std::vector<std::string>& drop_order,
                                      std::vector<std::string>* dropped) const {
  std::vector<bool> shown(headers_.size(), true);
  std::string out = render(shown);
  for (const std::string& name : drop_order) {
    size_t widest = 0, cur = 0;
    for (char c : out) {
      if (c == '\n') {
        widest = std::max(widest, cur);
        cur = 0;
      } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++cur;
      }
    }
    if (widest <= width) break;
    auto it = std::find(headers_.begin(), headers_.end(), name);
    if (it == headers_.end()) continue;
    shown[static_cast<size_t>(it - headers_.begin())] = false;
    if (dropped != nullptr) dropped->push_back(name);
    out = render(shown);
  }
  return out;
}

std::string TextTable::render(const std::vector<bool>& shown) const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) {
    width[c] = display_width(headers_[c]);
    for (const auto& r : rows_) width[c] = std::max(width[c], display_width(r[c]));
  }
  size_t last_shown = 0;
  for (size_t c = 0; c < shown.size(); ++c) {
    if (shown[c]) last_shown = c;
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (!shown[c]) continue;
      size_t pad = width[c] - display_width(cells[c]);
      bool last = c == last_shown;
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
  rule.reserve(width.size());
  for (size_t w : width) rule.emplace_back(w, '-');
  out += line(rule);
  for (const auto& r : rows_) out += line(r);
  return out;
}

}  // namespace gpuplan
