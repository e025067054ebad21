// `gpuplan simulate` on a reserve scenario end to end: the example over the
// Alibaba GPU v2023 job trace on the embedded catalog (golden text, JSON
// shape, event log), --trace, the timeline and the plot.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

std::vector<std::string> sim(std::vector<std::string> args) {
  std::vector<std::string> a = {"--db", temp_dir() + "/none.db", "simulate"};
  a.insert(a.end(), args.begin(), args.end());
  return a;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SimulateReserve, ExampleReportAndEventsAreGolden) {
  const std::string dir = temp_dir();
  auto r = run_cli(
      sim({source_path("examples/sim-reserve-growth.yaml"), "--events", dir + "/events.log"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("sim_reserve_growth.txt", r.out), "");
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_EQ(check_golden("sim_reserve_growth_events.log", slurp(dir + "/events.log")), "");
}

// More GPUs per VM than the size has is refused at the key: 8 on the
// example's 1-GPU NC24ads_A100_v4 packed eight pods' GPUs into one VM and
// cost $31,691 instead of $201,288.
TEST(SimulateReserve, GpusPerVmAboveTheSizeIsRefused) {
  std::string text = slurp(source_path("examples/sim-reserve-growth.yaml"));
  const std::string from = "demand:\n";
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + from.size(), "  gpus_per_vm: 8\n");
  const std::string rel = "../data/traces/";
  const size_t trace = text.find(rel);
  ASSERT_NE(trace, std::string::npos);
  text.replace(trace, rel.size(),
               std::filesystem::absolute(source_path("data/traces")).string() + "/");
  const std::string file = temp_dir() + "/packed.yaml";
  std::ofstream(file) << text;
  auto r = run_cli(sim({file}));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("demand.gpus_per_vm: 8.000 GPUs per VM, but Standard_NC24ads_A100_v4 has "
                       "1.000"),
            std::string::npos)
      << r.err;
}

TEST(SimulateReserve, JsonRowsAndOptimalBound) {
  auto r = run_cli(sim({source_path("examples/sim-reserve-growth.yaml"), "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "reserve");
  ASSERT_EQ(j["policies"].size(), 5u);
  EXPECT_EQ(j["policies"].back()["policy"], "optimal");
  for (const auto& p : j["policies"]) {
    EXPECT_GE(p["cost_vs_optimal"].get<double>(), 1.0) << p["policy"];
    // The cost is its split: payg, reserved hours in the window, and what
    // the reservations lose after it.
    const auto& split = p["cost_by_pricing"];
    EXPECT_NEAR(p["cost_usd"].get<double>(),
                split["payg"].get<double>() + split["reserved"].get<double>() +
                    split["loss_after"].get<double>(),
                1e-6)
        << p["policy"];
    EXPECT_EQ(split["loss_after"], p["loss_after_usd"]) << p["policy"];
    EXPECT_TRUE(p["committed_after_usd"].is_number()) << p["policy"];
    EXPECT_TRUE(p["slo_attainment"].is_null());
    EXPECT_TRUE(p["deadline_met_fraction"].is_null());
  }
  // The trace's growth stalls in its last weeks: forecast-reserve, which
  // bought 18 reservations for the trend three weeks before the end, holds
  // more than the last week uses, and that loss is in its cost.
  EXPECT_GT(j["policies"][3]["loss_after_usd"].get<double>(), 0);
  EXPECT_EQ(j["policies"][3]["policy"], "forecast-reserve");
  // The reserved price is the catalog's estimate, shown with its rule.
  bool reserved_assumption = false;
  for (const auto& a : j["assumptions"])
    if (a["name"] == "reserved_usd_per_hour")
      reserved_assumption = a["source"].get<std::string>().find("estimated") != std::string::npos;
  EXPECT_TRUE(reserved_assumption);
}

TEST(SimulateReserve, TimelinePlotAndFlagErrors) {
  const std::string dir = temp_dir();
  auto r = run_cli(sim({source_path("examples/sim-reserve-growth.yaml"), "--policy", "advisor",
                        "--timeline", dir + "/t.csv", "--plot", dir + "/p.html"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string csv = slurp(dir + "/t.csv");
  EXPECT_EQ(csv.rfind("policy,t_hours,demand,replicas,capacity,cost_usd\n", 0), 0u);
  EXPECT_NE(csv.find("\nadvisor,24,"), std::string::npos) << csv.substr(0, 300);
  EXPECT_NE(slurp(dir + "/p.html").find("reservations held"), std::string::npos);
  r = run_cli(sim({source_path("examples/sim-reserve-growth.yaml"), "--spot-trace", "x.json"}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--spot-trace"), std::string::npos);
  r = run_cli(sim({source_path("examples/sim-reserve-growth.yaml"), "--trace", "missing.csv"}));
  EXPECT_EQ(r.code, 2);
  r = run_cli(sim({source_path("examples/sim-reserve-growth.yaml"), "--policy", "hpa"}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown policy 'hpa' for a reserve scenario"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::e2e
