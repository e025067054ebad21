// The SQLite store of imported Azure data.
//
// Problem: users feed gpuplan Azure's own outputs (Retail Prices API pages,
// `az vm list-skus`, `az vm list-usage`) over weeks; each import must be
// all-or-nothing (a kill -9 in the middle leaves the previous state), readers
// must never see half an import, and older prices must stay as history.
//
// Approach: one SQLite file in WAL mode. Every import is one snapshot row
// plus its data rows, written inside ONE `BEGIN IMMEDIATE` transaction. WAL
// gives readers the last committed state while a writer is busy and, after a
// crash, SQLite ignores uncommitted WAL frames, so a killed import simply
// never happened. Nothing is ever updated in place: "the current state" is a
// query — the row from the newest snapshot (largest id, i.e. the latest
// import, as DESIGN.md says "among listed prices the newest import wins") per
// (size, region, os, pricing) for prices, per (region, family) for quota, and
// the newest skus snapshot as a whole for availability and restrictions
// (list-skus is always a full listing, so a restriction that was lifted must
// disappear).
//
// Price history at speed: "the newest price per key" is kept as a table,
// price_latest (one row per size, region, OS and pricing, WITHOUT ROWID,
// keyed on exactly that), updated by an UPSERT in the same transaction that
// writes a snapshot's rows. A command then reads only the current prices
// (~15 k rows for the whole GPU price list) however long the history is,
// with one query: no per-row rescans. The old correlated MAX(snapshot) query
// could not use the NOCASE index and rescanned the whole history per row:
// 10 k rows took 5.5 s per command, 300 k did not finish in 10 minutes
// (bench/store_scale.sh measures the new curve). Stores written by an older
// gpuplan (schema 1, no price_latest) are read with one GROUP BY pass and
// migrated by the next import.
//
// Trade-offs: each imported price costs one more B-tree write (the UPSERT),
// noise next to parsing; synchronous=FULL costs an fsync per import.
#include "catalog/store.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include <sqlite3.h>
#include <unistd.h>

#include "core/strings.h"

namespace gpuplan::catalog {
namespace {

// 2 added the spot tables and the 'spot' snapshot kind; 3 price_latest (the
// newest price per key, maintained by every import). Stores of 1 and 2 are
// read as they are (each reader checks its table exists) and upgraded to 3
// by the next import (upgrade_schema()).
constexpr int kSchemaVersion = 3;
constexpr int kOldestReadableSchema = 1;
constexpr int kBusyTimeoutMs = 5000;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('retail-prices', 'skus', 'usage', 'spot')),
  source TEXT NOT NULL,
  imported_at TEXT NOT NULL,
  rows INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS prices(
  snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  size TEXT NOT NULL,
  region TEXT NOT NULL,
  os TEXT NOT NULL CHECK (os IN ('linux', 'windows')),
  pricing TEXT NOT NULL,
  usd_per_hour REAL NOT NULL CHECK (usd_per_hour >= 0),
  as_of TEXT NOT NULL,
  PRIMARY KEY (snapshot, size, region, os, pricing));
CREATE INDEX IF NOT EXISTS prices_by_key ON prices(size COLLATE NOCASE, region, os, pricing, snapshot);
CREATE TABLE IF NOT EXISTS sku_availability(
  snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  size TEXT NOT NULL,
  region TEXT NOT NULL,
  zones TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sku_restrictions(
  snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  size TEXT NOT NULL,
  region TEXT NOT NULL,
  reason TEXT NOT NULL,
  zones TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS usage(
  snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  region TEXT NOT NULL,
  family TEXT NOT NULL,
  family_display TEXT NOT NULL,
  quota_limit REAL NOT NULL,
  used REAL NOT NULL);
CREATE INDEX IF NOT EXISTS usage_by_key ON usage(region, family, snapshot);
)sql";

// The spot import's tables (schema version 2): Azure Resource Graph
// SpotResources eviction bands and spot price history points.
constexpr const char* kSpotSchema = R"sql(
CREATE TABLE IF NOT EXISTS spot_bands(
  snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  size TEXT NOT NULL,
  region TEXT NOT NULL,
  band TEXT NOT NULL CHECK (band IN ('0-5', '5-10', '10-15', '15-20', '20+')),
  as_of TEXT NOT NULL,
  PRIMARY KEY (snapshot, size, region));
CREATE INDEX IF NOT EXISTS spot_bands_by_key ON spot_bands(size, region, snapshot);
CREATE TABLE IF NOT EXISTS spot_prices(
  snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  size TEXT NOT NULL,
  region TEXT NOT NULL,
  os TEXT NOT NULL CHECK (os IN ('linux', 'windows')),
  effective_date TEXT NOT NULL,
  usd_per_hour REAL NOT NULL CHECK (usd_per_hour >= 0),
  PRIMARY KEY (snapshot, size, region, os, effective_date));
CREATE INDEX IF NOT EXISTS spot_prices_by_key ON spot_prices(size COLLATE NOCASE, region, os, snapshot);
)sql";

// Rows use the shared vocabulary: to_string() / parse_pricing() / parse_os().

// ---- A minimal RAII layer over the SQLite C API --------------------------

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;

struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

tl::unexpected<Error> db_error(sqlite3* db, const std::string& path, const std::string& what) {
  std::string msg = what;
  if (db != nullptr) msg += ": " + std::string(sqlite3_errmsg(db));
  return unavailable(msg, Where{path});
}

Status exec(sqlite3* db, const std::string& path, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err != nullptr ? err : "unknown SQLite error";
    sqlite3_free(err);
    return unavailable("store: " + msg, Where{path});
  }
  return {};
}

