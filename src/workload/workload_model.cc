// The `model:` section of a workload file, in its four forms: a built-in
// name ("llama-3.1-8b", data in models.cc), a built-in `base:` with fields
// overridden, an explicit architecture (layers, hidden, heads, ffn, vocab;
// kv_heads, max_context, experts optional), or `params_b:` alone (a shape is
// then derived from the parameter count). Whatever the form, the result is
// checked for a consistent shape (heads divide hidden, kv_heads divide
// heads, active experts within experts) and a stated params_b must agree
// with the architecture within 25 %.
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/strings.h"
#include "workload/internal/sections.h"
#include "workload/models.h"
#include "workload/workload.h"

namespace gpuplan::workload::internal {

namespace {

// The word of a model's name that gives its size: "8b", "8x7b", "0.5b",
// "mini", "medium"; "" when none does.
std::string size_word(std::string_view name) {
  std::string word;
  std::string token;
  const std::string lower = strings::to_lower(name) + "-";
  for (char ch : lower) {
    if (ch != '-' && ch != '_' && ch != ' ' && ch != '/') {
      token += ch;
      continue;
    }
    const bool named = token == "mini" || token == "small" || token == "medium" ||
                       token == "large" || token == "xl";
    const bool counted = token.size() > 1 && token.back() == 'b' &&
                         std::isdigit(static_cast<unsigned char>(token[token.size() - 2]));
    if (named || counted) word = token;
    token.clear();
  }
  return word;
}

// `model: NAME`: a built-in model, or kNotFound with the nearest name.
Status builtin_model(const Reader& r, const YAML::Node& node, const std::string& field,
                     Model& out) {
  const Model* m = find_model(node.Scalar());
  if (!m) {
    std::string msg = "unknown model '" + node.Scalar() + "'";
    auto c = strings::closest(node.Scalar(), model_names());
    // A near name of another size is another model: "phi-3-medium" (14 B)
    // is not "phi-3-mini" (3.8 B), nor "qwen2.5-34b" "qwen2.5-14b".
    if (c && size_word(*c) != size_word(node.Scalar())) c.reset();
    if (c) {
      msg += "; did you mean '" + *c + "'?";
    } else {
      msg +=
          "; give the architecture instead (model: {params_b: 7} or layers/hidden/...),"
          " or see docs/workload.md for the built-in names";
    }
    return not_found(msg, r.where(node, field));
  }
  out = named_model(*m, node.Scalar());
  return {};
}

// `base:` of a model mapping: the built-in model whose fields the others
// override.
Status base_model(const Reader& r, const YAML::Node& b, Model& m) {
  const Model* base = find_model(b.IsScalar() ? b.Scalar() : "");
  if (!base) {
    std::string msg = "unknown base model '" + (b.IsScalar() ? b.Scalar() : "") + "'";
    if (b.IsScalar()) {
      if (auto c = strings::closest(b.Scalar(), model_names()))
        msg += "; did you mean '" + *c + "'?";
    }
    return not_found(msg, r.where(b, "model.base"));
  }
  m = named_model(*base, b.Scalar());
  m.source = base->source + " (fields overridden in the workload file)";
  return {};
}

// What the keys of a model mapping said besides the Model's own fields.
struct ModelKeys {
  bool any_arch = false;         // a shape field (layers, hidden, ...) was given
  std::optional<double> params;  // params_b, when given
  YAML::Node params_node;        // its node, for the error mark
};

// The largest value a shape key may take: beyond any published model by
// orders of magnitude, small enough that the estimate stays fast.
int model_key_cap(const std::string& k) {
  if (k == "layers" || k == "dense_layers" || k == "sliding_layers") return 10'000;
  if (k == "hidden" || k == "kv_lora_rank" || k == "q_lora_rank") return 1'000'000;
  if (k == "ffn" || k == "expert_ffn") return 10'000'000;
  if (k == "vocab") return 100'000'000;
  if (k == "max_context" || k == "sliding_window") return 2'000'000'000;
  return 100'000;  // heads, kv_heads, head sizes, experts
}

// Reads every key but `base` into `m`.
Status read_model_keys(const Reader& r, const YAML::Node& node, const std::string& field, Model& m,
                       ModelKeys& keys) {
  return for_each(
      node, field, [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
        if (k == "base") return {};
        if (k == "name") {
          GPUPLAN_TRY(m.name, r.string(v, f));
          return {};
        }
        if (k == "params_b") {
          // 1 M to 100 T parameters: 1e-300 made a model of "0 B
          // params" that trained in 0 h.
          GPUPLAN_TRY(double p, r.number(v, f, 1e-3, 1e5));
          keys.params = p;
          keys.params_node = v;
          return {};
        }
        if (k == "gated_ffn") {
          GPUPLAN_TRY(m.gated_ffn, r.boolean(v, f));
          return {};
        }
        if (k == "tied_embeddings") {
          GPUPLAN_TRY(m.tied_embeddings, r.boolean(v, f));
          return {};
        }
        // The validate command's caps (estimate/validate.cc): the
        // estimate walks the layers, and 2e9 of them ran for 18 min.
        // The shapes beyond the classic decoder may be set back to
        // their default, 0, over a base ({base: deepseek-v3,
        // shared_experts: 0}); the classic ones are counts.
        const bool zero_is_default =
            k == "head_dim" || k == "expert_ffn" || k == "shared_experts" || k == "dense_layers" ||
            k == "kv_lora_rank" || k == "q_lora_rank" || k == "rope_head_dim" ||
            k == "v_head_dim" || k == "sliding_window" || k == "sliding_layers";
        GPUPLAN_TRY(int x, r.integer(v, f, zero_is_default ? 0 : 1, model_key_cap(k)));
        if (k == "layers") m.layers = x, keys.any_arch = true;
        if (k == "hidden") m.hidden = x, keys.any_arch = true;
        if (k == "heads") m.heads = x, keys.any_arch = true;
        if (k == "kv_heads") m.kv_heads = x, keys.any_arch = true;
        if (k == "ffn") m.ffn = x, keys.any_arch = true;
        if (k == "vocab") m.vocab = x;
        if (k == "max_context") m.max_context = x;
        if (k == "experts") m.experts = x, keys.any_arch = true;
        if (k == "experts_active") m.experts_active = x, keys.any_arch = true;
        if (k == "head_dim") m.head_dim = x, keys.any_arch = true;
        if (k == "expert_ffn") m.expert_ffn = x, keys.any_arch = true;
        if (k == "shared_experts") m.shared_experts = x, keys.any_arch = true;
        if (k == "dense_layers") m.dense_layers = x, keys.any_arch = true;
        if (k == "kv_lora_rank") m.kv_lora_rank = x, keys.any_arch = true;
        if (k == "q_lora_rank") m.q_lora_rank = x, keys.any_arch = true;
        if (k == "rope_head_dim") m.rope_head_dim = x, keys.any_arch = true;
        if (k == "v_head_dim") m.v_head_dim = x, keys.any_arch = true;
        if (k == "sliding_window") m.sliding_window = x, keys.any_arch = true;
        if (k == "sliding_layers") m.sliding_layers = x, keys.any_arch = true;
        return {};
      });
}

// An explicit architecture (no base): every shape field must be present;
// the optional ones get their defaults.
Status complete_architecture(const Reader& r, const YAML::Node& node, Model& m) {
  for (const char* need : {"layers", "hidden", "heads", "ffn", "vocab"}) {
    if (!node[need]) {
      return r.error(node, std::string("model.") + need,
                     std::string("missing '") + need +
                         "' (an explicit architecture needs "
                         "layers, hidden, heads, ffn and vocab)");
    }
  }
  if (!node["kv_heads"]) m.kv_heads = m.heads;
  if (!node["max_context"]) m.max_context = 4096;
  if (!node["gated_ffn"]) m.gated_ffn = false;
  return {};
}

// The shape must be one a transformer can have.
Status check_shape(const Reader& r, const YAML::Node& node, const Model& m) {
  if (m.head_dim == 0 && m.hidden % m.heads != 0) {
    return r.error(r.key_node(node, "heads"), "model.heads",
                   "hidden (" + std::to_string(m.hidden) + ") must be a multiple of heads (" +
                       std::to_string(m.heads) + ") unless head_dim is given");
  }
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
    return r.error(r.key_node(node, "kv_heads"), "model.kv_heads",
                   "kv_heads must divide heads (" + std::to_string(m.heads) + ")");
  }
  if (m.experts_active > m.experts) {
    return r.error(r.key_node(node, "experts_active"), "model.experts_active",
                   "experts_active must not exceed experts");
  }
  // A key that says something (not 0, its default) about a shape the model
  // does not have.
  const auto says = [&](const std::string& k) {
    const int v = k == "expert_ffn"       ? m.expert_ffn
                  : k == "shared_experts" ? m.shared_experts
                  : k == "dense_layers"   ? m.dense_layers
                  : k == "q_lora_rank"    ? m.q_lora_rank
                  : k == "rope_head_dim"  ? m.rope_head_dim
                  : k == "sliding_layers" ? m.sliding_layers
                                          : m.v_head_dim;
    return node[k] && v != 0;
  };
  for (const char* k : {"expert_ffn", "shared_experts", "dense_layers"}) {
    if (m.experts <= 1 && says(k)) {
      return r.error(r.key_node(node, k), std::string("model.") + k,
                     std::string(k) + " describes a mixture of experts: give experts (> 1) too");
    }
  }
  if (m.dense_layers >= m.layers && m.experts > 1) {
    // Blame the key the file gave: {base: deepseek-v3, layers: 3} leaves its
    // 3 dense layers none to be experts.
    const char* k = node["dense_layers"] ? "dense_layers" : "layers";
    return r.error(r.key_node(node, k), std::string("model.") + k,
                   "dense_layers (" + std::to_string(m.dense_layers) +
                       ") must leave at least one of the " + std::to_string(m.layers) +
                       " layers a mixture of experts");
  }
  const bool latent = m.kv_lora_rank > 0;
  for (const char* k : {"q_lora_rank", "rope_head_dim", "v_head_dim"}) {
    if (!latent && says(k)) {
      return r.error(
          r.key_node(node, k), std::string("model.") + k,
          std::string(k) + " describes multi-head latent attention: give kv_lora_rank too");
    }
  }
  if (latent && m.rope_head_dim == 0) {
    return r.error(r.key_node(node, "kv_lora_rank"), "model.rope_head_dim",
                   "multi-head latent attention caches a rotary key beside the latent: give "
                   "rope_head_dim (DeepSeek-V3: 64)");
  }
  // Local attention: a window and the layers that attend within it, both or
  // neither (`sliding_window: 0` over a base turns it off).
  if (m.sliding_window > 0 && m.sliding_layers == 0) {
    return r.error(r.key_node(node, "sliding_window"), "model.sliding_layers",
                   "a sliding window needs sliding_layers, the layers that attend within it "
                   "(Mistral 7B v0.1: all 32; gpt-oss-120b: 18 of 36)");
  }
  if (m.sliding_window == 0 && says("sliding_layers")) {
    return r.error(r.key_node(node, "sliding_layers"), "model.sliding_layers",
                   "sliding_layers needs sliding_window, the tokens those layers attend over");
  }
  if (m.sliding_window > 0 && m.sliding_layers > m.layers) {
    const char* k = node["sliding_layers"] ? "sliding_layers" : "layers";
    return r.error(r.key_node(node, k), std::string("model.") + k,
                   "sliding_layers (" + std::to_string(m.sliding_layers) +
                       ") must not exceed the " + std::to_string(m.layers) + " layers");
  }
  return {};
}

}  // namespace

