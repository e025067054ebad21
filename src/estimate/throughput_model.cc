// Throughput model: how fast a GPU trains or serves a transformer.
//
// Problem: turn a datasheet (peak FLOP/s, memory bandwidth) into achieved
// tokens/s within ~10 % for training and ~20 % for inference, from physics
// with a handful of fitted constants, so it holds on hardware and models
// outside the calibration set.
//
// Training. Work per token is the model FLOPs of Narayanan et al. 2021
// (eq. 3, generalised to GQA, gated FFNs and MoE): 6·N_matmul forward and
// backward plus 12·l·h·s for attention scores and values; LoRA skips the
// weight gradients (4·N). Achieved rate = peak at the precision × MFU where
//
//     MFU = e / (1 + k · (peak / bandwidth) / h · (1 + A)) / (1 + c · log2(G / 8)) / r
//
//  * e = 0.60: the best matmul efficiency of a training step;
//  * k = 3.25: the memory-bound work (layernorm, softmax, activations,
//    residuals: O(h) bytes per token per layer against O(h²) FLOPs) — it
//    costs more on GPUs with a high FLOP:byte ratio (H100 295, A100 153) and
//    less on wide models, which is why H100s reach a lower MFU than A100s
//    (Megatron-Core 41-49 % vs llm-foundry A100 53-64 %);
//  * c = 0.03: loss per doubling of GPUs past one 8-GPU node (gradient
//    all-reduce and pipeline bubbles that do not fully overlap; Megatron-Core
//    strong scaling 96 → 4608 H100s: 47 → 42 % MFU);
//  * r = hardware/model FLOPs: 1 + (2N + 4lhs)/(6N + 12lhs) with full
//    recompute (one more forward), 1 + 4lhs/(...) with selective recompute
//    (Korthikanti et al. 2022 §5);
//  * A = 5·a·s / (34·h) where attention materialises the s × s scores (no
//    FlashAttention, Dao et al. 2022): Korthikanti et al. 2022 §4.1 count
//    5·a·s activation bytes per token and layer for them beside 34·h for
//    the rest, so the memory-bound work grows by that ratio; 0 for fused
//    attention (what `estimate` assumes for the workloads it plans);
//  * the log-doubling applies to model-parallel jobs; a purely data-parallel
//    run whose layout is known pays its gradient all-reduce, costed from the
//    links (interconnect.cc) and overlapped with the backward pass where the
//    framework does (DDP buckets), instead;
//  * each micro-batch also pays a fixed 3 × 80 µs per layer (kernel launches
//    and small-kernel latency of forward + backward, 3 × the inference
//    per-layer overhead below), which is what makes small per-GPU batches
//    lose utilisation.
// e, k, c were refitted once for issue 11 (from 0.65, 6.25, 0.04), with the
// attention, micro-batch and data-parallel terms in place, to all 46
// training rows of tests/data/published_measurements.csv by the grid rule
// of physics.h; docs/estimator.md has the fit and the per-source errors.
// Inference keeps its own k = 6.25. Layout effects the calibration set
// cannot show (TP over PCIe, data parallel over Ethernet, pipeline bubbles
// with few micro-batches) are added explicitly in layout_model.cc from link
// bandwidths, with no fitted constant.
//
// Inference (one replica on t GPUs, tensor parallel):
//  * prefill of n tokens: FLOPs (2·N_matmul·n + 2·l·h·n², causal attention)
//    at peak × e_c / (1 + k_i·(peak/bw)·t/h), k_i = 6.25 — the memory-bound term of
//    training, with t because tensor parallelism without sequence
//    parallelism replicates the elementwise work on every rank — plus one
//    read of the weights, plus per-layer overheads;
//  * decode step at batch B, context C: read the weights once (W/bw), do
//    2·N_matmul·B FLOPs, read B·C KV-cache tokens, plus per-layer overheads.
//    The weight read and the matmuls are added, not maxed: at the batch sizes
//    where both matter the GEMMs are too skinny to overlap them (this is what
//    makes the plain roofline ~45 % off on large-batch serving).
//  * per-layer overheads: 80 µs per layer (kernel launches, sampling) and
//    50 µs per layer for the tensor-parallel all-reduce when t > 1.
// e_c = e_bw = 0.95 and the two overheads were fitted to the 23 inference
// rows of the same file.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/strings.h"
#include "estimate/internal/physics.h"
#include "workload/models.h"