Result<StmtPtr> prepare(sqlite3* db, const std::string& path, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK)
    return db_error(db, path, "store: cannot prepare a query (is this a gpuplan store?)");
  return StmtPtr(raw);
}

void bind_text(sqlite3_stmt* s, int i, std::string_view v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t != nullptr ? std::string(reinterpret_cast<const char*>(t)) : std::string();
}

std::string join(const std::vector<std::string>& v, char sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out.push_back(sep);
    out += v[i];
  }
  return out;
}

std::vector<std::string> split_nonempty(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  for (auto& part : strings::split(s, sep))
    if (!part.empty()) out.push_back(part);
  return out;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<SnapshotKind> parse_kind(const std::string& s) {
  if (s == "retail-prices") return SnapshotKind::kRetailPrices;
  if (s == "skus") return SnapshotKind::kSkus;
  if (s == "usage") return SnapshotKind::kUsage;
  if (s == "spot") return SnapshotKind::kSpot;
  return internal_error("store: unknown snapshot kind '" + s + "'");
}

// Number of tables in the file; kUnavailable when it is not a SQLite
// database at all.
Result<int> table_count(sqlite3* db, const std::string& path) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", -1, &raw,
                         nullptr) != SQLITE_OK)
    return db_error(db, path, "not a gpuplan store");
  StmtPtr q(raw);
  if (sqlite3_step(q.get()) != SQLITE_ROW) return db_error(db, path, "not a gpuplan store");
  return sqlite3_column_int(q.get(), 0);
}

Result<bool> has_table(sqlite3* db, const std::string& path, const char* name) {
  GPUPLAN_TRY(StmtPtr q,
              prepare(db, path, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"));
  bind_text(q.get(), 1, name);
  return sqlite3_step(q.get()) == SQLITE_ROW;
}

Status ensure_price_latest(sqlite3* db, const std::string& path);

// Schema 1 or 2 -> 3, in one transaction (a kill leaves the old schema
// intact). Without the spot tables, the snapshots table's CHECK gains 'spot'
// (SQLite cannot alter a CHECK, so the table is rebuilt as its documented
// ALTER TABLE procedure says: create, copy, drop, rename, with foreign keys
// off) and the spot tables are created; without price_latest it is created
// and filled from the history.
Status upgrade_schema(sqlite3* db, const std::string& path) {
  GPUPLAN_TRY(bool has_spot, has_table(db, path, "spot_bands"));
  GPUPLAN_RETURN_IF_ERROR(exec(db, path, "PRAGMA foreign_keys=OFF"));
  GPUPLAN_RETURN_IF_ERROR(exec(db, path, "BEGIN IMMEDIATE"));
  Status step;
  if (!has_spot) {
    step = exec(db, path, R"sql(
        CREATE TABLE snapshots_v2(
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          kind TEXT NOT NULL CHECK (kind IN ('retail-prices', 'skus', 'usage', 'spot')),
          source TEXT NOT NULL,
          imported_at TEXT NOT NULL,
          rows INTEGER NOT NULL DEFAULT 0);
        INSERT INTO snapshots_v2(id, kind, source, imported_at, rows)
          SELECT id, kind, source, imported_at, rows FROM snapshots;
        DROP TABLE snapshots;
        ALTER TABLE snapshots_v2 RENAME TO snapshots;)sql");
    if (step) step = exec(db, path, kSpotSchema);
  }
  if (step) step = ensure_price_latest(db, path);
  if (step) {
    const std::string version = "UPDATE meta SET value = '" + std::to_string(kSchemaVersion) +
                                "' WHERE key = 'schema_version'";
    step = exec(db, path, version.c_str());
  }
  if (step) step = exec(db, path, "COMMIT");
  if (!step) {
    (void)exec(db, path, "ROLLBACK");
    (void)exec(db, path, "PRAGMA foreign_keys=ON");
    return tl::unexpected(step.error());
  }
  return exec(db, path, "PRAGMA foreign_keys=ON");
}

// The store opened read-only as an immutable file (SQLite URI parameter
// immutable=1): for storage SQLite cannot write its lock files on.
std::optional<DbPtr> open_immutable(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[static_cast<unsigned char>(c) >> 4];
      uri += kHex[static_cast<unsigned char>(c) & 15];
    } else {
      uri += c;
    }
  }
  uri += "?immutable=1";
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK) return std::nullopt;
  return db;
}

