// The one YAML reader of workload specs and simulate scenarios: every error
// names file, line, column and field, and the same mistake reads the same
// way in either file.
#include "workload/yaml_reader.h"

#include <string>

#include <gtest/gtest.h>

namespace gpuplan::yaml {
namespace {

YAML::Node load_ok(const std::string& text) {
  auto root = load(text, "f.yaml");
  EXPECT_TRUE(root) << root.error().message;
  return root ? *root : YAML::Node();
}

TEST(YamlReader, NumbersTakeDigitGroupingAndNameTheRangeTheyMiss) {
  const YAML::Node root = load_ok("a: 2_000_000\nb: -5\nc: 2000\nd: 1.5\ne: 0\n");
  const Reader r("f.yaml");
  EXPECT_EQ(*r.number(root["a"], "a"), 2e6);
  auto neg = r.positive(root["b"], "b", 1000);
  ASSERT_FALSE(neg);
  EXPECT_EQ(neg.error().message, "must be greater than 0, got -5");
  EXPECT_EQ(neg.error().where.line, 2);
  EXPECT_EQ(neg.error().where.column, 4);
  EXPECT_EQ(neg.error().where.field, "b");
  EXPECT_EQ(neg.error().where.file, "f.yaml");
  auto high = r.positive(root["c"], "c", 1000);
  ASSERT_FALSE(high);
  EXPECT_EQ(high.error().message, "expected a number in (0, 1000], got 2000");
  auto range = r.number(root["c"], "c", 0, 1000);
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error().message, "expected a number in [0, 1000], got 2000");
  auto whole = r.integer(root["d"], "d", 0, 10);
  ASSERT_FALSE(whole);
  EXPECT_EQ(whole.error().message, "expected a whole number, got '1.5'");
  EXPECT_FALSE(r.positive_int(root["e"], "e"));
  EXPECT_EQ(*r.integer(root["e"], "e", 0, 10), 0);
}

TEST(YamlReader, UnknownKeysAndNonMappingsAreLocated) {
  const YAML::Node root = load_ok("job:\n  work_hour: 4\nlist: [a, b]\n");
  const Reader r("f.yaml");
  auto typo = r.check_map(root["job"], "job", {"work_hours", "deadline_hours"});
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().message, "unknown key 'work_hour'; did you mean 'work_hours'?");
  EXPECT_EQ(typo.error().where.field, "job.work_hour");
  EXPECT_EQ(typo.error().where.line, 2);
  EXPECT_EQ(typo.error().where.column, 3);
  auto list = r.check_map(root["list"], "list", {"x"});
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().message, "expected a mapping of keys (key: value)");
  EXPECT_FALSE(r.non_empty_string(load_ok("s: ''\n")["s"], "s"));
  EXPECT_EQ(*r.string(load_ok("s: ''\n")["s"], "s"), "");
}

TEST(YamlReader, LoadLocatesSyntaxErrorsAndRepeatedKeys) {
  auto syntax = load("a: {b: 1\n", "f.yaml");
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().where.file, "f.yaml");
  EXPECT_GT(syntax.error().where.line, 0);
  auto twice = load("a: 1\na: 2\n", "f.yaml");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().where.line, 2);
  EXPECT_EQ(twice.error().where.field, "a");
}

}  // namespace
}  // namespace gpuplan::yaml
