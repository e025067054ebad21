#include "workload/yaml_load.h"

#include <set>

#include "core/names.h"
#include "core/strings.h"

namespace gpuplan::workload {
namespace {

Where where_of(const YAML::Mark& m, const std::string& file, const std::string& field) {
  return Where{file, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, field};
}

// Bounds on the walk: aliases make the node tree a graph, and `&a {b: *a}`
// refers to itself while a few nested aliases expand exponentially ("billion
// laughs"). No real workload or scenario nests 32 levels or holds 100,000
// nodes.
constexpr int kMaxDepth = 32;
constexpr int kMaxNodes = 100000;

struct Walk {
  const std::string& file;
  int nodes = 0;
};

// Every mapping under `node` with its keys unique; `path` is the dotted field.
Status check_unique_keys(const YAML::Node& node, Walk& walk, const std::string& path, int depth) {
  if (depth > kMaxDepth || ++walk.nodes > kMaxNodes)
    return invalid_argument(depth > kMaxDepth ? "nested deeper than " + std::to_string(kMaxDepth) +
                                                    " levels (or an alias that contains itself)"
                                              : "more than " + std::to_string(kMaxNodes) +
                                                    " values once aliases are expanded",
                            where_of(node.Mark(), walk.file, path));
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i)
      GPUPLAN_RETURN_IF_ERROR(
          check_unique_keys(node[i], walk, path + "[" + std::to_string(i) + "]", depth + 1));
    return {};
  }
  if (!node.IsMap()) return {};
  std::set<std::string> seen;
  for (const auto& kv : node) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const std::string field = path.empty() ? key : path + "." + key;
    if (kv.first.IsScalar() && !seen.insert(key).second)
      return invalid_argument("key '" + names::printable(key) +
                                  "' is given twice in this mapping (YAML keys are unique; "
                                  "which one was meant?)",
                              where_of(kv.first.Mark(), walk.file, field));
    GPUPLAN_RETURN_IF_ERROR(check_unique_keys(kv.second, walk, field, depth + 1));
  }
  return {};
}

}  // namespace

Result<YAML::Node> load_yaml(std::string_view text, const std::string& file) {
  if (auto bad = strings::invalid_utf8_at(text)) {
    const auto [line, column] = strings::line_column(text, *bad);
    return invalid_argument("not UTF-8 text (byte 0x" + strings::hex_byte(text[*bad]) + ")",
                            Where{file, line, column, ""});
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
    Walk walk{file};
    GPUPLAN_RETURN_IF_ERROR(check_unique_keys(root, walk, "", 0));
  } catch (const YAML::Exception& e) {
    return invalid_argument("YAML syntax: " + e.msg, where_of(e.mark, file, ""));
  }
  return root;
}

}  // namespace gpuplan::workload
