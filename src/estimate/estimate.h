// The estimator: will a workload fit on a VM size × count, in which parallel
// layout, how fast, and how long — with every assumption named and sourced.
//
// CONTRACT for plan, simulate, server and cli: the types and free functions
// below. estimate() is pure and cheap (no allocation beyond the result's
// assumptions), so the planner may call it for every size × count.
// The models themselves are described in docs/estimator.md and at the top of
// memory_model.cc, throughput_model.cc and serving_model.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "core/result.h"
#include "workload/models.h"
#include "workload/workload.h"

namespace gpuplan::estimate {

// Parallel layout over all GPUs of an option: tensor parallel (within one
// VM), pipeline parallel, data parallel. tp*pp*dp == GPUs used. For serving,
// tp*pp is the GPUs of one replica and dp the number of replicas.
struct Layout {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int grad_accum = 1;  // train/finetune: micro-batches per replica per optimizer step
  // train/finetune with pp > 1: model chunks per pipeline stage. 1 is plain
  // 1F1B; v > 1 Megatron's interleaved 1F1B (Narayanan et al. 2021 §2.2.2).
  int vpp = 1;
};

// A layout the estimator considered and could not use, and why
// ("dp=488 > global batch 32 / micro-batch 1").
struct RejectedLayout {
  Layout layout;
  std::string reason;
};

// Memory per GPU, GiB (2^30 bytes).
struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double kv_cache = 0;
  double overhead = 0;  // CUDA context, allocator fragmentation, framework buffers
  [[nodiscard]] double total() const {
    return weights + gradients + optimizer + activations + kv_cache + overhead;
  }
};

// One named input of an estimate: its value as printed, and where it comes
// from (paper + table, datasheet, "workload file", "override").
struct Assumption {
  std::string name;
  std::string value;
  std::string source;
};

// Serving figures of one option (kind infer).
struct ServingEstimate {
  int gpus_per_replica = 0;  // tp * pp
  int replicas = 0;          // replicas that `count` VMs hold
  int replicas_needed = 0;   // replicas to serve the request rate within the SLOs
  int vms_needed = 0;        // VMs to hold replicas_needed
  double max_batch = 0;      // concurrent sequences per replica (KV cache, engine's max_seqs)
  double batch_at_slo = 0;   // largest batch whose decode step meets the TPOT SLO
  double capacity_rps_per_replica = 0;  // sustainable requests/s within the SLOs
  double concurrency = 0;               // mean sequences in flight per replica at the request rate
                                        // (Little's law); 0 when the replicas cannot hold the rate
  double ttft_ms = 0;                   // predicted at the SLO percentile, at the offered load
  double tpot_ms = 0;                   // predicted at the operating batch
  bool meets_slo = false;               // `count` VMs meet the rate within the SLOs
};

struct Estimate {
  std::string size;      // VM size name
  int count = 0;         // VMs
  double gpus = 0;       // GPUs in `count` VMs (fractional for vGPU slices)
  std::string gpu;       // GPU model ("H100-SXM"), as the catalog names it
  double gpu_count = 0;  // GPUs per VM
  bool fits = false;     // fits in memory AND (infer) meets the SLOs
  std::string reason;    // why not, when !fits; "" otherwise
  // The reason is about the size, not about how many: no count of it runs
  // the workload (its GPU lacks the precision or a known rate, is not in
  // the catalog, or is a vGPU fraction where whole GPUs are needed).
  bool unsupported = false;
  Layout layout;
  double memory_needed_gib = 0;     // per GPU, at `layout`
  double memory_available_gib = 0;  // per GPU
  MemoryBreakdown memory;
  double throughput = 0;  // in throughput_unit, whole option
  std::string
      throughput_unit;  // "tokens/s" (train/finetune), "requests/s" (infer), "items/h" (batch)
  double hours = 0;     // wall-clock to finish; infer: the serving duration
  // batch: one item's time on one worker (a GPU, or a VM's slice), hours;
  // what an eviction loses on average is half of it.
  double item_hours = 0;
  // Model FLOPs utilization (train/finetune; 0 otherwise): `mfu` is what
  // the throughput achieves, model FLOPs per token x tokens/s over the GPUs'
  // peak (what published MFU figures are); `mfu_compute` is the fitted
  // figure of the compute phases, before the pipeline bubble and the
  // communication that is not overlapped.
  double mfu = 0;
  double mfu_compute = 0;
  // train/finetune: the global batch bounds data parallelism and this count
  // is no faster than one VM fewer: more VMs cannot help (fits is false).
  bool batch_bound = false;
  std::vector<RejectedLayout> rejected_layouts;  // train/finetune, full estimates only
  std::vector<Assumption> assumptions;
  std::optional<ServingEstimate> serving;  // kind infer only
};

// Estimates `workload` on `count` VMs of `size`, whose GPU is `gpu`.
// Never fails: an option that cannot run has fits == false and a reason
// ("needs 142.1 GiB/GPU at tp=8 pp=1, has 80"; "AMD GPU: no CUDA ... " is not
// judged here — only memory, SLO and spec facts).
[[nodiscard]] Estimate estimate(const workload::Workload& workload, const catalog::VmSize& size,
                                const catalog::Gpu& gpu, int count);

