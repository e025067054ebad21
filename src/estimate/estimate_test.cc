#include "estimate/estimate.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "core/strings.h"
#include "estimate/internal/estimate_ctx.h"
#include "estimate/internal/physics.h"
#include "estimate/test_util.h"
#include "workload/models.h"

namespace gpuplan::estimate {
namespace {

using internal::kGiB;
using workload::Kind;
using workload::Method;
using workload::Precision;
using workload::Recompute;

// ---- Memory model, hand-computed from the papers ---------------------------

// fp8 where no stack runs it: vLLM serves fp8 on FP8 tensor cores (8.9+)
// and weight-only from compute capability 7.5 (FP8 Marlin), so not on a
// V100 (7.0), which was "Fits: yes" at half the bf16 weights; full training
// in fp8 needs FP8 tensor cores (an A100 has none), a LoRA on an fp8 base
// reads it weight-only.
TEST(Precision, Fp8WhereTheStacksRunIt) {
  catalog::Gpu volta = v100();
  volta.vendor = "NVIDIA";
  volta.compute_capability = "7.0";
  catalog::Gpu turing = t4();
  turing.vendor = "NVIDIA";
  turing.compute_capability = "7.5";
  catalog::Gpu ampere = a100();
  ampere.vendor = "NVIDIA";
  ampere.compute_capability = "8.0";
  workload::Workload s = serve("llama-3.1-8b", 1);
  s.precision = workload::Precision::kFp8;
  Estimate on_v100 = estimate(s, vm("Standard_ND40rs_v2", volta, 8, true, 0), volta, 1);
  EXPECT_FALSE(on_v100.fits);
  EXPECT_NE(on_v100.reason.find("runs no fp8 weights"), std::string::npos) << on_v100.reason;
  // No count of it would: estimate -q looks past such sizes for its reason.
  EXPECT_TRUE(on_v100.unsupported);
  Estimate on_t4 = estimate(s, vm("Standard_NC16as_T4_v3", turing, 1, false, 0), turing, 1);
  EXPECT_EQ(on_t4.reason.find("fp8"), std::string::npos) << on_t4.reason;
  EXPECT_FALSE(on_t4.unsupported) << on_t4.reason;
  workload::Workload full = train("llama-3.1-8b");
  full.kind = workload::Kind::kFinetune;
  full.method = workload::Method::kFull;
  full.precision = workload::Precision::kFp8;
  const auto nd_a100 = vm("Standard_ND96amsr_A100_v4", ampere, 8, true, 1600);
  Estimate fp8_full = estimate(full, nd_a100, ampere, 2);
  EXPECT_FALSE(fp8_full.fits);
  EXPECT_NE(fp8_full.reason.find("no FP8 tensor cores"), std::string::npos) << fp8_full.reason;
  EXPECT_TRUE(fp8_full.unsupported);
  // A GPU without a known rate for the precision, likewise.
  catalog::Gpu unrated = ampere;
  unrated.bf16_tflops = unrated.fp16_tflops = unrated.tf32_tflops = unrated.fp32_tflops = 0;
  workload::Workload bf16 = serve("llama-3.1-8b", 1);
  Estimate no_rate =
      estimate(bf16, vm("Standard_NC24ads_A100_v4", unrated, 1, false, 0), unrated, 1);
  EXPECT_FALSE(no_rate.fits);
  EXPECT_TRUE(no_rate.unsupported) << no_rate.reason;
  EXPECT_NE(no_rate.reason.find("has no known bf16 rate"), std::string::npos) << no_rate.reason;
  EXPECT_EQ(no_rate.memory_needed_gib, 0);  // refused before any layout
  workload::Workload lora = full;
  lora.method = workload::Method::kLora;
  EXPECT_EQ(estimate(lora, nd_a100, ampere, 1).reason.find("fp8"), std::string::npos);
}

// The serving engine's kernels decide what a GPU serves (vLLM's GPU
// requirements and its "Supported Hardware" table for quantisation; the
// gpt-oss recipe for MXFP4): gpt-oss was "Fits: yes" on a T4, AWQ on a V100
// and int4 on an MI300X, an M60 served Llama at all.
TEST(Precision, QuantisedFormatsWhereTheEngineHasKernels) {
  const auto why = [](const workload::Workload& w, const std::string& vendor, const std::string& cc,
                      double fp8) {
    catalog::Gpu g = a100();
    g.model = "GPU";
    g.vendor = vendor;
    g.compute_capability = cc;
    g.fp8_tflops = fp8;
    return internal::precision_unsupported(g, w);
  };
  workload::Workload bf16 = serve("llama-3.1-8b", 1);
  EXPECT_NE(why(bf16, "NVIDIA", "5.2", 0).find("runs no vLLM"), std::string::npos);   // M60
  EXPECT_EQ(why(bf16, "NVIDIA", "7.0", 0), "");                                       // V100
  EXPECT_NE(why(bf16, "AMD", "gfx1030", 0).find("runs no vLLM"), std::string::npos);  // V620
  EXPECT_EQ(why(bf16, "AMD", "gfx942", 2615), "");                                    // MI300X
  EXPECT_EQ(why(bf16, "AMD", "gfx1101", 0), "");                                      // V710

  workload::Workload gptoss = serve("gpt-oss-20b", 1);
  gptoss.precision = gptoss.model.released;
  ASSERT_EQ(gptoss.precision, Precision::kInt4);
  EXPECT_NE(why(gptoss, "NVIDIA", "7.5", 0).find("MXFP4"), std::string::npos);  // T4
  EXPECT_EQ(why(gptoss, "NVIDIA", "8.0", 0), "");                               // A100
  EXPECT_EQ(why(gptoss, "AMD", "gfx942", 2615), "");
  EXPECT_NE(why(gptoss, "AMD", "gfx1101", 0).find("MXFP4"), std::string::npos);

  workload::Workload awq = serve("llama-3.1-8b", 1);
  awq.model =
      workload::named_model(awq.model, "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4");
  awq.precision = awq.model.released;
  EXPECT_EQ(awq.model.released_format, "awq");
  EXPECT_NE(why(awq, "NVIDIA", "7.0", 0).find("AWQ"), std::string::npos);
  EXPECT_EQ(why(awq, "NVIDIA", "7.5", 0), "");
  workload::Workload gptq = serve("llama-3.1-8b", 1);
  gptq.model = workload::named_model(gptq.model, "TheBloke/Llama-2-7B-GPTQ");
  gptq.precision = Precision::kInt4;
  EXPECT_EQ(why(gptq, "NVIDIA", "7.0", 0), "");  // GPTQ's kernels run on Volta
  EXPECT_NE(why(gptq, "AMD", "gfx942", 2615).find("runs no int4"), std::string::npos);
  workload::Workload fp8 = serve("llama-3.1-8b", 1);
  fp8.precision = Precision::kFp8;
  EXPECT_NE(why(fp8, "AMD", "gfx1101", 0).find("has no FP8"), std::string::npos);
  EXPECT_EQ(why(fp8, "AMD", "gfx942", 2615), "");
  // Training is PyTorch's, not the serving engine's: an M60 trains bf16.
  EXPECT_EQ(why(train("llama-3.1-8b"), "NVIDIA", "5.2", 0), "");
}

// Quantised checkpoints keep the embedding and the head in 16 bits and add
// group scales to int4: hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4
// is 4.68 + 1.05 GB of safetensors (huggingface.co, its file list), where
// 4 bits throughout gave 4.0 GB.
TEST(Memory, QuantisedCheckpointsKeepTheVocabularyIn16Bits) {
  const workload::Model m = *workload::find_model("llama-3.1-8b");
  EXPECT_NEAR(internal::weight_bytes(m, Precision::kInt4) / 5.73e9, 1.0, 0.01);
  // fp8 and int8 a byte for the linear layers, the 2 x 128,256 x 4,096
  // vocabulary in bf16; bf16 is 2 bytes throughout.
  const double vocabulary = 2.0 * 128256 * 4096;
  EXPECT_NEAR(internal::weight_bytes(m, Precision::kFp8), m.params_b * 1e9 + vocabulary, 1);
  EXPECT_NEAR(internal::weight_bytes(m, Precision::kInt8), m.params_b * 1e9 + vocabulary, 1);
  EXPECT_DOUBLE_EQ(internal::weight_bytes(m, Precision::kBf16), m.params_b * 2e9);
}

TEST(Memory, ZeroPaperSixteenBytesPerParam) {
  // Rajbhandari et al. 2020 §3.1: mixed-precision Adam holds 2 + 2 + 12 = 16
  // bytes per parameter. Llama 2 7B has 6.738e9 parameters.
  workload::Workload w = train("llama-2-7b");
  MemoryBreakdown m = internal::train_memory(w, Layout{1, 1, 1});
  const double n = w.model.params_b * 1e9;
  EXPECT_NEAR(m.weights, n * 2 / kGiB, 1e-6);
  EXPECT_NEAR(m.gradients, n * 2 / kGiB, 1e-6);
  EXPECT_NEAR(m.optimizer, n * 12 / kGiB, 1e-6);
  EXPECT_NEAR(m.weights + m.gradients + m.optimizer, 100.4, 0.1);  // 107.8 GB
}

TEST(Memory, ZeroStagesShardAcrossDataParallel) {
  workload::Workload w = train("llama-2-7b");
  const double n = w.model.params_b * 1e9;
  w.zero_stage = 1;
  MemoryBreakdown z1 = internal::train_memory(w, Layout{1, 1, 8});
  EXPECT_NEAR(z1.optimizer, n * 12 / 8 / kGiB, 1e-6);
  EXPECT_NEAR(z1.gradients, n * 2 / kGiB, 1e-6);
  w.zero_stage = 2;
  EXPECT_NEAR(internal::train_memory(w, Layout{1, 1, 8}).gradients, n * 2 / 8 / kGiB, 1e-6);
  w.zero_stage = 3;
  MemoryBreakdown z3 = internal::train_memory(w, Layout{1, 1, 8});
  EXPECT_NEAR(z3.weights + z3.gradients + z3.optimizer, n * 16 / 8 / kGiB, 1e-6);
  // Tensor x pipeline parallelism splits every model state.
  w.zero_stage = 0;
  MemoryBreakdown tp = internal::train_memory(w, Layout{4, 2, 1});
  EXPECT_NEAR(tp.weights, n * 2 / 8 / kGiB, 1e-6);
}

TEST(Memory, KorthikantiActivations) {
  // Korthikanti et al. 2022 eq. 2 (tensor + sequence parallel, t = 8):
  // selective recompute keeps 34·s·b·h/t bytes per layer; full keeps 2·s·b·h/t.
  // GPT-3 175B: s = 2048, b = 1, h = 12288, 96 layers, ffn 4h (not gated).
  workload::Workload w = train("gpt3-175b");
  w.model.vocab = 1;  // isolate the transformer layers from the logits
  w.data.micro_batch = 1;
  w.recompute = Recompute::kSelective;
  const double per_layer = 34.0 * 2048 * 12288 / 8;
  EXPECT_NEAR(internal::train_memory(w, Layout{8, 1, 1}).activations, per_layer * 96 / kGiB, 1e-3);
  EXPECT_NEAR(per_layer * 96 / kGiB, 9.5625, 1e-4);
  w.recompute = Recompute::kFull;
  EXPECT_NEAR(internal::train_memory(w, Layout{8, 1, 1}).activations, 0.5625, 1e-4);
  // No recompute adds 5·a·s²·b per layer (a = 96): 34 + 5·96·2048/12288 = 114 sbh.
  w.recompute = Recompute::kNone;
  EXPECT_NEAR(internal::train_memory(w, Layout{8, 1, 1}).activations,
              (34.0 * 2048 * 12288 / 8 + 5.0 * 96 * 2048 * 2048 / 8) * 96 / kGiB, 1e-3);
}

TEST(Memory, KvCacheIsGqaAware) {
  // Llama 3 8B: 2 (K,V) x 32 layers x 8 KV heads x 128 x 2 bytes = 128 KiB/token;
  // Llama 2 7B (no GQA): 32 KV heads = 512 KiB/token. fp8 weights keep a
  // 1-byte cache, fp32 a 4-byte one, the rest 2.
  EXPECT_DOUBLE_EQ(internal::kv_bytes_per_token(*workload::find_model("llama-3-8b"),
                                                internal::kv_value_bytes(Precision::kBf16)),
                   128.0 * 1024);
  EXPECT_DOUBLE_EQ(internal::kv_bytes_per_token(*workload::find_model("llama-2-7b"),
                                                internal::kv_value_bytes(Precision::kFp16)),
                   512.0 * 1024);
  EXPECT_EQ(internal::kv_value_bytes(Precision::kFp8), 1);
  EXPECT_EQ(internal::kv_value_bytes(Precision::kInt4), 2);
  EXPECT_EQ(internal::kv_value_bytes(Precision::kFp32), 4);
}

TEST(Memory, LoraFreezesTheBase) {
  workload::Workload w = train("llama-2-7b");
  w.kind = Kind::kFinetune;
  w.method = Method::kLora;
  w.lora_rank = 16;
  MemoryBreakdown m = internal::train_memory(w, Layout{1, 1, 1});
  // Adapters: 32 layers x 16 x (q,k,v,o: 4 x 8192 + FFN: 3 x (4096 + 11008)) = 39.98 M params.
  const double adapters = 32.0 * 16 * (4 * 8192 + 3 * (4096 + 11008));
  EXPECT_NEAR(m.gradients, adapters * 2 / kGiB, 1e-6);
  EXPECT_NEAR(m.optimizer, adapters * 12 / kGiB, 1e-6);
  w.method = Method::kQlora;
  // NF4 + double-quantised constants: 4.127 bits/param (Dettmers et al.
  // 2023 §2) for the linear layers; the embedding and the head (32,000 x
  // 4,096 each) stay bf16.
  const double vocabulary = 2.0 * 32000 * 4096;
  const double linear = w.model.params_b * 1e9 - vocabulary;
  EXPECT_NEAR(internal::train_memory(w, Layout{1, 1, 1}).weights,
              (linear * 4.127 / 8 + vocabulary * 2 + adapters * 2) / kGiB, 1e-3);
  // A LoRA at the workload's precision keeps its base at that precision:
  // int4 as QLoRA's NF4, int8 and fp8 a byte (it was bf16 whatever was
  // asked: 15 GiB of weights for an 8 B model at int4).
  w.method = Method::kLora;
  w.precision = workload::Precision::kInt4;
  EXPECT_NEAR(internal::train_memory(w, Layout{1, 1, 1}).weights,
              (linear * 4.127 / 8 + vocabulary * 2 + adapters * 2) / kGiB, 1e-3);
  w.precision = workload::Precision::kInt8;
  EXPECT_NEAR(internal::train_memory(w, Layout{1, 1, 1}).weights,
              (linear + vocabulary * 2 + adapters * 2) / kGiB, 1e-3);
}

// ---- Throughput model ------------------------------------------------------

TEST(Throughput, MegatronFlopsFormula) {
  // Narayanan et al. 2021 eq. 3 per token: 72·l·h²·(1 + s/(6h)) + 6·h·V for
  // GPT (MHA, ffn 4h). GPT-3 175B with Megatron's padded vocab 51200.
  workload::Model m = *workload::find_model("gpt3-175b");
  m.vocab = 51200;
  m.params_b = workload::params_from_architecture(m, false);
  m.active_params_b = m.params_b;
  const double l = 96, h = 12288, s = 2048, v = 51200;
  const double megatron = 72 * l * h * h * (1 + s / (6 * h)) + 6 * h * v;
  EXPECT_NEAR(internal::train_flops_per_token(m, 2048, Method::kFull) / megatron, 1.0, 1e-3);
}

TEST(Throughput, LoraSkipsWeightGradientsNotAttentionBackward) {
  // LoRA drops the frozen weights' gradients (2 N of the 6 N) but attention's
  // backward has no weights to skip: at any context, full minus LoRA is 2 N
  // and the attention term is the same in both (it once took 2/3 of it).
  const workload::Model m = *workload::find_model("llama-3.1-8b");
  const double n = internal::matmul_params(m) * 1e9;
  for (int s : {512, 8192, 131072}) {
    const double full = internal::train_flops_per_token(m, s, Method::kFull);
    const double lora = internal::train_flops_per_token(m, s, Method::kLora);
    EXPECT_NEAR((full - lora) / (2 * n), 1.0, 1e-9) << s;
  }
  // What a longer context adds (attention only) is the same for both.
  const auto growth = [&](Method method) {
    return internal::train_flops_per_token(m, 131072, method) -
           internal::train_flops_per_token(m, 512, method);
  };
  EXPECT_GT(growth(Method::kFull), 0);
  EXPECT_NEAR(growth(Method::kLora) / growth(Method::kFull), 1.0, 1e-9);
}

internal::TrainShape shape(double gpus) {
  internal::TrainShape s;
  s.gpus = gpus;
  return s;
}

TEST(Throughput, MfuHandComputed) {
  // A100 80GB SXM: 312 TFLOP/s, 2039 GB/s -> 153.0 FLOP/byte; h = 4096:
  // e / (1 + k * 153.0 / 4096) on one node, no recompute, fused attention.
  const double e = internal::kTrainMatmulEfficiency, k = internal::kTrainMemoryBoundWork,
               c = internal::kScaleLossPerDoubling;
  workload::Model m = *workload::find_model("llama-2-7b");
  const double mfu =
      internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, shape(8));
  EXPECT_NEAR(mfu, e / (1 + k * (312e12 / 2039e9) / 4096), 1e-9);
  // 64 GPUs = 3 doublings past 8: / (1 + c * 3).
  EXPECT_NEAR(internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, shape(64)),
              mfu / (1 + 3 * c), 1e-9);
  // Full recompute: hardware FLOPs 8N + 16lhs against model FLOPs 6N + 12lhs.
  const double n = internal::matmul_params(m) * 1e9;
  const double lhs = 32.0 * 4096 * 2048;
  EXPECT_NEAR(internal::train_mfu(312, 2039, Recompute::kFull, m, 2048, Method::kFull, shape(8)),
              mfu * (6 * n + 12 * lhs) / (8 * n + 16 * lhs), 1e-9);
}

