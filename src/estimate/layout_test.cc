// Layouts that can run (issue 10 item 3): data parallelism bounded by the
// batch, pipeline bubbles, links costed by latency + bandwidth, no training
// on GPU slices, tensor parallelism over PCIe at its real cost.
#include <cmath>

#include <gtest/gtest.h>

#include "estimate/estimate.h"
#include "estimate/internal/physics.h"
#include "estimate/test_util.h"
#include "workload/workload.h"

namespace gpuplan::estimate {
namespace {

catalog::Gpu h100_nvl() {
  catalog::Gpu g = h100();
  g.model = "H100-NVL";
  g.fp16_tflops = g.bf16_tflops = 835.5;
  g.fp8_tflops = 1670;
  g.memory_gib = 94;
  g.memory_bw_gbs = 3900;
  g.interconnect_gbs = 0;
  return g;
}

workload::Workload sft(const std::string& model, int global_batch) {
  workload::Workload w = train(model, 2e9);
  w.kind = Kind::kFinetune;
  w.zero_stage = 3;
  w.data.seq_len = 4096;
  w.data.global_batch = global_batch;
  return w;
}

TEST(Layout, DataParallelWidthIsBoundedByTheBatch) {
  // The reproduction: 61 ND H100 VMs (488 GPUs) for a global batch
  // of 32 sequences cannot run 488 data-parallel replicas.
  workload::Workload w = sft("llama-3-8b", 32);
  const auto size = vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200);
  Estimate e = estimate(w, size, h100(), 61);
  EXPECT_FALSE(e.fits);
  EXPECT_TRUE(e.batch_bound);
  EXPECT_NE(e.reason.find("global batch 32"), std::string::npos) << e.reason;
  bool saw_dp_rejection = false;
  for (const RejectedLayout& r : e.rejected_layouts) {
    if (r.reason.find("> global batch 32") != std::string::npos) saw_dp_rejection = true;
  }
  EXPECT_TRUE(saw_dp_rejection);
  // Every layout the estimator chooses respects the bound, at every count.
  for (int count : {1, 2, 3, 4, 5, 8, 16, 32}) {
    Estimate x = estimate(w, size, h100(), count);
    if (!x.fits) continue;
    EXPECT_LE(x.layout.dp, 32) << count;
    EXPECT_EQ(x.layout.grad_accum, (32 + x.layout.dp - 1) / x.layout.dp) << count;
    EXPECT_EQ(x.layout.tp * x.layout.pp * x.layout.dp, 8 * count);
  }
}

TEST(Layout, MoreVmsThanTheBatchCanUseAreNotOffered) {
  // A LoRA with a global batch of 32 on 8-GPU VMs: at most 32 replicas of
  // one VM's tensor-parallel group. Past that, VMs add no speed: the
  // estimator says so (and `plan --objective time` stops there).
  workload::Workload w = sft("llama-3.1-70b", 32);
  w.method = Method::kLora;
  w.recompute = Recompute::kFull;
  const auto size = vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200);
  Estimate at_bound = estimate(w, size, h100(), 32);
  ASSERT_TRUE(at_bound.fits) << at_bound.reason;
  Estimate beyond = estimate(w, size, h100(), 64);
  EXPECT_FALSE(beyond.fits);
  EXPECT_TRUE(beyond.batch_bound);
  EXPECT_NE(beyond.reason.find("more VMs cannot help"), std::string::npos) << beyond.reason;
  // With a large batch the same VMs are useful.
  workload::Workload big = w;
  big.data.global_batch = 1024;
  EXPECT_TRUE(estimate(big, size, h100(), 64).fits);
  // estimate_smallest never answers with a count the batch cannot use.
  w.constraints.deadline_hours = 0.01;  // unreachable: it reports the most useful count
  Estimate s = estimate_smallest(w, size, h100(), 64);
  EXPECT_FALSE(s.batch_bound);
}

