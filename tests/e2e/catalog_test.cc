// `gpuplan catalog` and `gpuplan regions` end to end: golden outputs on the
// embedded catalog (an empty --db so a user's store never leaks in), the
// JSON contract, and bad flags (exit 2).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/store.h"
#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

std::vector<std::string> with_empty_db(std::vector<std::string> args) {
  static const std::string db = temp_dir() + "/empty.db";
  args.insert(args.begin(), {"--db", db});
  return args;
}

TEST(CatalogCli, H100EastusTable) {
  auto r = run_cli(with_empty_db({"catalog", "--gpu", "H100", "--region", "eastus"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("catalog_h100_eastus.txt", r.out), "");
  // Both H100 parts, with prices.
  EXPECT_NE(r.out.find("NC40ads_H100_v5"), std::string::npos);
  EXPECT_NE(r.out.find("ND96isr_H100_v5"), std::string::npos);
  EXPECT_NE(r.out.find("98.32"), std::string::npos);
  for (size_t start = 0, end; start < r.out.size(); start = end + 1) {
    end = r.out.find('\n', start);
    if (end == std::string::npos) end = r.out.size();
    EXPECT_LE(end - start, 100u) << r.out.substr(start, end - start);
  }
}

TEST(CatalogCli, H100EastusJson) {
  auto r = run_cli(with_empty_db({"catalog", "--gpu", "H100", "--region", "eastus", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("catalog_h100_eastus.json", r.out), "");
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 3u);
  for (const auto& row : j) {
    for (const char* key :
         {"size", "series", "gpu", "gpu_count", "gpu_memory_gib", "vcpus", "memory_gib", "region",
          "pricing", "os", "usd_per_hour", "usd_per_gpu_hour", "as_of", "estimated", "source",
          "quota_headroom_vcpus"}) {
      EXPECT_TRUE(row.contains(key)) << key;
    }
  }
  EXPECT_EQ(j[0]["size"], "Standard_NC40ads_H100_v5");
  EXPECT_EQ(j[0]["series"], "NCads_H100_v5");
  EXPECT_EQ(j[0]["gpu"], "H100-NVL");
  EXPECT_EQ(j[0]["usd_per_hour"], 6.98);
  EXPECT_EQ(j[2]["gpu"], "H100-SXM");
  EXPECT_EQ(j[2]["estimated"], false);
}

TEST(CatalogCli, ReservedPricesAreMarkedEstimated) {
  auto r = run_cli(with_empty_db(
      {"catalog", "--gpu", "H100", "--region", "eastus", "--pricing", "reserved-1y"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("catalog_h100_eastus_reserved1y.txt", r.out), "");
  auto j =
      nlohmann::json::parse(run_cli(with_empty_db({"catalog", "--gpu", "H100", "--region", "eastus",
                                                   "--pricing", "reserved-1y", "--json"}))
                                .out);
  for (const auto& row : j) {
    EXPECT_EQ(row["estimated"], true);
    EXPECT_TRUE(row["rule"].is_string());
  }
}

TEST(CatalogCli, SpotUnknownIsNotAPrice) {
  auto r = run_cli(with_empty_db(
      {"catalog", "--gpu", "H200", "--region", "eastus2", "--pricing", "spot", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_TRUE(j[0]["usd_per_hour"].is_null());
  EXPECT_EQ(j[0]["note"], "spot price unknown");
}

TEST(CatalogCli, CsvHasTheSameRows) {
  auto r = run_cli(with_empty_db({"catalog", "--gpu", "H100", "--region", "eastus", "--csv"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("catalog_h100_eastus.csv", r.out), "");
}

TEST(CatalogCli, Regions) {
  auto r = run_cli(with_empty_db({"regions"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("catalog_regions.txt", r.out), "");
  auto j = run_cli(with_empty_db({"regions", "--json"}));
  ASSERT_EQ(j.code, 0);
  EXPECT_EQ(nlohmann::json::parse(j.out).size(), 43u);  // 51 less 8 access-restricted
  auto all = run_cli(with_empty_db({"regions", "--json", "--include-restricted-regions"}));
  ASSERT_EQ(all.code, 0);
  EXPECT_EQ(nlohmann::json::parse(all.out).size(), 51u);
}

TEST(CatalogCli, BadFlagsExit2) {
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  for (const Case& c : std::vector<Case>{
           {{"catalog", "--pricing", "hourly"}, "--pricing: unknown pricing 'hourly'"},
           {{"catalog", "--os", "macos"}, "--os: unknown OS"},
           {{"catalog", "--sort", "cheap"}, "--sort: unknown sort"},
           {{"catalog", "--gpu", "H1000"}, "did you mean"},
           {{"catalog", "--region", "eastu"}, "did you mean 'eastus'"},
           {{"catalog", "--series", "NX"}, "no series 'NX'"},
           {{"catalog", "--min-vram", "-1"},
            "--min-vram: expected a number in [0, 1000000], got -1"},
           {{"catalog", "--max-price", "abc"}, "gpuplan: error:"},
           {{"catalog", "--gpus-min", "8", "--gpus-max", "2"}, "--gpus-min"},
           {{"catalog", "--json", "--csv"}, "gpuplan: error:"},
       }) {
    auto r = run_cli(with_empty_db(c.args));
    EXPECT_EQ(r.code, 2) << c.args[1] << " " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// A store with a Reservation price, list-usage quota and a list-skus
// restriction changes the listing (issue 2, "Done when").
TEST(CatalogCli, ImportsOverlayTheEmbeddedCatalog) {
  using namespace gpuplan::catalog;
  const std::string db = temp_dir() + "/imports.db";
  SnapshotData prices;
  prices.kind = SnapshotKind::kRetailPrices;
  prices.source = "ri-page.json";
  // $26,280 for one year of NC40ads_H100_v5 = $3/h.
  prices.prices = {
      {"Standard_NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kReserved1y, 3.0, "2026-11-01"}};
  auto imported = write_snapshot(db, prices);
  ASSERT_TRUE(imported);
  // The import is dated by the clock, not by GPUPLAN_TODAY: the golden file
  // holds a placeholder for that date.
  const std::string import_day = imported->imported_at.substr(0, 10);
  auto undate = [&](std::string text) {
    for (size_t at; (at = text.find(import_day)) != std::string::npos;)
      text.replace(at, import_day.size(), "IMPORT-DAY");
    return text;
  };
  SnapshotData usage;
  usage.kind = SnapshotKind::kUsage;
  usage.source = "usage-eastus.json";
  usage.usage = {
      {"eastus", "", "Total Regional vCPUs", 350, 100},
      {"eastus", "StandardNCadsH100v5Family", "Standard NCadsH100v5 Family vCPUs", 200, 80},
      {"eastus", "standardNDSH100v5Family", "Standard NDSH100v5 Family vCPUs", 0, 0}};
  ASSERT_TRUE(write_snapshot(db, usage));
  SnapshotData skus;
  skus.kind = SnapshotKind::kSkus;
  skus.source = "skus.json";
  skus.restrictions = {{"Standard_NC80adis_H100_v5", "eastus", "NotAvailableForSubscription", {}}};
  ASSERT_TRUE(write_snapshot(db, skus));

  auto r = run_cli(
      {"--db", db, "catalog", "--gpu", "H100", "--region", "eastus", "--pricing", "reserved-1y"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("catalog_h100_eastus_imported.txt", undate(r.out)), "");
  auto j = nlohmann::json::parse(run_cli({"--db", db, "catalog", "--gpu", "H100", "--region",
                                          "eastus", "--pricing", "reserved-1y", "--json"})
                                     .out);
  ASSERT_EQ(j.size(), 2u);  // NC80adis is restricted
  EXPECT_EQ(j[0]["size"], "Standard_NC40ads_H100_v5");
  EXPECT_EQ(j[0]["usd_per_hour"], 3.0);
  EXPECT_EQ(j[0]["estimated"], false);
  EXPECT_EQ(j[0]["quota_headroom_vcpus"], 120.0);  // min(200-80, 350-100)
  EXPECT_EQ(j[1]["quota_headroom_vcpus"], 0.0);    // ND H100 family limit 0
  auto all = nlohmann::json::parse(run_cli({"--db", db, "catalog", "--gpu", "H100", "--region",
                                            "eastus", "--include-restricted", "--json"})
                                       .out);
  EXPECT_EQ(all.size(), 3u);
}

// Every table fits 100 columns and holds the same rows as --json.
TEST(CatalogCli, WideListingsFit100ColumnsAndMatchJson) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"catalog"},
           {"catalog", "--include-retired", "--pricing", "spot", "--os", "windows"},
           {"catalog", "--pricing", "savings-3y", "--sort", "gpu-price"},
           {"regions"}}) {
    auto r = run_cli(with_empty_db(args));
    ASSERT_EQ(r.code, 0) << r.err;
    size_t start = 0;
    while (start < r.out.size()) {
      size_t end = r.out.find('\n', start);
      if (end == std::string::npos) end = r.out.size();
      EXPECT_LE(end - start, 100u) << r.out.substr(start, end - start);
      start = end + 1;
    }
    if (args[0] != "catalog") continue;
    std::vector<std::string> json_args = args;
    json_args.push_back("--json");
    auto j = nlohmann::json::parse(run_cli(with_empty_db(json_args)).out);
    EXPECT_NE(r.out.find(std::to_string(j.size()) + " row(s)"), std::string::npos)
        << j.size() << "\n"
        << r.out.substr(r.out.size() > 600 ? r.out.size() - 600 : 0);
  }
}

TEST(CatalogCli, HelpHasAnExample) {
  auto r = run_cli({"catalog", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Example: gpuplan catalog"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::e2e
