// Helpers shared by the cost model's files (cost.cc, quote.cc, rates.cc,
// storage.cc): how numbers, hours and rates are written in the cost lines,
// how a rates.csv row is cited, and graduated (tiered) pricing. Nothing
// outside src/cost/ includes this header.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/format.h"
#include "core/strings.h"
#include "cost/cost.h"

namespace gpuplan::cost::internal {

std::string_view embedded_file(std::string_view name);

inline bool is_commitment(catalog::Pricing p) { return catalog::commitment_hours(p) > 0; }

// Hours with up to 2 decimals, trailing zeros trimmed ("13.95", "0.25", "48").
inline std::string hrs(double h) { return format::trimmed(h, 2); }

// A price per hour as text ("$3.67/h", "$0.0526/h"): money's rounding.
inline std::string rate_text(double usd_per_hour) { return format::usd(usd_per_hour) + "/h"; }

// "SOURCE, AS_OF, CONFIDENCE; R rate used, none for REGION".
std::string cite(const Rate& r, bool fell_back, std::string_view region);

// Graduated pricing: each band's rate applies from its start up to the next
// band's (internet egress tiers, Blob capacity tiers). Bands sorted by start.
struct Tier {
  double from = 0;
  double usd_per_unit = 0;
};
[[nodiscard]] double tiered(double amount, const std::vector<Tier>& tiers);

}  // namespace gpuplan::cost::internal
