#!/bin/sh
# Times the whole `gpuplan plan examples/finetune-llama3-8b.yaml` process
# (start, catalog load, plan, print). DESIGN.md's target: under 50 ms.
# Usage: bench/plan_process.sh BUILD_DIR   (make bench passes it)
set -eu
build=${1:-build}
bin="$build/gpuplan"
src=$(cd "$(dirname "$0")/.." && pwd)
example="$src/examples/finetune-llama3-8b.yaml"
[ -x "$bin" ] || { echo "plan_process: $bin not built" >&2; exit 1; }
"$bin" plan "$example" > /dev/null || { echo "plan_process: gpuplan plan failed" >&2; exit 1; }
if command -v hyperfine > /dev/null 2>&1; then
  hyperfine --warmup 3 --runs 30 --export-json /dev/null "$bin plan $example"
  exit 0
fi
runs=30
times=""
i=0
while [ "$i" -lt "$runs" ]; do
  start=$(date +%s%N)
  "$bin" plan "$example" > /dev/null
  end=$(date +%s%N)
  times="$times $(( (end - start) / 1000 ))"
  i=$((i + 1))
done
# p50 and p90 of the wall-clock microseconds.
echo "$times" | tr ' ' '\n' | grep . | sort -n | awk '
  { t[NR] = $1 }
  END {
    p50 = t[int((NR + 1) / 2)]; p90 = t[int(NR * 0.9 + 0.5)]
    printf "plan_process: gpuplan plan examples/finetune-llama3-8b.yaml, %d runs: p50 %.1f ms, p90 %.1f ms (target < 50 ms)\n", NR, p50 / 1000, p90 / 1000
  }'
