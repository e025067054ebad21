#!/usr/bin/env bash
# Deadline-sweep throughput at production scale (issue 13): runs per second
# and peak memory for spot traces of about 1 k, 10 k and 100 k steps (the
# us-west-2a_v100_1 trace at 195 s, repeated), single- and multi-threaded,
# every policy and the optimum, the job of examples/sim-deadline-spot.yaml.
# Prints user CPU as well as wall time: the machine may be shared.
#   bench/simulate_scale.sh BUILD_DIR [RUNS]
set -euo pipefail
build="${1:-build}"
runs="${2:-20}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$build/gpuplan"
[ -x "$bin" ] || { echo "simulate_scale.sh: no $bin (build gpuplan first)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
src="$root/data/traces/spot/availability-1node-aws-10-26-2022/us-west-2a_v100_1.json"
printf "%-8s %-7s %6s %8s %8s %9s %8s\n" steps threads runs wall_s user_s runs_per_s peak_MB
for steps in 1000 10000 100000; do
  days=$(python3 -c "print($steps * 195 / 86400)")
  mkdir -p "$tmp/$steps"
  python3 "$root/bench/stretch_spot_traces.py" --step 195 --days "$days" --out "$tmp/$steps" "$src" >/dev/null
  for threads in 1 0; do
    /usr/bin/time -f "%e %U %M" -o "$tmp/time" "$bin" --db "$tmp/none.db" simulate \
      "$root/examples/sim-deadline-spot.yaml" --spot-trace "$tmp/$steps/us-west-2a_v100_1.json" \
      --runs "$runs" --policy all --threads "$threads" >/dev/null
    read -r wall user rss <"$tmp/time"
    printf "%-8s %-7s %6s %8s %8s %9.1f %8.1f\n" "$steps" "$([ $threads = 0 ] && nproc || echo 1)" \
      "$runs" "$wall" "$user" "$(python3 -c "print($runs / max($wall, 1e-3))")" \
      "$(python3 -c "print($rss / 1024)")"
  done
done
