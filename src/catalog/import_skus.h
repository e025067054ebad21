// Importer for `az vm list-skus --all -o json` (a bare JSON array) and the
// Resource SKUs REST shape ({"value": [...], "nextLink": ...}).
#pragma once

#include <string>
#include <string_view>

#include "catalog/internal/import_common.h"

namespace gpuplan::catalog {

// Which GPU sizes are offered in which region and zones, and the
// subscription's restrictions (type Location: the whole region; type Zone:
// some zones), from one list-skus document. Only resourceType
// "virtualMachines" entries for sizes the filter keeps are used. The GPU
// count capability is deliberately not read (the API rounds fractional GPUs:
// NV6ads_A10_v5 says 1 where the VM gets 1/6). `origin` names the document
// in errors. kInvalidArgument naming the JSON path on bad input, including
// "nothing to import" when no GPU size is in it.
[[nodiscard]] Result<ImportReport> import_skus_text(std::string_view text,
                                                    const std::string& origin,
                                                    const SizeFilter& filter);
[[nodiscard]] Result<ImportReport> import_skus_file(const std::string& path,
                                                    const SizeFilter& filter);

}  // namespace gpuplan::catalog