TEST(Throughput, UnfusedAttentionAddsScoreTraffic) {
  // Korthikanti et al. 2022 §4.1: 5·a·s bytes per token and layer for the
  // scores beside 34·h. Llama 2 7B at s = 2048: 5·32·2048 / (34·4096) = 2.353,
  // so the memory-bound term is 3.353 x larger.
  const double e = internal::kTrainMatmulEfficiency, k = internal::kTrainMemoryBoundWork;
  workload::Model m = *workload::find_model("llama-2-7b");
  internal::TrainShape s = shape(8);
  s.fused_attention = false;
  const double mem = k * (312e12 / 2039e9) / 4096;
  EXPECT_NEAR(internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, s),
              e / (1 + mem * (1 + 5.0 * 32 * 2048 / (34.0 * 4096))), 1e-9);
  // Longer sequences cost more only when the scores are materialised.
  EXPECT_LT(internal::train_mfu(312, 2039, Recompute::kNone, m, 8192, Method::kFull, s),
            internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, s));
}

TEST(Throughput, SmallMicroBatchesAndDataParallelScale) {
  workload::Model m = *workload::find_model("llama-2-7b");
  const double big =
      internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, shape(8));
  // One 2048-token micro-batch: compute 2048·F/(312 T·mfu) per micro-batch
  // against 32 layers x 240 µs of fixed time.
  internal::TrainShape s = shape(8);
  s.micro_batch = 1;
  const double f = internal::train_flops_per_token(m, 2048, Method::kFull);
  const double t = 2048 * f / (312e12 * big);
  EXPECT_NEAR(internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, s),
              big * t / (t + 32 * 3 * internal::kLayerOverheadS), 1e-9);
  // Tensor parallelism splits the compute, not the fixed time.
  internal::TrainShape s8 = s;
  s8.tp = 8;
  EXPECT_LT(internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, s8),
            internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, s));
  // A purely data-parallel job on 1,024 GPUs pays no per-doubling loss (its
  // all-reduce is costed from the links instead).
  internal::TrainShape dp = shape(1024);
  dp.data_parallel_only = true;
  EXPECT_NEAR(internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, dp), big,
              1e-12);
  EXPECT_LT(internal::train_mfu(312, 2039, Recompute::kNone, m, 2048, Method::kFull, shape(1024)),
            big);
}

TEST(Throughput, MatmulsRunAtTheGpusMeasuredCeiling) {
  // The fitted efficiencies hold for GPUs measured at 80.3-86.9 % of their
  // 16-bit peak (A100, H100); a GPU measured outside runs its matmuls at its
  // share over the nearest end (MI300X: 51.4 / 80.3), in serving and in
  // training; memory reads are untouched.
  const workload::Workload w = serve("llama-3.1-8b", 1);
  auto with = [](double e, double fp8 = 0) {
    catalog::Gpu g = h100();
    g.matmul_efficiency = e;
    g.fp8_matmul_efficiency = fp8;
    return g;
  };
  auto base = replica_model(w, h100(), true, 1);
  auto inside = replica_model(w, with(0.85), true, 1);
  auto low = replica_model(w, with(0.514), true, 1);
  auto high = replica_model(w, with(0.95), true, 1);
  ASSERT_TRUE(base && inside && low && high);
  EXPECT_EQ(inside->flops_per_s, base->flops_per_s);
  EXPECT_NEAR(low->flops_per_s / base->flops_per_s, 0.514 / 0.803, 1e-12);
  EXPECT_NEAR(high->flops_per_s / base->flops_per_s, 0.95 / 0.869, 1e-12);
  EXPECT_EQ(low->bytes_per_s, base->bytes_per_s);
  EXPECT_GT(low->prefill_seconds(2048), base->prefill_seconds(2048));

  // FP8 is judged against the FP8 range (70.9-73.4 %, H100 and H200): a
  // GPU low in 16 bits but inside it in FP8 keeps the fit there; one with
  // no FP8 figure is read by its 16-bit share.
  workload::Workload w8 = w;
  w8.precision = Precision::kFp8;
  auto fp8_base = replica_model(w8, h100(), true, 1);
  auto fp8_inside = replica_model(w8, with(0.729, 0.723), true, 1);
  auto fp8_unmeasured = replica_model(w8, with(0.514), true, 1);
  ASSERT_TRUE(fp8_base && fp8_inside && fp8_unmeasured);
  EXPECT_EQ(fp8_inside->flops_per_s, fp8_base->flops_per_s);
  EXPECT_NEAR(fp8_unmeasured->flops_per_s / fp8_base->flops_per_s, 0.514 / 0.803, 1e-12);

  // No efficiency exceeds the measured ceiling: a model 16,384 wide on one
  // GPU, whose fitted efficiency is 0.95 / (1 + 6.25 x 295 / 16384) = 0.855.
  workload::Workload wide = w;
  wide.model.hidden = 16384;
  auto fit = replica_model(wide, h100(), true, 1);
  auto capped = replica_model(wide, with(0.803), true, 1);
  ASSERT_TRUE(fit && capped);
  EXPECT_GT(fit->flops_per_s, 0.85 * 989.5e12);
  EXPECT_NEAR(capped->flops_per_s, 0.803 * 989.5e12, 1e6);

  const workload::Model m = *workload::find_model("llama-3.1-8b");
  internal::TrainShape fitted, measured;
  measured.matmul_derate = internal::matmul_derate(with(0.514), Precision::kBf16);
  EXPECT_NEAR(internal::train_mfu(989, 3350, Recompute::kNone, m, 2048, Method::kFull, measured) /
                  internal::train_mfu(989, 3350, Recompute::kNone, m, 2048, Method::kFull, fitted),
              0.514 / 0.803, 1e-12);
}

// The fit ranges are the catalog's own measurements of the GPUs the
// efficiencies were fitted on.
TEST(Throughput, FitRangesAreTheCatalogsFitGpus) {
  auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat) << cat.error().to_string();
  EXPECT_EQ((*cat)->find_gpu("H100-SXM")->matmul_efficiency, internal::kFitMamfLow);
  EXPECT_EQ((*cat)->find_gpu("A100-80GB-SXM")->matmul_efficiency, internal::kFitMamfHigh);
  EXPECT_EQ((*cat)->find_gpu("A100-80GB-PCIe")->matmul_efficiency, 0.811);
  EXPECT_EQ((*cat)->find_gpu("H100-SXM")->fp8_matmul_efficiency, internal::kFitFp8MamfLow);
  EXPECT_EQ((*cat)->find_gpu("H200-SXM")->fp8_matmul_efficiency, internal::kFitFp8MamfHigh);
  for (const char* fit : {"A100-80GB-SXM", "A100-80GB-PCIe", "H100-SXM", "H200-SXM"}) {
    for (Precision p : {Precision::kBf16, Precision::kFp8}) {
      EXPECT_EQ(internal::matmul_derate(*(*cat)->find_gpu(fit), p), 1.0) << fit;
    }
  }
  EXPECT_NEAR(internal::matmul_derate(*(*cat)->find_gpu("MI300X"), Precision::kFp8), 0.514 / 0.803,
              1e-12);
  EXPECT_EQ(internal::matmul_derate(*(*cat)->find_gpu("GB200"), Precision::kFp8), 1.0);
}

TEST(Throughput, DecodeStepHandComputed) {
  // Llama 2 7B fp16 on one A100 80GB: read 13.48 GB of weights at 0.95 x 2039
  // GB/s = 6.957 ms, + 32 layers x 80 us = 2.56 ms, + 2·N_matmul FLOPs at
  // 0.95 x 312 T / (1 + 6.25·153/4096) = 0.055 ms.
  workload::Workload w = serve("llama-2-7b", 1);
  w.precision = Precision::kFp16;
  auto r = replica_model(w, a100(), true, 1);
  ASSERT_TRUE(r) << r.error().to_string();
  const double weights = w.model.params_b * 1e9 * 2 / (2039e9 * 0.95);
  const double flops = 2 * internal::matmul_params(w.model) * 1e9 /
                       (312e12 * 0.95 / (1 + 6.25 * (312e12 / 2039e9) / 4096));
  EXPECT_NEAR(r->decode_step_seconds(1, 0), weights + 32 * 80e-6 + flops, 1e-9);
  EXPECT_NEAR(r->decode_step_seconds(1, 0), 9.57e-3, 0.05e-3);
  // KV read grows linearly with batch x context: 512 KiB/token.
  EXPECT_NEAR(r->decode_step_seconds(1, 1000) - r->decode_step_seconds(1, 0),
              1000 * 512.0 * 1024 / (2039e9 * 0.95), 1e-9);
  // KV capacity: 80 GiB x 0.95 - 2 GiB overhead - weights, at 512 KiB a token.
  EXPECT_NEAR(r->kv_capacity_tokens,
              ((80 * 0.95 - 2) * kGiB - w.model.params_b * 1e9 * 2) / (512.0 * 1024), 1);
  EXPECT_DOUBLE_EQ(r->max_batch(2048), std::floor(r->kv_capacity_tokens / 2048));
}

