// `gpuplan report` end to end: the month fixtures of tests/data/report
// (generate.py says what is in them) read against a plan, in both formats,
// as a table and as JSON; bad exports exit 2 naming file, line and column.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

std::string data(const std::string& name) { return source_path("tests/data/report/" + name); }

std::multiset<std::string> findings(const nlohmann::json& j) {
  std::multiset<std::string> out;
  for (const auto& f : j.at("findings"))
    out.insert(f.at("kind").get<std::string>() + " " + f.at("subject").get<std::string>());
  return out;
}

TEST(ReportCli, FocusMonthAgainstThePlan) {
  auto r = run_cli({"report", data("focus_month.csv"), "--plan", data("plan_train.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(check_golden("report_focus_plan.txt", r.out), "");
}

TEST(ReportCli, TextFitsColumns) {
  for (const char* columns : {"80", "100"}) {
    ::setenv("COLUMNS", columns, 1);
    auto r = run_cli({"report", data("focus_month.csv"), "--plan", data("plan_train.json")});
    ::unsetenv("COLUMNS");
    ASSERT_EQ(r.code, 0) << r.err;
    size_t widest = 0;
    std::string line;
    for (std::istringstream in(r.out); std::getline(in, line);)
      widest = std::max(widest, line.size());
    EXPECT_LE(widest, std::stoul(columns)) << r.out;
    EXPECT_NE(r.out.find("dev-a100"), std::string::npos);
  }
}

TEST(ReportCli, BothFormatsFindTheSameThreeThingsAndNothingOnTheSteadyVm) {
  for (const char* file : {"focus_month.csv", "azure_month.csv"}) {
    auto r = run_cli({"report", data(file), "--plan", data("plan_train.json"), "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("schema"), "gpuplan.report/1");
    EXPECT_EQ(findings(j), (std::multiset<std::string>{"anomaly dev-a100", "beyond-plan train-h100",
                                                       "unused-commitment res-h100"}))
        << file;
    for (const auto& c : j.at("commitments")) {
      EXPECT_EQ(c.at("utilization").get<double>(), c.at("name") == "res-a100" ? 1.0 : 0.0) << file;
      EXPECT_EQ(c.at("size"), c.at("name") == "res-a100" ? "Standard_NC24ads_A100_v4"
                                                         : "Standard_NC40ads_H100_v5");
    }
    EXPECT_EQ(j.at("vms").size(), 3u);
  }
  auto azure = run_cli({"report", data("azure_month.csv"), "--json"});
  ASSERT_EQ(azure.code, 0) << azure.err;
  EXPECT_EQ(check_golden("report_azure.json", azure.out), "");
}

TEST(ReportCli, BadExportsExit2WithFileLineAndColumn) {
  std::string all;
  for (const char* bad : {"not_export.csv", "empty.csv", "focus_bad_cost.csv",
                          "focus_short_row.csv", "azure_bad_date.csv", "azure_open_quote.csv"}) {
    auto r = run_cli({"report", data(std::string("bad/") + bad)});
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_EQ(r.out, "") << bad;
    all += r.err;
  }
  auto missing = run_cli({"report", data("no_such_file.csv")});
  EXPECT_EQ(missing.code, 2);
  all += missing.err;
  auto option = run_cli(
      {"report", data("focus_month.csv"), "--plan", data("plan_train.json"), "--option", "2"});
  EXPECT_EQ(option.code, 2);
  all += option.err;
  auto k = run_cli({"report", data("focus_month.csv"), "--anomaly-k", "0"});
  EXPECT_EQ(k.code, 2);
  all += k.err;
  EXPECT_EQ(check_golden("report_bad.txt", all), "");
}

}  // namespace
}  // namespace gpuplan::e2e
