// The built-in table of common models (architecture from each model's
// config.json / paper), so a workload can say `model: llama-3.1-8b`.
#pragma once

#include <optional>
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
// The weight precision a quantised upload's name states: "-FP8" (fp8),
// "-AWQ", "-GPTQ", "-Int4", "-W4A16", "-4bit", "-MXFP4", "-NVFP4" (int4:
// 4-bit weights, read as weight-only), "-Int8", "-W8A8", "-W8A16", "-8bit"
// (int8); nullopt when it states none.
[[nodiscard]] std::optional<Precision> precision_in_name(std::string_view name);
// Built-in model `m` found under `name`, with the precision the name
// states as its released weights ("neuralmagic/Meta-Llama-3.1-8B-
// Instruct-FP8" serves FP8 weights when the workload names no precision).
[[nodiscard]] Model named_model(const Model& m, std::string_view name);

// Parameter count implied by an architecture, in billions: embeddings
// (untied input + output, vocab*hidden each), per layer attention
// (hidden*(2*heads*head_dim + 2*kv_heads*head_dim), or multi-head latent
// attention's projections) and FFN (3 or 2 matrices of hidden*ffn; in a
// mixture of experts, hidden*expert_ffn per routed and shared expert and a
// router, except in its dense layers), and norms. `active` counts
// experts_active routed experts instead of all of them.
[[nodiscard]] double params_from_architecture(const Model& m, bool active);

// Parameters of the routed experts (billions): every MoE layer's experts,
// or its experts_active with `active`; not the shared experts or routers.
[[nodiscard]] double routed_expert_params_b(const Model& m, bool active);

// Size of one attention head: head_dim, else hidden / heads.
[[nodiscard]] double head_size(const Model& m);
// Whether the model caches a shared latent (multi-head latent attention).
[[nodiscard]] bool latent_attention(const Model& m);
// Values the KV cache holds per token, over all layers: 2 x kv_heads x
// head_size per layer, or kv_lora_rank + rope_head_dim with a latent.
[[nodiscard]] double kv_values_per_token(const Model& m);
// Attention's FLOPs per (query, context) token pair are 4 x layers x this:
// heads x head_size (QK^T and AV, 2 FLOPs a multiply-add); a latent model
// computed per head (prefill, training) has keys of head_dim + rope_head_dim
// and values of v_head_dim, so half their sum per head.
[[nodiscard]] double attention_width(const Model& m);
// The same for one decode step of a latent model, which multiplies the
// query into the latent instead of expanding every cached token per head
// (DeepSeek-V2 §2.1.2, "absorbed"): scores over kv_lora_rank + rope_head_dim
// and values over kv_lora_rank per head. attention_width() otherwise.
[[nodiscard]] double decode_attention_width(const Model& m);
// A mixture of experts' layers whose FFN is dense (dense_layers, within
// the layers) and each expert's FFN width (expert_ffn, else ffn).
[[nodiscard]] int dense_layer_count(const Model& m);
[[nodiscard]] double expert_ffn_size(const Model& m);
// Local attention as the estimator reads it: `share` of the layers (and of
// every token's cache, as all layers cache the same per token) attend over
// `window` tokens; the rest over the whole context.
struct LocalAttention {
  double window = 0;  // tokens; 0: none
  double share = 0;   // of the layers, 0-1
  // Tokens a sequence of `context` tokens keeps in the cache, in tokens of
  // the whole model: context - share x (context - window) past the window.
  [[nodiscard]] double cached_tokens(double context) const;
  // Query-key pairs of a causal prompt of n tokens per layer, on average:
  // n^2 / 2, less share x (n - window)^2 / 2 past the window (a query at
  // position p > window sees window keys in a local layer).
  [[nodiscard]] double causal_pairs(double n) const;
  // The context a token of an n-token training sequence attends to, scaled
  // as the full-attention FLOP counts use n: 2 x causal_pairs(n) / n.
  [[nodiscard]] double training_context(double n) const;
};
[[nodiscard]] LocalAttention local_attention(const Model& m);
// Copies the shape fields a model table row carries beyond the classic
// decoder (head_dim, expert sizes, shared experts, dense layers, the
// latent's ranks, the sliding window) from `from` to `to`.
void lend_shape(const Model& from, Model& to);
// Mean FFN inner width a token passes through per layer: ffn, or in a
// mixture of experts the dense layers' ffn and the MoE layers' expert_ffn x
// (experts_active + shared_experts).
[[nodiscard]] double ffn_width_per_token(const Model& m);
// Whether a serving engine splits the model over `tp` GPUs: tp divides the
// attention heads, and the KV heads divide among the ranks or are copied
// to whole groups of them (vLLM: kv_heads % tp == 0 or tp % kv_heads == 0;
// Phi-4's 10 KV heads take tp 2, not 4 or 8). A latent has no KV heads.
[[nodiscard]] bool serving_tensor_parallel_fits(const Model& m, int tp);
// How many times tensor parallelism over `tp` GPUs stores the KV cache: a
// latent is not split by heads, so every rank holds all of it (tp); with
// fewer KV heads than ranks each head is copied to tp / kv_heads ranks
// (vLLM and TensorRT-LLM replicate KV heads so); else once.
[[nodiscard]] double kv_replication(const Model& m, int tp);

// Derives a shape from m.params_b alone (documented in docs/workload.md):
// hidden h with 12·h³/128 + 2·vocab·h = P (non-embedding 12·l·h² at
// h/l = 128, plus untied embeddings), layers = round(h/128), hidden a
// multiple of 128, heads = hidden/128, FFN 4·hidden, not gated; vocab 32000
// and context 4096 when unset. Sets params_only; keeps params_b. The
// caller checks that the shape's own count agrees with P (tiny P has none).
void shape_from_params(Model& m);

}  // namespace gpuplan::workload