TEST(Throughput, MaxLoadIsBoundByPagedKvCacheOrTheRunsMaxSeqs) {
  // Llama 2 7B fp16 on one A100 80GB: the KV cache left after weights and
  // overhead, less one 2048-token prefill chunk's activations (34·h bytes a
  // token, 16-bit), holds sequences of input + output tokens plus half a
  // 16-token page each: equal requests queued at once grow in step, so
  // their caches are full together at their end.
  workload::Workload w = serve("llama-2-7b", 1);
  w.precision = Precision::kFp16;
  auto r = replica_model(w, a100(), true, 1);
  ASSERT_TRUE(r) << r.error().to_string();
  const double kv = r->kv_capacity_tokens - 2048.0 * 34 * 4096 * 2 / (512.0 * 1024);
  // Long sequences: memory decides (about 30 of 2048 + 2048 + 8 tokens).
  internal::MaxLoadPoint longs = internal::max_load_point(*r, w.model, 2048, 2048, 0);
  EXPECT_DOUBLE_EQ(longs.memory_limit, std::floor(kv / (2048 + 2048 + 8)));
  EXPECT_DOUBLE_EQ(longs.concurrency, longs.memory_limit);
  // Closed-loop clients past what the cache holds are admitted together as
  // others finish together: the same limit.
  internal::MaxLoadPoint clients = internal::closed_loop_point(*r, w.model, 2048, 2048, 1000, 0);
  EXPECT_DOUBLE_EQ(clients.memory_limit, longs.memory_limit);
  // Short sequences with no cap stated: memory decides there too (no
  // engine's default is assumed: vLLM 0.6 capped at 256, vLLM V1 at 1,024
  // on large GPUs, TensorRT-LLM sizes from memory), and the most in
  // flight is the most throughput.
  internal::MaxLoadPoint shorts = internal::max_load_point(*r, w.model, 128, 128, 0);
  EXPECT_DOUBLE_EQ(shorts.memory_limit, std::floor(kv / (128 + 128 + 8)));
  EXPECT_GT(shorts.memory_limit, 256);
  EXPECT_DOUBLE_EQ(shorts.concurrency, shorts.memory_limit);
  // A run's stated cap (vLLM 0.6's default --max-num-seqs 256) binds, and
  // throughput is lower there.
  internal::MaxLoadPoint capped = internal::max_load_point(*r, w.model, 128, 128, 256);
  EXPECT_DOUBLE_EQ(capped.concurrency, 256);
  EXPECT_LT(capped.rps, shorts.rps);
  // requests/s = B / (O·d(B) + B·t_p) at the chosen B.
  const double d = r->decode_step_seconds(256, 128 + 64);
  const double t_p =
      (r->flops_per_token * 128 + r->attn_flops_per_token_ctx * 128 * 128 / 2) / r->flops_per_s;
  EXPECT_NEAR(capped.rps, 256 / (128 * d + 256 * t_p), 1e-9 * capped.rps);
}

// A mixture of experts' decode step reads the shared weights and the
// experts its tokens are routed to: k of E for one token, E (1 - (1 -
// k/E)^b) on average for b tokens routed independently, all of them at a
// large batch; a dense model reads all of its weights at any batch.
TEST(Throughput, MixtureOfExpertsStepsReadTheExpertsTheirTokensTouch) {
  workload::Workload w = serve("mixtral-8x7b", 1);
  auto r = replica_model(w, h100(), true, 2);
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_EQ(r->experts, 8);
  ASSERT_EQ(r->experts_active, 2);
  const double e = (r->weight_bytes - r->active_weight_bytes) / 6;  // one expert's bytes
  const double shared = r->active_weight_bytes - 2 * e;
  EXPECT_DOUBLE_EQ(r->step_weight_bytes(1), r->active_weight_bytes);
  EXPECT_NEAR(r->step_weight_bytes(2), shared + 3.5 * e, 1e-9 * r->weight_bytes);
  EXPECT_NEAR(r->step_weight_bytes(4), shared + 8 * (1 - std::pow(0.75, 4)) * e,
              1e-9 * r->weight_bytes);
  // Two tokens touch 3.5 experts, not 4: less than twice one token's read.
  EXPECT_LT(r->step_weight_bytes(2), 2 * r->active_weight_bytes - 0.4 * e);
  EXPECT_GT(r->step_weight_bytes(64), 0.999 * r->weight_bytes);
  EXPECT_LE(r->step_weight_bytes(1000), r->weight_bytes);
  auto dense = replica_model(serve("llama-3.1-8b", 1), h100(), true, 1);
  ASSERT_TRUE(dense);
  EXPECT_DOUBLE_EQ(dense->step_weight_bytes(1), dense->weight_bytes);
  EXPECT_DOUBLE_EQ(dense->step_weight_bytes(7), dense->weight_bytes);
}

// A latent cache (DeepSeek-V3) is not split by tensor parallelism: every
// rank stores and reads all of it, so a TP-8 replica holds an eighth of the
// tokens its free memory would otherwise. Its absorbed attention does
// 128 x (2 x 512 + 64) x 2 FLOPs per 576 bytes (fp8) read, 484 per byte, over
// the GPU's 16-bit balance on one GPU: there a decode step's attention costs
// its FLOPs, at the 16-bit rate beside FP8 weights. Over 8 ranks each
// reads all 576 bytes for 16 heads (60 per byte), near the balance of a
// rank's TP-8 rate: the slower of the two.
TEST(Throughput, LatentAttentionIsStoredPerRankAndCostsItsFlops) {
  catalog::Gpu h200 = h100();
  h200.model = "H200-SXM";
  h200.memory_gib = 141;
  h200.memory_bw_gbs = 4800;
  const double b = 32, ctx = 8192;
  const double flops_per_layer = 4.0 * 128 * (2 * 512 + 64) / 2.0;
  workload::Workload w = serve("deepseek-v3", 1);
  w.precision = Precision::kFp8;
  auto tp8 = replica_model(w, h200, true, 8);
  ASSERT_TRUE(tp8) << tp8.error().to_string();
  EXPECT_DOUBLE_EQ(tp8->kv_bytes_per_token, 8 * 61.0 * (512 + 64));  // fp8 cache, x 8 ranks
  EXPECT_DOUBLE_EQ(tp8->attn_decode_flops_per_token_ctx, 61 * flops_per_layer);
  EXPECT_NEAR(tp8->decode_step_seconds(b, ctx) - tp8->decode_step_seconds(b, 0),
              b * ctx *
                  std::max(tp8->kv_bytes_per_token / tp8->bytes_per_s,
                           61 * flops_per_layer / tp8->attn_flops_per_s),
              1e-12);
  // Its first four layers (three dense, one MoE: 12 B) on one GPU.
  w.model.layers = 4;
  w.model.params_b = workload::params_from_architecture(w.model, false);
  w.model.active_params_b = workload::params_from_architecture(w.model, true);
  auto one = replica_model(w, h200, true, 1);
  ASSERT_TRUE(one) << one.error().to_string();
  const double attention = one->decode_step_seconds(b, ctx) - one->decode_step_seconds(b, 0);
  EXPECT_DOUBLE_EQ(one->attn_flops_per_s, one->flops_per_s * 989.5 / 1979);
  EXPECT_NEAR(attention, b * ctx * 4 * flops_per_layer / one->attn_flops_per_s, 1e-12);
  EXPECT_GT(attention, 1.2 * b * ctx * one->kv_bytes_per_token / one->bytes_per_s);
  workload::Workload g = serve("llama-3.1-70b", 1);
  g.precision = Precision::kFp8;
  auto q = replica_model(g, h200, true, 8);
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->kv_bytes_per_token, 2.0 * 80 * 8 * 128);  // split over the ranks
  EXPECT_NEAR(q->decode_step_seconds(b, ctx) - q->decode_step_seconds(b, 0),
              b * ctx * q->kv_bytes_per_token / q->bytes_per_s, 1e-12);
}

// Sliding-window and chunked layers keep and read their window only, and a
// prompt's queries there see at most the window: Gemma 3 27B (52 of 62
// layers over 1,024 tokens) at 32,768 tokens caches 32,768 - 52/62 x 31,744
// = 6,144 tokens' worth, 5.33x less than counting every layer in full.
TEST(Throughput, SlidingWindowLayersKeepTheirWindowOnly) {
  catalog::Gpu h200 = h100();
  h200.memory_gib = 141;
  h200.memory_bw_gbs = 4800;
  const workload::Workload local = serve("gemma-3-27b", 1);
  workload::Workload full = local;
  full.model.sliding_window = full.model.sliding_layers = 0;
  auto a = replica_model(local, h200, true, 2);
  auto f = replica_model(full, h200, true, 2);
  ASSERT_TRUE(a && f);
  const double ctx = 32768, b = 16;
  EXPECT_DOUBLE_EQ(a->local.cached_tokens(ctx), 6144);
  EXPECT_DOUBLE_EQ(a->kv_capacity_tokens, f->kv_capacity_tokens);
  EXPECT_NEAR(a->max_batch(ctx), std::floor(a->kv_capacity_tokens / 6144), 1e-9);
  EXPECT_NEAR(f->max_batch(ctx), std::floor(f->kv_capacity_tokens / ctx), 1e-9);
  // The decode step's attention term (reads of the cache) by the same ratio.
  EXPECT_NEAR((f->decode_step_seconds(b, ctx) - f->decode_step_seconds(b, 0)) /
                  (a->decode_step_seconds(b, ctx) - a->decode_step_seconds(b, 0)),
              ctx / 6144, 1e-9);
  // Within the window nothing changes.
  EXPECT_DOUBLE_EQ(a->decode_step_seconds(b, 1000), f->decode_step_seconds(b, 1000));
  EXPECT_DOUBLE_EQ(a->prefill_seconds(1000), f->prefill_seconds(1000));
  // Prefill attention: n^2/2 pairs on the global layers, n W - W^2/2 on the
  // local ones.
  const double n = 8192, w = 1024, share = 52.0 / 62;
  const double pairs = (1 - share) * n * n / 2 + share * (n * w - w * w / 2);
  EXPECT_NEAR(a->prefill_seconds(n) - f->prefill_seconds(n),
              a->attn_flops_per_token_ctx * (pairs - n * n / 2) / a->flops_per_s, 1e-12);
  // Training counts the attended context: Mistral 7B v0.1 slides every
  // layer over 4,096 tokens, so at 8,192 a token attends to 6,144 on
  // average where full attention counts 8,192 (the Megatron formula's s).
  const workload::Model mistral = *workload::find_model("mistral-7b");
  workload::Model dense = mistral;
  dense.sliding_window = 0;
  EXPECT_NEAR(internal::train_flops_per_token(dense, 8192, Method::kFull) -
                  internal::train_flops_per_token(mistral, 8192, Method::kFull),
              12.0 * 32 * 4096 * (8192 - 6144), 1);
  EXPECT_DOUBLE_EQ(internal::train_flops_per_token(dense, 4096, Method::kFull),
                   internal::train_flops_per_token(mistral, 4096, Method::kFull));
}

// gpt-oss ships its routed experts in MXFP4 (4.25 bits a weight) and the
// rest in bf16: openai/gpt-oss's model card gives checkpoints of 60.8 GiB
// (120b) and 12.8 GiB (20b). Read as plain int4 they came out 54.4 and
// 9.8 GiB. Another precision is that precision throughout.
TEST(Throughput, GptOssWeightsAreMxfp4ExpertsAndBf16) {
  const double gib = 1024.0 * 1024 * 1024;
  const workload::Model big = *workload::find_model("gpt-oss-120b");
  const workload::Model small = *workload::find_model("gpt-oss-20b");
  EXPECT_NEAR(internal::weight_bytes(big, Precision::kInt4) / gib / 60.8, 1.0, 0.01);
  EXPECT_NEAR(internal::weight_bytes(small, Precision::kInt4) / gib / 12.8, 1.0, 0.02);
  EXPECT_DOUBLE_EQ(internal::weight_bytes(big, Precision::kBf16), big.params_b * 1e9 * 2);
  // Quantised weights are the linear layers': DeepSeek-R1's FP8 checkpoint
  // keeps its embedding and head (129,280 x 7,168 each) in bf16.
  const workload::Model r1 = *workload::find_model("deepseek-r1");
  const double r1_vocabulary = 2.0 * 129280 * 7168;
  EXPECT_NEAR(internal::weight_bytes(r1, Precision::kFp8),
              r1.params_b * 1e9 + r1_vocabulary * (2 - 1), 1);
  // A token reads its 4 experts in MXFP4 and the rest in bf16.
  const double experts = workload::routed_expert_params_b(big, true) * 1e9;
  EXPECT_DOUBLE_EQ(experts, 36.0 * 4 * 3 * 2880 * 2880);
  EXPECT_NEAR(internal::weight_bytes(big, Precision::kInt4, true),
              experts * 4.25 / 8 + (big.active_params_b * 1e9 - experts) * 2, 1);
}

