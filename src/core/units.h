// Units that carry money and time in the type, so a $/h is never added to a $.
#pragma once

#include <compare>

namespace gpuplan {

// A quantity tagged with its unit. Arithmetic within one unit only;
// conversions between units are explicit functions below.
template <typename Tag>
struct Quantity {
  double value = 0.0;

  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : value(v) {}
  constexpr Quantity operator+(Quantity o) const { return Quantity(value + o.value); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value - o.value); }
  constexpr Quantity operator*(double k) const { return Quantity(value * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value / k); }
  constexpr double operator/(Quantity o) const { return value / o.value; }
  constexpr Quantity& operator+=(Quantity o) {
    value += o.value;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value -= o.value;
    return *this;
  }
  // clang-tidy 14 reads the 0 that a defaulted <=> compares with as a null
  // pointer (llvm-project#53961, fixed in clang-tidy 18).
  constexpr auto operator<=>(const Quantity&) const = default;  // NOLINT(modernize-use-nullptr)
};

struct UsdTag {};
struct UsdPerHourTag {};
struct HoursTag {};
struct GibTag {};

using Usd = Quantity<UsdTag>;
using UsdPerHour = Quantity<UsdPerHourTag>;
using Hours = Quantity<HoursTag>;
using GiB = Quantity<GibTag>;

constexpr Usd operator*(UsdPerHour rate, Hours h) { return Usd(rate.value * h.value); }
constexpr Usd operator*(Hours h, UsdPerHour rate) { return Usd(rate.value * h.value); }

// Azure's conventions (DESIGN.md): a year is 8,760 hours, a month 730.
inline constexpr double kHoursPerYear = 8760.0;
inline constexpr double kHoursPerMonth = 730.0;
inline constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGbPerGib = kBytesPerGib / 1e9;  // 1 GiB = 1.0737 GB

}  // namespace gpuplan
