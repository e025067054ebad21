// Tests of the Resource Graph spot importer: bands and price history from
// the two-page sample, paging through the envelope, and bad input (unknown
// band, bad JSON, envelopes that do not add up) with file and JSON path.
#include "catalog/import_spot.h"

#include <gtest/gtest.h>

#include "catalog/internal/import_test_util.h"

namespace gpuplan::catalog {
namespace {

using testing::fixture;

SizeFilter gpus() { return SizeFilter::gpu_name_pattern(); }

// A page with `rows` (JSON texts) and the envelope's numbers.
std::string page(const std::vector<std::string>& rows, const std::string& tail) {
  std::string data;
  for (const std::string& r : rows) data += (data.empty() ? "" : ",") + r;
  return "{\"count\": " + std::to_string(rows.size()) + ", \"data\": [" + data + "]" + tail + "}";
}
std::string band_row(const std::string& size, const std::string& region, const std::string& band) {
  return R"({"type": "microsoft.compute/skuspotevictionrate/location", "skuName": ")" + size +
         R"(", "location": ")" + region + R"(", "evictionRate": ")" + band +
         R"(", "osType": "", "spotPrices": null})";
}

TEST(Spot, TwoPagesOfTheSample) {
  auto r = import_spot_files({fixture("spot_page1.json"), fixture("spot_page2.json")}, gpus(),
                             "2026-11-30");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->data.kind, SnapshotKind::kSpot);
  EXPECT_EQ(r->pages, 2);
  EXPECT_EQ(r->items_read, 7);
  EXPECT_EQ(r->items_used, 6);
  EXPECT_EQ(r->ignored.at("not a GPU size of the catalog"), 1);  // Standard_D2s_v4
  ASSERT_EQ(r->data.spot_bands.size(), 4u);
  const SpotBandRow& b = r->data.spot_bands[1];  // sorted by size, region
  EXPECT_EQ(b.size, "Standard_NC80adis_H100_v5");
  EXPECT_EQ(b.region, "malaysiawest");
  EXPECT_EQ(b.band, EvictionBand::k20Plus);
  EXPECT_EQ(b.as_of, "2026-11-30");
  ASSERT_EQ(r->data.spot_prices.size(), 4u);
  // Linux points oldest first, then the Windows one.
  EXPECT_EQ(r->data.spot_prices[0].effective_date, "2026-09-02");
  EXPECT_DOUBLE_EQ(r->data.spot_prices[2].usd_per_hour, 0.7921);
  EXPECT_EQ(r->data.spot_prices[3].os, Os::kWindows);
  // Complete: no "incomplete" note.
  for (const std::string& n : r->notes) EXPECT_EQ(n.find("incomplete"), std::string::npos) << n;
}

TEST(Spot, EveryDocumentedBandAndNothingElse) {
  for (EvictionBand band : kAllEvictionBands) {
    std::string text =
        page({band_row("Standard_NC24ads_A100_v4", "East US", std::string(to_string(band)))},
             ", \"skip_token\": null, \"total_records\": 1");
    auto r = import_spot_text(text, "p.json", gpus(), "2026-11-30");
    ASSERT_TRUE(r) << r.error().to_string();
    ASSERT_EQ(r->data.spot_bands.size(), 1u);
    EXPECT_EQ(r->data.spot_bands[0].band, band);
    EXPECT_EQ(r->data.spot_bands[0].region, "eastus");
  }
  for (const char* bad : {"5-15", "0-5%", " 0-5", "20", "high", ""}) {
    std::string text = page({band_row("Standard_NC24ads_A100_v4", "eastus", "0-5"),
                             band_row("Standard_NC40ads_H100_v5", "eastus", bad)},
                            "");
    auto r = import_spot_text(text, "p.json", gpus(), "2026-11-30");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.error().where.file, "p.json");
    EXPECT_EQ(r.error().where.field, "data[1].evictionRate");
    EXPECT_NE(r.error().message.find("unknown eviction-rate band"), std::string::npos);
  }
}

