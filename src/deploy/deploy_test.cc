// Tests of the deploy module: matrix parsing, the stack resolver's choices
// and refusals, plan reading, the deployment spec's secure defaults and the
// generated files' content.
#include "deploy/deploy.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/files.h"
#include "core/names.h"
#include "deploy/internal/generate.h"
#include "deploy/plan_input.h"
#include "deploy/stack.h"
#include "deploy/stack_matrix.h"

namespace gpuplan::deploy {
namespace {

using catalog::DriverKind;
using catalog::Os;

const StackMatrix& matrix() {
  auto m = embedded_stack_matrix();
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().to_string());
  return **m;
}

Version v(const char* s) { return *Version::parse(s); }

StackTarget target(const char* size, const char* series, const char* gpu, const char* cc,
                   DriverKind kind, Os os = Os::kLinux, const char* image = "") {
  StackTarget t;
  t.size = size;
  t.series = series;
  t.gpu_model = gpu;
  t.compute_capability = cc;
  t.driver = kind;
  t.os = os;
  t.image_with_driver = image;
  return t;
}

StackTarget h100_nvl() {
  return target("Standard_NC40ads_H100_v5", "NCads_H100_v5", "H100-NVL", "9.0", DriverKind::kCuda);
}
StackTarget v100() {
  return target("Standard_NC6s_v3", "NCv3", "V100-16GB", "7.0", DriverKind::kCuda);
}
StackTarget a10_grid() {
  return target("Standard_NV36ads_A10_v5", "NVadsA10_v5", "A10", "8.6", DriverKind::kGrid);
}

// ---- Version and matrix ---------------------------------------------------

TEST(Version, ComparesPartByPartWithMissingPartsAsZero) {
  EXPECT_LT(v("580"), v("580.65.06"));
  EXPECT_EQ(v("12"), v("12.0"));
  EXPECT_LT(v("570.26"), v("570.124.06"));  // numeric, not lexical
  EXPECT_GT(v("590.44.01"), v("580.95.05"));
  EXPECT_EQ(v("580.65.06").to_string(), "580.65.06");  // zero padding kept
  EXPECT_FALSE(Version::parse("12.x").has_value());
  EXPECT_FALSE(Version::parse(">=570.26").has_value());
  EXPECT_FALSE(Version::parse("").has_value());
}

TEST(StackMatrix, EmbeddedMatrixHasEveryTable) {
  const StackMatrix& m = matrix();
  EXPECT_EQ(m.cuda.size(), 20u);
  EXPECT_EQ(m.cuda.front().cuda, v("13.1"));  // newest first
  ASSERT_NE(m.find_cuda(v("13.0")), nullptr);
  EXPECT_EQ(m.find_cuda(v("13.0"))->linux_min_driver.to_string(), "580.65.06");
  EXPECT_FALSE(m.find_cuda(v("13.0"))->windows_min_driver.has_value());
  EXPECT_EQ(m.find_cuda(v("12.8"))->windows_min_driver->to_string(), "570.65");
  EXPECT_EQ(m.find_cuda(v("12.7")), nullptr);  // never released
  ASSERT_NE(m.find_family(12), nullptr);
  EXPECT_EQ(m.find_family(12)->linux_min_driver.to_string(), "525.60.13");
  EXPECT_EQ(m.cudnn.front().version, v("9.17.0"));
  EXPECT_EQ(m.pytorch.front().pytorch, v("2.14"));
  EXPECT_EQ(m.pytorch.front().variant(), "cu132");  // newest CUDA first within a release
  EXPECT_EQ(m.grid.size(), 4u);
  ASSERT_NE(m.find_image("ubuntu-hpc-2204"), nullptr);
}

TEST(StackMatrix, BadCellNamesFileLineAndColumn) {
  const std::string csv =
      "table,name,gpu,cuda,driver_linux,driver_windows,min_cc,max_cc,status,notes,source\n"
      "cuda,13.0,,13.0,580.65.06,,7.5,,ga,,s\n"
      "pytorch,2.9,,12.8,,,7.5,12.0,stable,,s\n"
      "cuda,12.8,,12.8,>=570.26,,,,ga,,s\n";
  auto m = parse_stack_matrix(csv, "m.csv");
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(m.error().where.file, "m.csv");
  EXPECT_EQ(m.error().where.line, 4);
  EXPECT_EQ(m.error().where.field, "driver_linux");

  auto bad_table = parse_stack_matrix(
      "table,name,gpu,cuda,driver_linux,driver_windows,min_cc,max_cc,status,notes,source\n"
      "rocm,6.3,,,,,,,,,s\n",
      "m.csv");
  ASSERT_FALSE(bad_table.has_value());
  EXPECT_NE(bad_table.error().message.find("unknown table 'rocm'"), std::string::npos);

  auto bad_status = parse_stack_matrix(
      "table,name,gpu,cuda,driver_linux,driver_windows,min_cc,max_cc,status,notes,source\n"
      "cuda,13.0,,13.0,580.65.06,,7.5,,ga,,s\n"
      "pytorch,2.9,,12.8,,,7.5,12.0,nightly,,s\n",
      "m.csv");
  ASSERT_FALSE(bad_status.has_value());
  EXPECT_EQ(bad_status.error().where.field, "status");

  // A grid row's status: tokens joined by '+'; an empty or unknown one is refused.
  const std::string head =
      "table,name,gpu,cuda,driver_linux,driver_windows,min_cc,max_cc,status,notes,source\n"
      "cuda,13.0,,13.0,580.65.06,,7.5,,ga,,s\n"
      "pytorch,2.9,,12.8,,,7.5,12.0,stable,,s\n";
  auto both = parse_stack_matrix(head + "grid,NVv3,M60,,,538.46,,,pinned+no-secure-boot-vtpm,,s\n",
                                 "m.csv");
  ASSERT_TRUE(both.has_value()) << both.error().message;
  EXPECT_TRUE(both->grid[0].pinned);
  EXPECT_TRUE(both->grid[0].no_secure_boot_vtpm);
  for (const char* status : {"pinned+", "+pinned", "pinned++no-secure-boot-vtpm", "vtpm"}) {
    auto bad = parse_stack_matrix(
        head + "grid,NVv3,M60,,,538.46,,," + std::string(status) + ",,s\n", "m.csv");
    ASSERT_FALSE(bad.has_value()) << status;
    EXPECT_EQ(bad.error().where.field, "status") << status;
  }
}

// ---- Resolver: choices ------------------------------------------------------

TEST(ResolveStack, H100OnLinuxGetsNewestStableWheelAndPinnedDriverBranch) {
  auto s = resolve_stack(matrix(), h100_nvl(), {});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  // 2.14's stable builds are cu126, cu130, cu132; cu132 (CUDA 13.2) is not in
  // NVIDIA's driver table, so cu130 is the newest that can be pinned.
  EXPECT_EQ(s->pytorch, v("2.14"));
  EXPECT_EQ(s->wheel_variant, "cu130");
  EXPECT_EQ(s->cuda, v("13.0"));
  EXPECT_EQ(s->min_driver.to_string(), "580.65.06");
  EXPECT_EQ(s->driver_branch, "580");
  EXPECT_EQ(s->driver_source, DriverSource::kCloudInit);
  ASSERT_TRUE(s->cudnn.has_value());
  EXPECT_EQ(*s->cudnn, v("9.17.0"));
  EXPECT_EQ(s->pytorch_index_url, "https://download.pytorch.org/whl/cu130");
  EXPECT_FALSE(s->minor_version_compat);
}

TEST(ResolveStack, V100StaysOnCuda12WithCudnnThatStillCoversVolta) {
  auto s = resolve_stack(matrix(), v100(), {});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->pytorch, v("2.14"));
  EXPECT_EQ(s->wheel_variant, "cu126");
  EXPECT_EQ(s->min_driver.to_string(), "560.28.03");
  EXPECT_EQ(s->driver_branch, "560");
  ASSERT_TRUE(s->cudnn.has_value());
  EXPECT_EQ(*s->cudnn, v("9.10.2"));  // 9.17 starts at compute capability 7.5
}

TEST(ResolveStack, RequestedPytorchPicksItsNewestCudaBuild) {
  auto s = resolve_stack(matrix(), h100_nvl(), StackRequest{v("2.5"), std::nullopt});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->pytorch, v("2.5"));
  EXPECT_EQ(s->wheel_variant, "cu124");
  EXPECT_EQ(s->min_driver.to_string(), "550.54.14");
}

TEST(ResolveStack, ExperimentalWheelOnlyWhenAskedForItsCuda) {
  auto s = resolve_stack(matrix(), h100_nvl(), StackRequest{v("2.9"), v("13.0")});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->wheel_variant, "cu130");
  EXPECT_FALSE(s->wheel_stable);
  ASSERT_FALSE(s->warnings.empty());
  EXPECT_NE(s->warnings.back().find("experimental"), std::string::npos);
  auto stable = resolve_stack(matrix(), h100_nvl(), StackRequest{v("2.9"), std::nullopt});
  ASSERT_TRUE(stable.has_value());
  EXPECT_EQ(stable->wheel_variant, "cu128");  // the stable build wins without --cuda
  EXPECT_TRUE(stable->wheel_stable);
}

TEST(ResolveStack, GridA10IsCappedByTheGridDriverAzureInstalls) {
  auto s = resolve_stack(matrix(), a10_grid(), {});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->driver_source, DriverSource::kExtension);
  ASSERT_TRUE(s->provided_driver.has_value());
  EXPECT_EQ(s->provided_driver->to_string(), "570.195.03");
  EXPECT_EQ(s->driver_branch, "");  // the extension installs it
  // 2.14: cu130 needs 580.65.06 (> 570.195.03, and the 13.x family needs 580): dropped.
  EXPECT_EQ(s->pytorch, v("2.14"));
  EXPECT_EQ(s->wheel_variant, "cu126");
  EXPECT_FALSE(s->minor_version_compat);  // 560.28.03 <= 570.195.03
  bool derivation_said = false;
  for (const auto& w : s->warnings) derivation_said |= w.find("GRID-branch") != std::string::npos;
  EXPECT_TRUE(derivation_said);
  // CUDA 12.8 needs 570.26 <= 570.195.03: fully supported, PyTorch 2.11 has a stable cu128.
  auto c128 = resolve_stack(matrix(), a10_grid(), StackRequest{std::nullopt, v("12.8")});
  ASSERT_TRUE(c128.has_value()) << c128.error().message;
  EXPECT_EQ(c128->pytorch, v("2.11"));
  EXPECT_FALSE(c128->minor_version_compat);
  // CUDA 12.9 needs 575.51.03: only through 12.x minor-version compatibility (>= 525.60.13).
  auto c129 = resolve_stack(matrix(), a10_grid(), StackRequest{std::nullopt, v("12.9")});
  ASSERT_TRUE(c129.has_value()) << c129.error().message;
  EXPECT_TRUE(c129->minor_version_compat);
  EXPECT_EQ(c129->min_driver.to_string(), "525.60.13");
}

TEST(ResolveStack, BlackwellGridNeedsCuda13Wheels) {
  auto t = target("Standard_NC128ds_xl_RTXPRO6000BSE_v6", "NC_RTXPRO6000BSE_v6", "RTX-PRO-6000",
                  "12.0", DriverKind::kGrid);
  auto s = resolve_stack(matrix(), t, {});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->wheel_variant, "cu130");  // cu126 stops at Hopper (9.0)
  EXPECT_EQ(s->provided_driver->to_string(), "595.58.03");
  EXPECT_TRUE(s->no_secure_boot_vtpm);  // the grid row's status
}

