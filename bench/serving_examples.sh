#!/usr/bin/env bash
# The serving examples of issue 11 through `gpuplan simulate` (run by `make
# bench` with the build directory as $1): per scenario the wall time, user
# CPU and peak memory of the whole run (every policy, the profile pass and
# the lower bound), then policy x (SLO attainment, cost, cost_vs_optimal,
# p99 TTFT). The week scenario's wall time is the figure DESIGN.md asks for
# beside the engine's events per second (BM_SimulateServing45rps).
set -euo pipefail
build="${1:-build}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$build/gpuplan"
[ -x "$bin" ] || { echo "serving_examples.sh: no $bin (build gpuplan first)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for name in conv week longctx growth; do
  f="$root/examples/sim-serve-$name.yaml"
  echo "== $name"
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "wall %e s, user %U s, peak %M KB" -o "$tmp/time" \
      "$bin" --db "$tmp/none.db" simulate "$f" --json > "$tmp/out.json"
    cat "$tmp/time"
  else
    start=$(date +%s.%N)
    "$bin" --db "$tmp/none.db" simulate "$f" --json > "$tmp/out.json"
    echo "wall $(echo "$(date +%s.%N) - $start" | bc) s"
  fi
  python3 - "$tmp/out.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("%-20s %8s %10s %8s %11s" % ("policy", "SLO %", "cost $", "vs opt", "p99 TTFT ms"))
for p in j["policies"]:
    slo = "-" if p["slo_attainment"] is None else "%.2f" % (100 * p["slo_attainment"])
    ttft = "-" if p["p99_ttft_ms"] is None else "%.0f" % p["p99_ttft_ms"]
    print("%-20s %8s %10.2f %8.3f %11s" % (p["policy"], slo, p["cost_usd"], p["cost_vs_optimal"], ttft))
PY
done
