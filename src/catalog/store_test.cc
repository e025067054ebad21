// Tests of the SQLite store: newest-wins, history, atomicity under kill -9,
// and errors for unwritable or foreign files.
#include "catalog/store.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpuplan::catalog {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("gpuplan_store_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

SnapshotData prices(std::vector<PriceRow> rows, std::string source = "page.json") {
  SnapshotData d;
  d.kind = SnapshotKind::kRetailPrices;
  d.source = std::move(source);
  d.prices = std::move(rows);
  return d;
}

const Offer* find_offer(const StoreContents& c, const std::string& size, const std::string& region,
                        Os os, Pricing p) {
  for (const Offer& o : c.offers)
    if (o.size == size && o.region == region && o.os == os && o.pricing == p) return &o;
  return nullptr;
}

TEST(Store, DefaultPathFollowsXdgDataHome) {
  const char* old_xdg = std::getenv("XDG_DATA_HOME");
  std::string saved = old_xdg ? old_xdg : "";
  const char* old_home = std::getenv("HOME");
  std::string saved_home = old_home ? old_home : "";
  ::setenv("XDG_DATA_HOME", "/data/x", 1);
  EXPECT_EQ(default_store_path(), "/data/x/gpuplan/catalog.db");
  ::unsetenv("XDG_DATA_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(default_store_path(), "/home/u/.local/share/gpuplan/catalog.db");
  if (old_xdg) ::setenv("XDG_DATA_HOME", saved.c_str(), 1);
  if (old_home) ::setenv("HOME", saved_home.c_str(), 1);
}

TEST(Store, MissingFileReadsAsEmpty) {
  std::string dir = fresh_dir("missing");
  auto c = read_store(dir + "/nope.db");
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_TRUE(c->offers.empty());
  EXPECT_TRUE(c->quotas.empty());
  EXPECT_FALSE(fs::exists(dir + "/nope.db"));  // reading never creates it
}

TEST(Store, NewestSnapshotWinsAndHistoryKeepsOlder) {
  std::string db = fresh_dir("newest") + "/sub/dir/catalog.db";  // parent dirs created
  auto s1 = write_snapshot(db, prices({{"Standard_NC24ads_A100_v4", "eastus", Os::kLinux,
                                        Pricing::kPayg, 3.673, "2024-03-01"},
                                       {"Standard_NC24ads_A100_v4", "eastus", Os::kLinux,
                                        Pricing::kReserved1y, 2.5, "2024-03-01"}},
                                      "old.json"));
  ASSERT_TRUE(s1) << s1.error().to_string();
  // The newer import carries an OLDER effective date: the newest import still wins.
  auto s2 = write_snapshot(db, prices({{"Standard_NC24ads_A100_v4", "eastus", Os::kLinux,
                                        Pricing::kPayg, 3.5, "2023-01-01"}},
                                      "new.json"));
  ASSERT_TRUE(s2) << s2.error().to_string();
  EXPECT_GT(s2->id, s1->id);
  EXPECT_EQ(s2->rows, 1);
  EXPECT_EQ(s2->imported_at.size(), 20u);  // 2026-12-02T09:55:01Z

  auto c = read_store(db);
  ASSERT_TRUE(c) << c.error().to_string();
  ASSERT_EQ(c->offers.size(), 2u);
  const Offer* payg =
      find_offer(*c, "Standard_NC24ads_A100_v4", "eastus", Os::kLinux, Pricing::kPayg);
  ASSERT_NE(payg, nullptr);
  EXPECT_DOUBLE_EQ(*payg->usd_per_hour, 3.5);
  const std::string day2 = s2->imported_at.substr(0, 10);
  EXPECT_EQ(payg->source, "Azure Retail Prices API, imported " + day2 + " (new.json)");
  EXPECT_EQ(payg->retrieved, day2);  // a price's age counts from its import
  EXPECT_EQ(payg->as_of, "2023-01-01");
  EXPECT_FALSE(payg->estimated);
  const Offer* ri =
      find_offer(*c, "Standard_NC24ads_A100_v4", "eastus", Os::kLinux, Pricing::kReserved1y);
  ASSERT_NE(ri, nullptr);  // untouched by the second import
  EXPECT_DOUBLE_EQ(*ri->usd_per_hour, 2.5);
  EXPECT_EQ(ri->source,
            "Azure Retail Prices API, imported " + s1->imported_at.substr(0, 10) + " (old.json)");

  auto h = price_history(db, "standard_nc24ads_a100_v4", "eastus");  // case-insensitive size
  ASSERT_TRUE(h) << h.error().to_string();
  ASSERT_EQ(h->size(), 3u);
  // Oldest snapshot first: old payg (superseded), old reserved (still wins), new payg.
  EXPECT_EQ((*h)[0].snapshot, s1->id);
  EXPECT_EQ((*h)[0].pricing, Pricing::kPayg);
  EXPECT_FALSE((*h)[0].wins);
  EXPECT_EQ((*h)[1].pricing, Pricing::kReserved1y);
  EXPECT_TRUE((*h)[1].wins);
  EXPECT_EQ((*h)[2].snapshot, s2->id);
  EXPECT_DOUBLE_EQ((*h)[2].usd_per_hour, 3.5);
  EXPECT_TRUE((*h)[2].wins);

  auto snaps = list_snapshots(db);
  ASSERT_TRUE(snaps);
  ASSERT_EQ(snaps->size(), 2u);
  EXPECT_EQ((*snaps)[0].source, "old.json");
  EXPECT_EQ((*snaps)[1].kind, SnapshotKind::kRetailPrices);
}

TEST(Store, NewestSkusSnapshotReplacesRestrictionsAsAWhole) {
  std::string db = fresh_dir("skus") + "/catalog.db";
  SnapshotData a;
  a.kind = SnapshotKind::kSkus;
  a.source = "skus-1.json";
  a.availability = {{"Standard_ND96isr_H100_v5", "eastus", {"1", "2", "3"}}};
  a.restrictions = {{"Standard_ND96isr_H100_v5", "eastus", "NotAvailableForSubscription", {}}};
  ASSERT_TRUE(write_snapshot(db, a));
  auto c = read_store(db);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->restrictions.size(), 1u);
  EXPECT_TRUE(c->restrictions[0].zones.empty());
  ASSERT_EQ(c->availability.size(), 1u);
  EXPECT_EQ(c->availability[0].zones, (std::vector<std::string>{"1", "2", "3"}));

  // The restriction was lifted: the next list-skus has none.
  SnapshotData b = a;
  b.source = "skus-2.json";
  b.restrictions = {{"Standard_NC40ads_H100_v5", "eastus", "NotAvailableForSubscription", {"3"}}};
  ASSERT_TRUE(write_snapshot(db, b));
  c = read_store(db);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->restrictions.size(), 1u);
  EXPECT_EQ(c->restrictions[0].size, "Standard_NC40ads_H100_v5");
  EXPECT_EQ(c->restrictions[0].zones, (std::vector<std::string>{"3"}));
}