// Opens (and with `create`, creates) the store and checks its schema. For
// reading, a file without any table yet (created, then the first import was
// killed before its schema committed) yields a null DbPtr: an empty store.
// A SQLite file of another program is refused, never modified.
Result<DbPtr> open_store(const std::string& path, bool create) {
  if (create) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec)
      return unavailable(
          "store not writable: cannot create directory " + parent.string() + ": " + ec.message(),
          Where{path});
  }
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_FULLMUTEX |
              (create ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK)
    return db_error(raw, path, create ? "store not writable" : "cannot open the store");
  sqlite3_busy_timeout(db.get(), kBusyTimeoutMs);
  auto counted = table_count(db.get(), path);
  // A WAL store on read-only storage cannot be read normally: SQLite must
  // create its -shm file (sqlite.org/wal.html, "Read-Only Databases"), and
  // every command failed with "unable to open database file" (issue 15).
  // Read it as immutable instead: no locks, no -shm, the committed pages.
  if (!counted && !create && sqlite3_errcode(db.get()) == SQLITE_CANTOPEN) {
    if (auto ro = open_immutable(path)) {
      db = std::move(*ro);
      counted = table_count(db.get(), path);
    }
  }
  GPUPLAN_TRY(int tables, counted);
  if (tables == 0 && !create) return DbPtr();
  if (create) {
    // Per connection: fsync at every commit; WAL (persistent) so readers keep
    // seeing the last committed import while one is written.
    GPUPLAN_RETURN_IF_ERROR(exec(db.get(), path, "PRAGMA synchronous=FULL"));
    GPUPLAN_RETURN_IF_ERROR(exec(db.get(), path, "PRAGMA foreign_keys=ON"));
  }
  if (tables == 0) {
    GPUPLAN_RETURN_IF_ERROR(exec(db.get(), path, "PRAGMA journal_mode=WAL"));
    GPUPLAN_RETURN_IF_ERROR(exec(db.get(), path, "BEGIN IMMEDIATE"));
    auto schema = exec(db.get(), path, kSchema);
    if (schema) schema = exec(db.get(), path, kSpotSchema);
    if (!schema) {
      (void)exec(db.get(), path, "ROLLBACK");
      return tl::unexpected(schema.error());
    }
    std::string meta = "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', '" +
                       std::to_string(kSchemaVersion) + "')";
    GPUPLAN_RETURN_IF_ERROR(exec(db.get(), path, meta.c_str()));
    GPUPLAN_RETURN_IF_ERROR(exec(db.get(), path, "COMMIT"));
  }
  // Check it is a gpuplan store of a version we understand.
  sqlite3_stmt* q_raw = nullptr;
  if (sqlite3_prepare_v2(db.get(), "SELECT value FROM meta WHERE key = 'schema_version'", -1,
                         &q_raw, nullptr) != SQLITE_OK)
    return unavailable("not a gpuplan store (an SQLite file without gpuplan's tables)",
                       Where{path});
  StmtPtr q(q_raw);
  if (sqlite3_step(q.get()) != SQLITE_ROW)
    return unavailable("not a gpuplan store (no schema version)", Where{path});
  std::string version = column_text(q.get(), 0);
  bool known = false;
  for (int v = kOldestReadableSchema; v <= kSchemaVersion; ++v)
    known = known || version == std::to_string(v);
  if (!known)
    return unavailable("store schema version " + version + " is not supported (expected " +
                           std::to_string(kOldestReadableSchema) + " to " +
                           std::to_string(kSchemaVersion) + ")",
                       Where{path});
  q.reset();
  if (create && version != std::to_string(kSchemaVersion)) {
    GPUPLAN_RETURN_IF_ERROR(upgrade_schema(db.get(), path));
  }
  return db;
}

// ---- price_latest: the newest price per key (the essay above) -------------

constexpr const char* kPriceLatestSchema = R"sql(
CREATE TABLE IF NOT EXISTS price_latest(
  size TEXT NOT NULL,
  region TEXT NOT NULL,
  os TEXT NOT NULL,
  pricing TEXT NOT NULL,
  snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  usd_per_hour REAL NOT NULL,
  as_of TEXT NOT NULL,
  PRIMARY KEY (size, region, os, pricing)) WITHOUT ROWID;
)sql";

// A later snapshot's price replaces the kept one; snapshots only grow, so
// the >= keeps a re-run of the same snapshot idempotent.
constexpr const char* kUpsertLatest = R"sql(
INSERT INTO price_latest(size, region, os, pricing, snapshot, usd_per_hour, as_of)
VALUES (?,?,?,?,?,?,?)
ON CONFLICT(size, region, os, pricing) DO UPDATE SET
  snapshot = excluded.snapshot, usd_per_hour = excluded.usd_per_hour, as_of = excluded.as_of
WHERE excluded.snapshot >= price_latest.snapshot)sql";

