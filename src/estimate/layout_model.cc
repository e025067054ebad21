// Training layouts: which tensor × pipeline × data-parallel split of the GPUs
// can run a training or fine-tuning step, and how long the step takes.
//
// Problem: a layout that fits in memory is not yet one that can run, or one
// anyone would run. Data parallelism is bounded by the batch (488 replicas
// cannot share a global batch of 32 sequences); pipeline stages by the layers;
// tensor parallelism by the VM (its collectives run after every layer) and
// by the attention heads. And every split costs time on the links it uses.
//
// Approach: enumerate every tp × pp × dp = GPUs with
//   * tp dividing the GPUs of one VM and the attention heads (tensor
//     parallelism stays inside a VM: Shoeybi et al. 2019 §3 — two all-reduces
//     per layer forward and two backward);
//   * pp ≤ layers;
//   * dp ≤ global batch ÷ micro-batch; each replica then runs
//     m = ⌈global batch ÷ (dp · micro-batch)⌉ micro-batches per step
//     (gradient accumulation, reported);
//   * the memory of memory_model.cc within the GPU's usable memory;
// and cost each survivor:
//   * compute per micro-batch and stage: mb·s·F / (tp·pp·peak·MFU), the MFU of
//     throughput_model.cc (which already holds NVLink tensor parallelism: the
//     calibration runs used it);
//   * tensor parallelism over PCIe: 4 all-reduces of s·mb·h 16-bit values per
//     layer and micro-batch (NCCL ring model, interconnect.cc);
//   * pipeline: 1F1B takes m + p − 1 slots of one micro-batch per stage, a
//     bubble of (p − 1)/(m + p − 1) of the step (Narayanan et al. 2021 §2.2);
//     every slot also waits for its activation send (s·mb·h/tp 16-bit values
//     forward and the same gradient backward, scatter-gather of §4.1) over
//     the VM-to-VM link when the job spans VMs. The interleaved schedule
//     (§2.2.2: each stage holds v chunks of L/(p·v) layers) runs m·v + p − 1
//     slots of a chunk, a bubble of (p − 1)/(v·m + p − 1), and sends v times
//     as often; it needs m to be a multiple of p (Megatron-LM's
//     forward_backward_pipelining_with_interleaving refuses other counts),
//     at least one layer per chunk, and holds more activations
//     (memory_model.cc). v is searched over the divisors of ⌈L/p⌉ (Megatron
//     sets it as layers per virtual stage, a divisor of the stage's layers);
//   * data parallelism: ring all-reduce of the trainable gradients (16-bit)
//     in 25 MB buckets (PyTorch DDP's bucket_cap_mb default, Li et al. VLDB
//     2020), over the VM's links or InfiniBand/Ethernet between VMs (one
//     NCCL ring per NIC: the group's GPUs in a VM add their NIC shares,
//     interconnect.cc): DDP and ZeRO-1 once a step, hidden behind the last
//     micro-batch's backward; ZeRO-2 a reduce-scatter every micro-batch
//     behind its backward and an all-gather a step; ZeRO-3 1.5 all-reduces
//     every micro-batch (parameter gathers forward and backward, gradient
//     reduce-scatter; Rajbhandari et al. 2020 §7) behind its compute; such a purely
//     data-parallel layout (tp = pp = 1) does not pay the per-doubling loss
//     that the MFU model charges model-parallel jobs.
// The shortest step wins. Every rejected layout keeps its reason.
//
// Trade-offs: ranks are placed tp-innermost (Megatron's order), so with more
// than one VM the pipeline and data-parallel traffic is costed on the
// VM-to-VM link even where some of it stays inside a VM (conservative);
// schedules beyond interleaved 1F1B (zero-bubble, Qi et al. 2024) are not
// modelled.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/strings.h"
#include "estimate/internal/physics.h"
#include "workload/models.h"

