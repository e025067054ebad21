// The estimator's top level: one workload on `count` VMs of one size.
//
// Problem: answer, for each candidate (size, count), "does it fit, in which
// parallel layout, how fast, how long" — fast enough that the planner can
// ask for every size × count 1..64 — and say what it assumed.
//
// Approach:
//  1. Effective GPU: the catalog's GPU with the VM's share of it (vGPU slices
//     such as NV6ads_A10_v5 get 1/6 of the rates and the VM's memory).
//  2. train/finetune: search layouts tp × pp × dp = GPUs, tp within one VM
//     (dividing the heads), pp across the rest; take the smallest
//     model-parallel degree tp·pp whose memory (memory_model.cc) fits,
//     preferring tensor parallelism when the VM has NVLink and pipeline
//     parallelism over PCIe. Time per token comes from the MFU model
//     (throughput_model.cc) plus explicit, unfitted costs of the layout:
//       - tensor-parallel all-reduces over PCIe when the VM has no NVLink
//         (4 all-reduces of h 16-bit values per layer per token, Shoeybi et
//         al. 2019 §3; ring all-reduce moves 2(t-1)/t of the buffer);
//       - data-parallel gradient all-reduce (ZeRO-3 moves 1.5x, Rajbhandari
//         et al. 2020 §7) over NVLink/PCIe inside a VM or InfiniBand/Ethernet
//         across VMs, hidden behind the backward pass (2/3 of the compute)
//         where it fits;
//       - the 1F1B pipeline bubble (p-1)/m with m micro-batches per step
//         (Narayanan et al. 2021 §2.2).
//  3. infer: per tensor-parallel degree, the replica model and the serving
//     operating point (serving_model.cc); choose the degree with the most
//     requests/s per GPU; replicas needed = ceil(rate / capacity).
//  4. batch: items/hour = 3600 / seconds_per_item × (rate of this GPU / rate
//     of the reference GPU) at the workload's bounding resource.
// Everything printed as an assumption can be overridden in the workload's
// `assumptions:` block.
//
// Files: this one holds the effective device, serving (3), batch (4) and the
// entry points; estimate_train.cc holds training and fine-tuning (2); they
// share internal/estimate_ctx.h.
#include "estimate/estimate.h"

#include <algorithm>
#include <cmath>

#include "core/strings.h"
#include "estimate/internal/estimate_ctx.h"
#include "estimate/internal/physics.h"
#include "workload/models.h"

