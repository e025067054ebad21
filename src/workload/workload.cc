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
#include "workload/workload.h"

#include <cmath>
#include <filesystem>
#include <set>

#include <yaml-cpp/yaml.h>

#include "core/files.h"
#include "core/names.h"
#include "core/strings.h"
#include "workload/models.h"
#include "workload/yaml_load.h"

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
    "memory_headroom",               // fraction of GPU memory kept free, 0..0.5
    "serving_compute_efficiency",    // achieved / peak FLOP/s in prefill
    "serving_bandwidth_efficiency",  // achieved / peak bytes/s in decode
    "batch_efficiency",              // achieved / spec-ratio speed for batch items
};

namespace {

using Mark = YAML::Mark;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[nodiscard]] Where where(const YAML::Node& node, const std::string& field) const {
    Mark m = node.Mark();
    Where w{file_, 0, 0, field};
    if (m.line >= 0) {
      w.line = m.line + 1;
      w.column = m.column + 1;
    }
    return w;
  }
  [[nodiscard]] tl::unexpected<Error> error(const YAML::Node& node, const std::string& field,
                                            std::string msg) const {
    return invalid_argument(std::move(msg), where(node, field));
  }

  // Checks that `node` is a mapping whose keys are all in `allowed`.
  [[nodiscard]] Status check_map(const YAML::Node& node, const std::string& path,
                                 const std::vector<std::string>& allowed) const {
    if (!node.IsMap()) {
      return error(node, path, "expected a mapping of keys (key: value)");
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      // A copy: `it->` yields a temporary, a reference would dangle.
      const YAML::Node k = it->first;
      if (!k.IsScalar()) return error(k, path, "expected a plain key");
      const std::string name = k.Scalar();
      if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
      std::string msg = "unknown key '" + name + "'";
      if (auto c = strings::closest(name, allowed)) {
        msg += "; did you mean '" + *c + "'?";
      } else {
        msg += "; expected one of:";
        for (size_t i = 0; i < allowed.size(); ++i) msg += (i ? ", " : " ") + allowed[i];
      }
      return error(k, join(path, name), msg);
    }
    return {};
  }

  // The key node of `name` in `map` (for marks), or the map itself.
  [[nodiscard]] YAML::Node key_node(const YAML::Node& map, const std::string& name) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == name) return it->first;
    }
    return map;
  }

  [[nodiscard]] Result<std::string> string(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) return error(node, field, "expected a string");
    return node.Scalar();
  }

  [[nodiscard]] Result<double> number(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) return error(node, field, "expected a number");
    std::string text = node.Scalar();
    // Allow digit grouping with '_' ("2_000_000_000").
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    auto v = strings::parse_double(text);
    if (!v) return error(node, field, "expected a number, got '" + node.Scalar() + "'");
    return *v;
  }
  [[nodiscard]] Result<double> positive(const YAML::Node& node, const std::string& field) const {
    GPUPLAN_TRY(double v, number(node, field));
    if (!(v > 0)) return error(node, field, "must be greater than 0, got " + node.Scalar());
    return v;
  }
  [[nodiscard]] Result<double> non_negative(const YAML::Node& node,
                                            const std::string& field) const {
    GPUPLAN_TRY(double v, number(node, field));
    if (v < 0) return error(node, field, "must not be negative, got " + node.Scalar());
    return v;
  }
  [[nodiscard]] Result<int> positive_int(const YAML::Node& node, const std::string& field) const {
    GPUPLAN_TRY(double v, number(node, field));
    if (v != std::floor(v) || std::abs(v) > 2e9) {
      return error(node, field, "expected a whole number, got '" + node.Scalar() + "'");
    }
    if (v <= 0) return error(node, field, "must be greater than 0, got " + node.Scalar());
    return static_cast<int>(v);
  }
  [[nodiscard]] Result<bool> boolean(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) return error(node, field, "expected true or false");
    const std::string s = strings::to_lower(node.Scalar());
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
    return error(node, field, "expected true or false, got '" + node.Scalar() + "'");
  }
  // One of `choices` (case-insensitive); returns its index.
  [[nodiscard]] Result<size_t> choice(const YAML::Node& node, const std::string& field,
                                      const std::vector<std::string>& choices) const {
    GPUPLAN_TRY(std::string s, string(node, field));
    const std::string low = strings::to_lower(s);
    for (size_t i = 0; i < choices.size(); ++i) {
      if (choices[i] == low) return i;
    }
    std::string msg = "unknown value '" + s + "'";
    if (auto c = strings::closest(s, choices)) msg += "; did you mean '" + *c + "'?";
    msg += " (expected one of:";
    for (size_t i = 0; i < choices.size(); ++i) msg += (i ? ", " : " ") + choices[i];
    msg += ")";
    return error(node, field, msg);
  }

  [[nodiscard]] static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// Iterates the keys of a checked map: fn(key, value, field).
