// The SQLite store of imported Azure data. Minimal first cut: the default
// path and an empty read for a store that does not exist yet.
#include "catalog/store.h"

#include <cstdlib>
#include <filesystem>

namespace gpuplan::catalog {

std::string default_store_path() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg != nullptr && *xdg != '\0') return std::string(xdg) + "/gpuplan/catalog.db";
  const char* home = std::getenv("HOME");
  std::string base = (home != nullptr && *home != '\0') ? std::string(home) : std::string(".");
  return base + "/.local/share/gpuplan/catalog.db";
}

Result<StoreContents> read_store(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return StoreContents{};
  return unavailable("the store reader is not built yet", Where{path, 0, 0, ""});
}

}  // namespace gpuplan::catalog