TEST(Store, QuotaNewestPerRegionAndFamily) {
  std::string db = fresh_dir("quota") + "/catalog.db";
  SnapshotData a;
  a.kind = SnapshotKind::kUsage;
  a.source = "usage-eastus.json";
  a.usage = {
      {"eastus", "", "Total Regional vCPUs", 100, 29},
      {"eastus", "StandardNCADSA100v4Family", "Standard NCADS_A100_v4 Family vCPUs", 48, 24}};
  ASSERT_TRUE(write_snapshot(db, a));
  SnapshotData b;
  b.kind = SnapshotKind::kUsage;
  b.source = "usage-westeurope.json";
  b.usage = {{"westeurope", "", "Total Regional vCPUs", 200, 0}};
  ASSERT_TRUE(write_snapshot(db, b));
  SnapshotData c2 = a;
  c2.usage = {{"eastus", "", "Total Regional vCPUs", 350, 30}};
  ASSERT_TRUE(write_snapshot(db, c2));
  auto c = read_store(db);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->quotas.size(), 3u);
  // Sorted by region then family: eastus "", eastus A100 family, westeurope "".
  EXPECT_EQ(c->quotas[0].region, "eastus");
  EXPECT_EQ(c->quotas[0].family, "");
  EXPECT_DOUBLE_EQ(c->quotas[0].limit, 350);
  EXPECT_DOUBLE_EQ(c->quotas[0].used, 30);
  EXPECT_EQ(c->quotas[1].family, "StandardNCADSA100v4Family");
  EXPECT_DOUBLE_EQ(c->quotas[1].limit, 48);
  EXPECT_EQ(c->quotas[1].source, "list-usage: usage-eastus.json");
  EXPECT_EQ(c->quotas[2].region, "westeurope");
}

