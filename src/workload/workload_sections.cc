// The sections of a workload file other than `model:` and the top-level
// keys: `data:` (how much to train on or process), `serving:` (request rate
// or trace, token distributions, SLO), `batch:` (seconds per item on a
// reference GPU), `constraints:` (deadline, budget, regions, OS, spot,
// limits, growth) and `assumptions:` (overrides of the estimator's
// constants). Each parser checks its mapping's keys, converts each value
// with its range, and fills one part of the Workload; the rules that cross
// sections (what each kind must say) are in workload.cc.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/names.h"
#include "core/strings.h"
#include "workload/internal/sections.h"
#include "workload/workload.h"

namespace gpuplan::workload::internal {

// Ceilings of the workload's amounts, far above any real job, so that a
// typo or a hostile file gets its line and field instead of answers in
// 300-digit hours, inf tokens or an error blamed on a flag it never set
// (`tokens: 5e307` overflowed the data's Blob storage and `plan` said
// "--blob-gb: Blob storage cannot be negative"):
constexpr double kMaxTokens = 1e15;  // Llama 3 trained on 1.56e13 (Meta, 2024)
constexpr double kMaxEpochs = 1e4;
constexpr double kMaxSecondsPerItem = 7 * 86400.0;  // an item a week: longer is no batch item
// GPU memory an item needs: above any GPU built (GB300: 288 GB) by far.
constexpr double kMaxGpuMemoryGib = 10000;
constexpr double kMaxBytesPerSample = 1e10;  // 10 GB: a long video clip
constexpr double kMaxGrowthPerWeek = 10;     // x11 a week
constexpr double kMaxLatencyMs = 1e7;        // TTFT/TPOT under three hours
constexpr double kMaxRequestRate = 1e7;      // requests/s, all of a large service
constexpr double kMaxDurationHours = 87600;  // ten years
// The plan flags' ceilings (src/cli/number_flags.h): --budget up to 1e12
// USD, --deadline-hours up to 1e6 h. `budget_usd: 1e300` grown 10x a week
// overflowed to inf by week 9 and printed as an empty budget.
constexpr double kMaxBudgetUsd = 1e12;
constexpr double kMaxDeadlineHours = 1e6;

Status parse_tokens(const Reader& r, const YAML::Node& node, const std::string& field,
                    TokenDistribution& out) {
  // A request has at least one token each way: 0.5 input and 0.3 output
  // tokens were accepted and served as 42,321 req/s an H100 (the Little's-law
  // term went negative).
  constexpr const char* kAtLeastOne = "a request has at least 1 token";
  if (node.IsScalar()) {
    GPUPLAN_TRY(double v, r.positive(node, field));
    if (v < 1) return r.error(node, field, kAtLeastOne);
    out.shape = "fixed";
    out.mean = v;
    out.min = v;
    out.max = v;
    return {};
  }
  GPUPLAN_RETURN_IF_ERROR(
      r.check_map(node, field, {"distribution", "mean", "stddev", "min", "max"}));
  if (!node["mean"]) return r.error(node, field + ".mean", "missing 'mean' (tokens)");
  Status walked = for_each(
      node, field, [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
        if (k == "distribution") {
          GPUPLAN_TRY(size_t i, r.choice(v, f, {"fixed", "uniform", "lognormal"}));
          out.shape = std::vector<std::string>{"fixed", "uniform", "lognormal"}[i];
        } else if (k == "mean") {
          GPUPLAN_TRY(out.mean, r.positive(v, f));
        } else if (k == "stddev") {
          GPUPLAN_TRY(out.stddev, r.non_negative(v, f));
        } else if (k == "min") {
          GPUPLAN_TRY(out.min, r.positive(v, f));
        } else if (k == "max") {
          GPUPLAN_TRY(out.max, r.positive(v, f));
        }
        return {};
      });
  if (!walked) return tl::unexpected(walked.error());
  if (!node["min"]) out.min = out.shape == "fixed" ? out.mean : 1;
  if (!node["max"]) {
    out.max = out.shape == "fixed"     ? out.mean
              : out.shape == "uniform" ? 2 * out.mean - out.min
                                       : out.mean + 4 * out.stddev;
  }
  if (out.max < out.mean || out.min > out.mean) {
    return r.error(node, field, "need min <= mean <= max");
  }
  if (out.min < 1) return r.error(node["min"] ? node["min"] : node["mean"], field, kAtLeastOne);
  return {};
}

namespace {

// constraints.regions: one region name or a list of them, lower-cased.
Status parse_regions(const Reader& r, const YAML::Node& v, const std::string& f,
                     std::vector<std::string>& out) {
  auto add = [&](const YAML::Node& e) -> Status {
    GPUPLAN_TRY(std::string s, r.string(e, f));
    s = strings::to_lower(s);
    if (!names::is_region(s))
      return r.error(
          e, f,
          "'" + names::printable(s) +
              "' is not an Azure region name (lower-case letters and digits, e.g. eastus)");
    out.push_back(s);
    return {};
  };
  if (v.IsScalar()) {
    GPUPLAN_RETURN_IF_ERROR(add(v));
  } else if (v.IsSequence()) {
    for (const auto& e : v) GPUPLAN_RETURN_IF_ERROR(add(e));
  } else {
    return r.error(v, f, "expected a list of region names ([eastus, westeurope])");
  }
  return {};
}

}  // namespace

Status parse_constraints(const Reader& r, const YAML::Node& node, Constraints& c) {
  const std::string field = "constraints";
  GPUPLAN_RETURN_IF_ERROR(
      r.check_map(node, field,
                  {"deadline_hours", "budget_usd", "regions", "data_region", "os", "hybrid_benefit",
                   "spot", "max_gpus", "max_nodes", "series", "confidential", "horizon_weeks",
                   "repeat", "budget_growth_per_week", "checkpoint_hours"}));
  return for_each(
      node, field, [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
        if (k == "deadline_hours") {
          GPUPLAN_TRY(double d, r.positive(v, f, kMaxDeadlineHours));
          c.deadline_hours = d;
        } else if (k == "budget_usd") {
          GPUPLAN_TRY(double b, r.positive(v, f, kMaxBudgetUsd));
          c.budget_usd = b;
        } else if (k == "regions") {
          GPUPLAN_RETURN_IF_ERROR(parse_regions(r, v, f, c.regions));
        } else if (k == "data_region") {
          GPUPLAN_TRY(std::string s, r.string(v, f));
          c.data_region = strings::to_lower(s);
          if (!names::is_region(c.data_region))
            return r.error(v, f,
                           "'" + names::printable(s) +
                               "' is not an Azure region name (lower-case letters and digits, e.g. "
                               "westeurope)");
        } else if (k == "os") {
          GPUPLAN_TRY(size_t i, r.choice(v, f, {"linux", "windows"}));
          c.os = i == 0 ? "linux" : "windows";
        } else if (k == "hybrid_benefit") {
          GPUPLAN_TRY(c.hybrid_benefit, r.boolean(v, f));
        } else if (k == "spot") {
          GPUPLAN_TRY(size_t i, r.choice(v, f, {"never", "allowed", "preferred"}));
          c.spot = static_cast<Spot>(i);
        } else if (k == "max_gpus") {
          GPUPLAN_TRY(c.max_gpus, r.positive_int(v, f));
        } else if (k == "max_nodes") {
          // At most one scale set's VMs (Microsoft Learn, "Virtual Machine
          // Scale Sets overview": 1,000), refused here at its line; plan
          // refused it later, naming no place.
          GPUPLAN_TRY(c.max_nodes, r.positive_int(v, f));
          if (c.max_nodes > 1000)
            return r.error(v, f,
                           std::to_string(c.max_nodes) +
                               " is above 1000, the most VMs one scale set holds; split the "
                               "work or lower it");
        } else if (k == "confidential") {
          GPUPLAN_TRY(c.confidential, r.boolean(v, f));
        } else if (k == "horizon_weeks") {
          GPUPLAN_TRY(c.horizon_weeks, r.positive_int(v, f));
          if (c.horizon_weeks > kMaxHorizonWeeks) {
            return r.error(v, f, "at most " + std::to_string(kMaxHorizonWeeks) + " weeks (a year)");
          }
        } else if (k == "repeat") {
          GPUPLAN_TRY(size_t i, r.choice(v, f, {"none", "weekly", "monthly"}));
          c.repeat = static_cast<Repeat>(i);
        } else if (k == "budget_growth_per_week") {
          GPUPLAN_TRY(c.budget_growth_per_week, r.number(v, f, 0, kMaxGrowthPerWeek));
        } else if (k == "checkpoint_hours") {
          GPUPLAN_TRY(double h, r.positive(v, f));
          c.checkpoint_hours = h;
        } else if (k == "series") {
          if (v.IsScalar()) {
            c.series.push_back(v.Scalar());
          } else if (v.IsSequence()) {
            for (const auto& e : v) {
              GPUPLAN_TRY(std::string s, r.string(e, f));
              c.series.push_back(s);
            }
          } else {
            return r.error(v, f,
                           "expected a list of VM families or series ([NV], [NCads_H100_v5])");
          }
        }
        return {};
      });
}

Status parse_data(const Reader& r, const YAML::Node& node, const std::string& field, Data& out) {
  GPUPLAN_RETURN_IF_ERROR(
      r.check_map(node, field,
                  {"tokens", "samples", "seq_len", "epochs", "global_batch", "micro_batch", "items",
                   "growth_per_week", "bytes_per_sample"}));
  return for_each(node, field,
                  [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
                    if (k == "tokens") {
                      GPUPLAN_TRY(double t, r.positive(v, f, kMaxTokens));
                      out.tokens = t;
                    } else if (k == "samples") {
                      GPUPLAN_TRY(double s, r.positive(v, f, kMaxTokens));
                      out.samples = s;
                    } else if (k == "seq_len") {
                      GPUPLAN_TRY(out.seq_len, r.positive_int(v, f));
                    } else if (k == "epochs") {
                      GPUPLAN_TRY(out.epochs, r.positive(v, f, kMaxEpochs));
                    } else if (k == "global_batch") {
                      GPUPLAN_TRY(out.global_batch, r.positive_int(v, f));
                    } else if (k == "micro_batch") {
                      GPUPLAN_TRY(out.micro_batch, r.positive_int(v, f));
                    } else if (k == "items") {
                      GPUPLAN_TRY(double it, r.positive(v, f, kMaxTokens));
                      out.items = it;
                    } else if (k == "growth_per_week") {
                      GPUPLAN_TRY(out.growth_per_week, r.number(v, f, 0, kMaxGrowthPerWeek));
                    } else if (k == "bytes_per_sample") {
                      GPUPLAN_TRY(double b, r.positive(v, f, kMaxBytesPerSample));
                      out.bytes_per_sample = b;
                    }
                    return {};
                  });
}

namespace {

// serving.slo: {ttft_ms, tpot_ms, percentile}.
Status parse_slo(const Reader& r, const YAML::Node& node, const std::string& field, Serving& out) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(node, field, {"ttft_ms", "tpot_ms", "percentile"}));
  return for_each(node, field,
                  [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
                    if (k == "ttft_ms") {
                      GPUPLAN_TRY(out.ttft_ms, r.positive(v, f, kMaxLatencyMs));
                    } else if (k == "tpot_ms") {
                      GPUPLAN_TRY(out.tpot_ms, r.positive(v, f, kMaxLatencyMs));
                    } else {
                      GPUPLAN_TRY(double p, r.positive(v, f));
                      if (p >= 100) return r.error(v, f, "percentile must be below 100 (e.g. 99)");
                      out.percentile = p;
                    }
                    return {};
                  });
}

}  // namespace

