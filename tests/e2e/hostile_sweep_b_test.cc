// The second hostile-input sweep: crashes, unbounded memory and work, and
// wrong answers from small inputs; each is exit 2 naming the file, line and
// field (or the flag), or a bounded answer.
#include <string>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

// --threads 34000 --runs 34000 started threads until the system refused
// one, and the refusal ended in std::terminate (exit 134).
TEST(HostileSweepB, SimulateThreadsIsRangeChecked) {
  const std::string s = source_path("tests/data/sim/deadline_small.yaml");
  for (const char* bad : {"1025", "100000", "-1"}) {
    auto r = run_cli({"simulate", s, "--threads", bad, "--runs", "2", "--quiet"});
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--threads"), std::string::npos) << r.err;
  }
  auto ok = run_cli({"simulate", s, "--threads", "1024", "--runs", "2", "--quiet"});
  EXPECT_EQ(ok.code, 0) << ok.err;
}

}  // namespace
}  // namespace gpuplan::e2e
