// Deploy's two ways into a plan (plan_input.h): a plan made in this process
// and plan JSON read back, versions /1 and /2 — and the Arm64 sizes, which
// need their own image and repository.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "deploy/deploy.h"
#include "deploy/plan_input.h"
#include "deploy/stack_matrix.h"
#include "plan/plan.h"

namespace gpuplan::deploy {
namespace {

// A planner option with awkward figures: nothing rounds to 4 decimals.
plan::Plan one_option_plan() {
  plan::Plan p;
  p.workload_name = "llama-sft";
  p.workload_file = "w.yaml";
  p.kind = "finetune";
  plan::Option o;
  o.rank = 1;
  o.size = "Standard_NC80adis_H100_v5";
  o.count = 3;
  o.gpu_model = "H100-NVL";
  o.gpu_count = 2;
  o.gpus = 6;
  o.region = "eastus2";
  o.pricing = catalog::Pricing::kSpot;
  o.hours = 38.05894504532841;
  o.cost_usd = 119.72038483814481;
  o.cost_low_usd = 115.25972147504987;
  o.cost_high_usd = 135.461683224068;
  o.usd_per_hour = 3.0183380000000001 * 3;
  o.quota_ok = false;
  o.kind = "finetune";
  o.price.source = "Azure Retail Prices API, 2026-05-20";
  o.price.as_of = "2026-05-20";
  p.options.push_back(o);
  p.assumptions.push_back({"data_disk_gib", "1024 GiB", "workload"});
  return p;
}

void expect_same(const PlanOption& a, const PlanOption& b) {
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.gpus, b.gpus);
  EXPECT_EQ(a.gpu, b.gpu);
  EXPECT_EQ(a.gpu_count, b.gpu_count);
  EXPECT_EQ(a.region, b.region);
  EXPECT_EQ(a.pricing, b.pricing);
  EXPECT_EQ(a.os, b.os);
  EXPECT_EQ(a.hybrid_benefit, b.hybrid_benefit);
  // Exactly equal: plan JSON carries full precision (docs/json.md).
  EXPECT_EQ(a.hours, b.hours);
  EXPECT_EQ(a.cost_usd, b.cost_usd);
  EXPECT_EQ(a.cost_low_usd, b.cost_low_usd);
  EXPECT_EQ(a.cost_high_usd, b.cost_high_usd);
  EXPECT_EQ(a.usd_per_hour, b.usd_per_hour);
  EXPECT_EQ(a.quota_ok, b.quota_ok);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.price_source, b.price_source);
  EXPECT_EQ(a.price_as_of, b.price_as_of);
  EXPECT_EQ(a.confidential, b.confidential);
}

TEST(PlanDocument, InProcessEqualsTheJsonReadBackToTheLastBit) {
  const plan::Plan p = one_option_plan();
  const PlanDocument direct = plan_document(p, "w.yaml");
  auto read = parse_plan_json(plan::to_json(p).dump(2), "w.yaml");
  ASSERT_TRUE(read.has_value()) << read.error().to_string();
  EXPECT_EQ(direct.workload_name, read->workload_name);
  EXPECT_EQ(direct.workload_kind, read->workload_kind);
  EXPECT_EQ(direct.data_disk_gib, read->data_disk_gib);
  EXPECT_EQ(direct.data_disk_gib, 1024);
  ASSERT_EQ(direct.options.size(), 1u);
  ASSERT_EQ(read->options.size(), 1u);
  expect_same(direct.options[0], read->options[0]);
  EXPECT_EQ(direct.options[0].gpu_count, 2);
  EXPECT_EQ(direct.options[0].cost_usd, 119.72038483814481);
}

