// Internal seam between cli.cc and the command files: each command file
// registers its subcommands on the app and sets ctx.action when chosen.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "catalog/catalog.h"
#include "cli/term.h"
#include "core/result.h"
#include "workload/workload.h"

namespace gpuplan::cli {

struct Context {
  std::ostream& out;
  std::ostream& err;
  // Set by the chosen subcommand's parse callback; returns the exit code.
  std::function<int()> action;
  // Global --db PATH (empty: the default store location).
  std::string db_path;
  // True when stderr is a terminal (progress output only then).
  bool err_is_tty = false;
  // The width text output fits (term.h): COLUMNS, the terminal's, else 100.
  size_t width = kDefaultWidth;
  // Global --quiet (just the answer, one line) or --verbose (full citations).
  Verbosity verbosity = Verbosity::kNormal;
};

// Prints "gpuplan: error: <where>: <message>" and returns the exit code.
int report(Context& ctx, const Error& error);

// The store every command reads and imports write: --db, else the default
// location ($XDG_DATA_HOME/gpuplan/catalog.db).
std::string store_path(const Context& ctx);
// The catalog the commands work on: the embedded default overlaid with the store.
Result<std::unique_ptr<catalog::Catalog>> load_catalog(const Context& ctx);
// Every name in `regions` is an Azure region (else exit 2 with "did you
// mean"); `where` names the flag or file field they came from.
Status check_regions(const catalog::Catalog& catalog, const std::vector<std::string>& regions,
                     const Where& where);
// Flag values given as "a,b" and as repeated flags alike, trimmed, empties dropped.
std::vector<std::string> split_list(const std::vector<std::string>& values);

// One per command file.
void add_catalog_commands(CLI::App& app, Context& ctx);  // catalog, regions
// Called by add_catalog_commands with the `catalog` subcommand: import, history.
void add_catalog_import_commands(CLI::App& catalog, Context& ctx);
void add_estimate_command(CLI::App& app, Context& ctx);  // estimate
void add_cost_command(CLI::App& app, Context& ctx);      // cost
void add_plan_command(CLI::App& app, Context& ctx);      // plan
void add_simulate_command(CLI::App& app, Context& ctx);  // simulate
void add_deploy_commands(CLI::App& app, Context& ctx);   // stack, deploy
void add_doctor_command(CLI::App& app, Context& ctx);    // doctor
void add_serve_command(CLI::App& app, Context& ctx);     // serve
void add_report_command(CLI::App& app, Context& ctx);    // report
// Hidden: completion bash|zsh, man (files the build generates; cmd_completion.cc).
void add_generated_file_commands(CLI::App& app, Context& ctx);

}  // namespace gpuplan::cli
