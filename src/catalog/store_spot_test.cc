// Tests of the store's spot half (schema 2): bands and price points written
// in one snapshot, newest band per (size, region), the newest spot price as
// a listed spot offer unless a retail import has a later date, and the
// upgrade of a schema-1 store.
#include <filesystem>

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include "catalog/store.h"

namespace gpuplan::catalog {
namespace {

namespace fs = std::filesystem;

std::string fresh_db(const std::string& name) {
  fs::path dir = fs::temp_directory_path() /
                 ("gpuplan_store_spot_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return (dir / "catalog.db").string();
}

SnapshotData spot(std::vector<SpotBandRow> bands, std::vector<SpotPriceRow> prices,
                  std::string source) {
  SnapshotData d;
  d.kind = SnapshotKind::kSpot;
  d.source = std::move(source);
  d.spot_bands = std::move(bands);
  d.spot_prices = std::move(prices);
  return d;
}

const Offer* spot_offer(const StoreContents& c, const std::string& size, Os os) {
  for (const Offer& o : c.offers)
    if (o.size == size && o.os == os && o.pricing == Pricing::kSpot) return &o;
  return nullptr;
}

TEST(StoreSpot, NewestBandWinsAndPricesBecomeSpotOffers) {
  const std::string db = fresh_db("newest");
  const std::string a100 = "Standard_NC24ads_A100_v4";
  auto s1 = write_snapshot(db, spot({{a100, "eastus", EvictionBand::k20Plus, "2026-10-01"},
                                     {a100, "westus", EvictionBand::k0To5, "2026-10-01"}},
                                    {{a100, "eastus", Os::kLinux, "2026-09-01", 0.70},
                                     {a100, "eastus", Os::kLinux, "2026-09-20", 0.72}},
                                    "old.json"));
  ASSERT_TRUE(s1) << s1.error().to_string();
  EXPECT_EQ(s1->rows, 4);
  auto s2 =
      write_snapshot(db, spot({{a100, "eastus", EvictionBand::k5To10, "2026-11-30"}},
                              {{a100, "eastus", Os::kWindows, "2026-11-28", 0.91}}, "new.json"));
  ASSERT_TRUE(s2) << s2.error().to_string();
  auto c = read_store(db);
  ASSERT_TRUE(c) << c.error().to_string();
  ASSERT_EQ(c->spot_evictions.size(), 2u);
  EXPECT_EQ(c->spot_evictions[0].region, "eastus");
  EXPECT_EQ(c->spot_evictions[0].band, EvictionBand::k5To10);  // the newer import
  EXPECT_EQ(c->spot_evictions[0].source, "spot: new.json");
  EXPECT_EQ(c->spot_evictions[0].as_of, "2026-11-30");
  EXPECT_EQ(c->spot_evictions[1].band, EvictionBand::k0To5);  // untouched
  const Offer* linux = spot_offer(*c, a100, Os::kLinux);
  ASSERT_NE(linux, nullptr);
  EXPECT_DOUBLE_EQ(*linux->usd_per_hour, 0.72);  // the latest effective date
  EXPECT_EQ(linux->as_of, "2026-09-20");
  EXPECT_NE(linux->source.find("spot: old.json"), std::string::npos);
  ASSERT_NE(spot_offer(*c, a100, Os::kWindows), nullptr);
  auto h = spot_price_history(db, "standard_nc24ads_a100_v4", "eastus");
  ASSERT_TRUE(h);
  ASSERT_EQ(h->size(), 3u);
  EXPECT_EQ((*h)[0].effective_date, "2026-09-01");
  EXPECT_EQ((*h)[2].os, Os::kWindows);
  auto snaps = list_snapshots(db);
  ASSERT_TRUE(snaps);
  EXPECT_EQ((*snaps)[1].kind, SnapshotKind::kSpot);
}

TEST(StoreSpot, ARetailSpotPriceWithALaterDateIsKept) {
  const std::string db = fresh_db("retail");
  const std::string a100 = "Standard_NC24ads_A100_v4";
  SnapshotData retail;
  retail.kind = SnapshotKind::kRetailPrices;
  retail.source = "page.json";
  retail.prices = {{a100, "eastus", Os::kLinux, Pricing::kSpot, 0.80, "2026-12-01"},
                   {a100, "westus", Os::kLinux, Pricing::kSpot, 0.60, "2026-01-01"}};
  ASSERT_TRUE(write_snapshot(db, retail));
  ASSERT_TRUE(write_snapshot(db, spot({},
                                      {{a100, "eastus", Os::kLinux, "2026-11-28", 0.79},
                                       {a100, "westus", Os::kLinux, "2026-11-28", 0.65}},
                                      "arg.json")));
  auto c = read_store(db);
  ASSERT_TRUE(c);
  int spot_offers = 0;
  for (const Offer& o : c->offers) {
    if (o.pricing != Pricing::kSpot) continue;
    ++spot_offers;
    if (o.region == "eastus") {
      EXPECT_DOUBLE_EQ(*o.usd_per_hour, 0.80);  // retail is newer
    } else {
      EXPECT_DOUBLE_EQ(*o.usd_per_hour, 0.65);  // Resource Graph is
    }
  }
  EXPECT_EQ(spot_offers, 2);
}

// The schema gpuplan wrote before spot imports (version 1).
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE snapshots(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('retail-prices', 'skus', 'usage')),
  source TEXT NOT NULL, imported_at TEXT NOT NULL, rows INTEGER NOT NULL DEFAULT 0);
CREATE TABLE prices(
  snapshot INTEGER NOT NULL REFERENCES snapshots(id), size TEXT NOT NULL, region TEXT NOT NULL,
  os TEXT NOT NULL CHECK (os IN ('linux', 'windows')), pricing TEXT NOT NULL,
  usd_per_hour REAL NOT NULL CHECK (usd_per_hour >= 0), as_of TEXT NOT NULL,
  PRIMARY KEY (snapshot, size, region, os, pricing));
CREATE TABLE sku_availability(snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  size TEXT NOT NULL, region TEXT NOT NULL, zones TEXT NOT NULL);
CREATE TABLE sku_restrictions(snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  size TEXT NOT NULL, region TEXT NOT NULL, reason TEXT NOT NULL, zones TEXT NOT NULL);
CREATE TABLE usage(snapshot INTEGER NOT NULL REFERENCES snapshots(id), region TEXT NOT NULL,
  family TEXT NOT NULL, family_display TEXT NOT NULL, quota_limit REAL NOT NULL, used REAL NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1');
INSERT INTO snapshots(kind, source, imported_at, rows) VALUES ('retail-prices', 'v1.json', '2026-10-01T00:00:00Z', 1);
INSERT INTO prices VALUES (1, 'Standard_NC24ads_A100_v4', 'eastus', 'linux', 'payg', 3.5, '2026-09-01');
)sql";

TEST(StoreSpot, ASchemaOneStoreIsReadThenUpgradedOnWrite) {
  const std::string db = fresh_db("v1");
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, kSchemaV1, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
  auto before = read_store(db);
  ASSERT_TRUE(before) << before.error().to_string();
  EXPECT_EQ(before->offers.size(), 1u);
  EXPECT_TRUE(before->spot_evictions.empty());
  auto w = write_snapshot(
      db, spot({{"Standard_NC24ads_A100_v4", "eastus", EvictionBand::k10To15, "2026-11-30"}}, {},
               "spot.json"));
  ASSERT_TRUE(w) << w.error().to_string();
  EXPECT_EQ(w->id, 2);  // ids continue after the copied snapshots
  auto after = read_store(db);
  ASSERT_TRUE(after) << after.error().to_string();
  EXPECT_EQ(after->offers.size(), 1u);  // the v1 price survived the rebuild
  ASSERT_EQ(after->spot_evictions.size(), 1u);
  EXPECT_EQ(after->spot_evictions[0].band, EvictionBand::k10To15);
  auto snaps = list_snapshots(db);
  ASSERT_TRUE(snaps);
  ASSERT_EQ(snaps->size(), 2u);
  EXPECT_EQ((*snaps)[0].source, "v1.json");
  // A retail import still works on the upgraded store (foreign keys intact).
  SnapshotData retail;
  retail.kind = SnapshotKind::kRetailPrices;
  retail.source = "page.json";
  retail.prices = {
      {"Standard_NC24ads_A100_v4", "eastus", Os::kLinux, Pricing::kPayg, 3.6, "2026-11-01"}};
  ASSERT_TRUE(write_snapshot(db, retail));
}

}  // namespace
}  // namespace gpuplan::catalog
