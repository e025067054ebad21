// The command tree the completion scripts and the man page are written from
// (src/cli/command_tree.h), and the hidden commands that write them. The
// scripts' behaviour in bash and the rendered page are checked by
// tests/install (ctest CompletionScripts, ManPage).
#include <algorithm>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "cli/command_tree.h"
#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

using cli::CommandSpec;
using cli::OptionSpec;

const OptionSpec* find_option(const std::vector<OptionSpec>& v, const std::string& name) {
  for (const OptionSpec& o : v) {
    if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) return &o;
  }
  return nullptr;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(CommandTree, WalksCommandsOptionsValuesAndSkipsHidden) {
  CLI::App app{"gpuplan: test."};
  std::string mode, region, file;
  std::vector<std::string> sizes;
  bool flag = false;
  CLI::App* a = app.add_subcommand("alpha", "Alpha things. More words.\nExample: gpuplan alpha");
  a->add_option("--mode", mode, "a mode")->check(CLI::IsMember({"fast", "slow"}));
  a->add_option("--region", region, "a region");
  a->add_option("--size", sizes, "sizes");
  a->add_flag("--json", flag, "JSON");
  a->add_option("FILE", file, "input")->required();
  app.add_subcommand("secret", "hidden")->group("");

  auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat) << cat.error().to_string();
  const CommandSpec root = cli::describe_commands(app, cat->get());
  ASSERT_EQ(root.subcommands.size(), 1u);  // "secret" is hidden
  const CommandSpec& alpha = root.subcommands[0];
  EXPECT_EQ(cli::command_line_name(alpha), "gpuplan alpha");

  const OptionSpec* m = find_option(alpha.options, "--mode");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->takes_value);
  EXPECT_EQ(m->values, (std::vector<std::string>{"fast", "slow"}));
  const OptionSpec* r = find_option(alpha.options, "--region");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(contains(r->values, "eastus"));
  EXPECT_FALSE(contains(r->values, "eastsu"));
  const OptionSpec* s = find_option(alpha.options, "--size");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->repeatable);
  EXPECT_TRUE(contains(s->values, "Standard_NC40ads_H100_v5"));
  const OptionSpec* j = find_option(alpha.options, "--json");
  ASSERT_NE(j, nullptr);
  EXPECT_FALSE(j->takes_value);
  EXPECT_TRUE(j->values.empty());
  ASSERT_EQ(alpha.positionals.size(), 1u);
  EXPECT_EQ(alpha.positionals[0].names, std::vector<std::string>{"FILE"});
  EXPECT_TRUE(alpha.positionals[0].required);
  EXPECT_EQ(cli::summary(alpha.description), "Alpha things.");
}

TEST(CommandTree, SummaryIsTheFirstSentenceOfTheWrappedText) {
  EXPECT_EQ(cli::summary("Find the way to run it on Azure:\nevery size. More."),
            "Find the way to run it on Azure");
  EXPECT_EQ(cli::summary("One line\nwrapped here. Then more"), "One line wrapped here.");
  EXPECT_EQ(cli::summary("No stop\nExample: gpuplan x"), "No stop");
}

TEST(GeneratedFiles, HiddenCommandsWriteScriptsAndPageButAreNotListed) {
  auto bash = run_cli({"completion", "bash"});
  EXPECT_EQ(bash.code, 0) << bash.err;
  EXPECT_NE(bash.out.find("complete -F _gpuplan gpuplan"), std::string::npos);
  EXPECT_NE(bash.out.find("_gpuplan_subs['gpuplan/catalog/import']="), std::string::npos);
  auto zsh = run_cli({"completion", "zsh"});
  EXPECT_EQ(zsh.code, 0) << zsh.err;
  EXPECT_EQ(zsh.out.rfind("#compdef gpuplan\n", 0), 0u);
  auto fish = run_cli({"completion", "fish"});
  EXPECT_EQ(fish.code, 2);
  auto man = run_cli({"man"});
  EXPECT_EQ(man.code, 0) << man.err;
  EXPECT_NE(man.out.find(".SH NAME\ngpuplan \\- plan, price"), std::string::npos);
  EXPECT_NE(man.out.find(".SS \"\\fBgpuplan catalog import retail\\-prices\\fR"),
            std::string::npos);
  auto help = run_cli({"--help"});
  EXPECT_EQ(help.out.find("completion"), std::string::npos);
  EXPECT_EQ(help.out.find("\n  man "), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::e2e