namespace gpuplan::estimate::internal {

using strings::fixed;

namespace {

// PyTorch DDP / FSDP gradient bucket (bucket_cap_mb = 25).
constexpr double kBucketBytes = 25e6;
// Rejected layouts kept for the output: the reasons repeat beyond a few.
constexpr size_t kMaxRejected = 24;

}  // namespace

StepCost step_cost(const workload::Workload& w, const TrainInputs& in, const Layout& l,
                   double trainable_params) {
  const workload::Model& m = w.model;
  const double seq = w.data.seq_len;
  const double mb = w.data.micro_batch;
  const double f = train_flops_per_token(m, w.data.seq_len, w.method);
  StepCost c{};
  // One micro-batch on one stage. A purely data-parallel layout does not
  // pay the model-parallel per-doubling loss (throughput_model.cc).
  const double mfu = l.tp * l.pp == 1 ? in.mfu * in.model_parallel_scale : in.mfu;
  // The pipeline runs at its slowest stage's pace: ⌈L/p⌉ layers where p
  // does not divide L (32 layers on 31 stages pace as 16 stages).
  const double t_mb = mb * seq * f * stage_imbalance(m.layers, l.pp) /
                      (static_cast<double>(l.tp) * l.pp * in.peak_flops * mfu);
  double t_tp_mb = 0;
  if (l.tp > 1 && in.intra.kind == LinkKind::kPcie) {
    const double bytes = seq * mb * m.hidden * 2.0;
    t_tp_mb = 4.0 * m.layers / l.pp * allreduce_seconds(bytes, l.tp, in.intra);
  }
  double t_send = 0;
  if (l.pp > 1) {
    const double bytes = seq * mb * m.hidden * 2.0 / l.tp;
    t_send = 2.0 * send_seconds(bytes, in.count > 1 ? in.inter : in.intra);
  }
  // Slots of one model chunk (a whole stage's layers at v = 1).
  const double v = l.pp > 1 ? std::max(1, l.vpp) : 1;
  const double slots = l.grad_accum * v + l.pp - 1;
  c.t_compute = l.grad_accum * t_mb;
  c.t_tp = slots * t_tp_mb / v;
  c.t_pp = slots * t_send + (l.pp - 1) * t_mb / v;  // sends and the bubble's idle slots
  c.bubble = (l.pp - 1) / slots;
  const double t_pipeline = slots * ((t_mb + t_tp_mb) / v + t_send);
  // The backward share of one micro-batch's compute (all but the forward).
  const double fwd = forward_flops_per_token(m, seq);
  const double backward_mb = std::max(0.0, 1.0 - fwd / f) * t_mb;
  double exposed = 0;
  if (l.dp > 1) {
    const double grad_bytes = trainable_params * 2.0 / (l.tp * l.pp);  // 16-bit
    // Between VMs, the group's GPUs in one VM (tp-innermost; conservatively
    // one with a pipeline) each drive one ring over their own NIC share.
    const int ranks_per_vm = l.pp == 1 ? std::min(l.dp, std::max(1, in.gpus_per_vm / l.tp)) : 1;
    const Link link =
        in.count > 1 ? data_parallel_link(in.intra, in.inter, ranks_per_vm) : in.intra;
    const double buckets = std::max(1.0, std::ceil(grad_bytes / kBucketBytes));
    const double all_reduce = buckets * allreduce_seconds(grad_bytes / buckets, l.dp, link);
    // A ring reduce-scatter or all-gather is half a ring all-reduce.
    const double m_steps = l.grad_accum;
    const bool sharded_base = w.method == workload::Method::kFull;  // memory_model.cc
    if (w.zero_stage >= 3 && sharded_base) {
      // ZeRO-3 / FSDP: every micro-batch gathers the parameters for its
      // forward and again for its backward, and reduce-scatters its
      // gradients — 1.5 all-reduces (Rajbhandari et al. 2020 §7.2.2), per
      // micro-batch, not per step (the shards are released after use);
      // prefetching hides them behind that micro-batch's compute.
      c.t_dp = m_steps * 1.5 * all_reduce;
      exposed = m_steps * std::max(0.0, 1.5 * all_reduce - t_mb);
    } else if (w.zero_stage == 2) {
      // ZeRO-2 keeps only its gradient shard: every micro-batch
      // reduce-scatters its gradients behind its backward (overlap_comm),
      // and the step all-gathers the updated parameters after the optimizer.
      c.t_dp = m_steps * 0.5 * all_reduce + 0.5 * all_reduce;
      exposed = m_steps * std::max(0.0, 0.5 * all_reduce - backward_mb) + 0.5 * all_reduce;
    } else {
      // DDP and ZeRO-1: one all-reduce a step, at the gradient-accumulation
      // boundary (no_sync before it), hidden behind the last micro-batch's
      // backward only. Overlapping it with every micro-batch's backward made
      // 20 micro-batches of Llama-2-7B over 80 Gb/s Ethernet look 1.6x
      // faster than they can run.
      c.t_dp = all_reduce;
      exposed = std::max(0.0, all_reduce - backward_mb);
    }
  }
  c.t_step = t_pipeline + exposed;
  return c;
}

namespace {

std::string layout_text(const Layout& l) {
  return "tp=" + std::to_string(l.tp) + " pp=" + std::to_string(l.pp) +
         (l.vpp > 1 ? " v=" + std::to_string(l.vpp) : "") + " dp=" + std::to_string(l.dp);
}

// The plan's times are its layout's step costs.
void take_costs(TrainPlan& p, const StepCost& c) {
  p.t_step = c.t_step;
  p.t_compute = c.t_compute;
  p.t_tp = c.t_tp;
  p.t_pp = c.t_pp;
  p.t_dp = c.t_dp;
  p.bubble = c.bubble;
}

// Model chunks per stage to try at pipeline depth `pp` with `m` micro-batches
// per replica: 1 (plain 1F1B), and where Megatron-LM runs the interleaved
// schedule — more than 2 stages (parallel_state.initialize_model_parallel),
// layers a multiple of the stages (arguments.py), m a multiple of them
// (schedules.py) — each divisor v > 1 of the stage's L/p layers (layers per
// virtual stage is a whole number). Chunks of no layer were costed as if
// they shortened the bubble: 124 chunks for GPT-3's 96 layers.
std::vector<int> chunk_counts(int layers, int pp, int m) {
  std::vector<int> out{1};
  if (pp <= 2 || m % pp != 0 || layers % pp != 0) return out;
  const int per_stage = layers / pp;
  for (int v = 2; v <= per_stage; ++v)
    if (per_stage % v == 0) out.push_back(v);
  return out;
}

}  // namespace

int global_batch(const workload::Workload& w) {
  if (w.data.global_batch > 0) return w.data.global_batch;
  return std::max(1, static_cast<int>(std::ceil(kDefaultTokensPerStep / w.data.seq_len)));
}

namespace {

// Why no layout fits: more GPUs than the global batch can use at every
// layout that fits in memory (more VMs cannot help), else memory, naming
// the smallest layout's need when `explain`.
void explain_no_fit(TrainPlan& best, const workload::Workload& w, const TrainInputs& in, int total,
                    int max_dp, int gb, bool batch_limited, bool memory_fit_somewhere,
                    bool explain) {
  if (batch_limited && !memory_fit_somewhere) {
    best.batch_bound = true;
    best.reason = std::to_string(total) + " GPUs need dp > " + std::to_string(max_dp) +
                  " (global batch " + std::to_string(gb) + " / micro-batch " +
                  std::to_string(w.data.micro_batch) +
                  ") at every layout that fits: more VMs cannot help";
  } else {
    best.reason = "does not fit in GPU memory";
    if (explain) {
      best.reason = "needs " + fixed(best.needed_gib, 1) + " GiB/GPU at the smallest layout (" +
                    layout_text(best.layout) + "), has " + fixed(in.memory_gib, 1) + " GiB usable";
    }
  }
}

}  // namespace

// The fastest (tp, pp, dp) layout that fits, else the one closest to fitting
// with the reason. Long because it is one search over layouts whose
// branches share its state: the best so far, the closest to fitting, and
// whether the batch or the memory was the limit.
TrainPlan plan_training(const workload::Workload& w, const TrainInputs& in, bool explain) {
  TrainPlan best;
  best.available_gib = in.memory_gib;
  const workload::Model& m = w.model;
  const int per_vm = in.gpus_per_vm;
  const int total = per_vm * in.count;
  const int gb = global_batch(w);
  const int max_dp = std::max(1, gb / std::max(1, w.data.micro_batch));
  auto reject = [&](const Layout& l, const std::string& why) {
    if (explain && best.rejected.size() < kMaxRejected) best.rejected.push_back({l, why});
  };
  // The layout the plan reports: the chosen one, or the closest to fitting.
  auto hold = [&](const Layout& l, const MemoryBreakdown& mem, double need) {
    best.layout = l;
    best.memory = mem;
    best.needed_gib = need;
  };
  // Trainable parameters: everything for full training, the adapters for LoRA.
  double trainable = m.params_b * 1e9;
  if (w.method != workload::Method::kFull) {
    trainable = train_memory(w, Layout{1, 1, 1}).gradients * kGiB / 2.0;
  }
  double least_need = 1e300;  // closest to fitting, for the reason
  // Closest to fitting among the layouts the batch rules out: the reason
  // when every layout is one ("needs 0.0 GiB/GPU at tp=1 pp=1 dp=1" was
  // printed for 1,000 GPUs with a batch of 16).
  double least_batch_need = 1e300;
  Layout batch_closest;
  MemoryBreakdown batch_closest_mem;
  bool memory_fit_somewhere = false;
  bool batch_limited = false;
  double best_time = 1e300;
  // One layout the batch allows: its memory, then its step time. False when
  // it does not fit in memory.
  const auto consider = [&](const Layout& l) -> bool {
    const MemoryBreakdown mem = train_memory(w, l);
    const double need = mem.total() + in.overhead_gib;
    if (need > in.memory_gib) {
      if (need < least_need && !best.fits) {
        least_need = need;
        hold(l, mem, need);
      }
      if (explain)
        reject(l, "needs " + fixed(need, 1) + " GiB/GPU, has " + fixed(in.memory_gib, 1));
      return false;
    }
    memory_fit_somewhere = true;
    const StepCost c = step_cost(w, in, l, trainable);
    // Layouts run different whole numbers of sequences a step (the batch
    // rounded up to dp x micro-batch): compare the time a sequence takes.
    const double seqs = static_cast<double>(l.dp) * w.data.micro_batch * l.grad_accum;
    const double per_seq = c.t_step / seqs;
    const auto ms = [](double s) { return fixed(s * 1e3, 2) + " ms/sequence"; };
    if (per_seq < best_time * (1 - 1e-12)) {
      if (best.fits && explain)
        reject(best.layout,
               "slower: " + ms(best_time) + " vs " + ms(per_seq) + " at " + layout_text(l));
      best_time = per_seq;
      best.fits = true;
      hold(l, mem, need);
      take_costs(best, c);
    } else if (explain) {
      reject(l, "slower: " + ms(per_seq) + " vs " + ms(best_time));
    }
    return true;
  };
  // Ascending tp: on a tie the narrower tensor-parallel group wins (its
  // NVLink collectives are in the fitted MFU, not costed here).
  for (int tp = 1; tp <= per_vm; ++tp) {
    if (per_vm % tp != 0) continue;
    if (m.heads % tp != 0) {
      reject({tp, 1, total / tp, 1}, "tp=" + std::to_string(tp) + " does not divide the " +
                                         std::to_string(m.heads) + " attention heads");
      continue;
    }
    for (int pp = 1; pp * tp <= total; ++pp) {
      if ((total / tp) % pp != 0) continue;
      Layout l{tp, pp, total / (tp * pp), 1};
      if (pp > m.layers) {
        reject(l, "pp=" + std::to_string(pp) + " > " + std::to_string(m.layers) + " layers");
        break;
      }
      l.grad_accum = (gb + l.dp * w.data.micro_batch - 1) / (l.dp * w.data.micro_batch);
      if (l.dp > max_dp) {
        const MemoryBreakdown mem = train_memory(w, l);
        const double need = mem.total() + in.overhead_gib;
        const bool mem_ok = need <= in.memory_gib;
        if (mem_ok && !batch_limited && !best.fits && least_need == 1e300) hold(l, mem, need);
        batch_limited = batch_limited || mem_ok;
        if (!mem_ok && need < least_batch_need) {
          least_batch_need = need;
          batch_closest = l;
          batch_closest_mem = mem;
        }
        if (explain)
          reject(l, "dp=" + std::to_string(l.dp) + " > global batch " + std::to_string(gb) +
                        " / micro-batch " + std::to_string(w.data.micro_batch));
        continue;
      }
      for (const int v : chunk_counts(m.layers, pp, l.grad_accum)) {
        l.vpp = v;
        // Interleaving only adds activations (x (1 + (p-1)/(p v))): when
        // plain 1F1B does not fit, no v does.
        if (!consider(l) && v == 1) break;
      }
    }
  }
  if (best.fits) return best;
  if (least_need == 1e300 && !batch_limited && least_batch_need < 1e300) {
    // Every layout needs more data parallelism than the batch has, and none
    // of them fits in memory either: the batch is the limit more VMs hit.
    hold(batch_closest, batch_closest_mem, least_batch_need);
    best.batch_bound = true;
    best.reason = std::to_string(total) + " GPUs need dp > " + std::to_string(max_dp) +
                  " (global batch " + std::to_string(gb) + " / micro-batch " +
                  std::to_string(w.data.micro_batch) +
                  ") at every layout, and none of those fits in memory (the closest, " +
                  layout_text(batch_closest) + ", needs " + fixed(least_batch_need, 1) +
                  " GiB/GPU of " + fixed(in.memory_gib, 1) + "): more VMs cannot help";
    return best;
  }
  explain_no_fit(best, w, in, total, max_dp, gb, batch_limited, memory_fit_somewhere, explain);
  // Costs of the closest layout, so the estimate still says how long it would
  // take (not for a layout the batch rules out: it cannot run at all).
  if (best.needed_gib > 0 && !best.batch_bound) {
    const StepCost c = step_cost(w, in, best.layout, trainable);
    take_costs(best, c);
  }
  return best;
}

}  // namespace gpuplan::estimate::internal