// Where the global batch caps data parallelism, more VMs deepen the
// pipeline and need more memory a GPU: a LoRA at 131,072 tokens fits one
// ND H100 VM (full recomputation) but not 64 (tp8 pp32 dp2). The search for
// the smallest count once tried the largest first, found it did not fit and
// reported "even with 64 VMs" for a size that --size ... --count 1 said
// fits (and plan used).
TEST(Layout, SmallestCountIsFoundWhenTheLargestDoesNotFit) {
  auto w = workload::parse_string(
      "kind: finetune\nmodel: llama-3.1-8b\nmethod: lora\n"
      "data: {tokens: 1e8, seq_len: 131072}\n",
      "lc.yaml");
  ASSERT_TRUE(w) << w.error().to_string();
  const auto size = vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200);
  ASSERT_TRUE(estimate(*w, size, h100(), 1).fits);
  ASSERT_FALSE(estimate(*w, size, h100(), 64).fits);
  Estimate s = estimate_smallest(*w, size, h100(), 64);
  EXPECT_TRUE(s.fits) << s.reason;
  EXPECT_EQ(s.count, 1);
}

internal::TrainInputs h100_inputs(int count) {
  internal::TrainInputs in;
  in.peak_flops = 989.5e12;
  in.mfu = 0.4;
  in.memory_gib = 76;
  in.overhead_gib = 2;
  in.gpus_per_vm = 8;
  in.count = count;
  in.nvlink = true;
  in.intra = internal::intra_vm_link(h100(), true);
  in.inter = internal::inter_vm_link(vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200));
  return in;
}

// Llama-2-70B pretraining-style: ZeRO-1, selective recompute, `batch`
// sequences a step (the pipeline tests' workload).
workload::Workload seventy_b_zero1(int batch) {
  workload::Workload w = sft("llama-2-70b", batch);
  w.zero_stage = 1;
  w.recompute = Recompute::kSelective;
  return w;
}

TEST(Layout, PipelineBubbleFollowsTheSchedule) {
  // Narayanan et al. 2021 §2.2: with p stages and m micro-batches the bubble
  // is (p-1)/(m+p-1) of the step; §2.2.2: with v chunks per stage,
  // (p-1)/(v m+p-1).
  workload::Workload w = sft("llama-2-70b", 16);
  w.zero_stage = 1;
  w.recompute = Recompute::kFull;
  internal::TrainPlan t = internal::plan_training(w, h100_inputs(4), true);
  ASSERT_TRUE(t.fits) << t.reason;
  const Layout& l = t.layout;
  EXPECT_EQ(l.grad_accum, (16 + l.dp - 1) / l.dp);
  EXPECT_NEAR(t.bubble, (l.pp - 1.0) / (l.vpp * l.grad_accum + l.pp - 1.0), 1e-12);
  EXPECT_LE(l.pp, w.model.layers);
}

TEST(Layout, InterleavingShrinksTheBubbleAndCostsSendsAndMemory) {
  // 70B over 64 H100s, 64 sequences: tp8 pp8 dp1 runs m = 64 micro-batches.
  workload::Workload w = seventy_b_zero1(64);
  const internal::TrainInputs in = h100_inputs(8);
  const double trainable = w.model.params_b * 1e9;
  Layout plain{8, 8, 1, 64};
  Layout inter = plain;
  inter.vpp = 5;  // 80 layers / 8 stages = 10 a stage, 2 a chunk
  const internal::StepCost a = internal::step_cost(w, in, plain, trainable);
  const internal::StepCost b = internal::step_cost(w, in, inter, trainable);
  EXPECT_NEAR(a.bubble, 7.0 / (64 + 7), 1e-12);
  EXPECT_NEAR(b.bubble, 7.0 / (5 * 64 + 7), 1e-12);
  EXPECT_DOUBLE_EQ(a.t_compute, b.t_compute);  // the same work
  // The bubble's idle time is a fifth; the sends are five times as many.
  const double t_mb = a.t_compute / 64;
  const double send_a = (a.t_pp - 7 * t_mb) / (64 + 7);
  const double send_b = (b.t_pp - 7 * t_mb / 5) / (5 * 64 + 7);
  EXPECT_GT(send_a, 0);
  EXPECT_NEAR(send_b, send_a, 1e-12 * send_a + 1e-15);
  EXPECT_LT(b.t_step, a.t_step);
  // Korthikanti et al. 2022 §4.2.3: the first stage holds L (1 + (p-1)/(p v))
  // layers' activations instead of L.
  const MemoryBreakdown ma = internal::train_memory(w, plain);
  const MemoryBreakdown mb = internal::train_memory(w, inter);
  const double logits =
      4.0 * w.data.seq_len * w.data.micro_batch * w.model.vocab / 8 / internal::kGiB;
  EXPECT_NEAR(mb.activations - logits, (ma.activations - logits) * (1 + 7.0 / 40), 1e-9);
  EXPECT_DOUBLE_EQ(ma.weights, mb.weights);
}

