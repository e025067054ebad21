// Memory model: how many GiB each GPU needs for a workload at a layout.
//
// Problem: decide, before anyone rents a VM, whether a model trains or
// serves in the GPUs' memory, and with how much tensor/pipeline/data
// parallelism.
//
// Approach (per GPU, bytes):
//  * Model states, mixed precision (Rajbhandari et al. 2020 "ZeRO", §3.1):
//    weights 2 B/param (fp16/bf16), gradients 2 B/param, Adam optimizer
//    12 B/param (fp32 master copy 4 + momentum 4 + variance 4). fp32
//    training: 4 + 4 + 8. Other optimizers: SGD keeps the master copy only
//    (4), SGD+momentum 8, Adafactor ~4 (factored second moment, Shazeer &
//    Stern 2018), 8-bit Adam 4 + 2 (Dettmers et al. 2022). fp8 training keeps
//    bf16 weights (Transformer Engine), so it counts as bf16 here.
//    Tensor (t) and pipeline (p) parallelism split all of them by t*p; ZeRO
//    stage 1 also splits the optimizer states by the data-parallel size d,
//    stage 2 the gradients too, stage 3 (FSDP) the weights too.
//  * LoRA (Hu et al. 2021) freezes the base weights (2 B/param, QLoRA: NF4 =
//    4 bits + 0.127 bits of double-quantised constants, Dettmers et al. 2023
//    §2) and trains rank-r adapters on every linear layer:
//    r * (d_in + d_out) params each, which carry gradients and Adam states.
//  * Activations (Korthikanti et al. 2022, §4, eq. 1-2): per layer
//    s*b*h*(34 + 5*a*s/h) bytes with no recomputation, of which attention
//    11 sbh + 5 a s^2 b, the MLP 19 sbh (for ffn = 4h; scaled here to
//    3 + 4*ffn/h, x1.5 for gated FFNs), layernorms 4 sbh. Tensor parallelism
//    with sequence parallelism divides all of it by t. Selective recompute
//    drops the 5 a s^2 b term; full recompute keeps only each layer's input
//    (2 sbh). With 1F1B pipelining the first stage holds p micro-batches of
//    L/p layers, i.e. L layers' worth (paper §4.2.3; p·⌈L/p⌉ where p does
//    not divide L, as are the stage's model states); the interleaved
//    schedule with v model chunks per stage holds L (1 + (p-1)/(p v)) layers'
//    worth (same section: its warm-up runs more forward chunks before the
//    first backward). The output logits add 4*s*b*V/t bytes (fp32
//    cross-entropy).
//  * Serving: weights / t, the KV cache (2 * layers * kv_heads * head_dim *
//    bytes per token — grouped-query attention shares K/V across heads, so
//    Llama 3 8B needs 128 KiB/token in bf16, not 512), and the overhead.
//  * Overhead: CUDA context, NCCL buffers and allocator slack, 2 GiB per GPU,
//    plus 5 % of the GPU's memory kept free (both overridable).
//
// Trade-offs: GQA slightly shrinks the K/V activations that the 34 sbh
// assumes; we keep the paper's constant (conservative). MoE layers hold all
// experts' weights but activations of the routed ones only.
#include <algorithm>
#include <cmath>

#include "estimate/internal/physics.h"
#include "workload/models.h"

namespace gpuplan::estimate::internal {

using workload::Method;
using workload::Optimizer;
using workload::Precision;
using workload::Recompute;

double optimizer_bytes(Optimizer o, bool fp32) {
  switch (o) {
    case Optimizer::kAdamW:
    case Optimizer::kAdam:
      return fp32 ? 8 : 12;
    case Optimizer::kAdamW8bit:
      return fp32 ? 2 : 6;
    case Optimizer::kSgd:
      return fp32 ? 0 : 4;
    case Optimizer::kSgdMomentum:
      return fp32 ? 4 : 8;
    case Optimizer::kAdafactor:
      return fp32 ? 0.1 : 4.1;
  }
  return 12;
}

// Trainable LoRA parameters: rank r on q, k, v, o and every FFN matrix.
double lora_params(const workload::Model& m, int rank) {
  // Adapters on q and o (hidden x heads x head_size), k and v (hidden x
  // kv_heads x head_size) and every FFN matrix of every expert.
  const double h = m.hidden;
  const double q = m.heads * workload::head_size(m);
  const double kv = m.kv_heads * workload::head_size(m);
  const double attn = rank * ((h + q) * 2 + (h + kv) * 2);
  const double mats = m.gated_ffn ? 3 : 2;
  double ffn = m.layers * rank * (h + m.ffn) * mats;
  if (m.experts > 1) {
    const double dense = workload::dense_layer_count(m);
    ffn = dense * rank * (h + m.ffn) * mats + (m.layers - dense) * rank *
                                                  (h + workload::expert_ffn_size(m)) * mats *
                                                  (m.experts + m.shared_experts);
  }
  return m.layers * attn + ffn;
}

}  // namespace gpuplan::estimate::internal