TEST(Spot, BadJsonNamesLineAndColumn) {
  auto r = import_spot_files({fixture("bad/spot_malformed.json")}, gpus(), "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().where.line, 6);
  EXPECT_GT(r.error().where.column, 0);
  for (const char* text : {"", "[]", "{\"data\": {}}", "{\"count\": 1}", "null"}) {
    auto e = import_spot_text(text, "p.json", gpus(), "");
    ASSERT_FALSE(e) << text;
    EXPECT_EQ(e.error().code, ErrorCode::kInvalidArgument) << text;
  }
}

TEST(Spot, PagingEnvelopeMustAddUp) {
  // count must be the rows the page holds.
  auto c = import_spot_files({fixture("bad/spot_count_mismatch.json")}, gpus(), "");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().where.field, "count");
  // The same page twice: more rows than total_records.
  auto twice =
      import_spot_files({fixture("spot_page1.json"), fixture("spot_page1.json")}, gpus(), "");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().where.field, "total_records");
  EXPECT_NE(twice.error().message.find("given twice"), std::string::npos);
  // Pages of two different queries.
  auto mixed = import_spot_files({fixture("spot_page1.json"), fixture("bad/spot_other_query.json")},
                                 gpus(), "");
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().where.file, fixture("bad/spot_other_query.json"));
  EXPECT_EQ(mixed.error().where.field, "total_records");
  // Only the first page: imported, and the report says more pages exist.
  auto first = import_spot_files({fixture("spot_page1.json")}, gpus(), "2026-11-30");
  ASSERT_TRUE(first) << first.error().to_string();
  bool incomplete = false;
  for (const std::string& n : first->notes)
    incomplete |= n.find("incomplete: the pages hold 4 of 7") == 0;
  EXPECT_TRUE(incomplete);
  // skip_token must be a string or null.
  auto token = import_spot_text(
      page({band_row("Standard_NC24ads_A100_v4", "eastus", "0-5")}, ", \"skip_token\": 5"),
      "p.json", gpus(), "");
  ASSERT_FALSE(token);
  EXPECT_EQ(token.error().where.field, "skip_token");
}

TEST(Spot, DuplicatesAreDroppedConflictsRefused) {
  auto same = import_spot_text(page({band_row("Standard_NC24ads_A100_v4", "eastus", "5-10"),
                                     band_row("Standard_NC24ads_A100_v4", "eastus", "5-10")},
                                    ""),
                               "p.json", gpus(), "2026-11-30");
  ASSERT_TRUE(same) << same.error().to_string();
  EXPECT_EQ(same->data.spot_bands.size(), 1u);
  EXPECT_EQ(same->ignored.at("duplicate row"), 1);
  auto conflict = import_spot_text(page({band_row("Standard_NC24ads_A100_v4", "eastus", "5-10"),
                                         band_row("Standard_NC24ads_A100_v4", "eastus", "20+")},
                                        ""),
                                   "p.json", gpus(), "2026-11-30");
  ASSERT_FALSE(conflict);
  EXPECT_EQ(conflict.error().where.field, "data[1].evictionRate");
  EXPECT_NE(conflict.error().message.find("conflicts with \"5-10\" at p.json: data[0]"),
            std::string::npos)
      << conflict.error().message;
}

TEST(Spot, PricesNeedANumberAndADate) {
  auto r = import_spot_files({fixture("bad/spot_bad_price.json")}, gpus(), "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where.field, "data[0].spotPrices[0].priceUSD");
  std::string bad_date = page(
      {R"({"type": "microsoft.compute/skuspotpricehistory/ostype/location", "skuName": "Standard_NC24ads_A100_v4", "location": "eastus", "osType": "Linux", "spotPrices": [{"effectiveDate": "2026-13-01T00:00:00Z", "priceUSD": 0.5}]})"},
      "");
  auto d = import_spot_text(bad_date, "p.json", gpus(), "");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().where.field, "data[0].spotPrices[0].effectiveDate");
  std::string bad_os = page(
      {R"({"type": "microsoft.compute/skuspotpricehistory/ostype/location", "skuName": "Standard_NC24ads_A100_v4", "location": "eastus", "osType": "Solaris", "spotPrices": [{"effectiveDate": "2026-11-01", "priceUSD": 0.5}]})"},
      "");
  auto o = import_spot_text(bad_os, "p.json", gpus(), "");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().where.field, "data[0].osType");
}

TEST(Spot, AsOfMustBeADate) {
  auto r = import_spot_files({fixture("spot_page1.json")}, gpus(), "30/11/2026");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where.field, "--as-of");
  EXPECT_TRUE(is_iso_date("2028-02-29"));
  EXPECT_FALSE(is_iso_date("2026-02-29"));
  EXPECT_FALSE(is_iso_date("2026-04-31"));
}

TEST(Spot, OnlyNonGpuRowsIsNothingToImport) {
  auto r = import_spot_text(page({band_row("Standard_D2s_v4", "eastus", "0-5")}, ""), "p.json",
                            gpus(), "");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nothing to import"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::catalog
