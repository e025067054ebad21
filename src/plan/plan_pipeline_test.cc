// The data pipeline check (plan_data_pipeline.cc) on the embedded catalog
// and the real estimator: a workload whose samples the data disk cannot
// deliver gets the warning and its fixes; text and small samples do not.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "plan/plan.h"

namespace gpuplan::plan {
namespace {

// A ViT-sized model trained on video clips: `bytes` per sample.
std::string workload(const std::string& bytes, const std::string& data_region = "") {
  return "kind: train\nname: clips\nmodel: llama-3-8b\nprecision: bf16\nsharding: zero3\n"
         "data:\n  samples: 2_000_000\n  seq_len: 1024\n" +
         (bytes.empty() ? std::string() : "  bytes_per_sample: " + bytes + "\n") +
         "constraints:\n  deadline_hours: 72\n  spot: never\n  regions: [eastus]\n" +
         (data_region.empty() ? std::string() : "  data_region: " + data_region + "\n");
}

struct Planned {
  Plan plan;
  std::string warnings;
  std::string pipeline;  // the data_pipeline assumption, "" when absent
};

Planned plan_for(const std::string& bytes, const std::string& data_region = "") {
  PlanOptions o;
  static auto cat = catalog::Catalog::load_embedded_at("2026-12-01");
  static auto rates = cost::Rates::load_embedded();
  EXPECT_TRUE(cat && rates);
  auto w = workload::parse_string(workload(bytes, data_region), "clips.yaml");
  EXPECT_TRUE(w) << w.error().to_string();
  auto p = make_plan(*w, **cat, *rates, o);
  EXPECT_TRUE(p) << p.error().to_string();
  Planned out{*p, "", ""};
  EXPECT_FALSE(p->options.empty());
  for (const std::string& s : p->warnings) out.warnings += s + "\n";
  for (const Assumption& a : p->assumptions)
    if (a.name == "data_pipeline") out.pipeline = a.value;
  return out;
}

TEST(DataPipeline, LargeSamplesStarveTheDataDiskAndTheFixesAreNamed) {
  // 16 MB per sample (a few seconds of video): thousands of samples/s on
  // H100s need GB/s, far above a P20 disk's 150 MB/s.
  Planned p = plan_for("16_000_000");
  ASSERT_NE(p.warnings.find("the data cannot keep up"), std::string::npos) << p.warnings;
  EXPECT_NE(p.warnings.find("P20 data disk delivers 150 MB/s"), std::string::npos) << p.warnings;
  EXPECT_NE(p.warnings.find("Premium SSD v2 provisioned at"), std::string::npos);
  EXPECT_NE(p.warnings.find("parallel readers"), std::string::npos);
  EXPECT_NE(p.pipeline.find("data.bytes_per_sample"), std::string::npos) << p.pipeline;
}

TEST(DataPipeline, TextAndSmallSamplesKeepUp) {
  Planned text = plan_for("");
  EXPECT_EQ(text.warnings.find("cannot keep up"), std::string::npos) << text.warnings;
  EXPECT_EQ(text.pipeline, "");  // pre-tokenized text: nothing to say
  Planned small = plan_for("4096");
  EXPECT_EQ(small.warnings.find("cannot keep up"), std::string::npos) << small.warnings;
  EXPECT_NE(small.pipeline.find("delivers 150 MB/s"), std::string::npos) << small.pipeline;
}

TEST(DataPipeline, ABiggerDiskTierIsOfferedWhenOneDelivers) {
  // Find a per-sample size that needs more than P20's 150 MB/s but less than
  // P80's 900 MB/s per VM: the fix then names a tier with its monthly cost.
  Planned base = plan_for("4096");
  const Option& best = base.plan.options.front();
  const double samples_per_vm = best.throughput / 1024 / best.count;
  const double bytes = 400e6 / samples_per_vm;  // 400 MB/s per VM
  Planned p = plan_for(std::to_string(static_cast<long long>(bytes)));
  ASSERT_NE(p.warnings.find("cannot keep up"), std::string::npos) << p.warnings;
  EXPECT_NE(p.warnings.find("P60 data disk (--data-disk-gib 8192, 500 MB/s): +$"),
            std::string::npos)
      << p.warnings;
}

TEST(DataPipeline, DataInAnotherRegionIsTheSamplesTransferAndAWarning) {
  Planned p = plan_for("1_000_000", "westeurope");
  ASSERT_NE(p.warnings.find("the data lives in westeurope and the top option runs in eastus"),
            std::string::npos)
      << p.warnings;
  bool moved = false;
  for (const Assumption& a : p.plan.assumptions) {
    // 2 M samples x 1 MB: the transfer is sized from the samples, not tokens.
    if (a.name == "dataset") moved = a.value.rfind("2000.0 GB moved from westeurope", 0) == 0;
  }
  EXPECT_TRUE(moved);
  Planned local = plan_for("1_000_000", "eastus");
  EXPECT_EQ(local.warnings.find("the data lives in"), std::string::npos) << local.warnings;
}

}  // namespace
}  // namespace gpuplan::plan
