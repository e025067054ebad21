#include "cli/command.h"

namespace gpuplan::cli {

// Not built yet; see the open issues.
void add_simulate_command(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace gpuplan::cli
