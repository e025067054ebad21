// `gpuplan cost` end to end on the embedded catalog (an empty --db).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

std::vector<std::string> cost_args(std::vector<std::string> args) {
  static const std::string db = temp_dir() + "/empty.db";
  args.insert(args.begin(), {"--db", db, "cost"});
  return args;
}

void expect_fits_100_columns(const std::string& out) {
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    EXPECT_LE(end - start, 100u) << out.substr(start, end - start);
    start = end + 1;
  }
}

TEST(CostCli, H100AtSixtyPercentUtilization) {
  auto r = run_cli(
      cost_args({"Standard_NC40ads_H100_v5", "--region", "eastus", "--utilization", "0.6"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("cost_nc40_eastus_u60.txt", r.out), "");
  expect_fits_100_columns(r.out);
}

// cost says what catalog and plan say: a retired size (priced at $3.06/h
// with no word) and prices past their refresh limits.
TEST(CostCli, RetiredSizesAndOldPricesAreWarnedOf) {
  auto r = run_cli(cost_args({"Standard_NC6s_v3", "--region", "eastus"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: Standard_NC6s_v3 was retired on 2025-09-30"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("days old"), std::string::npos) << r.out;
  // The library says it, so --json (and the server) carry it too.
  auto j = run_cli(cost_args({"Standard_NC6s_v3", "--region", "eastus", "--json"}));
  ASSERT_EQ(j.code, 0) << j.err;
  const auto warnings = nlohmann::json::parse(j.out)["warnings"];
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(warnings[0].get<std::string>().rfind("warning: Standard_NC6s_v3 was retired", 0), 0u)
      << warnings.dump();
}

TEST(CostCli, JsonRowsAndBreakEven) {
  auto r = run_cli(cost_args({"NC40ads_H100_v5", "--region", "eastus", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("cost_nc40_eastus.json", r.out), "");
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["pricing"].size(), 6u);
  const auto& payg = j["pricing"][0];
  EXPECT_EQ(payg["pricing"], "payg");
  // The whole 730 h month at the listed $6.98/h.
  EXPECT_NEAR(payg["cost_usd"].get<double>(), 730 * payg["usd_per_hour_vm"].get<double>(), 0.01);
  for (const auto& row : j["pricing"]) {
    if (row["pricing"] == "reserved-1y" && row["available"] == true) {
      double be = row["break_even_utilization"].get<double>();
      EXPECT_NEAR(be,
                  row["compute_usd_per_hour_vm"].get<double>() /
                      payg["compute_usd_per_hour_vm"].get<double>(),
                  1e-3);
    }
  }
}

TEST(CostCli, WindowsWithHybridBenefitPaysTheLinuxRate) {
  auto linux_r = nlohmann::json::parse(
      run_cli(cost_args({"NC40ads_H100_v5", "--region", "eastus", "--hours", "10", "--json"})).out);
  auto hb = nlohmann::json::parse(
      run_cli(cost_args({"NC40ads_H100_v5", "--region", "eastus", "--hours", "10", "--os",
                         "windows", "--hybrid-benefit", "--json"}))
          .out);
  auto win =
      nlohmann::json::parse(run_cli(cost_args({"NC40ads_H100_v5", "--region", "eastus", "--hours",
                                               "10", "--os", "windows", "--json"}))
                                .out);
  EXPECT_EQ(hb["pricing"][0]["cost_usd"], linux_r["pricing"][0]["cost_usd"]);
  EXPECT_GT(win["pricing"][0]["cost_usd"].get<double>(),
            linux_r["pricing"][0]["cost_usd"].get<double>());
}

TEST(CostCli, BadInputIsExitTwo) {
  auto r = run_cli(cost_args({"Standard_NC40ads_H100_v6", "--region", "eastus"}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("did you mean"), std::string::npos);
  EXPECT_EQ(run_cli(cost_args({"NC40ads_H100_v5", "--region", "eastus", "--hours", "1",
                               "--utilization", "0.5"}))
                .code,
            2);
  EXPECT_EQ(
      run_cli(cost_args({"NC40ads_H100_v5", "--region", "eastus", "--utilization", "2"})).code, 2);
  EXPECT_EQ(run_cli(cost_args({"NC40ads_H100_v5", "--region", "eastus", "--os", "bsd"})).code, 2);
}

}  // namespace
}  // namespace gpuplan::e2e
