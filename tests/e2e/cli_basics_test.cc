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
  const CliResult flag = run_cli({"plan", source_path("examples/render-nv.yaml"), "--objetive", "time"});
  EXPECT_EQ(flag.code, 2);
  EXPECT_NE(flag.err.find("Did you mean --objective?"), std::string::npos) << flag.err;
  const CliResult far = run_cli({"zzzzzzzz"});
  EXPECT_EQ(far.code, 2);
  EXPECT_EQ(far.err.find("Did you mean"), std::string::npos) << far.err;
}

}  // namespace
}  // namespace gpuplan::e2e