Status parse_serving(const Reader& r, const YAML::Node& node, const std::string& field,
                     Serving& out) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(
      node, field,
      {"request_rate", "trace", "input_tokens", "output_tokens", "slo", "duration_hours"}));
  return for_each(node, field,
                  [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
                    if (k == "request_rate") {
                      GPUPLAN_TRY(out.request_rate, r.positive(v, f, kMaxRequestRate));
                    } else if (k == "trace") {
                      GPUPLAN_TRY(out.trace, r.string(v, f));
                    } else if (k == "input_tokens") {
                      return parse_tokens(r, v, f, out.input_tokens);
                    } else if (k == "output_tokens") {
                      return parse_tokens(r, v, f, out.output_tokens);
                    } else if (k == "duration_hours") {
                      GPUPLAN_TRY(out.duration_hours, r.positive(v, f, kMaxDurationHours));
                    } else if (k == "slo") {
                      return parse_slo(r, v, f, out);
                    }
                    return {};
                  });
}

Status parse_batch(const Reader& r, const YAML::Node& node, const std::string& field,
                   BatchJob& out) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(
      node, field, {"seconds_per_item", "reference_gpu", "scales_with", "min_gpu_memory_gib"}));
  return for_each(
      node, field, [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
        if (k == "seconds_per_item") {
          // A week an item at most: 1e308 s made every hour and cost inf
          // and NaN (exit 0, and null in plan's JSON).
          GPUPLAN_TRY(out.seconds_per_item, r.positive(v, f, kMaxSecondsPerItem));
        } else if (k == "reference_gpu") {
          GPUPLAN_TRY(out.reference_gpu, r.string(v, f));
        } else if (k == "scales_with") {
          GPUPLAN_TRY(size_t i, r.choice(v, f, {"fp32", "fp16", "bf16", "memory_bw"}));
          out.scales_with = std::vector<std::string>{"fp32", "fp16", "bf16", "memory_bw"}[i];
        } else if (k == "min_gpu_memory_gib") {
          GPUPLAN_TRY(out.min_gpu_memory_gib, r.number(v, f, 0, kMaxGpuMemoryGib));
        }
        return {};
      });
}