// The models whose published serving runs measured far below the model
// (docs/estimator.md) say so with the estimate; others, and gpt-oss served
// as bf16 copies (not the MXFP4 kernels measured), do not.
TEST(Throughput, KnownServingGapsAreSaid) {
  EXPECT_FALSE(measured_serving_gap(serve("gpt-oss-120b", 1)).has_value());  // bf16 copies
  workload::Workload oss = serve("gpt-oss-120b", 1);
  oss.precision = oss.model.released;
  ASSERT_TRUE(measured_serving_gap(oss).has_value());
  EXPECT_NE(measured_serving_gap(oss)->find("lower bound"), std::string::npos);
  EXPECT_TRUE(measured_serving_gap(serve("deepseek-r1", 1)).has_value());
  EXPECT_FALSE(measured_serving_gap(serve("llama-3.1-8b", 1)).has_value());
  EXPECT_FALSE(measured_serving_gap(serve("qwen3-235b-a22b", 1)).has_value());
  workload::Workload train = serve("deepseek-r1", 1);
  train.kind = Kind::kTrain;
  EXPECT_FALSE(measured_serving_gap(train).has_value());
}

// FP8 training runs the linear layers' GEMMs in FP8 and attention in BF16
// (Transformer Engine): the model's FLOPs run at a blend of the two peaks,
// nearer BF16 the longer the sequence; other precisions keep their peak.
TEST(Throughput, Fp8TrainingRunsAttentionInBf16) {
  const catalog::Gpu g = h100();
  const workload::Model& m = *workload::find_model("llama-3-70b");
  const auto rate = [&](Precision p, int seq) {
    return internal::train_peak_tflops(g, p, m, seq, workload::Method::kFull, nullptr);
  };
  const double short_seq = rate(Precision::kFp8, 2048), long_seq = rate(Precision::kFp8, 32768);
  EXPECT_LT(short_seq, g.fp8_tflops);
  EXPECT_GT(short_seq, g.bf16_tflops);
  EXPECT_LT(long_seq, short_seq);
  const double total = internal::train_flops_per_token(m, 2048, workload::Method::kFull);
  const double linear = 6 * internal::matmul_params(m) * 1e9;
  EXPECT_NEAR(short_seq, total / (linear / g.fp8_tflops + (total - linear) / g.bf16_tflops),
              1e-9 * short_seq);
  EXPECT_DOUBLE_EQ(rate(Precision::kBf16, 2048), g.bf16_tflops);
  // A GPU without an FP8 rate keeps the FP16 fallback peak_tflops gives.
  EXPECT_DOUBLE_EQ(internal::train_peak_tflops(a100(), Precision::kFp8, m, 2048,
                                               workload::Method::kFull, nullptr),
                   internal::peak_tflops(a100(), Precision::kFp8, nullptr));
}

TEST(Throughput, WeightsThatDoNotFitAreAnError) {
  workload::Workload w = serve("llama-2-70b", 1);
  auto r = replica_model(w, a100(), true, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_TRUE(replica_model(w, a100(), true, 2).has_value());
}

// ---- estimate(): fit, layout, time ----------------------------------------

TEST(Estimate, FinetuneFitsOnEightH100ButNotOneT4) {
  workload::Workload w = train("llama-3-8b", 2e9);
  w.kind = Kind::kFinetune;
  w.zero_stage = 3;
  Estimate nd = estimate(w, vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200), h100(), 1);
  EXPECT_TRUE(nd.fits) << nd.reason;
  EXPECT_EQ(nd.layout.tp * nd.layout.pp * nd.layout.dp, 8);
  EXPECT_LE(nd.memory_needed_gib, nd.memory_available_gib);
  // hours = tokens / throughput.
  EXPECT_NEAR(nd.hours, 2e9 / nd.throughput / 3600, 1e-9);
  EXPECT_FALSE(nd.assumptions.empty());

  Estimate small = estimate(w, vm("Standard_NC4as_T4_v3", t4(), 1, false, 0), t4(), 1);
  EXPECT_FALSE(small.fits);
  EXPECT_NE(small.reason.find("needs"), std::string::npos) << small.reason;
  EXPECT_GT(small.memory_needed_gib, small.memory_available_gib);
}

// A file without `recompute` gets the default, selective recomputation,
// where it fits, and full recomputation (gradient checkpointing) where only
// that fits: Llama-3.1-70B QLoRA at 4,096 tokens keeps 34·s·h bytes a layer
// selectively (~91 GB over 80 layers), more than one A100 has, and 2·s·h
// with checkpoints. The assumption says which and why; a file that sets
// `recompute` keeps it.
TEST(Estimate, DefaultRecomputeFallsBackToFullWhereOnlyThatFits) {
  workload::Workload w = train("llama-3.1-70b", 1e8);
  w.kind = Kind::kFinetune;
  w.method = Method::kQlora;
  w.data.seq_len = 4096;
  const catalog::VmSize one = vm("Standard_NC24ads_A100_v4", a100(), 1, false, 0);
  const Estimate e = estimate(w, one, a100(), 1);
  ASSERT_TRUE(e.fits) << e.reason;
  const auto activations = [](const Estimate& x) {
    for (const Assumption& a : x.assumptions)
      if (a.name == "activations") return a.value;
    return std::string();
  };
  EXPECT_EQ(activations(e).rfind("full recompute", 0), 0u) << activations(e);
  EXPECT_NE(activations(e).find("selective, the default, needs"), std::string::npos);
  w.recompute_given = true;  // `recompute: selective` in the file
  const Estimate pinned = estimate(w, one, a100(), 1);
  EXPECT_FALSE(pinned.fits);
  EXPECT_GT(pinned.memory_needed_gib, pinned.memory_available_gib);
  // Selective where it fits: the same run at 1,024 tokens.
  w.recompute_given = false;
  w.data.seq_len = 1024;
  const Estimate fits = estimate(w, one, a100(), 1);
  ASSERT_TRUE(fits.fits) << fits.reason;
  EXPECT_EQ(activations(fits).rfind("selective recompute", 0), 0u) << activations(fits);
}

// A serving replica is tensor parallel within one VM: Llama-3.1-405B in
// bf16 (~756 GiB) does not fit 8 H100s (80 GiB each), and a second VM adds
// a replica, not room. The reason says what would help.
TEST(Estimate, ServingThatNoVmHoldsSaysWhatWouldHelp) {
  workload::Workload w = serve("llama-3.1-405b", 2);
  w.precision = Precision::kBf16;
  const auto nd = vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200);
  const Estimate e = estimate(w, nd, h100(), 2);
  EXPECT_FALSE(e.fits);
  EXPECT_EQ(e.reason.rfind("weights need ", 0), 0u) << e.reason;
  EXPECT_NE(e.reason.find("more VMs add replicas, not room for one: a smaller precision"),
            std::string::npos)
      << e.reason;
  // No replica, so no serving figures (not a replica count and TTFT of 0).
  EXPECT_FALSE(e.serving.has_value());
  w.precision = Precision::kFp8;  // ~378 GiB: fits on 8 x 80 GiB
  EXPECT_TRUE(estimate(w, nd, h100(), 1).fits);
}

// An SLO no layout reaches names the layout that comes closest: a 70B at
// an 8 ms TPOT on eight H100s misses at every tp, least at tp=8 (weight
// reads split eight ways), which the message quoted as tp=1's (or tp=2's,
// the first that holds the weights) three times slower figures.
TEST(Estimate, SloOutOfReachQuotesTheClosestLayout) {
  workload::Workload w = serve("llama-3.1-70b", 5);
  w.serving.tpot_ms = 8;
  const auto nd = vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200);
  const Estimate e = estimate(w, nd, h100(), 1);
  EXPECT_FALSE(e.fits);
  EXPECT_EQ(e.reason.rfind("misses the SLO even at batch 1 with tp=8 ", 0), 0u) << e.reason;
}

TEST(Estimate, SmallestLayoutThatFits) {
  // Llama 2 70B full training needs > 1 TB of model states: 8 x 80 GB with
  // ZeRO-1 still does not fit on one VM; it does on several.
  workload::Workload w = train("llama-2-70b");
  w.zero_stage = 1;
  const auto size = vm("Standard_ND96amsr_A100_v4", a100(), 8, true, 1600);
  EXPECT_FALSE(estimate(w, size, a100(), 1).fits);
  Estimate e = estimate_smallest(w, size, a100(), 64);
  ASSERT_TRUE(e.fits) << e.reason;
  EXPECT_GT(e.count, 1);
  // NVLink inside the VM: tensor parallelism fills the VM before pipelining.
  EXPECT_EQ(e.layout.tp, 8);
  EXPECT_FALSE(estimate(w, size, a100(), e.count - 1).fits);
}

TEST(Estimate, DeadlinePicksTheSmallestCountThatMeetsIt) {
  workload::Workload w = train("llama-2-7b", 50e9);
  w.zero_stage = 1;
  w.constraints.deadline_hours = 100;
  const auto size = vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200);
  Estimate e = estimate_smallest(w, size, h100(), 64);
  ASSERT_TRUE(e.fits);
  EXPECT_LE(e.hours, 100);
  EXPECT_GT(estimate(w, size, h100(), e.count - 1).hours, 100);
}

TEST(Estimate, QuickModeMatchesTheFullEstimate) {
  for (const workload::Workload& w : {train("llama-2-70b"), serve("llama-3-8b", 25)}) {
    for (int count : {1, 2, 5}) {
      const auto size = vm("Standard_ND96amsr_A100_v4", a100(), 8, true, 1600);
      Estimate full = estimate(w, size, a100(), count);
      Estimate quick = estimate(w, size, a100(), count, false);
      EXPECT_EQ(quick.fits, full.fits);
      EXPECT_DOUBLE_EQ(quick.hours, full.hours);
      EXPECT_DOUBLE_EQ(quick.throughput, full.throughput);
      EXPECT_DOUBLE_EQ(quick.memory_needed_gib, full.memory_needed_gib);
      EXPECT_EQ(quick.layout.tp, full.layout.tp);
      EXPECT_TRUE(quick.assumptions.empty());
      EXPECT_FALSE(full.assumptions.empty());
      EXPECT_EQ(quick.reason.empty(), full.reason.empty());
    }
  }
}

// The assumption an estimate printed under `name`, or null.
const Assumption* said(const Estimate& e, const std::string& name) {
  auto it = std::find_if(e.assumptions.begin(), e.assumptions.end(),
                         [&](const Assumption& a) { return a.name == name; });
  return it == e.assumptions.end() ? nullptr : &*it;
}

TEST(Estimate, ServingEfficiencyOverrideIsSaid) {
  // The override was applied but its source still said "fitted to ...".
  workload::Workload w = serve("llama-3.1-8b", 1);
  w.overrides["serving_bandwidth_efficiency"] = 0.5;
  Estimate e = estimate(w, vm("nc", a100(), 1, false, 0), a100(), 1);
  const Assumption* it = said(e, "serving_efficiency");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->source, "override (workload file)");
  EXPECT_NE(it->value.find("bandwidth 50 %"), std::string::npos) << it->value;
}

// A GPU whose matmul ceiling was measured says so, with the override that
// replaces it for the workload's kind, and that it is not applied when
// that override is set.
TEST(Estimate, MatmulCeilingIsSaidWithItsOverride) {
  catalog::Gpu low = h100();
  low.matmul_efficiency = 0.514;
  workload::Workload s = serve("llama-3.1-8b", 1);
  const Assumption* it = nullptr;
  Estimate served = estimate(s, vm("nd", low, 1, false, 0), low, 1);
  ASSERT_NE(it = said(served, "gpu_matmul_ceiling"), nullptr);
  EXPECT_NE(it->value.find("51.4 % of the 16-bit peak"), std::string::npos) << it->value;
  EXPECT_NE(it->value.find("x0.64 (override serving_compute_efficiency)"), std::string::npos)
      << it->value;
  s.overrides["serving_compute_efficiency"] = 0.3;
  Estimate overridden = estimate(s, vm("nd", low, 1, false, 0), low, 1);
  ASSERT_NE(it = said(overridden, "gpu_matmul_ceiling"), nullptr);
  EXPECT_NE(it->value.find("not applied: serving_compute_efficiency is overridden"),
            std::string::npos)
      << it->value;
  Estimate trained = estimate(train("llama-2-7b"), vm("nd", low, 8, true, 0), low, 1);
  ASSERT_NE(it = said(trained, "gpu_matmul_ceiling"), nullptr);
  EXPECT_NE(it->value.find("(override mfu)"), std::string::npos) << it->value;
  // A GPU nobody measured prints nothing, and neither does a batch (render)
  // job, which scales by datasheet rates, not matmuls.
  EXPECT_EQ(said(estimate(serve("llama-3.1-8b", 1), vm("nd", h100(), 1, false, 0), h100(), 1),
                 "gpu_matmul_ceiling"),
            nullptr);
  workload::Workload frames;
  frames.kind = Kind::kBatch;
  frames.data.items = 100;
  frames.batch.seconds_per_item = 90;
  frames.batch.reference_gpu = "A10";
  Estimate rendered = estimate(frames, vm("nd", low, 8, true, 0), low, 1);
  ASSERT_TRUE(rendered.fits) << rendered.reason;
  EXPECT_FALSE(rendered.assumptions.empty());
  EXPECT_EQ(said(rendered, "gpu_matmul_ceiling"), nullptr);
}