TEST(Layout, InterleavingNeedsWholeRoundsOfMicroBatches) {
  // Megatron-LM's interleaved schedule refuses m not a multiple of p: with
  // 60 sequences over tp8 pp8 dp1 (m = 60) only plain 1F1B runs, and with
  // 64 the search may interleave.
  for (const int batch : {60, 64}) {
    workload::Workload w = seventy_b_zero1(batch);
    internal::TrainPlan t = internal::plan_training(w, h100_inputs(8), true);
    ASSERT_TRUE(t.fits) << t.reason;
    const Layout& l = t.layout;
    if (l.vpp > 1) {
      EXPECT_EQ(l.grad_accum % l.pp, 0) << batch;
      EXPECT_EQ(((w.model.layers + l.pp - 1) / l.pp) % l.vpp, 0) << batch;
    }
    if (batch == 60 && l.pp == 8) {
      EXPECT_EQ(l.vpp, 1);
    }
    if (batch == 64) {
      EXPECT_GT(l.vpp, 1) << "a 7/71 bubble left in place";
    }
  }
}

TEST(Layout, UnevenStagesPaceThePipelineAndHoldTheirLayers) {
  // 80 layers on 6 stages: the heaviest holds 14 (6 x 14 / 80 = 1.05 of an
  // even split), on 8 stages 10 (even). Time and memory follow the heaviest.
  workload::Workload w = seventy_b_zero1(64);
  const internal::TrainInputs in = h100_inputs(8);
  const double trainable = w.model.params_b * 1e9;
  EXPECT_DOUBLE_EQ(internal::stage_imbalance(80, 6), 6.0 * 14 / 80);
  EXPECT_DOUBLE_EQ(internal::stage_imbalance(80, 8), 1.0);
  EXPECT_DOUBLE_EQ(internal::stage_imbalance(32, 31), 31.0 * 2 / 32);
  const Layout even{8, 8, 1, 64}, odd{8, 6, 1, 64};
  const internal::StepCost a = internal::step_cost(w, in, even, trainable);
  const internal::StepCost b = internal::step_cost(w, in, odd, trainable);
  // Per micro-batch, a stage of 14 layers against one of 10.
  EXPECT_NEAR(b.t_compute / a.t_compute, 14.0 / 10.0, 1e-9);
  const MemoryBreakdown ma = internal::train_memory(w, even);
  const MemoryBreakdown mb = internal::train_memory(w, odd);
  EXPECT_NEAR(mb.weights / ma.weights, 14.0 / 10.0, 1e-9);
}

TEST(Layout, InterleavingFollowsMegatronsRules) {
  // 96 layers over 31 stages: no interleaving (L not a multiple of p; 124
  // chunks of 4 were once costed for 96 layers); on 24 VMs (tp 8, 24 ways
  // of pp x dp, 1,536 sequences) v divides the layers of a stage and m is a
  // multiple of p. Two stages never interleave.
  workload::Workload w = sft("llama-2-70b", 1536);
  w.model.layers = 96;
  w.zero_stage = 1;
  w.recompute = Recompute::kFull;
  // Every layout the search chose or rejected (with its reason) keeps the
  // rules, and some of them interleave (else this would check nothing).
  int interleaved = 0;
  for (const int count : {31, 24, 2}) {
    internal::TrainPlan t = internal::plan_training(w, h100_inputs(count), true);
    std::vector<Layout> seen{t.layout};
    for (const RejectedLayout& r : t.rejected) seen.push_back(r.layout);
    for (const Layout& l : seen) {
      if (l.vpp <= 1) continue;
      ++interleaved;
      EXPECT_GT(l.pp, 2) << count;
      EXPECT_EQ(96 % l.pp, 0) << count;
      EXPECT_EQ((96 / l.pp) % l.vpp, 0) << count;
      EXPECT_EQ(l.grad_accum % l.pp, 0) << count;
    }
  }
  EXPECT_GT(interleaved, 0);
}