namespace gpuplan::estimate {

using namespace internal;
using strings::fixed;
using workload::Kind;

namespace internal {

Device device(const catalog::VmSize& size, const catalog::Gpu& gpu) {
  Device d;
  d.gpu = gpu;
  d.per_vm = size.gpu_count > 0 ? size.gpu_count : 1;
  if (d.per_vm < 1) {
    const double f = d.per_vm;
    for (double* x :
         {&d.gpu.fp32_tflops, &d.gpu.tf32_tflops, &d.gpu.fp16_tflops, &d.gpu.bf16_tflops,
          &d.gpu.fp8_tflops, &d.gpu.int8_tops, &d.gpu.memory_bw_gbs}) {
      *x *= f;
    }
    d.whole_per_vm = 1;
    d.memory_gib = size.gpu_memory_gib > 0 ? size.gpu_memory_gib : gpu.memory_gib * f;
  } else {
    d.whole_per_vm = static_cast<int>(std::lround(d.per_vm));
    d.memory_gib = size.gpu_memory_gib > 0 ? size.gpu_memory_gib / d.per_vm : gpu.memory_gib;
  }
  d.gpu.memory_gib = d.memory_gib;
  return d;
}

double override_or(const workload::Workload& w, const char* name, double fallback) {
  auto it = w.overrides.find(name);
  return it == w.overrides.end() ? fallback : it->second;
}

double usable_gib(const workload::Workload& w, double device_gib) {
  return device_gib * (1.0 - override_or(w, "memory_headroom", kHeadroom));
}

std::string gib(double v) { return fixed(v, 1) + " GiB"; }

namespace {

// The AMD targets vLLM builds for (installation docs, "GPU" requirements).
bool vllm_amd_target(const std::string& gfx) {
  for (const char* t : {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1200", "gfx1201",
                        "gfx1150", "gfx1151"})
    if (gfx == t) return true;
  return false;
}

// Why the serving engine runs no `w` on `gpu` (empty: it does); see the
// header for the sources.
std::string serving_unsupported(const catalog::Gpu& gpu, const workload::Workload& w) {
  using workload::Precision;
  const std::string what = std::string(workload::to_string(w.precision));
  const std::optional<double> cc = strings::parse_double(gpu.compute_capability);
  const bool nvidia = gpu.vendor == "NVIDIA", amd = gpu.vendor == "AMD";
  const bool mxfp4 = w.precision == Precision::kInt4 &&
                     (w.model.expert_bits > 0 || w.model.released_format == "mxfp4");
  const std::string named =
      gpu.model + " (" + (nvidia ? "compute capability " : "") + gpu.compute_capability + ")";
  if (w.kind == Kind::kInfer) {
    if (nvidia && cc && *cc < 7.0)
      return named +
             " runs no vLLM: it needs compute capability 7.0 or higher (V100, T4, A10, "
             "A100, H100 and newer)";
    if (amd && !vllm_amd_target(gpu.compute_capability))
      return named +
             " runs no vLLM: its ROCm builds target MI200, MI300, MI350 and Radeon RX "
             "7900 / 9000 class GPUs (gfx90a, gfx942, gfx950, gfx1100/1101, "
             "gfx1200/1201)";
  }
  switch (w.precision) {
    case Precision::kFp8:
      if (nvidia && cc && *cc < 7.5)
        return named +
               " runs no fp8 weights: vLLM serves fp8 on FP8 tensor cores from 8.9 and "
               "weight-only (FP8 Marlin) from 7.5; serve it in fp16, or int4 (GPTQ)";
      if (amd && gpu.fp8_tflops <= 0)
        return named +
               " has no FP8: vLLM's FP8 (W8A8) on AMD needs an MI300-class GPU; serve "
               "it in bf16";
      return "";
    case Precision::kInt4:
      if (mxfp4) {
        if (nvidia && cc && *cc < 8.0)
          return named + " runs no MXFP4 experts (" + w.model.name +
                 "): vLLM's MXFP4 MoE kernels (Marlin) need Ampere (8.0) or newer";
        if (amd && gpu.compute_capability != "gfx942" && gpu.compute_capability != "gfx950" &&
            gpu.compute_capability != "gfx1201")
          return named + " runs no MXFP4 experts (" + w.model.name +
                 "): vLLM serves them on MI300X, MI325X, MI355X and Radeon AI PRO R9700";
        return "";
      }
      if (nvidia && cc && *cc < 7.5 && w.model.released_format == "awq")
        return named +
               " runs no AWQ weights: vLLM's AWQ kernels need Turing (7.5) or newer; a "
               "GPTQ upload of the model runs on Volta";
      [[fallthrough]];
    case Precision::kInt8:
      if (amd)
        return named + " runs no " + what +
               " weights in vLLM (AWQ, GPTQ and INT8 W8A8 kernels are NVIDIA's); serve it in " +
               (gpu.fp8_tflops > 0 ? "fp8 or bf16" : "bf16");
      return "";
    default:
      return "";
  }
}

}  // namespace

std::string precision_unsupported(const catalog::Gpu& gpu, const workload::Workload& w) {
  const Kind kind = w.kind;
  // Serving, and adapters on a frozen base: quantised weights, read
  // weight-only where the GPU has no tensor cores for their format.
  const bool frozen = kind == Kind::kFinetune && w.method != workload::Method::kFull;
  if (kind == Kind::kInfer || (frozen && w.precision == workload::Precision::kFp8))
    return serving_unsupported(gpu, w);
  if (w.precision != workload::Precision::kFp8) return "";
  if (kind == Kind::kTrain || kind == Kind::kFinetune) {  // full: gradients in fp8 matmuls
    if (gpu.fp8_tflops <= 0)
      return gpu.model +
             " has no FP8 tensor cores: fp8 training (Transformer Engine) needs "
             "Ada, Hopper or newer (or an AMD GPU with an FP8 rate); train in bf16";
  }
  return "";
}

void add_common(const Ctx& c, const std::string& rate_note, double peak) {
  const workload::Model& m = c.w.model;
  if (c.w.kind != Kind::kBatch) {
    c.add("model",
          m.name + ": " + fixed(m.params_b, 2) + " B params" +
              (m.experts > 1 ? " (" + fixed(m.active_params_b, 2) + " B active)" : "") + ", " +
              std::to_string(m.layers) + " layers, hidden " + std::to_string(m.hidden) + ", " +
              std::to_string(m.heads) + " heads" +
              (m.head_dim > 0 ? " of " + std::to_string(m.head_dim) : "") +
              (workload::latent_attention(m)
                   ? ", a " + std::to_string(m.kv_lora_rank) + " + " +
                         std::to_string(m.rope_head_dim) + " latent cached (every rank holds it)"
                   : " / " + std::to_string(m.kv_heads) + " KV heads"),
          m.params_only ? "shape derived from params_b (h/l = 128, ffn = 4h; docs/workload.md)"
                        : m.source);
    c.add("precision", std::string(workload::to_string(c.w.precision)), c.w.precision_source);
  }
  c.add("gpu_peak",
        c.dev.gpu.model + " " + rate_note + ": " + fixed(peak, 1) + " TFLOP/s" +
            (c.dev.per_vm < 1 ? " (x" + fixed(c.dev.per_vm, 4) + " slice)" : ""),
        c.dev.gpu.source.empty() ? "catalog" : c.dev.gpu.source);
  if (const MatmulCeiling mc = matmul_ceiling(c.dev.gpu, c.w.precision);
      c.w.kind != Kind::kBatch && mc.share > 0) {
    const bool borrowed = c.w.precision == workload::Precision::kFp8 && !mc.fp8;
    const char* knob = c.w.kind == Kind::kInfer ? "serving_compute_efficiency" : "mfu";
    std::string text =
        fixed(mc.share * 100, 1) + " % of the " + (mc.fp8 ? "FP8" : "16-bit") + " peak" +
        (borrowed ? " (no FP8 figure: the 16-bit one stands for it)" : "") +
        "; the fitted efficiencies hold for " + fixed(mc.fit_low * 100, 1) + "-" +
        fixed(mc.fit_high * 100, 1) + (mc.fp8 ? " % (H100, H200)" : " % (A100, H100)") +
        ", so matmuls run at x" + fixed(mc.derate(), 2);
    text += c.w.overrides.count(knob) ? " (not applied: " + std::string(knob) + " is overridden)"
                                      : " (override " + std::string(knob) + ")";
    c.add("gpu_matmul_ceiling", text,
          "maximum achievable matmul FLOPS measured by ml-engineering (data/catalog/gpus.csv "
          "notes; docs/estimator.md)");
  }
  c.add("gpu_memory_bandwidth", fixed(c.dev.gpu.memory_bw_gbs, 0) + " GB/s",
        c.dev.gpu.source.empty() ? "catalog" : c.dev.gpu.source);
  c.add("gpu_memory", gib(c.dev.memory_gib) + " per GPU",
        c.size.source.empty() ? "catalog (VM size)" : c.size.source);
  if (c.size.notes.rfind("UNVERIFIED", 0) == 0)
    c.add("size_row", "unverified: " + c.size.notes, "data/catalog/sizes.csv");
}

void add_memory(const Ctx& c) {
  const workload::Workload& w = c.w;
  if (w.kind != Kind::kBatch)
    c.add("memory_overhead_gib", fixed(override_or(w, "memory_overhead_gib", kOverheadGiB), 1),
          w.overrides.count("memory_overhead_gib")
              ? "override (workload file)"
              : "CUDA context + NCCL + allocator (docs/estimator.md)");
  c.add("memory_headroom", fixed(override_or(w, "memory_headroom", kHeadroom) * 100, 0) + " %",
        w.overrides.count("memory_headroom") ? "override (workload file)"
                                             : "allocator fragmentation (docs/estimator.md)");
}

}  // namespace internal

ServingLayout choose_serving_layout(const workload::Workload& w, const catalog::Gpu& gpu,
                                    bool nvlink, int gpus_per_vm) {
  ServingLayout out;
  int best_tp = 0;  // < 0: the smallest layout that holds the weights, missing the SLOs
  double best_per_gpu = 0;
  double closest_miss = 0;  // SLO-missing layouts: batch 1's latency over the SLO, the least
  for (int tp = 1; tp <= gpus_per_vm; tp *= 2) {
    if (gpus_per_vm % tp != 0 || !workload::serving_tensor_parallel_fits(w.model, tp)) continue;
    auto r = replica_model(w, gpu, nvlink, tp);
    if (!r) {
      out.why_not = r.error().message;
      continue;
    }
    const ServingPoint p = best_serving_point(*r, w);
    if (p.batch < 1) {
      // Quote the layout that comes closest to the SLO (the widest, as a
      // rule: tp=8 is ~3x faster than tp=1 on a 70B), not the first tried.
      const ServingPoint one = serving_point_at(*r, w, 0);
      const double over =
          std::max(w.serving.ttft_ms > 0 ? one.ttft_s * 1000 / w.serving.ttft_ms : 0.0,
                   w.serving.tpot_ms > 0 ? one.tpot_s * 1000 / w.serving.tpot_ms : 0.0);
      if (out.why_not.empty() || best_tp == 0 || over < closest_miss) {
        closest_miss = over;
        out.why_not = "misses the SLO even at batch 1 with tp=" + std::to_string(tp) + " (TTFT " +
                      fixed(one.ttft_s * 1000, 0) + " ms, TPOT " + fixed(one.tpot_s * 1000, 1) +
                      " ms)";
      }
      if (best_tp == 0) {
        best_tp = -tp;
        out.model = *r;
      }
      continue;
    }
    const double per_gpu = p.rps / tp;
    if (best_tp <= 0 || per_gpu > best_per_gpu) {
      best_tp = tp;
      best_per_gpu = per_gpu;
      out.model = *r;
      out.batch_at_slo = p.batch;
      out.rps_per_replica = p.rps;
    }
  }
  out.tp = std::abs(best_tp);
  out.meets_slo = best_tp > 0;
  if (out.meets_slo) out.why_not.clear();
  return out;
}

namespace {

// No layout of this VM holds the weights: the estimate says so, with the
// weights spread over every GPU of one VM as the memory shown.
void no_serving_layout(const Ctx& c, int per_vm, const std::string& why_not) {
  const workload::Workload& w = c.w;
  Estimate& e = c.e;
  e.fits = false;
  e.reason = why_not.empty() ? "the model does not fit" : why_not;
  e.layout = {per_vm, 1, c.count};
  e.memory.weights = weight_bytes(w.model, w.precision) / kGiB / per_vm;
  e.memory.overhead = override_or(w, "memory_overhead_gib", kOverheadGiB);
  e.memory_needed_gib = e.memory.total();
  // A replica is tensor parallel within one VM (serving_model.cc): more VMs
  // add replicas, not room for one. When the weights are what does not fit
  // (not the heads or the link), say what would help.
  if (e.memory_needed_gib > usable_gib(w, c.dev.memory_gib)) {
    const bool narrow = w.precision == workload::Precision::kFp8 ||
                        w.precision == workload::Precision::kInt8 ||
                        w.precision == workload::Precision::kInt4;
    e.reason += std::string("; more VMs add replicas, not room for one: ") +
                (narrow ? "" : "a smaller precision (fp8 halves bf16 weights) or ") +
                "a size with more GPU memory per VM would";
  }
  // No serving figures: no replica exists to have them (zeros read as
  // results, "TTFT 0 ms", in the text and the JSON alike).
  e.serving.reset();
}

// The assumptions behind a serving estimate (--explain): the request mix
// and SLOs, the KV cache, the fitted efficiencies, the tensor-parallel link,
// the concurrency Little's law gives and the utilization knee.
void explain_infer(const Ctx& c, const ServingEstimate& s, const ReplicaModel& model, int tp,
                   double peak, double rate) {
  const workload::Workload& w = c.w;
  c.add("request_rate", fixed(rate, 2) + " req/s",
        w.serving.request_rate_source.empty() ? "workload file" : w.serving.request_rate_source);
  c.add("tokens",
        "input mean " + fixed(w.serving.input_tokens.mean, 0) + " (p" +
            fixed(w.serving.percentile, 0) + " " + fixed(input_tokens_at_percentile(w), 0) +
            "), output mean " + fixed(w.serving.output_tokens.mean, 0),
        "workload file");
  c.add("slo",
        "TTFT " + (w.serving.ttft_ms > 0 ? fixed(w.serving.ttft_ms, 0) + " ms" : "none") +
            ", TPOT " + (w.serving.tpot_ms > 0 ? fixed(w.serving.tpot_ms, 0) + " ms" : "none") +
            " at p" + fixed(w.serving.percentile, 0),
        "workload file");
  // Per token of a replica, copies over its ranks included.
  const double copies = workload::kv_replication(w.model, tp);
  // The copies before any parenthesis: the short output ends a source there.
  std::string kv_formula = workload::latent_attention(w.model)
                               ? "layers·(kv_lora_rank + rope_head_dim)·bytes"
                               : "2·layers·kv_heads·head_dim·bytes";
  if (copies > 1) kv_formula += ", x" + fixed(copies, 0) + ": a copy on every rank";
  if (!workload::latent_attention(w.model)) kv_formula += " (GQA-aware)";
  c.add("kv_cache_per_token", fixed(model.kv_bytes_per_token / 1024, 1) + " KiB",
        w.overrides.count("serving_kv_cache_bytes")
            ? "override (workload file): serving_kv_cache_bytes"
            : kv_formula);
  if (const workload::LocalAttention& a = model.local; a.share > 0) {
    const double context = w.serving.input_tokens.mean + w.serving.output_tokens.mean;
    c.add("local_attention",
          std::to_string(w.model.sliding_layers) + " of " + std::to_string(w.model.layers) +
              " layers attend over the last " + std::to_string(w.model.sliding_window) +
              " tokens: a sequence of " + fixed(context, 0) + " tokens caches " +
              fixed(a.cached_tokens(context), 0) + " tokens' worth",
          "the model's sliding_window / chunk (" +
              (w.model.source.empty() ? std::string("workload file") : w.model.source) +
              "); engines keep only the window for those layers (vLLM hybrid KV cache manager, "
              "TensorRT-LLM per-window pools)");
  }
  add_memory(c);
  c.add("serving_efficiency",
        "compute " + fixed(model.flops_per_s / (peak * 1e12 * tp) * 100, 0) +
            " % of peak, bandwidth " +
            fixed(model.bytes_per_s / (c.dev.gpu.memory_bw_gbs * 1e9 * tp) * 100, 0) + " %",
        w.overrides.count("serving_compute_efficiency") ||
                w.overrides.count("serving_bandwidth_efficiency")
            ? "override (workload file)"
            : "fitted to TensorRT-LLM / lmdeploy measurements (docs/estimator.md)");
  if (const std::optional<std::string> gap = measured_serving_gap(w))
    c.add("measured_gap", *gap, "docs/estimator.md, engine-lab and DeepSeek-R1 rows");
  if (tp > 1) {
    const Link link = intra_vm_link(c.dev.gpu, c.size.nvlink);
    c.add("tensor_parallel_link",
          link.name + ": " + fixed(model.tp_comm_seconds(1) * 1e3, 2) +
              " ms of all-reduces per decode step at batch 1",
          "2 all-reduces/layer (Shoeybi et al. 2019 §3); NCCL ring latency + bandwidth "
          "(tuning.cc); " +
              link.source);
  }
  c.add("serving_max_seqs", fixed(model.max_seqs, 0) + " sequences in flight per replica at most",
        w.overrides.count("serving_max_seqs") != 0
            ? "workload file (overrides)"
            : "vLLM V1's --max-num-seqs default (get_batch_defaults(): 1,024 on GPUs of 70 GiB "
              "or more other than the A100, else 256); overridable: serving_max_seqs");
  c.add("concurrency",
        fixed(s.concurrency, 1) + " sequences in flight per replica at " +
            fixed(rate / std::max(1, std::max(s.replicas, s.replicas_needed)), 2) + " req/s",
        "Little's law, concurrency = rate x (TTFT + (output - 1) x TPOT), solved as a fixed point");
  c.add("serving_max_utilization", fixed(kServingMaxUtilization * 100, 0) + " %",
        "queueing knee (M/D/1); queueing delay itself: gpuplan simulate");
  c.add("duration_hours", fixed(c.e.hours, 0), "workload file (serving.duration_hours)");
}

void estimate_infer(const Ctx& c) {
  const workload::Workload& w = c.w;
  Estimate& e = c.e;
  e.throughput_unit = "requests/s";
  e.hours = w.serving.duration_hours;
  e.memory_available_gib = usable_gib(w, c.dev.memory_gib);
  std::string rate_note;
  const double peak = peak_tflops(c.dev.gpu, w.precision, &rate_note);
  if (c.explain) add_common(c, rate_note, peak);
  if (std::string why = precision_unsupported(c.dev.gpu, w); !why.empty()) {
    e.reason = std::move(why);
    e.unsupported = true;
    return;
  }
  if (peak <= 0 || c.dev.gpu.memory_bw_gbs <= 0) {
    // As replica_model() says it (serving_model.cc), before any layout.
    e.reason = "GPU " + c.dev.gpu.model + " has no known " +
               std::string(workload::to_string(w.precision)) + " rate or memory bandwidth";
    e.unsupported = true;
    return;
  }

  const int per_vm = c.dev.whole_per_vm;
  const ServingLayout layout = choose_serving_layout(w, c.dev.gpu, c.size.nvlink, per_vm);
  struct Choice {
    int tp = 0;  // < 0: the smallest layout that holds the weights, missing the SLOs
    ReplicaModel model;
    ServingPoint best;
  };
  Choice choice{layout.meets_slo ? layout.tp : -layout.tp, layout.model, {}};
  if (layout.tp > 0) {
    choice.best = layout.meets_slo ? best_serving_point(layout.model, w)
                                   : serving_point_at(layout.model, w, 0);
  }
  const std::string why_not = layout.why_not;
  ServingEstimate s;
  if (choice.tp == 0) {
    no_serving_layout(c, per_vm, why_not);
    return;
  }
  const bool slo_ok = choice.tp > 0;
  const int tp = std::abs(choice.tp);
  const int replicas_per_vm = std::max(1, per_vm / tp);
  s.gpus_per_replica = tp;
  s.replicas = replicas_per_vm * c.count;
  s.max_batch = choice.model.max_batch(w.serving.input_tokens.mean + w.serving.output_tokens.mean);
  s.batch_at_slo = slo_ok ? choice.best.batch : 0;
  s.capacity_rps_per_replica = slo_ok ? choice.best.rps : 0;
  const double rate = w.serving.request_rate;
  if (slo_ok) {
    const double needed = std::ceil(rate / s.capacity_rps_per_replica - 1e-9);
    s.replicas_needed = static_cast<int>(std::clamp(needed, 1.0, 1e9));
    s.vms_needed =
        s.replicas_needed / replicas_per_vm + (s.replicas_needed % replicas_per_vm ? 1 : 0);
    s.meets_slo = s.replicas >= s.replicas_needed;
    // TTFT and TPOT at the concurrency the rate implies (Little's law) on
    // the replicas that serve it: these VMs' when they are enough, else the
    // replicas needed.
    const double load = rate / std::max(s.replicas, s.replicas_needed);
    const ServingPoint at = serving_point_at(choice.model, w, load);
    s.concurrency = at.batch;
    s.ttft_ms = at.ttft_s * 1000;
    s.tpot_ms = at.tpot_s * 1000;
    e.memory.kv_cache = at.batch *
                        choice.model.local.cached_tokens(w.serving.input_tokens.mean +
                                                         w.serving.output_tokens.mean) *
                        choice.model.kv_bytes_per_token / kGiB / tp;
  } else {
    // The SLO is out of reach: say what the rate would see on these replicas
    // (batch 1 when they cannot hold it at all).
    const ServingPoint at = serving_point_at(choice.model, w, rate / s.replicas);
    const ServingPoint& shown = at.overloaded ? choice.best : at;
    s.concurrency = at.overloaded ? 0 : at.batch;
    s.ttft_ms = shown.ttft_s * 1000;
    s.tpot_ms = shown.tpot_s * 1000;
  }
  e.layout = {tp, 1, s.replicas};
  e.memory.weights = choice.model.weight_bytes / kGiB / tp;
  e.memory.overhead = override_or(w, "memory_overhead_gib", kOverheadGiB);
  e.memory_needed_gib = e.memory.total();
  e.throughput = s.replicas * s.capacity_rps_per_replica;
  e.fits = s.meets_slo;
  if (!slo_ok) {
    e.reason = why_not;
  } else if (!s.meets_slo) {
    e.reason = "needs " + std::to_string(s.vms_needed) + " VMs (" +
               std::to_string(s.replicas_needed) + " replicas of " +
               fixed(s.capacity_rps_per_replica, 2) + " req/s) for " + fixed(rate, 2) +
               " req/s within the SLOs";
  }
  e.serving = s;
  if (c.explain) explain_infer(c, s, choice.model, tp, peak, rate);
}

// ------------------------------------------------------------------- batch

double batch_rate(const catalog::Gpu& g, const std::string& by) {
  if (by == "memory_bw") return g.memory_bw_gbs;
  if (by == "fp16") return g.fp16_tflops;
  if (by == "bf16") return g.bf16_tflops > 0 ? g.bf16_tflops : g.fp16_tflops;
  return g.fp32_tflops;
}

void estimate_batch(const Ctx& c) {
  const workload::Workload& w = c.w;
  Estimate& e = c.e;
  e.throughput_unit = "items/h";
  const double gpus = c.dev.per_vm * c.count;
  e.layout = {1, 1, std::max(1, static_cast<int>(std::ceil(gpus)))};
  e.memory_available_gib = usable_gib(w, c.dev.memory_gib);
  e.memory_needed_gib = w.batch.min_gpu_memory_gib;
  e.memory.activations = w.batch.min_gpu_memory_gib;
  const catalog::Gpu* ref = reference_gpu(w.batch.reference_gpu);
  // The peak printed is the rate the items scale with (it said FP32 67.0
  // beside an fp16 ratio of 989.5 vs 312); memory_bw items print FP32 and
  // the bandwidth line.
  if (c.explain) {
    const std::string& by = w.batch.scales_with;
    const catalog::Gpu& g = c.dev.gpu;
    if (by == "fp16")
      add_common(c, "FP16 tensor, dense", g.fp16_tflops);
    else if (by == "bf16")
      add_common(c, g.bf16_tflops > 0 ? "BF16 tensor, dense" : "FP16 tensor (no BF16 on this GPU)",
                 batch_rate(g, by));
    else
      add_common(c, "FP32", g.fp32_tflops);
  }
  if (!ref) {
    e.reason = "unknown reference GPU '" + w.batch.reference_gpu + "'";
    return;
  }
  const double mine = batch_rate(c.dev.gpu, w.batch.scales_with);
  const double theirs = batch_rate(*ref, w.batch.scales_with);
  if (mine <= 0 || theirs <= 0) {
    e.reason = "no " + w.batch.scales_with + " rate known for " +
               (mine <= 0 ? c.dev.gpu.model : ref->model);
    e.unsupported = mine <= 0;
    return;
  }
  // Per physical GPU ratio: dev.gpu is already scaled for slices, so divide
  // the slice back out and count slices in `gpus`.
  const double ratio = mine / (c.dev.per_vm < 1 ? c.dev.per_vm : 1.0) / theirs;
  const double eff = override_or(w, "batch_efficiency", 1.0);
  // An item is indivisible and runs on one worker: a whole GPU, or the
  // VM's slice of one. The workers pull items from one queue, so N items on
  // W workers take ceil(N / W) rounds of one item's time. (items / rate
  // alone let 8 one-hour frames on fourteen 1/3 slices "finish" in 2 h,
  // each frame taking 3 h on its slice.)
  const double slice = c.dev.per_vm < 1 ? c.dev.per_vm : 1.0;
  const double workers = c.dev.per_vm < 1 ? c.count : gpus;
  const double item_s = w.batch.seconds_per_item / (ratio * eff * slice);
  const double items = w.data.items.value_or(0);
  const double rounds = std::ceil(items / workers - 1e-9);
  e.item_hours = item_s / 3600;
  e.throughput = 3600.0 / item_s * workers;
  e.hours = rounds * e.item_hours;
  if (w.batch.min_gpu_memory_gib > e.memory_available_gib) {
    e.reason =
        "needs " + gib(w.batch.min_gpu_memory_gib) + " per GPU, has " + gib(e.memory_available_gib);
  } else {
    e.fits = true;
  }
  if (!c.explain) return;
  c.add("items", fixed(w.data.items.value_or(0), 0), "workload file");
  c.add("seconds_per_item", fixed(w.batch.seconds_per_item, 2) + " s on " + ref->model,
        "workload file");
  c.add("spec_ratio",
        fixed(ratio, 3) + " (" + w.batch.scales_with + ": " +
            fixed(mine / (c.dev.per_vm < 1 ? c.dev.per_vm : 1.0), 1) + " vs " + fixed(theirs, 1) +
            ")",
        "datasheet rates (catalog; reference: data/catalog/gpus.csv)");
  c.add("batch_efficiency", fixed(eff, 2),
        w.overrides.count("batch_efficiency")
            ? "override (workload file)"
            : "items scale linearly with GPUs (independent items)");
  c.add("item_time",
        (item_s < 3600 ? fixed(item_s, 1) + " s" : fixed(item_s / 3600, 2) + " h") +
            " per item on one " +
            (c.dev.per_vm < 1 ? "VM's " + fixed(c.dev.per_vm, 4) + " slice" : "GPU") + "; " +
            fixed(items, 0) + " items on " + fixed(workers, 0) + " workers: " + fixed(rounds, 0) +
            (rounds == 1 ? " round" : " rounds"),
        "an item runs whole on one worker; workers pull items from one queue");
  add_memory(c);
}

Estimate estimate_impl(const workload::Workload& w, const catalog::VmSize& size,
                       const catalog::Gpu& gpu, int count, bool explain) {
  Estimate e;
  e.size = size.name;
  e.count = count;
  e.gpus = size.gpu_count * count;
  e.gpu = size.gpu_model;
  e.gpu_count = size.gpu_count;
  if (count < 1) {
    e.reason = "count must be at least 1";
    return e;
  }
  const Device dev = device(size, gpu);
  Ctx c{w, size, dev, count, explain, e};
  switch (w.kind) {
    case Kind::kTrain:
    case Kind::kFinetune:
      estimate_train(c);
      if (!e.fits && !w.recompute_given && w.recompute != workload::Recompute::kFull &&
          e.memory_needed_gib > e.memory_available_gib) {
        // The default, selective recomputation (Megatron-LM's), keeps
        // 34·s·h bytes of activations a layer (Korthikanti et al. 2022 eq.
        // 2); full recomputation (gradient checkpointing, what Hugging Face
        // and DeepSpeed users turn on) keeps a layer's input, 2·s·h, and
        // costs one more forward pass. A run that does not fit with the
        // default but does with full recomputation is what a user would
        // run: Llama-3.1-70B QLoRA at 4,096 tokens needs ~91 GB of
        // activations selectively and ~5 GB with checkpoints, and was
        // refused on one H100 "even with 64 VMs". A file that sets
        // `recompute` keeps it.
        workload::Workload full = w;
        full.recompute = workload::Recompute::kFull;
        full.recompute_given = true;
        Estimate f = estimate_impl(full, size, gpu, count, explain);
        if (f.fits) {
          for (Assumption& a : f.assumptions) {
            if (a.name == "activations")
              a.value += " (selective, the default, needs " + gib(e.memory_needed_gib) +
                         " per GPU of " + gib(e.memory_available_gib) +
                         " usable; set `recompute` to pin one)";
          }
          return f;
        }
      }
      break;
    case Kind::kInfer:
      estimate_infer(c);
      break;
    case Kind::kBatch:
      estimate_batch(c);
      break;
  }
  return e;
}

}  // namespace

Estimate estimate(const workload::Workload& workload, const catalog::VmSize& size,
                  const catalog::Gpu& gpu, int count) {
  return estimate_impl(workload, size, gpu, count, true);
}

Estimate estimate(const workload::Workload& workload, const catalog::VmSize& size,
                  const catalog::Gpu& gpu, int count, bool explain) {
  return estimate_impl(workload, size, gpu, count, explain);
}

Estimate estimate_smallest(const workload::Workload& w, const catalog::VmSize& size,
                           const catalog::Gpu& gpu, int max_count) {
  // The workload's max_nodes replaces the default bound, as plan's does:
  // with max_nodes 1000, estimate said a 405B did not fit "even with 64
  // VMs" of a size plan ranked feasible at 196.
  int limit = w.constraints.max_nodes > 0 ? w.constraints.max_nodes : max_count;
  if (w.constraints.max_gpus > 0) {
    limit = std::min(limit,
                     static_cast<int>(std::floor(w.constraints.max_gpus / size.gpu_count + 1e-9)));
  }
  if (limit < 1) {
    Estimate e = estimate_impl(w, size, gpu, 1, true);
    e.fits = false;
    e.reason = "one VM has " + fixed(size.gpu_count, 0) + " GPUs, above max_gpus " +
               std::to_string(w.constraints.max_gpus);
    return e;
  }
  // Smallest count that fits (and meets the deadline, when one is set and reachable).
  int chosen = 0;
  int first_fit = 0;
  if (w.kind == Kind::kInfer) {
    Estimate one = estimate_impl(w, size, gpu, 1, false);
    if (one.serving && one.serving->vms_needed > 0) {
      const int need = one.serving->vms_needed;
      if (need <= limit)
        chosen = need;
      else
        first_fit = limit;
    } else {
      first_fit = 1;  // the SLO or memory is out of reach: report one VM and why
    }
  } else {
    // Memory fit improves with the count (more GPUs shard more) and time
    // falls with it, so binary-search the smallest count that fits, then the
    // smallest that also meets the deadline (the predicate is re-checked at
    // the answer, so a non-monotone corner can only cost optimality).
    // A count the global batch cannot use (batch_bound) still fits in
    // memory and is no faster than one VM fewer: the searches treat it as
    // fitting and step down from it at the end.
    auto probe = [&](int n) { return estimate_impl(w, size, gpu, n, false); };
    auto runs = [](const Estimate& e) { return e.fits || e.batch_bound; };
    auto meets = [&](const Estimate& e) {
      return runs(e) && (!w.constraints.deadline_hours || e.hours <= *w.constraints.deadline_hours);
    };
    // Fit is not monotone where the global batch caps data parallelism:
    // more VMs then deepen the pipeline, whose first stage holds a
    // micro-batch's activations per stage in flight (Llama-3.1-8B LoRA at
    // 131,072 tokens fits one ND96isr_H100_v5 at 15.8 GiB a GPU and 64 of
    // them, tp8 pp32 dp2, at none: 87.9 GiB). When the largest count does
    // not run, the smallest that does is found by trying each.
    int top = limit;
    if (!runs(probe(limit))) {
      top = 0;
      for (int n = 1; n < limit && !top; ++n)
        if (runs(probe(n))) top = n;
    }
    if (top > 0) {
      int lo = 0, hi = top;  // probe(hi) fits; lo does not (0 = none)
      while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        (runs(probe(mid)) ? hi : lo) = mid;
      }
      first_fit = hi;
      if (meets(probe(first_fit))) {
        chosen = first_fit;
      } else if (meets(probe(top))) {
        lo = first_fit;
        hi = top;
        while (hi - lo > 1) {
          const int mid = (lo + hi) / 2;
          (meets(probe(mid)) ? hi : lo) = mid;
        }
        chosen = hi;
      }
    }
  }
  if (!chosen) {
    chosen = first_fit ? first_fit : (w.kind == Kind::kBatch ? 1 : limit);
  }
  Estimate e = estimate_impl(w, size, gpu, chosen, true);
  while (e.batch_bound && chosen > 1) e = estimate_impl(w, size, gpu, --chosen, true);
  if (!e.fits && chosen > 1 && w.kind != Kind::kInfer && e.reason.rfind("needs ", 0) == 0) {
    e.reason = "even with " + std::to_string(chosen) + " VMs: " + e.reason;
  }
  return e;
}