TEST(ResolveStack, HpcImageDriverUsesMinorVersionCompatibility) {
  auto t = target("Standard_ND96isr_H100_v5", "ND_H100_v5", "H100-SXM", "9.0", DriverKind::kCuda,
                  Os::kLinux, "ubuntu-hpc-2204");
  auto s = resolve_stack(matrix(), t, {});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->driver_source, DriverSource::kImage);
  // 550.90.07 < 560.28.03 (12.6 GA) but >= 525.60.13 (12.x family).
  EXPECT_EQ(s->wheel_variant, "cu126");
  EXPECT_TRUE(s->minor_version_compat);
  EXPECT_EQ(s->min_driver.to_string(), "525.60.13");
}

TEST(ResolveStack, WindowsStaysOnCuda12BecauseNvidiaListsNoWindowsMinimumFor13) {
  auto t = target("Standard_NC24ads_A100_v4", "NC_A100_v4", "A100-80GB-PCIe", "8.0",
                  DriverKind::kCuda, Os::kWindows);
  auto s = resolve_stack(matrix(), t, {});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->cuda, v("12.6"));
  EXPECT_EQ(s->min_driver.to_string(), "560.76");
  EXPECT_EQ(s->driver_source, DriverSource::kExtension);
}

// ---- Resolver: refusals -----------------------------------------------------

TEST(ResolveStack, RefusesCuda13OnV100WithTheReason) {
  auto s = resolve_stack(matrix(), v100(), StackRequest{std::nullopt, v("13.0")});
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(s.error().message.find("Volta"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("compute capability 7.5"), std::string::npos);
  EXPECT_NE(s.error().message.find("CUDA 12.x"), std::string::npos);
}

TEST(ResolveStack, RefusesOldPytorchOnBlackwellListingEachWheel) {
  // PyTorch 2.6's builds (cu118, cu124, cu126) all stop at Hopper (9.0).
  auto t = target("Standard_NC128ds_xl_RTXPRO6000BSE_v6", "NC_RTXPRO6000BSE_v6", "RTX-PRO-6000",
                  "12.0", DriverKind::kGrid);
  auto s = resolve_stack(matrix(), t, StackRequest{v("2.6"), std::nullopt});
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(s.error().message.find("cu124: built for compute capability 5.0–9.0, not 12.0"),
            std::string::npos)
      << s.error().message;
}

TEST(ResolveStack, RefusesAmdSizesBecauseTheMatrixHasNoRocmRows) {
  auto t =
      target("Standard_ND96isr_MI300X_v5", "ND_MI300X_v5", "MI300X", "gfx942", DriverKind::kAmd);
  auto s = resolve_stack(matrix(), t, {});
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(s.error().message.find("ROCm"), std::string::npos);
}

TEST(ResolveStack, RefusesGridSeriesWhoseDriverVersionIsUnknown) {
  auto t = target("Standard_NV12s_v3", "NVv3", "M60", "5.2", DriverKind::kGrid);
  auto s = resolve_stack(matrix(), t, {});
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(s.error().message.find("GRID-branch→CUDA"), std::string::npos) << s.error().message;
  // On Windows the extension's pinned 538.46 is known: CUDA 12.x works via minor compatibility.
  t.os = Os::kWindows;
  auto w = resolve_stack(matrix(), t, {});
  ASSERT_TRUE(w.has_value()) << w.error().message;
  EXPECT_EQ(w->cuda.major(), 12);
}

TEST(ResolveStack, RefusesCudaAboveTheGridDriver) {
  auto s = resolve_stack(matrix(), a10_grid(), StackRequest{std::nullopt, v("13.0")});
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(s.error().message.find("needs driver 580.65.06"), std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("570.195.03"), std::string::npos);
}

TEST(ResolveStack, UnknownVersionsAreBadInput) {
  auto p = resolve_stack(matrix(), h100_nvl(), StackRequest{v("3.0"), std::nullopt});
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(p.error().where.field, "--pytorch");
  auto c = resolve_stack(matrix(), h100_nvl(), StackRequest{std::nullopt, v("12.7")});
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(c.error().where.field, "--cuda");
}

TEST(ResolveStack, UnknownComputeCapabilityIsRefused) {
  auto t = h100_nvl();
  t.compute_capability = "";
  auto s = resolve_stack(matrix(), t, {});
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::kFailedPrecondition);
}

// ---- Plan input -------------------------------------------------------------

std::string fixture(const std::string& name) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/tests/data/plans/" + name;
}

TEST(PlanInput, ReadsTheFixtureOptions) {
  auto text = files::read_text(fixture("nc_h100_train.json"));
  ASSERT_TRUE(text.has_value());
  auto plan = parse_plan_json(*text, "nc_h100_train.json");
  ASSERT_TRUE(plan.has_value()) << plan.error().to_string();
  EXPECT_EQ(plan->workload_name, "finetune-llama3-8b");
  EXPECT_EQ(plan->workload_kind, "finetune");
  ASSERT_EQ(plan->options.size(), 2u);
  EXPECT_EQ(plan->options[0].pricing, catalog::Pricing::kSpot);
  EXPECT_DOUBLE_EQ(plan->options[0].cost_high_usd, 38.11);
  EXPECT_DOUBLE_EQ(plan->options[0].hours_high, 18.2);
  EXPECT_EQ(plan->options[1].pricing, catalog::Pricing::kPayg);
  EXPECT_FALSE(plan->data_disk_gib.has_value());
  EXPECT_FALSE(plan->options[0].confidential);  // absent in older plans: false
  auto conf = parse_plan_json(R"({"options": [{"size": "Standard_NCC40ads_H100_v5", "count": 1,
      "gpus": 1, "region": "eastus2", "pricing": "payg", "os": "linux", "hours": 1,
      "cost_usd": 1, "cost_low_usd": 1, "cost_high_usd": 1, "usd_per_hour": 1,
      "confidential": true}]})",
                              "c.json");
  ASSERT_TRUE(conf.has_value()) << conf.error().to_string();
  EXPECT_TRUE(conf->options[0].confidential);
  auto nd = parse_plan_json(*files::read_text(fixture("nd_multinode_ib.json")), "nd.json");
  ASSERT_TRUE(nd.has_value());
  EXPECT_EQ(nd->data_disk_gib, 1024);
}

TEST(PlanInput, ErrorsNameTheJsonPath) {
  auto bad = [](const std::string& text) { return parse_plan_json(text, "p.json"); };
  auto missing = bad(R"({"options": [{"size": "Standard_NC40ads_H100_v5"}]})");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().where.file, "p.json");
  EXPECT_EQ(missing.error().where.field, "options[0].count");
  auto pricing = bad(
      R"({"options": [{"size": "Standard_NC40ads_H100_v5", "count": 1, "gpus": 1, "region": "eastus",
      "pricing": "cheap", "os": "linux", "hours": 1, "cost_usd": 1, "cost_low_usd": 1,
      "cost_high_usd": 1, "usd_per_hour": 1}]})");
  ASSERT_FALSE(pricing.has_value());
  EXPECT_EQ(pricing.error().where.field, "options[0].pricing");
  auto count = bad(R"({"options": [{"size": "Standard_NC40ads_H100_v5", "count": 1.5}]})");
  ASSERT_FALSE(count.has_value());
  EXPECT_EQ(count.error().where.field, "options[0].count");
  auto no_options = bad(R"({"schema": "gpuplan.plan/1"})");
  ASSERT_FALSE(no_options.has_value());
  EXPECT_EQ(no_options.error().where.field, "options");
  auto schema = bad(R"({"schema": "something-else", "options": []})");
  ASSERT_FALSE(schema.has_value());
  EXPECT_EQ(schema.error().where.field, "schema");
  auto syntax = bad("{\n  \"options\": [,]\n}");
  ASSERT_FALSE(syntax.has_value());
  EXPECT_EQ(syntax.error().where.line, 2);
  // What no plan writes: 1e308 hours once became a 309-digit line of
  // deploy.sh and a budget of 1 USD; 0 hours, a free VM, no GPUs, a kind
  // that is no workload's.
  const auto option = [&](const std::string& field, const std::string& value) {
    std::map<std::string, std::string> o = {{"size", "\"Standard_NC40ads_H100_v5\""},
                                            {"count", "1"},
                                            {"gpus", "1"},
                                            {"region", "\"eastus\""},
                                            {"pricing", "\"payg\""},
                                            {"os", "\"linux\""},
                                            {"hours", "1"},
                                            {"cost_usd", "1"},
                                            {"cost_low_usd", "1"},
                                            {"cost_high_usd", "1"},
                                            {"usd_per_hour", "1"}};
    o[field] = value;
    std::string text = "{\"options\": [{";
    for (const auto& [k, v] : o) text += (text.back() == '{' ? "\"" : ", \"") + k + "\": " + v;
    return bad(text + "}]}");
  };
  ASSERT_TRUE(option("hours", "2").has_value());
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, std::string>>{{"hours", "1e308"},
                                                        {"hours", "0"},
                                                        {"usd_per_hour", "0"},
                                                        {"gpus", "0"},
                                                        {"kind", "\"bogus\""}}) {
    auto r = option(field, value);
    ASSERT_FALSE(r.has_value()) << field << " " << value;
    EXPECT_EQ(r.error().where.field, "options[0]." + field) << value;
  }
}

// ---- Spec and secure defaults -----------------------------------------------

std::unique_ptr<catalog::Catalog> small_catalog() {
  catalog::Gpu h100{.model = "H100-NVL",
                    .vendor = "NVIDIA",
                    .architecture = "Hopper",
                    .compute_capability = "9.0",
                    .memory_bw_gbs = 3900};
  catalog::Gpu h100sxm{.model = "H100-SXM",
                       .vendor = "NVIDIA",
                       .architecture = "Hopper",
                       .compute_capability = "9.0",
                       .memory_bw_gbs = 3350};
  catalog::Gpu a10{.model = "A10",
                   .vendor = "NVIDIA",
                   .architecture = "Ampere",
                   .compute_capability = "8.6",
                   .memory_bw_gbs = 600};
  catalog::Gpu mi300{
      .model = "MI300X", .vendor = "AMD", .architecture = "CDNA 3", .compute_capability = "gfx942"};
  catalog::VmSize nc{.name = "Standard_NC40ads_H100_v5",
                     .series = "NCads_H100_v5",
                     .family_letter = "NC",
                     .vcpus = 40,
                     .gpu_model = "H100-NVL",
                     .gpu_count = 1,
                     .gpu_memory_gib = 94};
  catalog::VmSize nd{.name = "Standard_ND96isr_H100_v5",
                     .series = "ND_H100_v5",
                     .family_letter = "ND",
                     .vcpus = 96,
                     .gpu_model = "H100-SXM",
                     .gpu_count = 8,
                     .nvlink = true,
                     .infiniband_gbps = 3200};
  catalog::VmSize nv{.name = "Standard_NV12ads_A10_v5",
                     .series = "NVadsA10_v5",
                     .family_letter = "NV",
                     .vcpus = 12,
                     .gpu_model = "A10",
                     .gpu_count = 0.3333,
                     .driver = DriverKind::kGrid,
                     .encryption_at_host = false};
  catalog::VmSize ncc{.name = "Standard_NCC40ads_H100_v5",
                      .series = "NCCads_H100_v5",
                      .family_letter = "NC",
                      .vcpus = 40,
                      .gpu_model = "H100-NVL",
                      .gpu_count = 1,
                      .gpu_memory_gib = 94};
  catalog::VmSize amd{.name = "Standard_ND96isr_MI300X_v5",
                      .series = "ND_MI300X_v5",
                      .family_letter = "ND",
                      .vcpus = 96,
                      .gpu_model = "MI300X",
                      .gpu_count = 8,
                      .driver = DriverKind::kAmd};
  catalog::Gpu v100{.model = "V100-16GB",
                    .vendor = "NVIDIA",
                    .architecture = "Volta",
                    .compute_capability = "7.0",
                    .memory_bw_gbs = 900};
  catalog::VmSize retired{.name = "Standard_NC6s_v3",
                          .series = "NCv3",
                          .family_letter = "NC",
                          .retire_date = "2025-09-30",
                          .status = catalog::SizeStatus::kRetired,
                          .vcpus = 6,
                          .gpu_model = "V100-16GB",
                          .gpu_count = 1};
  catalog::Gpu m60{.model = "M60",
                   .vendor = "NVIDIA",
                   .architecture = "Maxwell",
                   .compute_capability = "5.2",
                   .memory_bw_gbs = 160};
  catalog::VmSize nvv3{.name = "Standard_NV24s_v3",
                       .series = "NVv3",
                       .family_letter = "NV",
                       .vcpus = 24,
                       .gpu_model = "M60",
                       .gpu_count = 1,
                       .driver = DriverKind::kGrid};
  catalog::Gpu rtx{.model = "RTX-PRO-6000",
                   .vendor = "NVIDIA",
                   .architecture = "Blackwell",
                   .compute_capability = "12.0",
                   .memory_bw_gbs = 1597};
  catalog::VmSize rtxpro{.name = "Standard_NC128ds_xl_RTXPRO6000BSE_v6",
                         .series = "NC_RTXPRO6000BSE_v6",
                         .family_letter = "NC",
                         .vcpus = 128,
                         .gpu_model = "RTX-PRO-6000",
                         .gpu_count = 1,
                         .driver = DriverKind::kGrid};
  // Every size is offered in eastus (deploy checks the option's region);
  // the H100 NC also in westus3.
  std::vector<catalog::Offer> offers;
  for (const char* s :
       {"Standard_NC40ads_H100_v5", "Standard_ND96isr_H100_v5", "Standard_NV12ads_A10_v5",
        "Standard_NCC40ads_H100_v5", "Standard_ND96isr_MI300X_v5", "Standard_NC6s_v3",
        "Standard_NV24s_v3", "Standard_NC128ds_xl_RTXPRO6000BSE_v6"}) {
    offers.push_back({.size = s, .region = "eastus", .usd_per_hour = 1.0});
  }
  offers.push_back({.size = "Standard_NC40ads_H100_v5", .region = "westus3", .usd_per_hour = 1.0});
  return catalog::Catalog::from_parts({h100, h100sxm, a10, mi300, v100, m60, rtx},
                                      {nc, nd, nv, ncc, amd, retired, nvv3, rtxpro}, offers);
}