template <typename Fn>
Status for_each(const YAML::Node& map, const std::string& path, Fn&& fn) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    GPUPLAN_RETURN_IF_ERROR(fn(key, it->second, Reader::join(path, key)));
  }
  return {};
}

Status parse_model(const Reader& r, const YAML::Node& node, Model& out) {
  const std::string field = "model";
  if (node.IsScalar()) {
    const Model* m = find_model(node.Scalar());
    if (!m) {
      std::string msg = "unknown model '" + node.Scalar() + "'";
      if (auto c = strings::closest(node.Scalar(), model_names())) {
        msg += "; did you mean '" + *c + "'?";
      } else {
        msg +=
            "; give the architecture instead (model: {params_b: 7} or layers/hidden/...),"
            " or see docs/workload.md for the built-in names";
      }
      return not_found(msg, r.where(node, field));
    }
    out = *m;
    return {};
  }
  static const std::vector<std::string> kKeys = {
      "base", "name",  "params_b",    "layers",  "hidden",         "heads",     "kv_heads",
      "ffn",  "vocab", "max_context", "experts", "experts_active", "gated_ffn", "tied_embeddings"};
  GPUPLAN_RETURN_IF_ERROR(r.check_map(node, field, kKeys));
  Model m;
  m.name = "custom";
  m.source = "workload file";
  if (node["base"]) {
    const YAML::Node b = node["base"];
    const Model* base = find_model(b.IsScalar() ? b.Scalar() : "");
    if (!base) {
      std::string msg = "unknown base model '" + (b.IsScalar() ? b.Scalar() : "") + "'";
      if (b.IsScalar()) {
        if (auto c = strings::closest(b.Scalar(), model_names()))
          msg += "; did you mean '" + *c + "'?";
      }
      return not_found(msg, r.where(b, "model.base"));
    }
    m = *base;
    m.source = base->source + " (fields overridden in the workload file)";
  }
  bool any_arch = false;
  std::optional<double> params;
  YAML::Node params_node;
  Status walked = for_each(
      node, field, [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
        if (k == "base") return {};
        if (k == "name") {
          GPUPLAN_TRY(m.name, r.string(v, f));
          return {};
        }
        if (k == "params_b") {
          GPUPLAN_TRY(double p, r.positive(v, f));
          params = p;
          params_node = v;
          return {};
        }
        if (k == "gated_ffn") {
          GPUPLAN_TRY(m.gated_ffn, r.boolean(v, f));
          return {};
        }
        if (k == "tied_embeddings") {
          GPUPLAN_TRY(m.tied_embeddings, r.boolean(v, f));
          return {};
        }
        GPUPLAN_TRY(int x, r.positive_int(v, f));
        if (k == "layers") m.layers = x, any_arch = true;
        if (k == "hidden") m.hidden = x, any_arch = true;
        if (k == "heads") m.heads = x, any_arch = true;
        if (k == "kv_heads") m.kv_heads = x, any_arch = true;
        if (k == "ffn") m.ffn = x, any_arch = true;
        if (k == "vocab") m.vocab = x;
        if (k == "max_context") m.max_context = x;
        if (k == "experts") m.experts = x, any_arch = true;
        if (k == "experts_active") m.experts_active = x, any_arch = true;
        return {};
      });
  if (!walked) return tl::unexpected(walked.error());
  const bool has_base = static_cast<bool>(node["base"]);
  if (!has_base && !any_arch) {
    if (!params) {
      return r.error(node, field,
                     "give a built-in model name, `base:`, `params_b:` or the "
                     "architecture (layers, hidden, heads, ffn, vocab)");
    }
    m.params_b = *params;
    m.params_only = true;
    shape_from_params(m);
    m.active_params_b = m.params_b;
    out = m;
    return {};
  }
  // An explicit architecture: every shape field must be present.
  if (!has_base) {
    for (const char* need : {"layers", "hidden", "heads", "ffn", "vocab"}) {
      if (!node[need]) {
        return r.error(node, std::string("model.") + need,
                       std::string("missing '") + need +
                           "' (an explicit architecture needs "
                           "layers, hidden, heads, ffn and vocab)");
      }
    }
    if (!node["kv_heads"]) m.kv_heads = m.heads;
    if (!node["max_context"]) m.max_context = 4096;
    if (!node["gated_ffn"]) m.gated_ffn = false;
  }
  if (m.hidden % m.heads != 0) {
    return r.error(r.key_node(node, "heads"), "model.heads",
                   "hidden (" + std::to_string(m.hidden) + ") must be a multiple of heads (" +
                       std::to_string(m.heads) + ")");
  }
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
    return r.error(r.key_node(node, "kv_heads"), "model.kv_heads",
                   "kv_heads must divide heads (" + std::to_string(m.heads) + ")");
  }
  if (m.experts_active > m.experts) {
    return r.error(r.key_node(node, "experts_active"), "model.experts_active",
                   "experts_active must not exceed experts");
  }
  m.params_b = params_from_architecture(m, false);
  m.active_params_b = params_from_architecture(m, true);
  if (params && std::abs(*params - m.params_b) > 0.25 * m.params_b) {
    return r.error(params_node, "model.params_b",
                   "params_b " + strings::fixed(*params, 2) + " disagrees with the architecture (" +
                       strings::fixed(m.params_b, 2) + " B); drop one of them");
  }
  out = m;
  return {};
}

