#!/usr/bin/env bash
# Everything CI enforces (issue 16), one stage at a time or all of them:
#
#   scripts/ci.sh format   clang-format (the committed .clang-format) on every
#                          tracked C++ file: any difference fails
#   scripts/ci.sh tidy     clang-tidy (the committed .clang-tidy) on the src/
#                          files HEAD's commit changed, warnings as errors
#                          (TIDY_ALL=1: every src/ file)
#   scripts/ci.sh gcc      GCC Release build with -Werror, the whole suite
#   scripts/ci.sh clang    Clang build with -Werror under ASan + UBSan, with
#                          the libFuzzer harnesses; the suite again, which
#                          replays every fuzz corpus under the sanitizers
#   scripts/ci.sh fuzz     each libFuzzer harness for FUZZ_SECONDS from its
#                          seed corpus; a crash, leak, timeout or sanitizer
#                          report fails, naming the input that reproduces it
#   scripts/ci.sh check    format, tidy, gcc, clang, fuzz (FUZZ_SECONDS 30):
#                          what CI gates on (`make check`, the README's test
#                          command)
#   scripts/ci.sh all      check, deeper: tidy on every src/ file and each
#                          harness for FUZZ_SECONDS 60 (`make all-ci`)
#
# Build folders: build (gcc), build-ci-clang (clang; tidy and fuzz reuse it).
# JOBS defaults to nproc. At the end each stage's wall time is printed, also
# when a stage fails; docs/CONTRIBUTING.md lists what each costs on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
CLANG_BUILD=build-ci-clang

# A sanitizer report is a failure, never a warning; leaks count.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:halt_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

stage() { printf '\n==== ci: %s ====\n' "$*"; }

# Wall time of each stage run so far, printed on exit (pass or fail) so a CI
# log shows where its minutes went.
STAGE_NAMES=()
STAGE_SECONDS=()
timed() {
  local name="$1" start rc
  shift
  start=$(date +%s)
  # A subshell with -e of its own: called as `f || ...`, a function would run
  # with -e off and go on past a failed command.
  set +e
  (
    set -e
    "$@"
  )
  rc=$?
  set -e
  STAGE_NAMES+=("$name")
  STAGE_SECONDS+=($(($(date +%s) - start)))
  [ "$rc" -eq 0 ] || STAGE_NAMES[-1]="$name (FAILED)"
  return "$rc"
}
print_times() {
  local rc=$? i total=0
  [ ${#STAGE_NAMES[@]} -gt 0 ] || return "$rc"
  printf '\n==== ci: wall time per stage ====\n'
  for i in "${!STAGE_NAMES[@]}"; do
    printf '  %-22s %5d s\n' "${STAGE_NAMES[$i]}" "${STAGE_SECONDS[$i]}"
    total=$((total + STAGE_SECONDS[i]))
  done
  printf '  %-22s %5d s (%d min)\n' total "$total" $(((total + 59) / 60))
  return "$rc"
}
trap print_times EXIT

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

# The clang build: -O1 with line tables (enough for symbolized sanitizer
# reports, about half the compile time of -O2 -g), no benchmarks (they are
# timed, never run, in CI), every object instrumented for libFuzzer coverage.
# Its compile_commands.json is what clang-tidy reads.
configure_clang() {
  CC=clang CXX=clang++ cmake -S . -B "$CLANG_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    -DGPUPLAN_WERROR=ON -DGPUPLAN_SANITIZE=ON -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_BENCH=OFF \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
}

# The src/ .cc files to check for HEAD's commit (a merge: what it brings to
# its first parent). clang-tidy reports a header's findings through a .cc that
# includes it (HeaderFilterRegex), so a changed foo.h checks foo.cc, or, when
# there is none, the first src/ .cc that includes it. Without a parent (a
# shallow clone, the first commit) every src/ file is checked.
tidy_files() {
  if [ "${TIDY_ALL:-0}" = 1 ] || ! git rev-parse -q --verify HEAD^1 >/dev/null; then
    git ls-files 'src/*.cc'
    return
  fi
  local f cc
  git diff --name-only --diff-filter=AMR HEAD^1 HEAD -- 'src/*.cc' 'src/*.h' |
    while IFS= read -r f; do
      case "$f" in
        *.cc) [ -f "$f" ] && echo "$f" ;;
        *.h)
          cc="${f%.h}.cc"
          [ -f "$cc" ] ||
            cc="$(git grep -l -F "#include \"${f#src/}\"" -- 'src/*.cc' | head -1 || true)"
          [ -n "$cc" ] && echo "$cc"
          ;;
      esac
    done | sort -u
}

