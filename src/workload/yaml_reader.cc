#include "workload/yaml_reader.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "core/names.h"
#include "core/strings.h"

namespace gpuplan::yaml {
namespace {

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
                            located(node.Mark(), walk.file, path));
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
                              located(kv.first.Mark(), walk.file, field));
    GPUPLAN_RETURN_IF_ERROR(check_unique_keys(kv.second, walk, field, depth + 1));
  }
  return {};
}

}  // namespace

// The offset just past a document marker that starts a second document:
// a line "---" (alone, or followed by a space) at column 0 that comes after
// a line of content (not blank, not a comment, not a directive or the first
// marker). nullopt when the text has one document.
std::optional<size_t> second_document_at(std::string_view text) {
  bool content = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const bool marker =
        line.substr(0, 3) == "---" && (line.size() == 3 || line[3] == ' ' || line[3] == '\t');
    if (marker && content) return end < text.size() ? end + 1 : end;
    if (marker) {
      // "--- value" on the first marker's line is content.
      const std::string_view rest = strings::trim(line.substr(3));
      if (!rest.empty() && rest.front() != '#') content = true;
    } else {
      const std::string_view t = strings::trim(line);
      if (!t.empty() && t.front() != '#' && t.front() != '%') content = true;
    }
    pos = end + 1;
  }
  return std::nullopt;
}

Result<YAML::Node> load(std::string_view text, const std::string& file) {
  if (auto bad = strings::invalid_utf8_at(text)) {
    const auto [line, column] = strings::line_column(text, *bad);
    return invalid_argument("not UTF-8 text (byte 0x" + strings::hex_byte(text[*bad]) + ")",
                            Where{file, line, column, ""});
  }
  YAML::Node root;
  try {
    // One document: a second (after "---") was ignored, whatever it said.
    // It is found by its marker, a line "---" at column 0 after the first
    // document's content, and read on its own; YAML::LoadAll is not used:
    // on some malformed input it never returns (the fuzzers found inputs
    // on which it grew to gigabytes).
    if (const std::optional<size_t> at = second_document_at(text)) {
      bool empty = false;  // a trailing "---" says nothing and is let be
      try {
        empty = YAML::Load(std::string(text.substr(*at))).IsNull();
      } catch (const YAML::Exception&) {
        // not even YAML: a second document all the same
      }
      if (!empty) {
        const auto [line, column] = strings::line_column(text, *at);
        return invalid_argument(
            "a second YAML document (after '---'): the file is one document; merge them or "
            "split the file",
            Where{file, line, column, ""});
      }
    }
    root = YAML::Load(std::string(text));
    Walk walk{file};
    GPUPLAN_RETURN_IF_ERROR(check_unique_keys(root, walk, "", 0));
  } catch (const YAML::Exception& e) {
    return invalid_argument("YAML syntax: " + e.msg, located(e.mark, file, ""));
  }
  return root;
}

Where located(const YAML::Mark& mark, const std::string& file, const std::string& field) {
  return Where{file, mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 : 0,
               field};
}

Reader::Reader(std::string file) : file_(std::move(file)) {}

Where Reader::where(const YAML::Node& node, const std::string& field) const {
  return located(node.Mark(), file_, field);
}

tl::unexpected<Error> Reader::error(const YAML::Node& node, const std::string& field,
                                    const std::string& msg) const {
  return invalid_argument(msg, where(node, field));
}

Status Reader::check_map(const YAML::Node& node, const std::string& path,
                         const std::vector<std::string>& allowed) const {
  if (!node.IsMap()) return error(node, path, "expected a mapping of keys (key: value)");
  for (auto it = node.begin(); it != node.end(); ++it) {
    // A copy: `it->` yields a temporary, a reference would dangle.
    const YAML::Node k = it->first;
    if (!k.IsScalar()) return error(k, path, "expected a plain key");
    const std::string& name = k.Scalar();  // k, a copy, outlives it
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    std::string msg = "unknown key '" + name + "'";
    if (auto c = strings::closest(name, allowed)) {
      msg += "; did you mean '" + *c + "'?";
    } else {
      msg += "; expected one of:";
      for (size_t i = 0; i < allowed.size(); ++i) msg += (i ? ", " : " ") + allowed[i];
    }
    return error(k, join(path, name), msg);
  }
  return {};
}

YAML::Node Reader::key_node(const YAML::Node& map, const std::string& name) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == name) return it->first;
  }
  return map;
}

