// End-to-end tests of Azure's spot eviction bands: `gpuplan catalog import
// spot` on the shipped sample (golden), bad pages (exit 2, file and JSON
// path, nothing written), and the effect of an imported band on a plan
// option's risk and cost (text and JSON) and on the simulator's stochastic
// spot model.
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/store.h"
#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

std::string data(const std::string& name) { return source_path("tests/data/azure/" + name); }

std::string scrub(std::string s, const std::string& tmp) {
  for (size_t p = s.find(tmp); !tmp.empty() && p != std::string::npos; p = s.find(tmp, p))
    s.replace(p, tmp.size(), "<tmp>");
  return std::regex_replace(s, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"),
                            "YYYY-MM-DDThh:mm:ssZ");
}

// The text output with its wrapped lines joined (option details wrap at the
// terminal width).
std::string flat(const std::string& s) { return std::regex_replace(s, std::regex(R"(\n +)"), " "); }

struct Store {
  std::string dir = temp_dir();
  std::string db = dir + "/catalog.db";
  CliResult run(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--db", db});
    return run_cli(args);
  }
  // One az graph query page holding the band of `size` in `region`.
  std::string band_page(const std::string& name, const std::string& size, const std::string& region,
                        const std::string& band) const {
    nlohmann::json row = {{"type", "microsoft.compute/skuspotevictionrate/location"},
                          {"skuName", size},
                          {"location", region},
                          {"evictionRate", band},
                          {"osType", ""},
                          {"spotPrices", nullptr}};
    nlohmann::json page = {
        {"count", 1}, {"data", {row}}, {"skip_token", nullptr}, {"total_records", 1}};
    std::string path = dir + "/" + name;
    std::ofstream(path) << page.dump(2);
    return path;
  }
};