// A store edited or damaged outside gpuplan: the values read back are held
// to the importers' rules (a number, finite, 0 to the most Azure charges),
// and a value that breaks them is an error naming the file, the column and
// the row. They were trusted: text read as 0 USD, -5 gave a negative month
// and 1e308 "inf USD", all with exit 0 (trial_b item 10).
TEST(Store, TamperedValuesAreAnErrorNamingTheRow) {
  const std::string db = fresh_dir("tampered") + "/catalog.db";
  ASSERT_TRUE(write_snapshot(db, prices({{"Standard_NC24ads_A100_v4", "eastus", Os::kLinux,
                                          Pricing::kPayg, 3.673, "2024-03-01"}})));
  SnapshotData u;
  u.kind = SnapshotKind::kUsage;
  u.source = "usage.json";
  u.usage = {
      {"eastus", "StandardNCADSA100v4Family", "Standard NCADS_A100_v4 Family vCPUs", 48, 24}};
  ASSERT_TRUE(write_snapshot(db, u));
  ASSERT_TRUE(read_store(db));
  const auto set = [&](const std::string& sql) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    sqlite3_close(h);
  };
  for (const char* bad : {"'abc'", "-5", "1e308", "X'00'"}) {
    set(std::string("UPDATE price_latest SET usd_per_hour = ") + bad);
    auto c = read_store(db);
    ASSERT_FALSE(c) << bad;
    EXPECT_EQ(c.error().code, ErrorCode::kInvalidArgument) << bad;
    EXPECT_EQ(c.error().where.file, db);
    EXPECT_EQ(c.error().where.field, "price_latest.usd_per_hour");
    EXPECT_NE(c.error().message.find("Standard_NC24ads_A100_v4 eastus linux payg holds"),
              std::string::npos)
        << c.error().message;
  }
  set("UPDATE price_latest SET usd_per_hour = 3.673");
  set("UPDATE prices SET usd_per_hour = 'free'");  // the history keeps its own copy
  auto h = price_history(db, "Standard_NC24ads_A100_v4", "eastus");
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().where.field, "prices.usd_per_hour");
  EXPECT_NE(h.error().message.find("'free'"), std::string::npos) << h.error().message;
  set("UPDATE prices SET usd_per_hour = 3.673");
  set("UPDATE usage SET quota_limit = -48");
  auto q = read_store(db);
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().where.field, "usage.quota_limit");
  EXPECT_NE(q.error().message.find("eastus StandardNCADSA100v4Family"), std::string::npos);
  set("UPDATE usage SET quota_limit = 48");
  auto ok = read_store(db);  // mended: read as imported
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_DOUBLE_EQ(
      *find_offer(*ok, "Standard_NC24ads_A100_v4", "eastus", Os::kLinux, Pricing::kPayg)
           ->usd_per_hour,
      3.673);
}

TEST(Store, NotWritableIsUnavailable) {
  std::string dir = fresh_dir("ro");
  std::ofstream(dir + "/file") << "x";
  auto r = write_snapshot(dir + "/file/catalog.db",
                          prices({{"S", "eastus", Os::kLinux, Pricing::kPayg, 1, "2024-01-01"}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("store not writable"), std::string::npos) << r.error().message;
}

TEST(Store, ForeignFileIsUnavailableNotClobbered) {
  std::string dir = fresh_dir("foreign");
  std::string path = dir + "/catalog.db";
  std::ofstream(path) << "this is not a database, it is a grocery list\n";
  auto r = read_store(path);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  auto w = write_snapshot(path, prices({{"S", "eastus", Os::kLinux, Pricing::kPayg, 1, "x"}}));
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::kUnavailable);
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "this is not a database, it is a grocery list");
}

