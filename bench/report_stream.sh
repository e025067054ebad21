#!/bin/sh
# `gpuplan report` on a month of hourly rows for 1,000 GPU VMs (~720 k rows,
# DESIGN.md's target) in FOCUS and Azure actual-cost columns: rows per second
# and peak memory (max RSS of the whole process, catalog included). A week of
# the same VMs is read too: memory that grows with rows would show here; it
# must grow only with VMs x days.
# Usage: bench/report_stream.sh BUILD_DIR   (make bench passes it)
set -eu
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for fmt in focus azure; do
  for days in 7 30; do
    f="$tmp/$fmt-$days.csv"
    python3 "$(dirname "$0")/gen_cost_export.py" --vms 1000 --days "$days" --format "$fmt" "$f"
    rows=$(($(wc -l < "$f") - 1))
    mb=$(($(wc -c < "$f") / 1000000))
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$build/gpuplan" report "$f" --json > /dev/null
    read -r secs kib < "$tmp/time"
    python3 -c "import sys; s=float(sys.argv[3]); r=int(sys.argv[2]); print(f'report {sys.argv[1]}: {r} rows ({sys.argv[5]} MB) in {s:.2f} s = {r/max(s,1e-3)/1e6:.2f} M rows/s, peak RSS {int(sys.argv[4])/1024:.0f} MiB')" "$fmt, $days days" "$rows" "$secs" "$kib" "$mb"
    rm -f "$f"
  done
done
