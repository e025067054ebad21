#include "e2e/e2e_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli.h"

namespace gpuplan::e2e {

CliResult run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CliResult r;
  r.code = cli::run(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

namespace {
// Statuses (retired, retiring) and prices' ages are computed from today's
// date: goldens are written for a fixed one (catalog::today()).
const bool kFixedToday = [] { return ::setenv("GPUPLAN_TODAY", "2026-12-02", 1) == 0; }();

// Every e2e test runs from the source root and names files relative to it, as
// a user in a checkout would. Output then does not depend on where the
// checkout lives: an absolute path's length would move the 100-column line
// wraps, so a golden written in one checkout failed in a deeper one.
const bool kInSourceRoot = [] {
  std::error_code ec;
  std::filesystem::current_path(GPUPLAN_SOURCE_DIR, ec);
  return !ec;
}();
}  // namespace

std::string source_path(const std::string& relative) {
  if (kInSourceRoot) return relative;
  return std::string(GPUPLAN_SOURCE_DIR) + "/" + relative;
}

std::string check_golden(const std::string& name, const std::string& actual) {
  std::string path = source_path("tests/e2e/golden/" + name);
  const char* update = std::getenv("GPUPLAN_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return "";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return "golden file missing: " + path + " (run with GPUPLAN_UPDATE_GOLDEN=1)";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string expected = ss.str();
  if (expected == actual) return "";
  // First differing line.
  std::istringstream a(actual), e(expected);
  std::string la, le;
  int line = 1;
  while (true) {
    bool ga = static_cast<bool>(std::getline(a, la));
    bool ge = static_cast<bool>(std::getline(e, le));
    if (!ga && !ge) break;
    if (la != le || ga != ge)
      return "golden " + name + " differs at line " + std::to_string(line) +
             ":\n  expected: " + (ge ? le : "<eof>") + "\n  actual:   " + (ga ? la : "<eof>");
    ++line;
  }
  return "golden " + name + " differs (whitespace at end?)";
}

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "gpuplan-e2e-XXXXXX").string();
  char* p = ::mkdtemp(tmpl.data());
  return p ? std::string(p) : std::string();
}

}  // namespace gpuplan::e2e