namespace gpuplan::estimate::internal {

using workload::Method;
using workload::Precision;
using workload::Recompute;

double peak_tflops(const catalog::Gpu& gpu, Precision p, std::string* note) {
  auto pick = [&](double v, const char* what) {
    if (note) *note = what;
    return v;
  };
  switch (p) {
    case Precision::kFp32:
      if (gpu.tf32_tflops > 0) return pick(gpu.tf32_tflops, "TF32 tensor, dense");
      return pick(gpu.fp32_tflops, "FP32");
    case Precision::kBf16:
      if (gpu.bf16_tflops > 0) return pick(gpu.bf16_tflops, "BF16 tensor, dense");
      if (gpu.fp16_tflops > 0) return pick(gpu.fp16_tflops, "FP16 tensor (no BF16 on this GPU)");
      return pick(gpu.fp32_tflops, "FP32 (no 16-bit tensor rate known)");
    case Precision::kFp16:
      if (gpu.fp16_tflops > 0) return pick(gpu.fp16_tflops, "FP16 tensor, dense");
      return pick(gpu.fp32_tflops, "FP32 (no FP16 tensor rate known)");
    case Precision::kFp8:
      if (gpu.fp8_tflops > 0) return pick(gpu.fp8_tflops, "FP8 tensor, dense");
      if (gpu.fp16_tflops > 0) return pick(gpu.fp16_tflops, "FP16 tensor (no FP8 on this GPU)");
      return pick(gpu.fp32_tflops, "FP32 (no FP8/FP16 tensor rate known)");
    case Precision::kInt8:
    case Precision::kInt4:
      // Weight-only quantisation: matmuls run in 16-bit after dequantising.
      if (gpu.fp16_tflops > 0)
        return pick(gpu.fp16_tflops, "FP16 tensor (weight-only quantisation)");
      return pick(gpu.fp32_tflops, "FP32 (weight-only quantisation)");
  }
  return 0;
}

double train_peak_tflops(const catalog::Gpu& gpu, Precision p, const workload::Model& m,
                         int seq_len, Method method, std::string* note) {
  const double peak = peak_tflops(gpu, p, note);
  const double half = p == Precision::kFp8 ? peak_tflops(gpu, Precision::kBf16, nullptr) : 0;
  if (p != Precision::kFp8 || gpu.fp8_tflops <= 0 || half <= 0 || half >= peak) return peak;
  // FP8 training (NVIDIA Transformer Engine: te.Linear, LayerNormLinear and
  // LayerNormMLP cast their GEMM inputs to FP8; DotProductAttention computes
  // Q.K^T and softmax.V in BF16 unless FP8 attention is asked for;
  // Micikevicius et al. 2022, "FP8 Formats for Deep Learning", keep the
  // non-GEMM work in higher precision): the model's FLOPs take
  // linear / FP8 peak + attention / BF16 peak.
  const double total = train_flops_per_token(m, seq_len, method);
  const double linear = (method == Method::kFull ? 6.0 : 4.0) * matmul_params(m) * 1e9;
  const double attention = std::max(0.0, total - linear);
  const double rate = total / (linear / peak + attention / half);
  if (note) {
    *note = "FP8 tensor, dense (" + strings::fixed(peak, 0) + ") for the linear layers, BF16 (" +
            strings::fixed(half, 0) + ") for attention, over the model's FLOPs";
  }
  return rate;
}

double matmul_params(const workload::Model& m) {
  // Active parameters minus the input embedding (a lookup, not a matmul);
  // the output head is a matmul even when tied.
  const double embed_in = static_cast<double>(m.vocab) * m.hidden / 1e9;
  const double head = m.tied_embeddings ? embed_in : 0;  // counted once in params when tied
  return m.active_params_b - embed_in + head;
}

double train_flops_per_token(const workload::Model& m, int seq_len, Method method) {
  // A step is the forward pass and its backward pass. The linear layers'
  // backward computes the activations' gradients (2 N) and the weights'
  // (2 N); LoRA freezes the weights and skips the latter: 6 N or 4 N (Hu et
  // al. 2021 §4; the adapters' own FLOPs are negligible). Attention's
  // scores and weighted sum have no weights: their backward (dP = dO V^T,
  // dV = P^T dO, dQ = dS K, dK = dS^T Q) is twice their forward whatever
  // is trained (Dao et al. 2022, FlashAttention §B.2).
  const double n = matmul_params(m) * 1e9;
  const double attention = forward_flops_per_token(m, seq_len) - 2.0 * n;
  return (method == Method::kFull ? 6.0 : 4.0) * n + 3.0 * attention;
}

double forward_flops_per_token(const workload::Model& m, double seq_len) {
  return 2.0 * matmul_params(m) * 1e9 + 4.0 * m.layers * workload::attention_width(m) *
                                            workload::local_attention(m).training_context(seq_len);
}

double hardware_flops_per_token(const workload::Model& m, int seq_len, Method method, Recompute r) {
  const double n = matmul_params(m) * 1e9;
  const double fwd_attn = forward_flops_per_token(m, seq_len) - 2.0 * n;
  const double model = train_flops_per_token(m, seq_len, method);
  switch (r) {
    case Recompute::kNone:
      return model;
    case Recompute::kSelective:
      return model + fwd_attn;
    case Recompute::kFull:
      return model + 2.0 * n + fwd_attn;
  }
  return model;
}

double train_mfu(double peak, double bw_gbs, Recompute r, const workload::Model& m, int seq_len,
                 Method method, const TrainShape& shape) {
  if (peak <= 0 || bw_gbs <= 0 || m.hidden <= 0) return 0;
  const double flop_per_byte = peak * 1e12 / (bw_gbs * 1e9);
  // (a) Materialised attention scores: 5·a·s bytes per token per layer
  // beside the 34·h of the rest (Korthikanti et al. 2022 §4.1).
  const double attention = shape.fused_attention
                               ? 0.0
                               : kUnfusedAttentionBytesPerHeadToken * m.heads * seq_len /
                                     (kActivationBytesPerTokenHidden * m.hidden);
  const double memory_bound = kTrainMemoryBoundWork * flop_per_byte / m.hidden * (1.0 + attention);
  const double hw = kTrainMatmulEfficiency * shape.matmul_derate / (1.0 + memory_bound);
  // (c) Model-parallel jobs keep the fitted per-doubling loss; purely
  // data-parallel ones pay their all-reduce from the links instead.
  const double scale =
      shape.data_parallel_only
          ? 1.0
          : 1.0 + kScaleLossPerDoubling * std::log2(std::max(1.0, shape.gpus / 8.0));
  const double f_model = train_flops_per_token(m, seq_len, method);
  const double recompute = hardware_flops_per_token(m, seq_len, method, r) / f_model;
  const double mfu = hw / recompute;
  if (shape.micro_batch <= 0) return mfu / scale;
  // (b) Fixed time per layer per micro-batch against the micro-batch's
  // compute on one tensor-parallel rank (pipeline stages divide both); the
  // scale loss applies to the sum, so that the layout search, which undoes
  // it for pure data parallelism, gets a rate independent of the GPU count.
  const double t_compute =
      shape.micro_batch * seq_len * f_model / (std::max(1, shape.tp) * peak * 1e12 * mfu);
  return mfu * t_compute / (t_compute + m.layers * kTrainLayerOverheadS) / scale;
}

MatmulCeiling matmul_ceiling(const catalog::Gpu& gpu, workload::Precision p) {
  MatmulCeiling c;
  if (p == workload::Precision::kFp8 && gpu.fp8_matmul_efficiency > 0) {
    c.share = gpu.fp8_matmul_efficiency;
    c.fp8 = true;
    c.fit_low = kFitFp8MamfLow;
    c.fit_high = kFitFp8MamfHigh;
  } else {
    c.share = gpu.matmul_efficiency;
  }
  return c;
}

double MatmulCeiling::derate() const {
  return share > 0 ? share / std::clamp(share, fit_low, fit_high) : 1.0;
}

double optimizer_step_seconds(double params, workload::Optimizer o, double bw_gbs) {
  if (bw_gbs <= 0 || params <= 0) return 0;
  // 16-bit weights and gradients plus the optimizer's states (fp32 master,
  // moments: Rajbhandari et al. 2020 §3.1), each read and written once.
  const double bytes = 2.0 * (2.0 + 2.0 + optimizer_bytes(o, false)) * params;
  return bytes / (bw_gbs * 1e9);
}

}  // namespace gpuplan::estimate::internal

