// Tests of the Retail Prices importer: interpretation of every item type in
// the fixtures (numbers worked out by hand below), the bad-input corpus with
// its expected errors, and --live against a loopback HTTP server.
#include "catalog/import_retail_prices.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

#include "catalog/internal/fetch_policy.h"
#include "catalog/internal/import_test_util.h"
#include "core/files.h"

namespace gpuplan::catalog {
namespace {

using testing::fixture;
using testing::fixture_filter;

const PriceRow* find(const ImportReport& r, const std::string& size, const std::string& region,
                     Os os, Pricing p) {
  for (const PriceRow& row : r.data.prices)
    if (row.size == size && row.region == region && row.os == os && row.pricing == p) return &row;
  return nullptr;
}

constexpr const char* kA100 = "Standard_NC24ads_A100_v4";
constexpr const char* kH100 = "Standard_NC40ads_H100_v5";
constexpr const char* kND = "Standard_ND96isr_H100_v5";

TEST(RetailPrices, InterpretsEveryItemKindAcrossTwoPages) {
  auto r = import_retail_price_files(
      {fixture("retail_prices_page1.json"), fixture("retail_prices_page2.json")}, fixture_filter(),
      "");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->pages, 2);
  EXPECT_EQ(r->items_read, 16);
  // Ignored: Low Priority, DevTestConsumption, D8 v4 (not GPU), non-primary meter.
  EXPECT_EQ(r->items_used, 12);
  EXPECT_EQ(r->ignored.at("Low Priority meter (Azure Batch only)"), 1);
  EXPECT_EQ(r->ignored.at("DevTestConsumption (Dev/Test subscription rates, not retail)"), 1);
  EXPECT_EQ(r->ignored.at("size not a GPU size in the catalog"), 1);
  EXPECT_EQ(r->ignored.at("non-primary meter region (duplicate of the primary meter)"), 1);
  EXPECT_EQ(r->rows_superseded, 1);  // NC40ads 7.50 from 2023-10-01 < 6.98 from 2024-06-01
  // Rows: A100 linux payg+spot+ri1+ri3+sp1+sp3, A100 windows payg+sp1+sp3, H100 payg,
  // H100 windows spot, ND payg+spot+ri1, A100 westeurope payg = 15.
  EXPECT_EQ(r->data.prices.size(), 15u);

  const PriceRow* payg = find(*r, kA100, "eastus", Os::kLinux, Pricing::kPayg);
  ASSERT_NE(payg, nullptr);
  EXPECT_DOUBLE_EQ(payg->usd_per_hour, 3.673);
  EXPECT_EQ(payg->as_of, "2024-03-01");
  EXPECT_DOUBLE_EQ(find(*r, kA100, "eastus", Os::kLinux, Pricing::kSpot)->usd_per_hour, 0.7346);
  // Reservation: whole-term price / (8760 h x years): 21900 / 8760 = 2.5; 39420 / 26280 = 1.5.
  EXPECT_DOUBLE_EQ(find(*r, kA100, "eastus", Os::kLinux, Pricing::kReserved1y)->usd_per_hour, 2.5);
  EXPECT_DOUBLE_EQ(find(*r, kA100, "eastus", Os::kLinux, Pricing::kReserved3y)->usd_per_hour, 1.5);
  // savingsPlan unitPrice is already hourly.
  EXPECT_DOUBLE_EQ(find(*r, kA100, "eastus", Os::kLinux, Pricing::kSavings1y)->usd_per_hour,
                   2.7548);
  EXPECT_DOUBLE_EQ(find(*r, kA100, "eastus", Os::kLinux, Pricing::kSavings3y)->usd_per_hour, 1.9);
  EXPECT_DOUBLE_EQ(find(*r, kA100, "eastus", Os::kWindows, Pricing::kPayg)->usd_per_hour, 4.777);
  EXPECT_DOUBLE_EQ(find(*r, kA100, "eastus", Os::kWindows, Pricing::kSavings3y)->usd_per_hour,
                   3.003);
  const PriceRow* h100 = find(*r, kH100, "eastus", Os::kLinux, Pricing::kPayg);
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->usd_per_hour, 6.98);  // the 2024-06-01 item, not 7.50 from 2023
  EXPECT_EQ(h100->as_of, "2024-06-01");
  // " Spot" in skuName of a Windows product -> windows spot.
  EXPECT_DOUBLE_EQ(find(*r, kH100, "eastus", Os::kWindows, Pricing::kSpot)->usd_per_hour, 1.74);
  EXPECT_EQ(find(*r, kH100, "eastus", Os::kLinux, Pricing::kSpot), nullptr);
  // 630720 / 8760 = 72.0
  EXPECT_DOUBLE_EQ(find(*r, kND, "eastus", Os::kLinux, Pricing::kReserved1y)->usd_per_hour, 72.0);
  EXPECT_DOUBLE_EQ(find(*r, kA100, "westeurope", Os::kLinux, Pricing::kPayg)->usd_per_hour, 4.04);
  EXPECT_EQ(r->data.source,
            fixture("retail_prices_page1.json") + ", " + fixture("retail_prices_page2.json"));
  EXPECT_TRUE(r->notes.empty());  // the last page's NextPageLink is null
}

