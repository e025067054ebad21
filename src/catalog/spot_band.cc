// Azure's spot eviction-rate bands: the five spellings Azure Resource Graph
// uses in SpotResources properties.evictionRate and their edges in percent.
//
// The spellings: "Each VM type has an eviction rate expressed as a percentage
// range (0-5%, 5-10%, 10-15%, 15-20%, 20+%)" (MicrosoftDocs/architecture-center
// docs/guide/spot/spot-eviction-content.md, "Azure Virtual Machine Spot
// Eviction"); in Resource Graph the strings carry no '%' ("0-5", ..., "20+":
// lrivallain/az-scout src/az_scout/services/eviction_rate.py,
// redhat-developer/mapt pkg/provider/azure spot price queries). Anything else
// is refused by the importer rather than guessed.
#include <optional>
#include <string_view>

#include "catalog/catalog.h"

namespace gpuplan::catalog {

std::string_view to_string(EvictionBand b) {
  switch (b) {
    case EvictionBand::k0To5:
      return "0-5";
    case EvictionBand::k5To10:
      return "5-10";
    case EvictionBand::k10To15:
      return "10-15";
    case EvictionBand::k15To20:
      return "15-20";
    case EvictionBand::k20Plus:
      return "20+";
  }
  return "?";
}

std::optional<EvictionBand> parse_eviction_band(std::string_view s) {
  for (EvictionBand b : kAllEvictionBands)
    if (s == to_string(b)) return b;
  return std::nullopt;
}

double band_low_percent(EvictionBand b) {
  switch (b) {
    case EvictionBand::k0To5:
      return 0;
    case EvictionBand::k5To10:
      return 5;
    case EvictionBand::k10To15:
      return 10;
    case EvictionBand::k15To20:
      return 15;
    case EvictionBand::k20Plus:
      return 20;
  }
  return 0;
}

std::optional<double> band_high_percent(EvictionBand b) {
  if (b == EvictionBand::k20Plus) return std::nullopt;
  return band_low_percent(b) + 5;
}

}  // namespace gpuplan::catalog