// Inside an import's transaction: creates price_latest when the store lacks
// it (a store written by schema 1, or a new one), fills it from the history
// (bare columns of a MAX() aggregate come from the row holding the maximum)
// and marks the store as the current schema.
Status ensure_price_latest(sqlite3* db, const std::string& path) {
  GPUPLAN_TRY(bool present, has_table(db, path, "price_latest"));
  if (present) return {};
  GPUPLAN_RETURN_IF_ERROR(exec(db, path, kPriceLatestSchema));
  GPUPLAN_RETURN_IF_ERROR(exec(db, path, R"sql(
      INSERT INTO price_latest(size, region, os, pricing, snapshot, usd_per_hour, as_of)
      SELECT size, region, os, pricing, MAX(snapshot), usd_per_hour, as_of FROM prices
      GROUP BY size, region, os, pricing)sql"));
  const std::string version = "UPDATE meta SET value = '" + std::to_string(kSchemaVersion) +
                              "' WHERE key = 'schema_version'";
  return exec(db, path, version.c_str());
}

// The current price per (size, region, os, pricing) with its snapshot's
// source and import time: one query over price_latest, or, for a schema-1
// store not yet migrated, one GROUP BY pass over the history.
Result<std::vector<Offer>> read_latest_prices(sqlite3* db, const std::string& path) {
  GPUPLAN_TRY(bool latest, has_table(db, path, "price_latest"));
  const char* sql = latest ? R"sql(
      SELECT l.size, l.region, l.os, l.pricing, l.usd_per_hour, l.as_of, s.source, s.imported_at
      FROM price_latest l JOIN snapshots s ON s.id = l.snapshot)sql"
                           : R"sql(
      SELECT p.size, p.region, p.os, p.pricing, p.usd_per_hour, p.as_of, s.source, s.imported_at
      FROM (SELECT size, region, os, pricing, usd_per_hour, as_of, MAX(snapshot) AS snapshot
            FROM prices GROUP BY size, region, os, pricing) p
      JOIN snapshots s ON s.id = p.snapshot)sql";
  GPUPLAN_TRY(StmtPtr p, prepare(db, path, sql));
  std::vector<Offer> out;
  // A few snapshots hold thousands of rows each: their text once per snapshot.
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> by_snapshot;
  while (sqlite3_step(p.get()) == SQLITE_ROW) {
    Offer o;
    o.size = column_text(p.get(), 0);
    o.region = column_text(p.get(), 1);
    auto os = parse_os(column_text(p.get(), 2));
    auto pricing = parse_pricing(column_text(p.get(), 3));
    if (!os || !pricing)
      return unavailable("store holds an unknown os or pricing for " + o.size, Where{path});
    o.os = *os;
    o.pricing = *pricing;
    o.usd_per_hour = sqlite3_column_double(p.get(), 4);
    o.as_of = column_text(p.get(), 5);
    auto key = std::make_pair(column_text(p.get(), 6), column_text(p.get(), 7));
    auto it = by_snapshot.find(key);
    if (it == by_snapshot.end()) {
      std::string day = key.second.substr(0, 10);
      std::string src = "Azure Retail Prices API, imported " + day + " (" + key.first + ")";
      it =
          by_snapshot.emplace(std::move(key), std::make_pair(std::move(day), std::move(src))).first;
    }
    o.retrieved = it->second.first;
    o.source = it->second.second;
    o.estimated = false;
    out.push_back(std::move(o));
  }
  return out;
}

// The kill -9 test hook (see store.h).
void maybe_pause_for_test() {
  const char* marker = std::getenv("GPUPLAN_TEST_PAUSE_IN_IMPORT");
  if (marker == nullptr || *marker == '\0') return;
  { std::ofstream(marker) << getpid() << "\n"; }
  std::this_thread::sleep_for(std::chrono::seconds(60));
}

// ---- Spot (schema 2): Azure Resource Graph SpotResources -----------------

template <typename Step>
Status write_spot_rows(sqlite3* db, const std::string& path, int64_t id, const SnapshotData& data,
                       Step& step) {
  GPUPLAN_TRY(StmtPtr b, prepare(db, path,
                                 "INSERT INTO spot_bands(snapshot, size, region, band, as_of) "
                                 "VALUES (?,?,?,?,?)"));
  for (const SpotBandRow& r : data.spot_bands) {
    sqlite3_bind_int64(b.get(), 1, id);
    bind_text(b.get(), 2, r.size);
    bind_text(b.get(), 3, r.region);
    bind_text(b.get(), 4, to_string(r.band));
    bind_text(b.get(), 5, r.as_of);
    GPUPLAN_RETURN_IF_ERROR(step(b.get()));
  }
  GPUPLAN_TRY(StmtPtr p, prepare(db, path,
                                 "INSERT OR REPLACE INTO spot_prices(snapshot, size, region, os, "
                                 "effective_date, usd_per_hour) VALUES (?,?,?,?,?,?)"));
  for (const SpotPriceRow& r : data.spot_prices) {
    if (!std::isfinite(r.usd_per_hour) || r.usd_per_hour < 0)
      return invalid_argument("spot price is not a finite non-negative number",
                              Where{data.source, 0, 0, r.size + " " + r.region});
    sqlite3_bind_int64(p.get(), 1, id);
    bind_text(p.get(), 2, r.size);
    bind_text(p.get(), 3, r.region);
    bind_text(p.get(), 4, to_string(r.os));
    bind_text(p.get(), 5, r.effective_date);
    sqlite3_bind_double(p.get(), 6, r.usd_per_hour);
    GPUPLAN_RETURN_IF_ERROR(step(p.get()));
  }
  return {};
}