TEST(RetailPrices, RegionNarrowsAndMissingPagesAreNoted) {
  auto r =
      import_retail_price_files({fixture("retail_prices_page1.json")}, fixture_filter(), "East US");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->data.prices.size(), 9u);
  for (const PriceRow& p : r->data.prices) EXPECT_EQ(p.region, "eastus");
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("NextPageLink"), std::string::npos);

  auto w = import_retail_price_files({fixture("retail_prices_page2.json")}, fixture_filter(),
                                     "westeurope");
  ASSERT_TRUE(w) << w.error().to_string();
  ASSERT_EQ(w->data.prices.size(), 1u);
  EXPECT_EQ(w->ignored.at("other region than --region"), 6);
}

TEST(RetailPrices, NamePatternWithoutACatalog) {
  auto r = import_retail_price_files({fixture("retail_prices_page1.json")},
                                     SizeFilter::gpu_name_pattern(), "");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->ignored.at("size not a GPU size (Standard_N[CDGV]...)"), 1);  // D8 v4
  EXPECT_EQ(r->data.prices.size(), 9u);
}

// The Retail Prices API lists Azure Government and Azure China prices beside
// the public cloud's; a public-cloud subscription cannot deploy there, and a
// US Gov spot price once became a plan's first choice. They are counted and
// left out.
TEST(RetailPrices, SovereignCloudRegionsAreLeftOut) {
  auto r =
      import_retail_price_files({fixture("retail_prices_sovereign.json")}, fixture_filter(), "");
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_EQ(r->data.prices.size(), 1u);
  EXPECT_EQ(r->data.prices.front().region, "eastus");
  EXPECT_EQ(r->ignored.at("sovereign cloud region (Azure Government or Azure China: its own cloud "
                          "and subscriptions)"),
            3);
  // Asking for one by name is refused, naming the flag and why.
  auto gov = import_retail_price_files({fixture("retail_prices_sovereign.json")}, fixture_filter(),
                                       "usgovvirginia");
  ASSERT_FALSE(gov);
  EXPECT_EQ(gov.error().where.field, "--region");
  EXPECT_NE(gov.error().message.find("sovereign cloud region"), std::string::npos);
}

// A retired meter keeps its items ("... Expired"): one with an armSkuName
// and a later date once became NC24ads_A100_v4's payg price, $0.50.
TEST(RetailPrices, ExpiredMetersAreLeftOut) {
  auto r = import_retail_price_files({fixture("retail_prices_expired.json")}, fixture_filter(), "");
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_FALSE(r->data.prices.empty());
  for (const auto& p : r->data.prices) {
    if (p.pricing == Pricing::kPayg) {
      EXPECT_DOUBLE_EQ(p.usd_per_hour, 3.673);
    }
  }
  EXPECT_EQ(r->ignored.at("Expired meter (retired, kept for billing history)"), 1);
}