PlanDocument plan_for(const std::string& size, int count, catalog::Pricing pricing,
                      Os os = Os::kLinux, bool hybrid = false, const std::string& kind = "train") {
  PlanDocument p;
  p.file = "plan.json";
  p.workload_name = "My Job_1";
  p.workload_kind = kind;
  PlanOption o;
  o.size = size;
  o.count = count;
  o.region = "eastus";
  o.pricing = pricing;
  o.os = os;
  o.hybrid_benefit = hybrid;
  o.hours = 10;
  o.cost_usd = 100;
  o.cost_low_usd = 90;
  o.cost_high_usd = 130;
  o.usd_per_hour = 10;
  o.kind = kind;
  p.options.push_back(o);
  return p;
}

DeployOptions opts(const std::string& cidr = "203.0.113.0/24") {
  DeployOptions o;
  o.ssh_cidr = cidr;
  o.start_date = "2026-12-01";
  return o;
}

TEST(DeploySpec, NeedsAnSshChoiceAndRefusesTheWholeInternet) {
  auto cat = small_catalog();
  auto plan = plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  DeployOptions none = opts("");
  auto r = make_deploy_spec(plan, *cat, matrix(), none);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("--allow-ssh-from-anywhere"), std::string::npos);

  auto world = make_deploy_spec(plan, *cat, matrix(), opts("0.0.0.0/0"));
  ASSERT_FALSE(world.has_value());
  EXPECT_NE(world.error().message.find("whole internet"), std::string::npos);

  DeployOptions anywhere = opts("");
  anywhere.allow_ssh_from_anywhere = true;
  auto ok = make_deploy_spec(plan, *cat, matrix(), anywhere);
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  EXPECT_EQ(ok->ssh_cidr, "0.0.0.0/0");

  DeployOptions both = opts();
  both.allow_ssh_from_anywhere = true;
  EXPECT_FALSE(make_deploy_spec(plan, *cat, matrix(), both).has_value());
}

TEST(DeploySpec, CidrAndDateValidation) {
  EXPECT_EQ(*parse_ipv4_cidr("203.0.113.7", "f"), "203.0.113.7/32");
  EXPECT_EQ(*parse_ipv4_cidr(" 10.0.0.0/8 ", "f"), "10.0.0.0/8");
  auto host_bits = parse_ipv4_cidr("203.0.113.7/24", "--ssh-cidr");
  ASSERT_FALSE(host_bits.has_value());
  EXPECT_NE(host_bits.error().message.find("did you mean 203.0.113.0/24"), std::string::npos);
  EXPECT_EQ(host_bits.error().where.field, "--ssh-cidr");
  EXPECT_FALSE(parse_ipv4_cidr("300.0.0.1", "f").has_value());
  auto octal = parse_ipv4_cidr("01.2.3.0/24", "--ssh-cidr");
  ASSERT_FALSE(octal.has_value());
  EXPECT_NE(octal.error().message.find("leading zero"), std::string::npos);
  EXPECT_EQ(*parse_ipv4_cidr("0.0.0.0/0", "f"), "0.0.0.0/0");  // a lone 0 is fine
  EXPECT_FALSE(parse_ipv4_cidr("10.0.0.0/33", "f").has_value());
  EXPECT_FALSE(parse_ipv4_cidr("example.com", "f").has_value());
  EXPECT_FALSE(parse_ipv4_cidr("10.0.0/8", "f").has_value());
  EXPECT_TRUE(check_budget_start_date("2026-12-01").has_value());
  auto mid = check_budget_start_date("2026-12-15");
  ASSERT_FALSE(mid.has_value());
  EXPECT_NE(mid.error().message.find("use 2026-12-01"), std::string::npos);
  EXPECT_FALSE(check_budget_start_date("2026-13-01").has_value());
  EXPECT_FALSE(check_budget_start_date("12/01/2026").has_value());
  // Azure's window for a monthly budget: this month to twelve months on.
  EXPECT_TRUE(check_budget_start_date("2026-12-01", "2026-12-04").has_value());
  EXPECT_TRUE(check_budget_start_date("2027-12-01", "2026-12-04").has_value());
  auto past = check_budget_start_date("2026-11-01", "2026-12-04");
  ASSERT_FALSE(past.has_value());
  EXPECT_NE(past.error().message.find("use 2026-12-01"), std::string::npos) << past.error().message;
  EXPECT_EQ(past.error().where.field, "--start-date");
  auto far = check_budget_start_date("2028-01-01", "2026-12-04");
  ASSERT_FALSE(far.has_value());
  EXPECT_NE(far.error().message.find("2027-12-01 at the latest"), std::string::npos)
      << far.error().message;
  EXPECT_FALSE(check_budget_start_date("2025-01-01", "2026-12-04").has_value());
}

// An OpenSSH public key line: type, base64 of the wire-format blob, comment.
std::string ssh_string(std::string_view s) {
  std::string out;
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((s.size() >> shift) & 255);
  return out + std::string(s);
}
std::string base64(std::string_view in) {
  static const char* const kDigits =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t n = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) n |= static_cast<unsigned char>(in[i + 2]);
    out += kDigits[(n >> 18) & 63];
    out += kDigits[(n >> 12) & 63];
    out += i + 1 < in.size() ? kDigits[(n >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kDigits[n & 63] : '=';
  }
  return out;
}
std::string rsa_key(int modulus_bytes) {
  // A modulus with its top bit set, as an mpint (leading zero byte).
  const std::string n = std::string(1, '\0') + std::string(1, '\xc1') +
                        std::string(static_cast<size_t>(modulus_bytes - 1), '\x5a');
  return "ssh-rsa " + base64(ssh_string("ssh-rsa") + ssh_string("\x01\x00\x01") + ssh_string(n)) +
         " me@host\n";
}

// Review finding 8: ECDSA, RSA-1024 and a cut-short RSA key were accepted
// and failed at `az vm create`, after the network resources existed.
TEST(DeploySpec, SshKeysAzureRejectsAreRefusedNamingTheFile) {
  const std::string path = testing::TempDir() + "/key_" + std::to_string(::getpid()) + ".pub";
  auto check = [&](const std::string& line) {
    std::ofstream(path) << line;
    return check_ssh_public_key_file(path);
  };
  const std::string ed25519 = "ssh-ed25519 " +
                              base64(ssh_string("ssh-ed25519") + ssh_string(std::string(32, 'k'))) +
                              " me@host\n";
  EXPECT_TRUE(check(ed25519).has_value()) << check(ed25519).error().message;
  EXPECT_TRUE(check(rsa_key(256)).has_value());  // 2048 bits
  EXPECT_TRUE(check(rsa_key(512)).has_value());  // 4096 bits
  struct Case {
    std::string line, says;
  };
  const Case refused[] = {
      {"ecdsa-sha2-nistp256 " +
           base64(ssh_string("ecdsa-sha2-nistp256") + ssh_string("nistp256") +
                  ssh_string(std::string(65, '\x04'))) +
           " me@host\n",
       "ecdsa-sha2-nistp256 keys are not accepted by Azure"},
      {rsa_key(128), "an RSA key of 1024 bits"},
      {rsa_key(255), "an RSA key of 2040 bits"},
      {"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ== a\n", "cut short"},
      {"ssh-ed25519 " + base64(ssh_string("ssh-ed25519") + ssh_string("short")) + "\n", "32 bytes"},
      {"ssh-ed25519 " + base64(ssh_string("ssh-rsa") + ssh_string(std::string(32, 'k'))) + "\n",
       "does not start with its type"},
      {"ssh-ed25519 not*base64 x\n", "not base64"},
      {"ssh-ed25519\n", "not base64"},
      {"hello\n", "not an OpenSSH public key"},
  };
  for (const Case& c : refused) {
    SCOPED_TRACE(c.line);
    auto r = check(c.line);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.error().where.file, path);
    EXPECT_EQ(r.error().where.field, "--ssh-public-key");
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("at least 2048 bits and ssh-ed25519"), std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST(DeploySpec, OptionOutOfRangeAndEmptyPlan) {
  auto cat = small_catalog();
  auto plan = plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  DeployOptions o = opts();
  o.option = 2;
  auto r = make_deploy_spec(plan, *cat, matrix(), o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where.field, "--option");
  plan.options.clear();
  auto e = make_deploy_spec(plan, *cat, matrix(), opts());
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().code, ErrorCode::kFailedPrecondition);
}

