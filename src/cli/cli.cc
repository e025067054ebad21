#include "cli/cli.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "catalog/catalog.h"
#include "catalog/store.h"
#include "cli/command.h"
#include "core/files.h"
#include "core/strings.h"

namespace gpuplan::cli {

std::string store_path(const Context& ctx) {
  return ctx.db_path.empty() ? catalog::default_store_path() : ctx.db_path;
}

Result<std::unique_ptr<catalog::Catalog>> load_catalog(const Context& ctx) {
  const std::string path = store_path(ctx);
  // A store on read-only storage is read as it is (store.cc opens it
  // immutable); say so, since an import elsewhere would not be seen and
  // `catalog import` cannot write to it.
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0)
    ctx.err << "gpuplan: warning: the store " << path << " is read-only (" << std::strerror(errno)
            << "): reading it as it is; imports need a writable --db\n";
  return catalog::Catalog::load(path);
}

std::vector<std::string> split_list(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    for (const std::string& part : strings::split(v, ',')) {
      std::string t(strings::trim(part));
      if (!t.empty()) out.push_back(t);
    }
  }
  return out;
}

int report(Context& ctx, const Error& error) {
  // An error quotes what it was given: a 1 MB model name was echoed whole
  // to stderr. Past a screenful the rest is left out, and says how much.
  constexpr size_t kMostChars = 2000;
  std::string text = error.to_string();
  if (text.size() > kMostChars) {
    const size_t more = text.size() - kMostChars;
    text.resize(kMostChars);
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80)
      text.pop_back();  // not in the middle of a UTF-8 sequence
    if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
    text += "... (" + std::to_string(more) + " more bytes left out)";
  }
  ctx.err << "gpuplan: error: " << text << "\n";
  return exit_code_for(error.code);
}

