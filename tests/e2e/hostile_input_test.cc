// Issue 15, items 4 and 7: extreme numbers, impossible dates, repeated keys,
// unknown versions and inputs that never end are exit 2 naming the file,
// line and field (or the flag), never exit 1 or 4 and never a crash.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

namespace fs = std::filesystem;

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first line of stderr: the error a user reads.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

TEST(HostileInput, CostWithHugeHoursIsExit2NamingTheFlag) {
  auto r = run_cli({"cost", "NC40ads_H100_v5", "--region", "eastus", "--hours", "1e300"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(first_line(r.err),
            "gpuplan: error: --hours: expected a number in (0, 1000000], got 1e300");
  // 0 h priced every commitment at $0, while any hour costs the whole term.
  for (const char* bad : {"nan", "inf", "-1", "1e400", "12h", "0"}) {
    auto b = run_cli({"cost", "NC40ads_H100_v5", "--region", "eastus", "--hours", bad});
    EXPECT_EQ(b.code, 2) << bad << ": " << b.err;
    EXPECT_NE(b.err.find("--hours: expected a number"), std::string::npos) << b.err;
  }
}

// deploy --out '' once failed "cannot create " (exit 3) after reading the
// plan, and --out / (as root) put deploy.sh in the filesystem's root.
TEST(HostileInput, DeployOutIsADirectoryOfItsOwn) {
  for (const char* out : {"", "  ", "/", "//"}) {
    auto r = run_cli({"deploy", source_path("examples/finetune-llama3-8b.yaml"), "--out", out,
                      "--ssh-cidr", "203.0.113.0/24"});
    EXPECT_EQ(r.code, 2) << "'" << out << "': " << r.err;
    EXPECT_NE(r.err.find("--out: expected a directory"), std::string::npos) << r.err;
  }
}

TEST(HostileInput, PlanFlagsOutOfRangeAreExit2NotInfeasible) {
  const std::string w = source_path("examples/finetune-llama3-8b.yaml");
  auto neg = run_cli({"plan", w, "--budget", "-5"});
  EXPECT_EQ(neg.code, 2) << neg.err;  // was exit 1, "no feasible option"
  EXPECT_EQ(first_line(neg.err),
            "gpuplan: error: --budget: expected a number in (0, 1000000000000], got -5");
  for (auto [flag, value] :
       std::vector<std::pair<std::string, std::string>>{{"--deadline-hours", "-1"},
                                                        {"--deadline-hours", "inf"},
                                                        {"--egress-gb", "1e308"},
                                                        {"--setup-hours", "1e300"},
                                                        {"--restart-hours", "nan"}}) {
    auto r = run_cli({"plan", w, flag, value});
    EXPECT_EQ(r.code, 2) << flag << " " << value << ": " << r.err;
    EXPECT_NE(r.err.find(flag + ": expected a number"), std::string::npos) << r.err;
  }
}

// Flags that narrow are refused blank (an unset variable in a script):
// `plan --region ''` once planned in every region. An eviction band whose
// high end is below its expected rate is refused too.
TEST(HostileInput, BlankNarrowingFlagsAndAnInvertedEvictionBandAreExit2) {
  const std::string w = source_path("examples/finetune-llama3-8b.yaml");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"plan", w, "--region", ""},
                                               {"catalog", "--region", " "},
                                               {"catalog", "--series", ""}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(": an empty value"), std::string::npos) << r.err;
  }
  // A service has no deadline: the flag was read as one and dropped every
  // option (exit 1).
  auto service =
      run_cli({"plan", source_path("examples/serve-llama3-8b.yaml"), "--deadline-hours", "3"});
  EXPECT_EQ(service.code, 2) << service.err;
  EXPECT_NE(service.err.find("--deadline-hours: a service has no deadline"), std::string::npos)
      << service.err;
  auto band = run_cli({"plan", w, "--eviction-rate", "0.5", "--eviction-rate-high", "0.1"});
  EXPECT_EQ(band.code, 2) << band.err;
  EXPECT_NE(band.err.find("--eviction-rate-high: the high eviction rate 0.1 is below"),
            std::string::npos)
      << band.err;
}

// An error quotes its input; a megabyte of model name was echoed whole.
TEST(HostileInput, ErrorsQuoteAtMostAScreenful) {
  const std::string dir = temp_dir();
  const std::string file = dir + "/long.yaml";
  std::ofstream(file) << "kind: infer\nmodel: " << std::string(1 << 20, 'x')
                      << "\nserving: {request_rate: 1, input_tokens: 10, output_tokens: 10}\n";
  auto r = run_cli({"estimate", file});
  EXPECT_EQ(r.code, 2) << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 2200u);
  EXPECT_NE(r.err.find("more bytes left out)"), std::string::npos) << r.err.substr(0, 300);
}