struct BadCase {
  const char* file;
  const char* where;    // Error::to_string() must contain this (file, path)
  const char* message;  // and this
};

class RetailPricesBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(RetailPricesBadInput, FailsWithFileAndPath) {
  const BadCase& c = GetParam();
  std::string path = fixture(std::string("bad/") + c.file);
  auto r =
      import_retail_price_files({fixture("retail_prices_page2.json"), path}, fixture_filter(), "");
  ASSERT_FALSE(r) << c.file << " was accepted";
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  std::string text = r.error().to_string();
  EXPECT_NE(text.find(path), std::string::npos) << text;
  EXPECT_NE(text.find(c.where), std::string::npos) << text;
  EXPECT_NE(text.find(c.message), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, RetailPricesBadInput,
    ::testing::Values(
        BadCase{"rp_malformed.json", ":3:", "invalid JSON"},
        BadCase{"rp_truncated.json", "rp_truncated.json:", "invalid JSON"},
        BadCase{"rp_empty.json", "rp_empty.json", "empty file (expected JSON)"},
        BadCase{"rp_nan.json", ":1:", "invalid JSON"},
        BadCase{"rp_price_string.json", "Items[1].retailPrice",
                "expected a number, got a string \"3.673\""},
        BadCase{"rp_price_negative.json", "Items[0].retailPrice", "negative value -3.6730"},
        // 1e308 imported once, and `cost` printed "inf USD" from it.
        BadCase{"rp_price_huge.json", "Items[0].retailPrice", "implausible value 1e+308"},
        // 5e-324 imported, and `cost` printed a 330-digit price.
        BadCase{"rp_price_tiny.json", "Items[0].retailPrice", "implausible value 4.94066e-324"},
        BadCase{"rp_unknown_type.json", "Items[2].type",
                "unknown price type 'Promotion' (expected Consumption, Reservation or "
                "DevTestConsumption)"},
        BadCase{"rp_missing_sku.json", "Items[1].armSkuName", "missing field (expected a string)"},
        BadCase{"rp_bad_term.json", "Items[0].reservationTerm",
                "unknown reservation term '2 Years'"},
        BadCase{"rp_count_mismatch.json", "Count", "page says Count 5 but holds 2 items"},
        BadCase{"rp_not_page.json", "rp_not_page.json", "not a Retail Prices API page"},
        BadCase{"rp_bad_savings.json", "Items[0].savingsPlan[0].unitPrice",
                "expected a number, got a string"},
        BadCase{"rp_eur.json", "Items[0].currencyCode", "price in EUR"},
        // The second retailPrice (0.01) once won, and every break-even read
        // "never".
        BadCase{"rp_duplicate_key.json", ":7:7: retailPrice", "key given twice"},
        BadCase{"rp_bad_date.json", "Items[0].effectiveStartDate", "'March 2024' is not a date"},
        BadCase{"rp_feb30.json", "Items[0].effectiveStartDate",
                "'2024-02-30T00:00:00Z' is not a date"},
        BadCase{"rp_items_not_array.json", "Items", "expected an array, got an object"}));

TEST(RetailPrices, StoragePageGivesBlobCapacityBandsAndIgnoresTheRest) {
  auto r = import_retail_price_files({fixture("retail_prices_storage.json")}, fixture_filter(), "");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->items_read, 12);
  EXPECT_TRUE(r->data.prices.empty());
  // eastus2: hot LRS x3 bands, cool LRS, hot GRS; eastus: hot LRS x3, cool LRS.
  ASSERT_EQ(r->data.blob_prices.size(), 9u);
  auto band = [&](const std::string& region, const std::string& tier, const std::string& red,
                  double from) -> const BlobPriceRow* {
    for (const BlobPriceRow& b : r->data.blob_prices)
      if (b.region == region && b.tier == tier && b.redundancy == red && b.from_gb == from)
        return &b;
    return nullptr;
  };
  ASSERT_NE(band("eastus2", "hot", "LRS", 51200), nullptr);
  EXPECT_DOUBLE_EQ(band("eastus2", "hot", "LRS", 51200)->usd_per_gb_month, 0.0177);
  EXPECT_DOUBLE_EQ(band("eastus", "cool", "LRS", 0)->usd_per_gb_month, 0.0152);
  EXPECT_EQ(band("eastus2", "hot", "LRS", 0)->as_of, "2017-02-03");
  ASSERT_NE(band("eastus2", "hot", "GRS", 0), nullptr);
  // Write operations and the legacy "Blob Storage" product are not capacity
  // prices of the account we assume; the non-primary duplicate is dropped.
  EXPECT_EQ(r->ignored.at("Storage price other than Blob capacity (General Block Blob v2, Data "
                          "Stored)"),
            2);
  EXPECT_EQ(r->ignored.at("non-primary meter region (duplicate of the primary meter)"), 1);
  EXPECT_EQ(r->items_used, 9);
}

