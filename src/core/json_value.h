// JSON's one rule for an absent value (docs/json.md): null, never a sentinel
// number. An empty std::optional is written as null wherever it is assigned to
// a JSON value (the adl_serializer below); or_null() says the same where an
// expression needs a json value of its own (a braced initializer).
//
// One way to write a record: GPUPLAN_JSON_FIELDS(Type, field, ...) next to the
// writer declares the fields written under their own names, in the order given
// (ordered_json keeps it), and `nlohmann::ordered_json j = record;` writes
// them. A writer then adds by hand only what is computed, renamed or
// conditional; where such keys fall between fields, it lists each run of fields
// with GPUPLAN_JSON_WRITE_FIELDS(j, record, field, ...). It is nlohmann's
// NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE, to_json half only, for ordered_json:
// Debian's nlohmann-json 3.11.2 defines that macro for nlohmann::json alone
// (its keys sorted, so a record's order is lost; nlohmann/json issues #2397 and
// #4377); 3.12.0 templated it on the json type (nlohmann/json pull request
// #4517). The expansion reuses the library's own
// NLOHMANN_JSON_PASTE/NLOHMANN_JSON_TO, so each field becomes `j["field"] =
// record.field;` exactly as the library's macro writes it.
#pragma once

#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

// Writes the named fields of `record` into the JSON object `j`, each under
// its own name, in the order given: a writer whose record renames or computes
// some keys lists the runs of fields between them.
#define GPUPLAN_JSON_WRITE_FIELDS(j, record, ...)                            \
  do {                                                                       \
    auto& nlohmann_json_j = (j);                                             \
    const auto& nlohmann_json_t = (record);                                  \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__)) \
  } while (false)

// The record's to_json(), found by argument-dependent lookup: to be placed in
// the record's namespace.
#define GPUPLAN_JSON_FIELDS(Type, ...)                                 \
  inline void to_json(nlohmann::ordered_json& j, const Type& record) { \
    GPUPLAN_JSON_WRITE_FIELDS(j, record, __VA_ARGS__);                 \
  }

namespace gpuplan::json {

// An enum that names itself through to_string() (found by argument-dependent
// lookup, as catalog::to_string(Os)) is written as that name.
template <class E>
concept NamedEnum = std::is_enum_v<E> && requires(E e) {
  { to_string(e) } -> std::convertible_to<std::string_view>;
};

template <NamedEnum E>
[[nodiscard]] std::string name_of(E e) {
  return std::string(to_string(e));
}

template <class T>
[[nodiscard]] nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace gpuplan::json

namespace nlohmann {

// The pattern of nlohmann's README ("How do I convert third-party types?"),
// writing only: an empty optional is null, a full one its value.
template <class T>
struct adl_serializer<std::optional<T>> {
  template <class BasicJsonType>
  static void to_json(BasicJsonType& j, const std::optional<T>& v) {
    if (v) {
      j = *v;
    } else {
      j = nullptr;
    }
  }
};

template <gpuplan::json::NamedEnum E>
struct adl_serializer<E> {
  template <class BasicJsonType>
  static void to_json(BasicJsonType& j, E e) {
    j = gpuplan::json::name_of(e);
  }
};

}  // namespace nlohmann