namespace gpuplan::estimate {

using internal::kLayerOverheadS;

double ReplicaModel::prefill_seconds(double input_tokens) const {
  const double n = std::max(1.0, input_tokens);
  const double flops = flops_per_token * n + attn_flops_per_token_ctx * local.causal_pairs(n);
  return flops / flops_per_s + weight_bytes / bytes_per_s + step_overhead_s + tp_comm_seconds(n);
}

double ReplicaModel::tp_comm_seconds(double tokens) const {
  if (tp_allreduces <= 0) return 0;
  const double bytes = tokens * tp_bytes_per_token;
  return tp_allreduces * std::min(tp_ll_latency_s + bytes * tp_ll_s_per_byte,
                                  tp_bulk_latency_s + bytes * tp_bulk_s_per_byte);
}

double ReplicaModel::step_weight_bytes(double batch) const {
  if (experts <= experts_active || weight_bytes <= active_weight_bytes) return weight_bytes;
  // A token routes to k of E experts; b tokens routed independently and
  // uniformly touch E (1 - (1 - k/E)^b) of them on average (Mixtral 8x7B,
  // k = 2 of 8: 3.5 experts at b = 2, 5.5 at 4, all 8 by about 16), where
  // min(all, b x active) read 2 and 4 tokens' experts as disjoint.
  const double e = static_cast<double>(experts), k = static_cast<double>(experts_active);
  const double per_expert = (weight_bytes - active_weight_bytes) / (e - k);
  const double shared = active_weight_bytes - k * per_expert;
  const double touched = e * (1 - std::pow(1 - k / e, std::max(1.0, batch)));
  return std::min(weight_bytes, shared + per_expert * touched);
}

double ReplicaModel::decode_step_seconds(double batch, double context) const {
  const double b = std::max(1.0, batch);
  // MoE at small batch reads only the routed experts; at large batch all.
  const double w = step_weight_bytes(b);
  const double attention = std::max(
      kv_bytes_per_token / bytes_per_s,
      attn_decode_flops_per_token_ctx / (attn_flops_per_s > 0 ? attn_flops_per_s : flops_per_s));
  return w / bytes_per_s + b * flops_per_token / flops_per_s +
         b * local.cached_tokens(std::max(0.0, context)) * attention + step_overhead_s +
         tp_comm_seconds(b);
}

double ReplicaModel::max_batch(double context) const {
  const double per_seq = std::max(1.0, local.cached_tokens(context)) * kv_bytes_per_token;
  if (per_seq <= 0) return 0;
  const double kv = std::floor(kv_capacity_tokens * kv_bytes_per_token / per_seq);
  return max_seqs > 0 ? std::min(kv, max_seqs) : kv;
}

Result<ReplicaModel> replica_model(const workload::Workload& w, const catalog::Gpu& gpu,
                                   bool nvlink, int tp) {
  using namespace internal;
  if (tp < 1) return invalid_argument("tensor-parallel size must be at least 1");
  std::string note;
  const double peak = peak_tflops(gpu, w.precision, &note);
  if (peak <= 0 || gpu.memory_bw_gbs <= 0) {
    return invalid_argument("GPU " + gpu.model + " has no known " +
                            std::string(workload::to_string(w.precision)) +
                            " rate or memory bandwidth");
  }
  const workload::Model& m = w.model;
  ReplicaModel r;
  r.gpus = tp;
  const double flop_per_byte = peak * 1e12 / (gpu.memory_bw_gbs * 1e9);
  const double e_c = [&] {
    double e = kInferMatmulEfficiency * matmul_derate(gpu, w.precision) /
               (1.0 + kMemoryBoundWork * flop_per_byte * tp / m.hidden);
    if (const double ceiling = matmul_ceiling(gpu, w.precision).share; ceiling > 0)
      e = std::min(e, ceiling);
    auto it = w.overrides.find("serving_compute_efficiency");
    return it != w.overrides.end() ? it->second : e;
  }();
  const double e_bw = [&] {
    auto it = w.overrides.find("serving_bandwidth_efficiency");
    return it != w.overrides.end() ? it->second : kInferBandwidthEfficiency;
  }();
  r.flops_per_s = peak * 1e12 * tp * e_c;
  // Attention runs in 16 bits beside FP8 weights (vLLM's and SGLang's MLA
  // and FlashAttention decode kernels): at most the 16-bit peak's share.
  const double peak16 = std::max(gpu.bf16_tflops, gpu.fp16_tflops);
  r.attn_flops_per_s = peak16 > 0 && peak16 < peak ? r.flops_per_s * peak16 / peak : r.flops_per_s;
  r.bytes_per_s = gpu.memory_bw_gbs * 1e9 * tp * e_bw;
  r.weight_bytes = weight_bytes(m, w.precision);
  r.active_weight_bytes = weight_bytes(m, w.precision, true);
  r.experts = std::max(1, m.experts);
  r.experts_active = std::clamp(m.experts_active, 1, r.experts);
  r.flops_per_token = 2.0 * matmul_params(m) * 1e9;
  r.attn_flops_per_token_ctx = 4.0 * m.layers * workload::attention_width(m);
  r.attn_decode_flops_per_token_ctx = 4.0 * m.layers * workload::decode_attention_width(m);
  r.local = workload::local_attention(m);
  // The engine's KV-cache type where the workload states it (vLLM keeps a
  // 16-bit cache for fp8 weights unless --kv-cache-dtype fp8).
  const auto kv = w.overrides.find("serving_kv_cache_bytes");
  // Per token of the replica: a cache that tensor parallelism cannot split
  // (a latent, or fewer KV heads than ranks) is stored, and read, per rank.
  r.kv_bytes_per_token =
      kv_bytes_per_token(m, kv != w.overrides.end() ? kv->second : kv_value_bytes(w.precision)) *
      workload::kv_replication(m, tp);
  r.step_overhead_s = m.layers * kLayerOverheadS;
  if (tp > 1) {
    // Two all-reduces per layer (after attention and after the MLP, Shoeybi
    // et al. 2019 §3) of h 16-bit activations per token, over NVLink or PCIe.
    const Link link = intra_vm_link(gpu, nvlink);
    const CollectiveCost ll = allreduce_cost(tp, link, true);
    const CollectiveCost bulk = allreduce_cost(tp, link, false);
    r.tp_allreduces = 2.0 * m.layers;
    r.tp_bytes_per_token = 2.0 * m.hidden;
    r.tp_ll_latency_s = ll.latency_s;
    r.tp_ll_s_per_byte = ll.s_per_byte;
    r.tp_bulk_latency_s = bulk.latency_s;
    r.tp_bulk_s_per_byte = bulk.s_per_byte;
  }

  double overhead_gib = kOverheadGiB;
  if (auto it = w.overrides.find("memory_overhead_gib"); it != w.overrides.end()) {
    overhead_gib = it->second;
  }
  double headroom = kHeadroom;
  if (auto it = w.overrides.find("memory_headroom"); it != w.overrides.end()) headroom = it->second;
  const double usable = tp * (gpu.memory_gib * (1.0 - headroom) - overhead_gib) * kGiB;
  const double free_bytes = usable - r.weight_bytes;
  if (free_bytes <= 0) {
    // The usable memory, as training's messages say it: "T4 has 16" read as
    // if 15 GiB of weights fit.
    return failed_precondition("weights need " + strings::fixed(r.weight_bytes / kGiB / tp, 1) +
                               " GiB/GPU at tp=" + std::to_string(tp) + ", " + gpu.model + " has " +
                               strings::fixed(std::max(0.0, usable / tp / kGiB), 1) +
                               " GiB usable (" + strings::fixed(gpu.memory_gib, 0) +
                               " GiB less headroom and overhead)");
  }
  r.kv_capacity_tokens = free_bytes / r.kv_bytes_per_token;
  const auto cap = w.overrides.find("serving_max_seqs");
  r.max_seqs = cap != w.overrides.end() ? cap->second : engine_max_seqs(gpu);
  return r;
}

double engine_max_seqs(const catalog::Gpu& gpu) {
  // vLLM V1's defaults for its OpenAI server (get_batch_defaults() in
  // vllm/engine/arg_utils.py): 1,024 sequences on GPUs of 70 GiB or more
  // other than the A100 (H100, H200, MI300X), 256 elsewhere. 8,192
  // sequences of one token each were "served" at once on an H100 before.
  const bool a100 = gpu.model.find("A100") != std::string::npos;
  return gpu.memory_gib >= 70 && !a100 ? 1024 : 256;
}

namespace internal {

namespace {

// Keyed by strings::fold of the model name.
const std::map<std::string, catalog::Gpu>& reference_table() {
  // Datasheet rates (data/catalog/gpus.csv, whose sources are the vendor
  // datasheets): model, fp32, fp16 tensor, bf16 tensor, memory GiB, GB/s.
  static const std::map<std::string, catalog::Gpu> kTable = [] {
    std::map<std::string, catalog::Gpu> t;
    auto add = [&](const char* name, double fp32, double fp16, double bf16, double mem, double bw) {
      catalog::Gpu g;
      g.model = name;
      g.fp32_tflops = fp32;
      g.fp16_tflops = fp16;
      g.bf16_tflops = bf16;
      g.memory_gib = mem;
      g.memory_bw_gbs = bw;
      g.source = "vendor datasheet (data/catalog/gpus.csv)";
      t[strings::fold(name)] = g;
    };
    add("T4", 8.1, 65, 0, 16, 320);
    add("A10", 31.2, 125, 125, 24, 600);
    add("V100-16GB", 14, 112, 0, 16, 900);
    add("V100-32GB", 15.7, 125, 0, 32, 900);
    add("A100-40GB-SXM", 19.5, 312, 312, 40, 1555);
    add("A100-80GB-SXM", 19.5, 312, 312, 80, 2039);
    add("A100-80GB-PCIe", 19.5, 312, 312, 80, 1935);
    add("H100-SXM", 67, 989.5, 989.5, 80, 3350);
    add("H100-NVL", 60, 835.5, 835.5, 94, 3900);
    add("H200-SXM", 67, 989.5, 989.5, 141, 4800);
    add("M60", 4.8, 0, 0, 8, 160);
    add("MI25", 12.29, 24.6, 0, 16, 484);
    add("MI300X", 163.4, 1307.4, 1307.4, 192, 5300);
    add("V620", 20.28, 40.55, 0, 32, 512);
    return t;
  }();
  return kTable;
}

}  // namespace

const catalog::Gpu* reference_gpu(const std::string& model) {
  auto it = reference_table().find(strings::fold(model));
  return it == reference_table().end() ? nullptr : &it->second;
}

}  // namespace internal

std::vector<std::string> reference_gpu_names() {
  std::vector<std::string> out;
  for (const auto& [key, gpu] : internal::reference_table()) out.push_back(gpu.model);
  return out;
}
}  // namespace gpuplan::estimate
