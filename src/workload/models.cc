// Built-in model table. Every architecture is copied from the model's
// published config.json on Hugging Face (num_hidden_layers, hidden_size,
// num_attention_heads, num_key_value_heads, intermediate_size, vocab_size,
// max_position_embeddings / the model card's context length) or, for GPT-3,
// from Brown et al. 2020 "Language Models are Few-Shot Learners", Table 2.1
// (FFN = 4 x d_model, vocab 50257 from GPT-2, context 2048). Parameter counts
// are derived from the architecture (params_from_architecture), so the
// estimator and the table can never disagree.
#include "workload/models.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

#include "core/strings.h"

namespace gpuplan::workload {
namespace {

struct Row {
  const char* name;
  const char* display;
  int layers, hidden, heads, kv_heads, ffn, vocab, max_context;
  int experts, experts_active;
  bool gated, tied;
  const char* source;
};

// clang-format off
constexpr Row kRows[] = {
  // Meta Llama 2 (Touvron et al. 2023; meta-llama/Llama-2-*-hf config.json)
  {"llama-2-7b",  "Llama 2 7B",  32, 4096, 32, 32, 11008, 32000, 4096, 1, 1, true, false, "meta-llama/Llama-2-7b-hf config.json"},
  {"llama-2-13b", "Llama 2 13B", 40, 5120, 40, 40, 13824, 32000, 4096, 1, 1, true, false, "meta-llama/Llama-2-13b-hf config.json"},
  {"llama-2-70b", "Llama 2 70B", 80, 8192, 64,  8, 28672, 32000, 4096, 1, 1, true, false, "meta-llama/Llama-2-70b-hf config.json"},
  // Meta Llama 3 / 3.1 / 3.2 / 3.3 (meta-llama/*/config.json)
  {"llama-3-8b",    "Llama 3 8B",    32,  4096,  32, 8, 14336, 128256,   8192, 1, 1, true, false, "meta-llama/Meta-Llama-3-8B config.json"},
  {"llama-3-70b",   "Llama 3 70B",   80,  8192,  64, 8, 28672, 128256,   8192, 1, 1, true, false, "meta-llama/Meta-Llama-3-70B config.json"},
  {"llama-3.1-8b",  "Llama 3.1 8B",  32,  4096,  32, 8, 14336, 128256, 131072, 1, 1, true, false, "meta-llama/Llama-3.1-8B config.json"},
  {"llama-3.1-70b", "Llama 3.1 70B", 80,  8192,  64, 8, 28672, 128256, 131072, 1, 1, true, false, "meta-llama/Llama-3.1-70B config.json"},
  {"llama-3.1-405b","Llama 3.1 405B",126, 16384, 128, 8, 53248, 128256, 131072, 1, 1, true, false, "meta-llama/Llama-3.1-405B config.json"},
  {"llama-3.2-1b",  "Llama 3.2 1B",  16,  2048,  32, 8,  8192, 128256, 131072, 1, 1, true, true,  "meta-llama/Llama-3.2-1B config.json"},
  {"llama-3.2-3b",  "Llama 3.2 3B",  28,  3072,  24, 8,  8192, 128256, 131072, 1, 1, true, true,  "meta-llama/Llama-3.2-3B config.json"},
  {"llama-3.3-70b", "Llama 3.3 70B", 80,  8192,  64, 8, 28672, 128256, 131072, 1, 1, true, false, "meta-llama/Llama-3.3-70B-Instruct config.json"},
  // Mistral AI
  {"mistral-7b",    "Mistral 7B",    32, 4096, 32, 8, 14336, 32000, 32768, 1, 1, true, false, "mistralai/Mistral-7B-v0.1 config.json (sliding_window 4096)"},
  // v0.2 and v0.3 dropped the window (sliding_window null); v0.3 grew the
  // vocabulary to 32768.
  {"mistral-7b-v0.2", "Mistral 7B v0.2", 32, 4096, 32, 8, 14336, 32000, 32768, 1, 1, true, false, "mistralai/Mistral-7B-Instruct-v0.2 config.json (sliding_window null)"},
  {"mistral-7b-v0.3", "Mistral 7B v0.3", 32, 4096, 32, 8, 14336, 32768, 32768, 1, 1, true, false, "mistralai/Mistral-7B-v0.3 config.json (sliding_window null, vocab_size 32768)"},
  {"mixtral-8x7b",  "Mixtral 8x7B",  32, 4096, 32, 8, 14336, 32000, 32768, 8, 2, true, false, "mistralai/Mixtral-8x7B-v0.1 config.json"},
  {"mixtral-8x22b", "Mixtral 8x22B", 56, 6144, 48, 8, 16384, 32768, 65536, 8, 2, true, false, "mistralai/Mixtral-8x22B-v0.1 config.json"},
  // Qwen2.5 (Qwen/Qwen2.5-* config.json; the context an engine reads from
  // it, as for Qwen3 below: 32,768 positions)
  {"qwen2.5-0.5b", "Qwen2.5 0.5B", 24,  896, 14, 2,  4864, 151936,  32768, 1, 1, true, true,  "Qwen/Qwen2.5-0.5B config.json"},
  {"qwen2.5-1.5b", "Qwen2.5 1.5B", 28, 1536, 12, 2,  8960, 151936,  32768, 1, 1, true, true,  "Qwen/Qwen2.5-1.5B config.json"},
  {"qwen2.5-3b",   "Qwen2.5 3B",   36, 2048, 16, 2, 11008, 151936,  32768, 1, 1, true, true,  "Qwen/Qwen2.5-3B config.json"},
  {"qwen2.5-7b",   "Qwen2.5 7B",   28, 3584, 28, 4, 18944, 152064,  32768, 1, 1, true, false, "Qwen/Qwen2.5-7B-Instruct config.json (max_position_embeddings 32768; the card's 131,072 need YaRN rope_scaling added to it: model: {base: qwen2.5-7b, max_context: 131072})"},
  {"qwen2.5-14b",  "Qwen2.5 14B",  48, 5120, 40, 8, 13824, 152064,  32768, 1, 1, true, false, "Qwen/Qwen2.5-14B-Instruct config.json (max_position_embeddings 32768; the card's 131,072 need YaRN rope_scaling added to it: model: {base: qwen2.5-14b, max_context: 131072})"},
  {"qwen2.5-32b",  "Qwen2.5 32B",  64, 5120, 40, 8, 27648, 152064,  32768, 1, 1, true, false, "Qwen/Qwen2.5-32B-Instruct config.json (max_position_embeddings 32768; the card's 131,072 need YaRN rope_scaling added to it: model: {base: qwen2.5-32b, max_context: 131072})"},
  {"qwen2.5-72b",  "Qwen2.5 72B",  80, 8192, 64, 8, 29568, 152064,  32768, 1, 1, true, false, "Qwen/Qwen2.5-72B-Instruct config.json (max_position_embeddings 32768; the card's 131,072 need YaRN rope_scaling added to it: model: {base: qwen2.5-72b, max_context: 131072})"},
  // DeepSeek-R1's distills of Qwen2.5 (its README, "DeepSeek-R1-Distill
  // Models": Qwen2.5-32B, -14B, Qwen2.5-Math-7B, -1.5B as bases) keep their
  // bases' shapes and read 131,072 positions (their config.json files).
  {"deepseek-r1-distill-qwen-1.5b", "DeepSeek-R1-Distill-Qwen-1.5B", 28, 1536, 12, 2,  8960, 151936, 131072, 1, 1, true, true,  "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B config.json (Qwen2.5-1.5B's shapes, max_position_embeddings 131072)"},
  {"deepseek-r1-distill-qwen-7b",   "DeepSeek-R1-Distill-Qwen-7B",   28, 3584, 28, 4, 18944, 152064, 131072, 1, 1, true, false, "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B config.json (Qwen2.5-7B's shapes, max_position_embeddings 131072)"},
  {"deepseek-r1-distill-qwen-14b",  "DeepSeek-R1-Distill-Qwen-14B",  48, 5120, 40, 8, 13824, 152064, 131072, 1, 1, true, false, "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B config.json (Qwen2.5-14B's shapes, max_position_embeddings 131072)"},
  {"deepseek-r1-distill-qwen-32b",  "DeepSeek-R1-Distill-Qwen-32B",  64, 5120, 40, 8, 27648, 152064, 131072, 1, 1, true, false, "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B config.json (Qwen2.5-32B's shapes, max_position_embeddings 131072)"},
  // QwQ-32B: Qwen2.5-32B's shapes with 40,960 positions (its config.json;
  // 131,072 with YaRN, per its model card).
  {"qwq-32b", "QwQ-32B", 64, 5120, 40, 8, 27648, 152064, 40960, 1, 1, true, false, "Qwen/QwQ-32B config.json (Qwen2.5-32B's shapes, max_position_embeddings 40960)"},
  // OpenAI GPT-3 (Brown et al. 2020, Table 2.1)
  {"gpt3-125m", "GPT-3 Small 125M",   12,   768, 12, 12,  3072, 50257, 2048, 1, 1, false, true, "Brown et al. 2020 Table 2.1"},
  {"gpt3-350m", "GPT-3 Medium 350M",  24,  1024, 16, 16,  4096, 50257, 2048, 1, 1, false, true, "Brown et al. 2020 Table 2.1"},
  {"gpt3-760m", "GPT-3 Large 760M",   24,  1536, 16, 16,  6144, 50257, 2048, 1, 1, false, true, "Brown et al. 2020 Table 2.1"},
  {"gpt3-1.3b", "GPT-3 XL 1.3B",      24,  2048, 16, 16,  8192, 50257, 2048, 1, 1, false, true, "Brown et al. 2020 Table 2.1 (lists 24 heads of 128; 16 x 128 = d_model)"},
  {"gpt3-2.7b", "GPT-3 2.7B",         32,  2560, 32, 32, 10240, 50257, 2048, 1, 1, false, true, "Brown et al. 2020 Table 2.1"},
  {"gpt3-6.7b", "GPT-3 6.7B",         32,  4096, 32, 32, 16384, 50257, 2048, 1, 1, false, true, "Brown et al. 2020 Table 2.1"},
  {"gpt3-13b",  "GPT-3 13B",          40,  5120, 40, 40, 20480, 50257, 2048, 1, 1, false, true, "Brown et al. 2020 Table 2.1 (d_model 5140 rounded to 5120)"},
  {"gpt3-175b", "GPT-3 175B",         96, 12288, 96, 96, 49152, 50257, 2048, 1, 1, false, true, "Brown et al. 2020 Table 2.1"},
  // Others commonly fine-tuned or served
  {"mpt-7b",     "MPT-7B",     32, 4096, 32, 32, 16384, 50432, 2048, 1, 1, false, true, "mosaicml/mpt-7b config.json"},
  {"mpt-30b",    "MPT-30B",    48, 7168, 64, 64, 28672, 50432, 8192, 1, 1, false, true, "mosaicml/mpt-30b config.json"},
  {"falcon-7b",  "Falcon 7B",  32, 4544, 71,  1, 18176, 65024, 2048, 1, 1, false, true, "tiiuae/falcon-7b config.json (multi-query attention)"},
  {"phi-3-mini", "Phi-3 mini 3.8B", 32, 3072, 32, 32, 8192, 32064, 131072, 1, 1, true, false, "microsoft/Phi-3-mini-128k-instruct config.json"},
  {"codellama-34b", "Code Llama 34B", 48, 8192, 64, 8, 22016, 32000, 16384, 1, 1, true, false, "codellama/CodeLlama-34b-hf config.json"},
  {"gpt-j-6b",   "GPT-J 6B",   28, 4096, 16, 16, 16384, 50400, 2048, 1, 1, false, false, "EleutherAI/gpt-j-6b config.json (n_inner null: 4 x n_embd; lm_head untied); MLPerf Inference's gptj"},
  // Released 2024-2025; shapes beyond hidden / heads and plain experts are
  // in kShapes below. DeepSeek-V3 and R1: 671 B, 37 B activated (README).
  {"deepseek-v3", "DeepSeek-V3", 61, 7168, 128, 128, 18432, 129280, 163840, 256, 8, true, false, "deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json and config.json (first 3 layers dense; MTP layer not counted)"},
  {"deepseek-r1", "DeepSeek-R1", 61, 7168, 128, 128, 18432, 129280, 163840, 256, 8, true, false, "deepseek-ai/DeepSeek-R1 README: trained from DeepSeek-V3-Base, its architecture (config_671B.json)"},
  // Qwen3 (Qwen/Qwen3-* config.json, transformers 4.51; 32,768 native
  // context, 40,960 positions)
  {"qwen3-8b",   "Qwen3 8B",   36, 4096, 32, 8, 12288, 151936, 40960, 1, 1, true, false, "Qwen/Qwen3-8B config.json (head_dim 128)"},
  {"qwen3-14b",  "Qwen3 14B",  40, 5120, 40, 8, 17408, 151936, 40960, 1, 1, true, false, "Qwen/Qwen3-14B config.json (head_dim 128)"},
  {"qwen3-32b",  "Qwen3 32B",  64, 5120, 64, 8, 25600, 151936, 40960, 1, 1, true, false, "Qwen/Qwen3-32B config.json (head_dim 128)"},
  {"qwen3-30b-a3b",   "Qwen3 30B-A3B",   48, 2048, 32, 4,  6144, 151936, 40960, 128, 8, true, false, "Qwen/Qwen3-30B-A3B config.json (head_dim 128, moe_intermediate_size 768, every layer MoE)"},
  {"qwen3-235b-a22b", "Qwen3 235B-A22B", 94, 4096, 64, 4, 12288, 151936, 40960, 128, 8, true, false, "Qwen/Qwen3-235B-A22B config.json (head_dim 128, moe_intermediate_size 1536, every layer MoE)"},
  // The 2507 updates keep the shapes and read 262,144 positions.
  {"qwen3-30b-a3b-2507",   "Qwen3 30B-A3B 2507",   48, 2048, 32, 4,  6144, 151936, 262144, 128, 8, true, false, "Qwen/Qwen3-30B-A3B-Instruct-2507 config.json (max_position_embeddings 262144; shapes of Qwen3-30B-A3B)"},
  {"qwen3-235b-a22b-2507", "Qwen3 235B-A22B 2507", 94, 4096, 64, 4, 12288, 151936, 262144, 128, 8, true, false, "Qwen/Qwen3-235B-A22B-Instruct-2507 config.json (max_position_embeddings 262144; shapes of Qwen3-235B-A22B)"},
  // OpenAI gpt-oss (openai/gpt-oss gpt_oss/torch/model.py; config.json):
  // every layer MoE, experts of 2880; half the layers attend over a
  // 128-token window (kLocal below)
  {"gpt-oss-120b", "gpt-oss-120b", 36, 2880, 64, 8, 2880, 201088, 131072, 128, 4, true, false, "openai/gpt-oss-120b config.json; openai/gpt-oss model.py (head_dim 64; sliding_window 128 on even layers)"},
  {"gpt-oss-20b",  "gpt-oss-20b",  24, 2880, 64, 8, 2880, 201088, 131072,  32, 4, true, false, "openai/gpt-oss-20b config.json; openai/gpt-oss model.py (head_dim 64; sliding_window 128 on even layers)"},
  // Meta Llama 4 (meta-llama/llama-models models/llama4; config.json
  // text_config): one routed and one shared expert of 8192 per MoE layer,
  // dense layers of 16384 (intermediate_size_mlp); chunked attention (8192)
  // on 3 of 4 layers (kLocal below)
  {"llama-4-scout",    "Llama 4 Scout 17B-16E",     48, 5120, 40, 8, 16384, 202048, 10485760,  16, 1, true, false, "meta-llama/Llama-4-Scout-17B-16E-Instruct config.json (max_position_embeddings 10485760; the base repository's reads 262144); llama-models MODEL_CARD.md (109 B total, 17 B active, 10 M context); attention_chunk_size 8192 on 36 of 48 layers"},
  {"llama-4-maverick", "Llama 4 Maverick 17B-128E", 48, 5120, 40, 8, 16384, 202048,  1048576, 128, 1, true, false, "meta-llama/Llama-4-Maverick-17B-128E config.json (interleave_moe_layer_step 2); MODEL_CARD.md (400 B total, 17 B active); attention_chunk_size 8192 on 36 of 48 layers"},
  // Dense, 2025
  {"gemma-3-27b",      "Gemma 3 27B",     62, 5376, 32, 16, 21504, 262208, 131072, 1, 1, true, true,  "google/gemma-3-27b-it config.json text_config; google/gemma_pytorch config.py get_config_for_27b_v3 (head_dim 128; 52 of 62 layers attend over a 1024-token window; embeddings tied, as gemma_pytorch samples from the embedder, which the 27.0 B total confirms)"},
  {"phi-4",            "Phi-4 14B",       40, 5120, 40, 10, 17920, 100352,  16384, 1, 1, true, false, "microsoft/phi-4 config.json"},
  {"mistral-small-24b","Mistral Small 24B", 40, 5120, 32,  8, 32768, 131072, 32768, 1, 1, true, false, "mistralai/Mistral-Small-24B-Instruct-2501 config.json (head_dim 128)"},
  // Mistral Small 3.1 (2503) and 3.2 (2506): 3.0's text tower with 128k
  // context (the vision encoder, 0.4 B, is not counted).
  {"mistral-small-3.1-24b","Mistral Small 3.1 24B", 40, 5120, 32, 8, 32768, 131072, 131072, 1, 1, true, false, "mistralai/Mistral-Small-3.1-24B-Instruct-2503 config.json text_config (head_dim 128, max_position_embeddings 131072)"},
  // Mistral Large 2 (2407, 2411: one architecture, 123 B) and Mistral NeMo
  // 12B (2407, with NVIDIA: 128k context per its model card).
  {"mistral-large",   "Mistral Large 2 123B", 88, 12288, 96, 8, 28672,  32768, 131072, 1, 1, true, false, "mistralai/Mistral-Large-Instruct-2411 config.json (head_dim 128)"},
  {"mistral-nemo",    "Mistral NeMo 12B",     40,  5120, 32, 8, 14336, 131072, 131072, 1, 1, true, false, "mistralai/Mistral-Nemo-Instruct-2407 config.json (head_dim 128); 128k context per model card"},
  // Qwen3's small dense models (Qwen/Qwen3-*/config.json: head_dim 128,
  // tied embeddings, 40,960 positions); the 2507 update of the 4B reads
  // 262,144.
  {"qwen3-0.6b", "Qwen3 0.6B", 28, 1024, 16, 8,  3072, 151936, 40960, 1, 1, true, true, "Qwen/Qwen3-0.6B config.json (head_dim 128)"},
  {"qwen3-1.7b", "Qwen3 1.7B", 28, 2048, 16, 8,  6144, 151936, 40960, 1, 1, true, true, "Qwen/Qwen3-1.7B config.json (head_dim 128)"},
  {"qwen3-4b",   "Qwen3 4B",   36, 2560, 32, 8,  9728, 151936, 40960, 1, 1, true, true, "Qwen/Qwen3-4B config.json (head_dim 128)"},
  {"qwen3-4b-2507", "Qwen3 4B 2507", 36, 2560, 32, 8, 9728, 151936, 262144, 1, 1, true, true, "Qwen/Qwen3-4B-Instruct-2507 config.json (max_position_embeddings 262144; shapes of Qwen3-4B)"},
  // Qwen3-Coder 480B-A35B: 160 experts of 2560, 8 routed, no shared.
  {"qwen3-coder-480b-a35b", "Qwen3-Coder 480B-A35B", 62, 6144, 96, 8, 8192, 151936, 262144, 160, 8, true, false, "Qwen/Qwen3-Coder-480B-A35B-Instruct config.json (head_dim 128, moe_intermediate_size 2560, every layer MoE)"},
  // Gemma 3's smaller sizes and Gemma 2 9B (google/gemma-*-it config.json;
  // text_config for the multimodal 4B and 12B, whose vision towers are not
  // counted). Local layers in kLocal below.
  {"gemma-3-1b",  "Gemma 3 1B",  26, 1152,  4, 1,  6912, 262144,  32768, 1, 1, true, true, "google/gemma-3-1b-it config.json (head_dim 256, sliding_window 512)"},
  {"gemma-3-4b",  "Gemma 3 4B",  34, 2560,  8, 4, 10240, 262208, 131072, 1, 1, true, true, "google/gemma-3-4b-it config.json text_config (head_dim 256, sliding_window 1024)"},
  {"gemma-3-12b", "Gemma 3 12B", 48, 3840, 16, 8, 15360, 262208, 131072, 1, 1, true, true, "google/gemma-3-12b-it config.json text_config (head_dim 256, sliding_window 1024)"},
  {"gemma-2-9b",  "Gemma 2 9B",  42, 3584, 16, 8, 14336, 256000,   8192, 1, 1, true, true, "google/gemma-2-9b-it config.json (head_dim 256, sliding_window 4096 on alternate layers)"},
  // Moonshot Kimi K2 (1.04 T, 32 B active): DeepSeek-V3's architecture
  // with 384 experts, 64 heads, one dense layer, a 163,840-token
  // vocabulary; the 0905 update reads 262,144 positions.
  {"kimi-k2",      "Kimi K2",      61, 7168, 64, 64, 18432, 163840, 131072, 384, 8, true, false, "moonshotai/Kimi-K2-Instruct config.json (first_k_dense_replace 1, moe_intermediate_size 2048, n_shared_experts 1; MLA as DeepSeek-V3)"},
  {"kimi-k2-0905", "Kimi K2 0905", 61, 7168, 64, 64, 18432, 163840, 262144, 384, 8, true, false, "moonshotai/Kimi-K2-Instruct-0905 config.json (max_position_embeddings 262144; shapes of Kimi-K2-Instruct)"},
};

// Shapes the rows above cannot say (Model's fields of the same names).
struct Shape {
  const char* name;
  int head_dim, expert_ffn, shared_experts, dense_layers;
  int kv_lora_rank, q_lora_rank, rope_head_dim, v_head_dim;
};
constexpr Shape kShapes[] = {
  // DeepSeek-V3 config_671B.json: moe_inter_dim 2048, n_shared_experts 1,
  // n_dense_layers 3; MLA q_lora_rank 1536, kv_lora_rank 512,
  // qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128.
  {"deepseek-v3", 128, 2048, 1, 3, 512, 1536, 64, 128},
  {"deepseek-r1", 128, 2048, 1, 3, 512, 1536, 64, 128},
  {"qwen3-8b", 128, 0, 0, 0, 0, 0, 0, 0},
  {"qwen3-14b", 128, 0, 0, 0, 0, 0, 0, 0},
  {"qwen3-32b", 128, 0, 0, 0, 0, 0, 0, 0},
  {"qwen3-30b-a3b", 128, 768, 0, 0, 0, 0, 0, 0},
  {"qwen3-235b-a22b", 128, 1536, 0, 0, 0, 0, 0, 0},
  {"qwen3-30b-a3b-2507", 128, 768, 0, 0, 0, 0, 0, 0},
  {"qwen3-235b-a22b-2507", 128, 1536, 0, 0, 0, 0, 0, 0},
  {"gpt-oss-120b", 64, 0, 0, 0, 0, 0, 0, 0},
  {"gpt-oss-20b", 64, 0, 0, 0, 0, 0, 0, 0},
  {"llama-4-scout", 128, 8192, 1, 0, 0, 0, 0, 0},
  {"llama-4-maverick", 128, 8192, 1, 24, 0, 0, 0, 0},
  {"gemma-3-27b", 128, 0, 0, 0, 0, 0, 0, 0},
  {"mistral-small-24b", 128, 0, 0, 0, 0, 0, 0, 0},
  {"mistral-small-3.1-24b", 128, 0, 0, 0, 0, 0, 0, 0},
  {"mistral-nemo", 128, 0, 0, 0, 0, 0, 0, 0},
  {"qwen3-0.6b", 128, 0, 0, 0, 0, 0, 0, 0},
  {"qwen3-1.7b", 128, 0, 0, 0, 0, 0, 0, 0},
  {"qwen3-4b", 128, 0, 0, 0, 0, 0, 0, 0},
  {"qwen3-4b-2507", 128, 0, 0, 0, 0, 0, 0, 0},
  {"qwen3-coder-480b-a35b", 128, 2560, 0, 0, 0, 0, 0, 0},
  {"gemma-3-1b", 256, 0, 0, 0, 0, 0, 0, 0},
  {"gemma-3-4b", 256, 0, 0, 0, 0, 0, 0, 0},
  {"gemma-3-12b", 256, 0, 0, 0, 0, 0, 0, 0},
  {"gemma-2-9b", 256, 0, 0, 0, 0, 0, 0, 0},
  // Kimi-K2-Instruct config.json: moe_intermediate_size 2048,
  // n_shared_experts 1, first_k_dense_replace 1; q_lora_rank 1536,
  // kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64,
  // v_head_dim 128.
  {"kimi-k2", 128, 2048, 1, 1, 512, 1536, 64, 128},
  {"kimi-k2-0905", 128, 2048, 1, 1, 512, 1536, 64, 128},
};
// Local attention (Model::sliding_window, sliding_layers): the window and
// the layers that attend within it, from each model's config (the sources
// named in its row and in the comments below).
struct Local {
  const char* name;
  int window, layers;
};
constexpr Local kLocal[] = {
  // Mistral-7B-v0.1 config.json: sliding_window 4096 on every layer.
  {"mistral-7b", 4096, 32},
  // gpt-oss model.py: layer_idx % 2 == 0 slides over 128 tokens.
  {"gpt-oss-120b", 128, 18},
  {"gpt-oss-20b", 128, 12},
  // llama4 model.py: attention_chunk_size 8192 except on the NoPE layers,
  // every 4th (nope_layer_interval 4): 36 of 48 chunked.
  {"llama-4-scout", 8192, 36},
  {"llama-4-maverick", 8192, 36},
  // gemma_pytorch get_config_for_27b_v3: 5 local (sliding_window_size 1024)
  // to 1 global; layers 5, 11, ..., 59 global, 52 of 62 local.
  {"gemma-3-27b", 1024, 52},
  // The same 5:1 pattern (every 6th layer global): 40 of 48, 29 of 34 and
  // 22 of 26 local; Gemma 3 1B's window is 512 (its config.json).
  {"gemma-3-12b", 1024, 40},
  {"gemma-3-4b", 1024, 29},
  {"gemma-3-1b", 512, 22},
  // Gemma 2 (Gemma Team 2024, §2: local sliding window of 4096 tokens and
  // global attention in every other layer): 21 of 42.
  {"gemma-2-9b", 4096, 21},
};
// Weights published in a precision other than 16 bits (Model::released):
// serving reads them so unless the workload says otherwise.
struct Released {
  const char* name;
  Precision precision;
  double expert_bits;  // Model::expert_bits
  const char* source;
};
constexpr Released kReleased[] = {
  {"deepseek-v3", Precision::kFp8, 0, "deepseek-ai/DeepSeek-V3 config.json quantization_config: fp8 e4m3, 128x128 blocks"},
  {"deepseek-r1", Precision::kFp8, 0, "deepseek-ai/DeepSeek-R1 config.json quantization_config: fp8 e4m3, 128x128 blocks"},
  {"gpt-oss-120b", Precision::kInt4, 4.25, "openai/gpt-oss-120b: MXFP4 expert weights (4.25 bits; the rest bf16), weight-only as int4"},
  {"gpt-oss-20b", Precision::kInt4, 4.25, "openai/gpt-oss-20b: MXFP4 expert weights (4.25 bits; the rest bf16), weight-only as int4"},
  {"kimi-k2", Precision::kFp8, 0, "moonshotai/Kimi-K2-Instruct config.json quantization_config: fp8 e4m3, 128x128 blocks"},
  {"kimi-k2-0905", Precision::kFp8, 0, "moonshotai/Kimi-K2-Instruct-0905 config.json quantization_config: fp8 e4m3, 128x128 blocks"},
};
// clang-format on

std::string key(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// The row of a side table (kShapes, kReleased, kLocal) for a model; null
// when the model has none.
template <typename T, size_t N>
const T* row_named(const T (&table)[N], std::string_view name) {
  for (const T& x : table)
    if (std::string_view(x.name) == name) return &x;
  return nullptr;
}

std::vector<Model> build() {
  std::vector<Model> models;
  for (const Row& r : kRows) {
    Model m;
    m.name = r.name;
    m.display_name = r.display;
    m.layers = r.layers;
    m.hidden = r.hidden;
    m.heads = r.heads;
    m.kv_heads = r.kv_heads;
    m.ffn = r.ffn;
    m.vocab = r.vocab;
    m.max_context = r.max_context;
    m.experts = r.experts;
    m.experts_active = r.experts_active;
    m.gated_ffn = r.gated;
    m.tied_embeddings = r.tied;
    m.source = r.source;
    if (const Shape* x = row_named(kShapes, r.name)) {
      m.head_dim = x->head_dim;
      m.expert_ffn = x->expert_ffn;
      m.shared_experts = x->shared_experts;
      m.dense_layers = x->dense_layers;
      m.kv_lora_rank = x->kv_lora_rank;
      m.q_lora_rank = x->q_lora_rank;
      m.rope_head_dim = x->rope_head_dim;
      m.v_head_dim = x->v_head_dim;
    }
    if (const Released* x = row_named(kReleased, r.name)) {
      m.released = x->precision;
      m.expert_bits = x->expert_bits;
      m.released_source = x->source;
    }
    if (const Local* x = row_named(kLocal, r.name)) {
      m.sliding_window = x->window;
      m.sliding_layers = x->layers;
    }
    m.params_b = params_from_architecture(m, false);
    m.active_params_b = params_from_architecture(m, true);
    models.push_back(std::move(m));
  }
  return models;
}

}  // namespace

double head_size(const Model& m) {
  if (m.head_dim > 0) return m.head_dim;
  return m.heads > 0 ? static_cast<double>(m.hidden) / m.heads : 0;
}

bool latent_attention(const Model& m) { return m.kv_lora_rank > 0; }

namespace {
double value_head(const Model& m) { return m.v_head_dim > 0 ? m.v_head_dim : head_size(m); }
}  // namespace

double kv_values_per_token(const Model& m) {
  if (latent_attention(m))
    return static_cast<double>(m.layers) * (m.kv_lora_rank + m.rope_head_dim);
  return 2.0 * m.layers * m.kv_heads * head_size(m);
}

double attention_width(const Model& m) {
  if (latent_attention(m)) return m.heads * (head_size(m) + m.rope_head_dim + value_head(m)) / 2.0;
  return m.heads * head_size(m);
}

double decode_attention_width(const Model& m) {
  if (latent_attention(m)) return m.heads * (2.0 * m.kv_lora_rank + m.rope_head_dim) / 2.0;
  return attention_width(m);
}

int dense_layer_count(const Model& m) { return std::clamp(m.dense_layers, 0, m.layers); }

double expert_ffn_size(const Model& m) { return m.expert_ffn > 0 ? m.expert_ffn : m.ffn; }

void lend_shape(const Model& from, Model& to) {
  to.head_dim = from.head_dim;
  to.expert_ffn = from.expert_ffn;
  to.shared_experts = from.shared_experts;
  to.dense_layers = from.dense_layers;
  to.kv_lora_rank = from.kv_lora_rank;
  to.q_lora_rank = from.q_lora_rank;
  to.rope_head_dim = from.rope_head_dim;
  to.v_head_dim = from.v_head_dim;
  to.sliding_window = from.sliding_window;
  to.sliding_layers = from.sliding_layers;
}

LocalAttention local_attention(const Model& m) {
  LocalAttention a;
  if (m.sliding_window <= 0 || m.sliding_layers <= 0 || m.layers <= 0) return a;
  a.window = m.sliding_window;
  a.share = std::min(1.0, static_cast<double>(m.sliding_layers) / m.layers);
  return a;
}

double LocalAttention::cached_tokens(double context) const {
  if (share <= 0 || context <= window) return context;
  return context - share * (context - window);
}

double LocalAttention::causal_pairs(double n) const {
  const double past = share > 0 ? std::max(0.0, n - window) : 0;
  return (n * n - share * past * past) / 2;
}

double LocalAttention::training_context(double n) const {
  return n > 0 ? 2 * causal_pairs(n) / n : 0;
}

double ffn_width_per_token(const Model& m) {
  if (m.experts <= 1 || m.layers <= 0) return m.ffn;
  const double dense = dense_layer_count(m);
  return (dense * m.ffn +
          (m.layers - dense) * expert_ffn_size(m) * (m.experts_active + m.shared_experts)) /
         m.layers;
}

bool serving_tensor_parallel_fits(const Model& m, int tp) {
  if (tp < 1 || m.heads % tp != 0) return false;
  if (latent_attention(m) || m.kv_heads <= 0) return true;
  return m.kv_heads % tp == 0 || tp % m.kv_heads == 0;
}

double kv_replication(const Model& m, int tp) {
  if (tp <= 1) return 1;
  if (latent_attention(m)) return tp;
  return m.kv_heads > 0 && m.kv_heads < tp ? static_cast<double>(tp) / m.kv_heads : 1;
}

double params_from_architecture(const Model& m, bool active) {
  const double h = m.hidden;
  const double hd = head_size(m);
  const double embed = static_cast<double>(m.vocab) * h * (m.tied_embeddings ? 1 : 2);
  double attn = 2 * h * m.heads * hd + 2 * h * m.kv_heads * hd;  // q, o; k, v
  if (latent_attention(m)) {
    // DeepSeek-V2 §2.1.2-2.1.3: queries through a q_lora_rank latent (or
    // directly), keys and values through the cached kv_lora_rank latent
    // (each latent with its RMSNorm), a shared rotary key, the output.
    const double qk = hd + m.rope_head_dim, v = value_head(m);
    const double q = m.q_lora_rank > 0
                         ? h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * m.heads * qk
                         : h * m.heads * qk;
    attn = q + h * (m.kv_lora_rank + m.rope_head_dim) + m.kv_lora_rank +
           m.kv_lora_rank * m.heads * (hd + v) + m.heads * v * h;
  }
  const double mats = m.gated_ffn ? 3.0 : 2.0;
  double ffn = m.layers * mats * h * m.ffn;
  if (m.experts > 1) {
    const double dense = dense_layer_count(m);
    const double expert = mats * h * expert_ffn_size(m);
    const double experts = (active ? m.experts_active : m.experts) + m.shared_experts;
    ffn = dense * mats * h * m.ffn + (m.layers - dense) * (expert * experts + h * m.experts);
  }
  const double norms = 2 * h;
  return (embed + m.layers * (attn + norms) + ffn + h) / 1e9;
}

double routed_expert_params_b(const Model& m, bool active) {
  if (m.experts <= 1) return 0;
  const double mats = m.gated_ffn ? 3.0 : 2.0;
  return (m.layers - dense_layer_count(m)) * (active ? m.experts_active : m.experts) * mats *
         m.hidden * expert_ffn_size(m) / 1e9;
}

void shape_from_params(Model& m) {
  // hidden/layers ~ 128 as in Llama 2 7B (4096/32); non-embedding
  // parameters ~ 12·l·h² (Kaplan et al. 2020, eq. 2.1), and P counts the
  // untied input and output embeddings too (2·vocab·h): 12·h³/128 + 2·V·h =
  // P, increasing in h, solved by bisection. (P taken as 12·l·h² alone gave
  // 0.001 B a shape of 2 layers and hidden 256 whose 32,000-token
  // embeddings alone were 8 M parameters, and the matmul parameters, P less
  // the input embedding, came out negative: -375 requests/s.)
  if (m.vocab == 0) m.vocab = 32000;
  if (m.max_context == 0) m.max_context = 4096;
  const double p = m.params_b * 1e9, v = m.vocab;
  const auto total = [&](double h) { return 12.0 * h * h * h / 128 + 2 * v * h; };
  double lo = 0, hi = std::cbrt(p * 128 / 12) + 1;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (total(mid) < p ? lo : hi) = mid;
  }
  m.layers = std::max(1, static_cast<int>(std::lround(lo / 128)));
  const double non_embedding = std::max(0.0, p - 2 * v * lo);
  const double h = std::sqrt(non_embedding / (12.0 * m.layers));
  m.hidden = std::max(128, static_cast<int>(std::lround(h / 128)) * 128);
  m.heads = m.hidden / 128;
  m.kv_heads = m.heads;
  m.ffn = 4 * m.hidden;
  m.gated_ffn = false;
  m.params_only = true;
}

const std::vector<Model>& builtin_models() {
  static const std::vector<Model> kModels = build();
  return kModels;
}

namespace {

// Whether `t` (lower case) is a tag a release adds to a base model's name
// without changing its architecture: chat/instruct tunes, a revision
// ("v0.3"), the context window ("4k", "128k"), Hugging Face's "hf", or a
// quantised upload (its weights' precision is the workload's `precision`).
// MLPerf Inference names a benchmark by its model and accuracy target
// ("llama2-70b-99", "llama2-70b-99.9": 99 % or 99.9 % of the reference's
// score), which is no part of the architecture either. Nor is a dated
// revision of four digits (Qwen3's "2507", DeepSeek-V3's "0324",
// Mistral's "2501") or a reasoning tune ("thinking").
bool release_tag(std::string_view t) {
  static constexpr std::string_view kTags[] = {"instruct",
                                               "chat",
                                               "hf",
                                               "it",
                                               "base",
                                               "fp8",
                                               "awq",
                                               "gptq",
                                               "gguf",
                                               "bnb",
                                               "4bit",
                                               "8bit",
                                               "99",
                                               "99.9",
                                               "thinking",
                                               "int4",
                                               "int8",
                                               "w4a16",
                                               "w8a8",
                                               "w8a16",
                                               "mxfp4",
                                               "nvfp4",
                                               "dynamic",
                                               "quantized.w4a16",
                                               "quantized.w8a8",
                                               "quantized.w8a16"};
  for (std::string_view k : kTags)
    if (t == k) return true;
  if (t.size() == 4 && std::all_of(t.begin(), t.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      }))
    return true;
  const auto digits_then = [&](size_t from, std::string_view rest) {
    size_t i = from;
    while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
    return i > from && t.substr(i) == rest;
  };
  return (t.size() > 1 && t[0] == 'v' && digits_then(1, "")) || digits_then(0, "k");
}

// A Hugging Face repository id as a built-in name: "meta-llama/
// Meta-Llama-3.1-8B-Instruct" -> "llama-3.1-8b", "mistralai/
// Mixtral-8x7B-Instruct-v0.1" -> "mixtral-8x7b", "microsoft/
// Phi-3-mini-4k-instruct" -> "phi-3-mini". Every name on the way, the
// fewest tags taken off first: a model's own name may end in what reads as
// a tag ("deepseek-v3-0324" is "deepseek-v3", not "deepseek").
std::vector<std::string> base_names(std::string_view name) {
  std::string s = strings::to_lower(strings::trim(name));
  if (const size_t slash = s.rfind('/'); slash != std::string::npos) s.erase(0, slash + 1);
  // Tags follow a space or an underscore as well ("Llama 3.1 70B Instruct FP8").
  std::replace(s.begin(), s.end(), ' ', '-');
  std::replace(s.begin(), s.end(), '_', '-');
  if (s.rfind("meta-", 0) == 0) s.erase(0, 5);
  std::vector<std::string> names = {s};
  for (;;) {
    const size_t dash = s.rfind('-');
    if (dash == std::string::npos || !release_tag(std::string_view(s).substr(dash + 1))) break;
    s.erase(dash);
    names.push_back(s);
  }
  return names;
}

}  // namespace

