#!/usr/bin/env bash
# The generated completion scripts (issue 14): bash's parses, completes
# commands, flags and the values the CLI knows, and offers every command
# `gpuplan --help` lists and no hidden one; zsh's is well-formed.
# Usage: completion_test.sh GPUPLAN_BIN GENERATED_DIR
set -euo pipefail
bin=$1
dir=$2
# shellcheck source=tests/install/common.sh
. "$(dirname "$0")/common.sh"
bash_script=$dir/gpuplan.bash
zsh_script=$dir/_gpuplan

bash -n "$bash_script" || fail "$bash_script does not parse"

# What the completion function offers for the words given (the last is the
# word being completed), one per line, as bash would run it on TAB.
complete_words() {
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpuplan 2>/dev/null
           printf "%s\n" "${COMPREPLY[@]}"' _ "$bash_script" "$@"
}
expect() {  # expect WANTED WORDS...
  local want=$1 got
  shift
  got=$(complete_words "$@")
  grep -qx -- "$want" <<<"$got" || fail "completing '$*' does not offer '$want' (got: $(head -20 <<<"$got" | tr '\n' ' '))"
}
expect_not() {
  local unwanted=$1 got
  shift
  got=$(complete_words "$@")
  if grep -qx -- "$unwanted" <<<"$got"; then fail "completing '$*' offers '$unwanted'"; fi
}

registered=$(bash -c '. "$1"; complete -p gpuplan' _ "$bash_script")
grep -q -- '-F _gpuplan' <<<"$registered" ||
  fail "the script does not register _gpuplan for gpuplan"
expect plan gpuplan pl
expect serve gpuplan se
expect plan gpuplan --db /tmp/x.db pl          # a global flag's value is skipped
expect import gpuplan catalog im               # nested commands
expect --objective gpuplan plan --obj          # a command's flags
expect --db gpuplan plan --d                   # and the global ones inherited
expect eastus gpuplan catalog --region eastu   # values the catalog knows
expect --region=westus gpuplan plan --region=westu
expect_not --objective gpuplan catalog --obj
for cmd in $(help_commands "$bin"); do expect "$cmd" gpuplan ''; done
[ "$(help_commands "$bin" | wc -l)" -ge 8 ] || fail "gpuplan --help lists too few commands"
expect_not completion gpuplan ''
expect_not man gpuplan ''

[ "$(head -1 "$zsh_script")" = '#compdef gpuplan' ] || fail "$zsh_script lacks #compdef"
grep -q '^_gpuplan_catalog_import() {' "$zsh_script" || fail "$zsh_script lacks catalog import"
grep -q "'--objective=\[" "$zsh_script" || fail "$zsh_script lacks plan --objective"
if command -v zsh >/dev/null; then
  zsh -n "$zsh_script" || fail "$zsh_script does not parse"
else
  echo "zsh not installed: its script checked by content only"
fi
echo "completion: ok"