Result<std::string> Reader::string(const YAML::Node& node, const std::string& field) const {
  if (!node.IsScalar()) return error(node, field, "expected a string");
  // Names and paths reach the terminal as they are (cli/term.h: no escape
  // sequence of any kind): a name with ESC [31m coloured the report and
  // U+202E reversed it.
  if (auto at = strings::terminal_control_at(node.Scalar())) {
    return error(node, field,
                 "a control character (byte 0x" + strings::hex_byte(node.Scalar()[*at]) +
                     " at offset " + std::to_string(*at) + ") in a name or path");
  }
  return node.Scalar();
}

Result<std::string> Reader::non_empty_string(const YAML::Node& node,
                                             const std::string& field) const {
  if (!node.IsScalar() || node.Scalar().empty()) {
    return error(node, field, "expected a non-empty string");
  }
  return string(node, field);
}

Result<double> Reader::number(const YAML::Node& node, const std::string& field) const {
  if (!node.IsScalar()) return error(node, field, "expected a number");
  std::string text(strings::trim(node.Scalar()));
  text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
  auto v = strings::parse_double(text);
  if (!v) return error(node, field, "expected a number, got '" + node.Scalar() + "'");
  return *v;
}

tl::unexpected<Error> Reader::out_of_range(const YAML::Node& node, const std::string& field,
                                           double lo, double hi, bool lo_open) const {
  const auto bound = [](double x) {
    if (x >= kNoCeiling) return std::string("inf");
    // 1e+15, not 1000000000000000
    if (x >= 1e9 || (x > 0 && x < 1e-3)) return strings::general(x);
    return strings::fixed(x, x == std::floor(x) ? 0 : 3);
  };
  return error(node, field,
               std::string("expected a number in ") + (lo_open ? "(" : "[") + bound(lo) + ", " +
                   bound(hi) + "], got " + node.Scalar());
}

Result<double> Reader::number(const YAML::Node& node, const std::string& field, double lo,
                              double hi) const {
  GPUPLAN_TRY(double v, number(node, field));
  if (v < lo || v > hi) return out_of_range(node, field, lo, hi, false);
  return v;
}

Result<double> Reader::positive(const YAML::Node& node, const std::string& field, double hi) const {
  GPUPLAN_TRY(double v, number(node, field));
  if (!(v > 0)) return error(node, field, "must be greater than 0, got " + node.Scalar());
  if (v > hi) return out_of_range(node, field, 0, hi, true);
  return v;
}

Result<double> Reader::non_negative(const YAML::Node& node, const std::string& field) const {
  GPUPLAN_TRY(double v, number(node, field));
  if (v < 0) return error(node, field, "must not be negative, got " + node.Scalar());
  return v;
}

Result<int> Reader::integer(const YAML::Node& node, const std::string& field, int lo,
                            int hi) const {
  GPUPLAN_TRY(double v, number(node, field, lo, hi));
  if (v != std::floor(v)) {
    return error(node, field, "expected a whole number, got '" + node.Scalar() + "'");
  }
  return static_cast<int>(v);
}

Result<int> Reader::positive_int(const YAML::Node& node, const std::string& field) const {
  GPUPLAN_TRY(double v, number(node, field));
  if (v != std::floor(v)) {
    return error(node, field, "expected a whole number, got '" + node.Scalar() + "'");
  }
  if (v <= 0) return error(node, field, "must be greater than 0, got " + node.Scalar());
  if (v > 2e9) return error(node, field, "must be at most 2000000000, got " + node.Scalar());
  return static_cast<int>(v);
}

Result<bool> Reader::boolean(const YAML::Node& node, const std::string& field) const {
  if (!node.IsScalar()) return error(node, field, "expected true or false");
  const std::string s = strings::to_lower(node.Scalar());
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  return error(node, field, "expected true or false, got '" + node.Scalar() + "'");
}

Result<size_t> Reader::choice(const YAML::Node& node, const std::string& field,
                              const std::vector<std::string>& choices) const {
  GPUPLAN_TRY(std::string s, string(node, field));
  const std::string low = strings::to_lower(s);
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == low) return i;
  }
  std::string msg = "unknown value '" + s + "'";
  if (auto c = strings::closest(s, choices)) msg += "; did you mean '" + *c + "'?";
  msg += " (expected one of:";
  for (size_t i = 0; i < choices.size(); ++i) msg += (i ? ", " : " ") + choices[i];
  msg += ")";
  return error(node, field, msg);
}

std::string Reader::join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

}  // namespace gpuplan::yaml
