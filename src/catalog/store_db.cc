// The store's SQLite layer: a small RAII wrapper over the C API, the core
// schema (snapshots, prices, availability, restrictions, usage), and opening
// a store — creating it, refusing a file that is not a gpuplan store,
// reading one on read-only storage, and upgrading an older schema in one
// transaction. The tables of each import kind are owned by their own file
// (store_prices.cc, store_spot.cc, store_blob.cc); store.cc writes and reads
// snapshots through them.
#include "catalog/internal/store_db.h"

#include <cmath>
#include <filesystem>
#include <optional>

#include "core/dates.h"
#include "core/strings.h"

namespace gpuplan::catalog::internal {
namespace {

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

// Schema 1, 2 or 3 -> 4, in one transaction (a kill leaves the old schema
// intact). Without the spot tables, the snapshots table's CHECK gains 'spot'
// (SQLite cannot alter a CHECK, so the table is rebuilt as its documented
// ALTER TABLE procedure says: create, copy, drop, rename, with foreign keys
// off) and the spot tables are created; without price_latest it is created
// and filled from the history; blob_prices is created (empty).
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
  if (step) step = exec(db, path, kBlobSchema);
  if (step) step = mark_current_schema(db, path);
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

}  // namespace

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

Result<bool> next_row(sqlite3_stmt* s, const std::string& path) {
  const int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_error(sqlite3_db_handle(s), path,
                  "store: cannot be read (check it with `sqlite3 FILE 'PRAGMA integrity_check'`; "
                  "import again into a new --db, or delete it to use the embedded catalog)");
}

void bind_text(sqlite3_stmt* s, int i, std::string_view v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t != nullptr ? std::string(reinterpret_cast<const char*>(t)) : std::string();
}

Result<double> column_number(sqlite3_stmt* s, int i, const std::string& path,
                             std::string_view field, const std::string& row, double max) {
  const int type = sqlite3_column_type(s, i);
  const double v = sqlite3_column_double(s, i);
  if ((type == SQLITE_FLOAT || type == SQLITE_INTEGER) && std::isfinite(v) && v >= 0 && v <= max)
    return v;
  std::string held = type == SQLITE_NULL ? "NULL"
                     : type == SQLITE_TEXT || type == SQLITE_BLOB
                         ? "'" + strings::escape_controls(column_text(s, i).substr(0, 40)) + "'"
                         : strings::general(v);
  return invalid_argument(row + " holds " + held + ", not a number from 0 to " +
                              strings::general(max) +
                              " (the store was changed outside gpuplan: import again into a new "
                              "--db, or delete it to use the embedded catalog)",
                          Where{path, 0, 0, std::string(field)});
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

std::string utc_now() { return dates::now_utc("%Y-%m-%dT%H:%M:%SZ"); }

Result<bool> has_table(sqlite3* db, const std::string& path, const char* name) {
  GPUPLAN_TRY(StmtPtr q,
              prepare(db, path, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"));
  bind_text(q.get(), 1, name);
  return next_row(q.get(), path);
}

Status check_price(std::initializer_list<double> values, std::string_view what,
                   const std::string& source, const std::string& key) {
  for (double v : values) {
    if (!std::isfinite(v) || v < 0)
      return invalid_argument(std::string(what) + " is not a finite non-negative number",
                              Where{source, 0, 0, key});
  }
  return {};
}

Status mark_current_schema(sqlite3* db, const std::string& path) {
  const std::string version = "UPDATE meta SET value = '" + std::to_string(kSchemaVersion) +
                              "' WHERE key = 'schema_version'";
  return exec(db, path, version.c_str());
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
    if (schema) schema = exec(db.get(), path, kBlobSchema);
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

}  // namespace gpuplan::catalog::internal