// The newest band per (size, region), and the newest spot price per (size,
// region, os) — the latest effective date of the newest snapshot that has
// the key — as a listed spot offer. A retail-prices spot offer with a later
// effective date (as_of) is kept instead: among listed prices the newest wins.
Status read_spot(sqlite3* h, const std::string& path, StoreContents& out) {
  GPUPLAN_TRY(bool has_spot, has_table(h, path, "spot_bands"));
  if (!has_spot) return {};  // a schema-1 store read as is
  GPUPLAN_TRY(StmtPtr b, prepare(h, path, R"sql(
      SELECT b.size, b.region, b.band, b.as_of, s.source
      FROM spot_bands b JOIN snapshots s ON s.id = b.snapshot
      WHERE b.snapshot = (SELECT MAX(c.snapshot) FROM spot_bands c
                          WHERE c.size = b.size AND c.region = b.region)
      ORDER BY b.size, b.region)sql"));
  while (sqlite3_step(b.get()) == SQLITE_ROW) {
    SpotEviction e;
    e.size = column_text(b.get(), 0);
    e.region = column_text(b.get(), 1);
    auto band = parse_eviction_band(column_text(b.get(), 2));
    if (!band)
      return unavailable("store holds an unknown eviction band for " + e.size, Where{path});
    e.band = *band;
    e.as_of = column_text(b.get(), 3);
    e.source = "spot: " + column_text(b.get(), 4);
    out.spot_evictions.push_back(std::move(e));
  }
  GPUPLAN_TRY(StmtPtr p, prepare(h, path, R"sql(
      SELECT p.size, p.region, p.os, p.effective_date, p.usd_per_hour, s.source
      FROM spot_prices p JOIN snapshots s ON s.id = p.snapshot
      WHERE p.snapshot = (SELECT MAX(q.snapshot) FROM spot_prices q
                          WHERE q.size = p.size AND q.region = p.region AND q.os = p.os)
        AND p.effective_date = (SELECT MAX(r.effective_date) FROM spot_prices r
                                WHERE r.snapshot = p.snapshot AND r.size = p.size
                                  AND r.region = p.region AND r.os = p.os)
      ORDER BY p.size, p.region, p.os)sql"));
  std::map<std::string, size_t> retail_spot;  // lower(size|region|os) -> out.offers[i]
  auto key = [](const std::string& size, const std::string& region, Os os) {
    return strings::to_lower(size + "|" + region + "|") + std::string(to_string(os));
  };
  for (size_t i = 0; i < out.offers.size(); ++i)
    if (out.offers[i].pricing == Pricing::kSpot)
      retail_spot[key(out.offers[i].size, out.offers[i].region, out.offers[i].os)] = i;
  while (sqlite3_step(p.get()) == SQLITE_ROW) {
    Offer o;
    o.size = column_text(p.get(), 0);
    o.region = column_text(p.get(), 1);
    auto os = parse_os(column_text(p.get(), 2));
    if (!os) return unavailable("store holds an unknown os for " + o.size, Where{path});
    o.os = *os;
    o.pricing = Pricing::kSpot;
    o.as_of = column_text(p.get(), 3);
    o.usd_per_hour = sqlite3_column_double(p.get(), 4);
    o.source = "spot: " + column_text(p.get(), 5) + " (Resource Graph spot price history)";
    auto it = retail_spot.find(key(o.size, o.region, o.os));
    if (it == retail_spot.end()) {
      out.offers.push_back(std::move(o));
    } else if (out.offers[it->second].as_of <= o.as_of) {
      out.offers[it->second] = std::move(o);
    }
  }
  return {};
}

// Keeps price_latest current for one written price row.
Status upsert_latest(sqlite3* db, const std::string& path, sqlite3_stmt* s, int64_t id,
                     const PriceRow& r) {
  bind_text(s, 1, r.size);
  bind_text(s, 2, r.region);
  bind_text(s, 3, to_string(r.os));
  bind_text(s, 4, to_string(r.pricing));
  sqlite3_bind_int64(s, 5, id);
  sqlite3_bind_double(s, 6, r.usd_per_hour);
  bind_text(s, 7, r.as_of);
  if (sqlite3_step(s) != SQLITE_DONE) return db_error(db, path, "store: write failed");
  sqlite3_reset(s);
  return {};
}

Status write_rows(sqlite3* db, const std::string& path, int64_t id, const SnapshotData& data,
                  int64_t total) {
  int64_t written = 0;
  const int64_t pause_at = total / 2;
  auto step = [&](sqlite3_stmt* s) -> Status {
    if (sqlite3_step(s) != SQLITE_DONE) return db_error(db, path, "store: write failed");
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    if (++written == pause_at) maybe_pause_for_test();
    return {};
  };
  switch (data.kind) {
    case SnapshotKind::kRetailPrices: {
      GPUPLAN_TRY(StmtPtr s, prepare(db, path,
                                     "INSERT OR REPLACE INTO prices(snapshot, size, region, os, "
                                     "pricing, usd_per_hour, as_of) VALUES (?,?,?,?,?,?,?)"));
      GPUPLAN_TRY(StmtPtr latest, prepare(db, path, kUpsertLatest));
      for (const PriceRow& r : data.prices) {
        if (!std::isfinite(r.usd_per_hour) || r.usd_per_hour < 0)
          return invalid_argument("price is not a finite non-negative number",
                                  Where{data.source, 0, 0, r.size + " " + r.region});
        sqlite3_bind_int64(s.get(), 1, id);
        bind_text(s.get(), 2, r.size);
        bind_text(s.get(), 3, r.region);
        bind_text(s.get(), 4, to_string(r.os));
        bind_text(s.get(), 5, to_string(r.pricing));
        sqlite3_bind_double(s.get(), 6, r.usd_per_hour);
        bind_text(s.get(), 7, r.as_of);
        GPUPLAN_RETURN_IF_ERROR(step(s.get()));
        GPUPLAN_RETURN_IF_ERROR(upsert_latest(db, path, latest.get(), id, r));
      }
      break;
    }
    case SnapshotKind::kSkus: {
      GPUPLAN_TRY(StmtPtr a, prepare(db, path,
                                     "INSERT INTO sku_availability(snapshot, size, region, zones) "
                                     "VALUES (?,?,?,?)"));
      for (const SkuAvailability& r : data.availability) {
        sqlite3_bind_int64(a.get(), 1, id);
        bind_text(a.get(), 2, r.size);
        bind_text(a.get(), 3, r.region);
        bind_text(a.get(), 4, join(r.zones, ','));
        GPUPLAN_RETURN_IF_ERROR(step(a.get()));
      }
      GPUPLAN_TRY(StmtPtr b, prepare(db, path,
                                     "INSERT INTO sku_restrictions(snapshot, size, region, reason, "
                                     "zones) VALUES (?,?,?,?,?)"));
      for (const Restriction& r : data.restrictions) {
        sqlite3_bind_int64(b.get(), 1, id);
        bind_text(b.get(), 2, r.size);
        bind_text(b.get(), 3, r.region);
        bind_text(b.get(), 4, r.reason);
        bind_text(b.get(), 5, join(r.zones, ','));
        GPUPLAN_RETURN_IF_ERROR(step(b.get()));
      }
      break;
    }
    case SnapshotKind::kSpot:
      return write_spot_rows(db, path, id, data, step);
    case SnapshotKind::kUsage: {
      GPUPLAN_TRY(StmtPtr s, prepare(db, path,
                                     "INSERT INTO usage(snapshot, region, family, family_display, "
                                     "quota_limit, used) VALUES (?,?,?,?,?,?)"));
      for (const UsageRow& r : data.usage) {
        sqlite3_bind_int64(s.get(), 1, id);
        bind_text(s.get(), 2, r.region);
        bind_text(s.get(), 3, r.family);
        bind_text(s.get(), 4, r.family_display);
        sqlite3_bind_double(s.get(), 5, r.limit);
        sqlite3_bind_double(s.get(), 6, r.used);
        GPUPLAN_RETURN_IF_ERROR(step(s.get()));
      }
      break;
    }
  }
  return {};
}

int64_t row_count(const SnapshotData& d) {
  switch (d.kind) {
    case SnapshotKind::kRetailPrices:
      return static_cast<int64_t>(d.prices.size());
    case SnapshotKind::kSkus:
      return static_cast<int64_t>(d.availability.size() + d.restrictions.size());
    case SnapshotKind::kUsage:
      return static_cast<int64_t>(d.usage.size());
    case SnapshotKind::kSpot:
      return static_cast<int64_t>(d.spot_bands.size() + d.spot_prices.size());
  }
  return 0;
}

bool store_missing(const std::string& path) {
  std::error_code ec;
  return !std::filesystem::exists(path, ec);
}

}  // namespace

std::string_view to_string(SnapshotKind k) {
  switch (k) {
    case SnapshotKind::kRetailPrices:
      return "retail-prices";
    case SnapshotKind::kSkus:
      return "skus";
    case SnapshotKind::kUsage:
      return "usage";
    case SnapshotKind::kSpot:
      return "spot";
  }
  return "?";
}

std::string default_store_path() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg != nullptr && *xdg != '\0') return std::string(xdg) + "/gpuplan/catalog.db";
  const char* home = std::getenv("HOME");
  std::string base = (home != nullptr && *home != '\0') ? std::string(home) : std::string(".");
  return base + "/.local/share/gpuplan/catalog.db";
}

