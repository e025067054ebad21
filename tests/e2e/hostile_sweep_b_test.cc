// The second hostile-input sweep: crashes, unbounded memory and work, and
// wrong answers from small inputs; each is exit 2 naming the file, line and
// field (or the flag), or a bounded answer.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The first line of stderr: the error a user reads.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

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

// A 1 s timeline of 87.6 h under every policy held 1.4 GB and wrote 605 MB
// (876 h: exit 4, std::bad_alloc); the server caps its points, now the CLI
// does too, before anything runs.
TEST(HostileSweepB, SimulateTimelinePointsAreCapped) {
  const std::string dir = temp_dir();
  const std::string s = write(dir, "tl.yaml", R"(name: srv
kind: serving
prices: {on_demand_usd_per_hour: 3.673, source: test}
replica: {prefill_tokens_per_s: 9000, prefill_fixed_ms: 5, step_base_ms: 11, step_per_seq_ms: 0.11, max_batch: 300, source: t}
slo: {ttft_ms: 1000, tpot_ms: 50}
demand:
  synthetic: {rate_rps: 0.001, duration_hours: 87.6, input_tokens: {mean: 100, stddev: 10, min: 1, max: 200}, output_tokens: {mean: 10, stddev: 1, min: 1, max: 20}}
fleet: {startup_seconds: 60, min_replicas: 1, initial_replicas: 1, max_replicas: 4, interval_seconds: 60,
        timeline_seconds: 1}
policies: all
)");
  for (const char* flag : {"--timeline", "--plot"}) {
    const std::string out = dir + (std::string(flag) == "--plot" ? "/tl.html" : "/tl.json");
    auto r = run_cli({"simulate", s, flag, out, "--quiet"});
    EXPECT_EQ(r.code, 2) << flag << ": " << r.err;
    EXPECT_NE(first_line(r.err).find("tl.yaml:9:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("fleet.timeline_seconds: --timeline and --plot would hold"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << out;
  }
  // Without a timeline the same scenario runs: only what is kept is capped.
  auto plain = run_cli({"simulate", s, "--quiet"});
  EXPECT_EQ(plain.code, 0) << plain.err;
}

// check_workload_names located every region before checking it, and
// locating re-reads the file: 4,000 regions (37 KB) took 25 s. Only the
// refused entry is located now, still at its own line and column.
TEST(HostileSweepB, ALongRegionListIsCheckedOnceAndTheBadEntryLocated) {
  std::string regions;
  for (int i = 0; i < 4000; ++i) regions += std::string(i ? ", " : "") + "eastus";
  const std::string dir = temp_dir();
  const std::string ok = write(dir, "ok.yaml",
                               "kind: finetune\nmodel: llama-3-8b\nmethod: lora\ndata: {tokens: "
                               "1e9}\nconstraints:\n  regions: [" +
                                   regions + "]\n");
  auto r = run_cli({"plan", ok, "--quiet", "--top", "1"});
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string bad =
      write(dir, "bad.yaml",
            "kind: finetune\nmodel: llama-3-8b\nmethod: lora\ndata: {tokens: 1e9}\nconstraints:\n"
            "  regions: [" +
                regions + ",\n    eastuss]\n");
  auto b = run_cli({"plan", bad, "--quiet"});
  EXPECT_EQ(b.code, 2) << b.err;
  EXPECT_NE(first_line(b.err).find("bad.yaml:7:5: constraints.regions: 'eastuss' is not an Azure"),
            std::string::npos)
      << b.err;
}

// budget_usd and deadline_hours had no ceiling: 1e300 grown 10x a week was
// inf by week 9, printed as an empty budget and as null beside
// within_budget: true. They now stop where --budget and --deadline-hours do.
TEST(HostileSweepB, WorkloadBudgetAndDeadlineHaveTheFlagsCeilings) {
  const std::string dir = temp_dir();
  const std::string head =
      "kind: finetune\nmodel: llama-3-8b\nmethod: lora\ndata: {tokens: 1e9, growth_per_week: "
      "0.5}\n";
  const std::string bud = write(dir, "bud.yaml",
                                head +
                                    "constraints: {budget_usd: 1e300, budget_growth_per_week: 10, "
                                    "horizon_weeks: 52, repeat: weekly}\n");
  auto r = run_cli({"plan", bud, "--top", "1"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(first_line(r.err).find("bud.yaml:5:27: constraints.budget_usd:"), std::string::npos)
      << r.err;
  const std::string dl = write(dir, "dl.yaml", head + "constraints: {deadline_hours: 1.7e308}\n");
  auto d = run_cli({"plan", dl, "--top", "1"});
  EXPECT_EQ(d.code, 2) << d.err;
  EXPECT_NE(first_line(d.err).find("dl.yaml:5:31: constraints.deadline_hours:"), std::string::npos)
      << d.err;
  // At the ceilings, a year of growth keeps every week's budget a number.
  const std::string top = write(dir, "top.yaml",
                                head +
                                    "constraints: {budget_usd: 1e12, budget_growth_per_week: 10, "
                                    "horizon_weeks: 52, repeat: weekly, deadline_hours: 1e6}\n");
  auto t = run_cli({"plan", top, "--top", "1", "--json"});
  ASSERT_EQ(t.code, 0) << t.err;
  const auto j = nlohmann::json::parse(t.out);
  ASSERT_TRUE(j.contains("growth")) << t.out.substr(0, 400);
  for (const auto& wk : j["growth"]["weeks"]) {
    EXPECT_TRUE(wk["budget_usd"].is_number()) << wk.dump();
  }
}

// `--anomaly-k inf` made the threshold NaN and flagged 52 days of which 51
// were ordinary; `--anomaly-min-hours inf` printed "> inf h".
TEST(HostileSweepB, ReportAnomalyFlagsAreFiniteRanges) {
  const std::string costs = source_path("tests/data/report/focus_month.csv");
  for (auto [flag, value] :
       std::vector<std::pair<std::string, std::string>>{{"--anomaly-k", "inf"},
                                                        {"--anomaly-k", "1e308"},
                                                        {"--anomaly-k", "0"},
                                                        {"--anomaly-k", "nan"},
                                                        {"--anomaly-min-hours", "inf"},
                                                        {"--anomaly-min-hours", "25"},
                                                        {"--anomaly-min-hours", "-1"},
                                                        {"--anomaly-window", "2000000000"},
                                                        {"--anomaly-window", "0"},
                                                        {"--anomaly-window", "1.5"}}) {
    auto r = run_cli({"report", costs, flag, value, "--quiet"});
    EXPECT_EQ(r.code, 2) << flag << " " << value << ": " << r.err;
    EXPECT_NE(r.err.find(flag + ": expected"), std::string::npos) << r.err;
  }
  auto edge = run_cli({"report", costs, "--anomaly-k", "100", "--anomaly-window", "366",
                       "--anomaly-min-hours", "24", "--quiet"});
  EXPECT_EQ(edge.code, 0) << edge.err;
}

// --count had no ceiling: from 2^31 GPUs the count overflowed int and the
// answer read "needs 0.0 GiB/GPU ... does not fit".
TEST(HostileSweepB, EstimateCountIsAScaleSetAtMost) {
  const std::string w = source_path("examples/finetune-llama3-8b.yaml");
  for (const char* bad : {"268435456", "1001", "0", "-3"}) {
    auto r = run_cli({"estimate", w, "--size", "ND96isr_H100_v5", "--count", bad, "--quiet"});
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--count"), std::string::npos) << r.err;
  }
  auto most = run_cli({"estimate", w, "--size", "ND96isr_H100_v5", "--count", "1000", "--json"});
  EXPECT_NE(most.code, 2) << most.err;
  const auto j = nlohmann::json::parse(most.out);
  EXPECT_DOUBLE_EQ(j["options"][0]["gpus"].get<double>(), 8000) << most.out.substr(0, 300);
  EXPECT_NE(j["options"][0]["reason"].get<std::string>().find("cannot keep 8000 GPUs busy"),
            std::string::npos)
      << most.out.substr(0, 600);
}

// Pod times are seconds from the trace's start: a negative one was dropped
// silently (a pod from -1e18 s billed as 100 s), and the ten-year span was
// measured from 0, so one 1-hour pod in Unix time was "19676 days" long,
// with no line named.
TEST(HostileSweepB, PodTimesAreNotNegativeAndSpansStartAtTheFirstArrival) {
  const std::string dir = temp_dir();
  const std::string scenario = write(dir, "rp.yaml", R"(name: rs
kind: reserve
prices: {on_demand_usd_per_hour: 3.673, reserved_usd_per_hour: 2.402, source: t}
reservation: {term: 1y, review_hours: 168, lookback_hours: 720, projection_hours: 720}
demand: {alibaba_pods: pp.csv, gpus_per_vm: 1}
)");
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  const auto run = [&](const std::string& rows) {
    write(dir, "pp.csv", header + rows);
    return run_cli({"simulate", scenario, "--quiet"});
  };
  for (const auto& [row, column] : std::vector<std::pair<std::string, std::string>>{
           {"p0,1,1,1,1000,,LS,Running,-100000,100,-100000", "creation_time"},
           {"p0,1,1,1,1000,,LS,Running,0,100,-5", "scheduled_time"},
           {"p0,1,1,1,1000,,LS,Running,0,-1e18,0", "deletion_time"}}) {
    auto r = run("p1,1,1,1,1000,,LS,Running,0,3600,0\n" + row + "\n");
    EXPECT_EQ(r.code, 2) << row << ": " << r.err;
    EXPECT_NE(first_line(r.err).find("pp.csv:3: " + column + ": "), std::string::npos) << r.err;
  }
  // One hour-long pod in Unix time costs what the same pod at 0 does.
  auto at0 = run("p0,1,1,1,1000,,LS,Running,0,3600,0\n");
  ASSERT_EQ(at0.code, 0) << at0.err;
  auto unix_time = run("p0,1,1,1,1000,,LS,Running,1700002800,1700006400,1700002800\n");
  EXPECT_EQ(unix_time.code, 0) << unix_time.err;
  EXPECT_EQ(unix_time.out, at0.out);
  // Past ten years from the first arrival: the pod that ends then, by line.
  auto forever =
      run("p0,1,1,1,1000,,LS,Running,1700000000,1700003600,1700000000\n"
          "p1,1,1,1,1000,,LS,Running,1700000000,2100000000,1700000000\n"
          "p2,1,1,1,1000,,LS,Running,1700000100,1700003600,1700000100\n");
  EXPECT_EQ(forever.code, 2) << forever.err;
  EXPECT_NE(first_line(forever.err)
                .find("pp.csv:3: deletion_time: the pod ends 4630 days after the first arrival"),
            std::string::npos)
      << forever.err;
}

// `plan --json` wrote a plan of 8.7e15 h that `deploy PLAN.json` and
// `report --plan` then refused (their bound is 1e15), while `deploy
// WORKLOAD.yaml` deployed it. One bound now, where plans are made.
TEST(HostileSweepB, NoPlanIsWrittenThatDeployRefuses) {
  const std::string dir = temp_dir();
  const std::string big = write(dir, "big4.yaml",
                                "kind: batch\ndata: {items: 1e15}\nbatch: {seconds_per_item: "
                                "604800, reference_gpu: T4}\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan", big, "--json", "--top", "1"},
        std::vector<std::string>{"estimate", big},
        std::vector<std::string>{"deploy", big, "--out", dir + "/d", "--ssh-cidr",
                                 "203.0.113.0/24"}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(first_line(r.err).find("big4.yaml:2:15: data.items: "), std::string::npos)
        << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("beyond the 1e+15 a plan may hold"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/d/deploy.sh"));
}

// Escape sequences from input files were echoed raw (an OSC that retitles
// the terminal, colours) in errors, tables and stored quota names, though
// docs/cli.md promises none: errors, tables and prose escape them now.
bool has_raw_control(const std::string& s) {
  return s.find('\x1b') != std::string::npos || s.find('\x07') != std::string::npos ||
         s.find("\xe2\x80\xae") != std::string::npos;
}

TEST(HostileSweepB, InputTextIsEscapedWhereverItIsEchoed) {
  const std::string dir = temp_dir();
  const std::string model = write(dir, "esc1.yaml",
                                  "kind: finetune\nmodel: \"llama\\e[31m-3-8b\"\nmethod: "
                                  "lora\ndata: {tokens: 1e9}\n");
  auto m = run_cli({"plan", model});
  EXPECT_EQ(m.code, 2) << m.err;
  EXPECT_FALSE(has_raw_control(m.err)) << m.err;
  EXPECT_NE(m.err.find("llama\\x1b[31m-3-8b"), std::string::npos) << m.err;
  const std::string key =
      write(dir, "esc2.yaml", "kind: finetune\nmodel: llama-3-8b\n\"\\e]0;pwned\\a\": 1\n");
  auto k = run_cli({"plan", key});
  EXPECT_EQ(k.code, 2) << k.err;
  EXPECT_FALSE(has_raw_control(k.err)) << k.err;
  EXPECT_NE(k.err.find("\\x1b]0;pwned\\x07"), std::string::npos) << k.err;

  // A cost export's VM name, in the table and the findings.
  std::ifstream in(source_path("tests/data/report/focus_month.csv"), std::ios::binary);
  std::string costs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t at = 0; (at = costs.find("steady-a100", at)) != std::string::npos;) {
    costs.insert(at + 11, "\x1b[31m\xe2\x80\xae");
    at += 11;
  }
  const std::string export_path = write(dir, "rep_esc.csv", costs);
  auto r = run_cli({"report", export_path});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(has_raw_control(r.out)) << r.out;
  EXPECT_NE(r.out.find("steady-a100\\x1b[31m\\u202e"), std::string::npos) << r.out;

  // A quota family name is stored and printed by every later plan: refused.
  const std::string usage = write(
      dir, "usage_esc.json",
      R"([{"currentValue": "1", "limit": "10", "name": {"localizedValue": "Standard Evil Family vCPUs", "value": "standardEvil\u001b[31mFamily"}}])");
  auto u =
      run_cli({"--db", dir + "/esc.db", "catalog", "import", "usage", usage, "--region", "eastus"});
  EXPECT_EQ(u.code, 2) << u.err;
  EXPECT_FALSE(has_raw_control(u.err)) << u.err;
  EXPECT_NE(u.err.find("[0].name.value: 'standardEvil\\x1b[31mFamily' holds a control"),
            std::string::npos)
      << u.err;
}

}  // namespace
}  // namespace gpuplan::e2e
