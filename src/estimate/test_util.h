// Fixtures shared by the estimator's tests: datasheet GPUs, VM sizes, workloads.
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "workload/models.h"
#include "workload/workload.h"

namespace gpuplan::estimate {

using workload::Kind;
using workload::Method;
using workload::Precision;
using workload::Recompute;

inline std::string src(const std::string& rel) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/" + rel;
}

inline catalog::Gpu a100() {
  catalog::Gpu g;
  g.model = "A100-80GB-SXM";
  g.fp32_tflops = 19.5;
  g.tf32_tflops = 156;
  g.fp16_tflops = 312;
  g.bf16_tflops = 312;
  g.memory_gib = 80;
  g.memory_bw_gbs = 2039;
  g.interconnect_gbs = 600;
  return g;
}
// V100 SXM2 32 GB (NVIDIA V100 datasheet: 125 TFLOP/s tensor, 900 GB/s,
// 300 GB/s NVLink).
inline catalog::Gpu v100() {
  catalog::Gpu g;
  g.model = "V100-32GB";
  g.fp16_tflops = 125;
  g.fp32_tflops = 15.7;
  g.memory_gib = 32;
  g.memory_bw_gbs = 900;
  g.interconnect_gbs = 300;
  return g;
}
inline catalog::Gpu h100() {
  catalog::Gpu g = a100();
  g.model = "H100-SXM";
  g.fp32_tflops = 67;
  g.fp16_tflops = g.bf16_tflops = 989.5;
  g.fp8_tflops = 1979;
  g.memory_bw_gbs = 3350;
  g.interconnect_gbs = 900;
  return g;
}
inline catalog::Gpu t4() {
  catalog::Gpu g;
  g.model = "T4";
  g.fp32_tflops = 8.1;
  g.fp16_tflops = 65;
  g.memory_gib = 16;
  g.memory_bw_gbs = 320;
  return g;
}
inline catalog::Gpu a10() {
  catalog::Gpu g;
  g.model = "A10";
  g.fp32_tflops = 31.2;
  g.fp16_tflops = g.bf16_tflops = 125;
  g.memory_gib = 24;
  g.memory_bw_gbs = 600;
  return g;
}

inline catalog::VmSize vm(const std::string& name, const catalog::Gpu& g, double count, bool nvlink,
                          double ib_gbps) {
  catalog::VmSize s;
  s.name = name;
  s.gpu_model = g.model;
  s.gpu_count = count;
  s.gpu_memory_gib = g.memory_gib * count;
  s.nvlink = nvlink;
  s.infiniband_gbps = ib_gbps;
  return s;
}

inline workload::Workload train(const std::string& model, double tokens = 1e9) {
  workload::Workload w;
  w.kind = Kind::kTrain;
  w.model = *workload::find_model(model);
  w.data.tokens = tokens;
  w.data.seq_len = 2048;
  w.zero_stage = 0;
  w.recompute = Recompute::kSelective;
  return w;
}

inline workload::Workload serve(const std::string& model, double rate) {
  workload::Workload w;
  w.kind = Kind::kInfer;
  w.model = *workload::find_model(model);
  w.serving.request_rate = rate;
  w.serving.input_tokens.mean = w.serving.input_tokens.max = 512;
  w.serving.output_tokens.mean = w.serving.output_tokens.max = 128;
  w.serving.ttft_ms = 1000;
  w.serving.tpot_ms = 50;
  return w;
}

}  // namespace gpuplan::estimate
