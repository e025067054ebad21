// Internal seam between cli.cc and the command files: each command file
// registers its subcommands on the app and sets ctx.action when chosen.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "core/result.h"

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
};

// Prints "gpuplan: error: <where>: <message>" and returns the exit code.
int report(Context& ctx, const Error& error);

// One per command file.
void add_catalog_commands(CLI::App& app, Context& ctx);   // catalog, regions
// Called by add_catalog_commands with the `catalog` subcommand: import, history.
void add_catalog_import_commands(CLI::App& catalog, Context& ctx);
void add_estimate_command(CLI::App& app, Context& ctx);   // estimate
void add_cost_command(CLI::App& app, Context& ctx);       // cost
void add_plan_command(CLI::App& app, Context& ctx);       // plan
void add_simulate_command(CLI::App& app, Context& ctx);   // simulate
void add_deploy_commands(CLI::App& app, Context& ctx);    // stack, deploy
void add_doctor_command(CLI::App& app, Context& ctx);     // doctor
void add_serve_command(CLI::App& app, Context& ctx);      // serve

}  // namespace gpuplan::cli
