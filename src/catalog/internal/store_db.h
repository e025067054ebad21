// The store's SQLite layer, shared by the files that own its tables:
// store_db.cc (the RAII wrapper, the schema, opening and upgrading a store),
// store_prices.cc (retail prices and price_latest), store_spot.cc (the spot
// import's bands and price history), store_blob.cc (Blob capacity prices) and
// store.cc (snapshots: writing one import, reading the newest state).
// Nothing outside src/catalog/ includes this header.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <sqlite3.h>

#include "catalog/store.h"
#include "core/result.h"

namespace gpuplan::catalog::internal {

// 2 added the spot tables and the 'spot' snapshot kind; 3 price_latest (the
// newest price per key, maintained by every import); 4 blob_prices (Blob
// capacity prices from a Retail Prices Storage page). Stores of 1 to 3 are
// read as they are (each reader checks its table exists) and upgraded to 4
// by the next import (upgrade_schema()).
inline constexpr int kSchemaVersion = 4;
inline constexpr int kOldestReadableSchema = 1;

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;

struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

tl::unexpected<Error> db_error(sqlite3* db, const std::string& path, const std::string& what);
Status exec(sqlite3* db, const std::string& path, const char* sql);
Result<StmtPtr> prepare(sqlite3* db, const std::string& path, const char* sql);
// Steps a query: true on a row, false when it is done, an error naming the
// store otherwise. A damaged page (SQLITE_CORRUPT) or an I/O error ends a
// `while (sqlite3_step(s) == SQLITE_ROW)` loop as if the rows had ended,
// so a store with one bad page was read as one with fewer prices.
Result<bool> next_row(sqlite3_stmt* s, const std::string& path);
void bind_text(sqlite3_stmt* s, int i, std::string_view v);
// Binds `v...` to parameters 1..n of `s` in order: numbers as INTEGER or
// REAL, anything else as TEXT (copied). The one way rows are bound.
template <class... T>
void bind_row(sqlite3_stmt* s, const T&... v) {
  int i = 0;
  auto one = [&](const auto& x) {
    using X = std::decay_t<decltype(x)>;
    ++i;
    if constexpr (std::is_floating_point_v<X>) {
      sqlite3_bind_double(s, i, static_cast<double>(x));
    } else if constexpr (std::is_integral_v<X>) {
      sqlite3_bind_int64(s, i, static_cast<sqlite3_int64>(x));
    } else {
      bind_text(s, i, std::string_view(x));
    }
  };
  (one(v), ...);
}
std::string column_text(sqlite3_stmt* s, int i);
// Column i of a row read back from the store at `path`: a number (REAL or
// INTEGER), finite, from 0 to `max`, as every import wrote it; otherwise
// kInvalidArgument naming the file, `field` (table.column) and the row
// (`row`, e.g. "Standard_NC24ads_A100_v4 eastus linux payg"). The readers
// trusted the store: a price edited to text read as 0 (free compute), -5
// gave -3,650 USD a month and 1e308 "inf USD", all with exit 0.
Result<double> column_number(sqlite3_stmt* s, int i, const std::string& path,
                             std::string_view field, const std::string& row, double max);
std::string join(const std::vector<std::string>& v, char sep);
std::vector<std::string> split_nonempty(const std::string& s, char sep);
std::string utc_now();
Result<bool> has_table(sqlite3* db, const std::string& path, const char* name);
// kInvalidArgument "<what> is not a finite non-negative number", naming the
// import's `source` and the row's `key`, unless each of `values` is one: the
// store never holds a NaN, infinite or negative price.
Status check_price(std::initializer_list<double> values, std::string_view what,
                   const std::string& source, const std::string& key);

// Opens (and with `create`, creates or upgrades) the store and checks its
// schema. For reading, a file without any table yet yields a null DbPtr (an
// empty store). A SQLite file of another program is refused, never modified.
Result<DbPtr> open_store(const std::string& path, bool create);
// Sets meta.schema_version to kSchemaVersion (inside the caller's transaction).
Status mark_current_schema(sqlite3* db, const std::string& path);

// Runs one bound INSERT and resets it (store.cc's write_rows owns it: it
// counts rows for the kill -9 test hook).
using StepFn = std::function<Status(sqlite3_stmt*)>;

// Prepares the INSERT `sql` once and runs it through `step` for each of
// `rows`; `bind(stmt, row)` binds one row (bind_row) or refuses it with an
// error that ends the write. The one way an import's rows are written.
template <class Rows, class Bind>
Status insert_each(sqlite3* db, const std::string& path, const char* sql, const Rows& rows,
                   const StepFn& step, const Bind& bind) {
  GPUPLAN_TRY(StmtPtr s, prepare(db, path, sql));
  for (const auto& r : rows) {
    GPUPLAN_RETURN_IF_ERROR(bind(s.get(), r));
    GPUPLAN_RETURN_IF_ERROR(step(s.get()));
  }
  return {};
}

// ---- store_prices.cc: retail prices and price_latest ----
Status ensure_price_latest(sqlite3* db, const std::string& path);
Status write_price_rows(sqlite3* db, const std::string& path, int64_t id, const SnapshotData& data,
                        const StepFn& step);
Result<std::vector<Offer>> read_latest_prices(sqlite3* db, const std::string& path);

// ---- store_spot.cc: Resource Graph SpotResources ----
extern const char* const kSpotSchema;
Status write_spot_rows(sqlite3* db, const std::string& path, int64_t id, const SnapshotData& data,
                       const StepFn& step);
Status read_spot(sqlite3* db, const std::string& path, StoreContents& out);

// ---- store_blob.cc: Blob capacity prices ----
extern const char* const kBlobSchema;
Status write_blob_rows(sqlite3* db, const std::string& path, int64_t id, const SnapshotData& data,
                       const StepFn& step);
Status read_blob_prices(sqlite3* db, const std::string& path, StoreContents& out);

}  // namespace gpuplan::catalog::internal
