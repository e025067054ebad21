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
//
// Layout: store_db.cc opens and upgrades the file; each import kind's
// tables live in their own file (store_prices.cc, store_spot.cc,
// store_blob.cc); this file writes one snapshot and reads the newest state.
#include "catalog/store.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <tuple>

#include <sqlite3.h>
#include <unistd.h>

#include "catalog/internal/import_common.h"
#include "catalog/internal/store_db.h"

namespace gpuplan::catalog {
namespace {

using namespace internal;  // NOLINT(google-build-using-namespace): the store's own layer

Result<SnapshotKind> parse_kind(const std::string& s) {
  if (s == "retail-prices") return SnapshotKind::kRetailPrices;
  if (s == "skus") return SnapshotKind::kSkus;
  if (s == "usage") return SnapshotKind::kUsage;
  if (s == "spot") return SnapshotKind::kSpot;
  return internal_error("store: unknown snapshot kind '" + s + "'");
}

// The kill -9 test hook (see store.h).
void maybe_pause_for_test() {
  const char* marker = std::getenv("GPUPLAN_TEST_PAUSE_IN_IMPORT");
  if (marker == nullptr || *marker == '\0') return;
  { std::ofstream(marker) << getpid() << "\n"; }
  std::this_thread::sleep_for(std::chrono::seconds(60));
}

Status write_rows(sqlite3* db, const std::string& path, int64_t id, const SnapshotData& data,
                  int64_t total) {
  int64_t written = 0;
  const int64_t pause_at = total / 2;
  const StepFn step = [&](sqlite3_stmt* s) -> Status {
    if (sqlite3_step(s) != SQLITE_DONE) return db_error(db, path, "store: write failed");
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    if (++written == pause_at) maybe_pause_for_test();
    return {};
  };
  switch (data.kind) {
    case SnapshotKind::kRetailPrices:
      // A Retail Prices import holds VM prices and, from a Storage page,
      // Blob capacity prices: one snapshot, both tables.
      GPUPLAN_RETURN_IF_ERROR(write_price_rows(db, path, id, data, step));
      return write_blob_rows(db, path, id, data, step);
    case SnapshotKind::kSkus:
      GPUPLAN_RETURN_IF_ERROR(insert_each(
          db, path, "INSERT INTO sku_availability(snapshot, size, region, zones) VALUES (?,?,?,?)",
          data.availability, step, [&](sqlite3_stmt* s, const SkuAvailability& r) -> Status {
            bind_row(s, id, r.size, r.region, join(r.zones, ','));
            return {};
          }));
      return insert_each(
          db, path,
          "INSERT INTO sku_restrictions(snapshot, size, region, reason, zones) VALUES (?,?,?,?,?)",
          data.restrictions, step, [&](sqlite3_stmt* s, const Restriction& r) -> Status {
            bind_row(s, id, r.size, r.region, r.reason, join(r.zones, ','));
            return {};
          });
    case SnapshotKind::kSpot:
      return write_spot_rows(db, path, id, data, step);
    case SnapshotKind::kUsage:
      return insert_each(db, path,
                         "INSERT INTO usage(snapshot, region, family, family_display, "
                         "quota_limit, used) VALUES (?,?,?,?,?,?)",
                         data.usage, step, [&](sqlite3_stmt* s, const UsageRow& r) -> Status {
                           bind_row(s, id, r.region, r.family, r.family_display, r.limit, r.used);
                           return {};
                         });
  }
  return {};
}

int64_t row_count(const SnapshotData& d) {
  switch (d.kind) {
    case SnapshotKind::kRetailPrices:
      return static_cast<int64_t>(d.prices.size() + d.blob_prices.size());
    case SnapshotKind::kSkus:
      return static_cast<int64_t>(d.availability.size() + d.restrictions.size());
    case SnapshotKind::kUsage:
      return static_cast<int64_t>(d.usage.size());
    case SnapshotKind::kSpot:
      return static_cast<int64_t>(d.spot_bands.size() + d.spot_prices.size());
  }
  return 0;
}

// The store at `path` opened for reading; null (not an error) when there is
// no store there yet: every reader then answers "nothing imported".
Result<DbPtr> open_existing(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return DbPtr{};
  return open_store(path, /*create=*/false);
}

// The rows of `table` for one size (any case) in one region, each with its
// snapshot's id and source (result columns 0 and 1) and then `columns`, in
// `order`; `fill` reads columns 2 on into an entry. Empty when there is no
// store yet or an older store has no `table`.
template <class Entry, class Fill>
Result<std::vector<Entry>> read_history(const std::string& path, const std::string& table,
                                        const std::string& columns, const std::string& order,
                                        const std::string& size, const std::string& region,
                                        const Fill& fill) {
  std::vector<Entry> out;
  GPUPLAN_TRY(DbPtr db, open_existing(path));
  if (!db) return out;
  GPUPLAN_TRY(bool has, has_table(db.get(), path, table.c_str()));
  if (!has) return out;
  const std::string sql = "SELECT p.snapshot, s.source, " + columns + " FROM " + table +
                          " p JOIN snapshots s ON s.id = p.snapshot"
                          " WHERE p.size = ? COLLATE NOCASE AND p.region = ? ORDER BY " +
                          order;
  GPUPLAN_TRY(StmtPtr s, prepare(db.get(), path, sql.c_str()));
  bind_row(s.get(), size, region);
  while (true) {
    GPUPLAN_TRY(const bool row, next_row(s.get(), path));
    if (!row) break;
    Entry e;
    e.snapshot = sqlite3_column_int64(s.get(), 0);
    e.source = column_text(s.get(), 1);
    GPUPLAN_RETURN_IF_ERROR(fill(s.get(), e));
    out.push_back(std::move(e));
  }
  return out;
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
    bind_row(s->get(), to_string(data.kind), data.source, info.imported_at, info.rows);
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
  GPUPLAN_TRY(DbPtr db, open_existing(path));
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
  while (true) {
    GPUPLAN_TRY(const bool row, next_row(u.get(), path));
    if (!row) break;
    Quota q;
    q.region = column_text(u.get(), 0);
    q.family = column_text(u.get(), 1);
    const std::string key_text = q.region + " " + q.family;
    GPUPLAN_TRY(q.limit, column_number(u.get(), 2, path, "usage.quota_limit", key_text, kMaxCount));
    GPUPLAN_TRY(q.used, column_number(u.get(), 3, path, "usage.used", key_text, kMaxCount));
    q.source = "list-usage: " + column_text(u.get(), 4);
    q.as_of = column_text(u.get(), 5).substr(0, 10);
    out.quotas.push_back(std::move(q));
  }

  // Availability and restrictions: the newest skus snapshot as a whole.
  GPUPLAN_TRY(StmtPtr a, prepare(h, path, R"sql(
      SELECT size, region, zones FROM sku_availability
      WHERE snapshot = (SELECT MAX(id) FROM snapshots WHERE kind = 'skus')
      ORDER BY size, region)sql"));
  while (true) {
    GPUPLAN_TRY(const bool row, next_row(a.get(), path));
    if (!row) break;
    out.availability.push_back(SkuAvailability{column_text(a.get(), 0), column_text(a.get(), 1),
                                               split_nonempty(column_text(a.get(), 2), ',')});
  }
  GPUPLAN_TRY(StmtPtr r, prepare(h, path, R"sql(
      SELECT size, region, reason, zones FROM sku_restrictions
      WHERE snapshot = (SELECT MAX(id) FROM snapshots WHERE kind = 'skus')
      ORDER BY size, region)sql"));
  while (true) {
    GPUPLAN_TRY(const bool row, next_row(r.get(), path));
    if (!row) break;
    out.restrictions.push_back(Restriction{column_text(r.get(), 0), column_text(r.get(), 1),
                                           column_text(r.get(), 2),
                                           split_nonempty(column_text(r.get(), 3), ',')});
  }
  GPUPLAN_RETURN_IF_ERROR(read_spot(h, path, out));
  GPUPLAN_RETURN_IF_ERROR(read_blob_prices(h, path, out));
  (void)exec(h, path, "COMMIT");
  return out;
}

Result<std::vector<SnapshotInfo>> list_snapshots(const std::string& path) {
  std::vector<SnapshotInfo> out;
  GPUPLAN_TRY(DbPtr db, open_existing(path));
  if (!db) return out;
  GPUPLAN_TRY(StmtPtr s, prepare(db.get(), path,
                                 "SELECT id, kind, source, imported_at, rows FROM snapshots "
                                 "ORDER BY id"));
  while (true) {
    GPUPLAN_TRY(const bool row, next_row(s.get(), path));
    if (!row) break;
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
  auto fill = [&](sqlite3_stmt* s, PriceHistoryEntry& e) -> Status {
    e.imported_at = column_text(s, 2);
    auto os = parse_os(column_text(s, 3));
    auto pricing = parse_pricing(column_text(s, 4));
    if (!os || !pricing) return unavailable("store holds an unknown os or pricing", Where{path});
    e.os = *os;
    e.pricing = *pricing;
    GPUPLAN_TRY(e.usd_per_hour,
                column_number(s, 5, path, "prices.usd_per_hour",
                              size + " " + region + " " + std::string(to_string(e.os)) + " " +
                                  std::string(to_string(e.pricing)) + " " + e.imported_at,
                              kMaxPriceUsd));
    e.as_of = column_text(s, 6);
    return {};
  };
  GPUPLAN_TRY(std::vector<PriceHistoryEntry> out,
              read_history<PriceHistoryEntry>(
                  path, "prices", "s.imported_at, p.os, p.pricing, p.usd_per_hour, p.as_of",
                  "p.snapshot, p.os, p.pricing", size, region, fill));
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
  auto fill = [&](sqlite3_stmt* s, SpotPriceHistoryEntry& e) -> Status {
    auto os = parse_os(column_text(s, 2));
    if (!os) return unavailable("store holds an unknown os", Where{path});
    e.os = *os;
    e.effective_date = column_text(s, 3);
    GPUPLAN_TRY(e.usd_per_hour,
                column_number(s, 4, path, "spot_prices.usd_per_hour",
                              size + " " + region + " " + std::string(to_string(e.os)) + " " +
                                  e.effective_date,
                              kMaxPriceUsd));
    return {};
  };
  return read_history<SpotPriceHistoryEntry>(
      path, "spot_prices", "p.os, p.effective_date, p.usd_per_hour",
      "p.effective_date, p.os, p.snapshot", size, region, fill);
}

}  // namespace gpuplan::catalog
