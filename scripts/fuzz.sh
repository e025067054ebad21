#!/usr/bin/env bash
# Runs every libFuzzer harness of a GPUPLAN_FUZZ=ON build for SECONDS each,
# over a scratch copy of its seed corpus (tests/fuzz/corpus/<name>/, which
# ctest replays in every build); new inputs stay in the scratch directory.
# A crash stops the run with the harness's exit code and leaves crash-* here.
# Usage: scripts/fuzz.sh BUILD_DIR [SECONDS]
set -euo pipefail
build=${1:?usage: scripts/fuzz.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for bin in "$build"/tests/fuzz/fuzz_*; do
  [[ -x $bin && $bin != *_replay ]] || continue
  name=$(basename "$bin")
  short=${name#fuzz_}
  mkdir -p "$scratch/$short"
  cp -r "$root/tests/fuzz/corpus/$short/." "$scratch/$short/" 2>/dev/null || true
  echo "== $name: ${seconds}s"
  rc=0
  "$bin" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 -timeout=10 \
    "$scratch/$short" >"$scratch/$short.log" 2>&1 || rc=$?
  grep -E '^(Done|==[0-9]+==ERROR|SUMMARY)' "$scratch/$short.log" || true
  [[ $rc -eq 0 ]] || { tail -40 "$scratch/$short.log"; echo "$name failed ($rc)"; exit "$rc"; }
done