run_tidy() {
  stage "clang-tidy on HEAD's changed src/ files"
  [ -f "$CLANG_BUILD/compile_commands.json" ] || configure_clang
  local files log
  mapfile -t files < <(tidy_files)
  if [ ${#files[@]} -eq 0 ]; then
    echo "HEAD ($(git rev-parse --short HEAD)) changes no src/ C++ file: nothing to check"
    return 0
  fi
  printf '  %s\n' "${files[@]}"
  log="$(mktemp)"
  # One clang-tidy per file, JOBS at a time; any finding is an error.
  if ! printf '%s\n' "${files[@]}" | xargs -P "$JOBS" -n 1 clang-tidy -p "$CLANG_BUILD" \
    --quiet --warnings-as-errors='*' >"$log" 2>&1; then
    grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$' "$log" >&2
    rm -f "$log"
    echo "clang-tidy found the above (.clang-tidy says why each check is on)" >&2
    return 1
  fi
  rm -f "$log"
  echo "clang-tidy: no finding in ${#files[@]} file(s)"
}

gcc_build() {
  stage "gcc -Werror build"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_WERROR=ON >/dev/null
  cmake --build build -j "$JOBS"
}
gcc_tests() {
  stage "gcc tests"
  (cd build && ctest --output-on-failure -j "$JOBS")
}

clang_build() {
  stage "clang -Werror + ASan/UBSan build"
  configure_clang
  cmake --build "$CLANG_BUILD" -j "$JOBS"
}
# Under the sanitizers every test runs but two, which test nothing the
# sanitizers can see: InstallAndDeb checks what `cmake --install` and cpack
# package (the GCC stage runs it), and BrowserPageTest checks the page's
# JavaScript in Chromium, which is not instrumented; the server handlers it
# calls are called by server_test here. The fuzz corpus replays
# (fuzz_*_corpus) run here, under ASan and UBSan.
clang_tests() {
  stage "clang tests under ASan/UBSan"
  (cd "$CLANG_BUILD" &&
    ctest --output-on-failure -j "$JOBS" -E '^(InstallAndDeb|BrowserPageTest)$')
}

# One harness, FUZZ_SECONDS, over a scratch copy of its seed corpus. A failing
# input is written to $CLANG_BUILD/fuzz-artifacts/ and named with the command
# that reproduces it; cut it down and add it to the corpus with the fix.
fuzz_one() {
  local bin="$1" name corpus work log rc=0 input
  name="$(basename "$bin")"
  corpus="tests/fuzz/corpus/${name#fuzz_}"
  work="$(mktemp -d)"
  log="$(mktemp)"
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
  mkdir -p "$CLANG_BUILD/fuzz-artifacts"
  # -timeout: a hang runs forever, while the slowest seed (the YAML alias bomb
  # bad_laughs.yaml) takes 0.3 s; 30 s is wall time on a machine that may be
  # busy with the other harness.
  "$bin" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=30 -print_final_stats=1 \
    -artifact_prefix="$PWD/$CLANG_BUILD/fuzz-artifacts/$name-" "$work" >"$log" 2>&1 || rc=$?
  printf -- '-- %s: %s executions, %s, peak RSS %s MB\n' "$name" \
    "$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")" \
    "$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)" \
    "$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")"
  if [ "$rc" -ne 0 ]; then
    grep -v -E '^#[0-9]+|^INFO:' "$log" | tail -60 >&2
    input="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)"
    {
      echo "FUZZ FAILURE: $name exited $rc"
      if [ -n "$input" ]; then
        echo "  reproducer: $input"
        echo "  reproduce:  $PWD/$bin $input"
      else
        echo "  no input was written; see the log above"
      fi
    } >&2
    rc=1 # xargs reports any 1-125; a signal's 128+n would not be
  fi
  rm -rf "$work" "$log"
  return "$rc"
}

run_fuzz() {
  stage "fuzz: each harness ${FUZZ_SECONDS} s, ${JOBS} at a time"
  local bins=()
  for bin in "$CLANG_BUILD"/tests/fuzz/fuzz_*; do
    [ -f "$bin" ] && [ -x "$bin" ] && [[ "$bin" != *_replay ]] && bins+=("$bin")
  done
  [ ${#bins[@]} -gt 0 ] || { echo "no libFuzzer harness was built (scripts/ci.sh clang)" >&2; return 1; }
  export CLANG_BUILD FUZZ_SECONDS
  export -f fuzz_one
  # shellcheck disable=SC2016  # $1 is the inner shell's
  if ! printf '%s\n' "${bins[@]}" | xargs -P "$JOBS" -I{} bash -c 'fuzz_one "$1"' _ {}; then
    echo "fuzz: a harness failed (FUZZ FAILURE above names the reproducer)" >&2
    return 1
  fi
  echo "fuzz: ${#bins[@]} harnesses, no finding"
}

# Every stage, cheapest first; the first to fail stops the run. tidy needs
# only the clang configure (its compile_commands.json), so it runs before the
# builds; fuzz runs the harnesses the clang build made.
#
# FUZZ_SECONDS in check: 30 s a harness, 13 harnesses two at a time on CI's
# 2 cores, is ~3.5 min, which keeps the whole check (1,415 s before tidy and
# fuzz joined it; CONTRIBUTING.md has the stage times) well inside CI's 90
# minutes even when a shallow clone makes tidy check every file (~15 min).
run_check() {
  timed format run_format
  timed tidy run_tidy
  timed "gcc build" gcc_build
  timed "gcc tests" gcc_tests
  timed "clang build" clang_build
  timed "clang tests" clang_tests
  timed fuzz run_fuzz
}

case "${1:-check}" in
  format) timed format run_format ;;
  tidy) timed tidy run_tidy ;;
  gcc)
    timed "gcc build" gcc_build
    timed "gcc tests" gcc_tests
    ;;
  clang)
    timed "clang build" clang_build
    timed "clang tests" clang_tests
    ;;
  fuzz)
    FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
    timed "clang build" clang_build
    timed fuzz run_fuzz
    ;;
  check)
    FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
    run_check
    ;;
  all)
    FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
    TIDY_ALL=1
    run_check
    ;;
  *) echo "usage: scripts/ci.sh [check|all|format|tidy|gcc|clang|fuzz]" >&2; exit 2 ;;
esac