const Model* find_model(std::string_view name) {
  // MLPerf Inference's benchmark names that are not the model's own, and
  // Llama 4's repository names, which carry the active size and experts.
  static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      {"gptj", "gpt-j-6b"},
      {"llama-4-scout-17b-16e", "llama-4-scout"},
      {"llama-4-maverick-17b-128e", "llama-4-maverick"},
      // Qwen3's 2507 updates: a dated tag that changes the context.
      {"qwen3-30b-a3b-instruct-2507", "qwen3-30b-a3b-2507"},
      {"qwen3-30b-a3b-thinking-2507", "qwen3-30b-a3b-2507"},
      {"qwen3-235b-a22b-instruct-2507", "qwen3-235b-a22b-2507"},
      {"qwen3-235b-a22b-thinking-2507", "qwen3-235b-a22b-2507"},
      // Mistral 7B's later revisions (the version tag is otherwise taken
      // off, which would give v0.1's window).
      {"mistral-7b-instruct-v0.2", "mistral-7b-v0.2"},
      {"mistral-7b-instruct-v0.3", "mistral-7b-v0.3"},
      // Tunes of another model's architecture. DeepSeek-R1's README
      // ("DeepSeek-R1-Distill Models", base models): Llama-3.3-70B-Instruct,
      // Llama-3.1-8B (the Qwen2.5 distills, whose context differs from
      // their bases', have rows); Qwen3-Coder-30B-A3B's
      // is Qwen3-30B-A3B-2507's (262,144 positions).
      {"deepseek-r1-distill-llama-70b", "llama-3.3-70b"},
      {"deepseek-r1-distill-llama-8b", "llama-3.1-8b"},
      {"qwen3-coder-30b-a3b", "qwen3-30b-a3b-2507"},
      {"qwen3-coder-30b-a3b-instruct", "qwen3-30b-a3b-2507"},
      // Qwen2.5-Coder keeps Qwen2.5's architecture at each size (Hui et al.
      // 2024, Qwen2.5-Coder Technical Report, Table 1); NVIDIA's
      // Llama-3.1-Nemotron-70B-Instruct is a tune of Llama-3.1-70B-Instruct
      // (its model card).
      {"qwen2.5-coder-0.5b", "qwen2.5-0.5b"},
      {"qwen2.5-coder-1.5b", "qwen2.5-1.5b"},
      {"qwen2.5-coder-3b", "qwen2.5-3b"},
      {"qwen2.5-coder-7b", "qwen2.5-7b"},
      {"qwen2.5-coder-14b", "qwen2.5-14b"},
      {"qwen2.5-coder-32b", "qwen2.5-32b"},
      {"llama-3.1-nemotron-70b", "llama-3.1-70b"},
      // DeepSeek-V3.1 (and its Terminus update) keeps V3's config.json
      // shapes; Mistral Small 3.2 (2506) keeps 3.1's; the 2507 Qwen3-4B
      // tunes read 262,144 positions; Kimi-K2-Instruct-0905 is a dated tag
      // that changes the context.
      {"deepseek-v3.1", "deepseek-v3"},
      {"deepseek-v3.1-terminus", "deepseek-v3"},
      {"mistral-small-3.2-24b", "mistral-small-3.1-24b"},
      {"qwen3-4b-instruct-2507", "qwen3-4b-2507"},
      {"qwen3-4b-thinking-2507", "qwen3-4b-2507"},
      {"kimi-k2-instruct-0905", "kimi-k2-0905"},
      {"mistral-large-2", "mistral-large"}};
  std::vector<std::string> keys = {key(name)};
  for (const std::string& b : base_names(name)) keys.push_back(key(b));
  for (const std::string& k : keys) {
    for (const auto& [alias, builtin] : kAliases)
      if (k == key(alias)) return find_model(builtin);
    for (const Model& m : builtin_models()) {
      if (key(m.name) == k) return &m;
    }
  }
  return nullptr;
}

