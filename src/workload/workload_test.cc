#include "workload/workload.h"

#include <gtest/gtest.h>

#include "workload/models.h"

namespace gpuplan::workload {
namespace {

TEST(Models, Llama2SevenBParamsFromArchitecture) {
  // 2*32000*4096 embeddings + 32 * (4*4096^2 + 3*4096*11008 + 2*4096) + 4096 = 6.738 B.
  const Model* m = find_model("Llama-2-7B");
  ASSERT_NE(m, nullptr);
  EXPECT_NEAR(m->params_b, 6.738, 0.001);
}

}  // namespace
}  // namespace gpuplan::workload

namespace gpuplan::workload {
namespace {

TEST(Examples, AllParse) {
  for (const char* f : {"finetune-llama3-8b", "pretrain-llama2-70b", "serve-llama3-8b", "render-nv",
                        "windows-hybrid", "infeasible-budget"}) {
    auto w = parse_file(std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + f + ".yaml");
    EXPECT_TRUE(w.has_value()) << f << ": " << (w ? "" : w.error().to_string());
  }
}

}  // namespace
}  // namespace gpuplan::workload