namespace gpuplan::estimate {

double checkpoint_bytes(const workload::Workload& w) {
  using workload::Kind;
  using workload::Method;
  using workload::Precision;
  if (w.kind != Kind::kTrain && w.kind != Kind::kFinetune) return 0;
  const bool fp32 = w.precision == Precision::kFp32;
  const double weight = fp32 ? 4 : 2;  // fp8 training keeps bf16 weights
  const double trainable = w.kind == Kind::kFinetune && w.method != Method::kFull
                               ? internal::lora_params(w.model, w.lora_rank)
                               : w.model.params_b * 1e9;
  return trainable * (weight + internal::optimizer_bytes(w.optimizer, fp32));
}

}  // namespace gpuplan::estimate

namespace gpuplan::estimate::internal {

namespace {

// Parameters of the input embedding and, when untied, the output head.
double vocabulary_params(const workload::Model& m) {
  return static_cast<double>(m.vocab) * m.hidden * (m.tied_embeddings ? 1 : 2);
}

// The weight precisions that quantise the linear layers only.
bool quantised(Precision p) {
  return p == Precision::kFp8 || p == Precision::kInt8 || p == Precision::kInt4;
}

// int4's group-wise scale (16 bits) and zero (4 bits) per 128 weights.
constexpr double kInt4GroupBytesPerWeight = (16.0 + 4.0) / 8.0 / 128.0;

}  // namespace

double weight_bytes(const workload::Model& m, Precision p, bool active) {
  const double params = (active ? m.active_params_b : m.params_b) * 1e9;
  if (m.expert_bits <= 0 || p != m.released) {
    if (!quantised(p)) return params * workload::bytes_per_value(p);
    const double vocabulary = std::min(params, vocabulary_params(m));
    const double linear = params - vocabulary;
    return vocabulary * workload::bytes_per_value(Precision::kBf16) +
           linear * (workload::bytes_per_value(p) +
                     (p == Precision::kInt4 ? kInt4GroupBytesPerWeight : 0));
  }
  // gpt-oss's checkpoint: MXFP4 experts (4-bit values and an 8-bit scale
  // per 32, 4.25 bits), the attention, embeddings and routers in bf16 — the
  // model card's 60.8 GiB for gpt-oss-120b, 12.8 for gpt-oss-20b.
  const double experts = std::min(params, workload::routed_expert_params_b(m, active) * 1e9);
  return experts * m.expert_bits / 8 +
         (params - experts) * workload::bytes_per_value(Precision::kBf16);
}

double kv_value_bytes(Precision p) {
  // KV cache stays 16-bit unless the weights are 8-bit float (TensorRT-LLM's
  // FP8 KV cache); int8/int4 weight-only quantisation keeps a bf16 cache.
  return p == Precision::kFp8 ? 1 : (p == Precision::kFp32 ? 4 : 2);
}

double kv_bytes_per_token(const workload::Model& m, double value_bytes) {
  return workload::kv_values_per_token(m) * value_bytes;
}

MemoryBreakdown train_memory(const workload::Workload& w, const Layout& layout) {
  const workload::Model& m = w.model;
  const double n = m.params_b * 1e9;
  // Model-parallel ways; the heaviest stage holds ⌈L/p⌉ of the L layers.
  const double mp =
      static_cast<double>(layout.tp) * layout.pp / stage_imbalance(m.layers, layout.pp);
  const double dp = layout.dp;
  const bool fp32 = w.precision == Precision::kFp32;
  MemoryBreakdown mem;

  if (w.method == Method::kFull) {
    const double wb = fp32 ? 4 : 2;
    const double gb = fp32 ? 4 : 2;
    const double ob = optimizer_bytes(w.optimizer, fp32);
    mem.weights = n * wb / mp / (w.zero_stage >= 3 ? dp : 1);
    mem.gradients = n * gb / mp / (w.zero_stage >= 2 ? dp : 1);
    mem.optimizer = n * ob / mp / (w.zero_stage >= 1 ? dp : 1);
  } else {
    // The frozen base at the workload's precision: QLoRA's NF4 with its
    // double-quantised constants (Dettmers et al. 2023: 0.127 bits a
    // parameter), and a LoRA on a quantised base likewise (int4 counted
    // as NF4, int8 and fp8 a byte). It was bf16 whatever the precision:
    // LoRA at int4 showed 15 GiB of weights for an 8 B model, QLoRA 3.9.
    // bitsandbytes replaces the linear layers only: the embedding and the
    // head stay 16-bit (transformers skips lm_head), as in weight_bytes().
    const double full = fp32 ? 4 : 2;
    double frozen = full;
    if (w.method == Method::kQlora || w.precision == Precision::kInt4)
      frozen = 0.5 + 0.127 / 8;
    else if (w.precision == Precision::kInt8 || w.precision == Precision::kFp8)
      frozen = 1;
    const double vocabulary = frozen < full ? std::min(n, vocabulary_params(m)) : 0;
    const double trainable = lora_params(m, w.lora_rank);
    mem.weights = (vocabulary * full + (n - vocabulary) * frozen + trainable * 2) / mp;
    mem.gradients = trainable * 2 / mp;
    mem.optimizer = trainable * optimizer_bytes(w.optimizer, fp32) / mp;
  }

  // Activations: Korthikanti et al. 2022 eq. 1-2 (see the essay above).
  const double s = w.data.seq_len;
  const double b = w.data.micro_batch;
  const double h = m.hidden;
  const double a = m.heads;
  // A mixture of experts stores each token once per expert it passes.
  const double copies = m.experts > 1 ? m.experts_active + m.shared_experts : 1;
  const double ffn = workload::ffn_width_per_token(m) / copies;
  const double mlp = (3.0 + 4.0 * ffn / h * (m.gated_ffn ? 1.5 : 1.0)) * copies;
  // Attention's 11 h (input 2h, Q and K 4h, V 2h, the projection's input 2h,
  // a dropout mask h) is 3h + 8 x its width when the heads are wider than
  // the hidden size (Qwen3-235B: 2h; a latent's per-head q/k/v: 2.9h); K
  // and V are kept at the query's width, the paper's conservative count.
  const double attention =
      3.0 + 8.0 * std::max(1.0, workload::attention_width(m) / static_cast<double>(m.hidden));
  const double per_token_layer = attention + mlp + 4.0;  // = 34 for ffn = 4h, dense
  double per_layer = 0;
  switch (w.recompute) {
    case Recompute::kNone:
      per_layer = s * b * h * per_token_layer + 5.0 * a * s * s * b;
      break;
    case Recompute::kSelective:
      per_layer = s * b * h * per_token_layer;
      break;
    case Recompute::kFull:
      per_layer = 2.0 * s * b * h;
      break;
  }
  const double act_scale = fp32 ? 2.0 : 1.0;  // the paper counts 16-bit activations
  const double p = layout.pp;
  const double interleave = layout.vpp > 1 && p > 1 ? 1 + (p - 1) / (p * layout.vpp) : 1;
  mem.activations = act_scale * (per_layer * m.layers * stage_imbalance(m.layers, layout.pp) *
                                     interleave / layout.tp +
                                 4.0 * s * b * m.vocab / layout.tp);
  for (double* x : {&mem.weights, &mem.gradients, &mem.optimizer, &mem.activations}) *x /= kGiB;
  return mem;
}

}  // namespace gpuplan::estimate::internal
