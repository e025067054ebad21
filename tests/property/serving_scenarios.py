#!/usr/bin/env python3
"""Serving replays over every axis a scenario has, checked for invariants.

Draws COUNT valid serving scenarios from SEED across what users combine and
the examples do not: VM sizes of one, two and eight GPUs (A10, A100, H100
NVL, H100 SXM), models from 3B to 70B and a mixture of experts, bf16 and
fp8, prefill chunks of 256 to 8,192 tokens, TTFT 0.2-10 s and TPOT 20-150
ms, attainment targets of 90-99.9 %, synthetic traffic (flat to 30-minute
noise, crowds of up to 6x, prompts of 100 to 12,000 tokens, answers of 5 to
2,000) and the repository's two traces sped up as much as 5x, min_replicas
0-2, caps of one VM and more, start-ups of 10-900 s, both routers, both
admissions, spot shares, queue timeouts. Each is replayed under every
policy with `gpuplan simulate --policy all --json` and must:
  - exit 0 (every drawn scenario is valid), with no stack trace;
  - give every policy a finite, non-negative cost and an attainment in
    [0, 1];
  - give every policy a cost_vs_optimal of at least 1 (the bound is a lower
    bound under the same physics), or null where the bound is 0 USD;
  - where the notes name a fixed fleet of N that meets the target (no policy
    did), meet it when the scenario is replayed with min_replicas =
    initial_replicas = max_replicas = N, at the attainment the note states.

  serving_scenarios.py --gpuplan build/gpuplan --root . [--seed 1 --count 40]
Exit 0 when every scenario holds, 1 otherwise (each failure printed with the
scenario, kept in --keep DIR when given).
"""
import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

VMS = [
    ("Standard_NV36ads_A10_v5", ["llama-3.2-3b", "llama-3.1-8b"]),
    ("Standard_NC24ads_A100_v4", ["llama-3.1-8b", "llama-3.2-3b"]),
    ("Standard_NC48ads_A100_v4", ["llama-3.1-70b", "llama-3.1-8b"]),
    ("Standard_NC40ads_H100_v5", ["llama-3.1-8b", "mixtral-8x7b", "qwen2.5-14b"]),
    ("Standard_NC80adis_H100_v5", ["llama-3.1-70b", "llama-3.1-8b"]),
    ("Standard_ND96isr_H100_v5", ["llama-3.1-70b"]),
]


def scenario(rng, name, root):
    size, models = rng.choice(VMS)
    out = [f"name: {name}", "kind: serving", "vm:", f"  size: {size}", "  region: eastus",
           f"model: {rng.choice(models)}",
           f"precision: {rng.choice(['bf16', 'fp8']) if 'H100' in size else 'bf16'}"]
    if rng.random() < 0.3:
        out.append(f"prefill_chunk_tokens: {rng.choice([256, 512, 1024, 4096, 8192])}")
    out += ["slo:", f"  ttft_ms: {rng.choice([200, 500, 1000, 2000, 5000, 10000])}",
            f"  tpot_ms: {rng.choice([20, 30, 50, 80, 150])}",
            f"  attainment: {rng.choice([0.9, 0.95, 0.99, 0.99, 0.999])}", "demand:"]
    kind = rng.choice(["synthetic", "synthetic", "synthetic", "conv", "mooncake"])
    if kind == "synthetic":
        mean_in = rng.choice([100, 500, 1500, 4000, 12000])
        mean_out = rng.choice([5, 50, 200, 800, 2000])
        out += ["  synthetic:", f"    rate_rps: {round(rng.uniform(0.2, 30), 1)}",
                f"    duration_hours: {rng.choice([0.25, 0.5, 1])}",
                f"    noise_cv: {round(rng.uniform(0, 1), 2)}",
                f"    noise_period_seconds: {rng.choice([10, 60, 300, 1800])}",
                f"    input_tokens: {{mean: {mean_in}, stddev: {mean_in}, min: 1, max: {mean_in * 6}}}",
                f"    output_tokens: {{mean: {mean_out}, stddev: {mean_out}, min: 1, max: {mean_out * 5}}}"]
        if rng.random() < 0.5:
            out += ["    bursts:",
                    f"      - {{start_hour: {round(rng.uniform(0, 0.2), 2)}, duration_hours: 0.05, "
                    f"multiplier: {round(rng.uniform(1.5, 6), 1)}}}"]
    else:
        trace = "azure_llm_2023_conv.csv" if kind == "conv" else "mooncake_synthetic.csv"
        out += [f"  request_trace: {os.path.join(root, 'data', 'traces', trace)}",
                f"  time_scale: {rng.choice([2, 4, 5])}"]
    lo = rng.choice([0, 1, 1, 2])
    initial = max(lo, rng.choice([0, 1, 2, 3]))
    admission = rng.choice(["queue", "shed"])
    out += ["fleet:", f"  min_replicas: {lo}", f"  initial_replicas: {initial}",
            f"  max_replicas: {max(initial, 1, rng.choice([1, 2, 3, 8, 32]))}",
            f"  interval_seconds: {rng.choice([15, 30, 60, 120])}",
            f"  admission: {admission}",
            f"  routing: {rng.choice(['shortest-queue', 'least-sequences'])}"]
    if rng.random() < 0.5:
        out.append(f"  startup_seconds: {rng.choice([10, 60, 300, 900])}")
    if rng.random() < 0.2:
        out.append(f"  spot: {{share: {rng.choice([0.3, 0.5, 1.0])}, "
                   f"evictions_per_hour: {rng.choice([0.1, 1, 5])}}}")
    if admission == "queue" and rng.random() < 0.2:
        out.append(f"  queue_timeout_seconds: {rng.choice([30, 120, 600])}")
    out.append("policies: all")
    return "\n".join(out) + "\n"


