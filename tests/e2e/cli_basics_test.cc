#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

TEST(Cli, HelpExitsZeroAndShowsAnExample) {
  auto r = run_cli({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Example:"), std::string::npos);
}

TEST(Cli, UnknownFlagIsUsageErrorExit2) {
  auto r = run_cli({"--no-such-flag"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("gpuplan: error:"), std::string::npos);
}

TEST(Cli, NoCommandIsExit2) {
  auto r = run_cli({});
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace gpuplan::e2e

namespace gpuplan::e2e {
namespace {

// Issue 14: a misspelt command or flag is exit 2 with "did you mean".
TEST(CliBasics, MisspeltCommandsAndFlagsGetASuggestion) {
  const CliResult cmd = run_cli({"plna"});
  EXPECT_EQ(cmd.code, 2);
  EXPECT_NE(cmd.err.find("Did you mean 'plan'?"), std::string::npos) << cmd.err;
  const CliResult sub = run_cli({"catalog", "improt"});
  EXPECT_EQ(sub.code, 2);
  EXPECT_NE(sub.err.find("Did you mean 'import'?"), std::string::npos) << sub.err;
  const CliResult flag =
      run_cli({"plan", source_path("examples/render-nv.yaml"), "--objetive", "time"});
  EXPECT_EQ(flag.code, 2);
  EXPECT_NE(flag.err.find("Did you mean --objective?"), std::string::npos) << flag.err;
  const CliResult far = run_cli({"zzzzzzzz"});
  EXPECT_EQ(far.code, 2);
  EXPECT_EQ(far.err.find("Did you mean"), std::string::npos) << far.err;
}

// A flag's value of the wrong kind says what the flag takes, not CLI11's
// "Could not convert: --top = 1e11".
TEST(CliBasics, AFlagOfTheWrongKindSaysWhatItTakes) {
  const std::string w = source_path("examples/render-nv.yaml");
  for (const char* v : {"1e11", "abc", "2.5"}) {
    const CliResult r = run_cli({"plan", w, "--top", v});
    EXPECT_EQ(r.code, 2) << v;
    EXPECT_NE(r.err.find(std::string("--top: expected a whole number, got '") + v + "'"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("Could not convert"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace gpuplan::e2e

namespace gpuplan::e2e {
namespace {

// Issue 14: a misspelt region is exit 2 suggesting the real one, on every
// command and in workload and scenario files; a real region without GPU
// sizes is exit 1 saying so.
TEST(CliBasics, RegionsAreCheckedAgainstAzuresList) {
  const std::string dir = temp_dir();
  const std::vector<std::vector<std::string>> flags = {
      {"plan", source_path("examples/render-nv.yaml"), "--region", "eastsu"},
      {"cost", "Standard_NC40ads_H100_v5", "--region", "eastsu"},
      {"catalog", "--region", "eastsu"}};
  for (const auto& args : flags) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[0] << r.err;
    EXPECT_NE(r.err.find("did you mean 'eastus'?"), std::string::npos) << args[0] << r.err;
  }
  {
    std::ofstream(dir + "/w.yaml")
        << "kind: finetune\nname: w\nmodel: llama-3-8b\nmethod: lora\n"
           "data:\n  tokens: 100000000\nconstraints:\n  regions: [eastsu]\n";
  }
  for (const char* cmd : {"plan", "estimate"}) {
    const CliResult r = run_cli({cmd, dir + "/w.yaml"});
    EXPECT_EQ(r.code, 2) << cmd << r.err;
    EXPECT_NE(r.err.find("constraints.regions"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("did you mean 'eastus'?"), std::string::npos) << r.err;
  }
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"plan", source_path("examples/render-nv.yaml"), "--region", "newzealandnorth"},
           {"cost", "Standard_NC40ads_H100_v5", "--region", "newzealandnorth"},
           {"catalog", "--region", "newzealandnorth"}}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.code, 1) << args[0] << r.err << r.out;
    EXPECT_NE((r.err + r.out).find("no GPU"), std::string::npos) << args[0] << r.err;
  }
}

}  // namespace
}  // namespace gpuplan::e2e