TEST(Store, NegativePriceIsRejectedAndNothingWritten) {
  std::string db = fresh_dir("neg") + "/catalog.db";
  auto r = write_snapshot(db, prices({{"A", "eastus", Os::kLinux, Pricing::kPayg, 1, "d"},
                                      {"B", "eastus", Os::kLinux, Pricing::kPayg, -1, "d"}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  auto c = read_store(db);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->offers.empty());
  auto snaps = list_snapshots(db);
  ASSERT_TRUE(snaps);
  EXPECT_TRUE(snaps->empty());  // the snapshot row was rolled back too
}

TEST(Store, BlankFileReadsAsEmptyAndTakesAnImport) {
  // What a first import killed before its schema committed leaves behind.
  std::string db = fresh_dir("blank") + "/catalog.db";
  std::ofstream(db).close();
  auto c = read_store(db);
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_TRUE(c->offers.empty());
  ASSERT_TRUE(write_snapshot(db, prices({{"S", "eastus", Os::kLinux, Pricing::kPayg, 1, "d"}})));
  c = read_store(db);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->offers.size(), 1u);
}

TEST(Store, OtherProgramsSqliteFileIsRefusedAndUntouched) {
  std::string db = fresh_dir("othersqlite") + "/other.db";
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE notes(x TEXT)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
  auto w = write_snapshot(db, prices({{"S", "eastus", Os::kLinux, Pricing::kPayg, 1, "d"}}));
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(w.error().message.find("not a gpuplan store"), std::string::npos) << w.error().message;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_master", -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 1);  // still only its own table
  sqlite3_finalize(st);
  sqlite3_close(h);
}

// kill -9 in the middle of an import: the child pauses inside the open
// transaction (test hook), the parent checks that readers see only the
// previous state, kills the child, and checks again and that the file is
// intact and writable.
TEST(Store, KillNineMidImportLeavesPreviousState) {
  std::string dir = fresh_dir("kill");
  std::string db = dir + "/catalog.db";
  std::string marker = dir + "/paused";
  ASSERT_TRUE(write_snapshot(db, prices({{"Standard_NC24ads_A100_v4", "eastus", Os::kLinux,
                                          Pricing::kPayg, 3.673, "2024-03-01"}},
                                        "baseline.json")));
  SnapshotData big;
  big.kind = SnapshotKind::kRetailPrices;
  big.source = "big.json";
  for (int i = 0; i < 20000; ++i)
    big.prices.push_back({"Standard_NC24ads_A100_v4", "region" + std::to_string(i), Os::kLinux,
                          Pricing::kPayg, 1.0 + i, "2025-01-01"});
  big.prices.push_back(
      {"Standard_NC24ads_A100_v4", "eastus", Os::kLinux, Pricing::kPayg, 9.99, "2025-01-01"});

  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::setenv("GPUPLAN_TEST_PAUSE_IN_IMPORT", marker.c_str(), 1);
    auto r = write_snapshot(db, big);
    ::_exit(r ? 0 : 1);  // not reached within the test: it is killed while paused
  }
  bool paused = false;
  for (int i = 0; i < 400 && !paused; ++i) {
    paused = fs::exists(marker);
    if (!paused) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(paused) << "child never reached the pause point";

  // A reader during the open transaction sees the previous import only.
  auto during = read_store(db);
  ASSERT_TRUE(during) << during.error().to_string();
  ASSERT_EQ(during->offers.size(), 1u);
  EXPECT_DOUBLE_EQ(*during->offers[0].usd_per_hour, 3.673);

  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  auto after = read_store(db);
  ASSERT_TRUE(after) << after.error().to_string();
  ASSERT_EQ(after->offers.size(), 1u);
  EXPECT_DOUBLE_EQ(*after->offers[0].usd_per_hour, 3.673);
  EXPECT_NE(after->offers[0].source.find("(baseline.json)"), std::string::npos);
  auto snaps = list_snapshots(db);
  ASSERT_TRUE(snaps);
  ASSERT_EQ(snaps->size(), 1u);

  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  sqlite3_close(h);

  // The killed writer's lock is gone: the next import goes through.
  auto next = write_snapshot(db, prices({{"Standard_NC24ads_A100_v4", "eastus", Os::kLinux,
                                          Pricing::kPayg, 3.5, "2025-02-01"}},
                                        "next.json"));
  ASSERT_TRUE(next) << next.error().to_string();
  auto last = read_store(db);
  ASSERT_TRUE(last);
  ASSERT_EQ(last->offers.size(), 1u);
  EXPECT_DOUBLE_EQ(*last->offers[0].usd_per_hour, 3.5);
}

TEST(Store, DamagedPagesAreAnErrorNotFewerPrices) {
  // A store whose price pages were overwritten (a disk error, a bad copy):
  // the read loops took SQLITE_CORRUPT for the end of the rows and returned
  // the prices before the damage as if they were all.
  const std::string db = fresh_dir("damaged") + "/catalog.db";
  std::vector<PriceRow> rows;
  for (int i = 0; i < 3000; ++i)
    rows.push_back({"Standard_NC24ads_A100_v4", "region" + std::to_string(i), Os::kLinux,
                    Pricing::kPayg, 3.0 + i * 1e-3, "2025-01-01"});
  ASSERT_TRUE(write_snapshot(db, prices(rows)));
  auto whole = read_store(db);
  ASSERT_TRUE(whole) << whole.error().to_string();
  ASSERT_EQ(whole->offers.size(), 3000u);
  ASSERT_FALSE(fs::exists(db + "-wal") && fs::file_size(db + "-wal") > 0);
  const auto size = fs::file_size(db);
  ASSERT_GT(size, 16u * 4096);
  {
    // Pages in the second half of the file: the prices table's leaves.
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    const std::string junk(4 * 4096, '\xA5');
    f.seekp(static_cast<std::streamoff>(size / 2 / 4096 * 4096));
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  auto damaged = read_store(db);
  ASSERT_FALSE(damaged) << damaged->offers.size() << " offers read from a damaged store";
  EXPECT_NE(damaged.error().to_string().find(db), std::string::npos) << damaged.error().to_string();
}

}  // namespace
}  // namespace gpuplan::catalog

