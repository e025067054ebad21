// Reading YAML for every parser that reads it (workload specs, simulate
// scenarios, the CLI's name checks): one loader and one walker.
//
// load() turns text into a node tree and reports, as kInvalidArgument naming
// file, line, column (and the field where there is one), yaml-cpp's own
// syntax errors and three it does not:
//  - text that is not UTF-8 (YAML 1.2 section 5.2; yaml-cpp passes the bytes
//    on, so a name could carry them into output and scripts);
//  - a key given twice in one mapping: yaml-cpp keeps both and `node[key]`
//    answers the first, so a second `deadline_hours` was silently ignored.
//    YAML 1.2 section 3.2.1.1 requires keys to be unique;
//  - aliases nested past a depth or node budget ("billion laughs").
//
// Reader walks the tree: it knows the file name, takes the dotted path of the
// current key, checks each mapping's keys against the allowed set (an unknown
// key gets the closest allowed one as "did you mean"), and converts scalars
// with type and range checks. Every error is kInvalidArgument naming file,
// line, column and field, which the CLI turns into exit 2.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/result.h"

namespace gpuplan::yaml {

// Text to a node tree, or the located reason it is not one.
[[nodiscard]] Result<YAML::Node> load(std::string_view text, const std::string& file);

// The location of a yaml-cpp mark (0-based; -1 when unknown) as Where
// (1-based; 0 when unknown).
[[nodiscard]] Where located(const YAML::Mark& mark, const std::string& file,
                            const std::string& field);

// No ceiling: the default upper bound of the range-checked conversions.
inline constexpr double kNoCeiling = std::numeric_limits<double>::infinity();

class Reader {
 public:
  explicit Reader(std::string file);

  [[nodiscard]] Where where(const YAML::Node& node, const std::string& field) const;
  [[nodiscard]] tl::unexpected<Error> error(const YAML::Node& node, const std::string& field,
                                            const std::string& msg) const;

  // Checks that `node` is a mapping whose keys are all in `allowed`.
  [[nodiscard]] Status check_map(const YAML::Node& node, const std::string& path,
                                 const std::vector<std::string>& allowed) const;
  // The key node of `name` in `map` (for marks), or the map itself.
  [[nodiscard]] static YAML::Node key_node(const YAML::Node& map, const std::string& name);

  // Any scalar, empty included.
  [[nodiscard]] Result<std::string> string(const YAML::Node& node, const std::string& field) const;
  // A scalar that is not empty.
  [[nodiscard]] Result<std::string> non_empty_string(const YAML::Node& node,
                                                     const std::string& field) const;

  // A number; '_' may group digits ("2_000_000_000").
  [[nodiscard]] Result<double> number(const YAML::Node& node, const std::string& field) const;
  // A number in [lo, hi].
  [[nodiscard]] Result<double> number(const YAML::Node& node, const std::string& field, double lo,
                                      double hi) const;
  // A number > 0 and at most `hi`.
  [[nodiscard]] Result<double> positive(const YAML::Node& node, const std::string& field,
                                        double hi = kNoCeiling) const;
  [[nodiscard]] Result<double> non_negative(const YAML::Node& node, const std::string& field) const;
  // A whole number in [lo, hi].
  [[nodiscard]] Result<int> integer(const YAML::Node& node, const std::string& field, int lo,
                                    int hi) const;
  // A whole number > 0 (and below 2e9).
  [[nodiscard]] Result<int> positive_int(const YAML::Node& node, const std::string& field) const;
  [[nodiscard]] Result<bool> boolean(const YAML::Node& node, const std::string& field) const;
  // One of `choices` (case-insensitive); returns its index.
  [[nodiscard]] Result<size_t> choice(const YAML::Node& node, const std::string& field,
                                      const std::vector<std::string>& choices) const;

  [[nodiscard]] static std::string join(const std::string& path, const std::string& key);

  [[nodiscard]] const std::string& file() const { return file_; }

 private:
  // "expected a number in [lo, hi], got X" ('(' when lo itself is refused).
  [[nodiscard]] tl::unexpected<Error> out_of_range(const YAML::Node& node, const std::string& field,
                                                   double lo, double hi, bool lo_open) const;

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

}  // namespace gpuplan::yaml