TEST(RetailPrices, StoragePageNarrowsByRegion) {
  auto r = import_retail_price_files({fixture("retail_prices_storage.json")}, fixture_filter(),
                                     "eastus");
  ASSERT_TRUE(r) << r.error().to_string();
  for (const BlobPriceRow& b : r->data.blob_prices) EXPECT_EQ(b.region, "eastus");
  EXPECT_EQ(r->data.blob_prices.size(), 4u);
}

TEST(RetailPrices, NothingUsableIsAnError) {
  auto r = import_retail_price_files({fixture("bad/rp_only_non_gpu.json")}, fixture_filter(), "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("nothing to import: 1 items read"), std::string::npos)
      << r.error().message;
}

TEST(RetailPrices, MissingFileIsNotFound) {
  auto r = import_retail_price_files({fixture("no_such_page.json")}, fixture_filter(), "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
}

// ---- --live against a loopback server -------------------------------------

class LoopbackServer {
 public:
  LoopbackServer() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }
  httplib::Server& server() { return server_; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  int port() const { return port_; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// Serves the two fixture pages, page 1 linking to page 2 on this server.
void serve_pages(LoopbackServer& s, std::atomic<int>& hits) {
  auto p1 = files::read_json(fixture("retail_prices_page1.json"));
  auto p2 = files::read_text(fixture("retail_prices_page2.json"));
  ASSERT_TRUE(p1 && p2);
  (*p1)["NextPageLink"] = s.url("/prices?page=2");
  std::string page1 = p1->dump();
  std::string page2 = *p2;
  s.server().Get(
      "/prices", [&hits, page1, page2](const httplib::Request& req, httplib::Response& res) {
        ++hits;
        res.set_content(req.get_param_value("page") == "2" ? page2 : page1, "application/json");
      });
}

LiveOptions fast(const std::string& endpoint) {
  LiveOptions o;
  o.endpoint = endpoint;
  o.initial_backoff = std::chrono::milliseconds(1);
  o.max_backoff = std::chrono::milliseconds(5);
  o.max_attempts = 3;
  o.timeout_s = 10;
  return o;
}

TEST(RetailPricesLive, FollowsNextPageLink) {
  LoopbackServer s;
  std::atomic<int> hits{0};
  serve_pages(s, hits);
  int progress_calls = 0;
  LiveOptions o = fast(s.url("/prices?page=1"));
  o.progress = [&](int, int64_t) { ++progress_calls; };
  auto r = import_retail_prices_live(o, fixture_filter());
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(hits.load(), 2);
  EXPECT_EQ(progress_calls, 2);
  EXPECT_EQ(r->pages, 2);
  EXPECT_EQ(r->data.prices.size(), 15u);  // same as the two files
  EXPECT_EQ(r->data.source, s.url("/prices?page=1"));
}

TEST(RetailPricesLive, RetriesA429ThenSucceeds) {
  LoopbackServer s;
  std::atomic<int> hits{0};
  std::string page = *files::read_text(fixture("retail_prices_page2.json"));
  s.server().Get("/p", [&](const httplib::Request&, httplib::Response& res) {
    if (++hits == 1) {
      res.status = 429;
      res.set_header("Retry-After", "0");
      return;
    }
    res.set_content(page, "application/json");
  });
  auto r = import_retail_prices_live(fast(s.url("/p")), fixture_filter());
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(hits.load(), 2);
  EXPECT_EQ(r->data.prices.size(), 6u);
}

TEST(RetailPricesLive, RetriesA500ThenSucceeds) {
  LoopbackServer s;
  std::atomic<int> hits{0};
  std::string page = *files::read_text(fixture("retail_prices_page2.json"));
  s.server().Get("/p", [&](const httplib::Request&, httplib::Response& res) {
    if (++hits <= 2) {
      res.status = 500;
      return;
    }
    res.set_content(page, "application/json");
  });
  auto r = import_retail_prices_live(fast(s.url("/p")), fixture_filter());
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(hits.load(), 3);
}

TEST(RetailPricesLive, GivesUpAfterBoundedRetries) {
  LoopbackServer s;
  std::atomic<int> hits{0};
  s.server().Get("/p", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.status = 503;
  });
  auto r = import_retail_prices_live(fast(s.url("/p")), fixture_filter());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(hits.load(), 3);
  EXPECT_NE(r.error().message.find("after 3 attempts (HTTP 503)"), std::string::npos)
      << r.error().message;
}

TEST(RetailPricesLive, ClientErrorIsNotRetried) {
  LoopbackServer s;
  std::atomic<int> hits{0};
  s.server().Get("/p", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.status = 400;
    res.set_content("Invalid OData filter", "text/plain");
  });
  auto r = import_retail_prices_live(fast(s.url("/p")), fixture_filter());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(hits.load(), 1);
  EXPECT_NE(r.error().message.find("HTTP 400"), std::string::npos);
}

TEST(RetailPricesLive, ConnectionRefusedIsUnavailable) {
  int port = 0;
  {
    LoopbackServer s;  // take a free port, then close it
    port = s.port();
  }
  auto r = import_retail_prices_live(fast("http://127.0.0.1:" + std::to_string(port) + "/prices"),
                                     fixture_filter());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("network error"), std::string::npos) << r.error().message;
}

// gpuplan loads libcurl only for --live; without it the import is
// kUnavailable (exit 3) and says what to install, before any request.
TEST(RetailPricesLive, MissingLibcurlIsUnavailableAndSaysWhatToInstall) {
  LoopbackServer s;
  int requests = 0;
  s.server().Get("/p", [&](const httplib::Request&, httplib::Response& res) {
    ++requests;
    res.set_content("{}", "application/json");
  });
  LiveOptions o = fast(s.url("/p"));
  o.libcurl = "libgpuplan-no-such-curl.so.4";
  auto r = import_retail_prices_live(o, fixture_filter());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(exit_code_for(r.error().code), 3);
  EXPECT_NE(r.error().message.find("libcurl could not be loaded"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("libcurl4"), std::string::npos) << r.error().message;
  EXPECT_EQ(requests, 0);
}

TEST(RetailPricesLive, BadPageNamesUrlAndPath) {
  LoopbackServer s;
  std::string bad = *files::read_text(fixture("bad/rp_price_negative.json"));
  s.server().Get("/p", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(bad, "application/json");
  });
  auto r = import_retail_prices_live(fast(s.url("/p")), fixture_filter());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  std::string text = r.error().to_string();
  EXPECT_NE(text.find(s.url("/p") + " (page 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Items[0].retailPrice"), std::string::npos) << text;
}

TEST(RetailPricesLive, DefaultEndpointFiltersGpuVmsAndRegion) {
  std::string all = default_retail_prices_endpoint("");
  EXPECT_EQ(
      all.rfind("https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview", 0),
      0u);
  EXPECT_NE(all.find("Virtual%20Machines"), std::string::npos);
  EXPECT_EQ(all.find("armRegionName"), std::string::npos);
  EXPECT_NE(default_retail_prices_endpoint("East US").find("armRegionName%20eq%20%27eastus%27"),
            std::string::npos);
}

// ---- the fetch policy (issue 15, item 3) ----------------------------------

TEST(FetchPolicy, OriginsOfUrls) {
  auto o = url_origin("HTTPS://Prices.Azure.com:443/api?x=1", "f");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(*o, (UrlOrigin{"https", "prices.azure.com", 443}));
  EXPECT_EQ(*url_origin("https://prices.azure.com/api", "f"), *o);  // the default port
  auto v6 = url_origin("http://[::1]:8080/p", "f");
  ASSERT_TRUE(v6);
  EXPECT_TRUE(v6->loopback());
  EXPECT_EQ(v6->port, 8080);
  for (const char* bad : {"file:///etc/passwd", "gopher://x/", "https://user:pw@prices.azure.com/",
                          "https://prices.azure.com:99999/", "https://prices.azure.com/a b",
                          "https:///nohost", "prices.azure.com/api"})
    EXPECT_FALSE(url_origin(bad, "f")) << bad;
}

TEST(FetchPolicy, EndpointsMustBeHttpsOrLoopbackHttp) {
  EXPECT_TRUE(check_first_url(default_retail_prices_endpoint("eastus"), false));
  EXPECT_TRUE(check_first_url("https://mirror.example.org/prices", true));  // a user's mirror
  EXPECT_TRUE(check_first_url("http://127.0.0.1:8080/prices", true));
  auto plain = check_first_url("http://mirror.example.org/prices", true);
  ASSERT_FALSE(plain);
  EXPECT_EQ(plain.error().where.field, "--endpoint");
}

// `--endpoint file:///etc/passwd` printed the file in its error.
TEST(RetailPricesLive, FileUrlsAreRefusedBeforeAnythingIsRead) {
  auto r = import_retail_prices_live(fast("file:///etc/passwd"), fixture_filter());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().to_string(),
            "--endpoint: only https (or http on loopback) is fetched, not file: "
            "'file:///etc/passwd'");
}

