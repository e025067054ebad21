#include "cli/command.h"

namespace gpuplan::cli {

// Not built yet; see the open issues.
void add_catalog_import_commands(CLI::App& /*catalog*/, Context& /*ctx*/) {}

}  // namespace gpuplan::cli
