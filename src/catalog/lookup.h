// Looking up a VM size a user typed, with "did you mean" when it is unknown:
// the one place every command and route turns a name into a size.
#pragma once

#include <string_view>

#include "catalog/catalog.h"
#include "core/result.h"

namespace gpuplan::catalog {

// The size named `name` (case-insensitive, "Standard_" optional). kNotFound
// at `where` when the catalog has no such size: "unknown VM size 'X'; did
// you mean 'Standard_Y'?" (the suggestion when a name is close enough).
[[nodiscard]] Result<const VmSize*> lookup_size(const Catalog& catalog, std::string_view name,
                                                Where where);

}  // namespace gpuplan::catalog
