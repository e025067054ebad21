// Workload YAML parser.
//
// Problem: a workload file is written by hand, so every mistake must come
// back as "file:line:column: field: what is wrong, what was expected", and a
// misspelt key must not be silently ignored (a misspelt `deadline_hours`
// would otherwise plan with no deadline). Approach: yaml-cpp builds the node
// tree (its marks carry 0-based line/column); we walk it with a small Reader
// that knows the file name and the dotted path of the current key, checks
// each mapping's keys against the allowed set (unknown → closest allowed key
// as "did you mean"), and converts scalars with type and range checks. After
// the walk, cross-field rules (sequence vs model context, kind-specific
// required fields) are checked with the mark of the offending key.
//
// Files: this one walks the top level (kind, the per-kind defaults, the
// cross-section rules and the combinations no framework runs);
// workload_model.cc reads `model:`, workload_sections.cc the other
// sections, yaml_reader.h is the walker, workload_terms.cc the
// enum names.
#include "workload/workload.h"

#include <filesystem>
#include <string>

#include <yaml-cpp/yaml.h>

#include "core/files.h"
#include "core/strings.h"
#include "workload/internal/sections.h"
#include "workload/models.h"
#include "workload/yaml_reader.h"

namespace gpuplan::workload {

using yaml::Reader;

namespace {

// How to ask for more context than a built-in model's config gives: the
// positions a model card reaches with RoPE scaling (YaRN: Qwen2.5 and Qwen3
// to 131,072) are the user's to state, as the engine needs rope_scaling
// set for them.
std::string longer_context_hint(const Model& m) {
  if (m.params_only || find_model(m.name) == nullptr) return "";
  return "; where the model reaches more with RoPE scaling (YaRN), say so: model: {base: " +
         m.name + ", max_context: N}";
}

// Kind-specific requirements: what each kind must say.
Status check_kind_rules(const Reader& r, const YAML::Node& root, const Workload& w) {
  const YAML::Node data = root["data"];
  switch (w.kind) {
    case Kind::kTrain:
    case Kind::kFinetune:
      if (!w.data.tokens && !w.data.samples) {
        return r.error(data ? data : root, "data.tokens",
                       "missing 'data.tokens' or 'data.samples' (how much to train on)");
      }
      if (w.data.seq_len > w.model.max_context) {
        return r.error(
            data && data["seq_len"] ? data["seq_len"] : (data ? data : root), "data.seq_len",
            "sequence length " + std::to_string(w.data.seq_len) +
                " is longer than the model's context (" + std::to_string(w.model.max_context) +
                " tokens for " + w.model.name + ")" + longer_context_hint(w.model));
      }
      break;
    case Kind::kInfer: {
      const YAML::Node s = root["serving"];
      if (!s) return r.error(root, "serving", "missing 'serving' (request_rate, tokens, slo)");
      // A service runs for its duration; it has nothing to finish by. A
      // deadline shorter than the duration dropped every option as "misses
      // deadline 24.2 h > 1.00 h" (exit 1).
      if (const YAML::Node c = root["constraints"]; c && c.IsMap() && c["deadline_hours"])
        return r.error(r.key_node(c, "deadline_hours"), "constraints.deadline_hours",
                       "a service has no deadline: it runs for serving.duration_hours (default "
                       "730, a month); drop deadline_hours, or set duration_hours");
      if (w.serving.request_rate <= 0 && w.serving.trace.empty()) {
        return r.error(s, "serving.request_rate", "missing 'request_rate' (requests/s) or 'trace'");
      }
      if (w.serving.input_tokens.mean <= 0) {
        return r.error(s, "serving.input_tokens", "missing 'input_tokens' (tokens per request)");
      }
      if (w.serving.output_tokens.mean <= 0) {
        return r.error(s, "serving.output_tokens", "missing 'output_tokens' (tokens per request)");
      }
      const double longest = w.serving.input_tokens.max + w.serving.output_tokens.max;
      if (longest > w.model.max_context) {
        return r.error(s["input_tokens"], "serving.input_tokens",
                       "input max + output max = " + strings::fixed(longest, 0) +
                           " tokens is longer than the model's context (" +
                           std::to_string(w.model.max_context) + " tokens for " + w.model.name +
                           ")" + longer_context_hint(w.model));
      }
      break;
    }
    case Kind::kBatch: {
      const YAML::Node b = root["batch"];
      if (!w.data.items) {
        return r.error(data ? data : root, "data.items", "missing 'data.items' (items to process)");
      }
      if (!b) return r.error(root, "batch", "missing 'batch' (seconds_per_item, reference_gpu)");
      if (w.batch.seconds_per_item <= 0) {
        return r.error(b, "batch.seconds_per_item", "missing 'seconds_per_item'");
      }
      if (w.batch.reference_gpu.empty()) {
        return r.error(b, "batch.reference_gpu", "missing 'reference_gpu' (e.g. A10, T4)");
      }
      break;
    }
  }
  if (w.constraints.hybrid_benefit && w.constraints.os != "windows") {
    return r.error(root["constraints"]["hybrid_benefit"], "constraints.hybrid_benefit",
                   "hybrid_benefit applies to os: windows only");
  }
  return {};
}

// Combinations no framework runs, rejected here so no plan is made for them:
//  - pretraining or full fine-tuning at int4: 4-bit formats (GPTQ, AWQ,
//    bitsandbytes NF4) quantise frozen weights for inference or for the frozen
//    base of QLoRA (Dettmers et al. 2023, "QLoRA", §2: gradients flow through
//    the 4-bit base into bf16 adapters only); the weight update of full
//    training needs a higher-precision master copy (Micikevicius et al. 2018,
//    "Mixed Precision Training", §3.1). (fp4 is not an accepted precision.)
//  - a micro-batch above the global batch: a step is global_batch sequences,
//    split into micro-batches of micro_batch per GPU.
// A sequence longer than the model's context is checked by check_kind_rules.
Status check_impossible(const Reader& r, const YAML::Node& root, const Workload& w) {
  const bool trains_weights =
      w.kind == Kind::kTrain || (w.kind == Kind::kFinetune && w.method == Method::kFull);
  // int8 likewise: 8-bit integer weights (LLM.int8, GPTQ 8-bit) are for
  // inference and frozen bases; fp8 training keeps a bf16 master copy.
  if (trains_weights && (w.precision == Precision::kInt4 || w.precision == Precision::kInt8)) {
    const bool four = w.precision == Precision::kInt4;
    return r.error(root["precision"] ? root["precision"] : root, "precision",
                   std::string(four ? "int4" : "int8") + " cannot " +
                       (w.kind == Kind::kTrain ? "pretrain" : "fully fine-tune") +
                       " a model: " + (four ? "4" : "8") +
                       "-bit integer weights are for inference or the frozen base of a LoRA or "
                       "QLoRA (use bf16 or fp8, or method: lora or qlora)");
  }
  const YAML::Node data = root["data"];
  if ((w.kind == Kind::kTrain || w.kind == Kind::kFinetune) && w.data.global_batch > 0 &&
      w.data.micro_batch > w.data.global_batch) {
    return r.error(data && data["micro_batch"] ? data["micro_batch"] : root, "data.micro_batch",
                   "micro_batch " + std::to_string(w.data.micro_batch) + " is above global_batch " +
                       std::to_string(w.data.global_batch) +
                       " (a step is global_batch sequences split into micro-batches)");
  }
  return {};
}

// The top-level keys other than kind and model: the scalar choices, and
// each section handed to its parser. `sharding_given` records whether the
// file chose a sharding (the default depends on the kind).
Status parse_top_key(const Reader& r, const std::string& k, const YAML::Node& v,
                     const std::string& f, Workload& w, bool& sharding_given) {
  if (k == "name") {
    GPUPLAN_TRY(w.name, r.string(v, f));
  } else if (k == "method") {
    GPUPLAN_TRY(size_t i, r.choice(v, f, {"full", "lora", "qlora"}));
    w.method = static_cast<Method>(i);
    if (w.kind != Kind::kFinetune && w.method != Method::kFull) {
      return r.error(v, f, "lora/qlora apply to kind finetune only");
    }
  } else if (k == "lora_rank") {
    GPUPLAN_TRY(w.lora_rank, r.positive_int(v, f));
  } else if (k == "precision") {
    GPUPLAN_TRY(size_t i, r.choice(v, f, {"fp32", "fp16", "bf16", "fp8", "int8", "int4"}));
    w.precision = static_cast<Precision>(i);
  } else if (k == "optimizer") {
    GPUPLAN_TRY(
        size_t i,
        r.choice(v, f, {"adamw", "adam", "adamw-8bit", "sgd", "sgd-momentum", "adafactor"}));
    w.optimizer = static_cast<Optimizer>(i);
  } else if (k == "sharding") {
    GPUPLAN_TRY(size_t i, r.choice(v, f, {"none", "zero1", "zero2", "zero3", "fsdp"}));
    w.zero_stage = i == 4 ? 3 : static_cast<int>(i);
    sharding_given = true;
  } else if (k == "recompute") {
    GPUPLAN_TRY(size_t i, r.choice(v, f, {"none", "selective", "full"}));
    w.recompute = static_cast<Recompute>(i);
    w.recompute_given = true;
  } else if (k == "data") {
    return internal::parse_data(r, v, f, w.data);
  } else if (k == "serving") {
    return internal::parse_serving(r, v, f, w.serving);
  } else if (k == "batch") {
    return internal::parse_batch(r, v, f, w.batch);
  } else if (k == "constraints") {
    return internal::parse_constraints(r, v, w.constraints);
  } else if (k == "assumptions") {
    return internal::parse_assumptions(r, v, f, w.kind, w.overrides);
  }
  return {};
}

Result<Workload> parse_root(const Reader& r, const YAML::Node& root) {
  Workload w;
  if (!root || root.IsNull()) {
    return invalid_argument("empty workload file (expected at least `kind:` and `model:`)",
                            Where{r.file(), 1, 1, ""});
  }
  GPUPLAN_RETURN_IF_ERROR(r.check_map(
      root, "",
      {"kind", "name", "model", "method", "lora_rank", "precision", "optimizer", "sharding",
       "recompute", "data", "serving", "batch", "constraints", "assumptions"}));
  if (!root["kind"]) {
    return r.error(root, "kind", "missing 'kind' (train, finetune, infer, batch or render)");
  }
  {
    GPUPLAN_TRY(size_t i,
                r.choice(root["kind"], "kind", {"train", "finetune", "infer", "batch", "render"}));
    w.kind = i == 4 ? Kind::kBatch : static_cast<Kind>(i);
  }
  // Defaults that depend on the kind (docs/workload.md).
  if (w.kind == Kind::kInfer) w.precision = Precision::kBf16;

  if (root["model"]) {
    GPUPLAN_RETURN_IF_ERROR(internal::parse_model(r, root["model"], w.model));
  } else if (w.kind != Kind::kBatch) {
    return r.error(root, "model",
                   "missing 'model' (a built-in name such as llama-3.1-8b, or "
                   "an architecture)");
  }

  bool sharding_given = false;
  GPUPLAN_RETURN_IF_ERROR(yaml::for_each(
      root, "", [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
        return parse_top_key(r, k, v, f, w, sharding_given);
      }));
  // Full fine-tuning and pretraining of big models need sharded optimizer
  // states; the default is ZeRO-1 (Megatron's distributed optimizer) unless given.
  if (!sharding_given && (w.kind == Kind::kTrain || w.kind == Kind::kFinetune)) w.zero_stage = 1;
  if (w.kind == Kind::kFinetune && w.method == Method::kQlora && !root["precision"]) {
    w.precision = Precision::kBf16;  // compute dtype; weights are 4-bit (NF4)
  }
  // Serving with no precision reads the weights as the model publishes them
  // (an engine loads DeepSeek-V3's FP8 checkpoint as FP8); training keeps
  // 16 bits.
  if (root["precision"]) {
    w.precision_source = "workload file";
  } else if (w.kind == Kind::kInfer && w.model.released != w.precision) {
    serve_released_weights(w);
  }

  GPUPLAN_RETURN_IF_ERROR(check_kind_rules(r, root, w));
  GPUPLAN_RETURN_IF_ERROR(check_impossible(r, root, w));
  return w;
}

}  // namespace

void serve_released_weights(Workload& w) {
  w.precision = w.model.released;
  w.precision_source = w.model.released_source.empty()
                           ? "the model's released weights"
                           : "the model's released weights: " + w.model.released_source +
                                 " (precision: bf16 serves 16-bit copies)";
}

Result<Workload> parse_string(std::string_view text, const std::string& name) {
  Reader r(name);
  GPUPLAN_TRY(YAML::Node root, yaml::load(text, name));
  try {
    GPUPLAN_TRY(Workload w, parse_root(r, root));
    w.file = name;
    if (w.name.empty()) w.name = std::filesystem::path(name).stem().string();
    return w;
  } catch (const YAML::Exception& e) {
    // yaml-cpp throws on conversions we did not guard; never crash.
    Where w{name, e.mark.line >= 0 ? e.mark.line + 1 : 0,
            e.mark.column >= 0 ? e.mark.column + 1 : 0, ""};
    return invalid_argument(e.msg, w);
  }
}

Result<Workload> parse_file(const std::string& path) {
  GPUPLAN_TRY(std::string text, files::read_text(path));
  return parse_string(text, path);
}

}  // namespace gpuplan::workload