// Every override is > 0 but memory_headroom, which may be 0 (use all the
// memory) and is below 1 (1 left none: usable memory printed negative);
// all but memory_overhead_gib (GiB) are fractions. Each applies to the kinds
// whose estimate reads it (src/estimate: mfu in estimate_train.cc, the
// serving efficiencies in throughput_model.cc, batch_efficiency and the
// batch kind's memory in estimate.cc).
constexpr double kMinEfficiency = 0.01;

Status parse_assumptions(const Reader& r, const YAML::Node& node, const std::string& field,
                         Kind kind, std::map<std::string, double>& overrides) {
  GPUPLAN_RETURN_IF_ERROR(r.check_map(node, field, kOverridableAssumptions));
  const bool training = kind == Kind::kTrain || kind == Kind::kFinetune;
  return for_each(
      node, field, [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
        std::string applies;
        if (k == "mfu" && !training) {
          applies = "mfu applies to train and finetune (" +
                    std::string(kind == Kind::kInfer
                                    ? "a service's speed is serving_compute_efficiency and "
                                      "serving_bandwidth_efficiency"
                                    : "a batch job's speed is batch_efficiency") +
                    ")";
        } else if (k.rfind("serving_", 0) == 0 && kind != Kind::kInfer) {
          applies = k + " applies to infer";
        } else if (k == "batch_efficiency" && kind != Kind::kBatch) {
          applies = "batch_efficiency applies to batch and render";
        } else if (k == "memory_overhead_gib" && kind == Kind::kBatch) {
          applies =
              "memory_overhead_gib applies to models (train, finetune, infer); a batch job's "
              "memory is batch.min_gpu_memory_gib";
        }
        if (!applies.empty()) return r.error(v, f, applies);
        if (k == "memory_headroom") {
          GPUPLAN_TRY(double x, r.number(v, f, 0, 1));
          if (x >= 1)
            return r.error(v, f,
                           "must be below 1 (the share of GPU memory kept free; 1 leaves none)");
          overrides[k] = x;
          return {};
        }
        if (k == "serving_kv_cache_bytes") {
          GPUPLAN_TRY(double x, r.number(v, f, 1, 4));
          if (x != 1 && x != 2 && x != 4)
            return r.error(v, f, "bytes a KV-cache value takes: 1 (fp8), 2 (bf16, fp16) or 4");
          overrides[k] = x;
          return {};
        }
        if (k == "serving_max_seqs") {
          // A whole count; vLLM takes any, TensorRT-LLM's max_batch_size
          // tops out in the thousands: a million is no cap at all.
          GPUPLAN_TRY(double x, r.number(v, f, 1, 1e6));
          if (x != std::floor(x)) return r.error(v, f, "a whole number of sequences");
          overrides[k] = x;
          return {};
        }
        if (k == "memory_overhead_gib") {
          GPUPLAN_TRY(double x, r.positive(v, f, kMaxGpuMemoryGib));
          overrides[k] = x;
          return {};
        }
        // An efficiency: no job runs below 1 % of its GPU's rate (the
        // lowest MFU published for a real run, V100 pipelines, is ~10 %);
        // 1e-300 made hours overflow to inf and costs print nan.
        GPUPLAN_TRY(double x, r.number(v, f, kMinEfficiency, 1));
        overrides[k] = x;
        return {};
      });
}

}  // namespace gpuplan::workload::internal
