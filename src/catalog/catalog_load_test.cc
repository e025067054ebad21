// Catalog::load: the embedded default overlaid with a store's imports.
// Expected prices worked out by hand from data/catalog/ (NC40ads_H100_v5:
// 40 vCPU, Windows licence $0.046/vCPU-h, default reserved-1y discount 34.6%).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "catalog/store.h"

namespace gpuplan::catalog {
namespace {

std::string temp_db(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("gpuplan_catalog_load_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::filesystem::remove(path);
  return path.string();
}

SnapshotData prices(std::vector<PriceRow> rows) {
  SnapshotData d;
  d.kind = SnapshotKind::kRetailPrices;
  d.source = "test-page.json";
  d.prices = std::move(rows);
  return d;
}

TEST(CatalogLoad, MissingStoreIsTheEmbeddedCatalog) {
  auto c = Catalog::load(temp_db("missing.db"));
  ASSERT_TRUE(c) << c.error().to_string();
  auto e = Catalog::load_embedded();
  EXPECT_EQ((*c)->offers().size(), (*e)->offers().size());
  EXPECT_TRUE((*c)->quotas().empty());
}

TEST(CatalogLoad, ImportedPaygReplacesEmbeddedAndEstimatesFollowIt) {
  const std::string db = temp_db("payg.db");
  ASSERT_TRUE(write_snapshot(db, prices({{"Standard_NC40ads_H100_v5", "eastus", Os::kLinux,
                                          Pricing::kPayg, 7.5, "2026-11-01"}})));
  auto c = Catalog::load(db);
  ASSERT_TRUE(c) << c.error().to_string();
  const Offer* payg = (*c)->offer("NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kPayg);
  ASSERT_NE(payg, nullptr);
  EXPECT_DOUBLE_EQ(*payg->usd_per_hour, 7.5);
  EXPECT_EQ(payg->as_of, "2026-11-01");
  EXPECT_NE(payg->source.find("test-page.json"), std::string::npos) << payg->source;
  // Windows: 7.5 + 0.046 x 40 = 9.34; reserved-1y: 7.5 x 0.654 = 4.905.
  EXPECT_NEAR(*(*c)->offer("NC40ads_H100_v5", "eastus", Os::kWindows, Pricing::kPayg)->usd_per_hour,
              9.34, 1e-9);
  EXPECT_NEAR(
      *(*c)->offer("NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kReserved1y)->usd_per_hour,
      4.905, 1e-9);
  // Other regions keep the embedded price.
  EXPECT_DOUBLE_EQ(
      *(*c)->offer("NC40ads_H100_v5", "eastus2", Os::kLinux, Pricing::kPayg)->usd_per_hour, 6.98);
}

// A store written before sovereign-cloud items were left out at import
// still holds their prices: they are not read back (a US Gov spot price
// once ranked first in a public-cloud plan).
TEST(CatalogLoad, SovereignCloudPricesInAnOlderStoreAreNotRead) {
  const std::string db = temp_db("sovereign.db");
  ASSERT_TRUE(write_snapshot(db, prices({{"Standard_NC40ads_H100_v5", "usgovvirginia", Os::kLinux,
                                          Pricing::kSpot, 0.9, "2026-11-01"},
                                         {"Standard_NC40ads_H100_v5", "chinaeast2", Os::kLinux,
                                          Pricing::kPayg, 5.0, "2026-11-01"},
                                         {"Standard_NC40ads_H100_v5", "eastus", Os::kLinux,
                                          Pricing::kPayg, 7.5, "2026-11-01"}})));
  auto c = Catalog::load(db);
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ((*c)->offer("NC40ads_H100_v5", "usgovvirginia", Os::kLinux, Pricing::kSpot), nullptr);
  EXPECT_EQ((*c)->offer("NC40ads_H100_v5", "chinaeast2", Os::kLinux, Pricing::kPayg), nullptr);
  ASSERT_NE((*c)->offer("NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kPayg), nullptr);
  for (const std::string& r : (*c)->regions()) {
    EXPECT_NE(r.rfind("usgov", 0), 0u) << r;
    EXPECT_NE(r.rfind("china", 0), 0u) << r;
  }
}

TEST(CatalogLoad, ImportedReservationReplacesTheEstimate) {
  const std::string db = temp_db("ri.db");
  // A Reservation of $26,280 for 3 years is $1/h; the importer stores hourly prices.
  ASSERT_TRUE(write_snapshot(db, prices({{"Standard_NC40ads_H100_v5", "eastus", Os::kLinux,
                                          Pricing::kReserved1y, 3.0, "2026-11-01"},
                                         {"Standard_NoSuchSize_v9", "eastus", Os::kLinux,
                                          Pricing::kPayg, 1.0, "2026-11-01"}})));
  auto c = Catalog::load(db);
  ASSERT_TRUE(c) << c.error().to_string();
  const Offer* ri = (*c)->offer("NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kReserved1y);
  ASSERT_NE(ri, nullptr);
  EXPECT_FALSE(ri->estimated);
  EXPECT_DOUBLE_EQ(*ri->usd_per_hour, 3.0);
  // Windows reserved builds on the listed Linux one: 3.0 + 0.046 x 40 = 4.84.
  const Offer* win = (*c)->offer("NC40ads_H100_v5", "eastus", Os::kWindows, Pricing::kReserved1y);
  EXPECT_TRUE(win->estimated);
  EXPECT_NEAR(*win->usd_per_hour, 4.84, 1e-9);
  // Sizes the embedded data does not know are ignored.
  EXPECT_EQ((*c)->find_size("Standard_NoSuchSize_v9"), nullptr);
  EXPECT_EQ((*c)->offer("Standard_NoSuchSize_v9", "eastus", Os::kLinux, Pricing::kPayg), nullptr);
}

TEST(CatalogLoad, UsageAndSkusBecomeQueryable) {
  const std::string db = temp_db("quota.db");
  SnapshotData usage;
  usage.kind = SnapshotKind::kUsage;
  usage.source = "usage.json";
  usage.usage = {
      {"eastus", "", "Total Regional vCPUs", 200, 20},
      {"eastus", "StandardNCadsH100v5Family", "Standard NCadsH100v5 Family vCPUs", 100, 60},
      {"eastus", "lowPriorityCores", "Total Regional Spot vCPUs", 50, 45}};
  ASSERT_TRUE(write_snapshot(db, usage));
  SnapshotData skus;
  skus.kind = SnapshotKind::kSkus;
  skus.source = "skus.json";
  skus.availability = {{"Standard_NC40ads_H100_v5", "eastus", {"1", "2", "3"}}};
  skus.restrictions = {{"Standard_NC80adis_H100_v5", "eastus", "NotAvailableForSubscription", {}}};
  ASSERT_TRUE(write_snapshot(db, skus));

  auto c = Catalog::load(db);
  ASSERT_TRUE(c) << c.error().to_string();
  const VmSize* s = (*c)->find_size("NC40ads_H100_v5");
  EXPECT_EQ((*c)->quota_headroom_vcpus(*s, "eastus", false), 40);  // min(100-60, 200-20)
  EXPECT_EQ((*c)->quota_headroom_vcpus(*s, "eastus", true), 5);    // min(50-45, 180)
  EXPECT_EQ((*c)->quota_headroom_vcpus(*s, "westus", false), std::nullopt);
  EXPECT_TRUE((*c)->restricted("Standard_NC80adis_H100_v5", "eastus"));
  EXPECT_EQ((*c)->zones("Standard_NC40ads_H100_v5", "eastus"),
            (std::vector<std::string>{"1", "2", "3"}));

  CatalogQuery q;
  q.gpu = "H100";
  q.regions = {"eastus"};
  auto rows = (*c)->query(q);
  ASSERT_TRUE(rows);
  for (const CatalogRow& r : *rows) EXPECT_NE(r.size->name, "Standard_NC80adis_H100_v5");
  q.include_restricted = true;
  rows = (*c)->query(q);
  bool seen = false;
  for (const CatalogRow& r : *rows) seen = seen || r.restricted;
  EXPECT_TRUE(seen);
}

TEST(CatalogLoad, UnreadableStoreIsUnavailable) {
  const std::string db = temp_db("garbage.db");
  {
    FILE* f = std::fopen(db.c_str(), "w");
    std::fputs("this is not a sqlite database, just text that is long enough to matter\n", f);
    std::fclose(f);
  }
  auto c = Catalog::load(db);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace gpuplan::catalog
