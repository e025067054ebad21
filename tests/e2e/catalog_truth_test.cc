// The catalog tells the truth today (issue 12), end to end: every priced
// size, retirements by date, access-restricted regions, and the prices' age.
// e2e_util pins today's date to 2026-12-02 (GPUPLAN_TODAY).
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

std::vector<std::string> with_empty_db(std::vector<std::string> args) {
  static const std::string db = temp_dir() + "/empty.db";
  args.insert(args.begin(), {"--db", db});
  return args;
}

nlohmann::json json_of(const std::vector<std::string>& args) {
  auto r = run_cli(with_empty_db(args));
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CatalogTruth, EveryPricedSizeAndTheRtxProSizesOnSale) {
  auto rows = json_of({"catalog", "--json"});
  std::set<std::string> priced, unpriced;
  for (const auto& r : rows) {
    (r["usd_per_hour"].is_null() ? unpriced : priced).insert(r["size"].get<std::string>());
  }
  // The 75 rows whose GPU the price source left empty upstream.
  EXPECT_TRUE(priced.count("Standard_ND128isr_NDR_GB200_v6"));
  EXPECT_TRUE(priced.count("Standard_NG8ads_V620_v1"));
  EXPECT_TRUE(priced.count("Standard_NV4ads_V710_v5"));
  // The RTX PRO 6000 v6 names on sale, with no invented price.
  for (const char* s : {"NC24lds", "NC36ds", "NC36lds", "NC72ds", "NC72lds", "NC144ds", "NC144lds",
                        "NC288ds", "NC288lds"}) {
    EXPECT_TRUE(unpriced.count(std::string("Standard_") + s + "_xl_RTXPRO6000BSE_v6")) << s;
  }
  for (const auto& r : rows) {
    if (r["size"] == "Standard_NC24lds_xl_RTXPRO6000BSE_v6") {
      EXPECT_EQ(r["gpu_count"], 0.25);
      EXPECT_EQ(r["gpu_memory_gib"], 24);
      EXPECT_EQ(r["note"], "no listed price");
      EXPECT_EQ(r["status"], "current");
    }
  }
  auto text = run_cli(with_empty_db({"catalog", "--series", "NC_RTXPRO6000BSE_v6"}));
  EXPECT_NE(text.out.find("Fetch their prices, if Azure lists any: gpuplan catalog import "
                          "retail-prices --live"),
            std::string::npos)
      << text.out;
}

TEST(CatalogTruth, RetiredOnlyOnRequestAndNeverReservable) {
  for (const auto& r : json_of({"catalog", "--json"})) {
    EXPECT_NE(r["series"], "NVv3");
    EXPECT_NE(r["series"], "NVv4");
  }
  int nv = 0;
  for (const char* pricing : {"reserved-1y", "reserved-3y", "savings-1y", "savings-3y"}) {
    for (const auto& r : json_of({"catalog", "--json", "--include-retired", "--series", "NVv3",
                                  "--series", "NVv4", "--pricing", pricing})) {
      EXPECT_EQ(r["status"], "retired");
      EXPECT_TRUE(r["usd_per_hour"].is_null()) << r["size"] << " " << pricing;
      EXPECT_FALSE(r["reservable"].get<bool>());
      ++nv;
    }
  }
  EXPECT_GT(nv, 0);
  // cost offers no commitment for a retired size, and says why.
  auto cost = json_of({"cost", "Standard_NV8as_v4", "--region", "eastus", "--json"});
  int unoffered = 0;
  for (const auto& row : cost["pricing"]) {
    if (row["pricing"] == "payg" || row["pricing"] == "spot") continue;
    EXPECT_FALSE(row["available"].get<bool>()) << row["pricing"];
    EXPECT_EQ(row["missing"], "retired 2026-09-30: no reservations for Standard_NV8as_v4");
    ++unoffered;
  }
  EXPECT_EQ(unoffered, 4);
}

