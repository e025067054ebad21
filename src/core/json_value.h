// JSON's one rule for an absent value (docs/json.md): null, never a
// sentinel number. Every JSON writer spells it through or_null().
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace gpuplan::json {

template <class T>
[[nodiscard]] nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace gpuplan::json
