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