// The same with `explain` false: no assumptions and shorter reasons
// ("does not fit in GPU memory" without the figures) — several times
// cheaper, for enumerations that re-estimate only the options they print.
// fits, layout, memory, throughput, hours and serving are identical.
[[nodiscard]] Estimate estimate(const workload::Workload& workload, const catalog::VmSize& size,
                                const catalog::Gpu& gpu, int count, bool explain);

// For every GPU size in the catalog (retired sizes skipped; only those the
// workload's constraints.series names, and confidential-computing sizes only
// when constraints.confidential asks for them, as plan chooses), the smallest
// count in 1..max_count (bounded by the workload's max_gpus/max_nodes) that
// fits; sizes where none fits appear once with count 1 (or the largest tried
// when memory is the issue) and the reason. Sizes whose GPU is missing from
// the catalog are reported as not fitting with that reason.
[[nodiscard]] std::vector<Estimate> estimate_all(const workload::Workload& workload,
                                                 const catalog::Catalog& catalog,
                                                 int max_count = 64);

// The smallest count in 1..max_count (bounded by the workload's max_gpus /
// max_nodes) at which `size` fits — and meets the deadline when one is set
// and reachable; infer: the VMs needed for the request rate. When none fits,
// the estimate at 1 VM (or the limit) with the reason.
[[nodiscard]] Estimate estimate_smallest(const workload::Workload& workload,
                                         const catalog::VmSize& size, const catalog::Gpu& gpu,
                                         int max_count = 64);

// ---- Serving model, per replica (the simulator drives it) ----------------

// The serving engine's default cap on sequences in flight on `gpu` (vLLM
// V1: 1,024 on GPUs of 70 GiB or more other than the A100, else 256).
[[nodiscard]] double engine_max_seqs(const catalog::Gpu& gpu);

// One model replica on `gpus` GPUs of one kind, tensor-parallel. All times in
// seconds. Built by replica_model(); plain data, cheap to copy.
struct ReplicaModel {
  int gpus = 1;                         // tp
  double flops_per_s = 0;               // achieved dense FLOP/s of the replica (prefill)
  double bytes_per_s = 0;               // achieved memory bandwidth of the replica (decode)
  double weight_bytes = 0;              // read once per decode step
  double active_weight_bytes = 0;       // MoE: bytes read per token at batch 1
  int experts = 1, experts_active = 1;  // MoE: FFN experts per layer, routed per token
  double flops_per_token = 0;           // 2 * active params (forward)
  double attn_flops_per_token_ctx = 0;  // extra forward FLOPs per token per context token
  // The same in a decode step, where attention runs at the slower of its
  // FLOPs and its cache reads (a latent's absorbed attention is the one
  // whose FLOPs decide: ~240 per byte read for DeepSeek-V3).
  double attn_decode_flops_per_token_ctx = 0;
  double attn_flops_per_s = 0;    // its rate: 16-bit (FP8 weights keep a 16-bit attention)
  double kv_bytes_per_token = 0;  // KV cache bytes per token of context
  double kv_capacity_tokens = 0;  // KV tokens that fit beside weights and overhead
  // The engine's cap on sequences in flight (vLLM's --max-num-seqs; 0:
  // none, as a measurement row that states its own): max_batch() holds to it.
  double max_seqs = 0;
  // Sliding-window or chunked layers: the cache a sequence keeps and the
  // pairs its prompt's attention computes (workload::LocalAttention).
  workload::LocalAttention local;
  double step_overhead_s = 0;  // fixed per-forward cost (kernel launches, sampling)
  // Tensor parallelism: all-reduces per forward pass (2 per layer), their
  // bytes per token, and each all-reduce's cost as the cheaper of NCCL's
  // low-latency and bulk protocols (latency + bytes x seconds per byte).
  double tp_allreduces = 0;
  double tp_bytes_per_token = 0;
  double tp_ll_latency_s = 0, tp_ll_s_per_byte = 0;
  double tp_bulk_latency_s = 0, tp_bulk_s_per_byte = 0;

  // Tensor-parallel communication of one forward pass over `tokens` tokens.
  [[nodiscard]] double tp_comm_seconds(double tokens) const;

  // Time to prefill `input_tokens` tokens of one request (compute-bound, with
  // the attention term), i.e. TTFT without queueing.
  [[nodiscard]] double prefill_seconds(double input_tokens) const;
  // Time of one decode step for `batch` sequences of mean context `context`
  // tokens (memory-bound: weights + KV read; compute-bound at large batch;
  // local layers read and attend over their window only).
  [[nodiscard]] double decode_step_seconds(double batch, double context) const;
  // Weight bytes one decode step reads for `batch` tokens: all of a dense
  // model; of a mixture of experts, the shared weights and the experts the
  // batch's tokens are routed to.
  [[nodiscard]] double step_weight_bytes(double batch) const;
  // Most sequences of mean context `context` whose KV cache fits, at most
  // max_seqs.
  [[nodiscard]] double max_batch(double context) const;
};