TEST(Layout, ClosestLayoutKeepsItsPipelineCosts) {
  // A 405B pretraining on 64 ND H100 VMs does not fit; the estimate still
  // prints its bubble, which was 0.0 % beside hours that included it.
  workload::Workload w = sft("llama-3.1-405b", 2048);
  w.kind = Kind::kTrain;
  w.zero_stage = 1;
  w.recompute = Recompute::kNone;
  w.data.seq_len = 8192;
  internal::TrainPlan t = internal::plan_training(w, h100_inputs(64), true);
  ASSERT_FALSE(t.fits);
  ASSERT_GT(t.layout.pp, 1);
  EXPECT_NEAR(t.bubble,
              (t.layout.pp - 1.0) / (t.layout.vpp * t.layout.grad_accum + t.layout.pp - 1.0),
              1e-12);
  EXPECT_GT(t.t_pp, 0);
}

TEST(Layout, EveryLayoutBatchBoundAndTooBigSaysSo) {
  // 1,000 A10s for a LoRA batch of 64 / micro-batch 4: every layout wants
  // dp > 16, and none fits in 22.8 GiB. The reason was "needs 0.0 GiB/GPU at
  // tp=1 pp=1 dp=1".
  workload::Workload w = sft("llama-3.1-8b", 64);
  w.method = Method::kLora;
  w.data.micro_batch = 4;
  w.data.seq_len = 2048;
  internal::TrainInputs in = h100_inputs(500);
  in.gpus_per_vm = 2;
  in.memory_gib = 22.8;
  internal::TrainPlan t = internal::plan_training(w, in, true);
  ASSERT_FALSE(t.fits);
  EXPECT_TRUE(t.batch_bound);
  EXPECT_GT(t.needed_gib, in.memory_gib);
  EXPECT_EQ(t.layout.tp * t.layout.pp * t.layout.dp, 1000);
  EXPECT_NE(t.reason.find("more VMs cannot help"), std::string::npos) << t.reason;
  EXPECT_EQ(t.reason.find("0.0 GiB"), std::string::npos) << t.reason;
}

TEST(Layout, StepRunsWholeMicroBatchesOnEveryReplica) {
  // 3 ND H100 VMs (24 GPUs), batch 256: a layout of dp 12 runs 22
  // micro-batches = 264 sequences a step; the throughput counts them all.
  workload::Workload w = sft("llama-3-8b", 256);
  w.zero_stage = 1;
  w.data.seq_len = 2048;
  const auto size = vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200);
  Estimate e = estimate(w, size, h100(), 3);
  ASSERT_TRUE(e.fits) << e.reason;
  const double seqs = static_cast<double>(e.layout.dp) * e.layout.grad_accum;
  ASSERT_GE(seqs, 256);
  // 24 GPUs: dp is 24, 12, 6 or 3, none dividing 256.
  EXPECT_GT(seqs, 256);
  EXPECT_LT(seqs, 256 + e.layout.dp);
  const std::string run_as = "run as " + std::to_string(static_cast<int>(seqs)) + " ";
  bool said = false;
  for (const Assumption& a : e.assumptions)
    if (a.name == "global_batch") said = a.value.find(run_as) != std::string::npos;
  EXPECT_TRUE(said) << run_as;
  // One VM, purely data parallel: the compute phases' MFU is the one its
  // step ran at, never below what it achieved.
  Estimate one = estimate(w, size, h100(), 1);
  ASSERT_TRUE(one.fits) << one.reason;
  ASSERT_EQ(one.layout.tp * one.layout.pp, 1);
  EXPECT_GE(one.mfu_compute, one.mfu - 1e-12);
}

