// The workload vocabulary: the names of its enums (kind, method,
// precision, optimizer, recompute, spot, repeat) as the YAML and the reports
// spell them, the bytes a value takes at each precision, the token count a
// training run reads, and the list of estimator assumptions a workload file
// may override. Pure functions; the parser lives in workload.cc.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "workload/workload.h"

namespace gpuplan::workload {

std::string_view to_string(Kind k) {
  switch (k) {
    case Kind::kTrain:
      return "train";
    case Kind::kFinetune:
      return "finetune";
    case Kind::kInfer:
      return "infer";
    case Kind::kBatch:
      return "batch";
  }
  return "?";
}
std::string_view to_string(Method m) {
  switch (m) {
    case Method::kFull:
      return "full";
    case Method::kLora:
      return "lora";
    case Method::kQlora:
      return "qlora";
  }
  return "?";
}
std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp8:
      return "fp8";
    case Precision::kInt8:
      return "int8";
    case Precision::kInt4:
      return "int4";
  }
  return "?";
}
std::optional<Precision> precision_named(std::string_view name) {
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16, Precision::kFp8,
                      Precision::kInt8, Precision::kInt4}) {
    const std::string_view n = to_string(p);
    if (name.size() == n.size() && std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
          return a == std::tolower(static_cast<unsigned char>(b));
        }))
      return p;
  }
  return std::nullopt;
}
std::string_view to_string(Optimizer o) {
  switch (o) {
    case Optimizer::kAdamW:
      return "adamw";
    case Optimizer::kAdam:
      return "adam";
    case Optimizer::kAdamW8bit:
      return "adamw-8bit";
    case Optimizer::kSgd:
      return "sgd";
    case Optimizer::kSgdMomentum:
      return "sgd-momentum";
    case Optimizer::kAdafactor:
      return "adafactor";
  }
  return "?";
}
std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "?";
}
std::string_view to_string(Spot s) {
  switch (s) {
    case Spot::kNever:
      return "never";
    case Spot::kAllowed:
      return "allowed";
    case Spot::kPreferred:
      return "preferred";
  }
  return "?";
}

std::string_view to_string(Repeat r) {
  switch (r) {
    case Repeat::kNone:
      return "none";
    case Repeat::kWeekly:
      return "weekly";
    case Repeat::kMonthly:
      return "monthly";
  }
  return "?";
}

double bytes_per_value(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return 4;
    case Precision::kFp16:
    case Precision::kBf16:
      return 2;
    case Precision::kFp8:
    case Precision::kInt8:
      return 1;
    case Precision::kInt4:
      return 0.5;
  }
  return 2;
}

double Workload::total_tokens() const {
  double tokens = 0;
  if (data.tokens) {
    tokens = *data.tokens;
  } else if (data.samples) {
    tokens = *data.samples * data.seq_len;
  }
  return tokens * data.epochs;
}

const std::vector<std::string> kOverridableAssumptions = {
    "mfu",                           // model FLOPs utilization, 0..1 (train/finetune)
    "memory_overhead_gib",           // per GPU framework + CUDA context
    "memory_headroom",               // fraction of GPU memory kept free, [0, 1)
    "serving_compute_efficiency",    // achieved / peak FLOP/s in prefill
    "serving_bandwidth_efficiency",  // achieved / peak bytes/s in decode
    "serving_kv_cache_bytes",        // bytes a KV-cache value takes (1 fp8, 2 bf16)
    "serving_max_seqs",              // the engine's cap on sequences in flight per replica
    "batch_efficiency",              // achieved / spec-ratio speed for batch items
};

}  // namespace gpuplan::workload
