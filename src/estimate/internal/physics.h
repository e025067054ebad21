// Internal pieces of the estimator shared by estimate.cc and validate.cc.
// Not API: the planner and simulator use estimate.h only.
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "estimate/serving_engine.h"
#include "workload/workload.h"

namespace gpuplan::estimate::internal {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// ---- Fitted constants (docs/estimator.md, "Calibration") ------------------
// Each was fitted once, by grid search, to the published measurements in
// tests/data/published_measurements.csv (the physics around them is fixed);
// the fit minimises the worst per-metric median absolute error.

// Best achievable fraction of peak for the matmuls of a training step.
// Refitted for issue 11 (was 0.65) together with kTrainMemoryBoundWork and
// kScaleLossPerDoubling, once, over every training row of the file, after
// the unfused-attention, micro-batch and data-parallel terms were added.
inline constexpr double kTrainMatmulEfficiency = 0.60;
// Cost of the memory-bound (non-matmul) work relative to the matmuls, per
// unit of (peak FLOP/s / memory bytes/s) / hidden: layernorm, softmax,
// activation functions and residuals move O(h) bytes per token per layer
// while matmuls do O(h^2) FLOPs (Korthikanti et al. 2022 §3 counts these
// tensors), so their share grows with the GPU's FLOP:byte ratio and shrinks
// with the hidden size. kMemoryBoundWork is the inference fit (serving
// rows); kTrainMemoryBoundWork the training one, which since issue 11 no
// longer has to absorb materialised attention scores (charged separately
// where the row's software stores them, kUnfusedAttentionBytesPerHeadToken).
inline constexpr double kMemoryBoundWork = 6.25;
inline constexpr double kTrainMemoryBoundWork = 3.25;
// Per-GPU efficiency lost per doubling of GPUs beyond one 8-GPU node by
// model-parallel (tensor x pipeline) jobs: pipeline bubbles of interleaved
// schedules, point-to-point and tensor-parallel traffic, and the gradient
// all-reduce that overlap imperfectly; Megatron-LM strong scaling 96 -> 4608
// H100s loses 47 -> 42 % MFU. Purely data-parallel runs whose layout is
// known pay their gradient all-reduce from the links instead
// (train_step_seconds()).
inline constexpr double kScaleLossPerDoubling = 0.03;  // was 0.04 before issue 11
// Inference: matmul efficiency (before the memory-bound term above), memory
// bandwidth efficiency, fixed time per layer per forward pass (kernel
// launches, sampling). Tensor-parallel all-reduces are not fitted: they are
// costed from the links (interconnect.cc).
inline constexpr double kInferMatmulEfficiency = 0.95;
inline constexpr double kInferBandwidthEfficiency = 0.95;
inline constexpr double kLayerOverheadS = 80e-6;

// ---- The achievable matmul rate -------------------------------------------
// The matmul efficiencies above were fitted on rows measured on A100s and
// H100s, whose maximum achievable matmul FLOPS (MAMF: the best of a brute-
// force search of matmul shapes, as a share of the datasheet peak) are
// 80.3 % (H100 SXM) to 86.9 % (A100 SXM) in 16 bits and 70.9 % (H100 SXM)
// to 73.4 % (H200) in FP8 in ml-engineering's table (data/catalog/gpus.csv
// `matmul_efficiency`, `fp8_matmul_efficiency`, which cite it). The shares
// are measured; the rule is a modelling choice: the fit holds for a GPU
// measured within the fit GPUs' range of the precision, and one measured
// outside it runs every matmul at its share over the range's nearest end
// (MI300X 51.4 %: 0.64; GB200 72.9 % in 16 bits: 0.91, 72.3 % in FP8: 1).
// FP8 on a GPU with no FP8 figure uses its 16-bit one; a GPU nobody
// measured keeps the fit (1).
inline constexpr double kFitMamfLow = 0.803;
inline constexpr double kFitMamfHigh = 0.869;
inline constexpr double kFitFp8MamfLow = 0.709;
inline constexpr double kFitFp8MamfHigh = 0.734;
// The measured share that applies to precision `p` (0: none measured; no
// efficiency may exceed it) and the fit range it is judged against.
struct MatmulCeiling {
  double share = 0;
  bool fp8 = false;  // the GPU's FP8 figure against the FP8 range, else 16-bit
  double fit_low = kFitMamfLow, fit_high = kFitMamfHigh;
  // share over the range's nearest end; 1 when none was measured.
  [[nodiscard]] double derate() const;
};
MatmulCeiling matmul_ceiling(const catalog::Gpu& gpu, workload::Precision p);
inline double matmul_derate(const catalog::Gpu& gpu, workload::Precision p) {
  return matmul_ceiling(gpu, p).derate();
}

// ---- Training kernels: derived, not fitted --------------------------------
// Attention implementations that materialise the s x s scores (everything
// before FlashAttention, Dao et al. 2022) store 5·a·s bytes per token per
// layer beside the 34·h of the rest of the layer (Korthikanti et al. 2022
// §4.1, eq. 1: 2·a·s² softmax output, a·s² dropout mask, 2·a·s² dropout
// output per sequence), and move them through memory the same way; so the
// memory-bound work grows by 5·a·s / (34·h). Fused attention keeps the
// scores on chip.
inline constexpr double kUnfusedAttentionBytesPerHeadToken = 5;
// Fixed time per layer per micro-batch of a training step: kernel launches
// and small-kernel latency of a forward and a backward pass, the backward
// running about twice the forward's kernels (it computes two gradients per
// matmul, Narayanan et al. 2021 §5.1): 3 x the inference per-layer overhead.
inline constexpr double kTrainLayerOverheadS = 3 * kLayerOverheadS;

// ---- Fixed physical assumptions (sources in docs/estimator.md) -----------
// CUDA context + NCCL buffers + allocator slack per GPU.
inline constexpr double kOverheadGiB = 2.0;
// Fraction of GPU memory kept free against fragmentation (PyTorch caching allocator).
inline constexpr double kHeadroom = 0.05;
// Serving: target utilisation of a replica's capacity (queueing knee).
inline constexpr double kServingMaxUtilization = 0.85;
// Max load: KV-cache page size in tokens (vLLM's default block_size 16;
// PagedAttention, Kwon et al. SOSP 2023 §4) and the activation bytes per
// token per unit of hidden size of one live layer (34·s·b·h per layer,
// Korthikanti et al. 2022 eq. 1, without the attention-score term that
// fused attention does not store). No default cap on the sequences in
// flight: engines differ (vLLM 0.6's --max-num-seqs 256; vLLM V1's 1,024
// on GPUs of 70 GiB or more other than the A100, get_batch_defaults() in
// vllm/engine/arg_utils.py), so a measurement states its engine's cap in
// `max_seqs` where it bound, and memory decides where it is blank.
inline constexpr double kKvPageTokens = 16;
inline constexpr double kActivationBytesPerTokenHidden = 34;
// Tokens per optimizer step when the workload gives no global batch
// (Llama 2/3 pretraining: 4 M tokens per batch, Touvron et al. 2023 Table 1).
inline constexpr double kDefaultTokensPerStep = 4e6;

// ---- Interconnect (interconnect.cc) -----------------------------------------

enum class LinkKind { kNvlink, kPcie, kInfiniband, kEthernet };
// One link: achieved bandwidth per GPU and direction, and what it is.
struct Link {
  LinkKind kind = LinkKind::kPcie;
  double gbs = 0;        // GB/s per GPU, one direction, achieved
  bool assumed = false;  // the bandwidth is a default, not documented for the size
  std::string name;      // "PCIe Gen5 x16 (128 GB/s bidirectional)"
  std::string source;
};
// Between the GPUs of one VM: NVLink/Infinity Fabric when the size has it,
// else the GPU's PCIe host interface.
Link intra_vm_link(const catalog::Gpu& gpu, bool nvlink);
// Between VMs, per GPU: InfiniBand where the size has it, else its Ethernet.
Link inter_vm_link(const catalog::VmSize& size);
// The link a data-parallel ring all-reduce sees when `ranks_per_vm` members
// of the group share a VM: NCCL runs one ring per NIC, so the group's bus
// bandwidth between VMs is ranks_per_vm x the per-GPU share, at most the
// intra-VM link's.
Link data_parallel_link(const Link& intra, const Link& inter, int ranks_per_vm);
// Cost of one collective as latency + bytes x seconds per byte.
struct CollectiveCost {
  double latency_s = 0;
  double s_per_byte = 0;
  [[nodiscard]] double at(double bytes) const { return latency_s + bytes * s_per_byte; }
};
// Ring all-reduce over `ranks` with NCCL's LL (`low_latency`) or Simple protocol:
// base + 2(n-1)·hop latency, 2(n-1)/n of the bytes over the link.
CollectiveCost allreduce_cost(int ranks, const Link& link, bool low_latency);
// Ring all-reduce of `bytes` over `ranks` (NCCL's latency + bandwidth model,
// the cheaper of its LL and Simple protocols), seconds.
double allreduce_seconds(double bytes, int ranks, const Link& link);
// One point-to-point send (pipeline activations), seconds.
double send_seconds(double bytes, const Link& link);

// ---- Training layouts (layout_model.cc) -------------------------------------

// The fastest layout that can run, with its costs; or why none can.
struct TrainPlan {
  bool fits = false;
  bool batch_bound = false;  // more GPUs than the global batch can use
  Layout layout;             // chosen, or the closest to fitting
  MemoryBreakdown memory;    // per GPU, without overhead
  double needed_gib = 0;     // per GPU, with overhead
  double available_gib = 0;  // per GPU, usable
  double t_step = 0;         // seconds per optimizer step
  double t_compute = 0;      // of which ideal compute of one pipeline (no bubble, no links)
  double t_tp = 0;           // tensor-parallel collectives over PCIe
  double t_pp = 0;           // pipeline sends
  double t_dp = 0;           // gradient all-reduce (before overlap)
  double bubble = 0;         // bubble fraction (p-1)/(v·m+p-1), v = layout.vpp
  std::string reason;        // when !fits
  std::vector<RejectedLayout> rejected;  // filled when `explain`
};
struct TrainInputs {
  double peak_flops = 0;  // per GPU, FLOP/s
  double mfu = 0;
  // The per-doubling loss (1 + c·log2(G/8)) that `mfu` includes: a purely
  // data-parallel layout (tp = pp = 1) does not pay it, its gradient
  // all-reduce being costed from the links instead.
  double model_parallel_scale = 1;
  double memory_gib = 0;  // per GPU, usable (after headroom)
  double overhead_gib = 0;
  int gpus_per_vm = 1;
  int count = 1;
  bool nvlink = false;
  Link intra, inter;
};
// One training step at layout `l` (its grad_accum micro-batches per
// replica): compute, tensor-parallel, pipeline and data-parallel seconds,
// and the step with the part of the data-parallel traffic that compute
// does not hide (layout_model.cc).
struct StepCost {
  double t_step, t_compute, t_tp, t_pp, t_dp, bubble;
};
StepCost step_cost(const workload::Workload& w, const TrainInputs& in, const Layout& l,
                   double trainable_params);
// Searches tp x pp x dp = GPUs: tp within a VM dividing the heads, pp <=
// layers, dp <= global batch / micro-batch; picks the shortest step.
TrainPlan plan_training(const workload::Workload& w, const TrainInputs& in, bool explain);
// Sequences per optimizer step (the workload's, or 4 M tokens' worth).
int global_batch(const workload::Workload& w);

// Dense tensor rate in TFLOP/s at `p` (fp32 uses TF32 when the GPU has it;
// bf16 falls back to fp16 where the GPU lacks bf16; fp8/int4 fall back to
// int8/fp16). `note` says which rate was used.
double peak_tflops(const catalog::Gpu& gpu, workload::Precision p, std::string* note);
// The rate training runs its model FLOPs at: peak_tflops, except FP8
// training, which runs only the linear layers' GEMMs in FP8 and attention's
// score and value products in BF16 (train_peak_tflops in throughput_model.cc).
double train_peak_tflops(const catalog::Gpu& gpu, workload::Precision p, const workload::Model& m,
                         int seq_len, workload::Method method, std::string* note);

// Parameters that take part in matmuls per token (billions): every layer's
// attention and FFN (active experts only) plus the output head; not the
// input embedding lookup.
double matmul_params(const workload::Model& m);
// Model FLOPs per trained token (Narayanan et al. 2021 eq. 3 generalised):
// 6 * matmul params + 12 * layers * hidden * seq (attention scores and
// values, fwd+bwd; a sliding-window layer's seq is the context its tokens
// attend to, workload::LocalAttention::training_context). LoRA/QLoRA:
// 4 * matmul params (no weight gradients).
double train_flops_per_token(const workload::Model& m, int seq_len, workload::Method method);
// One forward pass's FLOPs per token: 2 * matmul params + 4 * layers *
// attention width * the attended context, as above.
double forward_flops_per_token(const workload::Model& m, double seq_len);
// The heaviest of p pipeline stages over an even split: p·⌈L/p⌉ / L (1 when p
// divides L). The pipeline runs at that stage's pace and its GPUs hold its
// layers' states and activations.
inline double stage_imbalance(int layers, int pp) {
  if (pp <= 1 || layers <= 0) return 1;
  const int heaviest = (layers + pp - 1) / pp;
  return static_cast<double>(pp) * heaviest / layers;
}
// Hardware FLOPs per token: model FLOPs plus recomputation (full: one more
// forward = +2N + 4lhs; selective: attention scores again = +4lhs).
double hardware_flops_per_token(const workload::Model& m, int seq_len, workload::Method method,
                                workload::Recompute r);

// What train_mfu() needs to know about how a training job runs.
struct TrainShape {
  double gpus = 1;  // all GPUs of the job
  // The layout is pure data parallelism (tp = pp = 1) and its gradient
  // all-reduce is costed from the links (train_step_seconds(), or the
  // layout search): no per-doubling scale loss.
  bool data_parallel_only = false;
  // Sequences per micro-batch on one model replica, 0 when unknown (then no
  // per-micro-batch overhead is charged), and the tensor-parallel ranks that
  // share its layers.
  double micro_batch = 0;
  int tp = 1;
  // FlashAttention-style kernels (true) or materialised s x s scores.
  bool fused_attention = true;
  // The GPU's achievable matmul rate against the fit's (matmul_derate()).
  double matmul_derate = 1;
};

// Model FLOPs utilization for training at precision rate `peak_tflops` and
// memory bandwidth `bw_gbs`:
//   e / (1 + k·(peak/bw)/h·(1 + [unfused] 5·a·s/(34·h))) / scale / recompute,
// scale = 1 + c·log2(G/8) unless data_parallel_only, then the fixed
// per-layer time of each micro-batch (kTrainLayerOverheadS) when the
// micro-batch is known. 0 when a rate is missing.
double train_mfu(double peak_tflops, double bw_gbs, workload::Recompute r, const workload::Model& m,
                 int seq_len, workload::Method method, const TrainShape& shape);

// Seconds of one optimizer update of `params` (per GPU) at `bw_gbs`: a fused
// optimizer reads and writes every byte of weights, gradients and optimizer
// states once (16-bit weights and gradients + optimizer_bytes()).
double optimizer_step_seconds(double params, workload::Optimizer o, double bw_gbs);

// Memory per GPU for training/finetuning at a layout.
MemoryBreakdown train_memory(const workload::Workload& w, const Layout& layout);

// Bytes a KV-cache value takes by default with weights at precision `p`: 1
// for fp8 weights (TensorRT-LLM's FP8 cache), 4 for fp32, else 2.
double kv_value_bytes(workload::Precision p);
// Bytes of KV cache per token of context (all layers, K and V) at
// `value_bytes` a value.
double kv_bytes_per_token(const workload::Model& m, double value_bytes);
// Weight bytes of the model at precision (total params; with `active`, a
// token's). Released weights whose routed experts have a format of their
// own (Model::expert_bits: gpt-oss's MXFP4) keep the rest at 16 bits.
// Quantised weights (fp8, int8, int4) are the linear layers': the input
// embedding and the output head stay 16-bit (AutoAWQ, GPTQ and
// llm-compressor quantise nn.Linear modules and leave lm_head out; vLLM's
// online fp8 quantises LinearBase layers, and its vocabulary embedding and
// head are not one), and int4 adds a 16-bit scale and a 4-bit zero per
// group of 128 weights (AutoAWQ's q_group_size and GPTQ's usual
// group_size): 4.16 bits a weight. Llama-3.1-8B in AWQ int4 is then 5.73
// GB, what hugging-quants' upload of it weighs, where 4 bits throughout
// gave 4.0.
double weight_bytes(const workload::Model& m, workload::Precision p, bool active = false);
// Bytes per parameter of the optimizer's states (memory_model.cc).
double optimizer_bytes(workload::Optimizer o, bool fp32);
// Trainable LoRA parameters at rank r (memory_model.cc).
double lora_params(const workload::Model& m, int rank);

// The serving operating point of one replica for the workload's traffic.
struct ServingPoint {
  double batch = 0;  // concurrent sequences
  double rps = 0;    // requests/s served at that batch
  double tpot_s = 0;
  double ttft_s = 0;        // at the SLO percentile of input length
  bool overloaded = false;  // the rate exceeds what the replica can hold (KV cache or compute)
};
// Largest-capacity point that meets the SLOs (batch >= 1), or batch 0 when
// even batch 1 misses them.
ServingPoint best_serving_point(const ReplicaModel& r, const workload::Workload& w);
// The point at which a replica serves `rps`: the mean concurrency that
// Little's law implies (a fixed point), and TTFT/TPOT there.
ServingPoint serving_point_at(const ReplicaModel& r, const workload::Workload& w, double rps);
// Max load (offline throughput benchmarks: every request queued at once).
// Continuous batching keeps `concurrency` sequences in flight: the most the
// paged KV cache holds after weights, overhead and one prefill chunk's
// activations (`memory_limit`), capped by the engine's `max_seqs`, chosen
// to maximise requests/s; prefill chunks interleave with decode steps.
struct MaxLoadPoint {
  double concurrency = 0;   // sequences in flight at the best point
  double memory_limit = 0;  // sequences whose KV pages fit (kv_sequence_limit)
  double rps = 0;           // requests/s
  double tpot_s = 0;        // time between a sequence's tokens (decode step + prefill stalls)
  double ttft_s = 0;        // mean time to the first token (closed_loop_point)
};
// A latency rule the run kept (MLPerf Server: every query's TTFT and TPOT
// within limits); 0: none. The model's TTFT and TPOT are means.
struct LatencyRule {
  double ttft_s = 0;
  double tpot_s = 0;
};
// Sequences of `input_tokens` + `output_tokens` whose paged KV cache fits in
// the replica at once, after one prefill chunk's activations. Each holds its
// whole life's tokens, input + output (half a 16-token page unused): the
// requests of a measurement are equal, so those admitted together grow in
// step and fill their caches together at the end (a static batch; an
// offline run, every request queued at once; closed-loop clients past what
// the cache holds, who finish together and are replaced together); a paged
// engine that admits more must preempt and recompute, and TensorRT-LLM's
// default capacity scheduler (GUARANTEED_NO_EVICT) reserves input + output
// at admission. (Staggered sequences of mixed lengths hold input +
// output/2 on average; no row here measures that.)
double kv_sequence_limit(const ReplicaModel& r, const workload::Model& m, double input_tokens,
                         double output_tokens);
MaxLoadPoint max_load_point(const ReplicaModel& r, const workload::Model& m, double input_tokens,
                            double output_tokens, double max_seqs, LatencyRule rule = {});
// Closed-loop clients (genai-perf --concurrency, bench_serving
// --max-concurrency): each sends its next request when its last one ends,
// so `clients` sequences are in flight, as many as the KV cache and the
// engine's `max_seqs` (0: none) hold, the rest waiting; continuous batching
// as max_load_point, with the mean TTFT.
MaxLoadPoint closed_loop_point(const ReplicaModel& r, const workload::Model& m, double input_tokens,
                               double output_tokens, double clients, double max_seqs = 0);
// Input tokens at the SLO percentile of the workload's distribution.
double input_tokens_at_percentile(const workload::Workload& w);

// Reference GPU rates for `batch` workloads, when the catalog is not at hand:
// the datasheet figures of data/catalog/gpus.csv for common models.
const catalog::Gpu* reference_gpu(const std::string& model);

}  // namespace gpuplan::estimate::internal
