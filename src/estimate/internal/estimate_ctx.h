// The estimator's shared context: the effective GPU of one VM size, the
// workload's overrides, and the assumption list being filled. estimate.cc
// (serving, batch, the entry points) and estimate_train.cc (training and
// fine-tuning) share it. Nothing outside src/estimate/ includes this header.
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "workload/workload.h"

namespace gpuplan::estimate::internal {

// The GPU the workload sees in one VM: per-GPU figures, scaled for slices.
struct Device {
  catalog::Gpu gpu;
  double per_vm = 1;      // GPUs per VM (fraction for slices)
  int whole_per_vm = 1;   // integer GPUs per VM for layouts (1 for slices)
  double memory_gib = 0;  // per device
};
Device device(const catalog::VmSize& size, const catalog::Gpu& gpu);

// The workload's `assumptions:` override of `name`, else `fallback`.
double override_or(const workload::Workload& w, const char* name, double fallback);

struct Ctx {
  const workload::Workload& w;
  const catalog::VmSize& size;
  const Device& dev;
  int count;
  bool explain;  // fill assumptions (skipped inside searches)
  Estimate& e;

  void add(std::string name, std::string value, std::string source) const {
    if (explain) e.assumptions.push_back({std::move(name), std::move(value), std::move(source)});
  }
};

// Device memory less the headroom (override memory_headroom).
double usable_gib(const workload::Workload& w, double device_gib);
std::string gib(double v);
// The assumptions every kind prints: model, precision, GPU peak and memory.
void add_common(const Ctx& c, const std::string& rate_note, double peak);
// memory_overhead_gib (not for batch jobs, whose memory is their own) and
// memory_headroom, each with its source.
void add_memory(const Ctx& c);

// Why `gpu` cannot run the workload's precision ("" when it can):
//  - serving needs a GPU the engine runs on at all (vLLM's GPU
//    requirements: NVIDIA compute capability 7.0 or higher; AMD MI200,
//    MI300, MI350 and Radeon RX 7900 / 9000 class: gfx90a, gfx942, gfx950,
//    gfx1100/1101, gfx1200/1201, gfx1150/1151);
//  - serving fp8 runs as W8A8 on FP8 tensor cores (NVIDIA compute
//    capability >= 8.9) and weight-only (FP8 Marlin, W8A16) from 7.5 (vLLM
//    docs, "FP8 W8A8" and "Supported Hardware" for quantization): Volta
//    (7.0) has neither; on AMD, FP8 W8A8 needs a GPU with an FP8 rate;
//  - serving int4 (AWQ, GPTQ) and int8 (W8A8, GPTQ) run on NVIDIA from
//    Volta (GPTQ; an upload its name calls AWQ from Turing) and on no AMD
//    GPU ("Supported Hardware"); MXFP4 (gpt-oss's experts, or an upload
//    its name calls MXFP4) needs Marlin's MXFP4 MoE on NVIDIA Ampere or
//    newer, or an MI300/MI350-class or Radeon AI PRO R9700 GPU (vLLM's
//    gpt-oss recipe, vllm-project/recipes OpenAI/GPT-OSS.md);
//    LoRA and QLoRA read a frozen base the same way;
//  - full training in fp8 needs FP8 tensor cores (NVIDIA Transformer
//    Engine's FP8 recipes run on Ada, Hopper and newer; AMD: a GPU with an
//    FP8 rate).
std::string precision_unsupported(const catalog::Gpu& gpu, const workload::Workload& w);

// estimate_train.cc: layout search, time per token and the assumptions.
void estimate_train(const Ctx& c);

}  // namespace gpuplan::estimate::internal
