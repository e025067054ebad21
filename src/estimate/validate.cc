// Calibration check: predict published measurements and report the error.
//
// Problem: the estimator is worth money only if its numbers match what
// people measure. `gpuplan estimate --validate FILE.csv` reads measurements
// in the schema of tests/data/published_measurements.csv and predicts each
// row it can interpret with the same functions `estimate` uses — no per-row
// constants, no lookup of the answers.
//
// Interpretation of a row:
//  * architecture from the row (layers, hidden, heads, kv_heads, ffn_hidden,
//    vocab; kv_heads defaults to heads, ffn_hidden to 4·hidden); whether the
//    FFN is gated and the embeddings tied is whichever of the four
//    combinations best reproduces the row's params_b. Without layers/hidden/
//    heads: the built-in model of the row's name, else a shape derived from
//    params_b (workload::shape_from_params);
//  * training rows without seq_len use 2048;
//  * activation recomputation from the row's text (the schema has no column
//    for it): "checkpoint-method uniform"/"full recompute" → full,
//    "selective recompute" → selective, otherwise none;
//  * training rows that give their pipeline depth (`pp`, with `tp`) pay
//    the pipeline bubble on top (pipeline_bubble() below: the optional
//    `vpp` column's model chunks per stage, 1 for plain 1F1B; blank, the
//    interleaved schedule's smallest bubble), and the per-layer fixed time
//    of their micro-batches (micro-batch 1);
//  * the optional `attention` column (fused | unfused) says whether the
//    row's software materialised the s × s attention scores; blank is fused,
//    the behaviour before the column existed (train_mfu());
//  * training rows with tp = pp = 1 are purely data parallel: no
//    per-doubling scale loss; each GPU runs batch ÷ gpu_count sequences as
//    one micro-batch per step (the row's batch per GPU), pays the per-layer
//    fixed time, the ring all-reduce of 16-bit gradients (intra-node link up
//    to `gpus_per_node`, default 8; beyond, `node_network_gbps` per node,
//    one NCCL ring per NIC) — in 25 MB buckets behind the backward pass, or
//    as one buffer after it where `dp_overlap` is no — and one fused
//    optimizer update (data_parallel_step() below);
//  * training rows without a gpu_count (Korthikanti et al. report per model
//    parallel group) get the smallest tensor(8) × pipeline group whose
//    memory fits, as `estimate` would choose;
//  * inference rows: one replica, tensor parallel over gpu_count GPUs,
//    static batching (TensorRT-LLM gptSessionBenchmark, lmdeploy static
//    benchmark): prefill of the whole batch, then `output_tokens` decode
//    steps over a growing context; a batch whose paged KV cache does not
//    fit runs in waves of the sequences that do, each holding its input +
//    output tokens at the end (kv_sequence_limit);
//  * inference rows with a blank batch are max-load runs (vLLM/lmdeploy
//    throughput benchmarks, offline scenarios): max_load_point()
//    (serving_model.cc) — continuous batching at the concurrency that
//    maximises throughput under memory: the sequences whose paged KV cache
//    (16-token pages, PagedAttention) fits in what the replica has after
//    weights, overhead and one prefill chunk's activations, each holding
//    its input + output tokens (equal requests admitted together grow in
//    step; TensorRT-LLM reserves them whole), capped by the row's optional
//    `max_seqs` column (the engine's cap on sequences in flight, where it
//    bound: vLLM 0.6's default --max-num-seqs was 256; blank, memory
//    decides); prefill chunks interleaved with decode steps
//    (Sarathi-Serve, Agrawal et al. OSDI 2024): throughput
//    = B·O / (O·d(B) + B·t_p). A row with `ttft_limit_ms` / `tpot_limit_ms`
//    (MLPerf Server's latency rule: Llama 2 70B 2,000 / 200 ms) is read at
//    the best concurrency whose TTFT and TPOT keep them (the model's means;
//    MLPerf bounds the 99th percentile). A row with `concurrency`
//    (closed-loop clients: genai-perf, bench_serving --max-concurrency)
//    runs that many in flight (closed_loop_point). The concurrency used and the memory
//    limit are reported with the row. Without a `tp` column such a
//    throughput is read at the layout that serves the most (predict_infer).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "estimate/estimate.h"
#include "estimate/internal/estimate_ctx.h"
#include "estimate/internal/physics.h"
#include "workload/models.h"