Status parse_model(const Reader& r, const YAML::Node& node, Model& out) {
  const std::string field = "model";
  if (node.IsScalar()) return builtin_model(r, node, field, out);
  static const std::vector<std::string> kKeys = {"base",           "name",
                                                 "params_b",       "layers",
                                                 "hidden",         "heads",
                                                 "kv_heads",       "ffn",
                                                 "vocab",          "max_context",
                                                 "experts",        "experts_active",
                                                 "gated_ffn",      "tied_embeddings",
                                                 "head_dim",       "expert_ffn",
                                                 "shared_experts", "dense_layers",
                                                 "kv_lora_rank",   "q_lora_rank",
                                                 "rope_head_dim",  "v_head_dim",
                                                 "sliding_window", "sliding_layers"};
  GPUPLAN_RETURN_IF_ERROR(r.check_map(node, field, kKeys));
  Model m;
  m.name = "custom";
  m.source = "workload file";
  if (node["base"]) GPUPLAN_RETURN_IF_ERROR(base_model(r, node["base"], m));
  const int base_layers = m.layers, base_sliding = m.sliding_layers;
  ModelKeys keys;
  GPUPLAN_RETURN_IF_ERROR(read_model_keys(r, node, field, m, keys));
  const bool has_base = static_cast<bool>(node["base"]);
  // A base's local attention is a pattern (gpt-oss every other layer,
  // Gemma 3 five of six, Mistral 7B v0.1 all): other layers keep its share
  // unless the file says how many slide.
  if (has_base && node["layers"] && !node["sliding_layers"] && base_sliding > 0 && base_layers > 0)
    m.sliding_layers =
        static_cast<int>(std::lround(static_cast<double>(base_sliding) * m.layers / base_layers));
  if (!has_base && !keys.any_arch) {
    if (!keys.params) {
      return r.error(node, field,
                     "give a built-in model name, `base:`, `params_b:` or the "
                     "architecture (layers, hidden, heads, ffn, vocab)");
    }
    m.params_b = *keys.params;
    m.params_only = true;
    shape_from_params(m);
    m.active_params_b = m.params_b;
    // The derived shape must be one that has about that many parameters:
    // below ~8 M its embeddings alone are more (the smallest shape, one
    // layer of hidden 128 and 32,000 tokens in and out, has 8.4 M).
    const double shape_b = params_from_architecture(m, false);
    if (std::abs(shape_b - m.params_b) > 0.25 * m.params_b) {
      return r.error(keys.params_node, "model.params_b",
                     "params_b " + strings::general(m.params_b) +
                         " is too small to derive a transformer's shape from: the nearest (" +
                         std::to_string(m.layers) + " layer(s) of hidden " +
                         std::to_string(m.hidden) + ", a " + std::to_string(m.vocab) +
                         "-token vocabulary) has " + strings::general(shape_b) +
                         " B parameters; give the architecture (layers, hidden, heads, ffn, "
                         "vocab)");
    }
    out = m;
    return {};
  }
  if (!has_base) GPUPLAN_RETURN_IF_ERROR(complete_architecture(r, node, m));
  GPUPLAN_RETURN_IF_ERROR(check_shape(r, node, m));
  m.params_b = params_from_architecture(m, false);
  m.active_params_b = params_from_architecture(m, true);
  if (keys.params && std::abs(*keys.params - m.params_b) > 0.25 * m.params_b) {
    return r.error(keys.params_node, "model.params_b",
                   "params_b " + strings::fixed(*keys.params, 2) +
                       " disagrees with the architecture (" + strings::fixed(m.params_b, 2) +
                       " B); drop one of them");
  }
  out = m;
  return {};
}

}  // namespace gpuplan::workload::internal