// fp8 weights keep an fp8 KV cache unless the service says its engine's is
// 16-bit (vLLM's default): twice the bytes a token, half the sequences.
TEST(Estimate, KvCacheBytesOverrideIsUsedAndSaid) {
  workload::Workload w = serve("llama-3.1-8b", 1);
  w.precision = Precision::kFp8;
  auto fp8 = replica_model(w, h100(), true, 1);
  w.overrides["serving_kv_cache_bytes"] = 2;
  auto bf16 = replica_model(w, h100(), true, 1);
  ASSERT_TRUE(fp8 && bf16);
  EXPECT_DOUBLE_EQ(bf16->kv_bytes_per_token, 2 * fp8->kv_bytes_per_token);
  EXPECT_DOUBLE_EQ(bf16->max_batch(2000), std::floor(fp8->max_batch(2000) / 2));
  Estimate e = estimate(w, vm("nc", h100(), 1, false, 0), h100(), 1);
  const Assumption* it = said(e, "kv_cache_per_token");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->value, "128.0 KiB");
  EXPECT_NE(it->source.find("override"), std::string::npos) << it->source;
}

TEST(Estimate, MfuOverrideIsUsedAndSaid) {
  workload::Workload w = train("llama-2-7b");
  w.overrides["mfu"] = 0.3;
  Estimate e = estimate(w, vm("nd", a100(), 8, true, 0), a100(), 1);
  EXPECT_DOUBLE_EQ(e.mfu, 0.3);
  const Assumption* it = said(e, "mfu");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->source, "override (workload file)");
  // 8 GPUs x 312 TFLOP/s x 0.3 / FLOPs per token.
  EXPECT_NEAR(e.throughput,
              8 * 312e12 * 0.3 / internal::train_flops_per_token(w.model, 2048, Method::kFull),
              1e-6 * e.throughput);
}

TEST(Estimate, BatchScalesByTheSpecRatio) {
  // 90 s per item on an A10 (31.2 FP32 TFLOP/s); an H100 SXM has 67:
  // 3600 / 90 x 67 / 31.2 = 85.897 items/h per GPU.
  workload::Workload w;
  w.kind = Kind::kBatch;
  w.data.items = 1000;
  w.batch.seconds_per_item = 90;
  w.batch.reference_gpu = "A10";
  Estimate e = estimate(w, vm("h", h100(), 8, true, 0), h100(), 1);
  ASSERT_TRUE(e.fits) << e.reason;
  EXPECT_NEAR(e.throughput, 8 * 3600.0 / 90 * 67 / 31.2, 1e-6);
  EXPECT_NEAR(e.hours, 1000 / e.throughput, 1e-9);
  // A 1/6 slice of an A10 does 1/6 of the work.
  catalog::VmSize slice = vm("Standard_NV6ads_A10_v5", a10(), 0.1667, false, 0);
  slice.gpu_memory_gib = 4;
  Estimate s = estimate(w, slice, a10(), 6);
  EXPECT_NEAR(s.throughput, 6 * 0.1667 * 40, 1e-6);
  // Memory need per GPU is checked.
  w.batch.min_gpu_memory_gib = 8;
  EXPECT_FALSE(estimate(w, slice, a10(), 1).fits);
}

// An item is indivisible: it runs whole on one GPU or on one VM's slice,
// so N items on W workers take ceil(N / W) rounds of one item's time. Eight
// one-hour A10 frames on fourteen 1/3 slices take 3 h (each frame 3 h on
// its slice), not 8 / 4.67 = 1.7 h; 24 frames on 24 A10s take 1 h and on 48
// still 1 h.
TEST(Estimate, BatchItemsRunWholeOnOneWorker) {
  workload::Workload w;
  w.kind = Kind::kBatch;
  w.data.items = 8;
  w.batch.seconds_per_item = 3600;
  w.batch.reference_gpu = "A10";
  catalog::VmSize third = vm("Standard_NV12ads_A10_v5", a10(), 1.0 / 3, false, 0);
  third.gpu_memory_gib = 8;
  Estimate s = estimate(w, third, a10(), 14);
  EXPECT_NEAR(s.item_hours, 3, 1e-9);
  EXPECT_NEAR(s.hours, 3, 1e-9);
  const auto a10x1 = vm("Standard_NV36ads_A10_v5", a10(), 1, false, 0);
  w.data.items = 24;
  EXPECT_NEAR(estimate(w, a10x1, a10(), 24).hours, 1, 1e-9);
  EXPECT_NEAR(estimate(w, a10x1, a10(), 48).hours, 1, 1e-9);
  EXPECT_NEAR(estimate(w, a10x1, a10(), 23).hours, 2, 1e-9);
}

// ---- Serving ----------------------------------------------------------------

TEST(Serving, ReplicasNeededCoverTheRate) {
  workload::Workload w = serve("llama-3-8b", 40);
  const auto size = vm("Standard_NC24ads_A100_v4", a100(), 1, false, 0);
  Estimate one = estimate(w, size, a100(), 1);
  ASSERT_TRUE(one.serving);
  const ServingEstimate& s = *one.serving;
  ASSERT_GT(s.capacity_rps_per_replica, 0);
  EXPECT_EQ(s.replicas_needed, static_cast<int>(std::ceil(40 / s.capacity_rps_per_replica)));
  EXPECT_EQ(s.vms_needed, s.replicas_needed);
  EXPECT_LE(s.batch_at_slo, s.max_batch);
  Estimate enough = estimate(w, size, a100(), s.vms_needed);
  EXPECT_TRUE(enough.fits) << enough.reason;
  EXPECT_LE(enough.serving->tpot_ms, 50);
  EXPECT_LE(enough.serving->ttft_ms, 1000);
  EXPECT_DOUBLE_EQ(enough.hours, w.serving.duration_hours);
  if (s.vms_needed > 1) {
    EXPECT_FALSE(estimate(w, size, a100(), s.vms_needed - 1).fits);
  }
}

// The engine admits at most its --max-num-seqs (vLLM V1: 1,024 on an
// H100, 256 on an A100) whatever the KV cache holds: one-token requests on
// an H100 ran at "batch 296314", 16,912 req/s. A workload may state its
// engine's cap.
TEST(Serving, EngineCapsSequencesInFlight) {
  workload::Workload w = serve("llama-3.1-8b", 1);
  w.serving.input_tokens.mean = w.serving.input_tokens.max = 1;
  w.serving.output_tokens.mean = w.serving.output_tokens.max = 2;
  Estimate on_h100 = estimate(w, vm("Standard_NC40ads_H100_v5", h100(), 1, false, 0), h100(), 1);
  ASSERT_TRUE(on_h100.serving);
  EXPECT_EQ(on_h100.serving->max_batch, 1024);
  Estimate on_a100 = estimate(w, vm("Standard_NC24ads_A100_v4", a100(), 1, false, 0), a100(), 1);
  ASSERT_TRUE(on_a100.serving);
  EXPECT_EQ(on_a100.serving->max_batch, 256);
  w.overrides["serving_max_seqs"] = 64;
  Estimate capped = estimate(w, vm("Standard_NC40ads_H100_v5", h100(), 1, false, 0), h100(), 1);
  ASSERT_TRUE(capped.serving);
  EXPECT_EQ(capped.serving->max_batch, 64);
  EXPECT_LT(capped.serving->capacity_rps_per_replica, on_h100.serving->capacity_rps_per_replica);
}

TEST(Serving, TighterSloNeverNeedsFewerReplicas) {
  const auto size = vm("Standard_NC24ads_A100_v4", a100(), 1, false, 0);
  int last = 0;
  for (double tpot : {200.0, 100.0, 50.0, 30.0, 20.0}) {
    workload::Workload w = serve("llama-3-8b", 30);
    w.serving.tpot_ms = tpot;
    Estimate e = estimate(w, size, a100(), 1);
    ASSERT_TRUE(e.serving);
    if (e.serving->replicas_needed == 0) break;  // unreachable SLO
    EXPECT_GE(e.serving->replicas_needed, last) << tpot;
    last = e.serving->replicas_needed;
  }
}

// ---- Properties ---------------------------------------------------------------

TEST(Property, MoreGpusOnANodeNeverSlower) {
  std::vector<workload::Workload> ws = {train("llama-2-7b"), train("llama-3-8b"),
                                        train("qwen2.5-14b"), serve("llama-3-8b", 10)};
  ws[1].kind = Kind::kFinetune;
  ws[1].method = Method::kLora;
  for (const catalog::Gpu& g : {a100(), h100(), t4(), a10()}) {
    for (bool nvlink : {true, false}) {
      for (size_t i = 0; i < ws.size(); ++i) {
        double last = 0;
        for (int gpus : {1, 2, 4, 8}) {
          Estimate e = estimate(ws[i], vm("x", g, gpus, nvlink, 0), g, 1);
          if (!e.fits && ws[i].kind != Kind::kInfer) continue;
          EXPECT_GE(e.throughput, last * (1 - 1e-9))
              << g.model << " nvlink=" << nvlink << " workload " << i << " gpus " << gpus;
          last = std::max(last, e.throughput);
        }
      }
    }
  }
}

TEST(Property, BiggerModelNeverNeedsLessMemory) {
  // Within each family (same shape rules), sorted by size.
  const std::vector<std::vector<std::string>> families = {
      {"llama-2-7b", "llama-2-13b", "llama-2-70b"},
      {"llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"},
      {"qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b",
       "qwen2.5-72b"},
      {"gpt3-125m", "gpt3-350m", "gpt3-760m", "gpt3-1.3b", "gpt3-2.7b", "gpt3-6.7b", "gpt3-13b",
       "gpt3-175b"}};
  for (const auto& fam : families) {
    for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
      for (int zero : {0, 3}) {
        double last = 0;
        for (const std::string& name : fam) {
          workload::Workload w = train(name);
          w.recompute = r;
          w.zero_stage = zero;
          const double need = internal::train_memory(w, Layout{1, 1, 8}).total();
          EXPECT_GE(need, last) << name;
          last = need;
        }
      }
    }
  }
  // Model states alone, across every built-in model, grow with the parameter count.
  std::vector<workload::Model> all = workload::builtin_models();
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.params_b < b.params_b; });
  double last = 0;
  for (const auto& m : all) {
    workload::Workload w = train("llama-2-7b");
    w.model = m;
    MemoryBreakdown mem = internal::train_memory(w, Layout{1, 1, 1});
    const double states = mem.weights + mem.gradients + mem.optimizer;
    EXPECT_GE(states, last) << m.name;
    last = states;
  }
}

// ---- Calibration: tests/data/published_measurements.csv -------------------

TEST(Validate, CalibrationFileWithinBounds) {
  auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat.has_value()) << cat.error().to_string();
  auto table = csv::read_file(src("tests/data/published_measurements.csv"));
  ASSERT_TRUE(table.has_value()) << table.error().to_string();
  auto v = validate(*table, **cat);
  ASSERT_TRUE(v.has_value()) << v.error().to_string();
  // At least 90 % of the rows predicted (skipping hard rows is not a way to a low error).
  EXPECT_GE(v->rows.size(), 0.9 * table->rows.size());
  const std::vector<std::string> training = {"train_tokens_per_s_per_gpu", "model_tflops_per_gpu",
                                             "mfu_percent", "total_gpu_hours"};
  // The per-metric bounds of the original calibration (docs/estimator.md),
  // on the rows it was made with (blank `set`): the later rows are judged by
  // their group medians below and in the doc, not folded into these.
  std::map<std::string, std::vector<double>> original;
  for (size_t i = 0; i < v->rows.size(); ++i) {
    const csv::Row& r = table->rows[i];
    if (!strings::trim(r.fields[*table->column("set")]).empty()) continue;
    original[v->rows[i].metric].push_back(std::abs(v->rows[i].error_percent));
  }
  ASSERT_GE(original.size(), 6u);
  for (auto& [metric, errs] : original) {
    std::sort(errs.begin(), errs.end());
    const size_t n = errs.size();
    const double med = n % 2 ? errs[n / 2] : (errs[n / 2 - 1] + errs[n / 2]) / 2;
    const bool train = std::find(training.begin(), training.end(), metric) != training.end();
    EXPECT_LE(med, train ? 10.0 : 20.0) << metric;
  }
  // Issue 11's bounds per group: serving 15 %, training 7 % (the original
  // rows and the added V100 / 1,000+-GPU rows, each on its own).
  const std::map<std::string, double> bounds = {{"serving rows, new", 15.0},
                                                {"serving rows, original", 15.0},
                                                {"training rows, new", 7.0},
                                                {"training rows, original", 7.0}};
  size_t found = 0;
  for (const MetricSummary& g : v->groups) {
    auto it = bounds.find(g.metric);
    if (it == bounds.end()) continue;
    ++found;
    EXPECT_LE(g.median_abs_error_percent, it->second) << g.metric;
  }
  EXPECT_EQ(found, bounds.size());
  for (const ValidationRow& r : v->rows) {
    EXPECT_NEAR(r.error_percent, 100 * (r.predicted - r.published) / r.published, 1e-9);
  }
}

