#!/usr/bin/env bash
# Everything CI enforces (issue 16), one stage at a time or all of them:
#
#   scripts/ci.sh gcc      GCC Release build with -Werror, the whole suite
#   scripts/ci.sh clang    Clang build with -Werror under ASan + UBSan (and the
#                          libFuzzer harnesses), the whole suite again
#   scripts/ci.sh format   clang-format (the committed .clang-format) on every
#                          tracked C++ file: any difference fails
#   scripts/ci.sh tidy     clang-tidy (the committed .clang-tidy) on the C++
#                          files HEAD's commit changed, warnings as errors
#   scripts/ci.sh fuzz     each libFuzzer harness for FUZZ_SECONDS (default 20)
#                          from its seed corpus; a crash or leak fails
#   scripts/ci.sh check    format, then gcc: what CI runs (`make check`, the
#                          README's test command)
#   scripts/ci.sh all      all of the above
#
# Build folders: build (gcc), build-ci-clang (clang). JOBS defaults to nproc.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
CLANG_BUILD=build-ci-clang

stage() { printf '\n==== ci: %s ====\n' "$*"; }

run_gcc() {
  stage "gcc -Werror build and tests"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_WERROR=ON >/dev/null
  cmake --build build -j "$JOBS"
  (cd build && ctest --output-on-failure -j "$JOBS")
}

run_clang() {
  stage "clang -Werror + ASan/UBSan build and tests"
  CC=clang CXX=clang++ cmake -S . -B "$CLANG_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGPUPLAN_WERROR=ON -DGPUPLAN_SANITIZE=ON -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_BENCH=OFF \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
  cmake --build "$CLANG_BUILD" -j "$JOBS"
  # A sanitizer report is a failure, never a warning.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  (cd "$CLANG_BUILD" && ctest --output-on-failure -j "$JOBS")
}

run_format() {
  stage "clang-format"
  local bad=()
  while IFS= read -r f; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done < <(git ls-files '*.cc' '*.h')
  if [ ${#bad[@]} -gt 0 ]; then
    echo "not clang-formatted (run: make format):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    clang-format --dry-run "${bad[0]}" 2>&1 | head -20 >&2
    return 1
  fi
  echo "every tracked .cc/.h is clang-formatted"
}

run_tidy() {
  stage "clang-tidy on HEAD's changed files"
  [ -f "$CLANG_BUILD/compile_commands.json" ] || run_clang
  local files=()
  while IFS= read -r f; do
    [ -f "$f" ] && files+=("$f")
  done < <(git diff --name-only --diff-filter=AM HEAD~1 HEAD -- 'src/*.cc' 2>/dev/null || true)
  if [ ${#files[@]} -eq 0 ]; then
    echo "HEAD changes no src/*.cc file"
    return 0
  fi
  clang-tidy -p "$CLANG_BUILD" --quiet --warnings-as-errors='*' "${files[@]}"
}

run_fuzz() {
  stage "fuzz: each harness ${FUZZ_SECONDS} s"
  [ -d "$CLANG_BUILD" ] || run_clang
  local found=0
  for bin in "$CLANG_BUILD"/tests/fuzz/fuzz_*; do
    if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then continue; fi
    case "$bin" in *_replay) continue ;; esac
    found=1
    local name corpus work rc
    name="$(basename "$bin")"
    corpus="tests/fuzz/corpus/${name#fuzz_}"
    work="$(mktemp -d)"
    [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
    echo "-- $name"
    "$bin" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      "$work" 2>&1 | grep -E 'stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|cov:' |
      tail -4
    rc=${PIPESTATUS[0]}
    rm -rf "$work"
    [ "$rc" -eq 0 ] || { echo "$name failed (exit $rc)" >&2; return 1; }
  done
  [ "$found" = 1 ] || { echo "no libFuzzer harness was built" >&2; return 1; }
}

case "${1:-all}" in
  gcc) run_gcc ;;
  clang) run_clang ;;
  format) run_format ;;
  tidy) run_tidy ;;
  fuzz) run_fuzz ;;
  check) run_format; run_gcc ;;
  all) run_format; run_gcc; run_clang; run_tidy; run_fuzz ;;
  *) echo "usage: scripts/ci.sh [check|gcc|clang|format|tidy|fuzz|all]" >&2; exit 2 ;;
esac
