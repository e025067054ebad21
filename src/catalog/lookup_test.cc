#include "catalog/lookup.h"

#include <gtest/gtest.h>

namespace gpuplan::catalog {
namespace {

TEST(LookupSize, FindsWithOrWithoutPrefixAndSuggestsTheFullName) {
  auto cat = Catalog::load_embedded();
  ASSERT_TRUE(cat.has_value()) << cat.error().message;
  auto a = lookup_size(**cat, "nc40ads_h100_v5", Where{"", 0, 0, "--size"});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ((*a)->name, "Standard_NC40ads_H100_v5");
  auto b = lookup_size(**cat, "Standard_NC40ads_H100_v9", Where{"f.yaml", 3, 7, "vm.size"});
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(b.error().message,
            "unknown VM size 'Standard_NC40ads_H100_v9'; did you mean 'Standard_NC40ads_H100_v5'?");
  EXPECT_EQ(b.error().where.file, "f.yaml");
  EXPECT_EQ(b.error().where.field, "vm.size");
  // Nothing close: no suggestion.
  auto c = lookup_size(**cat, "Standard_Z9000", Where{});
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().message, "unknown VM size 'Standard_Z9000'");
}

}  // namespace
}  // namespace gpuplan::catalog
