// Blob capacity prices in the store (schema 4): one row per imported band
// (region, access tier, redundancy, tierMinimumUnits), read back as the
// newest snapshot's bands per (region, tier, redundancy). They come from a
// Retail Prices API Storage page (import_retail_prices.cc says which items)
// and price the plan's Blob line (cost/storage.cc).
#include <map>
#include <tuple>

#include "catalog/internal/import_common.h"
#include "catalog/internal/store_db.h"

namespace gpuplan::catalog::internal {

const char* const kBlobSchema = R"sql(
CREATE TABLE IF NOT EXISTS blob_prices(
  snapshot INTEGER NOT NULL REFERENCES snapshots(id),
  region TEXT NOT NULL,
  tier TEXT NOT NULL CHECK (tier IN ('hot', 'cool', 'cold', 'archive')),
  redundancy TEXT NOT NULL,
  from_gb REAL NOT NULL CHECK (from_gb >= 0),
  usd_per_gb_month REAL NOT NULL CHECK (usd_per_gb_month >= 0),
  as_of TEXT NOT NULL,
  PRIMARY KEY (snapshot, region, tier, redundancy, from_gb));
CREATE INDEX IF NOT EXISTS blob_prices_by_key ON blob_prices(region, tier, redundancy, snapshot);
)sql";

Status write_blob_rows(sqlite3* db, const std::string& path, int64_t id, const SnapshotData& data,
                       const StepFn& step) {
  // open_store(create) made or upgraded the store to schema 4: the table is there.
  if (data.blob_prices.empty()) return {};
  auto bind = [&](sqlite3_stmt* s, const BlobPriceRow& r) -> Status {
    GPUPLAN_RETURN_IF_ERROR(check_price({r.usd_per_gb_month, r.from_gb}, "Blob price", data.source,
                                        r.region + " " + r.tier));
    bind_row(s, id, r.region, r.tier, r.redundancy, r.from_gb, r.usd_per_gb_month, r.as_of);
    return {};
  };
  return insert_each(db, path,
                     "INSERT OR REPLACE INTO blob_prices(snapshot, region, tier, redundancy, "
                     "from_gb, usd_per_gb_month, as_of) VALUES (?,?,?,?,?,?,?)",
                     data.blob_prices, step, bind);
}

Status read_blob_prices(sqlite3* db, const std::string& path, StoreContents& out) {
  GPUPLAN_TRY(bool present, has_table(db, path, "blob_prices"));
  if (!present) return {};  // a store of schema 3 or older, read as is
  GPUPLAN_TRY(StmtPtr q, prepare(db, path, R"sql(
      SELECT b.region, b.tier, b.redundancy, b.from_gb, b.usd_per_gb_month, b.as_of,
             s.source, s.imported_at
      FROM blob_prices b JOIN snapshots s ON s.id = b.snapshot
      WHERE b.snapshot = (SELECT MAX(c.snapshot) FROM blob_prices c
                          WHERE c.region = b.region AND c.tier = b.tier
                            AND c.redundancy = b.redundancy)
      ORDER BY b.region, b.tier, b.redundancy, b.from_gb)sql"));
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index;
  while (true) {
    GPUPLAN_TRY(const bool row, next_row(q.get(), path));
    if (!row) break;
    auto key =
        std::make_tuple(column_text(q.get(), 0), column_text(q.get(), 1), column_text(q.get(), 2));
    auto [it, inserted] = index.emplace(key, out.blob_prices.size());
    if (inserted) {
      BlobPrice p;
      p.region = std::get<0>(key);
      p.tier = std::get<1>(key);
      p.redundancy = std::get<2>(key);
      p.source = "Azure Retail Prices API, imported " + column_text(q.get(), 7).substr(0, 10) +
                 " (" + column_text(q.get(), 6) + ")";
      out.blob_prices.push_back(std::move(p));
    }
    BlobPrice& p = out.blob_prices[it->second];
    const std::string key_text = p.region + " " + p.tier + " " + p.redundancy;
    GPUPLAN_TRY(double from,
                column_number(q.get(), 3, path, "blob_prices.from_gb", key_text, kMaxCount));
    GPUPLAN_TRY(double usd, column_number(q.get(), 4, path, "blob_prices.usd_per_gb_month",
                                          key_text, kMaxPriceUsd));
    p.bands.push_back({from, usd});
    p.as_of = std::max(p.as_of, column_text(q.get(), 5));
  }
  return {};
}

}  // namespace gpuplan::catalog::internal
