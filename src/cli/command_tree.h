// The command line as data, for the files generated from it: the bash and
// zsh completion scripts (`gpuplan completion bash|zsh`) and the man page
// (`gpuplan man`), which the build writes by running the built binary and
// `cmake --install` installs (issue 14). Walking CLI11's App tree rather than
// keeping a second list means a new command or flag reaches the completion
// and the man page with no edit here.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "catalog/catalog.h"

namespace gpuplan::cli {

struct OptionSpec {
  std::vector<std::string> names;  // "--region", "-h"; a positional's one name ("FILE")
  std::string description;         // CLI11's text, as --help shows it
  std::string type_name;           // "TEXT", "INT" ...; "" for a flag
  std::string default_value;       // "" when none is shown
  bool positional = false;
  bool takes_value = false;
  bool repeatable = false;
  bool required = false;
  // Every value it accepts, when the CLI knows them: a CLI11 IsMember set,
  // or a catalog name list (regions, GPU models, series, VM sizes).
  std::vector<std::string> values;
};

struct CommandSpec {
  std::string name;               // "import"; "gpuplan" for the root
  std::vector<std::string> path;  // {"catalog", "import"}; empty for the root
  std::string description;
  std::vector<OptionSpec> options;       // flags and options, in declaration order
  std::vector<OptionSpec> positionals;   // in order
  std::vector<CommandSpec> subcommands;  // hidden ones (group "") left out
};

// The visible tree under `app`. `catalog` (the embedded one, so generated
// files do not depend on a user's store) supplies the name lists; null: none.
CommandSpec describe_commands(CLI::App& app, const catalog::Catalog* catalog);

// "gpuplan catalog import"
std::string command_line_name(const CommandSpec& cmd);

// A command's one-line summary: its description's first sentence (to ". "
// or ": "), its hard-wrapped lines joined, examples left out.
std::string summary(const std::string& description);

}  // namespace gpuplan::cli