TEST(DeploySpec, UnknownSizeAndAmdSize) {
  auto cat = small_catalog();
  auto unknown =
      make_deploy_spec(plan_for("Standard_X1", 1, catalog::Pricing::kPayg), *cat, matrix(), opts());
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(unknown.error().where.field, "options[0].size");
  auto amd = make_deploy_spec(plan_for("Standard_ND96isr_MI300X_v5", 1, catalog::Pricing::kPayg),
                              *cat, matrix(), opts());
  ASSERT_FALSE(amd.has_value());
  EXPECT_EQ(amd.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(amd.error().message.find("ROCm"), std::string::npos);
}

// Review finding 5: an edited or old plan (T4 in a region the catalog does
// not list, a retired NC6s_v3) was deployed with exit 0 and failed at
// `az vm create`, after the resource group, NSG and VNet existed.
TEST(DeploySpec, AnOptionTheCatalogDoesNotOfferIsRefusedUnlessSkipped) {
  auto cat = small_catalog();
  auto plan = plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  plan.options[0].region = "westus3";
  EXPECT_TRUE(make_deploy_spec(plan, *cat, matrix(), opts()).has_value());
  plan.options[0].region = "westindia";
  auto region = make_deploy_spec(plan, *cat, matrix(), opts());
  ASSERT_FALSE(region.has_value());
  EXPECT_EQ(region.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(region.error().where.file, "plan.json");
  EXPECT_EQ(region.error().where.field, "options[0].region");
  EXPECT_NE(region.error().message.find("not offered in westindia (the catalog lists it in "
                                        "eastus, westus3"),
            std::string::npos)
      << region.error().message;

  auto old = make_deploy_spec(plan_for("Standard_NC6s_v3", 1, catalog::Pricing::kPayg), *cat,
                              matrix(), opts());
  ASSERT_FALSE(old.has_value());
  EXPECT_EQ(old.error().where.field, "options[0].size");
  EXPECT_NE(old.error().message.find("retired on 2025-09-30"), std::string::npos)
      << old.error().message;
  EXPECT_NE(old.error().message.find("--skip-catalog-check"), std::string::npos);

  // Skipped: deployed, with a warning naming the field.
  DeployOptions skip = opts();
  skip.skip_catalog_check = true;
  auto anyway = make_deploy_spec(plan, *cat, matrix(), skip);
  ASSERT_TRUE(anyway.has_value()) << anyway.error().message;
  ASSERT_EQ(anyway->warnings.size(), 1u);
  EXPECT_EQ(anyway->warnings[0].rfind("options[0].region: ", 0), 0u) << anyway->warnings[0];
  auto retired = make_deploy_spec(plan_for("Standard_NC6s_v3", 1, catalog::Pricing::kPayg), *cat,
                                  matrix(), skip);
  ASSERT_TRUE(retired.has_value()) << retired.error().message;
  ASSERT_EQ(retired->warnings.size(), 1u);
  EXPECT_NE(retired->warnings[0].find("retired"), std::string::npos);
  EXPECT_TRUE(make_deploy_spec(plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg),
                               *cat, matrix(), opts())
                  ->warnings.empty());
}

// Review finding 3: the stack for NVv3 (M60) on Windows was chosen for GRID
// 538.46, but the extension ran without settings and installs the newest
// GRID branch, which dropped the M60.
TEST(Generate, NvV3WindowsPinsTheGridDriverTheStackWasChosenFor) {
  const StackMatrix& m = matrix();
  int pinned = 0;
  for (const GridDriver& g : m.grid) pinned += g.pinned ? 1 : 0;
  EXPECT_EQ(pinned, 1);  // NVv3 only: the other rows are what the extension installs
  auto cat = small_catalog();
  auto spec = make_deploy_spec(
      plan_for("Standard_NV24s_v3", 1, catalog::Pricing::kPayg, Os::kWindows), *cat, m, opts());
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  ASSERT_TRUE(spec->stack.pinned_driver.has_value());
  EXPECT_EQ(spec->stack.pinned_driver->to_string(), "538.46");
  EXPECT_EQ(spec->stack.provided_driver->to_string(), "538.46");
  const std::string sh = render_deploy_script(*spec);
  const size_t ext = sh.find("--name NvidiaGpuDriverWindows");
  ASSERT_NE(ext, std::string::npos);
  EXPECT_NE(sh.find("--settings '{\"driverVersion\": \"538.46\"}'", ext), std::string::npos) << sh;
  const auto t = nlohmann::json::parse(render_arm_template(*spec));
  bool found = false;
  for (const auto& r : t["resources"]) {
    if (!r.contains("properties") || r["properties"].value("type", "") != "NvidiaGpuDriverWindows")
      continue;
    found = true;
    EXPECT_EQ(r["properties"]["settings"]["driverVersion"], "538.46") << r.dump();
  }
  EXPECT_TRUE(found);
  // The A10 on Windows: the extension's own (newer) driver, no pin.
  auto a10 = make_deploy_spec(
      plan_for("Standard_NV12ads_A10_v5", 1, catalog::Pricing::kPayg, Os::kWindows), *cat, m,
      opts());
  ASSERT_TRUE(a10.has_value()) << a10.error().message;
  EXPECT_FALSE(a10->stack.pinned_driver.has_value());
  EXPECT_EQ(render_deploy_script(*a10).find("driverVersion"), std::string::npos);
  EXPECT_EQ(render_arm_template(*a10).find("driverVersion"), std::string::npos);
}

// Review finding 4: the confidential H100 got the proprietary modules
// (cuda-drivers-580) and a check that said "ok" without confidential mode.
TEST(Generate, ConfidentialH100GetsOpenModulesAndChecksConfidentialMode) {
  auto cat = small_catalog();
  auto spec = [&](const char* size) {
    auto s = make_deploy_spec(plan_for(size, 1, catalog::Pricing::kPayg), *cat, matrix(), opts());
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
    return *s;
  };
  const DeploySpec ncc = spec("Standard_NCC40ads_H100_v5");
  EXPECT_EQ(ncc.security_type, SecurityType::kConfidentialVm);
  EXPECT_EQ(ncc.stack.driver_package.rfind("nvidia-open-", 0), 0u) << ncc.stack.driver_package;
  const std::string c = render_cloud_init(ncc);
  EXPECT_NE(c.find("apt_get install -y -q nvidia-open-"), std::string::npos);
  EXPECT_EQ(c.find("cuda-drivers-"), std::string::npos);
  EXPECT_NE(c.find("nvidia-smi conf-compute -f 2>/dev/null | grep -q 'CC status: ON'"),
            std::string::npos);
  EXPECT_EQ(c.find("exec gpuplan doctor"), std::string::npos);  // its failure would be lost
  const DeploySpec nc = spec("Standard_NC40ads_H100_v5");
  EXPECT_EQ(nc.stack.driver_package.rfind("cuda-drivers-", 0), 0u) << nc.stack.driver_package;
  EXPECT_EQ(render_cloud_init(nc).find("conf-compute"), std::string::npos);
}

TEST(DeploySpec, LayoutFollowsSizeAndCount) {
  auto cat = small_catalog();
  auto single = make_deploy_spec(plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg),
                                 *cat, matrix(), opts());
  ASSERT_TRUE(single.has_value()) << single.error().message;
  EXPECT_FALSE(single->scale_set);
  EXPECT_FALSE(single->hpc_image);
  EXPECT_EQ(single->prefix, "my-job-1");
  EXPECT_EQ(single->vm_name, "my-job-1-vm");
  EXPECT_TRUE(single->encryption_at_host);
  EXPECT_EQ(single->data_disk_source, "default");

  auto ib = make_deploy_spec(plan_for("Standard_ND96isr_H100_v5", 4, catalog::Pricing::kPayg), *cat,
                             matrix(), opts());
  ASSERT_TRUE(ib.has_value()) << ib.error().message;
  EXPECT_TRUE(ib->scale_set);
  EXPECT_TRUE(ib->proximity_group);
  EXPECT_TRUE(ib->hpc_image);
  EXPECT_EQ(ib->image_urn.rfind("microsoft-dsvm:ubuntu-hpc:2204:", 0), 0u);
  EXPECT_EQ(ib->gpus_per_vm, 8);
  EXPECT_EQ(ib->stack.driver_source, DriverSource::kImage);

  auto slice = make_deploy_spec(plan_for("Standard_NV12ads_A10_v5", 1, catalog::Pricing::kPayg),
                                *cat, matrix(), opts());
  ASSERT_TRUE(slice.has_value()) << slice.error().message;
  EXPECT_EQ(slice->gpus_per_vm, 1);  // a 1/3 vGPU slice shows up as one GPU
  EXPECT_FALSE(slice->encryption_at_host);
  EXPECT_EQ(slice->stack.driver_source, DriverSource::kExtension);
}

TEST(DeploySpec, ServingPlanGetsAScaleSetAndTheSimulatedAutoscalePolicy) {
  auto cat = small_catalog();
  auto s = make_deploy_spec(
      plan_for("Standard_NC40ads_H100_v5", 2, catalog::Pricing::kPayg, Os::kLinux, false, "infer"),
      *cat, matrix(), opts());
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_TRUE(s->serving);
  EXPECT_TRUE(s->scale_set);
  const auto files = generate_files(*s);
  ASSERT_EQ(files.size(), 5u);
  EXPECT_EQ(files[4].name, "autoscale.json");
  const auto a = nlohmann::json::parse(files[4].content);
  EXPECT_EQ(a["type"], "Microsoft.Insights/autoscaleSettings");
  EXPECT_EQ(a["properties"]["targetResourceUri"],
            "[resourceId('Microsoft.Compute/virtualMachineScaleSets', 'my-job-1-vmss')]");
  const auto& cap = a["properties"]["profiles"][0]["capacity"];
  EXPECT_EQ(cap["minimum"], "1");
  EXPECT_EQ(cap["default"], "2");
  EXPECT_EQ(cap["maximum"], "4");
  EXPECT_FALSE(a["properties"]["profiles"][0]["rules"].empty());
  // The template carries the same setting, aimed at its own scale set.
  const auto t = nlohmann::json::parse(render_arm_template(*s));
  bool found = false;
  for (const auto& r : t["resources"]) {
    // Every instance's public IP is Standard: without a SKU it is Basic,
    // which Azure retired on 30 September 2025.
    if (r["type"] == "Microsoft.Compute/virtualMachineScaleSets") {
      const auto& ip = r["properties"]["virtualMachineProfile"]["networkProfile"]
                        ["networkInterfaceConfigurations"][0]["properties"]["ipConfigurations"][0]
                        ["properties"]["publicIPAddressConfiguration"];
      EXPECT_EQ(ip["sku"]["name"], "Standard") << ip.dump();
    }
    if (r["type"] != "Microsoft.Insights/autoscaleSettings") continue;
    found = true;
    EXPECT_EQ(r["properties"]["targetResourceUri"],
              "[resourceId('Microsoft.Compute/virtualMachineScaleSets', parameters('vmName'))]");
    EXPECT_EQ(r["dependsOn"][0],
              "[resourceId('Microsoft.Compute/virtualMachineScaleSets', parameters('vmName'))]");
  }
  EXPECT_TRUE(found);
  const std::string sh = render_deploy_script(*s);
  EXPECT_NE(sh.find("--name gpuplan-autoscale"), std::string::npos);
  // The setting goes where the scale set goes: deploy.sh's $LOCATION (an
  // override once left it in the planned region), and an override is said.
  EXPECT_EQ(a["location"], "[parameters('location')]");
  EXPECT_NE(sh.find("\"parameters\": {\"location\": {\"type\": \"string\"}}"), std::string::npos);
  EXPECT_NE(sh.find("--parameters location=\"$LOCATION\""), std::string::npos);
  EXPECT_NE(sh.find("[[ \"$LOCATION\" == 'eastus' ]] || echo \"deploy.sh: LOCATION"),
            std::string::npos);
  // As template.json: no overprovisioned extra instances.
  EXPECT_NE(sh.find("--disable-overprovision"), std::string::npos);
  if (std::system("command -v shellcheck >/dev/null 2>&1") == 0) {
    const std::string path = testing::TempDir() + "/serving_deploy.sh";
    std::ofstream(path) << sh;
    EXPECT_EQ(std::system(("shellcheck " + path + " >&2").c_str()), 0);
  }
  // A Windows scale set runs setup.ps1 after the driver extension, as the
  // template orders it (a scale set's extensions run in any order).
  auto win = make_deploy_spec(
      plan_for("Standard_NC40ads_H100_v5", 2, catalog::Pricing::kPayg, Os::kWindows), *cat,
      matrix(), opts());
  ASSERT_TRUE(win.has_value()) << win.error().message;
  ASSERT_TRUE(win->scale_set);
  const std::string wsh = render_deploy_script(*win);
  const size_t custom = wsh.find("--name CustomScriptExtension");
  ASSERT_NE(custom, std::string::npos);
  EXPECT_NE(wsh.find("--provision-after-extensions NvidiaGpuDriverWindows", custom),
            std::string::npos);
  // A single serving VM is still a scale set (something to scale).
  auto one = make_deploy_spec(
      plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg, Os::kLinux, false, "infer"),
      *cat, matrix(), opts());
  ASSERT_TRUE(one.has_value());
  EXPECT_TRUE(one->scale_set);
  // Training plans get no autoscale.json.
  auto train = make_deploy_spec(plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg),
                                *cat, matrix(), opts());
  ASSERT_TRUE(train.has_value());
  EXPECT_EQ(generate_files(*train).size(), 4u);
}

