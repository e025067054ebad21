// Issue 14, "typo help everywhere": a misspelt enumerated value, in a flag or
// in a workload or scenario file, is exit 2 naming the flag or the file, line
// and field, with the value it was probably meant to be.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

struct Typo {
  std::vector<std::string> args;
  std::string where;       // the flag, or "file:line" and field
  std::string suggestion;  // "did you mean 'x'?"
};

void expect_typo_help(const Typo& t) {
  const CliResult r = run_cli(t.args);
  std::string cmd;
  for (const std::string& a : t.args) cmd += a + " ";
  EXPECT_EQ(r.code, 2) << cmd << "\n" << r.err << r.out;
  EXPECT_NE(r.err.find(t.where), std::string::npos) << cmd << "\n" << r.err;
  EXPECT_NE(r.err.find(t.suggestion), std::string::npos) << cmd << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << cmd << "\n" << r.out;
}

TEST(TypoHelp, EnumeratedFlagValues) {
  const std::string render = source_path("examples/render-nv.yaml");
  const std::vector<Typo> typos = {
      {{"catalog", "--pricing", "spto"}, "--pricing", "did you mean 'spot'?"},
      {{"catalog", "--os", "linx"}, "--os", "did you mean 'linux'?"},
      {{"catalog", "--sort", "prise"}, "--sort", "did you mean 'price'?"},
      {{"catalog", "--gpu", "H1OO"}, "did you mean", "did you mean 'H100"},
      {{"catalog", "--series", "NCads_H100_v4"}, "series", "did you mean 'NCads_H100_v5'?"},
      {{"plan", render, "--objective", "tiem"}, "--objective", "did you mean 'time'?"},
      {{"plan", render, "--pricing", "payg,reserved-1j"},
       "--pricing",
       "did you mean 'reserved-1y'?"},
      {{"plan", render, "--blob-tier", "coll"}, "--blob-tier", "did you mean 'cool'?"},
      {{"cost", "Standard_NC40ads_H100_v5", "--region", "eastus", "--os", "windwos"},
       "--os",
       "did you mean 'windows'?"},
      {{"estimate", render, "--size", "NV36ads_A10_v4"},
       "--size",
       "did you mean 'Standard_NV36ads_A10_v5'?"},
      {{"stack", "--size", "Standard_NC40ads_H100_v4"},
       "--size",
       "did you mean 'Standard_NC40ads_H100_v5'?"},
      {{"simulate", source_path("examples/sim-deadline-spot.yaml"), "--policy", "greedy-spt"},
       "--policy",
       "did you mean 'greedy-spot'?"},
  };
  for (const Typo& t : typos) expect_typo_help(t);
}

TEST(TypoHelp, EnumeratedValuesInWorkloadFiles) {
  const std::string dir = temp_dir();
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  const std::string batch =
      "kind: render\nname: r\ndata:\n  items: 100\nbatch:\n  seconds_per_item: 9\n"
      "  reference_gpu: {gpu}\n  scales_with: fp32\nconstraints:\n  series: [{series}]\n"
      "  regions:\n    - eastus\n    - {region}\n";
  auto batch_with = [&](std::string gpu, std::string series, std::string region) {
    std::string t = batch;
    t.replace(t.find("{gpu}"), 5, gpu);
    t.replace(t.find("{series}"), 8, series);
    t.replace(t.find("{region}"), 8, region);
    return t;
  };
  const std::string gpu = write("gpu.yaml", batch_with("A1O", "NV", "westus"));
  const std::string series = write("series.yaml", batch_with("A10", "NVadsA10_v6", "westus"));
  const std::string region = write("region.yaml", batch_with("A10", "NV", "wetsus"));
  const std::string precision =
      write("precision.yaml",
            "kind: finetune\nname: f\nmodel: llama-3-8b\nprecision: bf61\n"
            "data:\n  tokens: 1000000\n");
  for (const char* cmd : {"plan", "estimate"}) {
    expect_typo_help({{cmd, gpu}, gpu + ":7:18: batch.reference_gpu", "did you mean 'A10'?"});
    expect_typo_help(
        {{cmd, series}, series + ":10:12: constraints.series", "did you mean 'NVadsA10_v5'?"});
    expect_typo_help(
        {{cmd, region}, region + ":13:7: constraints.regions", "did you mean 'westus'?"});
    expect_typo_help({{cmd, precision}, precision + ":4:12: precision", "did you mean 'bf16'?"});
  }
}

TEST(TypoHelp, EnumeratedValuesInScenarioFiles) {
  const std::string dir = temp_dir();
  const std::string scenario = source_path("examples/sim-deadline-spot.yaml");
  std::ifstream in(scenario);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The example's traces are relative to examples/: point them back there.
  auto variant = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    for (size_t at = t.find("../data/"); at != std::string::npos; at = t.find("../data/", at + 1))
      t.replace(at, 8, source_path("data/"));
    std::ofstream(dir + "/" + name) << t;
    return dir + "/" + name;
  };
  const std::string size = variant("size.yaml", "size: Standard_NC6s_v3", "size: Standard_NC6s_v4");
  const std::string region = variant("region.yaml", "region: eastus", "region: eastsu");
  const std::string kind = variant("kind.yaml", "kind: deadline", "kind: dedline");
  expect_typo_help({{"simulate", size}, size + ":14:9: vm.size", "did you mean"});
  expect_typo_help({{"simulate", region}, region + ":15:11: vm.region", "did you mean 'eastus'?"});
  expect_typo_help({{"simulate", kind}, kind + ":9:7: kind", "did you mean 'deadline'?"});
}

}  // namespace
}  // namespace gpuplan::e2e