TEST(Validate, ExtendedFileEveryRowPredictedAndMaxLoadWithinMemory) {
  // The issue-11 extension: every row is interpreted (none skipped), and the
  // blank-batch (max-load) rows are evaluated at a concurrency the KV cache
  // holds and the engine's max_seqs (default 256) allows.
  auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat.has_value()) << cat.error().to_string();
  auto table = csv::read_file(src("tests/data/published_measurements.csv"));
  ASSERT_TRUE(table.has_value()) << table.error().to_string();
  auto v = validate(*table, **cat);
  ASSERT_TRUE(v.has_value()) << v.error().to_string();
  for (const Skipped& s : v->skipped) ADD_FAILURE() << s.id << ": " << s.reason;
  ASSERT_EQ(v->rows.size(), table->rows.size());
  const auto col = [&](const csv::Row& r, const std::string& name) {
    return std::string(strings::trim(r.fields[*table->column(name)]));
  };
  int blank = 0, new_serving = 0;
  for (size_t i = 0; i < table->rows.size(); ++i) {
    const csv::Row& r = table->rows[i];
    const ValidationRow& row = v->rows[i];
    ASSERT_EQ(row.id, col(r, "id"));
    if (col(r, "kind") != "infer") continue;
    if (!col(r, "set").empty()) ++new_serving;
    const std::string metric = col(r, "metric");
    if (!col(r, "batch").empty() || metric == "ttft_ms" || metric == "decode_tokens_per_s_batch1") {
      // A batch row reports a concurrency only when its KV cache holds less.
      if (row.concurrency > 0) {
        EXPECT_EQ(row.concurrency, row.memory_limit) << row.id;
        EXPECT_LT(row.concurrency, *strings::parse_double(col(r, "batch"))) << row.id;
      }
      continue;
    }
    ++blank;
    const auto max_seqs = strings::parse_double(col(r, "max_seqs"));
    EXPECT_GE(row.concurrency, 1) << row.id;
    EXPECT_LE(row.concurrency, row.memory_limit) << row.id;
    EXPECT_LE(row.concurrency, max_seqs.value_or(256)) << row.id;
  }
  EXPECT_GE(blank, 10);
  EXPECT_GE(new_serving, 30);
}

TEST(Validate, MissingColumnNamesIt) {
  auto table = csv::parse("id,kind,metric,value\nx,train,mfu_percent,40\n", "m.csv");
  ASSERT_TRUE(table);
  auto cat = catalog::Catalog::from_parts({a100()}, {}, {});
  auto v = validate(*table, *cat);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().where.file, "m.csv");
  EXPECT_EQ(v.error().where.field, "gpu");
}

TEST(Validate, SparseRowsUseTheModelTableOrParams) {
  // Only the required columns plus a model name or a parameter count.
  auto table = csv::parse(
      "id,kind,model,params_b,gpu,precision,seq_len,gpu_count,metric,value\n"
      "named,train,Llama-2-7B,,A100-80GB-SXM,bf16,2048,8,mfu_percent,52.7\n"
      "sized,train,mystery,6.738,A100-80GB-SXM,bf16,2048,8,mfu_percent,52.7\n"
      "none,train,mystery,,A100-80GB-SXM,bf16,2048,8,mfu_percent,52.7\n",
      "m.csv");
  ASSERT_TRUE(table) << table.error().to_string();
  auto cat = catalog::Catalog::from_parts({a100()}, {}, {});
  auto v = validate(*table, *cat);
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 2u);
  // Llama 2 7B's h = 4096, as in MfuHandComputed: e / (1 + k * 153.0 / 4096).
  const double e = internal::kTrainMatmulEfficiency, k = internal::kTrainMemoryBoundWork;
  EXPECT_NEAR(v->rows[0].predicted, 100 * e / (1 + k * (312e12 / 2039e9) / 4096), 0.01);
  // params_b 6.738 -> 32 layers x hidden 4096 (Llama 2 7B's own shape):
  // e / (1 + k * 153.0 / 4096).
  EXPECT_NEAR(v->rows[1].predicted, 100 * e / (1 + k * (312e12 / 2039e9) / 4096), 0.01);
  ASSERT_EQ(v->skipped.size(), 1u);
  EXPECT_EQ(v->skipped[0].id, "none");
  EXPECT_EQ(v->skipped[0].reason.rfind("line 4: ", 0), 0u) << v->skipped[0].reason;
}

// A published value that is no measurement skips its row, naming its line:
// 1e308 once made the medians inf.
TEST(Validate, ValuesThatAreNoMeasurementSkipTheirLine) {
  std::string text = "id,kind,model,params_b,gpu,precision,seq_len,gpu_count,metric,value\n";
  for (const char* value : {"52.7", "1e308", "x", "-5", "0", ""})
    text +=
        std::string("r,train,Llama-2-7B,,A100-80GB-SXM,bf16,2048,8,mfu_percent,") + value + "\n";
  auto table = csv::parse(text, "m.csv");
  ASSERT_TRUE(table) << table.error().to_string();
  auto cat = catalog::Catalog::from_parts({a100()}, {}, {});
  auto v = validate(*table, *cat);
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 1u);
  ASSERT_EQ(v->skipped.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(v->skipped[i].reason.rfind("line " + std::to_string(i + 3) + ": value '", 0), 0u)
        << v->skipped[i].reason;
  }
  for (const auto& s : v->summary) EXPECT_TRUE(std::isfinite(s.median_abs_error_percent));
}

TEST(Validate, DataParallelRowsPayTheirAllReduceFromTheLinks) {
  // BERT-large-like rows, pure data parallelism (tp = pp = 1) on V100 SXM2.
  const std::string header =
      "id,kind,model,params_b,layers,hidden,heads,seq_len,gpu,gpu_count,precision,batch,metric,"
      "value,tp,pp,attention,dp_overlap,gpus_per_node,node_network_gbps\n";
  const std::string arch = "train,bert,0.336,24,1024,16,128,V100-32GB,";
  auto table = csv::parse(
      header + "one," + arch + "1,fp16,64,train_tokens_per_s_per_gpu,1,1,1,unfused,,,\n" + "ddp," +
          arch + "8,fp16,512,train_tokens_per_s_per_gpu,1,1,1,unfused,yes,,\n" + "post," + arch +
          "8,fp16,512,train_tokens_per_s_per_gpu,1,1,1,unfused,no,,\n" + "fused," + arch +
          "1,fp16,64,train_tokens_per_s_per_gpu,1,1,1,fused,,,\n" + "small," + arch +
          "1,fp16,8,train_tokens_per_s_per_gpu,1,1,1,unfused,,,\n" + "nonet," + arch +
          "16,fp16,1024,train_tokens_per_s_per_gpu,1,1,1,,,8,\n" + "bad," + arch +
          "1,fp16,64,train_tokens_per_s_per_gpu,1,1,1,flash,,,\n",
      "m.csv");
  ASSERT_TRUE(table) << table.error().to_string();
  auto cat = catalog::Catalog::from_parts({v100()}, {}, {});
  auto v = validate(*table, *cat);
  ASSERT_TRUE(v) << v.error().to_string();
  std::map<std::string, double> p;
  for (const ValidationRow& r : v->rows) p[r.id] = r.predicted;
  ASSERT_EQ(p.size(), 5u);
  // DDP's buckets (~10 ms over NVLink) hide behind a ~0.25 s backward pass:
  // 8 GPUs run as fast per GPU as one. After the backward pass they cost.
  EXPECT_NEAR(p["ddp"], p["one"], 1e-9 * p["one"]);
  EXPECT_LT(p["post"], 0.99 * p["ddp"]);
  // Materialised scores and small micro-batches both cost utilisation.
  EXPECT_LT(p["one"], p["fused"]);
  EXPECT_LT(p["small"], p["one"]);
  ASSERT_EQ(v->skipped.size(), 2u);
  EXPECT_NE(v->skipped[0].reason.find("node_network_gbps"), std::string::npos)
      << v->skipped[0].reason;
  EXPECT_NE(v->skipped[1].reason.find("attention"), std::string::npos) << v->skipped[1].reason;
}

// The measurement file's columns (tests/data/published_measurements.csv)
// that the tests below fill, then `extra` ones (",max_seqs,tp").
std::string measurement_header(const std::string& extra = "") {
  return "id,kind,model,params_b,layers,hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,gpu,"
         "gpu_count,precision,batch,input_tokens,output_tokens,tokens_b,metric,value,unit,"
         "source" +
         extra + "\n";
}

// `text` (a header and rows) validated against the embedded catalog.
Result<Validation> validate_text(const std::string& text) {
  GPUPLAN_TRY(csv::Table table, csv::parse(text, "m.csv"));
  GPUPLAN_TRY(auto cat, catalog::Catalog::load_embedded());
  return validate(table, *cat);
}

// A training row on a GPU measured below the fit GPUs' matmul ceiling
// (MI300X, 51.4 % of its 16-bit peak) is read at 0.514 / 0.803 of the
// fitted MFU; its datasheet peak alone would make it 1.3x an H100.
TEST(Validate, TrainingRowsRunAtTheGpusMatmulCeiling) {
  const auto row = [](const std::string& id, const std::string& gpu) {
    return id + ",train,Llama-2-7B,,,,,,,,2048," + gpu + ",8,bf16,,,,,mfu_percent,40,x,x\n";
  };
  auto v = validate_text(measurement_header() + row("mi300x", "MI300X"));
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 1u);
  const catalog::Gpu mi300x = *catalog::Catalog::load_embedded().value()->find_gpu("MI300X");
  const workload::Model m = *workload::find_model("llama-2-7b");
  const double peak =
      internal::train_peak_tflops(mi300x, Precision::kBf16, m, 2048, Method::kFull, nullptr);
  internal::TrainShape shape;
  shape.gpus = 8;
  const double fitted = internal::train_mfu(peak, mi300x.memory_bw_gbs, Recompute::kNone, m, 2048,
                                            Method::kFull, shape);
  EXPECT_NEAR(v->rows[0].predicted, 100 * fitted * 0.514 / 0.803, 1e-9);
}

TEST(Validate, PipelineRowsPayTheirSchedulesBubble) {
  // A 126-layer model on TP 8 x PP 16: 8,192 GPUs, batch 2048 -> dp 64, m = 32.
  // At most floor(126 / 16) = 7 chunks of a layer or more per stage; the
  // slowest stage holds 8 layers (126 / 128 of the even pace).
  const std::string head =
      "id,kind,model,params_b,layers,hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,gpu,"
      "gpu_count,precision,batch,metric,value,tp,pp,vpp\n";
  const std::string arch =
      ",train,m,405,126,16384,128,8,53248,128256,8192,H100-SXM,8192,bf16,2048,mfu_percent,40,";
  auto v = validate_text(head + "none" + arch + ",,\n" + "plain" + arch + "8,16,1\n" + "four" +
                         arch + "8,16,4\n" + "blank" + arch + "8,16,\n" + "odd" +
                         ",train,m,405,126,16384,128,8,53248,128256,8192,H100-SXM,8192,bf16,2016,"
                         "mfu_percent,40,8,16,\n" +
                         "toomany" + arch + "8,16,8\n");
  ASSERT_TRUE(v) << v.error().to_string();
  std::map<std::string, double> p;
  for (const ValidationRow& r : v->rows) p[r.id] = r.predicted;
  ASSERT_EQ(p.size(), 5u);
  ASSERT_EQ(v->skipped.size(), 1u);
  EXPECT_EQ(v->skipped[0].id, "toomany");
  EXPECT_NE(v->skipped[0].reason.find("vpp"), std::string::npos) << v->skipped[0].reason;
  // Narayanan et al. 2021 §2.2 and §2.2.2: (p - 1) / (v m + p - 1) on top of
  // the compute phases' MFU (the same for every pp row: micro-batch 1).
  const double compute = p["plain"] / (1 - 15.0 / (32 + 15));
  EXPECT_LT(p["plain"], p["none"]);
  EXPECT_NEAR(p["four"], compute * (1 - 15.0 / (4 * 32 + 15)), 1e-9);
  // Blank: the most chunks of at least one layer.
  EXPECT_NEAR(p["blank"], compute * (1 - 15.0 / (7 * 32 + 15)), 1e-9);
  // m = 2016 / 64 = 31.5 -> 31 micro-batches, not a multiple of 16: plain 1F1B.
  EXPECT_NEAR(p["odd"], compute * (1 - 15.0 / (31 + 15)), 1e-9);
}