// ---- Generated files: secure defaults ---------------------------------------

DeploySpec spec_for(const std::string& size, int count, catalog::Pricing pricing,
                    Os os = Os::kLinux, bool hybrid = false) {
  static auto cat = small_catalog();
  auto s = make_deploy_spec(plan_for(size, count, pricing, os, hybrid), *cat, matrix(), opts());
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
  return *s;
}

// ---- Names with shell or template syntax never reach a generated file -------

TEST(PlanInput, ATamperedRegionOrSizeIsBadInputNamingTheField) {
  const std::string option_tail = R"(, "count": 1, "gpus": 1, "pricing": "payg", "os": "linux",
      "hours": 1, "cost_usd": 1, "cost_low_usd": 1, "cost_high_usd": 1, "usd_per_hour": 1}]})";
  auto region = parse_plan_json(
      R"j({"options": [{"size": "Standard_NC40ads_H100_v5", "region": "eastus$(touch /tmp/x)")j" +
          option_tail,
      "p.json");
  ASSERT_FALSE(region.has_value());
  EXPECT_EQ(region.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(region.error().where.field, "options[0].region");
  auto size = parse_plan_json(
      R"({"options": [{"size": "Standard_NC40`id`", "region": "eastus")" + option_tail, "p.json");
  ASSERT_FALSE(size.has_value());
  EXPECT_EQ(size.error().where.field, "options[0].size");
}

TEST(DeploySpec, RefusesHostileNamesEvenWhenTheCallerSkippedParsing) {
  auto cat = small_catalog();
  PlanDocument plan = plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  plan.options[0].region = "eastus\nrm -rf ~";
  auto s = make_deploy_spec(plan, *cat, matrix(), opts());
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().where.field, "options[0].region");
}

TEST(Generate, EveryValueInDeployShIsInertWhateverItHolds) {
  // A spec built by hand around the validation, with shell syntax in every
  // value the script carries: running the script (a fake `az` on PATH) must
  // run none of it. The script stops at its own checks or at the missing key.
  if (std::system("command -v bash >/dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  const std::string dir = testing::TempDir() + "gpuplan_inert/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "bin");
  const std::string marker = dir + "pwned";
  std::ofstream(dir + "bin/az") << "#!/bin/sh\nexit 0\n";
  std::filesystem::permissions(dir + "bin/az", std::filesystem::perms::owner_all);
  const std::string payload =
      "$(touch " + marker + ")`touch " + marker + "`';touch " + marker + ";'";
  for (int field = 0; field < 4; ++field) {
    DeploySpec spec = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
    switch (field) {
      case 0:
        spec.option.region = "eastus" + payload;
        break;
      case 1:
        spec.ssh_public_key_file = "/nonexistent/" + payload;
        break;
      case 2:
        spec.resource_group = "rg" + payload;
        break;
      case 3:
        spec.plan_file = "plan.json\ntouch " + marker + "\n#";
        break;
    }
    std::ofstream(dir + "deploy.sh") << render_deploy_script(spec);
    const std::string cmd = "cd " + dir + " && env -i PATH=" + dir +
                            "bin:/usr/bin:/bin HOME=" + dir +
                            " BUDGET_EMAIL=a@example.com bash ./deploy.sh >/dev/null 2>&1";
    EXPECT_NE(std::system(cmd.c_str()), 0) << "field " << field;
    EXPECT_FALSE(std::filesystem::exists(marker)) << "field " << field << " ran a command";
  }
}

TEST(Generate, EnvironmentOverridesAreHeldToTheSameRules) {
  if (std::system("command -v bash >/dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  const std::string dir = testing::TempDir() + "gpuplan_env/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "bin");
  std::ofstream(dir + "bin/az") << "#!/bin/sh\nexit 0\n";
  std::filesystem::permissions(dir + "bin/az", std::filesystem::perms::owner_all);
  std::ofstream(dir + "deploy.sh")
      << render_deploy_script(spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg));
  auto run = [&](const std::string& env) {
    const std::string cmd = "cd " + dir + " && env -i PATH=" + dir +
                            "bin:/usr/bin:/bin HOME=" + dir + " " + env + " bash ./deploy.sh 2>" +
                            dir + "err >/dev/null";
    std::system(cmd.c_str());
    return files::read_text(dir + "err").value_or("");
  };
  EXPECT_NE(run("SSH_CIDR=0.0.0.0/1").find("large part of the internet"), std::string::npos);
  EXPECT_NE(run("SSH_CIDR=0.0.0.0/0").find("large part of the internet"), std::string::npos);
  EXPECT_NE(run("LOCATION='eastus;id'").find("LOCATION is not"), std::string::npos);
  EXPECT_NE(run("RESOURCE_GROUP='a b'").find("RESOURCE_GROUP is not"), std::string::npos);
  // A narrow override passes the checks and fails later, at the missing key.
  EXPECT_NE(run("SSH_CIDR=203.0.113.0/24").find("no SSH public key"), std::string::npos);
  // A key Azure refuses, chosen at run time (review finding 8).
  std::ofstream(dir + "ecdsa.pub") << "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTY= a\n";
  EXPECT_NE(run("SSH_PUBLIC_KEY_FILE=" + dir + "ecdsa.pub").find("key of type ecdsa-sha2-nistp256"),
            std::string::npos);
  if (std::system("command -v ssh-keygen >/dev/null 2>&1") == 0) {
    std::ofstream(dir + "short.pub") << "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ== a\n";
    EXPECT_NE(run("SSH_PUBLIC_KEY_FILE=" + dir + "short.pub").find("not an RSA key of 2048 bits"),
              std::string::npos);
  }
}

TEST(DeploySpec, BroadCidrsNeedTheExplicitFlagAndMediumOnesWarn) {
  auto cat = small_catalog();
  DeployOptions o = opts();
  o.ssh_cidr = "0.0.0.0/1";
  auto half = make_deploy_spec(plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg),
                               *cat, matrix(), o);
  ASSERT_FALSE(half.has_value());
  EXPECT_NE(half.error().message.find("--allow-ssh-from-anywhere"), std::string::npos);
  o.ssh_cidr = "10.0.0.0/12";
  auto broad = make_deploy_spec(plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg),
                                *cat, matrix(), o);
  ASSERT_TRUE(broad.has_value());
  bool warned = false;
  for (const auto& n : broad->notes)
    warned = warned || n.find("1048576 addresses") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(Generate, SpotAndSecurityFlagsInDeployScript) {
  DeploySpec spot = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kSpot);
  const std::string sh = render_deploy_script(spot);
  EXPECT_NE(sh.find("set -euo pipefail"), std::string::npos);
  EXPECT_NE(sh.find("--priority Spot --eviction-policy Deallocate --max-price -1"),
            std::string::npos);
  EXPECT_NE(sh.find("--authentication-type ssh"), std::string::npos);
  EXPECT_NE(sh.find("--assign-identity \"[system]\""), std::string::npos);
  EXPECT_NE(sh.find("--encryption-at-host true"), std::string::npos);
  EXPECT_NE(sh.find("SSH_CIDR=${SSH_CIDR:-'203.0.113.0/24'}"), std::string::npos);
  EXPECT_NE(sh.find("--source-address-prefixes \"$SSH_CIDR\""), std::string::npos);
  EXPECT_NE(sh.find("--nsg \"\""), std::string::npos);  // no default NSG open to the internet
  EXPECT_EQ(sh.find("--license-type"), std::string::npos);
  // Every create that is not a PUT is guarded by a show.
  for (const char* create : {"az network nsg create", "az network vnet create", "az vm create"}) {
    const size_t at = sh.find(create);
    ASSERT_NE(at, std::string::npos) << create;
    const std::string before = sh.substr(sh.rfind("if ! ", at), at - sh.rfind("if ! ", at));
    EXPECT_NE(before.find(" show "), std::string::npos) << create;
  }
  DeploySpec payg = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  EXPECT_EQ(render_deploy_script(payg).find("--priority Spot"), std::string::npos);
}

TEST(Generate, WindowsHybridBenefitUsesLicenceTypeAndNoInlinePassword) {
  DeploySpec win =
      spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg, Os::kWindows, true);
  const std::string sh = render_deploy_script(win);
  EXPECT_NE(sh.find("--license-type Windows_Server"), std::string::npos);
  // The password reaches az through a 0600 file, never a command line.
  EXPECT_NE(sh.find("--admin-password \"@$password_file\""), std::string::npos);
  EXPECT_EQ(sh.find("--admin-password \"$ADMIN_PASSWORD\""), std::string::npos);
  EXPECT_NE(sh.find("password_file=\"$(umask 077 && mktemp)\""), std::string::npos);
  EXPECT_NE(sh.find("NvidiaGpuDriverWindows"), std::string::npos);
  EXPECT_NE(sh.find("CustomScriptExtension"), std::string::npos);
  EXPECT_NE(sh.find("--destination-port-ranges 3389"), std::string::npos);
  const auto t = nlohmann::json::parse(render_arm_template(win));
  EXPECT_EQ(t["parameters"]["adminPassword"]["type"], "securestring");
  EXPECT_FALSE(t["parameters"]["adminPassword"].contains("defaultValue"));
  EXPECT_LE(win.computer_name.size(), 15u);
  const auto files = generate_files(win);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[2].name, "setup.ps1");
}

TEST(Generate, ArmTemplateLinuxHasKeyOnlyLoginIdentityAndEncryption) {
  DeploySpec s = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kSpot);
  const auto t = nlohmann::json::parse(render_arm_template(s));
  const nlohmann::json* vm = nullptr;
  for (const auto& r : t["resources"]) {
    if (r["type"] == "Microsoft.Compute/virtualMachines") vm = &r;
  }
  ASSERT_NE(vm, nullptr);
  const auto& lc = (*vm)["properties"]["osProfile"]["linuxConfiguration"];
  EXPECT_EQ(lc["disablePasswordAuthentication"], true);
  EXPECT_EQ(lc["ssh"]["publicKeys"][0]["keyData"], "[parameters('adminPublicKey')]");
  EXPECT_FALSE(t["parameters"]["adminPublicKey"].contains("defaultValue"));
  EXPECT_EQ((*vm)["identity"]["type"], "SystemAssigned");
  // securityProfile is an ARM expression (Trusted Launch or, by parameter, Standard).
  const std::string sp = (*vm)["properties"]["securityProfile"];
  EXPECT_NE(sp.find("createObject('encryptionAtHost', true()"), std::string::npos);
  EXPECT_EQ((*vm)["properties"]["priority"], "Spot");
  EXPECT_EQ((*vm)["properties"]["evictionPolicy"], "Deallocate");
  EXPECT_EQ((*vm)["properties"]["billingProfile"]["maxPrice"], -1);
  EXPECT_EQ(t["parameters"]["sshSourceCidr"]["defaultValue"], "203.0.113.0/24");
  // NV A10 slice: no encryption at host (the size does not support it).
  DeploySpec nv = spec_for("Standard_NV12ads_A10_v5", 1, catalog::Pricing::kPayg);
  EXPECT_EQ(render_arm_template(nv).find("encryptionAtHost"), std::string::npos);
  EXPECT_EQ(render_deploy_script(nv).find("--encryption-at-host"), std::string::npos);
}

