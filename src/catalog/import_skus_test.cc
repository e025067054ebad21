// Tests of the list-skus importer: availability with zones, Location and
// Zone restrictions, both document shapes, GPU counts never read, bad input.
#include "catalog/import_skus.h"

#include <gtest/gtest.h>

#include "catalog/internal/import_test_util.h"

namespace gpuplan::catalog {
namespace {

using testing::fixture;
using testing::fixture_filter;

TEST(Skus, AvailabilityAndRestrictionsFromBareArray) {
  auto r = import_skus_file(fixture("list_skus_gpu.json"), fixture_filter());
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->data.kind, SnapshotKind::kSkus);
  EXPECT_EQ(r->items_read, 6);
  EXPECT_EQ(r->items_used, 4);
  EXPECT_EQ(r->ignored.at("size not a GPU size in the catalog"), 1);        // D8 v4
  EXPECT_EQ(r->ignored.at("not a virtualMachines SKU (resourceType)"), 1);  // disks

  // A100 eastus (zones sorted), ND eastus, NC40ads eastus + westeurope, NV6ads eastus.
  ASSERT_EQ(r->data.availability.size(), 5u);
  EXPECT_EQ(r->data.availability[0].size, "Standard_NC24ads_A100_v4");
  EXPECT_EQ(r->data.availability[0].region, "eastus");
  EXPECT_EQ(r->data.availability[0].zones, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(r->data.availability[2].region, "westeurope");

  ASSERT_EQ(r->data.restrictions.size(), 2u);
  const Restriction& zone = r->data.restrictions[0];  // sorted by size
  EXPECT_EQ(zone.size, "Standard_NC40ads_H100_v5");
  EXPECT_EQ(zone.region, "eastus");
  EXPECT_EQ(zone.zones, (std::vector<std::string>{"3"}));  // only zone 3: region still usable
  EXPECT_EQ(zone.reason, "NotAvailableForSubscription");
  const Restriction& whole = r->data.restrictions[1];
  EXPECT_EQ(whole.size, "Standard_ND96isr_H100_v5");
  EXPECT_TRUE(whole.zones.empty());  // type Location: the whole region
}

TEST(Skus, RestShapeWithValueArray) {
  auto r = import_skus_file(fixture("list_skus_rest.json"), fixture_filter());
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->items_read, 3);
  EXPECT_EQ(r->data.availability.size(), 3u);
  EXPECT_EQ(r->data.restrictions.size(), 1u);
  EXPECT_TRUE(r->notes.empty());  // nextLink null
}

// The "GPUs" capability says 1 for NV6ads_A10_v5 (the VM gets 1/6 of an A10):
// nothing the importer produces carries a GPU count, so nothing can
// overwrite the catalog's 0.1667 (Catalog::load overlays only prices,
// quota, availability and restrictions).
TEST(Skus, NeverCarriesTheRoundedGpuCount) {
  auto r = import_skus_file(fixture("list_skus_gpu.json"), fixture_filter());
  ASSERT_TRUE(r);
  bool found = false;
  for (const auto& a : r->data.availability) found |= a.size == "Standard_NV6ads_A10_v5";
  EXPECT_TRUE(found);
  EXPECT_TRUE(r->data.prices.empty());
  EXPECT_TRUE(r->data.usage.empty());
  // The filter's sizes (the catalog's) keep their fractional count.
  EXPECT_DOUBLE_EQ(testing::fixture_sizes()[3].gpu_count, 0.1667);
}

struct BadCase {
  const char* file;
  const char* where;
  const char* message;
};
class SkusBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(SkusBadInput, FailsWithFileAndPath) {
  const BadCase& c = GetParam();
  std::string path = fixture(std::string("bad/") + c.file);
  auto r = import_skus_file(path, fixture_filter());
  ASSERT_FALSE(r) << c.file << " was accepted";
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  std::string text = r.error().to_string();
  EXPECT_NE(text.find(path), std::string::npos) << text;
  EXPECT_NE(text.find(c.where), std::string::npos) << text;
  EXPECT_NE(text.find(c.message), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, SkusBadInput,
    ::testing::Values(BadCase{"skus_not_list.json", "skus_not_list.json", "not list-skus output"},
                      BadCase{"skus_bad_locations.json", "[1].locations",
                              "expected an array of strings, got a string"},
                      BadCase{"skus_unknown_restriction.json", "[0].restrictions[0].type",
                              "unknown restriction type 'Region' (expected Location or Zone)"},
                      BadCase{"skus_missing_name.json", "[0].name",
                              "missing field (expected a string)"},
                      BadCase{"skus_truncated.json", "skus_truncated.json:", "invalid JSON"},
                      BadCase{"rp_empty.json", "rp_empty.json", "empty file"}));

}  // namespace
}  // namespace gpuplan::catalog