namespace gpuplan::estimate {

using namespace internal;

namespace {

// The columns every row needs; the others (architecture, batch, tokens...)
// are optional and a row that needs a missing one is skipped with the reason.
const std::vector<std::string> kRequired = {"id", "kind", "gpu", "precision", "metric", "value"};

struct Row {
  const csv::Table& t;
  const csv::Row& r;
  std::string get(const std::string& col) const {
    auto i = t.column(col);
    return i && *i < r.fields.size() ? std::string(strings::trim(r.fields[*i])) : std::string();
  }
  std::optional<double> num(const std::string& col) const {
    return strings::parse_double(get(col));
  }
};

// How far a row's architecture columns may count from its params_b: they
// come within 3.1 % on every row of the file, and a mixture of experts read
// as dense is off by a factor (Mixtral 8x7B's columns count 7.2 B of its
// 46.7 B).
constexpr double kParamsMismatch = 0.25;

Result<workload::Model> row_model(const Row& row) {
  // 1. The architecture columns, when the row has them.
  workload::Model m;
  m.name = row.get("model");
  m.source = "measurement row";
  const auto params = row.num("params_b");
  const auto layers = row.num("layers");
  const auto hidden = row.num("hidden");
  const auto heads = row.num("heads");
  if (!layers || !hidden || !heads) {
    // 2. A built-in model of that name; 3. a shape derived from params_b.
    if (const workload::Model* b = workload::find_model(m.name)) return *b;
    if (!params || *params <= 0) {
      return invalid_argument(
          "no architecture (layers, hidden, heads), no known model name "
          "and no params_b");
    }
    m.params_b = *params;
    m.vocab = static_cast<int>(row.num("vocab").value_or(32000));
    workload::shape_from_params(m);
    m.max_context = 1 << 20;
    m.active_params_b = m.params_b;
    return m;
  }
  m.layers = static_cast<int>(*layers);
  m.hidden = static_cast<int>(*hidden);
  m.heads = static_cast<int>(*heads);
  // Optional columns: MHA without kv_heads, 4h FFN without ffn_hidden.
  m.kv_heads = static_cast<int>(row.num("kv_heads").value_or(m.heads));
  m.ffn = static_cast<int>(row.num("ffn_hidden").value_or(4.0 * m.hidden));
  m.vocab = static_cast<int>(row.num("vocab").value_or(32000));
  if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.kv_heads <= 0 || m.ffn <= 0 ||
      m.vocab <= 0) {
    return invalid_argument("architecture columns must be positive");
  }
  m.max_context = 1 << 20;
  // A built-in model of the row's name and shape lends what the columns
  // cannot say: head size, expert sizes, shared experts, dense layers, a
  // latent cache (a Qwen3 row's hidden / heads is not its head_dim) — and,
  // without the `experts` and `experts_active` columns (FFN experts per
  // layer, routed per token), its counts (an MLPerf Mixtral 8x7B row
  // written with its config's columns read as a dense 7 B model).
  const workload::Model* b = workload::find_model(m.name);
  if (b && (b->layers != m.layers || b->hidden != m.hidden)) b = nullptr;
  if (b) workload::lend_shape(*b, m);
  if ((m.head_dim == 0 && m.hidden % m.heads != 0) || m.heads % m.kv_heads != 0) {
    return invalid_argument("heads/kv_heads do not divide hidden/heads");
  }
  const auto experts = row.num("experts");
  const auto routed = row.num("experts_active");
  if (experts || routed) {
    if (!experts || !routed) return invalid_argument("experts and experts_active go together");
    if (*routed > *experts) return invalid_argument("experts_active is over experts");
    m.experts = static_cast<int>(*experts);
    m.experts_active = static_cast<int>(*routed);
  } else if (b && b->experts > 1) {
    m.experts = b->experts;
    m.experts_active = b->experts_active;
  }
  if (m.experts <= 1) m.expert_ffn = m.shared_experts = m.dense_layers = 0;
  double best = 1e300;
  workload::Model chosen = m;
  for (bool gated : {false, true}) {
    for (bool tied : {false, true}) {
      workload::Model c = m;
      c.gated_ffn = gated;
      c.tied_embeddings = tied;
      const double p = workload::params_from_architecture(c, false);
      const double err = params ? std::abs(p - *params) : (gated ? 1 : 0) + (tied ? 1 : 0);
      if (err < best) {
        best = err;
        chosen = c;
      }
    }
  }
  chosen.params_b = workload::params_from_architecture(chosen, false);
  chosen.active_params_b = workload::params_from_architecture(chosen, true);
  // The columns reproduce the published count within a few per cent on
  // every row of the file (3.1 % at most: embeddings and biases the
  // formula leaves out); far off, they describe another model, most often
  // a mixture of experts read as dense, and the row would be predicted for it.
  if (params && std::abs(chosen.params_b - *params) > kParamsMismatch * *params) {
    return invalid_argument(
        "params_b " + strings::fixed(*params, 1) + " B does not match the architecture columns (" +
        strings::fixed(chosen.params_b, 1) +
        " B); a mixture-of-experts model needs the experts and experts_active columns");
  }
  return chosen;
}

workload::Recompute row_recompute(const Row& row) {
  const std::string text = strings::to_lower(row.get("source") + " " + row.get("model"));
  if (text.find("checkpoint-method uniform") != std::string::npos ||
      text.find("full recompute") != std::string::npos ||
      text.find("checkpoint-method block") != std::string::npos) {
    return workload::Recompute::kFull;
  }
  if (text.find("selective recompute") != std::string::npos) return workload::Recompute::kSelective;
  return workload::Recompute::kNone;
}

Result<workload::Precision> row_precision(const Row& row) {
  const auto p = workload::precision_named(row.get("precision"));
  if (!p)
    return invalid_argument("unknown precision '" + strings::to_lower(row.get("precision")) + "'");
  return *p;
}

// Smallest tp(<=8) x pp group whose training memory fits (dp = 1).
int group_gpus(const workload::Workload& w, const catalog::Gpu& gpu) {
  int tp = 8;
  while (tp > 1 && w.model.heads % tp != 0) tp /= 2;
  for (int pp = 1; pp <= w.model.layers; ++pp) {
    MemoryBreakdown m = train_memory(w, Layout{tp, pp, 1});
    if (m.total() + kOverheadGiB <= gpu.memory_gib * (1 - kHeadroom)) return tp * pp;
  }
  return tp * w.model.layers;
}

// Rows that state their pipeline depth (`pp`, with `tp`) pay the bubble
// (p − 1)/(v·m + p − 1) of Narayanan et al. 2021 §2.2 (v = 1, plain 1F1B)
// and §2.2.2 (v model chunks per stage, the interleaved schedule), m =
// global batch ÷ data parallel replicas (micro-batch 1, the most
// micro-batches and so the smallest bubble). v is the row's `vpp`; blank,
// the most chunks of at least one layer, ⌊L/p⌋, where the schedule runs at
// all (p > 2, m a multiple of p), as Megatron-LM runs at scale do — a run
// that published its layout balanced its own layers (Megatron's stock rules,
// L a multiple of p and v dividing L/p, are what `estimate` proposes,
// layout_model.cc); rows from software without it say vpp 1 (DeepSpeed's
// pipeline engine runs 2 (m + p − 1) steps of plain 1F1B:
// deepspeed/runtime/pipe/schedule.py, TrainSchedule). Reading every `pp`
// row as plain 1F1B put a 16,384-GPU TP8 PP16 run 47 % below its MFU.
// Rows without `pp`: the fitted per-doubling scale term of train_mfu() only
// (its calibration runs used interleaved schedules).
Result<double> pipeline_bubble(const Row& row, double gpus, int layers) {
  const auto pp = row.num("pp");
  if (!pp || *pp <= 1) return 0.0;
  const double tp = row.num("tp").value_or(1);
  const auto batch = row.num("batch");
  if (tp < 1 || !batch || *batch <= 0 || gpus < tp * *pp) {
    return invalid_argument("pp needs tp >= 1, a batch and gpu_count >= tp x pp");
  }
  if (*pp > layers) return invalid_argument("pp is more than the model's layers");
  const double dp = std::floor(gpus / (tp * *pp));
  const double micro_batches = std::max(1.0, std::floor(*batch / dp));
  const int p = static_cast<int>(*pp);
  const int per_stage = layers / p;  // chunks of at least one layer
  double v = 1;
  if (const auto given = row.num("vpp")) {
    v = *given;
    if (v > 1 && v > per_stage)
      return invalid_argument("vpp " + strings::fixed(v, 0) + " x pp " + std::to_string(p) +
                              " chunks are more than the model's " + std::to_string(layers) +
                              " layers");
  } else if (p > 2 && std::fmod(micro_batches, p) == 0) {
    v = std::max(1, per_stage);
  }
  return (p - 1) / (v * micro_batches + p - 1);
}

// The optional `attention` column: fused (FlashAttention-style, the scores
// stay on chip) or unfused (materialised s x s scores). Blank: fused, the
// model's behaviour before the column existed.
Result<bool> row_fused_attention(const Row& row) {
  const std::string a = strings::to_lower(row.get("attention"));
  if (a.empty() || a == "fused") return true;
  if (a == "unfused") return false;
  return invalid_argument("attention must be fused or unfused, not '" + a + "'");
}

// A training row that states tp = pp = 1 is purely data parallel: each GPU
// runs batch ÷ GPUs sequences as one micro-batch per step (the row's batch
// per GPU), then the gradient all-reduce and the optimizer update.
struct DataParallelStep {
  double t_compute = 0, t_allreduce = 0, t_optimizer = 0;
};

Result<DataParallelStep> data_parallel_step(const Row& row, const workload::Workload& w,
                                            const catalog::Gpu& gpu, double gpus, double peak,
                                            double mfu) {
  const auto batch = row.num("batch");
  if (!batch || *batch < gpus) return invalid_argument("tp = pp = 1 needs a batch >= gpu_count");
  const std::string overlap = strings::to_lower(row.get("dp_overlap"));
  if (!overlap.empty() && overlap != "yes" && overlap != "no")
    return invalid_argument("dp_overlap must be yes or no, not '" + overlap + "'");
  const int per_node = static_cast<int>(row.num("gpus_per_node").value_or(8));
  if (per_node < 1) return invalid_argument("gpus_per_node must be at least 1");
  const int dp = static_cast<int>(gpus);
  const workload::Model& m = w.model;
  DataParallelStep s;
  const double f = train_flops_per_token(m, w.data.seq_len, workload::Method::kFull);
  s.t_compute = *batch / gpus * w.data.seq_len * f / (peak * 1e12 * mfu);
  s.t_optimizer = optimizer_step_seconds(m.params_b * 1e9, w.optimizer, gpu.memory_bw_gbs);
  if (dp <= 1) return s;
  const Link intra = intra_vm_link(gpu, gpu.interconnect_gbs > 0);
  Link link = intra;
  if (dp > per_node) {
    const auto ib = row.num("node_network_gbps");
    if (!ib || *ib <= 0)
      return invalid_argument("more GPUs than gpus_per_node need node_network_gbps");
    catalog::VmSize node;
    node.gpu_count = per_node;
    node.infiniband_gbps = *ib;
    link = data_parallel_link(intra, inter_vm_link(node), per_node);
  }
  // 16-bit gradients. DDP (dp_overlap yes, the default) all-reduces 25 MB
  // buckets during the backward pass; "no" (e.g. NVIDIA's BERT scripts,
  // allreduce_post_accumulation) one flat buffer after it.
  const double bytes = 2.0 * m.params_b * 1e9;
  if (overlap == "no") {
    s.t_allreduce = allreduce_seconds(bytes, dp, link);
    return s;
  }
  const double buckets = std::max(1.0, std::ceil(bytes / 25e6));
  const double t = buckets * allreduce_seconds(bytes / buckets, dp, link);
  const double fwd = forward_flops_per_token(m, w.data.seq_len);
  s.t_allreduce = std::max(0.0, t - (1.0 - fwd / f) * s.t_compute);
  return s;
}

// A training row's figure: the fitted MFU for the row's shape, less the
// pipeline bubble and, for pure data parallelism, the exposed all-reduce
// and optimizer time; then the metric the row names.
Result<double> predict_train(const Row& row, workload::Workload& w, const catalog::Gpu& gpu,
                             const std::string& metric) {
  const workload::Model& m = w.model;
  // Without seq_len, 2048 (the attention term is a few % of the FLOPs).
  const double seq = row.num("seq_len").value_or(2048);
  if (seq <= 0) return invalid_argument("seq_len must be positive");
  w.data.seq_len = static_cast<int>(seq);
  const double peak =
      train_peak_tflops(gpu, w.precision, m, w.data.seq_len, workload::Method::kFull, nullptr);
  double gpus = row.num("gpu_count").value_or(0);
  if (gpus <= 0) gpus = group_gpus(w, gpu);
  GPUPLAN_TRY(bool fused, row_fused_attention(row));
  TrainShape shape;
  shape.gpus = gpus;
  shape.fused_attention = fused;
  shape.matmul_derate = matmul_derate(gpu, w.precision);
  const auto tp = row.num("tp"), pp = row.num("pp");
  shape.data_parallel_only = tp && pp && *tp == 1 && *pp == 1;
  if (shape.data_parallel_only) {
    shape.micro_batch = row.num("batch").value_or(0) / gpus;
  } else if (tp && pp) {
    shape.micro_batch = 1;  // as pipeline_bubble() assumes
    shape.tp = static_cast<int>(std::max(1.0, *tp));
  }
  double mfu = train_mfu(peak, gpu.memory_bw_gbs, w.recompute, m, w.data.seq_len,
                         workload::Method::kFull, shape);
  GPUPLAN_TRY(double bubble, pipeline_bubble(row, gpus, m.layers));
  mfu *= 1 - bubble;
  // Stages of ⌈L/p⌉ layers where p does not divide L pace the pipeline.
  if (pp) mfu /= stage_imbalance(m.layers, static_cast<int>(*pp));
  if (shape.data_parallel_only && mfu > 0) {
    GPUPLAN_TRY(DataParallelStep st, data_parallel_step(row, w, gpu, gpus, peak, mfu));
    mfu *= st.t_compute / (st.t_compute + st.t_allreduce + st.t_optimizer);
  }
  const double flops = train_flops_per_token(m, w.data.seq_len, workload::Method::kFull);
  const double tokens_per_gpu = peak * 1e12 * mfu / flops;
  if (metric == "model_tflops_per_gpu") return peak * mfu;
  if (metric == "mfu_percent") return 100 * mfu;
  if (metric == "train_tokens_per_s_per_gpu") return tokens_per_gpu;
  if (metric == "total_gpu_hours") {
    const auto tokens = row.num("tokens_b");
    if (!tokens || *tokens <= 0) return invalid_argument("total_gpu_hours needs tokens_b");
    return *tokens * 1e9 / tokens_per_gpu / 3600.0;
  }
  return invalid_argument("metric '" + metric + "' is not a training metric");
}

// A figure at a continuous-batching point (max load, closed loop) of `in`
// + `out` tokens a request; none for a metric the point does not give.
std::optional<double> at_point(const MaxLoadPoint& p, const std::string& metric, double in,
                               double out) {
  if (metric == "output_tokens_per_s") return p.rps * out;
  if (metric == "requests_per_s") return p.rps;
  if (metric == "total_tokens_per_s") return p.rps * (in + out);
  if (metric == "tpot_ms") return 1000 * p.tpot_s;
  if (metric == "ttft_ms") return 1000 * p.ttft_s;
  return std::nullopt;
}

// An inference figure for one replica of `tp` GPUs (predict_infer below).
Result<double> predict_replica(const Row& row, const workload::Workload& w, const catalog::Gpu& gpu,
                               const std::string& metric, int tp, MaxLoadPoint* load) {
  GPUPLAN_TRY(ReplicaModel r, replica_model(w, gpu, gpu.interconnect_gbs > 0, tp));
  r.max_seqs = 0;  // a row states its engine's cap (max_seqs); memory decides where it does not
  // The lengths the figure was measured at: a blank one was read as 1 token
  // (an 8B model's max-load rate with both blank came out at 13,140 req/s
  // and counted in the medians). A TTFT needs the prompt; a batch-1 decode
  // rate reads its context from the prompt; everything else needs both.
  const auto clients = row.num("concurrency");
  if (!row.num("input_tokens"))
    return invalid_argument("metric '" + metric + "' needs input_tokens");
  if (!row.num("output_tokens") &&
      (clients || (metric != "ttft_ms" && metric != "decode_tokens_per_s_batch1")))
    return invalid_argument("metric '" + metric + "' needs output_tokens");
  const double batch = std::max(1.0, row.num("batch").value_or(1));
  const double in = std::max(1.0, row.num("input_tokens").value_or(1));
  const double out = std::max(1.0, row.num("output_tokens").value_or(1));
  if (clients) {
    // Closed-loop clients over the row's replicas (serving_model.cc,
    // closed_loop_point): continuous batching with that many in flight.
    if (row.num("batch"))
      return invalid_argument(
          "batch (a static batch) and concurrency (closed-loop clients) "
          "describe different runs: give one");
    const double replicas = std::max(1.0, row.num("gpu_count").value_or(1)) / tp;
    const MaxLoadPoint p = closed_loop_point(r, w.model, in, out, *clients / replicas,
                                             row.num("max_seqs").value_or(0));
    if (p.concurrency < 1) {
      return failed_precondition(p.memory_limit < 1
                                     ? "the KV cache holds no sequence of this length"
                                     : "fewer clients than replicas");
    }
    if (load) *load = p;
    if (const auto v = at_point(p, metric, in, out)) return *v;
    return invalid_argument("metric '" + metric + "' is not a closed-loop metric");
  }
  if (!row.num("batch") && metric != "ttft_ms" && metric != "decode_tokens_per_s_batch1") {
    // Max load: continuous batching at the KV-bound concurrency that
    // maximises throughput (serving_model.cc, max_load_point).
    LatencyRule rule;
    rule.ttft_s = row.num("ttft_limit_ms").value_or(0) / 1000;
    rule.tpot_s = row.num("tpot_limit_ms").value_or(0) / 1000;
    const MaxLoadPoint p =
        max_load_point(r, w.model, in, out, row.num("max_seqs").value_or(0), rule);
    if (p.concurrency < 1) {
      if (rule.ttft_s > 0 || rule.tpot_s > 0)
        return failed_precondition("no concurrency keeps the row's latency limits");
      return failed_precondition("the KV cache holds no sequence of this length");
    }
    if (load) *load = p;
    if (const auto v = at_point(p, metric, in, out)) return *v;
  }
  if (metric == "decode_tokens_per_s_batch1") return 1.0 / r.decode_step_seconds(1, in + out / 2);
  // A batch whose KV cache does not fit runs as the sequences that do: a
  // paged engine (lmdeploy, vLLM) admits those and queues the rest, so the
  // batch runs in waves of that size, each wave's sequences growing in step
  // to input + output tokens (lmdeploy's Llama-2-7B at 64 x 2,048 + 2,048
  // tokens on one A100 80 GB, 512 KiB a token: 30 at a time). A run that
  // fits is unchanged.
  const double limit = kv_sequence_limit(r, w.model, in, out);
  const double running = limit >= 1 ? std::min(batch, limit) : batch;
  if (running < batch && load) {
    load->concurrency = running;
    load->memory_limit = limit;
  }
  if (metric == "tpot_ms") return 1000 * r.decode_step_seconds(running, in + out / 2);
  // Static batching: prefill all sequences in one pass (weights read once),
  // which is every sequence's first token (batch 1: prefill_seconds); then
  // `out` decode steps; the KV context grows linearly, so the sum of the
  // steps equals out x the step at the mean context.
  const double compute =
      (r.flops_per_token * in + r.attn_flops_per_token_ctx * in * in / 2) / r.flops_per_s;
  const double prefill = running * compute + r.weight_bytes / r.bytes_per_s + r.step_overhead_s +
                         r.tp_comm_seconds(running * in);
  if (metric == "ttft_ms") return 1000 * prefill;
  if (metric == "output_tokens_per_s") {
    const double decode = out * r.decode_step_seconds(running, in + (out - 1) / 2);
    return running * out / (prefill + decode);
  }
  return invalid_argument("metric '" + metric + "' is not an inference metric");
}

// How an inference row's GPUs were read: replicas of `tp` GPUs each, and
// whether that size was chosen for the most throughput (a max-load row
// without a `tp` column) rather than stated or implied.
struct ReplicaLayout {
  int tp = 0;
  bool tuned = false;
};

// An inference row's figure from the replica model: at the max-load point
// when the row gives no batch, else at its batch (static batching).
// The row's `tp` says how its gpu_count GPUs serve: gpu_count / tp replicas
// of tp GPUs each side by side (data parallel, as MLPerf and throughput
// benchmarks run 8 GPUs), the batch and max_seqs each replica's (an
// engine's own), throughputs adding up. Without it, a max-load throughput
// (a run tuned for the most throughput: MLPerf Offline publishes no layout,
// and its submitters run a 70 B model on 8 H100s as 2-GPU replicas, not one
// 8-GPU one) is read at the tensor-parallel size, within a node
// (`gpus_per_node`, 8), whose replicas give the most (*layout says which);
// any other row runs its gpu_count GPUs as one replica. A metric ending in
// _per_gpu is the whole system's divided by gpu_count (TensorRT-LLM's tables
// report tokens/s/GPU).
Result<double> predict_infer(const Row& row, const workload::Workload& w, const catalog::Gpu& gpu,
                             const std::string& metric_in, MaxLoadPoint* load,
                             ReplicaLayout* layout) {
  const int gpus = std::max(1, static_cast<int>(row.num("gpu_count").value_or(1)));
  int tp = gpus;
  const auto stated_tp = row.num("tp");
  if (stated_tp) {
    const double t = *stated_tp;
    if (t < 1 || t != std::floor(t) || gpus % static_cast<int>(t) != 0)
      return invalid_argument("tp " + strings::fixed(t, 0) + " does not divide gpu_count " +
                              std::to_string(gpus));
    tp = static_cast<int>(t);
  }
  constexpr std::string_view kPerGpu = "_per_gpu";
  const bool per_gpu = metric_in.ends_with(kPerGpu);
  const std::string metric =
      per_gpu ? metric_in.substr(0, metric_in.size() - kPerGpu.size()) : metric_in;
  const bool rate = metric == "output_tokens_per_s" || metric == "requests_per_s" ||
                    metric == "total_tokens_per_s";
  if (per_gpu && !rate)
    return invalid_argument("metric '" + metric_in + "': only throughputs come per GPU");
  // Replicas side by side multiply a throughput; latencies are one replica's.
  const auto scale = [&](int t) {
    return rate ? static_cast<double>(gpus) / t / (per_gpu ? gpus : 1) : 1.0;
  };
  // A precision the GPU's serving stacks do not run (fp8 on a V100) is no
  // measurement of this model: estimate refuses it, so must the check.
  if (std::string why = precision_unsupported(gpu, w); !why.empty()) return invalid_argument(why);
  if (stated_tp || !rate || row.num("batch") || row.num("concurrency")) {
    GPUPLAN_TRY(const double one, predict_replica(row, w, gpu, metric, tp, load));
    if (layout) *layout = {tp, false};
    return one * scale(tp);
  }
  // The tuned layout: every tensor-parallel size that divides gpu_count
  // within a node, the most throughput among those whose weights fit; a
  // model that fits none runs as one replica of all the GPUs, as before
  // (whose error, with the most memory, says why when that fails too).
  const int node = std::max(1, static_cast<int>(row.num("gpus_per_node").value_or(8)));
  double best = -1;
  for (int t = 1; t <= std::min(gpus, node); ++t) {
    if (gpus % t != 0) continue;
    MaxLoadPoint at;
    const Result<double> one = predict_replica(row, w, gpu, metric, t, &at);
    if (one && *one * scale(t) > best) {
      best = *one * scale(t);
      if (load) *load = at;
      if (layout) *layout = {t, true};
    }
  }
  if (best >= 0) return best;
  GPUPLAN_TRY(const double one, predict_replica(row, w, gpu, metric, gpus, load));
  if (layout) *layout = {gpus, false};
  return one * scale(gpus);
}

// A row's kind, "train" or "infer", from the words files use for them
// (case folded): train, training, pretrain, pretraining; infer, inference,
// serve, serving. Anything else comes back as written.
std::string row_kind(const Row& row) {
  std::string k = strings::to_lower(strings::trim(row.get("kind")));
  if (k == "training" || k == "pretrain" || k == "pretraining") return "train";
  if (k == "inference" || k == "serve" || k == "serving") return "infer";
  return k;
}

// The numeric columns a row may fill, and the values that describe a real
// run: a row with gpu_count 0, seq_len 1e11, params_b -7, tp 0 or
// node_network_gbps nan was predicted from (74.2, -0.000187 TFLOP/s ...);
// it is skipped naming the column instead.
Status check_columns(const Row& row) {
  struct Range {
    const char* column;
    double lo, hi;
    bool whole;
  };
  static constexpr Range kRanges[] = {
      {"params_b", 1e-3, 1e5, false},
      {"layers", 1, 1e4, true},
      {"hidden", 1, 1e6, true},
      {"heads", 1, 1e5, true},
      {"kv_heads", 1, 1e5, true},
      {"ffn_hidden", 1, 1e7, true},
      {"vocab", 1, 1e8, true},
      {"seq_len", 1, 1e7, true},
      {"gpu_count", 1, 1e6, true},
      {"batch", 1, 1e8, false},
      {"input_tokens", 1, 1e7, false},
      {"output_tokens", 1, 1e7, false},
      {"tokens_b", 1e-9, 1e6, false},
      {"max_seqs", 1, 1e7, true},
      {"concurrency", 1, 1e8, false},
      {"experts", 1, 1e5, true},
      {"experts_active", 1, 1e5, true},
      {"tp", 1, 1024, true},
      {"pp", 1, 1024, true},
      {"vpp", 1, 1024, true},
      {"gpus_per_node", 1, 1024, true},
      {"node_network_gbps", 1e-3, 1e6, false},
      {"ttft_limit_ms", 1e-3, 1e7, false},
      {"tpot_limit_ms", 1e-3, 1e7, false},
  };
  for (const Range& c : kRanges) {
    const std::string text = row.get(c.column);
    if (text.empty()) continue;
    const auto v = strings::parse_double(text);
    if (!v || !std::isfinite(*v) || *v < c.lo || *v > c.hi || (c.whole && *v != std::floor(*v))) {
      return invalid_argument(std::string(c.column) + " '" + text + "' is not " +
                              (c.whole ? "a whole number" : "a number") + " in [" +
                              strings::fixed(c.lo, c.lo < 1 ? 3 : 0) + ", " +
                              strings::fixed(c.hi, 0) + "]");
    }
  }
  return {};
}

Result<double> predict(const Row& row, const catalog::Catalog& catalog, MaxLoadPoint* load,
                       std::string* gpu_read_as, ReplicaLayout* layout) {
  GPUPLAN_RETURN_IF_ERROR(check_columns(row));
  const std::string kind = row_kind(row);
  const std::string metric = row.get("metric");
  const std::string gpu_name = row.get("gpu");
  GPUPLAN_TRY(const catalog::Gpu* gpu, catalog.resolve_gpu(gpu_name));
  if (gpu_read_as && !catalog.find_gpu(gpu_name)) *gpu_read_as = gpu->model;
  GPUPLAN_TRY(workload::Model m, row_model(row));
  GPUPLAN_TRY(workload::Precision prec, row_precision(row));
  workload::Workload w;
  w.model = m;
  w.precision = prec;
  w.recompute = row_recompute(row);
  w.zero_stage = 1;
  std::string note;
  const double peak = peak_tflops(*gpu, prec, &note);
  if (peak <= 0 || gpu->memory_bw_gbs <= 0) {
    return invalid_argument("no " + row.get("precision") + " rate for " + gpu_name);
  }

  if (kind == "train") return predict_train(row, w, *gpu, metric);
  if (kind != "infer")
    return invalid_argument("unknown kind '" + row.get("kind") + "' (train or infer)");
  // The engine's KV-cache type, where the row states it (`kv_cache`):
  // otherwise 1 byte with fp8 weights (TensorRT-LLM's FP8 cache), else 2.
  // Its name is a precision's (fp8's two formats, e4m3 and e5m2, named too).
  if (std::string kv = strings::to_lower(row.get("kv_cache")); !kv.empty()) {
    if (kv == "fp8_e4m3" || kv == "fp8_e5m2") kv = "fp8";
    const auto p = workload::precision_named(kv);
    if (!p || *p == workload::Precision::kInt4)
      return invalid_argument("kv_cache '" + row.get("kv_cache") +
                              "' (fp8, fp8_e4m3, fp8_e5m2, int8, bf16, fp16 or fp32)");
    w.overrides["serving_kv_cache_bytes"] = workload::bytes_per_value(*p);
  }
  return predict_infer(row, w, *gpu, metric, load, layout);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

Result<Validation> validate(const csv::Table& table, const catalog::Catalog& catalog) {
  for (const std::string& col : kRequired) {
    if (!table.column(col)) {
      return invalid_argument("missing column '" + col +
                                  "' (expected the schema of "
                                  "tests/data/published_measurements.csv)",
                              Where{table.file, 1, 0, col});
    }
  }
  Validation v;
  std::map<std::string, std::vector<double>> errors, groups, by_source;
  std::map<std::pair<std::string, std::string>, int> read_as_rows;
  std::vector<std::string> chosen_tp;
  for (const csv::Row& r : table.rows) {
    Row row{table, r};
    const std::string id = row.get("id").empty() ? "line " + std::to_string(r.line) : row.get("id");
    // Every skip names the row's line: ids repeat, or are blank. A value of
    // 1e308 made the medians inf; none measured is near 1e12.
    const std::string line = "line " + std::to_string(r.line) + ": ";
    const auto published = row.num("value");
    if (!published || !std::isfinite(*published) || *published <= 0 || *published > 1e12) {
      v.skipped.push_back(
          {id, line + "value '" + row.get("value") + "' is not a positive number up to 1e12"});
      continue;
    }
    MaxLoadPoint load;
    std::string read_as;
    ReplicaLayout layout;
    auto p = predict(row, catalog, &load, &read_as, &layout);
    if (!p) {
      v.skipped.push_back({id, line + p.error().message});
      continue;
    }
    ValidationRow out;
    out.id = id;
    out.metric = row.get("metric");
    out.predicted = *p;
    out.published = *published;
    out.error_percent = 100.0 * (*p - *published) / *published;
    out.concurrency = load.concurrency;
    out.memory_limit = load.memory_limit;
    out.tp = layout.tp;
    if (layout.tuned && layout.tp < row.num("gpu_count").value_or(1))
      chosen_tp.push_back(id + " tp" + std::to_string(layout.tp));
    errors[out.metric].push_back(std::abs(out.error_percent));
    const std::string set = strings::to_lower(row.get("set"));
    const bool original = set.empty() || set == "original";
    const std::string kind = row_kind(row) == "train" ? "training rows" : "serving rows";
    groups[kind + ", " + (original ? "original" : "new")].push_back(std::abs(out.error_percent));
    by_source["source: " + id.substr(0, id.find('-'))].push_back(std::abs(out.error_percent));
    if (!read_as.empty()) ++read_as_rows[{row.get("gpu"), read_as}];
    v.rows.push_back(std::move(out));
  }
  for (const auto& [names, n] : read_as_rows) {
    v.notes.push_back("GPU '" + names.first + "' read as the catalog's " + names.second + " (" +
                      std::to_string(n) + (n == 1 ? " row)" : " rows)"));
  }
  if (!chosen_tp.empty()) {
    std::string list;
    for (const std::string& s : chosen_tp) list += (list.empty() ? "" : ", ") + s;
    v.notes.push_back(
        "max-load rows without a tp column, read as replicas of the tensor-parallel size that "
        "serves the most: " +
        list);
  }
  for (auto& [metric, errs] : errors) {
    v.summary.push_back({metric, static_cast<int>(errs.size()), median(errs)});
  }
  for (auto* m : {&groups, &by_source}) {
    for (auto& [name, errs] : *m) {
      v.groups.push_back({name, static_cast<int>(errs.size()), median(errs)});
    }
  }
  return v;
}

}  // namespace gpuplan::estimate
