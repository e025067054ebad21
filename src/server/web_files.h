// Where the web page's files that are not built into the binary are found on
// disk: the charting library, Chart.js (Debian's libjs-chart.js), which
// `gpuplan serve` serves at /static/chart.js and `gpuplan simulate --plot`
// copies into its HTML file. The page itself (index.html, app.js, ...) is
// embedded, so a copied binary still serves it; nothing is fetched from a CDN.
//
// One function owns the search order, so that the install rules (which put
// src/server/web under PREFIX/share/gpuplan/web), the server and the CLI agree:
//
//   1. $GPUPLAN_WEB_DIR, when set and not empty: that folder only (a packager
//      who ships the library elsewhere; the tests, to check what happens when
//      it is missing);
//   2. PREFIX/share/gpuplan/web, PREFIX being the folder above the one that
//      holds the running binary (/proc/self/exe): an installed gpuplan;
//   3. the source tree's src/server/web (compiled in as
//      GPUPLAN_SOURCE_WEB_DIR): a build tree;
//   4. /usr/share/javascript/chart.js: where Debian's libjs-chart.js puts it
//      (3.9.1 in bookworm: chart.min.js and chart.js, both UMD builds).
//
// Header-only: the CLI (which does not link the server) uses it too.
#pragma once

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/result.h"

namespace gpuplan::server {

// Debian's libjs-chart.js folder (the package's file list, bookworm).
inline constexpr const char* kDebianChartJsDir = "/usr/share/javascript/chart.js";
// File names of a UMD (plain <script>) build of Chart.js, preferred first.
inline constexpr const char* kChartJsNames[] = {"chart.min.js", "chart.umd.js", "chart.js"};

// The folders searched, in the order above; `exe` is the running binary's
// path ("" to read /proc/self/exe).
[[nodiscard]] inline std::vector<std::filesystem::path> web_dirs(std::string exe = "") {
  if (const char* env = std::getenv("GPUPLAN_WEB_DIR"); env != nullptr && *env != '\0')
    return {env};
  std::vector<std::filesystem::path> dirs;
  if (exe.empty()) {
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) exe.assign(buf, static_cast<size_t>(n));
  }
  if (!exe.empty())
    dirs.push_back(std::filesystem::path(exe).parent_path().parent_path() / "share" / "gpuplan" /
                   "web");
#ifdef GPUPLAN_SOURCE_WEB_DIR
  dirs.emplace_back(GPUPLAN_SOURCE_WEB_DIR);
#endif
  dirs.emplace_back(kDebianChartJsDir);
  return dirs;
}

// A file read from disk and where it was found.
struct WebFile {
  std::string path;
  std::string bytes;
};

// The first of `names` found in the first folder of `dirs` that has one,
// read whole. kNotFound naming every path tried.
[[nodiscard]] inline Result<WebFile> find_web_file(const std::vector<std::filesystem::path>& dirs,
                                                   const std::vector<std::string>& names) {
  std::string tried;
  for (const auto& dir : dirs) {
    for (const auto& name : names) {
      const std::filesystem::path p = dir / name;
      std::ifstream in(p, std::ios::binary);
      if (!in) {
        tried += (tried.empty() ? "" : ", ") + p.string();
        continue;
      }
      std::ostringstream bytes;
      bytes << in.rdbuf();
      return WebFile{p.string(), bytes.str()};
    }
  }
  return not_found("not found (looked for " + tried + ")");
}

// Chart.js from the folders above; kNotFound saying where it looked and what
// to install.
[[nodiscard]] inline Result<WebFile> find_chart_js(
    const std::vector<std::filesystem::path>& dirs = web_dirs()) {
  auto f = find_web_file(dirs, {std::begin(kChartJsNames), std::end(kChartJsNames)});
  if (!f)
    return not_found("Chart.js " + f.error().message +
                     ": install Debian's libjs-chart.js (scripts/install-deps.sh), or set "
                     "GPUPLAN_WEB_DIR to a folder holding chart.min.js");
  return f;
}

}  // namespace gpuplan::server
