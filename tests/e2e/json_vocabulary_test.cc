// The JSON contract of docs/json.md end to end: plan JSON carries the
// planner's figures at full precision while text rounds them by one rule,
// and deploy reads plan JSON /1 and /2 and refuses any other version. (The
// schemas themselves are checked by tests/schema/schema_test.py.)
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/format.h"
#include "cost/cost.h"
#include "e2e/e2e_util.h"
#include "plan/plan.h"
#include "workload/workload.h"

namespace gpuplan::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kWorkload = "examples/finetune-llama3-8b.yaml";

std::string empty_db() {
  static const std::string db = temp_dir() + "/empty.db";
  return db;
}

// The same plan, made in this process on the embedded catalog.
plan::Plan in_process_plan() {
  auto w = workload::parse_file(source_path(kWorkload));
  EXPECT_TRUE(w) << w.error().to_string();
  auto cat = catalog::Catalog::load_embedded();
  EXPECT_TRUE(cat) << cat.error().to_string();
  auto rates = cost::Rates::load_embedded();
  EXPECT_TRUE(rates) << rates.error().to_string();
  auto p = plan::make_plan(*w, **cat, *rates, plan::PlanOptions{});
  EXPECT_TRUE(p) << p.error().to_string();
  return *p;
}

bool near(double json, double computed) {
  return std::fabs(json - computed) <= 1e-9 * std::max(1.0, std::fabs(computed));
}

TEST(JsonPrecision, PlanDollarsAreTheComputedFiguresNotRoundedCopies) {
  const CliResult r = run_cli({"--db", empty_db(), "plan", source_path(kWorkload), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const plan::Plan p = in_process_plan();
  // The CLI prints its top options; the planner ranks them the same way.
  ASSERT_FALSE(j["options"].empty());
  ASSERT_LE(j["options"].size(), p.options.size());
  bool finer_than_4_decimals = false;
  for (size_t i = 0; i < j["options"].size(); ++i) {
    SCOPED_TRACE("option " + std::to_string(i + 1));
    const auto& o = j["options"][i];
    const plan::Option& want = p.options[i];
    ASSERT_EQ(o["size"], want.size);
    for (const auto& [key, value] :
         {std::pair{"cost_usd", want.cost_usd}, std::pair{"cost_low_usd", want.cost_low_usd},
          std::pair{"cost_high_usd", want.cost_high_usd},
          std::pair{"usd_per_hour", want.usd_per_hour}, std::pair{"hours", want.hours}}) {
      EXPECT_TRUE(near(o[key].get<double>(), value))
          << key << ": JSON " << o[key] << ", computed " << value;
    }
    // The cost lines add up to the cost in the JSON too (nothing rounded away).
    double lines = 0;
    for (const auto& l : o["cost_lines"]) lines += l["usd"].get<double>();
    EXPECT_TRUE(near(lines, o["cost_usd"].get<double>())) << lines;
    const double c = o["cost_usd"].get<double>();
    finer_than_4_decimals |= std::round(c * 1e4) / 1e4 != c;
  }
  // /1 rounded every dollar figure to 4 decimals; a real plan's are finer.
  EXPECT_TRUE(finer_than_4_decimals);
}

TEST(JsonPrecision, TextRoundsMoneyToCents) {
  const CliResult r = run_cli({"--db", empty_db(), "plan", source_path(kWorkload)});
  ASSERT_EQ(r.code, 0) << r.err;
  const plan::Plan p = in_process_plan();
  ASSERT_FALSE(p.options.empty());
  const double cost = p.options[0].cost_usd;
  // "$119.72", never the JSON's 119.72038483814481.
  EXPECT_NE(r.out.find(format::usd(cost)), std::string::npos) << format::usd(cost) << "\n" << r.out;
  const std::string full = nlohmann::json(cost).dump();
  ASSERT_GT(full.size(), 8u);
  EXPECT_EQ(r.out.find(full.substr(0, full.find('.') + 4)), std::string::npos) << full;
  const CliResult quiet = run_cli({"--db", empty_db(), "--quiet", "plan", source_path(kWorkload)});
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_NE(quiet.out.find(format::number(cost, format::Kind::kMoney, format::Form::kCsv) + " USD"),
            std::string::npos)
      << quiet.out;
}

// ---- deploy reads plan JSON /1 and /2, and refuses any other version --------

struct Deployed {
  CliResult result;
  std::string out;
};

Deployed deploy(const std::string& plan_file, const std::string& dir) {
  Deployed d;
  d.out = dir + "/out";
  d.result = run_cli({"--db", empty_db(), "deploy", plan_file, "--out", d.out, "--ssh-cidr",
                      "203.0.113.0/24", "--start-date", "2026-12-01", "--json"});
  return d;
}

TEST(DeployPlanVersions, ReadsOneAndTwoAndRefusesThreeNamingFileAndField) {
  const std::string dir = temp_dir();
  // /1: a fixture written by an older gpuplan (gpu_model, 4-decimal dollars).
  Deployed v1 = deploy(source_path("tests/data/plans/nc_h100_train.json"), dir + "/1");
  ASSERT_EQ(v1.result.code, 0) << v1.result.err;
  EXPECT_TRUE(fs::exists(v1.out + "/deploy.sh"));
  EXPECT_EQ(nlohmann::json::parse(v1.result.out)["size"], "Standard_NC40ads_H100_v5");

  // /2: what `gpuplan plan --json` writes today.
  const CliResult plan = run_cli({"--db", empty_db(), "plan", source_path(kWorkload), "--json"});
  ASSERT_EQ(plan.code, 0) << plan.err;
  auto doc = nlohmann::json::parse(plan.out);
  ASSERT_EQ(doc["schema"], "gpuplan.plan/2");
  ASSERT_TRUE(doc["options"][0].contains("gpu_count"));
  fs::create_directories(dir + "/2");
  std::ofstream(dir + "/2/plan.json") << plan.out;
  Deployed v2 = deploy(dir + "/2/plan.json", dir + "/2");
  ASSERT_EQ(v2.result.code, 0) << v2.result.err;
  EXPECT_EQ(nlohmann::json::parse(v2.result.out)["size"], doc["options"][0]["size"]);

  // /3: a version this gpuplan does not know — exit 2, nothing written.
  doc["schema"] = "gpuplan.plan/3";
  fs::create_directories(dir + "/3");
  const std::string v3_file = dir + "/3/plan.json";
  std::ofstream(v3_file) << doc.dump(2);
  Deployed v3 = deploy(v3_file, dir + "/3");
  EXPECT_EQ(v3.result.code, 2);
  EXPECT_NE(v3.result.err.find(v3_file + ": schema: expected \"gpuplan.plan/1\" or "
                                         "\"gpuplan.plan/2\""),
            std::string::npos)
      << v3.result.err;
  EXPECT_FALSE(fs::exists(v3.out));
}

}  // namespace
}  // namespace gpuplan::e2e
