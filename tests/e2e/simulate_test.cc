// gpuplan simulate end to end: golden event logs and reports for the small
// scenarios (byte-stable across runs), JSON shape, files written, bad input.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Paths in outputs depend on where the source tree is; golden files do not.
std::string scrub(std::string s) {
  const std::string root = source_path("");
  if (root.empty()) return s;
  for (size_t p; (p = s.find(root)) != std::string::npos;) s.replace(p, root.size(), "<src>/");
  return s;
}

std::vector<std::string> sim(std::vector<std::string> args) {
  std::vector<std::string> a = {"--db", temp_dir() + "/none.db", "simulate"};
  a.insert(a.end(), args.begin(), args.end());
  return a;
}

TEST(Simulate, DeadlineEventLogAndReportAreGolden) {
  const std::string dir = temp_dir();
  auto r = run_cli(
      sim({source_path("tests/data/sim/deadline_small.yaml"), "--events", dir + "/events.log"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("sim_deadline_small.txt", scrub(r.out)), "");
  EXPECT_EQ(check_golden("sim_deadline_small_events.log", scrub(slurp(dir + "/events.log"))), "");
  auto again = run_cli(
      sim({source_path("tests/data/sim/deadline_small.yaml"), "--events", dir + "/events2.log"}));
  EXPECT_EQ(again.out, r.out);
  EXPECT_EQ(slurp(dir + "/events2.log"), slurp(dir + "/events.log"));
}

TEST(Simulate, ServingEventLogAndJsonAreGolden) {
  const std::string dir = temp_dir();
  auto r = run_cli(sim({source_path("tests/data/sim/serving_small.yaml"), "--json", "--events",
                        dir + "/events.log"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("sim_serving_small.json", scrub(r.out)), "");
  EXPECT_EQ(check_golden("sim_serving_small_events.log", scrub(slurp(dir + "/events.log"))), "");
}

TEST(Simulate, JsonHasTheDocumentedShapeWithNulls) {
  auto r =
      run_cli(sim({source_path("tests/data/sim/deadline_small.yaml"), "--json", "--runs", "2"}));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["policies"].size(), 5u);  // 4 policies + optimal
  for (const char* k : {"policy", "cost_usd", "cost_vs_optimal", "slo_attainment", "p50_ttft_ms",
                        "p99_ttft_ms", "deadline_met_fraction", "evictions", "scale_events"})
    EXPECT_TRUE(j["policies"][0].contains(k)) << k;
  EXPECT_TRUE(j["policies"][0]["p50_ttft_ms"].is_null());  // TTFT has no meaning for a deadline job
  EXPECT_EQ(j["policies"][4]["policy"], "optimal");
  // The optimum is a least cost, not a kept schedule: its split, GPU-hours,
  // evictions and launches are unknown (null), where a policy's are numbers
  // that sum to its cost.
  for (const char* k : {"cost_by_pricing", "gpu_hours", "evictions", "scale_events"}) {
    EXPECT_TRUE(j["policies"][4][k].is_null()) << k;
    EXPECT_FALSE(j["policies"][0][k].is_null()) << k;
  }
  EXPECT_NEAR(j["policies"][0]["cost_by_pricing"]["payg"].get<double>() +
                  j["policies"][0]["cost_by_pricing"]["spot"].get<double>(),
              j["policies"][0]["cost_usd"].get<double>(), 1e-6);
  EXPECT_EQ(j["traces"].size(), 1u);
  EXPECT_EQ(j["traces"][0]["policies"][0]["runs"], 2);
}

TEST(Simulate, PolicyFlagTimelineAndPlot) {
  const std::string dir = temp_dir();
  auto r = run_cli(sim({source_path("tests/data/sim/serving_small.yaml"), "--policy", "hpa",
                        "--timeline", dir + "/t.csv", "--plot", dir + "/p.html"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string csv = slurp(dir + "/t.csv");
  EXPECT_EQ(csv.rfind("policy,t_hours,demand,replicas,capacity,cost_usd\nhpa,", 0), 0u)
      << csv.substr(0, 200);
  // The plot carries Chart.js, the page's chart code and the data inline:
  // it opens with no server and no network.
  const std::string html = slurp(dir + "/p.html");
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_NE(html.find("Chart.js v"), std::string::npos);  // the library's banner
  EXPECT_NE(html.find("gpuplanCharts.simulation("), std::string::npos);
  EXPECT_NE(html.find("\"policy\":\"hpa\",\"t_hours\""), std::string::npos);
  EXPECT_NE(html.find("Latency over time"), std::string::npos);
}

// --policy takes a list, as the scenario's `policies:` does: names repeated
// or comma-separated run once each, in the order given, then the bound;
// `all` among names is refused (exit 2, the flag named).
TEST(Simulate, PolicyFlagTakesAList) {
  auto r = run_cli(sim({source_path("tests/data/sim/serving_small.yaml"), "--policy",
                        "hpa,static-peak", "--policy", "hpa", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& p : j["policies"]) names.push_back(p["policy"].get<std::string>());
  EXPECT_EQ(names, (std::vector<std::string>{"hpa", "static-peak", "optimal"}));
  r = run_cli(sim({source_path("tests/data/sim/serving_small.yaml"), "--policy", "all,hpa"}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--policy"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'all'"), std::string::npos) << r.err;
  r = run_cli(sim({source_path("tests/data/sim/serving_small.yaml"), "--policy", "hpa,hpx"}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("did you mean 'hpa'"), std::string::npos) << r.err;
}

TEST(Simulate, TimelineJsonHasLatencyPerInterval) {
  const std::string dir = temp_dir();
  auto r = run_cli(sim({source_path("tests/data/sim/serving_small.yaml"), "--policy", "hpa",
                        "--timeline", dir + "/t.json", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(dir + "/t.json"));
  ASSERT_FALSE(j["points"].empty());
  int with_requests = 0;
  // Each point counts its interval's misses; together they are the run's
  // (1 - attainment) share of its requests, so a user can see when it missed.
  double requests = 0, missed = 0;
  const double step_h = j["points"][0]["t_hours"].get<double>();
  for (const auto& p : j["points"]) {
    ASSERT_TRUE(p.contains("missed") && p["missed"].is_number_integer()) << p.dump();
    EXPECT_GE(p["missed"].get<int64_t>(), 0);
    missed += p["missed"].get<double>();
    requests += p["demand"].get<double>() * step_h * 3600;
  }
  const auto report = nlohmann::json::parse(r.out);
  const double attainment = report["policies"][0]["slo_attainment"].get<double>();
  EXPECT_GT(missed, 0);
  EXPECT_NEAR(missed, (1 - attainment) * requests, 0.5 + 1e-6 * requests);
  for (const auto& p : j["points"]) {
    ASSERT_TRUE(p.contains("ttft_mean_ms") && p.contains("ttft_max_ms")) << p.dump();
    if (p["ttft_mean_ms"].is_null()) {
      EXPECT_TRUE(p["ttft_max_ms"].is_null());
      continue;
    }
    ++with_requests;
    EXPECT_GT(p["ttft_mean_ms"].get<double>(), 0);
    EXPECT_GE(p["ttft_max_ms"].get<double>(), p["ttft_mean_ms"].get<double>());
    // The 99th percentile is one of the interval's requests: above 0, at
    // most the slowest; TPOT's mean and percentile are a decode step or more.
    EXPECT_GT(p["ttft_p99_ms"].get<double>(), 0);
    EXPECT_LE(p["ttft_p99_ms"].get<double>(), p["ttft_max_ms"].get<double>());
    EXPECT_GT(p["tpot_mean_ms"].get<double>(), 0);
    EXPECT_GT(p["tpot_p99_ms"].get<double>(), 0);
  }
  EXPECT_GT(with_requests, 0);
}

TEST(Simulate, PlotWithoutChartJsExits3AndWritesNothing) {
  const std::string dir = temp_dir();
  ::setenv("GPUPLAN_WEB_DIR", dir.c_str(), 1);  // an empty folder: no chart.min.js there
  auto r =
      run_cli(sim({source_path("tests/data/sim/serving_small.yaml"), "--plot", dir + "/p.html"}));
  ::unsetenv("GPUPLAN_WEB_DIR");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("libjs-chart.js"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir + "/chart.min.js"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(dir + "/p.html").good());
}

// Output files are checked before anything runs or is written: a missing
// directory for one flag, or two flags naming the same file, is exit 2 with
// the flag and no file written (once the timeline was written and the
// events failed after it, exit 3).
TEST(Simulate, OutputPathsAreCheckedBeforeAnyIsWritten) {
  const std::string dir = temp_dir() + "/outputs";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/afile") << "x";
  auto r = run_cli(sim({source_path("tests/data/sim/serving_small.yaml"), "--timeline",
                        dir + "/tl.csv", "--events", dir + "/afile/x.log"}));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--events"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(dir + "/tl.csv").good());
  r = run_cli(sim({source_path("tests/data/sim/serving_small.yaml"), "--timeline", dir + "/t.csv",
                   "--events", dir + "/./t.csv"}));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("the same file as --timeline"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(dir + "/t.csv").good());
  // Nor over what it reads: --events S.yaml once replaced the scenario
  // with its own event log.
  const std::string scenario = dir + "/s.yaml";
  std::filesystem::copy_file(source_path("tests/data/sim/serving_small.yaml"), scenario,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string before = slurp(scenario);
  r = run_cli(sim({scenario, "--events", dir + "/./s.yaml"}));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("the same file as an input"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(scenario), before);
}

// --export-autoscale writes the rule set the report names as the nearest
// exportable one, as an ARM template a user deploys on their scale set; a
// run where no exportable policy ran, or a scenario that is not serving, is
// exit 2 with nothing written.
// A policy below the target is rated against the bound at its own
// attainment; where that bound is 0 USD (min_replicas 0 and almost nothing
// served in time) the ratio is null, and a note says why instead of leaving
// the column blank without a word.
TEST(Simulate, ABlankRatioIsExplained) {
  const std::string path = temp_dir() + "/overload.yaml";
  std::ofstream(path) << "name: overload\nkind: serving\n"
                         "prices: {on_demand_usd_per_hour: 3.6, source: test fixture}\n"
                         "replica: {prefill_tokens_per_s: 1000, prefill_fixed_ms: 0, "
                         "step_base_ms: 10, step_per_seq_ms: 1, max_batch: 8, source: test}\n"
                         "slo: {ttft_ms: 1000, tpot_ms: 50}\n"
                         "demand:\n  synthetic:\n    rate_rps: 20\n    duration_hours: 0.1\n"
                         "    input_tokens: {mean: 900, stddev: 0, min: 900, max: 900}\n"
                         "    output_tokens: {mean: 20, stddev: 0, min: 20, max: 20}\n"
                         "fleet: {startup_seconds: 60, min_replicas: 0, initial_replicas: 0, "
                         "max_replicas: 1}\npolicies: [hpa]\n";
  auto r = run_cli(sim({path, "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  const auto& hpa = report["policies"][0];
  ASSERT_EQ(hpa["policy"], "hpa");
  ASSERT_LT(hpa["slo_attainment"].get<double>(), 0.05) << r.out;
  ASSERT_TRUE(hpa["cost_vs_optimal"].is_null()) << r.out;
  std::string notes;
  for (const auto& n : report["notes"]) notes += n.get<std::string>() + "\n";
  EXPECT_NE(notes.find("vs opt is blank for hpa ("), std::string::npos) << notes;
  EXPECT_NE(notes.find("the bound is 0 USD"), std::string::npos) << notes;
  // With a floor of one VM the bound is never 0 USD: every ratio is there.
  std::string text = slurp(path);
  text.replace(text.find("min_replicas: 0"), 15, "min_replicas: 1");
  std::ofstream(path) << text;
  auto floor = run_cli(sim({path, "--json"}));
  ASSERT_EQ(floor.code, 0) << floor.err;
  const auto with_floor = nlohmann::json::parse(floor.out);
  EXPECT_FALSE(with_floor["policies"][0]["cost_vs_optimal"].is_null()) << floor.out;
  EXPECT_EQ(floor.out.find("vs opt is blank"), std::string::npos);
}

TEST(Simulate, ExportAutoscaleWritesTheNearestExportableRuleSet) {
  const std::string dir = temp_dir() + "/export";
  std::filesystem::create_directories(dir);
  const std::string scenario = source_path("tests/data/sim/serving_small.yaml");
  auto r =
      run_cli(sim({scenario, "--policy", "all", "--json", "--export-autoscale", dir + "/as.json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  // The report's choice: the cheapest exportable policy at the target.
  std::string best;
  double best_cost = 0;
  for (const auto& p : report["policies"]) {
    const std::string name = p["policy"];
    if (name != "azure-autoscale" && name != "slo-guard-autoscale") continue;
    if (p["slo_attainment"].get<double>() < 0.99) continue;
    if (best.empty() || p["cost_usd"].get<double>() < best_cost)
      best = name, best_cost = p["cost_usd"].get<double>();
  }
  ASSERT_FALSE(best.empty()) << r.out;
  const auto t = nlohmann::json::parse(slurp(dir + "/as.json"));
  EXPECT_NE(t["metadata"]["description"].get<std::string>().find("the " + best + " rule set"),
            std::string::npos)
      << t.dump(2);
  EXPECT_TRUE(t["parameters"].contains("vmssName"));
  ASSERT_EQ(t["resources"].size(), 1u);
  const auto& res = t["resources"][0];
  EXPECT_EQ(res["type"], "Microsoft.Insights/autoscaleSettings");
  EXPECT_EQ(res["properties"]["targetResourceUri"],
            "[resourceId('Microsoft.Compute/virtualMachineScaleSets', parameters('vmssName'))]");
  const auto& cap = res["properties"]["profiles"][0]["capacity"];
  EXPECT_EQ(cap["minimum"], "1");  // the scenario's fleet limits
  EXPECT_EQ(cap["maximum"], "4");
  EXPECT_EQ(res["properties"]["profiles"][0]["rules"][0]["metricTrigger"]["metricName"],
            best == "slo-guard-autoscale" ? "SloGuardDeficitVms" : "ReplicaUtilization");
  // The metrics to publish are the ones its rules read, each named.
  const std::string description = t["metadata"]["description"];
  for (const auto& rule : res["properties"]["profiles"][0]["rules"])
    EXPECT_NE(description.find(rule["metricTrigger"]["metricName"].get<std::string>()),
              std::string::npos)
        << description;

  r = run_cli(sim({scenario, "--policy", "hpa", "--timeline", dir + "/tl.csv", "--export-autoscale",
                   dir + "/none.json"}));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--export-autoscale"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(dir + "/none.json").good());
  EXPECT_FALSE(std::ifstream(dir + "/tl.csv").good());
  r = run_cli(sim(
      {source_path("tests/data/sim/deadline_small.yaml"), "--export-autoscale", dir + "/d.json"}));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("serving scenarios"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(dir + "/d.json").good());
}

TEST(Simulate, BadInputExits2WithTheField) {
  auto r =
      run_cli(sim({source_path("tests/data/sim/deadline_small.yaml"), "--policy", "greedy-spto"}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("did you mean 'greedy-spot'"), std::string::npos) << r.err;
  r = run_cli(sim(
      {source_path("tests/data/sim/deadline_small.yaml"), "--spot-trace", "/nonexistent.json"}));
  EXPECT_EQ(r.code, 2);
  r = run_cli(sim({source_path("tests/data/sim/deadline_small.yaml"), "--trace", "x.csv"}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--trace"), std::string::npos);
  r = run_cli(sim({source_path("tests/data/sim/nope.yaml")}));
  EXPECT_EQ(r.code, 2);
  // The flags keep the ranges of the scenario's keys: --runs 0 was ignored,
  // 100000000 ran without end, a seed past 2^31 was clamped.
  for (const std::vector<std::string>& flag : {std::vector<std::string>{"--runs", "0"},
                                               {"--runs", "100000000"},
                                               {"--seed", "-1"},
                                               {"--seed", "99999999999999999999"}}) {
    std::vector<std::string> args = {source_path("tests/data/sim/deadline_small.yaml")};
    args.insert(args.end(), flag.begin(), flag.end());
    r = run_cli(sim(args));
    EXPECT_EQ(r.code, 2) << flag[0] << " " << flag[1];
    EXPECT_NE(r.err.find(flag[0]), std::string::npos) << r.err;
  }
}

TEST(Simulate, ExamplesRunOnTheEmbeddedCatalog) {
  auto r = run_cli(sim({source_path("examples/sim-deadline-spot.yaml"), "--runs", "1", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["traces"].size(), 8u);
  for (const auto& p : j["policies"]) EXPECT_EQ(p["deadline_met_fraction"], 1.0) << p["policy"];
  r = run_cli(
      sim({source_path("examples/sim-serve-conv.yaml"), "--policy", "static-peak", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["policies"][0]["slo_attainment"].get<double>(), 0.99);
}

}  // namespace
}  // namespace gpuplan::e2e