TEST(Generate, CloudInitPinsTheStackAndRunsDoctor) {
  DeploySpec s = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  const std::string ci = render_cloud_init(s);
  EXPECT_EQ(ci.rfind("#cloud-config\n", 0), 0u);
  EXPECT_NE(ci.find("apt_get install -y -q cuda-drivers-580"), std::string::npos);
  EXPECT_NE(ci.find("apt_get install -y -q cuda-toolkit-13-0"), std::string::npos);
  EXPECT_NE(ci.find("libcudnn9-cuda-13=9.17.0.*"), std::string::npos);
  EXPECT_NE(ci.find("torch==2.14.*\" --index-url https://download.pytorch.org/whl/cu130"),
            std::string::npos);
  EXPECT_NE(ci.find("exec gpuplan doctor --expect-gpus 1 --expect-cuda 13.0"), std::string::npos);
  EXPECT_NE(ci.find("ssh_pwauth: false"), std::string::npos);
  EXPECT_EQ(doctor_command(s), "gpuplan doctor --expect-gpus 1 --expect-cuda 13.0");
  // GRID: the extension brings the driver; cloud-init waits and never installs one.
  DeploySpec nv = spec_for("Standard_NV12ads_A10_v5", 1, catalog::Pricing::kPayg);
  const std::string nci = render_cloud_init(nv);
  EXPECT_EQ(nci.find("cuda-drivers-"), std::string::npos);
  EXPECT_NE(nci.find("waiting for the NVIDIA driver"), std::string::npos);
  EXPECT_NE(render_deploy_script(nv).find("\"installCUDA\": false"), std::string::npos);
  // The driver extension may reboot the VM mid-install, and cloud-init's
  // runcmd never runs twice: the install is an enabled unit that runs again
  // at boot until it has finished, started without blocking cloud-final,
  // and it waits for the dpkg lock the extension holds.
  for (const std::string& c : {ci, nci}) {
    EXPECT_NE(c.find("path: /etc/systemd/system/gpuplan-stack.service"), std::string::npos);
    // exec, not oneshot: a boot after the driver's reboot must not wait for
    // the install; a failed install runs again.
    const size_t at = c.find("path: /etc/systemd/system/gpuplan-stack.service");
    const std::string unit = c.substr(at, c.find("- path:", at + 1) - at);
    EXPECT_NE(unit.find("Type=exec"), std::string::npos) << unit;
    EXPECT_EQ(unit.find("Type=oneshot"), std::string::npos) << unit;
    EXPECT_NE(unit.find("Restart=on-failure"), std::string::npos) << unit;
    EXPECT_EQ(c.find("dpkg -i"), std::string::npos);  // takes the lock without waiting
    EXPECT_NE(c.find("ConditionPathExists=!/var/lib/gpuplan/stack-installed"), std::string::npos);
    EXPECT_NE(c.find("WantedBy=multi-user.target"), std::string::npos);
    EXPECT_NE(c.find("[systemctl, enable, gpuplan-stack.service]"), std::string::npos);
    EXPECT_NE(c.find("[systemctl, start, --no-block, gpuplan-stack.service]"), std::string::npos);
    EXPECT_EQ(c.find("/opt/gpuplan/install-stack.sh 2>&1 | tee /var/log/gpuplan-install.log\"]"),
              std::string::npos);
    EXPECT_NE(c.find("apt-get -o DPkg::Lock::Timeout="), std::string::npos);
    EXPECT_NE(c.find("dpkg --configure -a"), std::string::npos);
    // Every apt call in the installer goes through the lock-waiting wrapper.
    EXPECT_EQ(c.find("\n      apt-get "), std::string::npos);
  }
}

// template.json carries the budget deploy.sh PUTs (it had none, though the
// docs said the template held the same resources): the same amount, window
// and alerts, the alerts' addresses and the start as parameters.
TEST(Generate, ArmTemplateCarriesTheBudgetOfBudgetJson) {
  for (const bool scale_set : {false, true}) {
    DeploySpec s = spec_for("Standard_NC40ads_H100_v5", scale_set ? 3 : 1, catalog::Pricing::kPayg);
    ASSERT_EQ(s.scale_set, scale_set);  // count > 1: a scale set
    const auto t = nlohmann::json::parse(render_arm_template(s));
    const auto b = nlohmann::json::parse(render_budget(s))["properties"];
    const nlohmann::json* budget = nullptr;
    for (const auto& r : t["resources"])
      if (r["type"] == "Microsoft.Consumption/budgets") budget = &r;
    ASSERT_NE(budget, nullptr) << "scale set " << scale_set;
    EXPECT_EQ((*budget)["name"], "[parameters('budgetName')]");
    EXPECT_EQ(t["parameters"]["budgetName"]["defaultValue"], s.prefix + "-budget");
    const auto& p = (*budget)["properties"];
    EXPECT_EQ(p["amount"], b["amount"]);
    EXPECT_TRUE(p["amount"].is_number_integer());  // the ARM schema's int
    EXPECT_EQ(p["timeGrain"], b["timeGrain"]);
    EXPECT_EQ(p["timePeriod"]["endDate"], b["timePeriod"]["endDate"]);
    EXPECT_EQ(p["timePeriod"]["startDate"], "[parameters('budgetStartDate')]");
    EXPECT_EQ(t["parameters"]["budgetStartDate"]["defaultValue"], b["timePeriod"]["startDate"]);
    ASSERT_EQ(p["notifications"].size(), b["notifications"].size());
    for (const auto& [key, n] : b["notifications"].items()) {
      ASSERT_TRUE(p["notifications"].contains(key)) << key;
      const auto& m = p["notifications"][key];
      EXPECT_EQ(m["threshold"], n["threshold"]) << key;
      EXPECT_EQ(m["thresholdType"], n["thresholdType"]) << key;
      EXPECT_EQ(m["contactRoles"], n["contactRoles"]) << key;
      EXPECT_EQ(m["contactEmails"], "[parameters('budgetContactEmails')]") << key;
    }
    EXPECT_EQ(t["parameters"]["budgetContactEmails"]["type"], "array");
    EXPECT_EQ(t["parameters"]["budgetContactEmails"]["defaultValue"], nlohmann::json::array());
  }
}

// Azure's setup runs the RTX PRO 6000's GRID v20 driver with Secure Boot and
// vTPM off (the stack matrix's grid row): the deployment turns the vTPM off
// too, in deploy.sh and template.json; other GRID sizes keep it on.
TEST(DeploySpec, GridRowWithoutVtpmTurnsTheVtpmOff) {
  DeploySpec rtx = spec_for("Standard_NC128ds_xl_RTXPRO6000BSE_v6", 1, catalog::Pricing::kPayg);
  EXPECT_EQ(rtx.security_type, SecurityType::kTrustedLaunch);
  EXPECT_FALSE(rtx.vtpm);
  EXPECT_FALSE(rtx.secure_boot);
  EXPECT_NE(rtx.security_note.find("vTPM off"), std::string::npos) << rtx.security_note;
  EXPECT_NE(render_deploy_script(rtx).find("--enable-secure-boot false --enable-vtpm false"),
            std::string::npos);
  EXPECT_NE(render_arm_template(rtx).find("'vTpmEnabled', false()"), std::string::npos);
  DeploySpec a10 = spec_for("Standard_NV12ads_A10_v5", 1, catalog::Pricing::kPayg);
  EXPECT_FALSE(a10.stack.no_secure_boot_vtpm);
  EXPECT_TRUE(a10.vtpm);
  EXPECT_NE(render_deploy_script(a10).find("--enable-vtpm true"), std::string::npos);
}

TEST(Generate, BudgetAmountAndThresholdsFromTheCost) {
  // cost 100, range 90-130 over 10 h: one month; amount = ceil(130) = 130;
  // expected cost alert at round(100 / 130 * 100) = 77 %.
  DeploySpec s = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  const auto b = nlohmann::json::parse(render_budget(s));
  EXPECT_EQ(b["properties"]["amount"], 130);
  EXPECT_EQ(b["properties"]["timeGrain"], "Monthly");
  EXPECT_EQ(b["properties"]["timePeriod"]["startDate"], "2026-12-01T00:00:00Z");
  EXPECT_EQ(b["properties"]["timePeriod"]["endDate"], "2027-01-01T00:00:00Z");
  const auto& n = b["properties"]["notifications"];
  EXPECT_EQ(n["actual_50_percent"]["threshold"], 50);
  EXPECT_EQ(n["actual_expected_cost_77_percent"]["threshold"], 77);
  EXPECT_EQ(n["actual_100_percent"]["thresholdType"], "Actual");
  EXPECT_EQ(n["forecasted_100_percent"]["thresholdType"], "Forecasted");
  // 1,000 h spans ceil(1000 / 730) = 2 months; a month of it costs at most
  // 130 x 730 / 1000 = 94.9 -> 95 (it was 130 / 2 = 65: below a full month).
  s.option.hours = 1000;
  const auto b2 = nlohmann::json::parse(render_budget(s));
  EXPECT_EQ(b2["properties"]["amount"], 95);
  EXPECT_EQ(b2["properties"]["timePeriod"]["endDate"], "2027-02-01T00:00:00Z");
  // A month's service and its setup (730.25 h) spends a month's cost in its
  // first month: the budget is not halved (it was ceil(130 / 2) = 65).
  s.option.hours = 730.25;
  const auto b3 = nlohmann::json::parse(render_budget(s));
  EXPECT_EQ(b3["properties"]["amount"], 130);
  EXPECT_EQ(b3["properties"]["notifications"]["actual_expected_cost_77_percent"]["threshold"], 77);
}

// Review finding 1: a wide spot range (8 x ND96isr_H100_v5: expected
// $43,024, high $300,948) put the expected cost at 14 % of the amount, and
// the alert was dropped: the first e-mail came at $150,474.
TEST(Generate, BudgetKeepsTheExpectedCostAlertAtAnyShare) {
  DeploySpec s = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kSpot);
  s.option.hours = 293.9;
  s.option.cost_usd = 43024;
  s.option.cost_low_usd = 40000;
  s.option.cost_high_usd = 300948;
  const auto b = nlohmann::json::parse(render_budget(s));
  EXPECT_EQ(b["properties"]["amount"], 300948);
  const auto& n = b["properties"]["notifications"];
  ASSERT_TRUE(n.contains("actual_expected_cost_14_percent")) << n.dump();
  EXPECT_EQ(n["actual_expected_cost_14_percent"]["threshold"], 14);
  EXPECT_EQ(n["actual_expected_cost_14_percent"]["thresholdType"], "Actual");
  EXPECT_EQ(n.size(), 4u);
  // Under 1 %: hundredths (Azure takes 0.01-1000 %), never 0.
  s.option.cost_usd = 1;
  s.option.cost_low_usd = 1;
  s.option.cost_high_usd = 400;
  const auto tiny = nlohmann::json::parse(render_budget(s))["properties"]["notifications"];
  ASSERT_TRUE(tiny.contains("actual_expected_cost_0_25_percent")) << tiny.dump();
  EXPECT_DOUBLE_EQ(tiny["actual_expected_cost_0_25_percent"]["threshold"].get<double>(), 0.25);
  s.option.cost_usd = 0;
  s.option.cost_low_usd = 0;
  const auto zero = nlohmann::json::parse(render_budget(s))["properties"]["notifications"];
  ASSERT_TRUE(zero.contains("actual_expected_cost_0_01_percent")) << zero.dump();
  EXPECT_DOUBLE_EQ(zero["actual_expected_cost_0_01_percent"]["threshold"].get<double>(), 0.01);
  // Equal to the 100 % alert (no cost range): not repeated.
  s.option.cost_usd = s.option.cost_low_usd = s.option.cost_high_usd = 130;
  const auto flat = nlohmann::json::parse(render_budget(s))["properties"]["notifications"];
  EXPECT_EQ(flat.size(), 3u) << flat.dump();
}

