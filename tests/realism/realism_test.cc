// The realism suite (issue 10, item 8): workloads written the way real teams
// write them (tests/realism/workloads/*.yaml), each planned through the CLI
// exactly as a user would (`gpuplan plan FILE --json`, on the embedded
// catalog with an empty store), then checked the way a senior engineer reads
// a plan before signing it:
//
//  * the top option's layout can run: tensor parallelism inside one VM,
//    data-parallel width within global batch / micro-batch, pipeline stages
//    within the layers, and a model split across VMs only over InfiniBand;
//  * nothing special-purpose unless the workload asks: no confidential
//    (NCC) size, no AMD GPU, no access-restricted region, no price flagged
//    as looking wrong;
//  * a spot option's risk is never "low" without Azure's eviction band;
//  * where a published figure exists, time within ±25 % and cost within
//    ±30 % of it — each band next to its source.
//
// A check that fails because the planner is wrong is fixed in the planner
// (physics and rules with their sources), never here. tests/realism/README.md
// keeps the table of workloads, top options and why an engineer signs them.
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "e2e/e2e_util.h"
#include "workload/workload.h"

namespace gpuplan::realism {
namespace {

using nlohmann::json;

std::string workload_path(const std::string& name) {
  return e2e::source_path("tests/realism/workloads/" + name + ".yaml");
}

// Runs the CLI on a fresh empty store (so a user's own store cannot change the
// answer) and parses its --json output.
struct Cli {
  std::string db = e2e::temp_dir() + "/catalog.db";
  int code = 0;
  std::string err;
  json run(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    e2e::CliResult r = e2e::run_cli(args);
    code = r.code;
    err = r.err;
    if (r.out.empty() || r.out[0] != '{') return json();
    return json::parse(r.out);
  }
};

json plan(const std::string& name, std::vector<std::string> extra = {}) {
  Cli cli;
  std::vector<std::string> args = {"plan", workload_path(name), "--json", "--top", "5"};
  args.insert(args.end(), extra.begin(), extra.end());
  json j = cli.run(args);
  EXPECT_EQ(cli.code, 0) << name << ": " << cli.err;
  EXPECT_TRUE(j.is_object()) << name << ": no JSON";
  return j;
}

const catalog::Catalog& embedded() {
  static const std::unique_ptr<catalog::Catalog> cat = [] {
    auto c = catalog::Catalog::load_embedded();
    EXPECT_TRUE(c.has_value());
    return std::move(*c);
  }();
  return *cat;
}

workload::Workload parsed(const std::string& name) {
  auto w = workload::parse_file(workload_path(name));
  EXPECT_TRUE(w.has_value()) << name;
  return w ? *w : workload::Workload{};
}

struct Layout {
  int tp = 1, pp = 1, v = 1, dp = 1;
  bool parsed = false;
};

Layout layout_of(const json& option) {
  Layout l;
  std::smatch m;
  const std::string s = option.value("layout", "");
  if (std::regex_search(s, m, std::regex(R"(tp=(\d+) pp=(\d+)(?: v=(\d+))? dp=(\d+))"))) {
    l.tp = std::stoi(m[1]);
    l.pp = std::stoi(m[2]);
    if (m[3].matched) l.v = std::stoi(m[3]);
    l.dp = std::stoi(m[4]);
    l.parsed = true;
  }
  return l;
}

// What the workload asked for that would otherwise be a red flag.
struct Asked {
  bool confidential = false;
  bool amd = false;
  bool restricted_region = false;
};

bool is_amd(const std::string& gpu) {
  return gpu == "MI300X" || gpu == "MI25" || gpu == "V620" || gpu == "V710";
}

// The checks an engineer makes on every option they might sign.
void expect_signable(const std::string& name, const json& option, Asked asked = {}) {
  SCOPED_TRACE(name + ": " + option.value("size", "?") + " x" +
               std::to_string(option.value("count", 0)) + " in " + option.value("region", "?") +
               " (" + option.value("pricing", "?") + ")");
  const catalog::Catalog& cat = embedded();
  const catalog::VmSize* size = cat.find_size(option.at("size").get<std::string>());
  ASSERT_NE(size, nullptr);
  const workload::Workload w = parsed(name);

  // Nothing special-purpose unasked.
  if (!asked.confidential) {
    EXPECT_FALSE(option.value("confidential", false));
    EXPECT_NE(size->name.rfind("Standard_NCC", 0), 0u) << "confidential size unasked";
  }
  if (!asked.amd) {
    EXPECT_FALSE(is_amd(size->gpu_model)) << size->gpu_model;
  }
  if (!asked.restricted_region) {
    EXPECT_EQ(cat.region_access(option.at("region").get<std::string>()),
              catalog::RegionAccess::kOpen);
  }
  EXPECT_TRUE(option.at("price_warnings").empty()) << option.at("price_warnings").dump();
  EXPECT_FALSE(option.at("price").value("estimated", false)) << "ranked on an estimated price";

  // Spot risk is never "low" without Azure's band.
  if (option.at("pricing") == "spot") {
    const json& risk = option.at("spot_risk");
    ASSERT_TRUE(risk.is_object());
    if (risk.at("band").is_null()) {
      EXPECT_EQ(risk.at("level"), "unknown");
      EXPECT_GT(option.at("cost_high_usd").get<double>(), option.at("cost_usd").get<double>());
    }
  }

  // Time and money add up: within the deadline and the budget, a range
  // around the expectation.
  const double hours = option.at("hours").get<double>();
  EXPECT_GT(hours, 0);
  if (w.constraints.deadline_hours) {
    EXPECT_LE(hours, *w.constraints.deadline_hours);
  }
  if (w.constraints.budget_usd) {
    EXPECT_LE(option.at("cost_usd").get<double>(), *w.constraints.budget_usd);
  }
  EXPECT_LE(option.at("cost_low_usd").get<double>(), option.at("cost_usd").get<double>());
  EXPECT_LE(option.at("cost_usd").get<double>(), option.at("cost_high_usd").get<double>());

  // The layout can run.
  const bool trains = w.kind == workload::Kind::kTrain || w.kind == workload::Kind::kFinetune;
  if (!trains) return;
  const Layout l = layout_of(option);
  ASSERT_TRUE(l.parsed) << option.value("layout", "");
  const int count = option.at("count").get<int>();
  EXPECT_GE(size->gpu_count, 1.0) << "training on a fractional GPU";
  EXPECT_EQ(l.tp * l.pp * l.dp, static_cast<int>(std::lround(size->gpu_count * count)));
  EXPECT_LE(l.tp, size->gpu_count) << "tensor parallelism across VMs";
  EXPECT_LE(l.pp, w.model.layers);
  if (l.v > 1) {
    // Interleaved 1F1B: v chunks of at least one layer on each stage.
    EXPECT_GT(l.pp, 1);
    EXPECT_EQ(((w.model.layers + l.pp - 1) / l.pp) % l.v, 0);
  }
  if (w.data.global_batch > 0) {
    EXPECT_LE(l.dp, w.data.global_batch / w.data.micro_batch);
  }
  // A model split across VMs (pipeline stages on different VMs) goes over
  // InfiniBand, never over Ethernet.
  const int gpus_per_vm = static_cast<int>(size->gpu_count);
  if (count > 1 && l.tp * l.pp > gpus_per_vm) {
    EXPECT_GT(size->infiniband_gbps, 0);
  }
}

void expect_within(double actual, double published, double tolerance, const std::string& what) {
  EXPECT_GE(actual, published * (1 - tolerance)) << what << ": " << actual << " vs " << published;
  EXPECT_LE(actual, published * (1 + tolerance)) << what << ": " << actual << " vs " << published;
}

const json& top(const json& p) {
  static const json kNone = json::object();
  if (!p.contains("options") || p["options"].empty()) {
    ADD_FAILURE() << "no option";
    return kNone;
  }
  return p["options"][0];
}

// ---- Pretraining -----------------------------------------------------------

// GPT-3 175B on 1,024 A100s: "we estimate ... 34 days" for 300 B tokens at
// batch 1,536 with activation recomputation (Narayanan et al. 2021, "Efficient
// Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
// SC21, arXiv 2104.04473 §5.1). ±25 % of 34 days.
TEST(Realism, Gpt3_175bPretraining) {
  const std::string name = "gpt3-175b-pretrain";
  json p = plan(name);
  expect_signable(name, top(p));
  EXPECT_EQ(top(p).value("pricing", ""), "payg") << "spot: never, and no commitment asked";
  Cli cli;
  json e = cli.run({"estimate", workload_path(name), "--size", "Standard_ND96amsr_A100_v4",
                    "--count", "128", "--json"});
  ASSERT_EQ(cli.code, 0) << cli.err;
  const json& o = e["options"][0];
  EXPECT_EQ(o["gpus"].get<double>(), 1024);
  expect_within(o["hours"].get<double>() / 24, 34, 0.25, "GPT-3 175B days on 1,024 A100s");
  EXPECT_EQ(o["layout"]["tp"], 8) << "Megatron's tensor parallelism fills the 8-GPU node";
}

// Llama 2 70B: 1,720,320 A100-80GB GPU-hours for 2 T tokens (Touvron et al.
// 2023, "Llama 2", Table 2). GPU-hours within ±25 %; the cost within ±30 % of
// those GPU-hours at the option's listed per-GPU-hour price (compute is the
// bill; setup, disks and the billing minimum must stay small).
TEST(Realism, Llama2_70bPretraining) {
  const std::string name = "llama2-70b-pretrain";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  EXPECT_EQ(o.value("gpu", ""), "A100-80GB-SXM");
  const double gpu_hours = o["gpus"].get<double>() * o["work_hours"].get<double>();
  expect_within(gpu_hours, 1720320, 0.25, "Llama 2 70B GPU-hours");
  expect_within(o["cost_usd"].get<double>(), 1720320 * o["usd_per_gpu_hour"].get<double>(), 0.30,
                "Llama 2 70B cost at the listed rate");
}

// Llama 2 7B: 184,320 A100-80GB GPU-hours (Touvron et al. 2023, Table 2).
TEST(Realism, Llama2_7bPretraining) {
  const std::string name = "llama2-7b-pretrain";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  const double gpu_hours = o["gpus"].get<double>() * o["work_hours"].get<double>();
  expect_within(gpu_hours, 184320, 0.25, "Llama 2 7B GPU-hours");
  expect_within(o["cost_usd"].get<double>(), 184320 * o["usd_per_gpu_hour"].get<double>(), 0.30,
                "Llama 2 7B cost at the listed rate");
}

// Continued pretraining on spot with 30-minute checkpoints: risk "unknown"
// without a band, the eviction stretch in hours and cost, and a range.
TEST(Realism, ContinuedPretrainingOnSpot) {
  const std::string name = "llama3-8b-pretrain-spot";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  if (o.value("pricing", "") == "spot") {
    EXPECT_GT(o["hours"].get<double>(), o["hours_low"].get<double>());
    EXPECT_GT(o["hours_high"].get<double>(), o["hours"].get<double>());
    EXPECT_GT(o["spot_risk"]["expected_evictions"].get<double>(), 0);
  }
  // MFU in the range dense-transformer training reaches (Megatron-Core on
  // H100 41-49 %, Megatron-LM README 2024).
  EXPECT_GT(o["estimate"]["mfu"].get<double>(), 0.25);
  EXPECT_LT(o["estimate"]["mfu"].get<double>(), 0.55);
}

// ---- Fine-tuning -----------------------------------------------------------

TEST(Realism, Llama2_70bFullFinetune) {
  const std::string name = "llama2-70b-full-finetune";
  json p = plan(name);
  for (const json& o : p["options"]) expect_signable(name, o);
  // Weights, gradients and Adam states of 70 B parameters (16 bytes each,
  // Rajbhandari et al. 2020 §3.1) are ~1.1 TB: never one 8-GPU VM of 80 GB.
  EXPECT_GE(top(p)["gpus"].get<double>() * 80, 1100);

  // The whole bill: the dataset and a checkpoint (69 B params x (2 + 12) B of
  // bf16 weights and Adam states = 0.97 TB)
  // sit in Blob storage. Without a price the line says so and adds
  // nothing; with --blob-usd-per-gb-month it is GB x price x wall h / 730.
  auto blob_line = [](const json& o) {
    for (const json& l : o["cost_lines"]) {
      if (l["name"] == "blob storage") return l;
    }
    return json();
  };
  const json unpriced = blob_line(top(p));
  ASSERT_TRUE(unpriced.is_object());
  EXPECT_EQ(unpriced["usd"].get<double>(), 0);
  EXPECT_NE(unpriced["assumption"].get<std::string>().find("no listed price"), std::string::npos);
  json priced = plan(name, {"--blob-usd-per-gb-month", "0.02"});
  const json& o = top(priced);
  const json line = blob_line(o);
  ASSERT_TRUE(line.is_object());
  std::smatch m;
  const std::string text = line["assumption"];
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(^([0-9.]+) GB hot Blob)")));
  EXPECT_GT(std::stod(m[1]), 960);
  EXPECT_NEAR(line["usd"].get<double>(), std::stod(m[1]) * 0.02 * o["hours"].get<double>() / 730,
              0.01);
}

// LoRA on a 70B base: one VM (two H100 NVL hold the 141 GB base); never a
// pipeline across VMs joined by Ethernet.
TEST(Realism, Llama3_70bLora) {
  const std::string name = "llama3-70b-lora";
  json p = plan(name);
  for (const json& o : p["options"]) {
    expect_signable(name, o);
    const catalog::VmSize* size = embedded().find_size(o["size"].get<std::string>());
    ASSERT_NE(size, nullptr);
    if (o["count"].get<int>() > 1 && size->infiniband_gbps == 0) {
      EXPECT_LE(layout_of(o).pp * layout_of(o).tp, size->gpu_count) << o.dump();
    }
  }
}

// QLoRA: "finetune a 65B parameter model on a single 48GB GPU" (Dettmers et
// al. 2023, "QLoRA", abstract). A 70B base needs a little more; one 94 GB
// H100 NVL holds it.
TEST(Realism, Llama2_70bQlora) {
  const std::string name = "llama2-70b-qlora";
  json p = plan(name);
  expect_signable(name, top(p));
  Cli cli;
  json e = cli.run({"estimate", workload_path(name), "--size", "Standard_NC40ads_H100_v5",
                    "--count", "1", "--json"});
  ASSERT_EQ(cli.code, 0) << cli.err;
  EXPECT_TRUE(e["options"][0]["fits"].get<bool>());
  // 4-bit base (~35 GiB) + adapters + activations: under 60 GiB.
  EXPECT_LT(e["options"][0]["memory_needed_gib"].get<double>(), 60);
}

// ---- Serving -----------------------------------------------------------------

// What serving needs at the least: the prefill and decode FLOPs of the
// request rate, 2·N FLOPs a token (Kaplan et al. 2020 §2.1), at the GPUs'
// datasheet peak. A plan below it cannot meet the rate; far above it (more
// than 12x the GPUs) an engineer would ask why.
double min_gpus(double rps, double params_b, double tokens, double peak_tflops) {
  return rps * 2 * params_b * 1e9 * tokens / (peak_tflops * 1e12);
}

double peak_of(const json& option) {
  const catalog::Gpu* g = embedded().find_gpu(option["gpu"].get<std::string>());
  EXPECT_NE(g, nullptr);
  return g ? g->bf16_tflops : 1;
}

TEST(Realism, Llama31_8bServing) {
  const std::string name = "llama3-8b-serve";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  const double need = min_gpus(20, 8.03, 1024 + 256, peak_of(o));
  EXPECT_GE(o["gpus"].get<double>(), need);
  EXPECT_LE(o["gpus"].get<double>(), 12 * std::max(1.0, need));
  EXPECT_NEAR(o["hours"].get<double>(), 730, 1);
}

TEST(Realism, Llama33_70bServing) {
  const std::string name = "llama3-70b-serve";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  const double need = min_gpus(5, 70.55, 2048 + 300, peak_of(o));
  EXPECT_GE(o["gpus"].get<double>(), need);
  EXPECT_LE(o["gpus"].get<double>(), 12 * std::max(1.0, need));
}

TEST(Realism, Llama31_405bServing) {
  const std::string name = "llama31-405b-serve";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  // 405 GB of fp8 weights need at least 4 H200s or 6 H100s in one replica.
  EXPECT_GE(o["gpus"].get<double>() * 141, 405);
}

// Named by repository id with no precision, as model cards' quick starts
// do: the weights are read as published. OpenAI's gpt-oss model card:
// gpt-oss-120b "runs efficiently on a single 80 GB GPU" (a 60.8 GiB
// checkpoint of MXFP4 experts); read as bf16 (234 GB) it bought 16 A100s.
std::string assumption(const json& p, const std::string& name) {
  for (const json& a : p["assumptions"])
    if (a["name"] == name) return a["value"].get<std::string>();
  return "";
}

TEST(Realism, GptOss120bServing) {
  const std::string name = "gpt-oss-120b-serve";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  EXPECT_EQ(assumption(p, "precision"), "int4");
  EXPECT_EQ(o["gpus"].get<double>(), 1) << o.dump();
  // Measured vLLM runs of gpt-oss were ~2x slower than the model: the
  // option says so where it is chosen (docs/estimator.md).
  EXPECT_NE(o["caveats"].dump().find("lower bound"), std::string::npos) << o["caveats"].dump();
}

// DeepSeek-R1's checkpoint is FP8 (config.json quantization_config): 671 GB
// of weights, more than 8 x 80 GB H100s hold, so one replica takes 8 GPUs of
// 141 GB (H200) or more, never 16-bit copies (1.34 TB).
TEST(Realism, DeepSeekR1Serving) {
  const std::string name = "deepseek-r1-serve";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  EXPECT_EQ(assumption(p, "precision"), "fp8");
  const catalog::Gpu* g = embedded().find_gpu(o["gpu"].get<std::string>());
  ASSERT_NE(g, nullptr);
  EXPECT_GE(o["gpus"].get<double>() * g->memory_gib * 1.0737, 671) << o.dump();
  EXPECT_LE(o["gpus"].get<double>(), 8) << o.dump();
}

// ---- Batch and render --------------------------------------------------------

// Independent items: the GPUs at the reference speed, scaled by the spec
// ratio, finish items × seconds within the option's work hours.
void expect_batch_arithmetic(const json& o, double items, double seconds, double ref_rate,
                             const std::string& rate_field) {
  const catalog::Gpu* g = embedded().find_gpu(o["gpu"].get<std::string>());
  ASSERT_NE(g, nullptr);
  const double rate = rate_field == "fp16" ? g->fp16_tflops : g->fp32_tflops;
  const double hours = items * seconds / (o["gpus"].get<double>() * rate / ref_rate) / 3600;
  expect_within(o["work_hours"].get<double>(), hours, 0.25, "batch hours vs arithmetic");
}

TEST(Realism, SdxlBatch) {
  const std::string name = "sdxl-batch";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  expect_batch_arithmetic(o, 200000, 4.5, 312, "fp16");
}

TEST(Realism, BlenderFrames) {
  const std::string name = "blender-frames";
  json p = plan(name);
  for (const json& o : p["options"]) {
    expect_signable(name, o);
    EXPECT_EQ(o["size"].get<std::string>().rfind("Standard_NV", 0), 0u) << "series: [NV]";
  }
  expect_batch_arithmetic(top(p), 5760, 180, 31.2, "fp32");
}

// Windows with Hybrid Benefit pays the Linux rate: no licence line above $0.
TEST(Realism, WindowsVisualisation) {
  const std::string name = "windows-viz";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  EXPECT_EQ(o["os"], "windows");
  EXPECT_TRUE(o["hybrid_benefit"].get<bool>());
  for (const json& l : o["cost_lines"]) {
    if (l["name"] == "windows licence") {
      EXPECT_EQ(l["usd"].get<double>(), 0);
    }
  }
  const std::string region = o["region"];
  EXPECT_TRUE(region == "westeurope" || region == "northeurope") << region;
}

// ---- Constraints ---------------------------------------------------------------

// EU-only data: every option, frontier point and fallback stays in the EU
// regions the workload lists; moving the data out of westeurope is costed.
TEST(Realism, EuOnlyData) {
  const std::string name = "eu-only-finetune";
  json p = plan(name);
  const workload::Workload w = parsed(name);
  auto allowed = [&](const std::string& r) {
    for (const std::string& a : w.constraints.regions) {
      if (a == r) return true;
    }
    return false;
  };
  for (const char* list : {"options", "frontier", "fallbacks"}) {
    for (const json& o : p[list]) EXPECT_TRUE(allowed(o["region"])) << list << ": " << o["region"];
  }
  expect_signable(name, top(p));
}

// A brand-new subscription (every GPU family at 0 vCPUs, 10 regional): the
// plan has nothing runnable today and says so (exit 1), and its quota
// requests name both the family limit and the regional total ("cores"),
// each with the value to ask for.
TEST(Realism, NewSubscriptionZeroQuota) {
  Cli cli;
  cli.run({"catalog", "import", "usage",
           e2e::source_path("tests/realism/data/usage_new_subscription_eastus.json"), "--region",
           "eastus"});
  ASSERT_EQ(cli.code, 0) << cli.err;
  json p = cli.run({"plan", workload_path("new-subscription-finetune"), "--json"});
  EXPECT_EQ(cli.code, 1) << cli.err;
  EXPECT_TRUE(p["options"].empty());
  ASSERT_FALSE(p["quota_requests"].empty());
  const json& q = p["quota_requests"][0];
  bool family = false, regional = false;
  for (const json& l : q["limits"]) {
    EXPECT_GE(l["new_limit"].get<double>(), l["needed"].get<double>());
    family |= l["scope"] == "family" && l["limit"].get<double>() == 0;
    regional |= l["scope"] == "regional" && l["resource"] == "cores";
  }
  EXPECT_TRUE(family) << q.dump();
  EXPECT_TRUE(regional) << q.dump();
  expect_signable("new-subscription-finetune", q["unlocks"]);
}

// ---- Growth ------------------------------------------------------------------------

// Traffic growing 50 % a week, compounded continuously over 4 weeks: the
// month's mean load is (1.5^4 − 1) / (4 ln 1.5) = 2.50x today's, so the
// month costs ~2.3-2.7x today's fleet held flat (whole VMs round it).
TEST(Realism, ServingGrowing50PercentAWeek) {
  const std::string name = "growing-serving";
  json p = plan(name);
  expect_signable(name, top(p));
  ASSERT_TRUE(p["growth"].is_object());
  const json& g = p["growth"];
  EXPECT_NEAR(g["mean_load_factor"].get<double>(), (std::pow(1.5, 4) - 1) / (4 * std::log(1.5)),
              0.01);
  const double ratio = g["grown_cost_usd"].get<double>() / g["flat_cost_usd"].get<double>();
  EXPECT_GT(ratio, 2.0);
  EXPECT_LT(ratio, 3.0);
  EXPECT_GT(g["weeks"].back()["vms"].get<int>(), g["weeks"].front()["vms"].get<int>());
  EXPECT_FALSE(g["summary"].get<std::string>().empty());
}

// A weekly re-train on data growing 50 % a week: the run's hours grow 1.5x a
// week, so the winner misses the 36 h deadline in the first week w with
// hours_today · 1.5^w above it, and the plan says so and what to move to.
TEST(Realism, WeeklyRetrainOnGrowingData) {
  const std::string name = "growing-weekly-finetune";
  json p = plan(name);
  const json& o = top(p);
  expect_signable(name, o);
  ASSERT_TRUE(p["growth"].is_object());
  const json& g = p["growth"];
  int expect_week = 0;
  for (const json& wk : g["weeks"]) {
    EXPECT_NEAR(wk["hours"].get<double>() / o["hours"].get<double>(),
                std::pow(1.5, wk["week"].get<int>()), 0.15 * std::pow(1.5, wk["week"].get<int>()));
    if (!wk["meets_deadline"].get<bool>() && expect_week == 0) expect_week = wk["week"];
  }
  ASSERT_GT(expect_week, 0) << "1.5^6 = 11x the data must outgrow a 36 h deadline";
  EXPECT_EQ(g["misses_deadline_week"], expect_week);
}

}  // namespace
}  // namespace gpuplan::realism