namespace {

// The subcommand of `cmd` named `name`; null when none is.
CLI::App* subcommand_named(CLI::App& cmd, const std::string& name) {
  for (CLI::App* sub : cmd.get_subcommands([](CLI::App*) { return true; }))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// "did you mean" for a misspelt command or flag (issue 14): the first word
// that names no subcommand of the command chain so far, or the first flag
// the chosen command does not have, against the names it could have been.
std::string did_you_mean(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* cmd = &app;
  for (const std::string& a : args) {
    if (a.rfind("--", 0) == 0) {
      const std::string flag = a.substr(0, a.find('='));
      std::vector<std::string> names;
      for (const CLI::Option* o : cmd->get_options()) {
        for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
      }
      if (std::find(names.begin(), names.end(), flag) != names.end()) continue;
      if (auto c = strings::closest(flag, names)) return "Did you mean " + *c + "?\n";
      return "";
    }
    if (a.empty() || a[0] == '-') continue;
    if (CLI::App* next = subcommand_named(*cmd, a)) {
      cmd = next;
      continue;
    }
    std::vector<std::string> subs;
    for (CLI::App* sub : cmd->get_subcommands([](CLI::App*) { return true; }))
      subs.push_back(sub->get_name());
    if (subs.empty()) continue;  // a positional argument of the command
    if (auto c = strings::closest(a, subs)) return "Did you mean '" + *c + "'?\n";
    return "";
  }
  return "";
}

// CLI11's "Could not convert: --top = 1e11" as what the flag takes:
// "--top: expected a whole number, got '1e11'" (the type of the flag the
// chosen command has), as the commands' own range checks say it; empty
// when `what` is not that message.
std::string conversion_message(CLI::App& app, const std::vector<std::string>& args,
                               const std::string& what) {
  static constexpr std::string_view kHead = "Could not convert: ";
  const size_t eq = what.find(" = ");
  if (what.rfind(kHead, 0) != 0 || eq == std::string::npos) return "";
  const std::string flag = what.substr(kHead.size(), eq - kHead.size());
  const std::string value = what.substr(eq + 3);
  CLI::App* cmd = &app;
  for (const std::string& a : args) {
    if (a.empty() || a[0] == '-') continue;
    CLI::App* next = subcommand_named(*cmd, a);
    if (next == nullptr) break;
    cmd = next;
  }
  std::string kind = "a value of its kind";
  if (const CLI::Option* o = cmd->get_option_no_throw(flag)) {
    const std::string type = o->get_type_name();
    if (type.find("UINT") != std::string::npos)
      kind = "a whole number of 0 or more";
    else if (type.find("INT") != std::string::npos)
      kind = "a whole number";
    else if (type.find("FLOAT") != std::string::npos || type.find("NUMBER") != std::string::npos)
      kind = "a number";
  }
  return flag + ": expected " + kind + ", got '" + value + "' (see 'gpuplan " +
         (cmd == &app ? std::string("--help") : cmd->get_name() + " --help") + "')";
}

}  // namespace

Status check_regions(const catalog::Catalog& catalog, const std::vector<std::string>& regions,
                     const Where& where) {
  for (const std::string& r : regions) {
    GPUPLAN_RETURN_IF_ERROR(catalog.check_region_name(r, where));
  }
  return {};
}

namespace {

// Parses `args` into `app`: the exit code when parsing ends the run (help
// and --version print and exit 0, a usage error exits 2 with a suggestion),
// nullopt when a command is to run.
std::optional<int> parse_args(CLI::App& app, const std::vector<std::string>& args,
                              std::ostream& out, std::ostream& err) {
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    // Help for a subcommand is raised as CallForHelp from that subcommand.
    if (e.get_exit_code() == 0) {
      std::ostringstream o, er;
      app.exit(e, o, er);
      out << o.str() << er.str();
      return 0;
    }
    if (const std::string m = conversion_message(app, args, e.what()); !m.empty()) {
      err << "gpuplan: error: " << m << "\n";
      return 2;
    }
    err << "gpuplan: error: " << e.what() << "\n"
        << did_you_mean(app, args)
        << "Run 'gpuplan --help' (or 'gpuplan COMMAND --help') for usage.\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Context ctx{out, err, {}, {}, ::isatty(STDERR_FILENO) != 0};
  CLI::App app{
      "gpuplan: plan, price, deploy and right-size GPU work on Azure.\n"
      "Example: gpuplan plan examples/finetune-llama3-8b.yaml"};
  app.name("gpuplan");
  // The version names the embedded catalog's dates: prices age, and a user
  // comparing answers needs to know which snapshot gave them.
  app.set_version_flag("--version", "gpuplan 0.1.0\n" + catalog::embedded_catalog_version());
  app.require_subcommand(1);
  app.fallthrough();
  app.option_defaults()->always_capture_default();
  // An empty --db (an unset variable in a script) must not reach the
  // shared default store: it once imported into $HOME's store silently.
  app.add_option("--db", ctx.db_path,
                 "SQLite store with imported prices, SKUs and quota "
                 "(default: $XDG_DATA_HOME/gpuplan/catalog.db)")
      ->check(
          [](const std::string& v) {
            return v.empty() ? std::string("an empty path (leave --db out for the default store)")
                             : std::string();
          },
          "a path");
  size_t max_input_mib = files::kDefaultMaxInputBytes >> 20;
  bool quiet_flag = false, verbose_flag = false;
  auto* quiet = app.add_flag("-q,--quiet", quiet_flag,
                             "Print just the answer, one line, for scripts (plan: the chosen "
                             "option; estimate: the headline figure; cost: the total; see "
                             "docs/cli.md)");
  auto* verbose =
      app.add_flag("-v,--verbose", verbose_flag, "Add the full citation of every price and source");
  quiet->excludes(verbose);
  app.add_option("--max-input-mib", max_input_mib,
                 "Largest input file read whole, MiB (workloads, scenarios, plans, imports)")
      ->check(CLI::Range(1, 1 << 20));

  // The commands, in pipeline order.
  add_catalog_commands(app, ctx);
  add_estimate_command(app, ctx);
  add_cost_command(app, ctx);
  add_plan_command(app, ctx);
  add_simulate_command(app, ctx);
  add_deploy_commands(app, ctx);
  add_doctor_command(app, ctx);
  add_report_command(app, ctx);
  add_serve_command(app, ctx);
  add_generated_file_commands(app, ctx);

  if (auto done = parse_args(app, args, out, err)) return *done;
  files::set_max_input_bytes(max_input_mib << 20);
  ctx.width = terminal_width(&out == &std::cout);
  if (quiet_flag) ctx.verbosity = Verbosity::kQuiet;
  if (verbose_flag) ctx.verbosity = Verbosity::kVerbose;
  if (!ctx.action) {
    err << "gpuplan: error: no command given\n";
    return 2;
  }
  try {
    return ctx.action();
  } catch (const std::exception& e) {
    err << "gpuplan: internal error: " << e.what() << "\n";
    return 4;
  } catch (...) {
    err << "gpuplan: internal error: unknown exception\n";
    return 4;
  }
}

int run(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return run(args, std::cout, std::cerr);
}

}  // namespace gpuplan::cli