namespace gpuplan::catalog {
namespace {

// A store written by schema 1 (no price_latest) reads the same newest prices
// with the fallback query, and its next import migrates it to schema 3.
TEST(Store, SchemaOneStoreIsReadAndMigrated) {
  std::string db = fresh_dir("schema1") + "/catalog.db";
  const std::string size = "Standard_NC24ads_A100_v4";
  ASSERT_TRUE(write_snapshot(db, prices({{size, "eastus", Os::kLinux, Pricing::kPayg, 3.0, "d"},
                                         {size, "westus", Os::kLinux, Pricing::kPayg, 4.0, "d"}},
                                        "a.json")));
  ASSERT_TRUE(write_snapshot(
      db, prices({{size, "eastus", Os::kLinux, Pricing::kPayg, 3.5, "d"}}, "b.json")));
  // Turn it into what gpuplan wrote before price_latest existed.
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h,
                         "DROP TABLE price_latest; UPDATE meta SET value = '1' "
                         "WHERE key = 'schema_version'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(h);
  auto check = [&](double eastus, double westus) {
    auto c = read_store(db);
    ASSERT_TRUE(c) << c.error().to_string();
    ASSERT_EQ(c->offers.size(), 2u);
    EXPECT_DOUBLE_EQ(*find_offer(*c, size, "eastus", Os::kLinux, Pricing::kPayg)->usd_per_hour,
                     eastus);
    EXPECT_DOUBLE_EQ(*find_offer(*c, size, "westus", Os::kLinux, Pricing::kPayg)->usd_per_hour,
                     westus);
  };
  check(3.5, 4.0);  // fallback query
  ASSERT_TRUE(write_snapshot(
      db, prices({{size, "westus", Os::kLinux, Pricing::kPayg, 4.5, "d"}}, "c.json")));
  check(3.5, 4.5);  // migrated: price_latest filled from the history, then updated
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &q, nullptr),
      SQLITE_OK);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)), "4");
  sqlite3_finalize(q);
  sqlite3_close(h);
  // History still has every snapshot, the newest marked in use.
  auto hist = price_history(db, size, "eastus");
  ASSERT_TRUE(hist);
  ASSERT_EQ(hist->size(), 2u);
  EXPECT_FALSE((*hist)[0].wins);
  EXPECT_TRUE((*hist)[1].wins);
}

