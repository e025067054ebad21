#!/bin/sh
# `gpuplan serve` under load (issue 15, item 2b):
#  1. /api/health latency while 50 clients send one head byte a second
#     (bench/serve_slow_clients.py): p50, p99 (target under 100 ms), max;
#  2. wrk (Debian package wrk) on POST /api/plan for 10 s at a concurrency
#     within the queue bound (workers + --max-queued): only 200s expected;
#  3. the same at four times the bound: 200s and 503s with Retry-After only.
# Usage: bench/serve_load.sh BUILD_DIR   (make bench passes it)
set -eu
build=${1:-build}
bin="$build/gpuplan"
src=$(cd "$(dirname "$0")/.." && pwd)
workers=2
queued=8
[ -x "$bin" ] || { echo "serve_load: $bin not built" >&2; exit 1; }
log=$(mktemp)
"$bin" serve --port 0 --workers "$workers" --max-queued "$queued" > "$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -f "$log"' EXIT
port=""
for _ in $(seq 50); do
  port=$(sed -n 's|.*serving on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "serve_load: the server did not start" >&2; cat "$log" >&2; exit 1; }
python3 "$src/bench/serve_slow_clients.py" "$port" 50 100
if ! command -v wrk > /dev/null 2>&1; then
  echo "serve_load: wrk not installed (scripts/install-deps.sh): skipping the wrk runs"
  exit 0
fi
bound=$((workers + queued))
for c in "$bound" $((bound * 4)); do
  echo "wrk POST /api/plan, 10 s, $c connections (queue bound $bound):"
  wrk -t 2 -c "$c" -d 10s --timeout 10s -s "$src/bench/serve_status.lua" \
    "http://127.0.0.1:$port" -- "$src/examples/finetune-llama3-8b.yaml" |
    grep -E 'Requests/sec|Latency|answers'
done
