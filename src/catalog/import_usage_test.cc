// Tests of the list-usage importer: regional, family and spot quota rows,
// family names matched ignoring case and spaces, both shapes, bad input.
#include "catalog/import_usage.h"

#include <gtest/gtest.h>

#include "catalog/internal/import_test_util.h"

namespace gpuplan::catalog {
namespace {

using testing::fixture;
using testing::fixture_filter;

const UsageRow* find(const ImportReport& r, const std::string& family) {
  for (const UsageRow& u : r.data.usage)
    if (u.family == family) return &u;
  return nullptr;
}

TEST(Usage, RegionalFamilyAndSpotRows) {
  auto r = import_usage_file(fixture("list_usage_eastus.json"), "East US", fixture_filter());
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->items_read, 8);
  EXPECT_EQ(r->items_used, 6);
  EXPECT_EQ(r->ignored.at("not a vCPU quota (availabilitySets)"), 1);
  EXPECT_EQ(r->ignored.at("not a vCPU quota (virtualMachines)"), 1);
  ASSERT_EQ(r->data.usage.size(), 6u);

  const UsageRow* regional = find(*r, "");
  ASSERT_NE(regional, nullptr);
  EXPECT_EQ(regional->region, "eastus");
  EXPECT_DOUBLE_EQ(regional->limit, 100);
  EXPECT_DOUBLE_EQ(regional->used, 29);
  EXPECT_EQ(regional->family_display, "Total Regional vCPUs");

  const UsageRow* spot = find(*r, "lowPriorityCores");
  ASSERT_NE(spot, nullptr);
  EXPECT_DOUBLE_EQ(spot->limit, 3);

  const UsageRow* a100 = find(*r, "StandardNCADSA100v4Family");
  ASSERT_NE(a100, nullptr);
  EXPECT_DOUBLE_EQ(a100->limit, 48);
  EXPECT_DOUBLE_EQ(a100->used, 24);
  EXPECT_EQ(a100->family_display, "Standard NCADS_A100_v4 Family vCPUs");
  // "Standard NCASv3_T4 Family" (spaces) matched the catalog's family.
  ASSERT_NE(find(*r, "Standard NCASv3_T4 Family"), nullptr);
  // A family no GPU size uses is kept under Azure's own name.
  ASSERT_NE(find(*r, "standardDSv3Family"), nullptr);
  ASSERT_FALSE(r->notes.empty());
  EXPECT_EQ(r->notes.back(), "families matched to GPU sizes of the catalog: 3");
}

// What `az vm list-usage -l eastus -o json` prints: currentValue and limit
// as strings (azure-cli's transform_vm_usage_list), a localName beside name.
// The same quota as the numbers the REST API returns.
TEST(Usage, TheCliPrintsCountsAsStrings) {
  auto cli = import_usage_file(fixture("list_usage_cli.json"), "eastus", fixture_filter());
  ASSERT_TRUE(cli) << cli.error().to_string();
  auto numbers = import_usage_file(fixture("list_usage_eastus.json"), "eastus", fixture_filter());
  ASSERT_TRUE(numbers);
  ASSERT_EQ(cli->data.usage.size(), numbers->data.usage.size());
  for (size_t i = 0; i < cli->data.usage.size(); ++i) {
    EXPECT_EQ(cli->data.usage[i].family, numbers->data.usage[i].family);
    EXPECT_DOUBLE_EQ(cli->data.usage[i].limit, numbers->data.usage[i].limit);
    EXPECT_DOUBLE_EQ(cli->data.usage[i].used, numbers->data.usage[i].used);
  }
  const UsageRow* a100 = find(*cli, "StandardNCADSA100v4Family");
  ASSERT_NE(a100, nullptr);
  EXPECT_DOUBLE_EQ(a100->limit, 48);
  // A string that is not a count is still refused (the bad corpus below),
  // and so is a negative one.
  auto neg =
      import_usage_text(R"([{"currentValue": "-1", "limit": "10", "name": {"value": "cores"}}])",
                        "neg.json", "eastus", fixture_filter());
  ASSERT_FALSE(neg);
  EXPECT_NE(neg.error().to_string().find("[0].currentValue"), std::string::npos);
  // vCPUs are whole: 12.5 is no quota, as a string or a number.
  for (const char* limit : {"\"12.5\"", "12.5"}) {
    auto half = import_usage_text(std::string(R"([{"currentValue": "1", "limit": )") + limit +
                                      R"(, "name": {"value": "cores"}}])",
                                  "half.json", "eastus", fixture_filter());
    ASSERT_FALSE(half) << limit;
    EXPECT_NE(half.error().to_string().find("[0].limit: expected a whole number, got 12.5"),
              std::string::npos)
        << half.error().to_string();
  }
}

TEST(Usage, RestShapeAndCaseInsensitiveFamily) {
  auto r = import_usage_file(fixture("list_usage_rest.json"), "eastus", fixture_filter());
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->items_read, 4);
  // "STANDARDNCADSA100V4FAMILY" is stored under the catalog's spelling.
  const UsageRow* a100 = find(*r, "StandardNCADSA100v4Family");
  ASSERT_NE(a100, nullptr);
  EXPECT_DOUBLE_EQ(a100->limit, 96);
  EXPECT_DOUBLE_EQ(a100->used, 48);
  EXPECT_DOUBLE_EQ(find(*r, "lowPriorityCores")->used, 2);
}

TEST(Usage, DisplayNameAloneMatches) {
  SizeFilter f = fixture_filter();
  EXPECT_EQ(f.match_family("somethingElse", "Standard NDSH100v5 Family vCPUs"),
            std::optional<std::string>("standardNDSH100v5Family"));
  EXPECT_EQ(f.match_family("standard_ncads_h100_v5_family", ""),
            std::optional<std::string>("StandardNCadsH100v5Family"));
  EXPECT_EQ(f.match_family("standardDSv3Family", "Standard DSv3 Family vCPUs"), std::nullopt);
}

TEST(Usage, RegionIsRequired) {
  auto r = import_usage_file(fixture("list_usage_eastus.json"), " ", fixture_filter());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("--region"), std::string::npos);
}

struct BadCase {
  const char* file;
  const char* where;
  const char* message;
};
class UsageBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(UsageBadInput, FailsWithFileAndPath) {
  const BadCase& c = GetParam();
  std::string path = fixture(std::string("bad/") + c.file);
  auto r = import_usage_file(path, "eastus", fixture_filter());
  ASSERT_FALSE(r) << c.file << " was accepted";
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  std::string text = r.error().to_string();
  EXPECT_NE(text.find(path), std::string::npos) << text;
  EXPECT_NE(text.find(c.where), std::string::npos) << text;
  EXPECT_NE(text.find(c.message), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, UsageBadInput,
    ::testing::Values(BadCase{"usage_bad_limit.json", "[1].limit",
                              "expected a number, got a string \"a hundred\""},
                      BadCase{"usage_negative.json", "[4].currentValue", "negative value -24.0000"},
                      // `regions` printed a 309-digit quota from it.
                      BadCase{"usage_limit_huge.json", "[1].limit", "implausible value 1e+308"},
                      BadCase{"usage_missing_name.json", "[2].name", "missing field"},
                      BadCase{"usage_duplicate.json", "[8]", "listed twice"},
                      // A quota of 999999 was stored from the second limit.
                      BadCase{"usage_duplicate_key.json", ": limit", "key given twice"},
                      BadCase{"usage_not_list.json", "usage_not_list.json",
                              "not list-usage output"},
                      BadCase{"rp_malformed.json", ":3:", "invalid JSON"}));

}  // namespace
}  // namespace gpuplan::catalog
