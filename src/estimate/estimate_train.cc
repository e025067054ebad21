// The estimator for training and fine-tuning on `count` VMs of one size:
// the layout search (tensor parallelism inside a VM, pipeline and data
// parallelism across VMs over the interconnect the size has), time per
// token from the MFU model plus the layout's explicit communication and
// pipeline-bubble costs, and the assumptions it prints. estimate.cc's essay
// (point 2) has the model; this file is its training half.
#include <algorithm>
#include <cmath>

#include "core/strings.h"
#include "estimate/internal/estimate_ctx.h"
#include "estimate/internal/physics.h"

namespace gpuplan::estimate::internal {

using strings::fixed;

namespace {

TrainInputs train_inputs(const Ctx& c, double peak, double mfu, int count) {
  TrainInputs in;
  in.peak_flops = peak * 1e12;
  in.mfu = mfu;
  // The fitted per-doubling loss inside `mfu` (not with an `mfu` override).
  if (!c.w.overrides.count("mfu")) {
    const double gpus = static_cast<double>(c.dev.whole_per_vm) * count;
    in.model_parallel_scale = 1.0 + kScaleLossPerDoubling * std::log2(std::max(1.0, gpus / 8.0));
  }
  in.memory_gib = usable_gib(c.w, c.dev.memory_gib);
  in.overhead_gib = override_or(c.w, "memory_overhead_gib", kOverheadGiB);
  in.gpus_per_vm = c.dev.whole_per_vm;
  in.count = count;
  in.nvlink = c.size.nvlink;
  in.intra = intra_vm_link(c.dev.gpu, c.size.nvlink);
  in.inter = inter_vm_link(c.size);
  return in;
}

// A frozen base stored in 4 or 8 bits (QLoRA, or a LoRA at int4/int8):
// its weights are dequantised to 16 bits before every matmul.
bool dequantised_base(const workload::Workload& w) {
  if (w.method == workload::Method::kQlora) return true;
  return w.method == workload::Method::kLora &&
         (w.precision == workload::Precision::kInt4 || w.precision == workload::Precision::kInt8);
}

double train_mfu_for(const Ctx& c, double peak, double gpus) {
  const workload::Workload& w = c.w;
  // Planned workloads run fused attention (PyTorch SDPA / FlashAttention;
  // printed as an assumption); the layout, hence tp, is chosen afterwards,
  // so the per-micro-batch overhead is charged at tp = 1.
  TrainShape shape;
  shape.gpus = gpus;
  shape.micro_batch = w.data.micro_batch;
  shape.fused_attention = true;
  shape.matmul_derate = matmul_derate(c.dev.gpu, w.precision);
  const double fitted = train_mfu(peak, c.dev.gpu.memory_bw_gbs, w.recompute, w.model,
                                  w.data.seq_len, w.method, shape) *
                        (dequantised_base(w) ? 0.75 : 1.0);
  return override_or(w, "mfu", fitted);
}

void explain_train(const Ctx& c, const TrainPlan& t, double f_model, double gb, double tokens_step);

}  // namespace

void estimate_train(const Ctx& c) {
  const workload::Workload& w = c.w;
  Estimate& e = c.e;
  e.throughput_unit = "tokens/s";
  e.memory_available_gib = usable_gib(w, c.dev.memory_gib);
  std::string rate_note;
  const double peak = train_peak_tflops(c.dev.gpu, w.precision, w.model, w.data.seq_len, w.method,
                                        c.explain ? &rate_note : nullptr);
  if (c.explain) add_common(c, rate_note, peak);
  if (std::string why = precision_unsupported(c.dev.gpu, w); !why.empty()) {
    e.reason = std::move(why);
    e.unsupported = true;
    return;
  }
  if (peak <= 0 || c.dev.gpu.memory_bw_gbs <= 0) {
    e.reason = c.dev.gpu.model + " has no known " + std::string(workload::to_string(w.precision)) +
               " rate";
    e.unsupported = true;
    return;
  }
  if (c.dev.per_vm < 1) {
    e.unsupported = true;
    e.reason = "a fraction (" + fixed(c.dev.per_vm, 4) + ") of one " + c.dev.gpu.model +
               ": training and fine-tuning need whole GPUs (vGPU slices share the GPU's "
               "memory and time with other VMs)";
    return;
  }
  // In double: GPUs x VMs in int overflowed at 2^31 GPUs (--count 268435456).
  const double total = static_cast<double>(c.dev.whole_per_vm) * c.count;
  const double mfu = train_mfu_for(c, peak, total);
  e.mfu_compute = mfu;
  const TrainInputs in = train_inputs(c, peak, mfu, c.count);
  const TrainPlan t = plan_training(w, in, c.explain);
  e.layout = t.layout;
  // A purely data-parallel layout does not pay the model-parallel
  // per-doubling loss (step_cost): its compute phases run at the higher
  // figure, or "achieved" would print above "in the compute phases".
  if (t.layout.tp * t.layout.pp == 1) e.mfu_compute = mfu * in.model_parallel_scale;
  e.memory = t.memory;
  e.memory.overhead = override_or(w, "memory_overhead_gib", kOverheadGiB);
  e.memory_needed_gib = t.needed_gib;
  e.rejected_layouts = t.rejected;
  const double gb = global_batch(w);
  // The step runs whole micro-batches on every replica: dp x micro-batch x
  // grad_accum sequences, the global batch rounded up to a multiple of
  // dp x micro-batch (counting only the global batch charged the extra
  // sequences as lost time: 515 sequences a step for 512).
  const double runs = static_cast<double>(t.layout.dp) * w.data.micro_batch * t.layout.grad_accum;
  const double tokens_step = std::max(gb, runs) * w.data.seq_len;
  if (t.t_step > 0) {
    e.throughput = tokens_step / t.t_step;
    e.hours = w.total_tokens() / e.throughput / 3600.0;
    // Achieved: the fitted figure less the bubble and exposed communication
    // (the 405B on 1,000 ND H100 VMs printed 32.7 % beside a throughput
    // that is 22.1 % of peak: the 31.7 % bubble was left out).
    e.mfu = e.throughput * train_flops_per_token(w.model, w.data.seq_len, w.method) /
            (peak * 1e12 * total);
  }
  e.fits = t.fits;
  e.batch_bound = t.batch_bound;
  e.reason = t.reason;
  // The global batch bounds data parallelism. When the best layout here is
  // starved by it — one micro-batch per replica, or fewer micro-batches than
  // pipeline stages (bubble >= ~50 %) — extra GPUs only deepen the pipeline
  // or widen tensor parallelism. If twice the GPUs are not at least 1.5x as
  // fast as half of them (marginal efficiency below 50 %: each added GPU-hour
  // buys less than half a GPU-hour of work), this count is not offered, so
  // that `--objective time` stops adding VMs where the batch cannot use them.
  const Layout& l = t.layout;
  if (t.fits && c.count > 1 && (l.grad_accum == 1 || l.grad_accum < l.pp)) {
    const int half = c.count / 2;
    const TrainPlan h = plan_training(
        w, train_inputs(c, peak, train_mfu_for(c, peak, c.dev.whole_per_vm * half), half), false);
    const double speedup = h.fits ? h.t_step / t.t_step : 1e300;
    const double ideal = static_cast<double>(c.count) / half;
    if (speedup < 1 + 0.5 * (ideal - 1)) {
      e.fits = false;
      e.batch_bound = true;
      e.reason = "global batch " + std::to_string(static_cast<int>(gb)) + " / micro-batch " +
                 std::to_string(w.data.micro_batch) + " cannot keep " + fixed(total, 0) +
                 " GPUs busy (" + std::to_string(l.grad_accum) + " micro-batch" +
                 (l.grad_accum == 1 ? "" : "es") + " per replica at tp=" + std::to_string(l.tp) +
                 " pp=" + std::to_string(l.pp) + " dp=" + std::to_string(l.dp) +
                 "): " + std::to_string(c.count) + " VMs are only " + fixed(speedup, 2) +
                 "x as fast as " + std::to_string(half) + "; more VMs cannot help";
    }
  }
  if (c.explain)
    explain_train(c, t, train_flops_per_token(w.model, w.data.seq_len, w.method), gb, tokens_step);
}

namespace {

void explain_train(const Ctx& c, const TrainPlan& t, double f_model, double gb,
                   double tokens_step) {
  const workload::Workload& w = c.w;
  const Estimate& e = c.e;
  c.add("tokens", fixed(w.total_tokens() / 1e9, 3) + " B (" + fixed(w.data.epochs, 2) + " epochs)",
        "workload file");
  c.add("flops_per_token",
        fixed(f_model / 1e9, 2) + " GFLOP (" +
            (w.method == workload::Method::kFull ? "6N" : "4N, frozen base") + " + 12·l·h·s)",
        "Narayanan et al. 2021 eq. 3; Kaplan et al. 2020 §2.1");
  c.add("mfu",
        fixed(e.mfu_compute * 100, 1) + " % in the compute phases; " + fixed(e.mfu * 100, 1) +
            " % achieved (model FLOPs x tokens/s over peak: after the pipeline bubble and the "
            "communication not overlapped)",
        w.overrides.count("mfu")
            ? "override (workload file)"
            : "fitted model e/(1+k·(FLOP:byte)/h)/(1+c·log2(G/8))/recompute, e=" +
                  fixed(kTrainMatmulEfficiency, 2) + " k=" + fixed(kTrainMemoryBoundWork, 2) +
                  " c=" + fixed(kScaleLossPerDoubling, 3) + ", + " +
                  fixed(kTrainLayerOverheadS * 1e6, 0) +
                  " µs per layer per micro-batch (docs/estimator.md)");
  c.add("attention", "fused (no s×s scores in memory)",
        "assumed: PyTorch SDPA / FlashAttention (Dao et al. 2022); unfused attention adds "
        "5·a·s/(34·h) to the memory-bound work (Korthikanti et al. 2022 §4.1)");
  if (dequantised_base(w) && !w.overrides.count("mfu")) {
    c.add("qlora_dequant_factor", "0.75",
          "gpuplan estimate: the frozen base's 4- or 8-bit weights are dequantised before "
          "every matmul (override mfu)");
  }
  const double step_seqs = tokens_step / w.data.seq_len;
  c.add("global_batch",
        std::to_string(static_cast<int>(gb)) + " sequences" +
            (step_seqs > gb ? ", run as " + fixed(step_seqs, 0) + " (a multiple of dp " +
                                  std::to_string(e.layout.dp) + " x micro-batch " +
                                  std::to_string(w.data.micro_batch) + ")"
                            : "") +
            " (" + fixed(tokens_step / 1e6, 2) + " M tokens/step), micro-batch " +
            std::to_string(w.data.micro_batch) + ", " + std::to_string(e.layout.grad_accum) +
            " gradient-accumulation step" + (e.layout.grad_accum == 1 ? "" : "s") + " per replica",
        w.data.global_batch > 0 ? "workload file"
                                : "default 4 M tokens/step (Touvron et al. 2023, Table 1)");
  c.add("optimizer",
        std::string(workload::to_string(w.optimizer)) + ", sharding zero" +
            std::to_string(w.zero_stage) + ", method " + std::string(workload::to_string(w.method)),
        "bytes/param per Rajbhandari et al. 2020 (ZeRO) §3.1; LoRA: Hu et al. 2021");
  c.add("activations",
        std::string(workload::to_string(w.recompute)) + " recompute, micro-batch " +
            std::to_string(w.data.micro_batch) + ", seq " + std::to_string(w.data.seq_len),
        "Korthikanti et al. 2022 eq. 1-2");
  add_memory(c);
  const Link intra = intra_vm_link(c.dev.gpu, c.size.nvlink);
  const Link inter = inter_vm_link(c.size);
  c.add("interconnect", "in a VM: " + intra.name + "; between VMs: " + inter.name,
        intra.source + "; " + inter.source);
  if (t.t_step <= 0) return;
  if (t.t_tp > 0) {
    c.add("tp_over_pcie", fixed(100 * t.t_tp / t.t_step, 1) + " % of step time",
          "4 all-reduces/layer/micro-batch (Shoeybi et al. 2019 §3), NCCL ring latency + "
          "bandwidth (tuning.cc)");
  }
  if (t.t_dp > 0) {
    c.add(
        "gradient_allreduce",
        fixed(t.t_dp, 2) + " s/step vs " + fixed(t.t_compute, 2) + " s compute (overlaps backward)",
        "ring all-reduce 2(d-1)/d·bytes/bw + 2(d-1)·latency in 25 MB buckets, one ring per NIC "
        "between VMs; ZeRO-3 x1.5 "
        "(Rajbhandari et al. 2020 §7)");
  }
  if (e.layout.pp > 1) {
    const bool interleaved = e.layout.vpp > 1;
    c.add("pipeline_bubble",
          fixed(t.bubble * 100, 1) + " % (p=" + std::to_string(e.layout.pp) +
              ", m=" + std::to_string(e.layout.grad_accum) +
              (interleaved ? ", v=" + std::to_string(e.layout.vpp) + " chunks per stage" : "") +
              "); pipeline idle + sends " + fixed(100 * t.t_pp / t.t_step, 1) + " % of step time",
          interleaved ? "interleaved 1F1B (p-1)/(v·m+p-1), Narayanan et al. 2021 §2.2.2; "
                        "Megatron-LM --num-layers-per-virtual-pipeline-stage"
                      : "1F1B (p-1)/(m+p-1), Narayanan et al. 2021 §2.2");
  }
}

}  // namespace

}  // namespace gpuplan::estimate::internal
