// The built-in table of common models (architecture from each model's
// config.json / paper), so a workload can say `model: llama-3.1-8b`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "workload/workload.h"

namespace gpuplan::workload {

// Every built-in model, in a stable order.
[[nodiscard]] const std::vector<Model>& builtin_models();
// Looks a model up by name, ignoring case, spaces, '-' and '_'
// ("Llama-3.1-8B" == "llama3.1_8b" == "LLAMA 3.1 8B"); nullptr when unknown.
[[nodiscard]] const Model* find_model(std::string_view name);
// The names, for "did you mean".
[[nodiscard]] std::vector<std::string> model_names();

// Parameter count implied by an architecture, in billions: embeddings
// (untied input + output, vocab*hidden each), per layer attention
// (hidden*(2*hidden + 2*kv_heads*head_dim)) and FFN (3 or 2 matrices of
// hidden*ffn, times experts), and norms. `active` counts experts_active
// experts instead of all of them.
[[nodiscard]] double params_from_architecture(const Model& m, bool active);

// Derives a shape from m.params_b alone (documented in docs/workload.md):
// hidden h with 12·h³/128 + 2·vocab·h = P (non-embedding 12·l·h² at
// h/l = 128, plus untied embeddings), layers = round(h/128), hidden a
// multiple of 128, heads = hidden/128, FFN 4·hidden, not gated; vocab 32000
// and context 4096 when unset. Sets params_only; keeps params_b. The
// caller checks that the shape's own count agrees with P (tiny P has none).
void shape_from_params(Model& m);

}  // namespace gpuplan::workload
