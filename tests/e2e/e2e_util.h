// Helpers for end-to-end CLI tests: run gpuplan in-process and compare with
// golden files (tests/e2e/golden/). Set GPUPLAN_UPDATE_GOLDEN=1 to rewrite a
// golden file on purpose, then review the diff.
#pragma once

#include <string>
#include <vector>

namespace gpuplan::e2e {

struct CliResult {
  int code = 0;
  std::string out;
  std::string err;
};

// Runs the CLI in-process with these args (no program name).
CliResult run_cli(const std::vector<std::string>& args);

// Path of a file in the source tree, e.g. source_path("examples/x.yaml"):
// relative, since the tests run from the source root ("" for the root).
std::string source_path(const std::string& relative);

// Compares `actual` with tests/e2e/golden/<name>; returns "" when equal, else
// a readable diff summary. Rewrites the file when GPUPLAN_UPDATE_GOLDEN=1.
std::string check_golden(const std::string& name, const std::string& actual);

// A fresh empty temporary directory (removed at exit is not guaranteed).
std::string temp_dir();

}  // namespace gpuplan::e2e
