#!/usr/bin/env bash
# Runs every benchmark and prints the figures DESIGN.md asks for.
set -euo pipefail
build=${1:-build}
"$build/bench/gpuplan_bench" --benchmark_min_time=0.2
for s in bench/*.sh; do
  [ -e "$s" ] || continue
  echo "== $s"
  bash "$s" "$build"
done
