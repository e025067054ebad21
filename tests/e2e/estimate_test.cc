// `gpuplan estimate` end to end: golden outputs on the embedded catalog (an
// empty --db so a user's store never leaks in), the JSON contracts the
// planner and the simulator read, exit codes 0 / 1 / 2, and --validate.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

std::vector<std::string> with_empty_db(std::vector<std::string> args) {
  static const std::string db = temp_dir() + "/empty.db";
  args.insert(args.begin(), {"--db", db});
  return args;
}

void expect_width(const std::string& out, size_t width = 100) {
  for (size_t start = 0, end; start < out.size(); start = end + 1) {
    end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    EXPECT_LE(end - start, width) << out.substr(start, end - start);
  }
}

TEST(EstimateCli, FinetuneListsFitsWithTimeAndMissesWithReason) {
  auto r = run_cli(with_empty_db({"estimate", source_path("examples/finetune-llama3-8b.yaml")}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("estimate_finetune.txt", r.out), "");
  EXPECT_NE(r.out.find("ND96isr_H100_v5"), std::string::npos);
  EXPECT_NE(r.out.find("Does not fit"), std::string::npos);
  EXPECT_NE(r.out.find("NC4as_T4_v3: even with 8 VMs: needs"), std::string::npos);
  EXPECT_NE(r.out.find("Assumptions"), std::string::npos);
  expect_width(r.out);
}

// A service given by its trace alone is sized at the trace's mean rate
// (the Azure conversation hour: 19,366 requests, 5.53 req/s), and says so;
// it was sized at 0 req/s.
TEST(EstimateCli, TraceOnlyServiceUsesTheTracesMeanRate) {
  const std::string dir = temp_dir() + "/traced";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(source_path("data/traces/azure_llm_2023_conv.csv"), dir + "/conv.csv",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string path = dir + "/w.yaml";
  std::ofstream(path) << "kind: infer\nmodel: llama-3.1-8b\nserving:\n  trace: conv.csv\n"
                         "  input_tokens: 1000\n  output_tokens: 200\n"
                         "  slo: {ttft_ms: 1000, tpot_ms: 50}\n";
  auto r = run_cli(with_empty_db({"estimate", path, "--size", "NC40ads_H100_v5", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  bool said = false;
  for (const auto& a : j["options"][0]["assumptions"]) {
    if (a["name"] != "request_rate") continue;
    said = a["value"] == "5.53 req/s" &&
           a["source"].get<std::string>().find("19366 requests") != std::string::npos;
  }
  EXPECT_TRUE(said) << r.out;
  std::ofstream(path) << "kind: infer\nmodel: llama-3.1-8b\nserving:\n  trace: missing.csv\n"
                         "  input_tokens: 1000\n  output_tokens: 200\n";
  auto missing = run_cli(with_empty_db({"estimate", path}));
  EXPECT_NE(missing.code, 0);
  EXPECT_NE(missing.err.find("serving.trace"), std::string::npos) << missing.err;
}

TEST(EstimateCli, JsonContract) {
  auto r = run_cli(with_empty_db({"estimate", source_path("examples/serve-llama3-8b.yaml"),
                                  "--size", "NC40ads_H100_v5", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("estimate_serve_nc40.json", r.out), "");
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["options"].size(), 1u);
  const auto& o = j["options"][0];
  for (const char* key : {"size", "count", "gpus", "fits", "reason", "layout", "memory_needed_gib",
                          "memory_available_gib", "memory", "throughput", "throughput_unit",
                          "hours", "assumptions"}) {
    EXPECT_TRUE(o.contains(key)) << key;
  }
  for (const char* key :
       {"weights", "gradients", "optimizer", "activations", "kv_cache", "overhead"}) {
    EXPECT_TRUE(o["memory"].contains(key)) << key;
  }
  EXPECT_EQ(o["size"], "Standard_NC40ads_H100_v5");
  EXPECT_TRUE(o["fits"].get<bool>());
  EXPECT_EQ(o["hours"], 730.0);
  EXPECT_EQ(o["count"], o["serving"]["vms_needed"]);
  EXPECT_TRUE(o["assumptions"][0].contains("source"));
}

TEST(EstimateCli, NothingFitsIsExit1WithReasons) {
  auto r =
      run_cli(with_empty_db({"estimate", source_path("tests/data/estimate/nothing-fits.yaml")}));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("Does not fit"), std::string::npos);
  EXPECT_NE(r.out.find("ND96isr_H100_v5: needs"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no option fits"), std::string::npos);
}

// Over the catalog, the workload's constraints choose the sizes as plan
// does: the NV-only render example's -q headline named an ND MI300X, and
// a confidential-computing size was listed for a workload that did not ask.
TEST(EstimateCli, CatalogEstimateKeepsTheWorkloadsSeriesAndConfidentiality) {
  auto q = run_cli(with_empty_db({"-q", "estimate", source_path("examples/render-nv.yaml")}));
  ASSERT_EQ(q.code, 0) << q.err;
  EXPECT_NE(q.out.find(" on Standard_NV"), std::string::npos) << q.out;
  auto all = run_cli(with_empty_db({"estimate", source_path("examples/render-nv.yaml")}));
  EXPECT_EQ(all.out.find("ND96"), std::string::npos) << all.out;
  auto ft = run_cli(with_empty_db({"estimate", source_path("examples/finetune-llama3-8b.yaml")}));
  EXPECT_EQ(ft.out.find("NCC40ads"), std::string::npos) << ft.out;
}

TEST(EstimateCli, BadWorkloadIsExit2WithLineAndColumn) {
  auto r =
      run_cli(with_empty_db({"estimate", source_path("tests/data/workloads/unknown-model.yaml")}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown-model.yaml:3:8: model: unknown model 'lama-3-8b'; did you mean "
                       "'llama-3-8b'?"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(EstimateCli, BadFlagsAreExit2) {
  auto w = source_path("examples/finetune-llama3-8b.yaml");
  auto unknown = run_cli(with_empty_db({"estimate", w, "--size", "ND96isr_H100_v4"}));
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("did you mean 'Standard_ND96isr_H100_v5'"), std::string::npos)
      << unknown.err;
  EXPECT_EQ(run_cli(with_empty_db({"estimate", w, "--count", "2"})).code, 2);
  EXPECT_EQ(
      run_cli(with_empty_db({"estimate", w, "--size", "ND96isr_H100_v5", "--count", "0"})).code, 2);
  EXPECT_EQ(run_cli(with_empty_db({"estimate"})).code, 2);
  EXPECT_EQ(run_cli(with_empty_db({"estimate", "/nonexistent.yaml"})).code, 2);
}

TEST(EstimateCli, HelpHasAnExample) {
  auto r = run_cli({"estimate", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("gpuplan estimate examples/finetune-llama3-8b.yaml"), std::string::npos);
}

TEST(EstimateCli, ValidateCalibrationFile) {
  auto csv = source_path("tests/data/published_measurements.csv");
  auto text = run_cli(with_empty_db({"estimate", "--validate", csv}));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(check_golden("estimate_validate.txt", text.out), "");
  expect_width(text.out);
  auto r = run_cli(with_empty_db({"estimate", "--validate", csv, "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  // 59 original + 11 lmdeploy rows + 47 issue-11 rows (max-load, MI300X, V100, 1,000+ GPUs)
  // + 5 DeepSeek-R1 rows (gpustack's performance lab, a known miss: docs/estimator.md).
  EXPECT_EQ(j["rows"].size(), 122u);
  EXPECT_EQ(j["skipped"].size(), 0u);
  // Bounds per group: the original calibration's (10 % training, 20 %
  // serving) and the 15 % for the new serving rows.
  int groups = 0;
  for (const auto& g : j["groups"]) {
    const std::string name = g["group"];
    const double med = g["median_abs_error_percent"].get<double>();
    double bound = 0;
    if (name == "training rows, original") bound = 10;
    if (name == "serving rows, original") bound = 20;
    if (name == "serving rows, new") bound = 15;
    if (bound == 0) continue;
    ++groups;
    EXPECT_LE(med, bound) << name;
  }
  EXPECT_EQ(groups, 3);
  int max_load = 0;
  for (const auto& row : j["rows"]) {
    if (!row.contains("concurrency")) continue;
    ++max_load;
    EXPECT_LE(row["concurrency"].get<double>(), row["memory_limit"].get<double>());
  }
  EXPECT_GE(max_load, 10);
  for (const auto& row : j["rows"]) {
    for (const char* k : {"id", "metric", "predicted", "published", "error_percent"}) {
      EXPECT_TRUE(row.contains(k)) << k;
    }
  }
}

// gpustack's performance lab (vLLM baselines, 2025): kept apart from the
// calibration file because its single-H100 runs disagree with every other
// publisher's H100 (docs/estimator.md, "Engine-lab rows"). Every row is
// predicted, within memory and max_seqs, and the figures are pinned so
// that a change to the model shows what it does to them.
TEST(EstimateCli, ValidateEngineLabFile) {
  auto csv = source_path("tests/data/engine_lab_measurements.csv");
  auto text = run_cli(with_empty_db({"estimate", "--validate", csv}));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(check_golden("estimate_validate_lab.txt", text.out), "");
  auto r = run_cli(with_empty_db({"estimate", "--validate", csv, "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"].size(), 34u);
  EXPECT_EQ(j["skipped"].size(), 0u);
  int max_load = 0;
  for (const auto& row : j["rows"]) {
    if (!row.contains("concurrency")) continue;
    ++max_load;
    EXPECT_LE(row["concurrency"].get<double>(), row["memory_limit"].get<double>());
  }
  EXPECT_EQ(max_load, 32);
}

TEST(EstimateCli, ValidateMissingColumnIsExit2) {
  const std::string path = temp_dir() + "/m.csv";
  {
    std::ofstream out(path);
    out << "id,kind,metric,value\nx,train,mfu_percent,40\n";
  }
  auto r = run_cli(with_empty_db({"estimate", "--validate", path}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing column"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan::e2e