def check(path, gpuplan):
    """The failures of one scenario's replay, as strings."""
    p = subprocess.run([gpuplan, "simulate", path, "--policy", "all", "--json"],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or "Traceback" in p.stderr or "terminate" in p.stderr:
        return [f"exit {p.returncode}: {p.stderr.strip()[-400:]}"]
    report = json.loads(p.stdout)
    failures = []
    for row in report["policies"]:
        name, cost = row["policy"], row["cost_usd"]
        if not (isinstance(cost, (int, float)) and math.isfinite(cost) and cost >= 0):
            failures.append(f"{name}: cost {cost}")
        if name == "optimal":
            continue
        att = row["slo_attainment"]
        if att is None or not 0 <= att <= 1:
            failures.append(f"{name}: attainment {att}")
        ratio = row["cost_vs_optimal"]
        if ratio is not None and ratio < 1 - 1e-9:
            failures.append(f"{name}: cost_vs_optimal {ratio:.4f} < 1 at {att:.4f}")
    for note in report["notes"]:
        m = re.match(r"fixed fleet: .*?; (\d+) (?:replicas?|VMs?) ready .*? meets? ([0-9.]+) %", note)
        if m:
            failures += check_fixed(path, gpuplan, int(m.group(1)), float(m.group(2)))
    return failures


def check_fixed(path, gpuplan, n, stated):
    """The fixed fleet a note names, replayed from the file: it must meet
    the target at the attainment stated."""
    with open(path) as f:
        text = f.read()
    for key in ("min_replicas", "initial_replicas", "max_replicas"):
        text = re.sub(rf"(\n  {key}: )\d+", rf"\g<1>{n}", text)
    target = re.search(r"attainment: ([0-9.]+)", text)
    fixed = path + ".fixed.yaml"
    with open(fixed, "w") as f:
        f.write(text)
    p = subprocess.run([gpuplan, "simulate", fixed, "--policy", "static-peak", "--json"],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return [f"fixed fleet of {n}: exit {p.returncode}: {p.stderr.strip()[-400:]}"]
    att = json.loads(p.stdout)["policies"][0]["slo_attainment"] * 100
    want = float(target.group(1)) * 100 if target else 99.0
    if abs(att - stated) > 0.006 or att + 1e-9 < want:
        return [f"fixed fleet of {n}: the note says {stated:.2f} %, a replay meets {att:.4f} % "
                f"(target {want:.1f} %)"]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpuplan", required=True)
    ap.add_argument("--root", required=True, help="the repository (its data/traces)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--keep", help="keep the scenario files here")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    root = os.path.abspath(args.root)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or tmp
        os.makedirs(where, exist_ok=True)
        for i in range(args.count):
            path = os.path.join(where, f"serving-{args.seed}-{i}.yaml")
            with open(path, "w") as f:
                f.write(scenario(rng, f"serving-{args.seed}-{i}", root))
            failures = check(path, args.gpuplan)
            if failures:
                failed += 1
                print(f"FAIL {path}:")
                for line in failures:
                    print("  " + line)
                with open(path) as f:
                    print("  " + f.read().replace("\n", "\n  "))
    print(f"{args.count - failed} of {args.count} scenarios hold the invariants (seed {args.seed})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