TEST(RetailPricesLive, NextPageLinkToAnotherOriginIsNotFollowed) {
  LoopbackServer s;
  std::atomic<int> hits{0};
  auto p1 = files::read_json(fixture("retail_prices_page1.json"));
  ASSERT_TRUE(p1);
  for (const std::string& next :
       {std::string("https://evil.example/prices?page=2"),
        "http://127.0.0.1:" + std::to_string(s.port() + 1) + "/prices?page=2",
        std::string("file:///etc/passwd")}) {
    (*p1)["NextPageLink"] = next;
    const std::string page1 = p1->dump();
    s.server().Get("/first", [&hits, page1](const httplib::Request&, httplib::Response& res) {
      ++hits;
      res.set_content(page1, "application/json");
    });
    hits = 0;
    auto r = import_retail_prices_live(fast(s.url("/first")), fixture_filter());
    ASSERT_FALSE(r) << next;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.error().where.field, "NextPageLink") << r.error().to_string();
    EXPECT_EQ(hits.load(), 1);
  }
}

TEST(RetailPricesLive, PagesOverTheCapAndErrorBodiesAreCut) {
  LoopbackServer s;
  const std::string page = *files::read_text(fixture("retail_prices_page2.json"));
  s.server().Get("/big", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(page, "application/json");
  });
  s.server().Get("/secret", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content("root:x:0:0\n\x1b[31m" + std::string(10000, 's'), "text/plain");
  });
  LiveOptions o = fast(s.url("/big"));
  o.max_page_bytes = 1000;
  auto big = import_retail_prices_live(o, fixture_filter());
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("larger than 1000 bytes (raise with --max-page-mib)"),
            std::string::npos)
      << big.error().message;
  auto secret = import_retail_prices_live(fast(s.url("/secret")), fixture_filter());
  ASSERT_FALSE(secret);
  EXPECT_LT(secret.error().message.size(), 200u) << secret.error().message;
  EXPECT_EQ(secret.error().message.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::catalog
