#include "catalog/lookup.h"

#include <string>
#include <vector>

#include "core/strings.h"

namespace gpuplan::catalog {

namespace {

std::string_view short_name(std::string_view name) {
  constexpr std::string_view kPrefix = "Standard_";
  return strings::starts_with_icase(name, kPrefix) ? name.substr(kPrefix.size()) : name;
}

}  // namespace

Result<const VmSize*> lookup_size(const Catalog& catalog, std::string_view name, Where where) {
  if (const VmSize* size = catalog.find_size(name)) return size;
  // Compare without the common prefix, so that it does not make every name
  // look close; suggest the full name.
  std::vector<std::string> shorts;
  for (const VmSize& s : catalog.sizes()) shorts.emplace_back(short_name(s.name));
  std::string msg = "unknown VM size '" + std::string(name) + "'";
  if (auto near = strings::closest(short_name(name), shorts))
    if (const VmSize* guess = catalog.find_size(*near))
      msg += "; did you mean '" + guess->name + "'?";
  return not_found(msg, std::move(where));
}

}  // namespace gpuplan::catalog