TEST(Layout, SmallestCountSearchHonoursMaxNodesAbove64) {
  workload::Workload w = sft("llama-3.1-405b", 2048);
  w.kind = Kind::kTrain;
  w.zero_stage = 1;
  w.recompute = Recompute::kFull;
  const auto size = vm("Standard_NC40ads_H100_v5", h100(), 1, false, 0);
  ASSERT_FALSE(estimate_smallest(w, size, h100(), 64).fits);
  w.constraints.max_nodes = 1000;
  Estimate e = estimate_smallest(w, size, h100(), 64);
  EXPECT_TRUE(e.fits) << e.reason;
  EXPECT_GT(e.count, 64);
}

TEST(Layout, TrainingNeedsWholeGpus) {
  workload::Workload w = sft("llama-3.2-1b", 64);
  auto slice = vm("Standard_NV6ads_A10_v5", a10(), 0.1667, false, 0);
  slice.gpu_memory_gib = 4;
  Estimate e = estimate(w, slice, a10(), 4);
  EXPECT_FALSE(e.fits);
  EXPECT_NE(e.reason.find("whole GPUs"), std::string::npos) << e.reason;
}

TEST(Layout, PipelineAcrossEthernetIsCostedByItsLink) {
  // A 70B LoRA on one-GPU H100 NVL VMs joined only by Ethernet (NC40ads:
  // 40 Gb/s): the estimator takes the fewest stages that fit, and a deeper
  // pipeline pays its sends on the VM-to-VM link (slower than the same split
  // over InfiniBand).
  workload::Workload w = sft("llama-3.1-70b", 32);
  w.method = Method::kLora;
  w.recompute = Recompute::kFull;
  w.zero_stage = 0;
  const auto eth = vm("Standard_NC40ads_H100_v5", h100_nvl(), 1, false, 0);
  Estimate smallest = estimate_smallest(w, eth, h100_nvl(), 64);
  ASSERT_TRUE(smallest.fits) << smallest.reason;
  EXPECT_EQ(smallest.layout.pp, 2);
  EXPECT_EQ(smallest.count, 2);
  auto ib = eth;
  ib.name = "x-with-infiniband";
  ib.infiniband_gbps = 400;
  Estimate five_eth = estimate(w, eth, h100_nvl(), 5);
  Estimate five_ib = estimate(w, ib, h100_nvl(), 5);
  ASSERT_TRUE(five_eth.fits && five_ib.fits);
  EXPECT_EQ(five_eth.layout.pp * five_eth.layout.dp, 5);
  EXPECT_LT(five_eth.throughput, five_ib.throughput);
  bool said = false;
  for (const Assumption& a : five_eth.assumptions) {
    if (a.name == "interconnect") said = a.value.find("Ethernet 40 Gb/s") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

TEST(Interconnect, RingAllReduceIsLatencyPlusBandwidth) {
  // 2(n-1)/n · bytes / bandwidth + base + 2(n-1) · hop (NCCL tuning.cc, Simple
  // protocol for a large buffer; LL for a tiny one).
  internal::Link l;
  l.kind = internal::LinkKind::kInfiniband;
  l.gbs = 40;
  const double bytes = 1e9;
  const int n = 16;
  const double expect = 2.0 * (n - 1) / n * bytes / 40e9 + (8.4 + 2 * (n - 1) * 9.6) * 1e-6;
  EXPECT_NEAR(internal::allreduce_seconds(bytes, n, l), expect, 1e-9);
  const double tiny = (3.6 + 2 * (n - 1) * 2.7) * 1e-6 + 2.0 * (n - 1) / n * 1024 / (40e9 / 4);
  EXPECT_NEAR(internal::allreduce_seconds(1024, n, l), tiny, 1e-12);
  EXPECT_EQ(internal::allreduce_seconds(bytes, 1, l), 0);
  // PCIe generations from the datasheets: H100 NVL Gen5, A100 PCIe Gen4, T4 Gen3.
  EXPECT_NEAR(internal::intra_vm_link(h100_nvl(), false).gbs, 64 * 0.8, 1e-9);
  EXPECT_NEAR(internal::intra_vm_link(t4(), false).gbs, 16 * 0.8, 1e-9);
  EXPECT_NEAR(internal::intra_vm_link(h100(), true).gbs, 450 * 0.8, 1e-9);
  // Ethernet from the size's documented bandwidth, shared by its GPUs.
  const auto nc80 = vm("Standard_NC80adis_H100_v5", h100_nvl(), 2, false, 0);
  EXPECT_NEAR(internal::inter_vm_link(nc80).gbs, 80.0 / 8 / 2 * 0.8, 1e-9);
  EXPECT_FALSE(internal::inter_vm_link(nc80).assumed);
  EXPECT_TRUE(internal::inter_vm_link(vm("unknown", h100_nvl(), 2, false, 0)).assumed);
}

TEST(Interconnect, DataParallelRingsUseEveryNicOfTheVm) {
  // ND H100 v5: 3200 Gb/s per VM, 8 GPUs -> 50 GB/s per GPU x 0.8. With all
  // 8 GPUs of the VM in one data-parallel group NCCL runs 8 rings, one per
  // NIC: 8 x 40 = 320 GB/s, within NVLink's 360.
  const auto nd = vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200);
  const internal::Link intra = internal::intra_vm_link(h100(), true);
  const internal::Link inter = internal::inter_vm_link(nd);
  EXPECT_NEAR(inter.gbs, 40, 1e-9);
  EXPECT_NEAR(internal::data_parallel_link(intra, inter, 8).gbs, 320, 1e-9);
  EXPECT_NEAR(internal::data_parallel_link(intra, inter, 1).gbs, 40, 1e-9);
  // Never faster than the intra-VM link the rings also cross.
  EXPECT_NEAR(internal::data_parallel_link(intra, inter, 16).gbs, intra.gbs, 1e-9);
}

TEST(Layout, PureDataParallelPaysItsAllReduceNotTheScaleLoss) {
  // Llama 3 8B, ZeRO-1, on 4 ND H100 VMs: the fastest layout is pure data
  // parallelism; its compute is at the MFU without the model-parallel
  // per-doubling loss, and its all-reduce is costed on 8 NICs per VM.
  workload::Workload w = sft("llama-3-8b", 512);
  w.zero_stage = 1;
  w.data.seq_len = 2048;
  const auto nd = vm("Standard_ND96isr_H100_v5", h100(), 8, true, 3200);
  internal::TrainInputs in;
  in.peak_flops = 989.5e12;
  in.mfu = 0.4;
  in.model_parallel_scale = 1.25;
  in.memory_gib = 80 * 0.95;
  in.overhead_gib = 2;
  in.gpus_per_vm = 8;
  in.count = 4;
  in.nvlink = true;
  in.intra = internal::intra_vm_link(h100(), true);
  in.inter = internal::inter_vm_link(nd);
  const internal::TrainPlan t = internal::plan_training(w, in, false);
  ASSERT_TRUE(t.fits) << t.reason;
  ASSERT_EQ(t.layout.tp * t.layout.pp, 1);
  ASSERT_EQ(w.method, Method::kFull);
  const double f = internal::train_flops_per_token(w.model, 2048, w.method);
  const double per_gpu_tokens = t.layout.grad_accum * w.data.micro_batch * 2048.0;
  EXPECT_NEAR(t.t_compute, per_gpu_tokens * f / (989.5e12 * 0.4 * 1.25), 1e-9 * t.t_compute);
  // 16-bit gradients over 32 ranks in 25 MB buckets, at 320 GB/s, once a step.
  const double bytes = w.model.params_b * 1e9 * 2;
  const double buckets = std::ceil(bytes / 25e6);
  const internal::Link link = internal::data_parallel_link(in.intra, in.inter, 8);
  EXPECT_NEAR(t.t_dp, buckets * internal::allreduce_seconds(bytes / buckets, 32, link),
              1e-9 * t.t_dp);
}

// Gradient accumulation over Ethernet: DDP and ZeRO-1 synchronise once a
// step, behind the last micro-batch's backward only, so the exposed
// all-reduce does not shrink as the micro-batches grow in number; ZeRO-3
// gathers the parameters and reduce-scatters the gradients every
// micro-batch (1.5 all-reduces each). Charging ZeRO-3 once a step and
// hiding DDP's all-reduce behind every micro-batch's backward made
// multi-VM plans over 40-80 Gb/s Ethernet look 1.6-6x faster than they run.
TEST(Layout, DataParallelSyncFollowsTheShardingAndTheMicroBatches) {
  const auto nc = vm("Standard_NC40ads_H100_v5", h100_nvl(), 1, false, 0);
  internal::TrainInputs in;
  in.peak_flops = 835.5e12;
  in.mfu = 0.4;
  in.memory_gib = 94 * 0.95;
  in.overhead_gib = 2;
  in.gpus_per_vm = 1;
  in.count = 2;
  in.intra = internal::intra_vm_link(h100_nvl(), false);
  in.inter = internal::inter_vm_link(nc);
  const auto run = [&](int zero, int micro_batches) {
    workload::Workload w = sft("llama-3.2-1b", 2 * micro_batches);
    w.zero_stage = zero;
    w.data.seq_len = 2048;
    Layout l;
    l.dp = 2;
    l.grad_accum = micro_batches;
    return internal::step_cost(w, in, l, w.model.params_b * 1e9);
  };
  const internal::StepCost one = run(1, 1), eight = run(1, 8);
  EXPECT_DOUBLE_EQ(one.t_dp, eight.t_dp);  // one all-reduce a step
  const double exposed_one = one.t_step - one.t_compute;
  const double exposed_eight = eight.t_step - eight.t_compute;
  EXPECT_GT(exposed_one, 0);
  EXPECT_NEAR(exposed_eight, exposed_one, 1e-9 * exposed_one);
  const internal::StepCost z3 = run(3, 8);
  EXPECT_NEAR(z3.t_dp, 8 * 1.5 * eight.t_dp, 1e-9 * z3.t_dp);
  EXPECT_GT(z3.t_step, eight.t_step);
  // ZeRO-2: a reduce-scatter every micro-batch and one all-gather a step.
  EXPECT_NEAR(run(2, 8).t_dp, (8 * 0.5 + 0.5) * eight.t_dp, 1e-9 * eight.t_dp);
}

// ---- Tensor parallelism over PCIe, and the request-rate operating point ----

struct TpotCheck {
  double weights_read_ms;  // weight bytes / (GPUs x datasheet bandwidth)
  double tpot_batch1_ms;
  Estimate at_5rps;
};

TpotCheck tpot_check(const std::string& size_name) {
  auto cat = catalog::Catalog::load_embedded();
  EXPECT_TRUE(cat.has_value());
  const catalog::VmSize* size = (*cat)->find_size(size_name);
  EXPECT_NE(size, nullptr) << size_name;
  const catalog::Gpu* gpu = (*cat)->find_gpu(size->gpu_model);
  workload::Workload w = serve("llama-3.1-70b", 5);
  w.precision = Precision::kBf16;
  w.serving.input_tokens.mean = w.serving.input_tokens.max = 1024;
  w.serving.output_tokens.mean = w.serving.output_tokens.max = 256;
  w.serving.ttft_ms = 3000;
  w.serving.tpot_ms = 60;
  const int tp = static_cast<int>(size->gpu_count);
  auto r = replica_model(w, *gpu, size->nvlink, tp);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  TpotCheck c;
  c.weights_read_ms = w.model.params_b * 2e9 / (tp * gpu->memory_bw_gbs * 1e9) * 1e3;
  c.tpot_batch1_ms = r->decode_step_seconds(1, 1024 + 128) * 1e3;
  c.at_5rps = estimate_smallest(w, *size, *gpu, 64);
  return c;
}

TEST(TensorParallel, SeventyBillionDecodeIsBoundByTheWeightReadOverPcie) {
  // Issue 10: a 70B bf16 model on one NC80adis_H100_v5 (2 x H100 NVL, PCIe
  // Gen5) decodes at batch 1 between the weight-read time (~141 GB / 2 x 3.9
  // TB/s = 18 ms) and 1.5x that, and a 5 req/s workload fits a 60 ms TPOT.
  // The same on one more 2-GPU size and a 4-GPU size.
  for (const char* name : {"Standard_NC80adis_H100_v5", "Standard_NC48ads_A100_v4"}) {
    const TpotCheck c = tpot_check(name);
    EXPECT_GE(c.tpot_batch1_ms, c.weights_read_ms) << name;
    EXPECT_LE(c.tpot_batch1_ms, 1.5 * c.weights_read_ms) << name;
    const Estimate& e = c.at_5rps;
    ASSERT_TRUE(e.serving) << name;
    EXPECT_TRUE(e.fits) << name << ": " << e.reason;
    EXPECT_LE(e.serving->tpot_ms, 60) << name;
    // Reported at the concurrency 5 req/s implies (Little's law), not at the
    // largest batch that fits.
    const double per_replica = 5.0 / e.serving->replicas;
    const double latency_s = (e.serving->ttft_ms + 255 * e.serving->tpot_ms) / 1000;
    EXPECT_GT(e.serving->concurrency, 0) << name;
    EXPECT_LT(e.serving->concurrency, e.serving->max_batch) << name;
    EXPECT_NEAR(e.serving->concurrency, per_replica * latency_s, 0.15 * e.serving->concurrency)
        << name;
  }
}

TEST(TensorParallel, FourGpuDecodeSitsBetweenTheWeightReadAndThePublishedFigure) {
  // The 4-GPU size (NC96ads_A100_v4, 4 x A100 80GB PCIe Gen4, no NVLink).
  // Issue 10 asked for batch-1 TPOT <= 1.5x the weight read here too; the
  // published measurement says a well-tuned engine does not get there on
  // four A100s: LMDeploy's Llama-2-70B batch-1 decode on 4 x A100-SXM with
  // NVLink is 33.9 tok/s = 29.5 ms, 1.74x its 16.9 ms weight read
  // (tests/data/published_measurements.csv, lmdeploy-llama2-70b-a100x4-
  // decode-b1; PyTorch/IBM's 70B on 8 x A100 is 29 ms, ~3.4x). What stays
  // from the weight read is launch and all-reduce latency that does not
  // shrink with more GPUs. The model must stay between the physical floor
  // and that published ratio, and a 5 req/s workload must fit 60 ms.
  const TpotCheck c = tpot_check("Standard_NC96ads_A100_v4");
  EXPECT_GE(c.tpot_batch1_ms, c.weights_read_ms);
  EXPECT_LE(c.tpot_batch1_ms, 1.74 * c.weights_read_ms);
  const Estimate& e = c.at_5rps;
  ASSERT_TRUE(e.serving);
  EXPECT_TRUE(e.fits) << e.reason;
  EXPECT_LE(e.serving->tpot_ms, 60);
}

TEST(TensorParallel, PcieCostsMoreThanNvlinkAndMoreGpusCostMore) {
  workload::Workload w = serve("llama-3.1-70b", 1);
  auto pcie = replica_model(w, h100(), false, 4);
  auto nvl = replica_model(w, h100(), true, 4);
  ASSERT_TRUE(pcie && nvl);
  EXPECT_GT(pcie->tp_comm_seconds(1), nvl->tp_comm_seconds(1));
  EXPECT_GT(pcie->tp_comm_seconds(4096), pcie->tp_comm_seconds(1));
  // Tiny batches are latency-bound: 160 all-reduces of ~10 µs, not 680 µs per layer.
  EXPECT_LT(pcie->tp_comm_seconds(1), 160 * 20e-6);
  auto one = replica_model(w, h100(), false, 1);
  ASSERT_FALSE(one.has_value());  // 141 GB do not fit in one 80 GB GPU
}

}  // namespace
}  // namespace gpuplan::estimate