TEST(Validate, ServingRowsNeedTheirLengthsAndARunnablePrecision) {
  // A max-load row with blank lengths was predicted as 1-token requests
  // (13,140 req/s for an 8B model on one H100) and counted in the medians;
  // an fp8 row on a V100, which estimate refuses, was predicted too.
  const std::string head =
      "id,kind,model,params_b,gpu,gpu_count,precision,batch,input_tokens,output_tokens,metric,"
      "value\n";
  auto v =
      validate_text(head +
                    "blank,infer,Llama-3.1-8B,8.03,H100-SXM,1,bf16,,,,requests_per_s,10\n"
                    "noout,infer,Llama-3.1-8B,8.03,H100-SXM,1,bf16,,1000,,requests_per_s,10\n"
                    "ttft,infer,Llama-3.1-8B,8.03,H100-SXM,1,bf16,1,1000,,ttft_ms,80\n"
                    "fp8v100,infer,Llama-3.1-8B,8.03,V100-32GB,1,fp8,8,128,128,"
                    "output_tokens_per_s,500\n"
                    "ok,infer,Llama-3.1-8B,8.03,H100-SXM,1,bf16,,1000,200,requests_per_s,10\n");
  ASSERT_TRUE(v) << v.error().to_string();
  std::map<std::string, std::string> skipped;
  for (const auto& k : v->skipped) skipped[k.id] = k.reason;
  ASSERT_EQ(v->rows.size(), 2u);
  EXPECT_EQ(v->rows[0].id, "ttft");
  EXPECT_EQ(v->rows[1].id, "ok");
  EXPECT_NE(skipped["blank"].find("input_tokens"), std::string::npos) << skipped["blank"];
  EXPECT_NE(skipped["noout"].find("output_tokens"), std::string::npos) << skipped["noout"];
  EXPECT_NE(skipped["fp8v100"].find("fp8"), std::string::npos) << skipped["fp8v100"];
}

TEST(Validate, UninterpretableRowsAreSkippedWithTheReason) {
  auto table = csv::parse(measurement_header() +
                              "a,train,m,6.7,32,4096,32,32,11008,32000,2048,B200,8,bf16,,,,,"
                              "mfu_percent,40,percent,x\n"
                              "b,train,m,6.7,32,4096,32,32,11008,32000,2048,A100-80GB-SXM,8,bf16,"
                              ",,,,total_gpu_hours,1000,h,x\n"
                              "c,train,m,6.7,32,4096,32,32,11008,32000,2048,A100-80GB-SXM,8,bf16,"
                              ",,,,mfu_percent,52.7,percent,x\n",
                          "m.csv");
  ASSERT_TRUE(table) << table.error().to_string();
  auto cat = catalog::Catalog::from_parts({a100()}, {}, {});
  auto v = validate(*table, *cat);
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->skipped.size(), 2u);
  EXPECT_NE(v->skipped[0].reason.find("B200"), std::string::npos);
  EXPECT_NE(v->skipped[1].reason.find("tokens_b"), std::string::npos);
  ASSERT_EQ(v->rows.size(), 1u);
  // Llama-2-7B shape (gated FFN chosen from params_b) on 8 A100s, no recompute,
  // no attention column (fused): e / (1 + k * 153.0 / 4096) = 53.5 %.
  EXPECT_NEAR(v->rows[0].predicted,
              100 * internal::kTrainMatmulEfficiency /
                  (1 + internal::kTrainMemoryBoundWork * (312e12 / 2039e9) / 4096),
              0.01);
}

// Publications name GPUs their own way (MLPerf "NVIDIA H200-SXM-141GB",
// NVIDIA's tables "H100 SXM 80GB", papers "H200"): such a row is the
// catalog's GPU when chip, part and memory leave one, and the report says
// how it read it; a bare "H100" (the NVL or the SXM part) is skipped naming
// both, and a part the catalog lacks (H100 PCIe) is not taken for another.
TEST(Validate, PublishersGpuNamesAreReadAsTheCatalogs) {
  const auto row = [](const std::string& id, const std::string& gpu) {
    return id + ",train,m,6.7,32,4096,32,32,11008,32000,2048," + gpu +
           ",8,bf16,,,,,mfu_percent,40,percent,x\n";
  };
  auto v = validate_text(measurement_header() + row("exact", "H200-SXM") +
                         row("mlperf", "NVIDIA H200-SXM-141GB") + row("paper", "H200") +
                         row("tesla", "Tesla V100-SXM2-32GB") + row("bare", "H100") +
                         row("pcie", "H100 PCIe") + row("size", "A100-SXM4-40GB"));
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 5u);
  for (size_t i = 1; i < 3; ++i) EXPECT_EQ(v->rows[i].predicted, v->rows[0].predicted);
  EXPECT_EQ(v->rows[3].id, "tesla");
  EXPECT_EQ(v->rows[4].id, "size");
  ASSERT_EQ(v->skipped.size(), 2u);
  EXPECT_EQ(v->skipped[0].id, "bare");
  EXPECT_NE(v->skipped[0].reason.find("ambiguous"), std::string::npos);
  EXPECT_NE(v->skipped[0].reason.find("H100-NVL, H100-SXM"), std::string::npos);
  EXPECT_EQ(v->skipped[1].id, "pcie");
  EXPECT_NE(v->skipped[1].reason.find("not in the catalog"), std::string::npos);
  const std::vector<std::string> notes = {
      "GPU 'A100-SXM4-40GB' read as the catalog's A100-40GB-SXM (1 row)",
      "GPU 'H200' read as the catalog's H200-SXM (1 row)",
      "GPU 'NVIDIA H200-SXM-141GB' read as the catalog's H200-SXM (1 row)",
      "GPU 'Tesla V100-SXM2-32GB' read as the catalog's V100-32GB (1 row)"};
  EXPECT_EQ(v->notes, notes);
}

// A throughput benchmark on 8 GPUs runs replicas side by side (MLPerf: data
// parallel over tensor-parallel groups); the row's `tp` says how, and its
// throughput is the replicas' sum: 8 GPUs at tp 2 serve what four 2-GPU
// replicas do, a latency is one replica's, and a _per_gpu metric (the
// TensorRT-LLM tables' tokens/s/GPU) divides the sum by the 8. A tp that
// does not divide the GPUs, or a latency per GPU, is skipped with the reason.
TEST(Validate, InferenceRowsRunTheirTensorParallelGroupsSideBySide) {
  const auto row = [](const std::string& id, int gpus, const std::string& tp,
                      const std::string& metric) {
    return id + ",infer,m,13,40,5120,40,40,13824,32000,,H100-SXM," + std::to_string(gpus) +
           ",fp16,,1000,1000,," + metric + ",1000,x,x,256," + tp + "\n";
  };
  auto v = validate_text(
      measurement_header(",max_seqs,tp") + row("one", 2, "", "output_tokens_per_s") +
      row("four", 8, "2", "output_tokens_per_s") +
      row("per-gpu", 8, "2", "output_tokens_per_s_per_gpu") + row("ttft2", 2, "", "ttft_ms") +
      row("ttft8", 8, "2", "ttft_ms") + row("odd", 8, "3", "output_tokens_per_s") +
      row("lat", 8, "2", "ttft_ms_per_gpu"));
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 5u);
  const double one = v->rows[0].predicted;
  EXPECT_GT(one, 0);
  EXPECT_DOUBLE_EQ(v->rows[1].predicted, 4 * one);
  EXPECT_DOUBLE_EQ(v->rows[2].predicted, 4 * one / 8);
  EXPECT_DOUBLE_EQ(v->rows[4].predicted, v->rows[3].predicted);
  ASSERT_EQ(v->skipped.size(), 2u);
  EXPECT_EQ(v->skipped[0].id, "odd");
  EXPECT_NE(v->skipped[0].reason.find("does not divide"), std::string::npos);
  EXPECT_EQ(v->skipped[1].id, "lat");
  EXPECT_NE(v->skipped[1].reason.find("per GPU"), std::string::npos);
}

// A max-load throughput with no `tp` is a run tuned for throughput (MLPerf
// Offline publishes no layout): it is read at the tensor-parallel size,
// within a node, whose replicas serve the most, and says which; a stated tp,
// a batch or a latency keeps its own layout (one replica without tp).
TEST(Validate, MaxLoadRowsWithoutALayoutRunTheTunedOne) {
  const auto row = [](const std::string& id, const std::string& batch, const std::string& metric,
                      const std::string& tp, const std::string& node) {
    return id + ",infer,Llama 2 70B,,,,,,,,,H100-SXM,8,fp8," + batch + ",700,300,," + metric +
           ",1000,x,x," + tp + "," + node + "\n";
  };
  const std::string rate = "output_tokens_per_s";
  auto v = validate_text(
      measurement_header(",tp,gpus_per_node") + row("tp1", "", rate, "1", "") +
      row("tp2", "", rate, "2", "") + row("tp4", "", rate, "4", "") +
      row("tp8", "", rate, "8", "") + row("tuned", "", rate, "", "") +
      "node1,infer,Llama 2 70B,,,,,,,,,H100-SXM,8,fp16,,700,300,," + rate + ",1000,x,x,,1\n" +
      "fp16-8,infer,Llama 2 70B,,,,,,,,,H100-SXM,8,fp16,,700,300,," + rate + ",1000,x,x,8,\n" +
      row("per-gpu", "", rate + "_per_gpu", "", "") + row("node4", "", rate, "", "4") +
      row("batch", "64", rate, "", "") + row("batch8", "64", rate, "8", "") +
      row("tpot", "", "tpot_ms", "", "") + row("tpot8", "", "tpot_ms", "8", ""));
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 13u) << (v->skipped.empty() ? "" : v->skipped[0].reason);
  std::map<std::string, const ValidationRow*> by;
  for (const ValidationRow& r : v->rows) by[r.id] = &r;
  double best = 0;
  int best_tp = 0;
  for (const char* id : {"tp1", "tp2", "tp4", "tp8"}) {
    if (by[id]->predicted > best) best = by[id]->predicted, best_tp = by[id]->tp;
  }
  // The layouts differ (a 2-GPU replica and an 8-GPU one are not the same
  // machine), and the tuned row is the best of them.
  EXPECT_GT(best, 1.2 * by["tp8"]->predicted);
  EXPECT_DOUBLE_EQ(by["tuned"]->predicted, best);
  EXPECT_EQ(by["tuned"]->tp, best_tp);
  EXPECT_DOUBLE_EQ(by["per-gpu"]->predicted, best / 8);
  // A node of 4 GPUs bounds the search; a model no replica within a node
  // holds runs on all the GPUs (Llama 2 70B fp16, 140 GB, on one-GPU nodes).
  EXPECT_LE(by["node4"]->tp, 4);
  EXPECT_DOUBLE_EQ(by["node1"]->predicted, by["fp16-8"]->predicted);
  EXPECT_EQ(by["node1"]->tp, 8);
  // A static batch and a latency at max load keep one 8-GPU replica.
  EXPECT_DOUBLE_EQ(by["batch"]->predicted, by["batch8"]->predicted);
  EXPECT_EQ(by["batch"]->tp, 8);
  EXPECT_DOUBLE_EQ(by["tpot"]->predicted, by["tpot8"]->predicted);
  // The report names the rows read so.
  ASSERT_FALSE(v->notes.empty());
  EXPECT_NE(v->notes.back().find("tuned tp" + std::to_string(best_tp)), std::string::npos)
      << v->notes.back();
}

// Closed-loop clients (NIM's genai-perf --concurrency, bench_serving
// --max-concurrency) keep `concurrency` sequences in flight: throughput,
// TPOT and TTFT all rise with it, past what the KV cache holds throughput
// is the max-load row's and the extra clients wait for a slot (Little's
// law); a static batch's TTFT is its whole prefill pass.
TEST(Validate, ClosedLoopRowsRunTheirClientsInFlight) {
  const auto row = [](const std::string& id, const std::string& batch, const std::string& clients,
                      const std::string& metric, const std::string& cap = "") {
    return id + ",infer,Llama-3.1-8B,,,,,,,,,H100-SXM,1,fp8," + batch + ",1000,1000,," + metric +
           ",1000,x,x," + clients + "," + cap + "\n";
  };
  const std::string rate = "output_tokens_per_s";
  auto v = validate_text(measurement_header(",concurrency,max_seqs") + row("r1", "", "1", rate) +
                         row("r10", "", "10", rate) + row("r100", "", "100", rate) +
                         row("rmax", "", "", rate) + row("rflood", "", "1000000", rate) +
                         row("t1", "", "1", "ttft_ms") + row("t100", "", "100", "ttft_ms") +
                         row("tflood", "", "1000000", "ttft_ms") + row("p1", "", "1", "tpot_ms") +
                         row("p100", "", "100", "tpot_ms") + row("s1", "1", "", "ttft_ms") +
                         row("s8", "8", "", "ttft_ms") + row("both", "8", "8", rate) +
                         row("t10", "", "10", "ttft_ms") + row("r100cap", "", "100", rate, "10") +
                         row("t100cap", "", "100", "ttft_ms", "10"));
  ASSERT_TRUE(v) << v.error().to_string();
  std::map<std::string, const ValidationRow*> by;
  for (const ValidationRow& r : v->rows) by[r.id] = &r;
  ASSERT_EQ(v->rows.size(), 15u);
  EXPECT_LT(by["r1"]->predicted, by["r10"]->predicted);
  EXPECT_LT(by["r10"]->predicted, by["r100"]->predicted);
  EXPECT_LT(by["r100"]->predicted, by["rmax"]->predicted);
  EXPECT_EQ(by["r100"]->concurrency, 100);
  // Past the KV cache: the max-load throughput, and the clients that wait.
  EXPECT_NEAR(by["rflood"]->predicted, by["rmax"]->predicted, 1e-6 * by["rmax"]->predicted);
  const double rps = by["rflood"]->predicted / 1000, held = by["rflood"]->concurrency;
  EXPECT_NEAR(by["tflood"]->predicted / 1000, (1e6 - held) / rps, 0.01 * (1e6 - held) / rps);
  // An engine that holds 10 (max_seqs) serves a hundred clients as ten,
  // and the other 90 wait for a slot: (100 - 10) / requests per second.
  EXPECT_DOUBLE_EQ(by["r100cap"]->predicted, by["r10"]->predicted);
  EXPECT_NEAR(by["t100cap"]->predicted,
              by["t10"]->predicted + 1000 * 90 / (by["r10"]->predicted / 1000),
              1e-6 * by["t100cap"]->predicted);
  // One client: its prefill alone, as a batch of one; a hundred: the
  // decode beside it and the prefills queued ahead too.
  EXPECT_NEAR(by["t1"]->predicted, by["s1"]->predicted, 0.02 * by["s1"]->predicted);
  EXPECT_GT(by["t100"]->predicted, by["t1"]->predicted);
  EXPECT_GT(by["p100"]->predicted, by["p1"]->predicted);
  // A static batch of 8 prefills 8 prompts in one pass, reading the
  // weights once: more than one prompt's TTFT, less than 8 of them.
  EXPECT_GT(by["s8"]->predicted, 2 * by["s1"]->predicted);
  EXPECT_LT(by["s8"]->predicted, 8 * by["s1"]->predicted);
  ASSERT_EQ(v->skipped.size(), 1u);
  EXPECT_NE(v->skipped[0].reason.find("give one"), std::string::npos) << v->skipped[0].reason;
}

