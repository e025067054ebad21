#include "core/format.h"

#include <cmath>
#include <cstdio>

#include "core/strings.h"

namespace gpuplan::format {
namespace {

// Decimals that show `v` with at least three significant digits, and at
// least `floor_decimals`.
int decimals_for(double v, int floor_decimals) {
  const double a = std::fabs(v);
  if (a == 0 || a >= 100) return floor_decimals;
  // 3 significant digits: 10..99.9 → 1, 1..9.99 → 2, 0.1..0.999 → 3, ...
  const int magnitude = static_cast<int>(std::floor(std::log10(a)));
  const int d = 2 - magnitude;
  return d > floor_decimals ? d : floor_decimals;
}

std::string drop_trailing_zeros(std::string s, size_t keep_decimals) {
  const size_t dot = s.find('.');
  if (dot == std::string::npos) return s;
  while (s.size() > dot + 1 + keep_decimals && s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string group_thousands(const std::string& digits) {
  const size_t dot = digits.find('.');
  const std::string whole = digits.substr(0, dot);
  std::string grouped;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i && (whole.size() - i) % 3 == 0) grouped += ',';
    grouped += whole[i];
  }
  return dot == std::string::npos ? grouped : grouped + digits.substr(dot);
}

}  // namespace

std::string number(double v, Kind kind, Form form) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  const bool negative = v < 0;
  std::string digits;
  if (kind == Kind::kMoney) {
    // Cents; below ten cents as many decimals as three significant digits need.
    const int d = std::fabs(v) >= 0.1 ? 2 : decimals_for(v, 2);
    digits = strings::fixed(std::fabs(v), d);
    // A rounded "0.00" stays "0.00", not "0".
    digits = drop_trailing_zeros(std::move(digits), d > 2 ? 0 : 2);
    if (digits.find('.') == std::string::npos) digits += ".00";
    const size_t dot = digits.find('.');
    while (digits.size() < dot + 3) digits += '0';
    if (form == Form::kText) digits = "$" + group_thousands(digits);
  } else {
    digits = drop_trailing_zeros(strings::fixed(std::fabs(v), decimals_for(v, 0)), 0);
  }
  // "-0" and "-$0.00" are rounding artefacts, not signs.
  const bool zero = digits.find_first_of("123456789") == std::string::npos;
  return (negative && !zero ? "-" : "") + digits;
}

std::string trimmed(double v, int max_decimals) {
  std::string s = drop_trailing_zeros(strings::fixed(v, max_decimals), 0);
  if (s == "-0") s = "0";
  return s;
}

}  // namespace gpuplan::format
