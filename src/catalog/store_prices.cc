// Retail prices in the store: the `prices` history (every imported row,
// kept) and `price_latest`, the newest price per (size, region, OS,
// pricing), maintained by an UPSERT in the import's own transaction so that
// a command reads only the current prices however long the history is
// (store.cc's essay says why; bench/store_scale.sh measures it).
#include <map>

#include "catalog/internal/import_common.h"
#include "catalog/internal/store_db.h"

namespace gpuplan::catalog::internal {
namespace {

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

// Keeps price_latest current for one written price row.
Status upsert_latest(sqlite3* db, const std::string& path, sqlite3_stmt* s, int64_t id,
                     const PriceRow& r) {
  bind_row(s, r.size, r.region, to_string(r.os), to_string(r.pricing), id, r.usd_per_hour, r.as_of);
  if (sqlite3_step(s) != SQLITE_DONE) return db_error(db, path, "store: write failed");
  sqlite3_reset(s);
  return {};
}

}  // namespace

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
  return mark_current_schema(db, path);
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
  while (true) {
    GPUPLAN_TRY(const bool row, next_row(p.get(), path));
    if (!row) break;
    Offer o;
    o.size = column_text(p.get(), 0);
    o.region = column_text(p.get(), 1);
    auto os = parse_os(column_text(p.get(), 2));
    auto pricing = parse_pricing(column_text(p.get(), 3));
    if (!os || !pricing)
      return unavailable("store holds an unknown os or pricing for " + o.size, Where{path});
    o.os = *os;
    o.pricing = *pricing;
    GPUPLAN_TRY(o.usd_per_hour,
                column_number(p.get(), 4, path,
                              latest ? "price_latest.usd_per_hour" : "prices.usd_per_hour",
                              o.size + " " + o.region + " " + std::string(to_string(o.os)) + " " +
                                  std::string(to_string(o.pricing)),
                              kMaxPriceUsd));
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

Status write_price_rows(sqlite3* db, const std::string& path, int64_t id, const SnapshotData& data,
                        const StepFn& step) {
  GPUPLAN_TRY(StmtPtr s, prepare(db, path,
                                 "INSERT OR REPLACE INTO prices(snapshot, size, region, os, "
                                 "pricing, usd_per_hour, as_of) VALUES (?,?,?,?,?,?,?)"));
  GPUPLAN_TRY(StmtPtr latest, prepare(db, path, kUpsertLatest));
  for (const PriceRow& r : data.prices) {
    GPUPLAN_RETURN_IF_ERROR(
        check_price({r.usd_per_hour}, "price", data.source, r.size + " " + r.region));
    bind_row(s.get(), id, r.size, r.region, to_string(r.os), to_string(r.pricing), r.usd_per_hour,
             r.as_of);
    GPUPLAN_RETURN_IF_ERROR(step(s.get()));
    GPUPLAN_RETURN_IF_ERROR(upsert_latest(db, path, latest.get(), id, r));
  }
  return {};
}

}  // namespace gpuplan::catalog::internal