// A row states its engine's KV-cache type in `kv_cache`: fp8 weights keep
// an fp8 cache without it (TensorRT-LLM), a bf16 one holds half the
// sequences and serves less at max load; an unknown type is skipped.
TEST(Validate, RowsStateTheirKvCacheType) {
  const auto row = [](const std::string& id, const std::string& kv) {
    return id +
           ",infer,Llama-3.1-8B,,,,,,,,,H100-SXM,1,fp8,,1000,1000,,output_tokens_per_s,1000,"
           "x,x," +
           kv + "\n";
  };
  auto v = validate_text(measurement_header(",kv_cache") + row("default", "") +
                         row("e5m2", "fp8_e5m2") + row("bf16", "bf16") + row("auto", "auto"));
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 3u);
  EXPECT_DOUBLE_EQ(v->rows[1].predicted, v->rows[0].predicted);
  EXPECT_LT(v->rows[2].predicted, 0.9 * v->rows[0].predicted);
  EXPECT_NEAR(v->rows[2].memory_limit, v->rows[0].memory_limit / 2, 2);
  ASSERT_EQ(v->skipped.size(), 1u);
  EXPECT_NE(v->skipped[0].reason.find("kv_cache 'auto'"), std::string::npos);
}

// A mixture of experts (Mixtral 8x7B: 8 experts, 2 routed per token) is
// read with its experts whether the row names a built-in model, gives its
// config's columns under that name, or states the counts in the `experts`
// and `experts_active` columns; columns that count far from params_b with no
// experts (the MoE read as a dense 7 B model) skip the row saying why.
TEST(Validate, MixtureOfExpertsRowsCountTheirExperts) {
  const auto row = [](const std::string& id, const std::string& model, const std::string& params,
                      const std::string& shape, const std::string& experts) {
    return id + ",infer," + model + "," + params + "," + shape +
           ",,H100-SXM,2,fp16,,1000,1000,,output_tokens_per_s,1000,x,x," + experts + "\n";
  };
  const std::string shape = "32,4096,32,8,14336,32000";
  auto v =
      validate_text(measurement_header(",experts,experts_active") +
                    row("named", "Mixtral 8x7B", "", ",,,,,", ",") +
                    row("columns", "Mixtral 8x7B", "46.7", shape, ",") +
                    row("explicit", "m", "46.7", shape, "8,2") + row("dense", "m", "", shape, ",") +
                    row("as-dense", "m", "46.7", shape, ",") +
                    row("half", "m", "46.7", shape, "8,") + row("over", "m", "46.7", shape, "2,8"));
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 4u);
  const double named = v->rows[0].predicted;
  EXPECT_GT(named, 0);
  EXPECT_DOUBLE_EQ(v->rows[1].predicted, named);
  EXPECT_DOUBLE_EQ(v->rows[2].predicted, named);
  // The dense model of the same shape holds a sixth of the weights and
  // computes 7 B a token instead of 13 B: it serves more.
  EXPECT_EQ(v->rows[3].id, "dense");
  EXPECT_GT(v->rows[3].predicted, 1.2 * named);
  ASSERT_EQ(v->skipped.size(), 3u);
  EXPECT_EQ(v->skipped[0].id, "as-dense");
  EXPECT_NE(v->skipped[0].reason.find("experts and experts_active"), std::string::npos)
      << v->skipped[0].reason;
  EXPECT_NE(v->skipped[1].reason.find("go together"), std::string::npos) << v->skipped[1].reason;
  EXPECT_NE(v->skipped[2].reason.find("over experts"), std::string::npos) << v->skipped[2].reason;
}

// Files call the two kinds by their usual names (Training, pretrain;
// inference, serving): each is read as train or infer and predicted the
// same, and the groups count them so; an unknown kind is skipped naming it.
TEST(Validate, KindsAreReadByTheirUsualNames) {
  const auto train = [](const std::string& id, const std::string& kind) {
    return id + "," + kind +
           ",m,6.7,32,4096,32,32,11008,32000,2048,A100-80GB-SXM,8,bf16,,,,,mfu_percent,40,"
           "percent,x\n";
  };
  const auto infer = [](const std::string& id, const std::string& kind) {
    return id + "," + kind +
           ",m,6.7,32,4096,32,32,11008,32000,,A100-80GB-SXM,1,fp16,,128,1,,ttft_ms,20,ms,x\n";
  };
  auto v = validate_text(measurement_header() + train("t", "train") + train("t2", " Training") +
                         train("t3", "pretrain") + infer("i", "infer") + infer("i2", "Inference") +
                         infer("i3", "serving") + infer("x", "sampling"));
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 6u);
  for (size_t i : {1, 2}) EXPECT_EQ(v->rows[i].predicted, v->rows[0].predicted);
  for (size_t i : {4, 5}) EXPECT_EQ(v->rows[i].predicted, v->rows[3].predicted);
  ASSERT_EQ(v->skipped.size(), 1u);
  EXPECT_NE(v->skipped[0].reason.find("'sampling'"), std::string::npos);
  int training = 0, serving = 0;
  for (const auto& g : v->groups) {
    if (g.metric == "training rows, original") training = g.n;
    if (g.metric == "serving rows, original") serving = g.n;
  }
  EXPECT_EQ(training, 3);
  EXPECT_EQ(serving, 3);
}

// MLPerf Server runs keep a latency rule (Llama 2 70B: TTFT 2 s, TPOT
// 200 ms): a max-load row that states its limits is read at the best
// concurrency that keeps them, not at the memory-bound one. Half the
// unlimited run's TPOT as the limit: a TPOT within it, a lower
// concurrency and throughput; a limit no concurrency keeps: skipped saying
// so.
TEST(Validate, MaxLoadRowsKeepTheirLatencyRule) {
  const std::string header = measurement_header(",max_seqs,tpot_limit_ms");
  const auto row = [](const std::string& id, const std::string& metric, double limit_ms) {
    return id + ",infer,m,13,40,5120,40,40,13824,32000,,H100-SXM,1,fp16,,1000,500,," + metric +
           ",1000,x,x,1024," + (limit_ms > 0 ? strings::fixed(limit_ms, 3) : "") + "\n";
  };
  auto v0 =
      validate_text(header + row("tpot", "tpot_ms", 0) + row("tps", "output_tokens_per_s", 0));
  ASSERT_TRUE(v0) << v0.error().to_string();
  ASSERT_EQ(v0->rows.size(), 2u);
  const double tpot0 = v0->rows[0].predicted, tps0 = v0->rows[1].predicted;
  const double c0 = v0->rows[1].concurrency;
  auto v = validate_text(header + row("tpot", "tpot_ms", tpot0 / 2) +
                         row("tps", "output_tokens_per_s", tpot0 / 2) +
                         row("none", "output_tokens_per_s", 0.001));
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 2u);
  EXPECT_LE(v->rows[0].predicted, tpot0 / 2 + 1e-3);
  EXPECT_LT(v->rows[1].predicted, tps0);
  EXPECT_LT(v->rows[1].concurrency, c0);
  ASSERT_EQ(v->skipped.size(), 1u);
  EXPECT_NE(v->skipped[0].reason.find("latency limits"), std::string::npos);
}

// Rows that describe no real run are skipped naming the column, not
// predicted from (gpu_count 0 once predicted 74.2).
TEST(Validate, ImpossibleColumnsAreSkippedNamingThem) {
  const std::string good =
      ",train,m,6.7,32,4096,32,32,11008,32000,2048,A100-80GB-SXM,8,bf16,,,,,mfu_percent,40,"
      "percent,x\n";
  auto v = validate_text(measurement_header() + "ok" + good +
                         "gpus0,train,m,6.7,32,4096,32,32,11008,32000,2048,A100-80GB-SXM,0,bf16,,,"
                         ",,mfu_percent,40,percent,x\n"
                         "seq,train,m,6.7,32,4096,32,32,11008,32000,99999999999,A100-80GB-SXM,8,"
                         "bf16,,,,,mfu_percent,40,percent,x\n"
                         "neg,train,m,-7,32,4096,32,32,11008,32000,2048,A100-80GB-SXM,8,bf16,,,,,"
                         "mfu_percent,40,percent,x\n");
  ASSERT_TRUE(v) << v.error().to_string();
  ASSERT_EQ(v->rows.size(), 1u);
  ASSERT_EQ(v->skipped.size(), 3u);
  EXPECT_NE(v->skipped[0].reason.find("gpu_count '0'"), std::string::npos) << v->skipped[0].reason;
  EXPECT_NE(v->skipped[1].reason.find("seq_len"), std::string::npos) << v->skipped[1].reason;
  EXPECT_NE(v->skipped[2].reason.find("params_b '-7'"), std::string::npos) << v->skipped[2].reason;
}

// A batch whose KV cache does not fit the replica runs in waves of the
// sequences that do (a paged engine queues the rest), a wave's sequences
// growing in step to input + output tokens: Llama-2-7B (MHA, 512 KiB of KV
// a token in fp16) at 2,048 + 2,048 tokens on one A100 80 GB holds about 30
// such sequences, so batch 64 predicts what a batch of that limit does, and
// reports it; a batch that fits keeps its own figure.
TEST(Validate, BatchesTheKvCacheCannotHoldRunInWaves) {
  const auto row = [](const std::string& id, int batch) {
    return id + ",infer,m,6.7,32,4096,32,32,11008,32000,,A100-80GB-SXM,1,fp16," +
           std::to_string(batch) + ",2048,2048,,output_tokens_per_s,1000,x,x\n";
  };
  auto big = validate_text(measurement_header() + row("b64", 64) + row("b8", 8));
  ASSERT_TRUE(big) << big.error().to_string();
  ASSERT_EQ(big->rows.size(), 2u);
  const ValidationRow& b64 = big->rows[0];
  ASSERT_GT(b64.memory_limit, 8);
  ASSERT_LT(b64.memory_limit, 64);
  // A wave's sequences grow in step: each holds its whole 2,048 + 2,048
  // tokens at the end, as a max-load run's do (whose limit
  // MaxLoadIsBoundByPagedKvCacheOrTheRunsMaxSeqs works out by hand).
  auto max = validate_text(measurement_header() +
                           "max,infer,m,6.7,32,4096,32,32,11008,32000,,A100-80GB-SXM,1,fp16,,2048,"
                           "2048,,output_tokens_per_s,1000,x,x\n");
  ASSERT_TRUE(max) << max.error().to_string();
  ASSERT_EQ(max->rows.size(), 1u);
  EXPECT_EQ(b64.memory_limit, max->rows[0].memory_limit);
  EXPECT_EQ(b64.concurrency, b64.memory_limit);
  EXPECT_EQ(big->rows[1].concurrency, 0);  // batch 8 fits: not capped
  const int limit = static_cast<int>(b64.memory_limit);
  auto at_limit = validate_text(measurement_header() + row("lim", limit) + row("over", limit + 1));
  ASSERT_TRUE(at_limit) << at_limit.error().to_string();
  EXPECT_DOUBLE_EQ(b64.predicted, at_limit->rows[0].predicted);
  EXPECT_DOUBLE_EQ(b64.predicted, at_limit->rows[1].predicted);
  // Below the limit, more sequences still mean more throughput.
  EXPECT_LT(big->rows[1].predicted, b64.predicted);
}

}  // namespace
}  // namespace gpuplan::estimate