TEST(CatalogTruth, AccessRestrictedRegionsOnRequestMarked) {
  std::set<std::string> open, all;
  for (const auto& r : json_of({"catalog", "--json"})) {
    if (!r["region"].is_null()) open.insert(r["region"].get<std::string>());
    if (!r["region"].is_null()) {
      EXPECT_EQ(r["region_access"], "open");
    }
  }
  EXPECT_FALSE(open.count("jioindiawest"));
  for (const auto& r : json_of({"catalog", "--json", "--include-restricted-regions"})) {
    if (r["region"] == "jioindiawest") {
      EXPECT_EQ(r["region_access"], "restricted");
    }
    if (!r["region"].is_null()) all.insert(r["region"].get<std::string>());
  }
  EXPECT_TRUE(all.count("jioindiawest"));
  auto text = run_cli(with_empty_db(
      {"catalog", "--include-restricted-regions", "--region", "jioindiawest", "--gpu", "A100"}));
  EXPECT_NE(text.out.find("jioindiawest*"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("* access-restricted region"), std::string::npos);
  for (const auto& r : json_of({"regions", "--json", "--include-restricted-regions"})) {
    if (r["region"] == "germanynorth") {
      EXPECT_EQ(r["region_access"], "restricted");
    }
  }
}

TEST(CatalogTruth, PlanOffersRestrictedRegionsOnlyWhenNamedOrAsked) {
  const std::set<std::string> restricted = {"australiacentral2", "germanynorth", "jioindiacentral",
                                            "jioindiawest",      "norwaywest",   "southafricawest",
                                            "switzerlandwest",   "uaecentral"};
  auto regions_in = [](const nlohmann::json& plan) {
    std::set<std::string> out;
    for (const char* list : {"options", "frontier", "fallbacks"}) {
      if (!plan.contains(list)) continue;
      for (const auto& o : plan[list]) out.insert(o["region"].get<std::string>());
    }
    return out;
  };
  const std::string example = source_path("examples/finetune-llama3-8b.yaml");
  for (const std::string& r : regions_in(json_of({"plan", example, "--json", "--top", "50"}))) {
    EXPECT_FALSE(restricted.count(r)) << r;
  }
  auto named = run_cli(with_empty_db({"plan", example, "--region", "jioindiawest"}));
  EXPECT_NE(named.out.find("jioindiawest is access-restricted"), std::string::npos) << named.out;
  // Asked for, they are candidates: more feasible options, no region drops.
  auto hidden = json_of({"plan", example, "--json", "--pricing", "payg"});
  auto asked =
      json_of({"plan", example, "--json", "--include-restricted-regions", "--pricing", "payg"});
  EXPECT_GT(asked["feasible"].get<int>(), hidden["feasible"].get<int>());
  for (const auto& d : asked["dropped"]) EXPECT_NE(d["reason"], "region not allowed");
}

TEST(CatalogTruth, PricesAgeAndTheCatalogDate) {
  auto r = run_cli(with_empty_db({"catalog", "--gpu", "H100", "--region", "eastus"}));
  EXPECT_NE(r.out.find("warning: prices are 196 days old (retrieved 2026-05-20; limit 90 days)."),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Refresh them: gpuplan catalog import retail-prices --live --region "
                       "eastus"),
            std::string::npos);
  auto fresh = run_cli(with_empty_db(
      {"catalog", "--gpu", "H100", "--region", "eastus", "--stale-payg-days", "365"}));
  EXPECT_NE(fresh.out.find("Prices are 196 days old (retrieved 2026-05-20)."), std::string::npos);
  EXPECT_EQ(fresh.out.find("Refresh them"), std::string::npos);
  auto plan = run_cli(with_empty_db({"plan", source_path("examples/finetune-llama3-8b.yaml")}));
  EXPECT_NE(plan.out.find("spot prices are 196 days old (retrieved 2026-05-20; limit 30"),
            std::string::npos)
      << plan.out;
  auto v = run_cli({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.out.find("embedded catalog: prices of 2026-05-20"), std::string::npos) << v.out;
}

}  // namespace
}  // namespace gpuplan::e2e