Status parse_tokens(const Reader& r, const YAML::Node& node, const std::string& field,
                    TokenDistribution& out) {
  if (node.IsScalar()) {
    GPUPLAN_TRY(double v, r.positive(node, field));
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
  return {};
}

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
          GPUPLAN_TRY(double d, r.positive(v, f));
          c.deadline_hours = d;
        } else if (k == "budget_usd") {
          GPUPLAN_TRY(double b, r.positive(v, f));
          c.budget_usd = b;
        } else if (k == "regions") {
          auto add = [&](const YAML::Node& e) -> Status {
            GPUPLAN_TRY(std::string s, r.string(e, f));
            s = strings::to_lower(s);
            if (!names::is_region(s))
              return r.error(
                  e, f,
                  "'" + names::printable(s) +
                      "' is not an Azure region name (lower-case letters and digits, e.g. eastus)");
            c.regions.push_back(s);
            return {};
          };
          if (v.IsScalar()) {
            GPUPLAN_RETURN_IF_ERROR(add(v));
          } else if (v.IsSequence()) {
            for (const auto& e : v) GPUPLAN_RETURN_IF_ERROR(add(e));
          } else {
            return r.error(v, f, "expected a list of region names ([eastus, westeurope])");
          }
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
          GPUPLAN_TRY(c.max_nodes, r.positive_int(v, f));
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
          GPUPLAN_TRY(c.budget_growth_per_week, r.non_negative(v, f));
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
                " tokens for " + w.model.name + ")");
      }
      break;
    case Kind::kInfer: {
      const YAML::Node s = root["serving"];
      if (!s) return r.error(root, "serving", "missing 'serving' (request_rate, tokens, slo)");
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
                           ")");
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
  if (trains_weights && w.precision == Precision::kInt4) {
    return r.error(root["precision"] ? root["precision"] : root, "precision",
                   std::string("int4 cannot ") +
                       (w.kind == Kind::kTrain ? "pretrain" : "fully fine-tune") +
                       " a model: 4-bit weights are for inference or the frozen base of QLoRA "
                       "(use bf16 or fp8, or method: qlora)");
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
    GPUPLAN_RETURN_IF_ERROR(parse_model(r, root["model"], w.model));
  } else if (w.kind != Kind::kBatch) {
    return r.error(root, "model",
                   "missing 'model' (a built-in name such as llama-3.1-8b, or "
                   "an architecture)");
  }

  bool sharding_given = false;
  Status walked = for_each(
      root, "", [&](const std::string& k, const YAML::Node& v, const std::string& f) -> Status {
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
        } else if (k == "data") {
          GPUPLAN_RETURN_IF_ERROR(
              r.check_map(v, f,
                          {"tokens", "samples", "seq_len", "epochs", "global_batch", "micro_batch",
                           "items", "growth_per_week", "bytes_per_sample"}));
          return for_each(
              v, f,
              [&](const std::string& dk, const YAML::Node& dv, const std::string& df) -> Status {
                if (dk == "tokens") {
                  GPUPLAN_TRY(double t, r.positive(dv, df));
                  w.data.tokens = t;
                } else if (dk == "samples") {
                  GPUPLAN_TRY(double s, r.positive(dv, df));
                  w.data.samples = s;
                } else if (dk == "seq_len") {
                  GPUPLAN_TRY(w.data.seq_len, r.positive_int(dv, df));
                } else if (dk == "epochs") {
                  GPUPLAN_TRY(w.data.epochs, r.positive(dv, df));
                } else if (dk == "global_batch") {
                  GPUPLAN_TRY(w.data.global_batch, r.positive_int(dv, df));
                } else if (dk == "micro_batch") {
                  GPUPLAN_TRY(w.data.micro_batch, r.positive_int(dv, df));
                } else if (dk == "items") {
                  GPUPLAN_TRY(double it, r.positive(dv, df));
                  w.data.items = it;
                } else if (dk == "growth_per_week") {
                  GPUPLAN_TRY(w.data.growth_per_week, r.non_negative(dv, df));
                } else if (dk == "bytes_per_sample") {
                  GPUPLAN_TRY(double b, r.positive(dv, df));
                  w.data.bytes_per_sample = b;
                }
                return {};
              });
        } else if (k == "serving") {
          GPUPLAN_RETURN_IF_ERROR(r.check_map(
              v, f,
              {"request_rate", "trace", "input_tokens", "output_tokens", "slo", "duration_hours"}));
          return for_each(
              v, f,
              [&](const std::string& sk, const YAML::Node& sv, const std::string& sf) -> Status {
                if (sk == "request_rate") {
                  GPUPLAN_TRY(w.serving.request_rate, r.positive(sv, sf));
                } else if (sk == "trace") {
                  GPUPLAN_TRY(w.serving.trace, r.string(sv, sf));
                } else if (sk == "input_tokens") {
                  return parse_tokens(r, sv, sf, w.serving.input_tokens);
                } else if (sk == "output_tokens") {
                  return parse_tokens(r, sv, sf, w.serving.output_tokens);
                } else if (sk == "duration_hours") {
                  GPUPLAN_TRY(w.serving.duration_hours, r.positive(sv, sf));
                } else if (sk == "slo") {
                  GPUPLAN_RETURN_IF_ERROR(
                      r.check_map(sv, sf, {"ttft_ms", "tpot_ms", "percentile"}));
                  return for_each(sv, sf,
                                  [&](const std::string& lk, const YAML::Node& lv,
                                      const std::string& lf) -> Status {
                                    if (lk == "ttft_ms") {
                                      GPUPLAN_TRY(w.serving.ttft_ms, r.positive(lv, lf));
                                    } else if (lk == "tpot_ms") {
                                      GPUPLAN_TRY(w.serving.tpot_ms, r.positive(lv, lf));
                                    } else {
                                      GPUPLAN_TRY(double p, r.positive(lv, lf));
                                      if (p >= 100)
                                        return r.error(lv, lf,
                                                       "percentile must be below 100 (e.g. 99)");
                                      w.serving.percentile = p;
                                    }
                                    return {};
                                  });
                }
                return {};
              });
        } else if (k == "batch") {
          GPUPLAN_RETURN_IF_ERROR(r.check_map(
              v, f, {"seconds_per_item", "reference_gpu", "scales_with", "min_gpu_memory_gib"}));
          return for_each(
              v, f,
              [&](const std::string& bk, const YAML::Node& bv, const std::string& bf) -> Status {
                if (bk == "seconds_per_item") {
                  GPUPLAN_TRY(w.batch.seconds_per_item, r.positive(bv, bf));
                } else if (bk == "reference_gpu") {
                  GPUPLAN_TRY(w.batch.reference_gpu, r.string(bv, bf));
                } else if (bk == "scales_with") {
                  GPUPLAN_TRY(size_t i, r.choice(bv, bf, {"fp32", "fp16", "bf16", "memory_bw"}));
                  w.batch.scales_with =
                      std::vector<std::string>{"fp32", "fp16", "bf16", "memory_bw"}[i];
                } else if (bk == "min_gpu_memory_gib") {
                  GPUPLAN_TRY(w.batch.min_gpu_memory_gib, r.non_negative(bv, bf));
                }
                return {};
              });
        } else if (k == "constraints") {
          return parse_constraints(r, v, w.constraints);
        } else if (k == "assumptions") {
          GPUPLAN_RETURN_IF_ERROR(r.check_map(v, f, kOverridableAssumptions));
          return for_each(
              v, f,
              [&](const std::string& ak, const YAML::Node& av, const std::string& af) -> Status {
                GPUPLAN_TRY(double x, r.positive(av, af));
                const bool fraction = ak != "memory_overhead_gib";
                if (fraction && x > 1) return r.error(av, af, "must be a fraction in (0, 1]");
                w.overrides[ak] = x;
                return {};
              });
        }
        return {};
      });
  if (!walked) return tl::unexpected(walked.error());
  // Full fine-tuning and pretraining of big models need sharded optimizer
  // states; the default is ZeRO-1 (Megatron's distributed optimizer) unless given.
  if (!sharding_given && (w.kind == Kind::kTrain || w.kind == Kind::kFinetune)) w.zero_stage = 1;
  if (w.kind == Kind::kFinetune && w.method == Method::kQlora && !root["precision"]) {
    w.precision = Precision::kBf16;  // compute dtype; weights are 4-bit (NF4)
  }

  GPUPLAN_RETURN_IF_ERROR(check_kind_rules(r, root, w));
  GPUPLAN_RETURN_IF_ERROR(check_impossible(r, root, w));
  return w;
}

}  // namespace

Result<Workload> parse_string(std::string_view text, const std::string& name) {
  Reader r(name);
  GPUPLAN_TRY(YAML::Node root, load_yaml(text, name));
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