// The replica model for the workload's model and precision on `tp` GPUs of
// `gpu` (tp <= GPUs per VM). kFailedPrecondition when the weights do not fit
// on tp GPUs; kInvalidArgument when the GPU has no rate at the precision.
[[nodiscard]] Result<ReplicaModel> replica_model(const workload::Workload& workload,
                                                 const catalog::Gpu& gpu, bool nvlink, int tp);

// The serving layout a deployment would choose: among tensor-parallel sizes
// tp = 1, 2, 4, ... that divide the VM's whole GPUs and the model's
// attention heads and hold the weights, the one that serves the most
// requests per second per GPU within the workload's SLOs (TTFT, TPOT at its
// percentile, its token distributions); when none meets them, the smallest
// that holds the weights (meets_slo false, why_not says why). The one
// layout search of the project: estimate(), the planner (through it) and
// the simulator's replica all call it.
struct ServingLayout {
  int tp = 0;          // GPUs per replica; 0 when no layout holds the weights
  ReplicaModel model;  // the replica at that tp
  bool meets_slo = false;
  double batch_at_slo = 0;     // concurrent sequences at the best operating point
  double rps_per_replica = 0;  // sustainable requests/s within the SLOs (0 when none)
  std::string why_not;         // why no layout meets the SLOs, or none holds the weights
};
[[nodiscard]] ServingLayout choose_serving_layout(const workload::Workload& workload,
                                                  const catalog::Gpu& gpu, bool nvlink,
                                                  int gpus_per_vm);

// ---- Calibration -----------------------------------------------------------

struct ValidationRow {
  std::string id;
  std::string metric;
  double predicted = 0;
  double published = 0;
  double error_percent = 0;  // 100 * (predicted - published) / published
  // Max-load rows (blank batch), and batch rows whose KV cache does not fit
  // the batch (run in waves of what fits): the sequences in flight the
  // prediction used and the most the KV cache holds at the row's lengths;
  // 0 for other rows.
  double concurrency = 0;
  double memory_limit = 0;
  // Inference rows: the tensor-parallel size of each replica (the row's
  // `tp`, or for a max-load throughput without one the size that serves
  // the most); 0 for training rows.
  int tp = 0;
};
struct Skipped {
  std::string id;
  std::string reason;
};
struct MetricSummary {
  std::string metric;
  int n = 0;
  double median_abs_error_percent = 0;
};
struct Validation {
  std::vector<ValidationRow> rows;
  std::vector<Skipped> skipped;
  std::vector<MetricSummary> summary;  // sorted by metric name
  // The same medians by group: "serving rows, original" / "serving rows, new"
  // / "training rows, ..." (a row is new when its optional `set` column is not
  // blank or "original"), then "source: PREFIX" per publisher (the id up to
  // its first '-').
  std::vector<MetricSummary> groups;
  // How rows' GPU names that are not the catalog's were read ("GPU 'H200'
  // read as the catalog's H200-SXM (3 rows)").
  std::vector<std::string> notes;
};

// Bytes of one training checkpoint of `workload` (train/finetune): the
// trainable parameters' weights at the training precision and their
// optimizer states (memory_model.cc's bytes per parameter, Rajbhandari et al.
// 2020 §3.1: Adam in mixed precision 2 + 12 B/param); LoRA and QLoRA save
// only the adapters. 0 for serving and batch work.
[[nodiscard]] double checkpoint_bytes(const workload::Workload& workload);

// Where published runs of this serving workload's model measured far below
// the estimate (docs/estimator.md: gpt-oss's MXFP4 experts and DeepSeek's
// latent mixture of experts in vLLM, about 2x slower): what to tell the
// reader, or nullopt. Serving only.
[[nodiscard]] std::optional<std::string> measured_serving_gap(const workload::Workload& workload);

// Predicts every row of a published-measurements table (schema of
// tests/data/published_measurements.csv) that it can interpret, looking GPUs
// up in `catalog` by the shared vocabulary or, failing that, by chip, part
// and memory ("NVIDIA H200-SXM-141GB" is H200-SXM; `notes` says so). Rows it
// cannot interpret go to `skipped` with the reason. kInvalidArgument
// (file:line: column) when a required column is missing from the header.
[[nodiscard]] Result<Validation> validate(const csv::Table& table, const catalog::Catalog& catalog);

// The GPU models a batch workload's reference_gpu may name (the datasheet
// table its rates come from), for checking and "did you mean".
[[nodiscard]] std::vector<std::string> reference_gpu_names();

// ---- JSON (estimate_json.cc) -----------------------------------------------

// One option: {size, count, gpus, fits, reason, layout, memory_needed_gib,
// memory_available_gib, memory, throughput, throughput_unit, hours, mfu,
// serving, assumptions}.
[[nodiscard]] nlohmann::ordered_json to_json(const Estimate& estimate);
// {"workload", "kind", "options": [...]}: what `gpuplan estimate --json` prints.
[[nodiscard]] nlohmann::ordered_json to_json(const workload::Workload& workload,
                                             const std::vector<Estimate>& options);

}  // namespace gpuplan::estimate