// The same option as /1 wrote it (gpu_model, no gpu_count) and as /2 does.
std::string option_json(const std::string& schema, const std::string& gpu_keys) {
  return R"({"schema": ")" + schema + R"(", "options": [{"size": "Standard_NC40ads_H100_v5",
    "count": 2, "gpus": 2, )" +
         gpu_keys + R"(, "region": "eastus", "pricing": "payg", "os": "linux",
    "hours": 10.123456789, "cost_usd": 141.3, "cost_low_usd": 141.3, "cost_high_usd": 141.3,
    "usd_per_hour": 13.96}]})";
}

TEST(PlanDocument, ReadsVersionOneAndTwoAndRefusesOthersNamingFileAndField) {
  auto v1 = parse_plan_json(option_json("gpuplan.plan/1", R"("gpu_model": "H100-NVL")"), "a.json");
  ASSERT_TRUE(v1.has_value()) << v1.error().to_string();
  EXPECT_EQ(v1->options[0].gpu, "H100-NVL");
  EXPECT_FALSE(v1->options[0].gpu_count.has_value());
  EXPECT_EQ(v1->options[0].hours, 10.123456789);

  auto v2 = parse_plan_json(option_json("gpuplan.plan/2", R"("gpu": "H100-NVL", "gpu_count": 1)"),
                            "b.json");
  ASSERT_TRUE(v2.has_value()) << v2.error().to_string();
  EXPECT_EQ(v2->options[0].gpu, "H100-NVL");
  EXPECT_EQ(v2->options[0].gpu_count, 1);

  auto bad_count = parse_plan_json(
      option_json("gpuplan.plan/2", R"("gpu": "H100-NVL", "gpu_count": "one")"), "c.json");
  ASSERT_FALSE(bad_count.has_value());
  EXPECT_EQ(bad_count.error().where.field, "options[0].gpu_count");

  for (const char* other : {"gpuplan.plan/3", "gpuplan.plan/0", "gpuplan.report/1", ""}) {
    auto r = parse_plan_json(option_json(other, R"("gpu": "H100-NVL")"), "d.json");
    ASSERT_FALSE(r.has_value()) << other;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.error().where.file, "d.json");
    EXPECT_EQ(r.error().where.field, "schema");
    EXPECT_NE(r.error().message.find("\"gpuplan.plan/1\" or \"gpuplan.plan/2\""), std::string::npos)
        << r.error().message;
  }
}

// ---- Arm64 sizes ----------------------------------------------------------

std::unique_ptr<catalog::Catalog> gb200_catalog() {
  catalog::Gpu gb200{.model = "GB200",
                     .vendor = "NVIDIA",
                     .architecture = "Blackwell (B200 die)",
                     .compute_capability = "10.0",
                     .memory_bw_gbs = 8000};
  catalog::Gpu h100{.model = "H100-SXM",
                    .vendor = "NVIDIA",
                    .architecture = "Hopper",
                    .compute_capability = "9.0",
                    .memory_bw_gbs = 3350};
  catalog::VmSize gb{.name = "Standard_ND128isr_NDR_GB200_v6",
                     .series = "ND_GB200_v6",
                     .family_letter = "ND",
                     .vcpus = 128,
                     .gpu_model = "GB200",
                     .gpu_count = 4,
                     .nvlink = true,
                     .infiniband_gbps = 1600};
  catalog::VmSize nd{.name = "Standard_ND96isr_H100_v5",
                     .series = "ND_H100_v5",
                     .family_letter = "ND",
                     .vcpus = 96,
                     .gpu_model = "H100-SXM",
                     .gpu_count = 8,
                     .nvlink = true,
                     .infiniband_gbps = 3200};
  // Both offered in eastus, the plans' region (deploy checks it).
  return catalog::Catalog::from_parts({gb200, h100}, {gb, nd},
                                      {{.size = gb.name, .region = "eastus", .usd_per_hour = 1.0},
                                       {.size = nd.name, .region = "eastus", .usd_per_hour = 1.0}});
}

