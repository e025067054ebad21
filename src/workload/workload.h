// Workload specs: what the user wants done, parsed from YAML.
//
// A workload is one of four kinds (train, finetune, infer, batch/render), a
// model (by name from the built-in table in models.h, or by architecture or
// parameter count), numerics (precision, optimizer, sharding, recompute), the
// data to process, serving targets, and constraints (deadline, budget,
// regions, OS, spot, max GPUs/nodes). docs/workload.md documents every key,
// its default and its unit.
//
// CONTRACT for estimate, plan, simulate, deploy and server: these types and
// parse_file/parse_string. Every field has a documented default, so a parsed
// Workload is always complete and self-consistent (validated on parse).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/units.h"

namespace gpuplan::workload {

enum class Kind { kTrain, kFinetune, kInfer, kBatch };
// Finetuning method; kFull for `train` too.
enum class Method { kFull, kLora, kQlora };
enum class Precision { kFp32, kFp16, kBf16, kFp8, kInt8, kInt4 };
enum class Optimizer { kAdamW, kAdam, kAdamW8bit, kSgd, kSgdMomentum, kAdafactor };
// Activation recomputation (Korthikanti et al. 2022).
enum class Recompute { kNone, kSelective, kFull };
enum class Spot { kNever, kAllowed, kPreferred };
// How often a training or fine-tuning job runs again on the grown data.
enum class Repeat { kNone, kWeekly, kMonthly };

[[nodiscard]] std::string_view to_string(Kind k);       // "train", "finetune", "infer", "batch"
[[nodiscard]] std::string_view to_string(Method m);     // "full", "lora", "qlora"
[[nodiscard]] std::string_view to_string(Precision p);  // "fp32", ..., "int4"
[[nodiscard]] std::string_view to_string(Optimizer o);  // "adamw", "adam", "adamw-8bit", "sgd", ...
[[nodiscard]] std::string_view to_string(Recompute r);  // "none", "selective", "full"
[[nodiscard]] std::string_view to_string(Spot s);       // "never", "allowed", "preferred"
[[nodiscard]] std::string_view to_string(Repeat r);     // "none", "weekly", "monthly"
// A number format by the name files use ("fp32" ... "int4", case folded);
// none when it names none.
[[nodiscard]] std::optional<Precision> precision_named(std::string_view name);
// Bytes per parameter or per value stored at this precision (fp32 4 ... int4 0.5).
[[nodiscard]] double bytes_per_value(Precision p);

// A transformer's architecture. Dense models have experts == 1.
// For MoE (Mixtral) params_b is the total and active_params_b the per-token
// active count; both are filled in for every model (equal for dense ones).
struct Model {
  std::string name;            // "llama-3.1-8b"; "custom" for explicit specs
  std::string display_name;    // "Llama 3.1 8B"
  double params_b = 0;         // total parameters, billions
  double active_params_b = 0;  // parameters used per token, billions
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  // == heads without GQA/MQA
  int ffn = 0;       // FFN inner size (per expert)
  int vocab = 0;
  int max_context = 0;           // tokens
  int experts = 1;               // MoE experts per layer
  int experts_active = 1;        // experts routed per token
  bool gated_ffn = true;         // SwiGLU/GeGLU (3 FFN matrices) vs 2
  bool tied_embeddings = false;  // input and output embeddings share weights
  // Shapes beyond the classic decoder (0 = the default in the comment).
  int head_dim = 0;        // per attention head; hidden / heads when 0 (Qwen3 and
                           // gpt-oss set it: heads x head_dim != hidden)
  int expert_ffn = 0;      // FFN inner size of each routed or shared expert; ffn when 0
  int shared_experts = 0;  // experts every token passes besides its routed ones
  int dense_layers = 0;    // layers of a mixture of experts whose FFN is dense (size ffn)
  // Multi-head latent attention (DeepSeek-V2/V3, Liu et al. 2024 §2.1): every
  // layer caches one kv_lora_rank latent and a rope_head_dim rotary key per
  // token, shared by all heads; head_dim is then the query/key part without
  // rotary embedding (qk_nope_head_dim). 0 = grouped-query attention.
  int kv_lora_rank = 0;
  int q_lora_rank = 0;  // 0: queries projected from the hidden state directly
  int rope_head_dim = 0;
  int v_head_dim = 0;  // value head size; head_dim when 0
  // Local attention: `sliding_layers` of the layers attend over the last
  // `sliding_window` tokens only, and an engine's cache keeps only those for
  // them (vLLM's hybrid KV cache manager, TensorRT-LLM's per-window pools).
  // A chunked layer (Llama 4: a query sees its 8,192-token chunk) is counted
  // as a window of the chunk, an upper bound. 0 = every layer attends over
  // the whole context.
  int sliding_window = 0;
  int sliding_layers = 0;
  // The precision the weights are published in, which serving uses when the
  // workload names none (DeepSeek-V3's FP8 checkpoint, gpt-oss's MXFP4
  // experts), and where that is said.
  Precision released = Precision::kBf16;
  std::string released_source;
  // The quantisation format the upload's name states, lower case ("awq",
  // "gptq", "mxfp4", "nvfp4", "fp8", "w8a8", ...; empty: none): which
  // kernels can serve it (AWQ's need Turing, GPTQ's run on Volta).
  std::string released_format;
  // Bits a weight of the routed experts takes in those released weights
  // when they have a format of their own, the rest staying 16-bit (gpt-oss:
  // MXFP4, 4-bit values with an 8-bit scale per 32, 4.25); 0: the
  // precision's.
  double expert_bits = 0;
  // True when only params_b was given (no architecture): the estimator then
  // derives a shape from params_b and says so in its assumptions.
  bool params_only = false;
  std::string source;  // where the numbers come from (model card, config.json)
};

// A token-count distribution for serving requests.
struct TokenDistribution {
  std::string shape = "fixed";  // "fixed" | "uniform" | "lognormal"
  double mean = 0;              // tokens
  double stddev = 0;            // lognormal only
  double min = 1;               // tokens; clamp
  double max = 0;               // tokens; clamp (0 = mean for fixed)
};

struct Data {
  // Training/finetune: total tokens processed = tokens * epochs, where tokens
  // is given directly or as samples * seq_len.
  std::optional<double> tokens;
  std::optional<double> samples;
  int seq_len = 2048;  // tokens per sequence
  double epochs = 1;
  int global_batch = 0;  // sequences per step; 0 = estimator picks
  int micro_batch = 1;   // sequences per GPU per micro-step
  // Bytes read from storage per sample (sequence) for training and
  // fine-tuning: an image, a clip, a document. nullopt: tokens x
  // rates.csv's bytes_per_token (pre-tokenized text). The plan checks that
  // the storage can feed the GPUs this fast (docs/plan.md, "Data pipeline").
  std::optional<double> bytes_per_sample;
  // Batch kind: items to process.
  std::optional<double> items;
  // Growth of the data (or, for infer, the request rate) per week, as a
  // fraction: 0.5 = +50 % a week. The simulator and planner use it.
  double growth_per_week = 0;
};

struct Serving {
  double request_rate = 0;  // requests/s (mean); 0 with a trace
  std::string trace;        // optional trace file (Azure LLM format)
  // Where request_rate came from when not the workload file ("trace FILE:
  // N requests over T s"): the CLI reads a trace's mean rate.
  std::string request_rate_source;
  TokenDistribution input_tokens;
  TokenDistribution output_tokens;
  double ttft_ms = 0;                      // SLO on time to first token; 0 = none
  double tpot_ms = 0;                      // SLO on time per output token; 0 = none
  double percentile = 99;                  // SLO percentile, e.g. 99
  double duration_hours = kHoursPerMonth;  // how long the service runs (for cost)
};

struct BatchJob {
  double seconds_per_item = 0;  // on one reference GPU
  std::string reference_gpu;    // shared GPU vocabulary ("A10")
  // What bounds the work: "fp32" (rendering, default), "fp16", "bf16",
  // "memory_bw" — the spec ratio uses this rate.
  std::string scales_with = "fp32";
  double min_gpu_memory_gib = 0;  // per GPU
};

struct Constraints {
  std::optional<double> deadline_hours;
  std::optional<double> budget_usd;
  std::vector<std::string> regions;  // allowed; empty = any
  std::string data_region;           // where the data lives; "" = none
  std::string os = "linux";          // "linux" | "windows"
  bool hybrid_benefit = false;
  Spot spot = Spot::kAllowed;
  int max_gpus = 0;   // 0 = no limit
  int max_nodes = 0;  // VMs; 0 = no limit
  // Allowed VM families or series, matched ignoring case: "NV" (the family
  // letter), "NVadsA10_v5" (a series). Empty = any.
  std::vector<std::string> series;
  // Confidential-computing sizes (NCC*) are offered only when true; the
  // option then says what confidential computing costs and requires.
  bool confidential = false;
  // Weeks the plan looks ahead when data.growth_per_week > 0 (1..52).
  int horizon_weeks = 4;
  // Training/fine-tuning that runs again on the grown data.
  Repeat repeat = Repeat::kNone;
  // The budget grows this fraction a week (0.1 = +10 %); checked week by week.
  double budget_growth_per_week = 0;
  // Hours between checkpoints of a training or fine-tuning job: on a spot
  // eviction half of it is lost on average. Unset: rates.csv's default
  // (plan's --checkpoint-hours overrides both).
  std::optional<double> checkpoint_hours;
};

// The longest growth horizon a workload may ask for, in weeks.
inline constexpr int kMaxHorizonWeeks = 52;

struct Workload {
  std::string name;  // from `name:` or the file stem
  std::string file;  // path it was parsed from ("" for strings)
  Kind kind = Kind::kTrain;
  Model model;
  Method method = Method::kFull;
  int lora_rank = 16;
  Precision precision = Precision::kBf16;
  // Where `precision` came from: the workload file, the model's released
  // weights (serving), or the default.
  std::string precision_source = "default (docs/workload.md)";
  Optimizer optimizer = Optimizer::kAdamW;
  int zero_stage = 0;  // 0..3; `fsdp` == 3
  Recompute recompute = Recompute::kSelective;
  // Whether the file set `recompute`; when not, the estimator may use full
  // recomputation where the default does not fit (docs/estimator.md).
  bool recompute_given = false;
  Data data;
  Serving serving;
  BatchJob batch;
  Constraints constraints;
  // User overrides of estimator assumptions by name (see docs/estimator.md),
  // e.g. {"mfu": 0.4, "memory_overhead_gib": 3}. Unknown names are rejected
  // at parse time against kOverridableAssumptions.
  std::map<std::string, double> overrides;

  // Total tokens to process (train/finetune): tokens or samples*seq_len, times epochs.
  [[nodiscard]] double total_tokens() const;
};

// Assumption names a workload may override under `assumptions:`.
extern const std::vector<std::string> kOverridableAssumptions;

// Serving whose precision nobody gave reads the weights as the model
// publishes them (an engine loads DeepSeek-V3's FP8 checkpoint as FP8):
// sets w.precision to w.model.released and says so in precision_source.
void serve_released_weights(Workload& w);

// Parses and validates a workload. Errors: kNotFound when the file cannot be
// read; kInvalidArgument with file, line, column and field for YAML syntax,
// unknown keys (with "did you mean"), wrong types, zero/negative sizes, a
// sequence longer than the model's context; kNotFound (with line/column and a
// "did you mean") for an unknown model name.
[[nodiscard]] Result<Workload> parse_file(const std::string& path);
// `name` is used as the file name in errors.
[[nodiscard]] Result<Workload> parse_string(std::string_view text, const std::string& name);

}  // namespace gpuplan::workload
