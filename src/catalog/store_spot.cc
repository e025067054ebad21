// The spot import's tables in the store (schema 2): Azure Resource Graph
// SpotResources eviction bands per (size, region) and spot price history
// points per (size, region, OS, effective date), and how the newest of them
// joins the listed offers.
#include <map>

#include "catalog/internal/import_common.h"
#include "catalog/internal/store_db.h"
#include "core/strings.h"

namespace gpuplan::catalog::internal {

// The spot import's tables (schema version 2): Azure Resource Graph
// SpotResources eviction bands and spot price history points.
const char* const kSpotSchema = R"sql(
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

Status write_spot_rows(sqlite3* db, const std::string& path, int64_t id, const SnapshotData& data,
                       const StepFn& step) {
  GPUPLAN_RETURN_IF_ERROR(insert_each(
      db, path, "INSERT INTO spot_bands(snapshot, size, region, band, as_of) VALUES (?,?,?,?,?)",
      data.spot_bands, step, [&](sqlite3_stmt* s, const SpotBandRow& r) -> Status {
        bind_row(s, id, r.size, r.region, to_string(r.band), r.as_of);
        return {};
      }));
  return insert_each(
      db, path,
      "INSERT OR REPLACE INTO spot_prices(snapshot, size, region, os, "
      "effective_date, usd_per_hour) VALUES (?,?,?,?,?,?)",
      data.spot_prices, step, [&](sqlite3_stmt* s, const SpotPriceRow& r) -> Status {
        GPUPLAN_RETURN_IF_ERROR(
            check_price({r.usd_per_hour}, "spot price", data.source, r.size + " " + r.region));
        bind_row(s, id, r.size, r.region, to_string(r.os), r.effective_date, r.usd_per_hour);
        return {};
      });
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
  while (true) {
    GPUPLAN_TRY(const bool row, next_row(b.get(), path));
    if (!row) break;
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
  while (true) {
    GPUPLAN_TRY(const bool row, next_row(p.get(), path));
    if (!row) break;
    Offer o;
    o.size = column_text(p.get(), 0);
    o.region = column_text(p.get(), 1);
    auto os = parse_os(column_text(p.get(), 2));
    if (!os) return unavailable("store holds an unknown os for " + o.size, Where{path});
    o.os = *os;
    o.pricing = Pricing::kSpot;
    o.as_of = column_text(p.get(), 3);
    GPUPLAN_TRY(o.usd_per_hour, column_number(p.get(), 4, path, "spot_prices.usd_per_hour",
                                              o.size + " " + o.region + " " +
                                                  std::string(to_string(o.os)) + " " + o.as_of,
                                              kMaxPriceUsd));
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

}  // namespace gpuplan::catalog::internal
