// The gpuplan command line: parse argv, call the library, format output.
// No arithmetic lives here (DESIGN.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace gpuplan::cli {

// Runs gpuplan with argv; returns the process exit code (see DESIGN.md).
int run(int argc, char** argv);

// In-process entry point for tests: args excludes the program name.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gpuplan::cli