TEST(Store, BlobPricesNewestImportPerRegionTierAndRedundancy) {
  std::string db = fresh_dir("blob") + "/catalog.db";
  SnapshotData first;
  first.kind = SnapshotKind::kRetailPrices;
  first.source = "storage-a.json";
  first.blob_prices = {{"eastus2", "hot", "LRS", 0, 0.0184, "2017-02-03"},
                       {"eastus2", "hot", "LRS", 51200, 0.0177, "2017-02-03"},
                       {"eastus2", "cool", "LRS", 0, 0.01, "2017-02-03"}};
  ASSERT_TRUE(write_snapshot(db, first));
  SnapshotData second = first;
  second.source = "storage-b.json";
  second.blob_prices = {{"eastus2", "hot", "LRS", 0, 0.02, "2026-06-01"}};
  ASSERT_TRUE(write_snapshot(db, second));
  auto c = read_store(db);
  ASSERT_TRUE(c) << c.error().to_string();
  ASSERT_EQ(c->blob_prices.size(), 2u);
  const BlobPrice* hot = nullptr;
  const BlobPrice* cool = nullptr;
  for (const BlobPrice& b : c->blob_prices) (b.tier == "hot" ? hot : cool) = &b;
  ASSERT_TRUE(hot && cool);
  // The newer import replaces the hot tier as a whole (its one band), and
  // leaves cool, which it did not list, as the first import had it.
  ASSERT_EQ(hot->bands.size(), 1u);
  EXPECT_DOUBLE_EQ(hot->bands[0].usd_per_gb_month, 0.02);
  EXPECT_EQ(hot->as_of, "2026-06-01");
  EXPECT_NE(hot->source.find("storage-b.json"), std::string::npos);
  EXPECT_DOUBLE_EQ(cool->bands[0].usd_per_gb_month, 0.01);
  EXPECT_NE(cool->source.find("storage-a.json"), std::string::npos);
}

TEST(Store, SchemaThreeStoreGainsTheBlobTableOnTheNextImport) {
  std::string db = fresh_dir("schema3") + "/catalog.db";
  const std::string size = "Standard_NC24ads_A100_v4";
  ASSERT_TRUE(write_snapshot(
      db, prices({{size, "eastus", Os::kLinux, Pricing::kPayg, 3.0, "d"}}, "a.json")));
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h,
                         "DROP TABLE blob_prices; UPDATE meta SET value = '3' "
                         "WHERE key = 'schema_version'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(h);
  auto before = read_store(db);  // read as is
  ASSERT_TRUE(before) << before.error().to_string();
  EXPECT_TRUE(before->blob_prices.empty());
  SnapshotData blob;
  blob.kind = SnapshotKind::kRetailPrices;
  blob.source = "storage.json";
  blob.blob_prices = {{"eastus", "hot", "LRS", 0, 0.0208, "2017-02-03"}};
  ASSERT_TRUE(write_snapshot(db, blob));
  auto after = read_store(db);
  ASSERT_TRUE(after) << after.error().to_string();
  ASSERT_EQ(after->blob_prices.size(), 1u);
  EXPECT_EQ(after->offers.size(), 1u);  // the VM price is still there
}

}  // namespace
}  // namespace gpuplan::catalog