namespace {

// The precision a name's tokens state and the token that says it (a
// format's name, "awq", beats a width's, "int4", in
// "...-AWQ-INT4"); none when no token does.
std::optional<std::pair<Precision, std::string>> format_in_name(std::string_view name) {
  std::string s = strings::to_lower(name);
  if (const size_t slash = s.rfind('/'); slash != std::string::npos) s.erase(0, slash + 1);
  std::optional<std::pair<Precision, std::string>> found;
  size_t from = 0;
  const auto take = [&](Precision p, std::string_view t, bool width) {
    if (!width || !found || found->first != p) found = {p, std::string(t)};
  };
  while (from <= s.size()) {
    size_t to = s.find_first_of("-_ .", from);
    if (to == std::string::npos) to = s.size();
    const std::string_view t = std::string_view(s).substr(from, to - from);
    if (t == "fp8") take(Precision::kFp8, t, false);
    if (t == "w8a8" || t == "w8a16") take(Precision::kInt8, t, false);
    if (t == "int8" || t == "8bit") take(Precision::kInt8, t, true);
    if (t == "awq" || t == "gptq" || t == "w4a16" || t == "mxfp4" || t == "nvfp4")
      take(Precision::kInt4, t, false);
    if (t == "int4" || t == "4bit") take(Precision::kInt4, t, true);
    from = to + 1;
  }
  return found;
}

}  // namespace

std::optional<Precision> precision_in_name(std::string_view name) {
  const auto f = format_in_name(name);
  return f ? std::optional<Precision>(f->first) : std::nullopt;
}

Model named_model(const Model& m, std::string_view name) {
  Model out = m;
  const auto f = format_in_name(name);
  if (f && f->first != m.released) {
    out.released = f->first;
    out.expert_bits = 0;  // the upload's own format, whole
    out.released_source = "the name '" + std::string(name) + "' says " +
                          std::string(to_string(f->first)) + " weights";
  }
  if (f) out.released_format = f->second;
  return out;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const Model& m : builtin_models()) names.push_back(m.name);
  return names;
}

}  // namespace gpuplan::workload