// Names the catalog knows of in another form: a sovereign cloud's region
// is said to be one (it was "not an Azure region"), and a GPU family as a
// reference names its parts (it suggested 'A10' for 'H100').
TEST(HostileInput, RegionsAndGpusOfAnotherKindAreNamedForWhatTheyAre) {
  const std::string dir = temp_dir();
  const std::string gov = dir + "/gov.yaml", ref = dir + "/ref.yaml";
  std::ofstream(gov) << "kind: infer\nmodel: llama-3-8b\nserving: {request_rate: 1, "
                        "input_tokens: 10, output_tokens: 10}\nconstraints: {regions: "
                        "[usgovvirginia]}\n";
  auto r = run_cli({"plan", gov});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("is a sovereign cloud region"), std::string::npos) << r.err;
  std::ofstream(ref) << "kind: batch\ndata: {items: 10}\nbatch: {seconds_per_item: 1, "
                        "reference_gpu: H100}\n";
  auto b = run_cli({"estimate", ref});
  EXPECT_EQ(b.code, 2) << b.err;
  EXPECT_NE(b.err.find("did you mean H100-NVL, H100-SXM?"), std::string::npos) << b.err;
}

// Every region of Microsoft's list is a region, with GPU sizes or not: West
// India (Mumbai) has none in the catalog and was "not an Azure region" (did
// you mean 'southindia'?), because the list held only regions with a price.
TEST(HostileInput, ARegionWithoutGpuSizesIsStillARegion) {
  // Exit 1, as for francesouth: a real region where nothing is found (2 is
  // for input that is wrong, as a misspelt region is).
  auto r = run_cli({"cost", "NC40ads_H100_v5", "--region", "westindia"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("'westindia' is an Azure region but has no GPU sizes"), std::string::npos)
      << r.err;
  auto typo = run_cli({"cost", "NC40ads_H100_v5", "--region", "westindai"});
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("did you mean 'westindia'?"), std::string::npos) << typo.err;
}

TEST(HostileInput, HybridBenefitOnLinuxIsRefused) {
  auto cost = run_cli({"cost", "NC40ads_H100_v5", "--region", "eastus", "--hybrid-benefit"});
  EXPECT_EQ(cost.code, 2);
  EXPECT_EQ(first_line(cost.err),
            "gpuplan: error: --hybrid-benefit: Azure Hybrid Benefit applies to Windows VMs only; "
            "add --os windows or drop the flag");
  EXPECT_EQ(run_cli({"cost", "NC40ads_H100_v5", "--region", "eastus", "--os", "windows",
                     "--hybrid-benefit"})
                .code,
            0);
  auto plan =
      run_cli({"plan", source_path("examples/finetune-llama3-8b.yaml"), "--hybrid-benefit"});
  EXPECT_EQ(plan.code, 2);
  EXPECT_NE(plan.err.find("--hybrid-benefit: Azure Hybrid Benefit applies to Windows VMs only"),
            std::string::npos)
      << plan.err;
  // A Windows workload asking for it, planned with --os linux.
  auto os = run_cli({"plan", source_path("examples/windows-hybrid.yaml"), "--os", "linux"});
  EXPECT_EQ(os.code, 2);
  EXPECT_NE(os.err.find("error: --os: Azure Hybrid Benefit"), std::string::npos) << os.err;
}

TEST(HostileInput, RepeatedYamlKeysAreExit2AtTheSecond) {
  const std::string dir = temp_dir();
  const std::string w = write(dir, "dup.yaml",
                              "kind: finetune\nmodel: llama-3-8b\ndata: {tokens: 1e8}\n"
                              "constraints:\n  deadline_hours: 48\n  deadline_hours: 4\n");
  auto r = run_cli({"estimate", w});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(first_line(r.err), "gpuplan: error: " + w +
                                   ":6:3: constraints.deadline_hours: key 'deadline_hours' is "
                                   "given twice in this mapping (YAML keys are unique; which one "
                                   "was meant?)");
  // Scenarios share the loader.
  std::string scenario = read(source_path("tests/data/sim/deadline_small.yaml"));
  scenario += "kind: serving\n";
  const std::string s = write(dir, "dup_scenario.yaml", scenario);
  auto sim = run_cli({"simulate", s});
  EXPECT_EQ(sim.code, 2) << sim.err;
  EXPECT_NE(sim.err.find("key 'kind' is given twice"), std::string::npos) << sim.err;
}

