# shellcheck shell=bash
# Helpers shared by the install tests (sourced).

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The visible commands `gpuplan --help` lists (CLI11's "Subcommands:" block).
help_commands() {
  "$1" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}
