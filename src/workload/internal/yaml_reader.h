// The workload parser's YAML walker: a Reader that knows the file name and
// the dotted path of the current key, checks each mapping's keys against
// the allowed set (an unknown key gets the closest allowed one as "did you
// mean"), and converts scalars with type and range checks, every error
// kInvalidArgument naming file, line, column and field. Shared by the files
// of the workload parser (workload.cc, workload_model.cc,
// workload_sections.cc); not API.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/result.h"
#include "core/strings.h"

namespace gpuplan::workload::internal {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[nodiscard]] Where where(const YAML::Node& node, const std::string& field) const {
    YAML::Mark m = node.Mark();
    Where w{file_, 0, 0, field};
    if (m.line >= 0) {
      w.line = m.line + 1;
      w.column = m.column + 1;
    }
    return w;
  }
  [[nodiscard]] tl::unexpected<Error> error(const YAML::Node& node, const std::string& field,
                                            std::string msg) const {
    return invalid_argument(std::move(msg), where(node, field));
  }

  // Checks that `node` is a mapping whose keys are all in `allowed`.
  [[nodiscard]] Status check_map(const YAML::Node& node, const std::string& path,
                                 const std::vector<std::string>& allowed) const {
    if (!node.IsMap()) {
      return error(node, path, "expected a mapping of keys (key: value)");
    }
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

  // The key node of `name` in `map` (for marks), or the map itself.
  [[nodiscard]] YAML::Node key_node(const YAML::Node& map, const std::string& name) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == name) return it->first;
    }
    return map;
  }

  [[nodiscard]] Result<std::string> string(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) return error(node, field, "expected a string");
    return node.Scalar();
  }

  [[nodiscard]] Result<double> number(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) return error(node, field, "expected a number");
    std::string text = node.Scalar();
    // Allow digit grouping with '_' ("2_000_000_000").
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    auto v = strings::parse_double(text);
    if (!v) return error(node, field, "expected a number, got '" + node.Scalar() + "'");
    return *v;
  }
  [[nodiscard]] Result<double> positive(const YAML::Node& node, const std::string& field) const {
    GPUPLAN_TRY(double v, number(node, field));
    if (!(v > 0)) return error(node, field, "must be greater than 0, got " + node.Scalar());
    return v;
  }
  [[nodiscard]] Result<double> non_negative(const YAML::Node& node,
                                            const std::string& field) const {
    GPUPLAN_TRY(double v, number(node, field));
    if (v < 0) return error(node, field, "must not be negative, got " + node.Scalar());
    return v;
  }
  [[nodiscard]] Result<int> positive_int(const YAML::Node& node, const std::string& field) const {
    GPUPLAN_TRY(double v, number(node, field));
    if (v != std::floor(v) || std::abs(v) > 2e9) {
      return error(node, field, "expected a whole number, got '" + node.Scalar() + "'");
    }
    if (v <= 0) return error(node, field, "must be greater than 0, got " + node.Scalar());
    return static_cast<int>(v);
  }
  [[nodiscard]] Result<bool> boolean(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) return error(node, field, "expected true or false");
    const std::string s = strings::to_lower(node.Scalar());
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
    return error(node, field, "expected true or false, got '" + node.Scalar() + "'");
  }
  // One of `choices` (case-insensitive); returns its index.
  [[nodiscard]] Result<size_t> choice(const YAML::Node& node, const std::string& field,
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

  [[nodiscard]] static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// Iterates the keys of a checked map: fn(key, value, field).
template <typename Fn>
Status for_each(const YAML::Node& map, const std::string& path, Fn&& fn) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    GPUPLAN_RETURN_IF_ERROR(fn(key, it->second, Reader::join(path, key)));
  }
  return {};
}

}  // namespace gpuplan::workload::internal