PlanDocument plan_of(const std::string& size, catalog::Os os = catalog::Os::kLinux) {
  PlanDocument p;
  p.file = "plan.json";
  p.workload_name = "pretrain";
  p.workload_kind = "train";
  PlanOption o;
  o.size = size;
  o.count = 1;
  o.region = "eastus";
  o.os = os;
  o.hours = 10;
  o.cost_usd = o.cost_low_usd = o.cost_high_usd = 1298;
  o.usd_per_hour = 129.8;
  o.kind = "train";
  p.options.push_back(o);
  return p;
}

DeployOptions options() {
  DeployOptions o;
  o.ssh_cidr = "203.0.113.0/24";
  o.start_date = "2026-12-01";
  o.data_disk_gib = 256;
  return o;
}

TEST(Arm64, GraceSizesGetTheArm64ImageAndTheSbsaRepositoryWithOpenModules) {
  auto cat = gb200_catalog();
  auto matrix = embedded_stack_matrix();
  ASSERT_TRUE(matrix.has_value());
  auto spec =
      make_deploy_spec(plan_of("Standard_ND128isr_NDR_GB200_v6"), *cat, **matrix, options());
  ASSERT_TRUE(spec.has_value()) << spec.error().to_string();
  EXPECT_TRUE(spec->arm64);
  EXPECT_FALSE(spec->hpc_image);  // the Ubuntu-HPC image is x64
  EXPECT_EQ(spec->image_urn.rfind("Canonical:ubuntu-24_04-lts:server-arm64:", 0), 0u)
      << spec->image_urn;
  EXPECT_EQ(spec->stack.driver_source, DriverSource::kCloudInit);
  EXPECT_EQ(spec->stack.driver_package, "nvidia-open-" + spec->stack.driver_branch);
  const std::string cloud_init = render_cloud_init(*spec);
  EXPECT_NE(cloud_init.find("/sbsa/ /"), std::string::npos);
  EXPECT_NE(cloud_init.find("rm -f /etc/apt/sources.list.d/cuda-${repo}-x86_64.list"),
            std::string::npos);
  EXPECT_NE(cloud_init.find("apt_get install -y -q nvidia-open-"), std::string::npos);
  EXPECT_EQ(cloud_init.find("cuda-drivers-"), std::string::npos);
  EXPECT_NE(render_deploy_script(*spec).find("server-arm64"), std::string::npos);
  // What it cannot set up is said, not silently skipped.
  bool says_what_is_missing = false;
  for (const std::string& n : spec->notes) {
    says_what_is_missing |= n.find("not set up on Arm64: InfiniBand") != std::string::npos;
  }
  EXPECT_TRUE(says_what_is_missing);
}

TEST(Arm64, X64InfiniBandSizesKeepTheHpcImageAndTheProprietaryDriverPackage) {
  auto cat = gb200_catalog();
  auto matrix = embedded_stack_matrix();
  ASSERT_TRUE(matrix.has_value());
  auto spec = make_deploy_spec(plan_of("Standard_ND96isr_H100_v5"), *cat, **matrix, options());
  ASSERT_TRUE(spec.has_value()) << spec.error().to_string();
  EXPECT_FALSE(spec->arm64);
  EXPECT_TRUE(spec->hpc_image);
  EXPECT_EQ(spec->image_urn.find("arm64"), std::string::npos);
  EXPECT_EQ(render_cloud_init(*spec).find("sbsa"), std::string::npos);
}

TEST(Arm64, WindowsOnAGraceSizeIsRefusedNamingTheField) {
  auto cat = gb200_catalog();
  auto matrix = embedded_stack_matrix();
  ASSERT_TRUE(matrix.has_value());
  auto spec = make_deploy_spec(plan_of("Standard_ND128isr_NDR_GB200_v6", catalog::Os::kWindows),
                               *cat, **matrix, options());
  ASSERT_FALSE(spec.has_value());
  EXPECT_EQ(spec.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_EQ(spec.error().where.field, "options[0].os");
  EXPECT_NE(spec.error().message.find("Arm64"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::deploy
