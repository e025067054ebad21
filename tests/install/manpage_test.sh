#!/usr/bin/env bash
# The generated man page (issue 14): groff renders it without a warning, and
# it has NAME, SYNOPSIS and a section for every command `gpuplan --help` lists.
# Usage: manpage_test.sh GPUPLAN_BIN MAN_PAGE
set -euo pipefail
bin=$1
page=$2
# shellcheck source=tests/install/common.sh
. "$(dirname "$0")/common.sh"
[ -s "$page" ] || fail "$page is missing or empty"
grep -q '^\.TH GPUPLAN 1 ' "$page" || fail "$page has no .TH line"
version=$("$bin" --version | head -1)
grep -qF "\"$version\"" "$page" || fail "$page does not name '$version'"
if ! command -v groff >/dev/null; then
  echo "groff not installed: the page checked as roff source only"
  text=$(cat "$page")
else
  # Every warning but 'break' (a long URL that cannot be adjusted).
  warnings=$(groff -man -Tutf8 -ww -Wbreak -z "$page" 2>&1)
  [ -z "$warnings" ] || fail "groff warns: $warnings"
  text=$(groff -man -Tascii -P-cbou "$page" 2>/dev/null)
fi
for want in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS "EXIT STATUS"; do
  grep -q "^$want" <<<"$text" || fail "no $want section"
done
grep -q 'gpuplan \\\?- plan, price' <<<"$text" || fail "NAME line missing"
for cmd in $(help_commands "$bin"); do
  grep -q "gpuplan $cmd" <<<"$text" || fail "no section for 'gpuplan $cmd'"
done
grep -q 'region' <<<"$text" || fail "options are missing"
echo "man page: ok"
