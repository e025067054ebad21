#!/usr/bin/env python3
"""Stretch spot-availability traces to another step and length.

Each input trace ({"metadata": {"gap_seconds": G}, "data": [...]}, the
skypilot-org/spot-traces format) is resampled to a step of --step seconds by
holding the last value (the sample at or before each new step's start), and
the resampled trace is repeated end to end until it covers --days days (the
last copy is cut at that length). This is the production-scale input of
issue 13: the 8 traces of data/traces/spot/availability-1node-aws-10-26-2022
at 195 s for 45 days (about 20 k steps each).

  bench/stretch_spot_traces.py --step 195 --days 45 --out DIR TRACE.json...

Writes DIR/<name>.json for each input and prints one line per file.
"""
import argparse
import json
import os
import sys


def stretch(values, gap, step, days):
    """The resampled, repeated data array."""
    n = len(values)
    span = n * gap  # seconds covered by one copy of the input
    per_copy = int(span // step)  # whole new steps in one copy
    if per_copy < 1:
        raise ValueError("the trace is shorter than one new step")
    once = [values[min(n - 1, int((i * step) // gap))] for i in range(per_copy)]
    total = int((days * 86400) // step)
    return [once[i % per_copy] for i in range(total)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--step", type=float, default=195, help="new step, seconds")
    ap.add_argument("--days", type=float, default=45, help="length, days")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    if not (a.step > 0 and a.days > 0):
        sys.exit("stretch_spot_traces.py: --step and --days must be > 0")
    os.makedirs(a.out, exist_ok=True)
    for path in a.traces:
        with open(path) as f:
            doc = json.load(f)
        gap = float(doc["metadata"]["gap_seconds"])
        data = stretch(doc["data"], gap, a.step, a.days)
        step = int(a.step) if a.step == int(a.step) else a.step
        out = os.path.join(a.out, os.path.basename(path))
        with open(out, "w") as f:
            json.dump({"metadata": {"gap_seconds": step}, "data": data}, f, separators=(",", ":"))
            f.write("\n")
        print("%s: %d steps of %g s -> %d steps of %g s" % (out, len(doc["data"]), gap, len(data), a.step))


if __name__ == "__main__":
    main()
