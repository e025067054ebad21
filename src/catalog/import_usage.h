// Importer for `az vm list-usage -l REGION -o json` (a bare JSON array) and
// the REST shape ({"value": [...], "nextLink": ...}).
#pragma once

#include <string>
#include <string_view>

#include "catalog/internal/import_common.h"

namespace gpuplan::catalog {

// vCPU quota rows for `region`: the regional total (name.value "cores",
// stored with family ""), every VM family ("...Family", stored under its API
// name with the display name beside it; families that a catalog size uses
// are stored under the catalog's spelling, matched ignoring case and
// spaces), and the spot pool ("lowPriorityCores"). Other rows (VM counts,
// availability sets, disks) are ignored and counted. kInvalidArgument naming
// the JSON path on bad input (missing or non-numeric currentValue / limit,
// negative values, wrong shapes) and when the region is empty.
[[nodiscard]] Result<ImportReport> import_usage_text(std::string_view text,
                                                     const std::string& origin,
                                                     const std::string& region,
                                                     const SizeFilter& filter);
[[nodiscard]] Result<ImportReport> import_usage_file(const std::string& path,
                                                     const std::string& region,
                                                     const SizeFilter& filter);

}  // namespace gpuplan::catalog