Result<SnapshotInfo> write_snapshot(const std::string& path, const SnapshotData& data) {
  GPUPLAN_TRY(DbPtr db, open_store(path, /*create=*/true));
  sqlite3* h = db.get();
  // IMMEDIATE: take the write lock now, so two imports serialize cleanly.
  GPUPLAN_RETURN_IF_ERROR(exec(h, path, "BEGIN IMMEDIATE"));
  auto fail = [&](const Error& e) -> tl::unexpected<Error> {
    (void)exec(h, path, "ROLLBACK");
    return tl::unexpected(e);
  };
  SnapshotInfo info;
  info.kind = data.kind;
  info.source = data.source;
  info.imported_at = utc_now();
  info.rows = row_count(data);
  {
    auto s =
        prepare(h, path, "INSERT INTO snapshots(kind, source, imported_at, rows) VALUES (?,?,?,?)");
    if (!s) return fail(s.error());
    bind_text(s->get(), 1, to_string(data.kind));
    bind_text(s->get(), 2, data.source);
    bind_text(s->get(), 3, info.imported_at);
    sqlite3_bind_int64(s->get(), 4, info.rows);
    if (sqlite3_step(s->get()) != SQLITE_DONE)
      return fail(db_error(h, path, "store not writable").value());
    info.id = sqlite3_last_insert_rowid(h);
  }
  if (data.kind == SnapshotKind::kRetailPrices) {
    auto latest = ensure_price_latest(h, path);
    if (!latest) return fail(latest.error());
  }
  auto rows = write_rows(h, path, info.id, data, info.rows);
  if (!rows) return fail(rows.error());
  if (sqlite3_exec(h, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail(db_error(h, path, "store not writable (commit failed)").value());
  return info;
}

Result<StoreContents> read_store(const std::string& path) {
  if (store_missing(path)) return StoreContents{};
  GPUPLAN_TRY(DbPtr db, open_store(path, /*create=*/false));
  if (!db) return StoreContents{};
  sqlite3* h = db.get();
  // One read transaction: every query below sees the same committed state.
  GPUPLAN_RETURN_IF_ERROR(exec(h, path, "BEGIN"));
  StoreContents out;

  // Prices: the newest snapshot's row per (size, region, os, pricing).
  GPUPLAN_TRY(out.offers, read_latest_prices(h, path));

  // Quota: the newest row per (region, family).
  GPUPLAN_TRY(StmtPtr u, prepare(h, path, R"sql(
      SELECT u.region, u.family, u.quota_limit, u.used, s.source, s.imported_at
      FROM usage u JOIN snapshots s ON s.id = u.snapshot
      WHERE u.snapshot = (SELECT MAX(v.snapshot) FROM usage v
                          WHERE v.region = u.region AND v.family = u.family)
      ORDER BY u.region, u.family)sql"));
  while (sqlite3_step(u.get()) == SQLITE_ROW) {
    Quota q;
    q.region = column_text(u.get(), 0);
    q.family = column_text(u.get(), 1);
    q.limit = sqlite3_column_double(u.get(), 2);
    q.used = sqlite3_column_double(u.get(), 3);
    q.source = "list-usage: " + column_text(u.get(), 4);
    q.as_of = column_text(u.get(), 5).substr(0, 10);
    out.quotas.push_back(std::move(q));
  }

  // Availability and restrictions: the newest skus snapshot as a whole.
  GPUPLAN_TRY(StmtPtr a, prepare(h, path, R"sql(
      SELECT size, region, zones FROM sku_availability
      WHERE snapshot = (SELECT MAX(id) FROM snapshots WHERE kind = 'skus')
      ORDER BY size, region)sql"));
  while (sqlite3_step(a.get()) == SQLITE_ROW)
    out.availability.push_back(SkuAvailability{column_text(a.get(), 0), column_text(a.get(), 1),
                                               split_nonempty(column_text(a.get(), 2), ',')});
  GPUPLAN_TRY(StmtPtr r, prepare(h, path, R"sql(
      SELECT size, region, reason, zones FROM sku_restrictions
      WHERE snapshot = (SELECT MAX(id) FROM snapshots WHERE kind = 'skus')
      ORDER BY size, region)sql"));
  while (sqlite3_step(r.get()) == SQLITE_ROW)
    out.restrictions.push_back(Restriction{column_text(r.get(), 0), column_text(r.get(), 1),
                                           column_text(r.get(), 2),
                                           split_nonempty(column_text(r.get(), 3), ',')});
  GPUPLAN_RETURN_IF_ERROR(read_spot(h, path, out));
  (void)exec(h, path, "COMMIT");
  return out;
}

Result<std::vector<SnapshotInfo>> list_snapshots(const std::string& path) {
  std::vector<SnapshotInfo> out;
  if (store_missing(path)) return out;
  GPUPLAN_TRY(DbPtr db, open_store(path, /*create=*/false));
  if (!db) return out;
  GPUPLAN_TRY(StmtPtr s, prepare(db.get(), path,
                                 "SELECT id, kind, source, imported_at, rows FROM snapshots "
                                 "ORDER BY id"));
  while (sqlite3_step(s.get()) == SQLITE_ROW) {
    SnapshotInfo i;
    i.id = sqlite3_column_int64(s.get(), 0);
    GPUPLAN_TRY(i.kind, parse_kind(column_text(s.get(), 1)));
    i.source = column_text(s.get(), 2);
    i.imported_at = column_text(s.get(), 3);
    i.rows = sqlite3_column_int64(s.get(), 4);
    out.push_back(std::move(i));
  }
  return out;
}

Result<std::vector<PriceHistoryEntry>> price_history(const std::string& path,
                                                     const std::string& size,
                                                     const std::string& region) {
  std::vector<PriceHistoryEntry> out;
  if (store_missing(path)) return out;
  GPUPLAN_TRY(DbPtr db, open_store(path, /*create=*/false));
  if (!db) return out;
  GPUPLAN_TRY(StmtPtr s, prepare(db.get(), path, R"sql(
      SELECT p.snapshot, s.source, s.imported_at, p.os, p.pricing, p.usd_per_hour, p.as_of
      FROM prices p JOIN snapshots s ON s.id = p.snapshot
      WHERE p.size = ? COLLATE NOCASE AND p.region = ?
      ORDER BY p.snapshot, p.os, p.pricing)sql"));
  bind_text(s.get(), 1, size);
  bind_text(s.get(), 2, region);
  while (sqlite3_step(s.get()) == SQLITE_ROW) {
    PriceHistoryEntry e;
    e.snapshot = sqlite3_column_int64(s.get(), 0);
    e.source = column_text(s.get(), 1);
    e.imported_at = column_text(s.get(), 2);
    auto os = parse_os(column_text(s.get(), 3));
    auto pricing = parse_pricing(column_text(s.get(), 4));
    if (!os || !pricing) return unavailable("store holds an unknown os or pricing", Where{path});
    e.os = *os;
    e.pricing = *pricing;
    e.usd_per_hour = sqlite3_column_double(s.get(), 5);
    e.as_of = column_text(s.get(), 6);
    out.push_back(std::move(e));
  }
  // The newest snapshot per (os, pricing) is the one in use: the rows hold
  // every snapshot of this size and region, so no other query is needed.
  std::map<std::pair<Os, Pricing>, int64_t> newest;
  for (const PriceHistoryEntry& e : out) {
    int64_t& n = newest[{e.os, e.pricing}];
    n = std::max(n, e.snapshot);
  }
  for (PriceHistoryEntry& e : out) e.wins = e.snapshot == newest[{e.os, e.pricing}];
  // Oldest snapshot first; within one, linux before windows and pricing in
  // the vocabulary's order (payg, spot, reserved-1y, ...), not alphabetical.
  std::stable_sort(out.begin(), out.end(),
                   [](const PriceHistoryEntry& a, const PriceHistoryEntry& b) {
                     return std::make_tuple(a.snapshot, a.os, a.pricing) <
                            std::make_tuple(b.snapshot, b.os, b.pricing);
                   });
  return out;
}

Result<std::vector<SpotPriceHistoryEntry>> spot_price_history(const std::string& path,
                                                              const std::string& size,
                                                              const std::string& region) {
  std::vector<SpotPriceHistoryEntry> out;
  if (store_missing(path)) return out;
  GPUPLAN_TRY(DbPtr db, open_store(path, /*create=*/false));
  if (!db) return out;
  GPUPLAN_TRY(bool has_spot, has_table(db.get(), path, "spot_prices"));
  if (!has_spot) return out;
  GPUPLAN_TRY(StmtPtr s, prepare(db.get(), path, R"sql(
      SELECT p.snapshot, s.source, p.os, p.effective_date, p.usd_per_hour
      FROM spot_prices p JOIN snapshots s ON s.id = p.snapshot
      WHERE p.size = ? COLLATE NOCASE AND p.region = ?
      ORDER BY p.effective_date, p.os, p.snapshot)sql"));
  bind_text(s.get(), 1, size);
  bind_text(s.get(), 2, region);
  while (sqlite3_step(s.get()) == SQLITE_ROW) {
    SpotPriceHistoryEntry e;
    e.snapshot = sqlite3_column_int64(s.get(), 0);
    e.source = column_text(s.get(), 1);
    auto os = parse_os(column_text(s.get(), 2));
    if (!os) return unavailable("store holds an unknown os", Where{path});
    e.os = *os;
    e.effective_date = column_text(s.get(), 3);
    e.usd_per_hour = sqlite3_column_double(s.get(), 4);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace gpuplan::catalog
