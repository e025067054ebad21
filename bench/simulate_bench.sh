#!/usr/bin/env bash
# Simulator figures for the design's targets (run by `make bench` with the
# build directory as $1):
#   1. the synthetic week at 45 req/s (~27 M requests) through `gpuplan
#      simulate`: wall time and peak memory (/usr/bin/time -v);
#   2. the deadline scenario over the 8 traces of
#      data/traces/spot/availability-1node-aws-10-26-2022 with 300 runs each:
#      mean cost and cost_vs_optimal per policy and per trace (a few minutes).
# Set SIM_RUNS to change the number of runs of (2).
set -euo pipefail
build="${1:-build}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$build/gpuplan"
[ -x "$bin" ] || { echo "simulate_bench.sh: no $bin (build gpuplan first)" >&2; exit 1; }
db="$(mktemp -d)/none.db"

echo "== synthetic week, 45 req/s, policy hpa (the run includes one profiling pass over the demand)"
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v "$bin" --db "$db" simulate "$root/tests/data/sim/synthetic_week.yaml" --policy hpa \
    2> >(grep -E "Elapsed|Maximum resident" >&2) | sed -n '4,7p'
else
  time "$bin" --db "$db" simulate "$root/tests/data/sim/synthetic_week.yaml" --policy hpa | sed -n '4,7p'
fi

echo "== deadline scenario, ${SIM_RUNS:-300} runs per trace"
"$bin" --db "$db" simulate "$root/examples/sim-deadline-spot.yaml" --runs "${SIM_RUNS:-300}" --json |
  python3 -c '
import json, sys
j = json.load(sys.stdin)
names = [p["policy"] for p in j["policies"]]
print("%-24s %6s " % ("trace", "avail") + " ".join("%20s" % n for n in names))
for t in j["traces"]:
    print("%-24s %6.2f " % (t["file"].split("/")[-1], t["spot_availability"]) +
          " ".join("%9.2f (%6.3fx)" % (p["cost_usd"], p["cost_vs_optimal"]) for p in t["policies"]))
print("%-31s " % "all traces" + " ".join("%9.2f (%6.3fx)" % (p["cost_usd"], p["cost_vs_optimal"]) for p in j["policies"]))
print("deadline met: " + ", ".join("%s %.4f" % (p["policy"], p["deadline_met_fraction"]) for p in j["policies"]))
'