std::vector<Estimate> estimate_all(const workload::Workload& w, const catalog::Catalog& catalog,
                                   int max_count) {
  std::vector<Estimate> out;
  // The workload's own constraints choose the sizes, as in plan: a render
  // job limited to the NV series got its -q headline on an ND MI300X.
  for (const catalog::VmSize& size : catalog.sizes()) {
    if (size.status == catalog::SizeStatus::kRetired) continue;
    if (size.gpu_count <= 0) continue;
    if (!catalog::series_admits(w.constraints.series, size) ||
        catalog::is_confidential(size) != w.constraints.confidential)
      continue;
    const catalog::Gpu* gpu = catalog.find_gpu(size.gpu_model);
    if (!gpu) {
      Estimate& e = out.emplace_back();
      e.size = size.name;
      e.count = 1;
      e.gpus = size.gpu_count;
      e.gpu = size.gpu_model;
      e.gpu_count = size.gpu_count;
      e.reason = "GPU '" + size.gpu_model + "' is not in the catalog";
      e.unsupported = true;
      continue;
    }
    out.push_back(estimate_smallest(w, size, *gpu, max_count));
  }
  return out;
}

std::optional<std::string> measured_serving_gap(const workload::Workload& w) {
  if (w.kind != workload::Kind::kInfer) return std::nullopt;
  const workload::Model& m = w.model;
  // gpustack's vLLM 0.10-0.11 runs (tests/data/engine_lab_measurements.csv,
  // published_measurements.csv): gpt-oss on an A100, where dense and bf16
  // mixture-of-experts rows of the same lab are within 6-25 %, measured
  // +53 to +214 % below this model's throughput; DeepSeek-R1 on 8 x H200
  // +28 to +170 %.
  if (m.expert_bits > 0 && w.precision == m.released)
    return "vLLM runs of gpt-oss (MXFP4 experts) measured up to ~2x below this throughput: read "
           "the replicas needed as a lower bound, and simulate or benchmark before buying";
  if (workload::latent_attention(m) && m.experts > 1)
    return "vLLM runs of DeepSeek-R1 (latent attention, 256 experts) measured up to ~2x below "
           "this throughput: read the replicas needed as a lower bound, and simulate or "
           "benchmark before buying";
  return std::nullopt;
}

}  // namespace gpuplan::estimate
