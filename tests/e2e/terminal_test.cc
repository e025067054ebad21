// Issue 14, "fit the terminal": the text of every command fits COLUMNS (60
// and 80 here), --quiet prints one line, --verbose adds the full citations,
// and nothing prints a colour or any other escape sequence.
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/strings.h"
#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

size_t columns(const std::string& line) {
  size_t n = 0;
  for (char c : line) n += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
  return n;
}

CliResult run_at(const char* width, const std::vector<std::string>& args) {
  ::setenv("COLUMNS", width, 1);
  CliResult r = run_cli(args);
  ::unsetenv("COLUMNS");
  return r;
}

// The commands' text on the examples; simulate with few runs (the width does
// not depend on them).
std::vector<std::vector<std::string>> example_commands() {
  return {
      {"plan", source_path("examples/finetune-llama3-8b.yaml")},
      {"plan", source_path("examples/serve-llama3-8b.yaml")},
      {"estimate", source_path("examples/finetune-llama3-8b.yaml")},
      {"estimate", source_path("examples/serve-llama3-8b.yaml"), "--size",
       "Standard_NC40ads_H100_v5"},
      {"cost", "Standard_NC40ads_H100_v5", "--region", "eastus"},
      {"catalog", "--gpu", "H100"},
      {"catalog"},
      {"regions"},
      {"simulate", source_path("examples/sim-deadline-spot.yaml"), "--runs", "2"},
      {"simulate", source_path("examples/sim-serve-conv.yaml"), "--runs", "1"},
      {"simulate", source_path("examples/sim-reserve-growth.yaml"), "--runs", "1"},
  };
}

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) s += a + " ";
  return s;
}

TEST(Terminal, TextFitsSixtyAndEightyColumns) {
  for (const char* width : {"60", "80"}) {
    const size_t limit = std::strtoul(width, nullptr, 10);
    for (const auto& args : example_commands()) {
      const CliResult r = run_at(width, args);
      ASSERT_LE(r.code, 1) << joined(args) << r.err;
      ASSERT_FALSE(r.out.empty()) << joined(args);
      for (const std::string& line : strings::split(r.out, '\n')) {
        EXPECT_LE(columns(line), limit) << "COLUMNS=" << width << " " << joined(args) << "\n"
                                        << line;
      }
    }
  }
}

TEST(Terminal, NarrowTablesSayWhichColumnsWereLeftOut) {
  const CliResult wide = run_at("200", {"catalog", "--gpu", "H100"});
  const CliResult narrow = run_at("60", {"catalog", "--gpu", "H100"});
  ASSERT_EQ(wide.code, 0);
  ASSERT_EQ(narrow.code, 0);
  EXPECT_NE(wide.out.find("SERIES"), std::string::npos);
  EXPECT_EQ(narrow.out.find("  SERIES  "), std::string::npos) << narrow.out;
  // The note may wrap: read it as one line.
  std::string flat;
  for (const std::string& line : strings::split(narrow.out, '\n')) {
    flat += " " + std::string(strings::trim(line));
  }
  EXPECT_NE(flat.find("left out to fit 60 columns"), std::string::npos) << narrow.out;
  EXPECT_NE(flat.find("SERIES"), std::string::npos) << narrow.out;
  // The price and its date stay, whatever the width.
  EXPECT_NE(narrow.out.find("$/HOUR"), std::string::npos) << narrow.out;
  EXPECT_NE(narrow.out.find("Listed prices: Azure Retail Prices API, 20"), std::string::npos)
      << narrow.out;
}

TEST(Terminal, QuietPrintsJustTheAnswerOnOneLine) {
  struct Case {
    std::vector<std::string> args;
    std::string expect;  // a piece of the one line
  };
  const std::vector<Case> cases = {
      {{"plan", source_path("examples/finetune-llama3-8b.yaml"), "--quiet"}, " USD"},
      {{"estimate", source_path("examples/finetune-llama3-8b.yaml"), "-q"}, " h on Standard_"},
      {{"cost", "Standard_NC40ads_H100_v5", "--region", "eastus", "--quiet"}, " USD (payg, 730 h"},
      {{"catalog", "--gpu", "H100", "--quiet"}, " USD/h"},
      {{"simulate", source_path("examples/sim-deadline-spot.yaml"), "--runs", "2", "--quiet"},
       "% on time"},
  };
  for (const Case& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.code, 0) << joined(c.args) << r.err;
    ASSERT_FALSE(r.out.empty()) << joined(c.args);
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << joined(c.args) << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << joined(c.args) << "\n" << r.out;
  }
  // The plan's line is its first ranked option.
  const CliResult text = run_cli({"plan", source_path("examples/finetune-llama3-8b.yaml")});
  const CliResult quiet =
      run_cli({"plan", source_path("examples/finetune-llama3-8b.yaml"), "--quiet"});
  const std::string size = quiet.out.substr(0, quiet.out.find(' '));
  const size_t ranked = text.out.find("Ranked options");
  ASSERT_NE(ranked, std::string::npos);
  EXPECT_NE(text.out.find(size.substr(9), ranked), std::string::npos) << quiet.out;
  // Nothing feasible: nothing on stdout, exit 1, the reason on stderr.
  const CliResult none =
      run_cli({"plan", source_path("examples/infeasible-budget.yaml"), "--quiet"});
  EXPECT_EQ(none.code, 1);
  EXPECT_TRUE(none.out.empty()) << none.out;
  EXPECT_NE(none.err.find("no feasible option"), std::string::npos) << none.err;
  // --quiet and --verbose together are a usage error.
  EXPECT_EQ(run_cli({"cost", "Standard_NC40ads_H100_v5", "--region", "eastus", "-q", "-v"}).code,
            2);
}

TEST(Terminal, VerboseAddsFullCitations) {
  const std::vector<std::vector<std::string>> commands = {
      {"cost", "Standard_NC40ads_H100_v5", "--region", "eastus"},
      {"catalog", "--gpu", "H100", "--region", "eastus"},
      {"plan", source_path("examples/finetune-llama3-8b.yaml")},
      {"estimate", source_path("examples/finetune-llama3-8b.yaml")},
  };
  for (auto args : commands) {
    const CliResult plain = run_at("200", args);
    args.push_back("--verbose");
    const CliResult verbose = run_at("200", args);
    ASSERT_EQ(plain.code, 0) << joined(args) << plain.err;
    ASSERT_EQ(verbose.code, 0) << joined(args) << verbose.err;
    EXPECT_GT(verbose.out.size(), plain.out.size()) << joined(args);
  }
  // The price's source: publisher and date by default, the whole citation
  // (where the snapshot came from) with --verbose.
  auto prices_line = [](const std::string& out) {
    const size_t at = out.find("- prices: ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  const std::vector<std::string> cost = {"cost", "Standard_NC40ads_H100_v5", "--region", "eastus"};
  std::vector<std::string> cost_verbose = cost;
  cost_verbose.push_back("-v");
  const std::string short_line = prices_line(run_at("200", cost).out);
  const std::string full_line = prices_line(run_at("200", cost_verbose).out);
  EXPECT_NE(short_line.find(", 20"), std::string::npos) << short_line;  // its date
  EXPECT_GT(full_line.size(), short_line.size()) << full_line;
  EXPECT_EQ(full_line.rfind(short_line, 0), 0u) << full_line;
}

TEST(Terminal, NoEscapeSequencesAnywhere) {
  for (const auto& args : example_commands()) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << joined(args);
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << joined(args);
  }
}

}  // namespace
}  // namespace gpuplan::e2e
