// The man page (gpuplan(1)) in roff, from the command tree: every command's
// text, arguments and options as `--help` shows them. `gpuplan man` prints
// it; the build writes it to gpuplan.1 and `cmake --install` installs it to
// share/man/man1 (issue 14).
#pragma once

#include <iosfwd>

#include "cli/command_tree.h"

namespace gpuplan::cli {

void write_man_page(const CommandSpec& root, std::ostream& out);

}  // namespace gpuplan::cli