TEST(SpotImportCli, SampleGoldenAndBadPagesExit2) {
  Store s;
  auto r = s.run({"catalog", "import", "spot", data("spot_page1.json"), data("spot_page2.json"),
                  "--as-of", "2026-11-30"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("import_spot.txt", scrub(r.out, s.dir)), "");
  struct Case {
    std::vector<std::string> files;
    std::string golden;
  };
  const std::vector<Case> cases = {
      {{data("bad/spot_unknown_band.json")}, "import_bad_spot_band.txt"},
      {{data("bad/spot_malformed.json")}, "import_bad_spot_malformed.txt"},
      {{data("bad/spot_count_mismatch.json")}, "import_bad_spot_count.txt"},
      {{data("bad/spot_not_envelope.json")}, "import_bad_spot_envelope.txt"},
      {{data("bad/spot_bad_price.json")}, "import_bad_spot_price.txt"},
      {{data("spot_page1.json"), data("spot_page1.json")}, "import_bad_spot_twice.txt"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"catalog", "import", "spot"};
    args.insert(args.end(), c.files.begin(), c.files.end());
    auto bad = s.run(args);
    EXPECT_EQ(bad.code, 2) << c.golden << ": " << bad.err;
    EXPECT_EQ(bad.out, "") << c.golden;
    EXPECT_EQ(check_golden(c.golden, scrub(bad.err, s.dir)), "");
  }
  auto snaps = catalog::list_snapshots(s.db);
  ASSERT_TRUE(snaps);
  EXPECT_EQ(snaps->size(), 1u);  // only the good import
}

// The plan option of `size` (any count) in the JSON plan, or null.
const nlohmann::json* option_of(const nlohmann::json& plan, const std::string& size) {
  for (const auto& o : plan.at("options"))
    if (o.at("size") == size) return &o;
  return nullptr;
}

TEST(SpotImportCli, AnImportedBandChangesThePlansRiskAndCost) {
  Store s;
  const std::vector<std::string> plan = {
      "plan",      source_path("examples/finetune-llama3-8b.yaml"),
      "--region",  "northcentralus",
      "--pricing", "spot",
      "--top",     "20"};
  auto with_json = [&] {
    std::vector<std::string> a = plan;
    a.push_back("--json");
    auto r = s.run(a);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  // 1. No band imported: risk unknown, priced at the default 0.05-0.20.
  auto text = s.run(plan);
  ASSERT_EQ(text.code, 0) << text.err;
  text.out = flat(text.out);
  EXPECT_NE(text.out.find("spot risk unknown (no Azure eviction band imported; priced at "
                          "0.05-0.20 evictions per VM-hour"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("spot risk low"), std::string::npos);
  nlohmann::json before = with_json();
  ASSERT_FALSE(before.at("options").empty());
  const std::string size = before["options"][0].at("size");
  const auto& r0 = before["options"][0].at("spot_risk");
  EXPECT_EQ(r0.at("level"), "unknown");
  EXPECT_EQ(r0.at("rate_basis"), "default");
  EXPECT_TRUE(r0.at("band").is_null());
  EXPECT_DOUBLE_EQ(r0.at("eviction_rate_per_hour").get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(r0.at("eviction_rate_high_per_hour").get<double>(), 0.2);
  const double cost_default = before["options"][0].at("cost_usd");

  // 2. Azure says 0-5 % for that size there: lower rate, lower cost, risk low.
  ASSERT_EQ(s.run({"catalog", "import", "spot",
                   s.band_page("low.json", size, "northcentralus", "0-5"), "--as-of", "2026-11-30"})
                .code,
            0);
  text = s.run(plan);
  ASSERT_EQ(text.code, 0) << text.err;
  text.out = flat(text.out);
  EXPECT_NE(text.out.find("spot risk low (Azure band 0-5 %: 0.025 evictions per VM-hour"),
            std::string::npos)
      << text.out;
  nlohmann::json low = with_json();
  const nlohmann::json* lo = option_of(low, size);
  ASSERT_NE(lo, nullptr);
  EXPECT_EQ(lo->at("spot_risk").at("level"), "low");
  EXPECT_EQ(lo->at("spot_risk").at("band"), "0-5");
  EXPECT_EQ(lo->at("spot_risk").at("rate_basis"), "azure-band");
  EXPECT_EQ(lo->at("spot_risk").at("band_as_of"), "2026-11-30");
  EXPECT_NEAR(lo->at("spot_risk").at("eviction_rate_per_hour").get<double>(), 0.0253, 1e-4);
  EXPECT_LT(lo->at("cost_usd").get<double>(), cost_default);

  // 3. A newer import says 20+ %: the newest band wins, the rate and the
  //    cost rise and the risk is no longer low.
  ASSERT_EQ(
      s.run({"catalog", "import", "spot", s.band_page("high.json", size, "northcentralus", "20+")})
          .code,
      0);
  nlohmann::json high = with_json();
  const nlohmann::json* hi = option_of(high, size);
  ASSERT_NE(hi, nullptr);
  EXPECT_EQ(hi->at("spot_risk").at("band"), "20+");
  EXPECT_NE(hi->at("spot_risk").at("level"), "low");
  EXPECT_NEAR(hi->at("spot_risk").at("eviction_rate_per_hour").get<double>(), 0.2549, 1e-4);
  EXPECT_GT(hi->at("cost_usd").get<double>(), lo->at("cost_usd").get<double>());
  EXPECT_GT(hi->at("spot_risk").at("expected_evictions").get<double>(),
            lo->at("spot_risk").at("expected_evictions").get<double>());
  text = s.run(plan);
  EXPECT_NE(flat(text.out).find("Azure band 20+ %"), std::string::npos) << text.out;

  // 4. --eviction-rate replaces the band and says so.
  std::vector<std::string> forced = plan;
  forced.insert(forced.end(), {"--eviction-rate", "0.05", "--json"});
  auto f = s.run(forced);
  ASSERT_EQ(f.code, 0) << f.err;
  const auto fj = nlohmann::json::parse(f.out);
  EXPECT_EQ(fj["options"][0].at("spot_risk").at("rate_basis"), "override");
}

TEST(SpotImportCli, TheSimulatorsEvictionModelUsesTheBand) {
  Store s;
  const std::string scenario = s.dir + "/deadline.yaml";
  std::ofstream(scenario) << R"(name: band-model
kind: deadline
vm:
  size: Standard_NC24ads_A100_v4
  region: eastus
prices:
  on_demand_usd_per_hour: 3.673
  spot_usd_per_hour: 0.7467
  source: test
  as_of: 2026-05-20
job:
  work_hours: 4
  deadline_hours: 8
spot:
  model:
    mean_down_hours: 1
    hours: 24
runs: 2
seed: 1
)";
  auto assumption = [&](const nlohmann::json& rep) {
    for (const auto& a : rep.at("assumptions"))
      if (a.at("name") == "spot_model") return a;
    return nlohmann::json();
  };
  auto r = s.run({"simulate", scenario, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto a = assumption(nlohmann::json::parse(r.out));
  EXPECT_NE(a.at("value").get<std::string>().find("mean up 10.00 h"), std::string::npos) << a;
  EXPECT_NE(a.at("source").get<std::string>().find("no Azure eviction band"), std::string::npos);
  ASSERT_EQ(
      s.run({"catalog", "import", "spot", data("spot_page1.json"), data("spot_page2.json")}).code,
      0);
  r = s.run({"simulate", scenario, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  a = assumption(nlohmann::json::parse(r.out));
  // 10-15 %: 0.1335 evictions per hour, a mean of 7.49 h between evictions.
  EXPECT_NE(a.at("value").get<std::string>().find("mean up 7.49 h"), std::string::npos) << a;
  EXPECT_NE(a.at("source").get<std::string>().find("Azure eviction band 10-15 %"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuplan::e2e