// Review finding 2: the window was [start month, + ceil(hours / 730)
// months): a 12-day job (86 days at the high end) deployed on 25 December got
// a budget that expired on 1 January.
TEST(DeploySpec, BudgetWindowCoversTheWorkFromTheDayItStarts) {
  auto cat = small_catalog();
  auto plan = plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kSpot);
  plan.options[0].hours = 293.9;
  plan.options[0].hours_high = 2056;
  auto spec_on = [&](const std::string& today, const std::string& start) {
    DeployOptions o = opts();
    o.today = today;
    o.start_date = start;
    auto s = make_deploy_spec(plan, *cat, matrix(), o);
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
    return *s;
  };
  auto window = [](const DeploySpec& s) {
    return nlohmann::json::parse(render_budget(s))["properties"];
  };
  // 2026-12-25 + ceil(2056 / 24) = 86 days = 2027-03-21: through March.
  const DeploySpec late = spec_on("2026-12-25", "2026-12-01");
  EXPECT_EQ(late.work_start_date, "2026-12-25");
  EXPECT_EQ(window(late)["timePeriod"]["startDate"], "2026-12-01T00:00:00Z");
  EXPECT_EQ(window(late)["timePeriod"]["endDate"], "2027-04-01T00:00:00Z");
  EXPECT_EQ(window(late)["timeGrain"], "Monthly");
  bool said = false;
  for (const std::string& n : late.notes) {
    said = said || (n.find("until 2027-03-21") != std::string::npos &&
                    n.find("Monthly") != std::string::npos);
  }
  EXPECT_TRUE(said);
  // Without hours_high in the plan, hours is the worst case: 2027-01-07.
  plan.options[0].hours_high = 0;
  EXPECT_EQ(window(spec_on("2026-12-25", "2026-12-01"))["timePeriod"]["endDate"],
            "2027-02-01T00:00:00Z");
  // A 10 h job on the 31st runs into January; on the 5th it does not.
  plan.options[0].hours = 10;
  EXPECT_EQ(window(spec_on("2026-12-31", "2026-12-01"))["timePeriod"]["endDate"],
            "2027-02-01T00:00:00Z");
  const DeploySpec early = spec_on("2026-12-05", "2026-12-01");
  EXPECT_EQ(window(early)["timePeriod"]["endDate"], "2027-01-01T00:00:00Z");
  for (const std::string& n : early.notes) EXPECT_EQ(n.find("Monthly"), std::string::npos) << n;
  // A budget for a later month: the work starts on its first.
  const DeploySpec later = spec_on("2026-12-05", "2027-02-01");
  EXPECT_EQ(later.work_start_date, "2027-02-01");
  EXPECT_EQ(window(later)["timePeriod"]["endDate"], "2027-03-01T00:00:00Z");
  EXPECT_EQ(internal::add_days("2028-02-28", 1), "2028-02-29");
  EXPECT_EQ(internal::add_days("2026-12-25", 86), "2027-03-21");
}

TEST(WriteFiles, FreshDirectoryAppearsWholeWithExecutableScript) {
  const std::string base = testing::TempDir() + "/deploy_write_" + std::to_string(::getpid());
  std::filesystem::remove_all(base);
  const std::string dir = base + "/out";
  auto st = write_files(dir, {{"deploy.sh", "#!/bin/sh\n", true}, {"budget.json", "{}\n", false}});
  ASSERT_TRUE(st.has_value()) << st.error().message;
  struct stat info {};
  ASSERT_EQ(::stat((dir + "/deploy.sh").c_str(), &info), 0);
  EXPECT_TRUE(info.st_mode & S_IXUSR);
  ASSERT_EQ(::stat((dir + "/budget.json").c_str(), &info), 0);
  EXPECT_FALSE(info.st_mode & S_IXUSR);
  // No staging directory or temp file left behind.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(base)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1);
  // Writing again into the existing directory replaces the files, removes
  // deploy's files the new set lacks (review finding 11: a Linux
  // cloud-init.yaml stayed beside a Windows setup.ps1) and keeps the user's.
  std::ofstream(dir + "/notes.txt") << "mine\n";
  ASSERT_TRUE(write_files(dir, {{"budget.json", "{\"a\": 1}\n", false}}).has_value());
  EXPECT_EQ(*files::read_text(dir + "/budget.json"), "{\"a\": 1}\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/deploy.sh"));
  EXPECT_EQ(*files::read_text(dir + "/notes.txt"), "mine\n");
  // A file where the directory should be: an error, nothing written.
  auto clash = write_files(dir + "/budget.json", {{"x", "y", false}});
  EXPECT_FALSE(clash.has_value());
  std::filesystem::remove_all(base);
}

}  // namespace
}  // namespace gpuplan::deploy

namespace gpuplan::deploy {
namespace {

// Issue 15 item 5: the security type per size, boot diagnostics, pinned
// images and checked downloads.
TEST(Generate, SecurityTypeFollowsTheSize) {
  DeploySpec nc = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  EXPECT_EQ(nc.security_type, SecurityType::kTrustedLaunch);
  EXPECT_FALSE(nc.secure_boot);  // the DKMS-built driver is unsigned
  EXPECT_TRUE(nc.vtpm);
  const std::string sh = render_deploy_script(nc);
  EXPECT_NE(sh.find("security_args=(--security-type TrustedLaunch --enable-secure-boot false "
                    "--enable-vtpm true)"),
            std::string::npos);
  EXPECT_NE(sh.find("TrustedLaunchDisabled"), std::string::npos);  // Standard where Azure says so
  EXPECT_NE(sh.find("\"${security_args[@]}\""), std::string::npos);
  EXPECT_EQ(sh.find("--security-type Standard \\"), std::string::npos);
  const auto t = nlohmann::json::parse(render_arm_template(nc));
  EXPECT_EQ(t["parameters"]["securityType"]["defaultValue"], "TrustedLaunch");
  const std::string arm = t.dump();
  EXPECT_NE(arm.find("'secureBootEnabled', false()"), std::string::npos);
  EXPECT_NE(arm.find("\"bootDiagnostics\":{\"enabled\":true}"), std::string::npos);

  DeploySpec ncc = spec_for("Standard_NCC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  EXPECT_EQ(ncc.security_type, SecurityType::kConfidentialVm);
  EXPECT_FALSE(ncc.encryption_at_host);
  EXPECT_NE(ncc.image_urn.find("confidential-vm"), std::string::npos);
  const std::string csh = render_deploy_script(ncc);
  EXPECT_NE(csh.find("--security-type ConfidentialVM --os-disk-security-encryption-type "
                     "VMGuestStateOnly"),
            std::string::npos);
  EXPECT_EQ(csh.find("--encryption-at-host true"), std::string::npos);
  const auto ct = nlohmann::json::parse(render_arm_template(ncc));
  EXPECT_FALSE(ct["parameters"].contains("securityType"));
  EXPECT_NE(ct.dump().find("\"securityEncryptionType\":\"VMGuestStateOnly\""), std::string::npos);
}

TEST(Generate, BootDiagnosticsPinnedImagesAndCheckedDownloads) {
  for (const auto& [size, count] :
       {std::pair{"Standard_NC40ads_H100_v5", 1}, std::pair{"Standard_ND96isr_H100_v5", 2}}) {
    DeploySpec s = spec_for(size, count, catalog::Pricing::kPayg);
    const std::string sh = render_deploy_script(s);
    EXPECT_TRUE(sh.find("az vm boot-diagnostics enable") != std::string::npos ||
                sh.find("bootDiagnostics.enabled=true") != std::string::npos)
        << size;
    EXPECT_EQ(s.image_urn.find(":latest"), std::string::npos) << size;
    EXPECT_NE(sh.find("az vm image show --location \"$LOCATION\" --urn \"$IMAGE\""),
              std::string::npos);
  }
  DeploySpec win = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg, Os::kWindows);
  EXPECT_EQ(win.image_urn.find(":latest"), std::string::npos);
  const auto files = generate_files(win);
  const std::string ps1 = files[2].content;
  EXPECT_NE(ps1.find("Assert-Signed C:\\gpuplan\\cuda.exe 'NVIDIA Corporation'"),
            std::string::npos);
  EXPECT_NE(ps1.find("Assert-Signed C:\\gpuplan\\python.exe 'Python Software Foundation'"),
            std::string::npos);
  DeploySpec nc = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  std::string cloud_init;
  for (const auto& f : generate_files(nc)) {
    if (f.name == "cloud-init.yaml") cloud_init = f.content;
  }
  EXPECT_NE(cloud_init.find("sha256sum -c -"), std::string::npos);
  EXPECT_NE(cloud_init.find("d93190d50b98ad4699ff40f4f7af50f16a76dac3bb8da1eaaf366d47898ff8df"),
            std::string::npos);
}

// PowerShell reads '?' and ':' as part of a variable's name ("$url?api-version"
// is the variable `url?api`, empty; "$host:port" a drive-qualified name):
// the Windows autostop's deallocate call once went to "-version=2024-07-01".
// No variable in the generated PowerShell is followed by either, except the
// scope and drive qualifiers PowerShell defines ($env:, $script:, ...); and
// quser, whose stderr under 'Stop' ends a Windows PowerShell 5.1 script, is
// redirected by cmd.
TEST(Generate, PowerShellVariablesAreDelimited) {
  const std::regex question(R"(\$[A-Za-z_][A-Za-z0-9_]*\?)");
  const std::regex colon(
      R"(\$(?!(env|script|global|local|using|private):)[A-Za-z_][A-Za-z0-9_]*:)");
  for (catalog::Pricing p : {catalog::Pricing::kPayg, catalog::Pricing::kSpot}) {
    for (const char* size : {"Standard_NC40ads_H100_v5", "Standard_NV12ads_A10_v5"}) {
      const DeploySpec win = spec_for(size, 1, p, Os::kWindows);
      bool found = false;
      for (const auto& f : generate_files(win)) {
        if (f.name != "setup.ps1") continue;
        found = true;
        std::smatch m;
        EXPECT_FALSE(std::regex_search(f.content, m, question)) << size << ": " << m.str(0);
        EXPECT_FALSE(std::regex_search(f.content, m, colon)) << size << ": " << m.str(0);
        EXPECT_NE(f.content.find("-Uri \"${url}?api-version="), std::string::npos) << size;
        EXPECT_NE(f.content.find("cmd /c 'quser 2>nul'"), std::string::npos) << size;
        EXPECT_EQ(f.content.find("quser 2>$null"), std::string::npos) << size;
      }
      EXPECT_TRUE(found) << size;
    }
  }
}

// The generated script refuses an IMAGE override that is not pinned.
TEST(Generate, AnUnpinnedImageOverrideIsRefusedByTheScript) {
  DeploySpec nc = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  const std::string sh = render_deploy_script(nc);
  const size_t at = sh.find("[[ \"$IMAGE\" =~");
  ASSERT_NE(at, std::string::npos);
  const std::string check = sh.substr(at, sh.find('\n', at) - at);
  auto run = [&](const std::string& image) {
    const std::string script =
        "die() { exit 3; }\nIMAGE=" + names::shell_quote(image) + "\n" + check + "\nexit 0\n";
    const std::string path = testing::TempDir() + "/image_check.sh";
    { std::ofstream(path) << script; }
    return WEXITSTATUS(std::system(("bash " + path).c_str()));
  };
  EXPECT_EQ(run("Canonical:0001-com-ubuntu-server-jammy:22_04-lts-gen2:22.04.202510230"), 0);
  EXPECT_EQ(run("Canonical:0001-com-ubuntu-server-jammy:22_04-lts-gen2:latest"), 3);
  EXPECT_EQ(run("x:y:z:1;touch /tmp/pwned"), 3);
}

}  // namespace
}  // namespace gpuplan::deploy

namespace gpuplan::deploy {
namespace {

// ---- Autostop (issue 17 item 1) ---------------------------------------------

std::string autostop_script_of(const DeploySpec& spec) {
  for (const auto& f : generate_files(spec)) {
    if (f.name != "cloud-init.yaml") continue;
    // The script is a write_files entry indented by six spaces.
    const size_t at = f.content.find("  - path: /opt/gpuplan/autostop.sh");
    if (at == std::string::npos) return "";
    const size_t body = f.content.find("content: |\n", at) + 11;
    std::string out;
    std::istringstream in(f.content.substr(body));
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("      ", 0) != 0 && !line.empty()) break;
      out += (line.size() >= 6 ? line.substr(6) : "") + "\n";
    }
    return out;
  }
  return "";
}