TEST(HostileInput, UnknownPlanSchemaVersionIsExit2) {
  std::string plan = read(source_path("tests/data/plans/nc_h100_train.json"));
  const size_t at = plan.find("gpuplan.plan/1");
  ASSERT_NE(at, std::string::npos);
  plan.replace(at, 14, "gpuplan.plan/3");
  const std::string dir = temp_dir();
  const std::string p = write(dir, "plan_v3.json", plan);
  auto r = run_cli({"deploy", p, "--out", dir + "/out", "--ssh-cidr", "203.0.113.0/24"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(first_line(r.err), "gpuplan: error: " + p +
                                   ": schema: expected \"gpuplan.plan/1\" or \"gpuplan.plan/2\" "
                                   "(output of `gpuplan plan --json`), got \"gpuplan.plan/3\"");
  EXPECT_FALSE(fs::exists(dir + "/out/deploy.sh"));
}

TEST(HostileInput, ImpossibleDatesAreRefused) {
  const std::string dir = temp_dir();
  const std::string trace = write(dir, "feb30.csv",
                                  "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                  "2024-02-28 10:00:00.0,100,10\n2024-02-30 10:00:00.0,100,10\n");
  auto r =
      run_cli({"simulate", source_path("tests/data/sim/serving_small.yaml"), "--trace", trace});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(first_line(r.err), "gpuplan: error: " + trace +
                                   ":3:1: TIMESTAMP: expected a time like 2023-11-16 "
                                   "18:15:46.6805900 or 2024-05-10 00:00:00.009930+00:00");
  auto spot =
      run_cli({"--db", dir + "/c.db", "catalog", "import", "spot",
               source_path("tests/fuzz/corpus/spot/spot_malformed.json"), "--as-of", "2024-02-30"});
  EXPECT_EQ(spot.code, 2) << spot.err;
  EXPECT_NE(spot.err.find("expected a date YYYY-MM-DD, got \"2024-02-30\""), std::string::npos)
      << spot.err;
}

// Timestamps from 1970 to 9999 once asked the simulator for a timeline of
// 8,000 years: std::bad_alloc, SIGABRT.
TEST(HostileInput, TraceSpanningMillenniaIsExit2) {
  const std::string dir = temp_dir();
  const std::string trace = write(dir, "epochs.csv",
                                  "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                  "1970-01-01 00:00:00.0,374,44\n9999-12-31 23:59:59.0,396,109\n");
  auto r =
      run_cli({"simulate", source_path("tests/data/sim/serving_small.yaml"), "--trace", trace});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(first_line(r.err).find(trace + ":3:1: TIMESTAMP: this row is more than a year"),
            std::string::npos)
      << r.err;
}

TEST(HostileInput, InputsReadWholeAreCappedAndMustBeUtf8) {
  auto zero = run_cli({"--max-input-mib", "1", "estimate", "/dev/zero"});
  EXPECT_EQ(zero.code, 2);
  EXPECT_EQ(first_line(zero.err),
            "gpuplan: error: /dev/zero: larger than the 1 MiB an input read whole may be (raise "
            "with --max-input-mib)");
  auto trace = run_cli(
      {"simulate", source_path("tests/data/sim/serving_small.yaml"), "--trace", "/dev/zero"});
  EXPECT_EQ(trace.code, 2);
  EXPECT_NE(trace.err.find("/dev/zero:1: a line longer than 1 MiB"), std::string::npos)
      << trace.err;
  const std::string dir = temp_dir();
  const std::string w = write(dir, "latin1.yaml", "kind: finetune\nname: r\xe9sum\xe9\n");
  auto latin1 = run_cli({"plan", w});
  EXPECT_EQ(latin1.code, 2);
  EXPECT_EQ(first_line(latin1.err), "gpuplan: error: " + w + ":2:8: not UTF-8 text (byte 0xe9)");
}

// A store on read-only storage made every command fail with "not a gpuplan
// store: unable to open database file"; it is now read as it is, with a
// warning. Read-only storage needs a non-root user (chmod) or, for root, a
// read-only tmpfs mount; where neither is possible the test is skipped.
TEST(HostileInput, AReadOnlyStoreIsReadWithAWarning) {
  const std::string dir = temp_dir();
  const std::string db = dir + "/c.db";
  auto imported = run_cli({"--db", db, "catalog", "import", "retail-prices",
                           source_path("tests/data/azure/retail_prices_page1.json"),
                           source_path("tests/data/azure/retail_prices_page2.json")});
  ASSERT_EQ(imported.code, 0) << imported.err;
  const std::string ro = dir + "/ro";
  fs::create_directories(ro);
  bool mounted = false;
  if (::geteuid() != 0) {
    fs::copy_file(db, ro + "/c.db");
    fs::permissions(ro + "/c.db", fs::perms::owner_read);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  } else if (std::system(("mount -t tmpfs -o size=8m tmpfs " + ro + " 2>/dev/null").c_str()) == 0) {
    mounted = true;
    fs::copy_file(db, ro + "/c.db");
    if (std::system(("mount -o remount,ro " + ro).c_str()) != 0) {
      (void)std::system(("umount " + ro).c_str());
      GTEST_SKIP() << "cannot remount read-only";
    }
  } else {
    GTEST_SKIP() << "root without mount: no read-only storage to test on";
  }
  auto r = run_cli(
      {"--db", ro + "/c.db", "cost", "Standard_NC24ads_A100_v4", "--region", "eastus", "--json"});
  if (mounted)
    (void)std::system(("umount " + ro).c_str());
  else
    fs::permissions(ro, fs::perms::owner_all);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("gpuplan: warning: the store " + ro + "/c.db is read-only"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("2024-03-01"), std::string::npos);  // the imported price, not embedded
}

}  // namespace
}  // namespace gpuplan::e2e