struct Sandbox {
  std::string dir = testing::TempDir() + "/autostop-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter++);
  static inline int counter = 0;
  // A directory left by an earlier process of the same pid (a crashed run,
  // or one before the destructor removed it) would hand this test its busy
  // file: start from nothing and leave nothing.
  Sandbox() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir + "/bin");
  }
  ~Sandbox() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;
  Sandbox(Sandbox&&) = delete;
  Sandbox& operator=(Sandbox&&) = delete;
  // The decision the last tick wrote (state/last_decision, its first line).
  std::string last_decision() const {
    std::ifstream in(dir + "/state/last_decision");
    std::string line;
    std::getline(in, line);
    return line;
  }
  void tool(const std::string& name, const std::string& body) const {
    const std::string path = dir + "/bin/" + name;
    { std::ofstream(path) << "#!/bin/bash\n" << body; }
    ::chmod(path.c_str(), 0755);
  }
  // Runs `autostop.sh ARGS` with the fakes first on PATH; stdout+stderr.
  std::pair<int, std::string> run(const std::string& script, const std::string& args) const {
    { std::ofstream(dir + "/autostop.sh") << script; }
    const std::string cmd = "cd " + dir + " && PATH=" + dir +
                            "/bin:/usr/bin:/bin GPUPLAN_AUTOSTOP_CONF=" + dir +
                            "/conf GPUPLAN_AUTOSTOP_STATE=" + dir + "/state bash autostop.sh " +
                            args + " > out.txt 2>&1";
    const int code = WEXITSTATUS(std::system(cmd.c_str()));
    std::ifstream in(dir + "/out.txt");
    std::stringstream s;
    s << in.rdbuf();
    return {code, s.str()};
  }
};

TEST(Autostop, TrainingGetsItServingDoesNotAndOffTurnsItOff) {
  DeploySpec train = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  EXPECT_EQ(train.autostop_minutes, kDefaultAutostopMinutes);
  EXPECT_FALSE(autostop_script_of(train).empty());
  std::string cloud_init;
  for (const auto& f : generate_files(train)) {
    if (f.name == "cloud-init.yaml") cloud_init = f.content;
  }
  EXPECT_NE(cloud_init.find("/etc/systemd/system/gpuplan-autostop.timer"), std::string::npos);
  EXPECT_NE(cloud_init.find("[systemctl, enable, --now, gpuplan-autostop.timer]"),
            std::string::npos);
  EXPECT_NE(cloud_init.find("MINUTES=60"), std::string::npos);
  const std::string sh = render_deploy_script(train);
  EXPECT_NE(sh.find("az role assignment create"), std::string::npos);
  EXPECT_NE(
      sh.find(std::string("--role ") + internal::kVmContributorRoleId + " --scope \"$target_id\""),
      std::string::npos);
  EXPECT_NE(sh.find("az vm auto-shutdown"), std::string::npos);  // 10 h job: backstop on
  const auto t = nlohmann::json::parse(render_arm_template(train));
  bool role = false, schedule = false;
  for (const auto& r : t["resources"]) {
    role |= r["type"] == "Microsoft.Authorization/roleAssignments";
    schedule |= r["type"] == "Microsoft.DevTestLab/schedules";
  }
  EXPECT_TRUE(role);
  EXPECT_TRUE(schedule);
  EXPECT_EQ(t["parameters"]["autoShutdownStatus"]["defaultValue"], "Enabled");

  static auto cat = small_catalog();
  auto serve = make_deploy_spec(
      plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg, Os::kLinux, false, "infer"),
      *cat, matrix(), opts());
  ASSERT_TRUE(serve) << serve.error().message;
  EXPECT_EQ(serve->autostop_minutes, 0);
  EXPECT_TRUE(autostop_script_of(*serve).empty());
  EXPECT_EQ(render_deploy_script(*serve).find("az role assignment create"), std::string::npos);

  DeployOptions off = opts();
  off.autostop_minutes = 0;
  auto none = make_deploy_spec(plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg),
                               *cat, matrix(), off);
  ASSERT_TRUE(none);
  EXPECT_TRUE(autostop_script_of(*none).empty());

  // A long job keeps the daily shutdown in the template but disabled.
  PlanDocument long_plan = plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  long_plan.options[0].hours = 300;
  auto long_job = make_deploy_spec(long_plan, *cat, matrix(), opts());
  ASSERT_TRUE(long_job);
  EXPECT_FALSE(long_job->shutdown_backstop);
  EXPECT_EQ(render_deploy_script(*long_job).find("az vm auto-shutdown"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(
                render_arm_template(*long_job))["parameters"]["autoShutdownStatus"]["defaultValue"],
            "Disabled");
  DeployOptions bad = opts();
  bad.shutdown_time = "2500";
  EXPECT_FALSE(make_deploy_spec(plan_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg),
                                *cat, matrix(), bad));
}

// The decision on recorded samples: NOW LAST MINUTES THRESHOLD UTILS SESSIONS BUSY SETUP.
TEST(Autostop, DecideOnRecordedSamples) {
  if (std::system("command -v bash >/dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  const std::string script =
      autostop_script_of(spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg));
  ASSERT_FALSE(script.empty());
  Sandbox box;
  auto decide = [&](const std::string& args) {
    auto [code, out] = box.run(script, "decide " + args);
    EXPECT_EQ(code, 0) << out;
    return out.substr(0, out.find('\n'));
  };
  // Busy GPUs (one of eight at 97 %), a login, the busy file, setup running.
  EXPECT_EQ(decide("10000 1000 60 5 '0 0 0 97 0 0 0 0' 0 0 0"), "busy gpu=97%");
  EXPECT_EQ(decide("10000 1000 60 5 '0' 1 0 0"), "busy sessions=1");
  EXPECT_EQ(decide("10000 1000 60 5 '0' 0 1 0"), "busy busy-file");
  EXPECT_EQ(decide("10000 1000 60 5 '0' 0 0 1"), "busy setup");
  // Idle: 4 % is below the 5 % threshold; 59 of 60 minutes idle, then 60.
  EXPECT_EQ(decide("4540 1000 60 5 '4 0' 0 0 0"), "idle 3540 60");
  EXPECT_EQ(decide("4600 1000 60 5 '4 0' 0 0 0"), "stop 3600");
  // No GPU reading (driver gone) counts as idle.
  EXPECT_EQ(decide("4600 1000 60 5 '' 0 0 0"), "stop 3600");
}

// deploy.sh refuses to start once the budget's month has passed: the files
// were checked when made, and Azure would refuse the budget after the VMs.
TEST(Generate, DeployScriptRefusesABudgetMonthThatHasPassed) {
  if (std::system("command -v bash >/dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  DeploySpec s = spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg);
  s.start_date = "2026-12-01";
  const std::string sh = render_deploy_script(s);
  const size_t at = sh.find("[[ \"$(date -u +%Y-%m)\" > '2026-12' ]]");
  ASSERT_NE(at, std::string::npos) << sh;
  const std::string check = "set -euo pipefail\ndie() { echo \"deploy.sh: $*\" >&2; exit 1; }\n" +
                            sh.substr(at, sh.find('\n', at) - at) + "\necho started\n";
  Sandbox box;
  box.tool("date", "echo 2026-12\n");  // the budget's own month
  auto [same_code, same_out] = box.run(check, "");
  EXPECT_EQ(same_code, 0) << same_out;
  EXPECT_NE(same_out.find("started"), std::string::npos) << same_out;
  box.tool("date", "echo 2027-01\n");  // a month later
  auto [late_code, late_out] = box.run(check, "");
  EXPECT_NE(late_code, 0);
  EXPECT_NE(late_out.find("budget.json starts 2026-12-01, a past month"), std::string::npos)
      << late_out;
  EXPECT_EQ(late_out.find("started"), std::string::npos) << late_out;
}

// A whole tick with fake nvidia-smi, who, cloud-init and curl: an idle VM
// past its minutes makes exactly the deallocate call, with the identity's
// token, on itself; a busy one makes none and moves its clock.
TEST(Autostop, TickDeallocatesThroughImdsAndTheComputeApi) {
  if (std::system("command -v bash >/dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  const std::string script =
      autostop_script_of(spec_for("Standard_NC40ads_H100_v5", 1, catalog::Pricing::kPayg));
  Sandbox box;
  {
    std::ofstream(box.dir + "/conf")
        << "MINUTES=60\nTHRESHOLD=5\nBUSY_FILE=" << box.dir << "/busy\n";
  }
  box.tool("who", "true\n");
  box.tool("cloud-init", "echo 'status: done'\n");
  box.tool("systemctl", "exit 3\n");  // is-active: the stack unit has finished
  box.tool("curl",
           "echo \"$*\" >> \"$(dirname \"$0\")/../curl.log\"\n"
           "case \"$*\" in\n"
           "  *subscriptionId*) printf sub-1 ;;\n"
           "  *resourceGroupName*) printf rg-1 ;;\n"
           "  *vmScaleSetName*) printf '' ;;\n"
           "  *compute/name*) printf vm-1 ;;\n"
           "  *oauth2/token*) printf '{\"access_token\":\"tok-123\",\"expires_in\":\"3599\"}' ;;\n"
           "  *) printf '' ;;\n"
           "esac\n");
  std::filesystem::create_directories(box.dir + "/state");
  // First a busy sample (the idle clock never starts before boot, so the
  // idle case below uses a zero-minute limit rather than a faked clock).
  box.tool("nvidia-smi", "printf '45\\n0\\n'\n");
  auto [busy_code, busy_out] = box.run(script, "tick");
  EXPECT_EQ(busy_code, 0) << busy_out;
  EXPECT_NE(box.last_decision().find("busy gpu=45%"), std::string::npos) << box.last_decision();
  EXPECT_FALSE(std::filesystem::exists(box.dir + "/curl.log"));

  // Idle for longer than MINUTES: the clock is moved back past the limit but
  // not before boot (tick clamps it), so use a zero-minute conf.
  {
    std::ofstream(box.dir + "/conf")
        << "MINUTES=0\nTHRESHOLD=5\nBUSY_FILE=" << box.dir << "/busy\n";
  }
  box.tool("nvidia-smi", "printf '0\\n0\\n'\n");
  // cloud-init is done but the stack install still runs in its unit: that
  // is setup, not idleness, whatever the limit.
  box.tool("systemctl", "[ \"$1 $2 $3\" = 'is-active --quiet gpuplan-stack.service' ]\n");
  auto [setup_code, setup_out] = box.run(script, "tick");
  EXPECT_EQ(setup_code, 0) << setup_out;
  EXPECT_NE(box.last_decision().find("busy setup"), std::string::npos) << box.last_decision();
  EXPECT_FALSE(std::filesystem::exists(box.dir + "/curl.log"));
  box.tool("systemctl", "exit 3\n");  // the unit has finished
  auto [idle_code, idle_out] = box.run(script, "tick");
  EXPECT_EQ(idle_code, 0) << idle_out;
  std::ifstream log(box.dir + "/curl.log");
  std::stringstream calls;
  calls << log.rdbuf();
  const std::string c = calls.str();
  EXPECT_NE(c.find("metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://"
                   "management.azure.com/"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("-X POST -H Authorization: Bearer tok-123"), std::string::npos) << c;
  EXPECT_NE(c.find("https://management.azure.com/subscriptions/sub-1/resourceGroups/rg-1/providers/"
                   "Microsoft.Compute/virtualMachines/vm-1/deallocate?api-version=2024-07-01"),
            std::string::npos)
      << c;
  // The busy file keeps it up: no further call.
  { std::ofstream(box.dir + "/busy") << ""; }
  std::filesystem::remove(box.dir + "/curl.log");
  box.run(script, "tick");
  EXPECT_FALSE(std::filesystem::exists(box.dir + "/curl.log"));
}

}  // namespace
}  // namespace gpuplan::deploy
