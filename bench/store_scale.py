#!/usr/bin/env python3
"""A real price history at speed (issue 12, DESIGN.md "Performance targets").

Generates Azure Retail Prices API pages shaped like the real ones, then
measures, with the built `gpuplan` binary:

  1. importing 300,000 items in the real mix (about 95 % non-GPU sizes, which
     the importer skips) in 1,000-item pages, as `--live` would see them;
  2. the whole `gpuplan plan` and `gpuplan catalog` processes on stores that
     hold 1 k, 10 k, 100 k and 300 k GPU price rows (successive snapshots of
     the whole GPU price list, every price moved a little each time).

Targets: the import under 60 s; each command under 100 ms at 300 k rows, and
a flat (or logarithmic) curve from 1 k to 300 k, not a growing one.

Usage: bench/store_scale.py BUILD_DIR [--quick]   (make bench passes BUILD_DIR)
Standard library only; the data is deterministic (fixed seed).
"""
import csv
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE_ITEMS = 1000  # the Retail Prices API's page size


def gpu_pairs():
    """(size, region, linux payg, linux spot or None) from the embedded prices."""
    rows = {}
    with open(os.path.join(SRC, "data/catalog/offers.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if not r["usd_per_hour"]:
                continue
            rows.setdefault((r["size"], r["region"]), {})[r["pricing"]] = float(r["usd_per_hour"])
    return [(s, g, p["payg"], p.get("spot")) for (s, g), p in sorted(rows.items()) if "payg" in p]


def item(sku, region, price, kind="Consumption", windows=False, spot=False, term=None,
         savings=None, start="2026-05-01T00:00:00Z"):
    short = sku[len("Standard_"):].replace("_", " ")
    name = short + (" Spot" if spot else "")
    it = {
        "currencyCode": "USD", "tierMinimumUnits": 0.0, "retailPrice": round(price, 6),
        "unitPrice": round(price, 6), "armRegionName": region, "location": region,
        "effectiveStartDate": start, "meterId": "%08x-bench" % (hash((sku, region, name)) & 0xffffffff),
        "meterName": name, "productId": "DZH318Z0BENCH", "skuId": "DZH318Z0BENCH/0001",
        "productName": "Virtual Machines %s Series%s" % (short.split(" ")[0], " Windows" if windows else ""),
        "skuName": name, "serviceName": "Virtual Machines", "serviceId": "DZH313Z7MMC8",
        "serviceFamily": "Compute", "unitOfMeasure": "1 Hour", "type": kind,
        "isPrimaryMeterRegion": True, "armSkuName": sku,
    }
    if term:
        it["reservationTerm"] = term
    if savings:
        it["savingsPlan"] = [{"unitPrice": round(savings[0], 6), "retailPrice": round(savings[0], 6),
                              "term": "1 Year"},
                             {"unitPrice": round(savings[1], 6), "retailPrice": round(savings[1], 6),
                              "term": "3 Years"}]
    return it


def gpu_items(pairs, factor):
    """The whole GPU price list once: 8 price rows per size and region
    (linux/windows payg and spot, savings-1y/3y, reserved-1y/3y)."""
    out = []
    for sku, region, payg, spot in pairs:
        vcpus = int("".join(ch for ch in sku.split("_")[1] if ch.isdigit()) or 8)
        p = payg * factor
        out.append(item(sku, region, p, savings=(p * 0.8, p * 0.6)))
        out.append(item(sku, region, p + 0.046 * vcpus, windows=True))
        s = (spot or payg * 0.2) * factor
        out.append(item(sku, region, s, spot=True))
        out.append(item(sku, region, s + 0.0085 * vcpus, windows=True, spot=True))
        out.append(item(sku, region, p * 0.62 * 8760, kind="Reservation", term="1 Year"))
        out.append(item(sku, region, p * 0.42 * 8760 * 3, kind="Reservation", term="3 Years"))
    return out


NON_GPU = ["Standard_D%ds_v5", "Standard_E%ds_v5", "Standard_F%ds_v2", "Standard_B%dms",
           "Standard_D%das_v6", "Standard_E%dads_v6", "Standard_L%ds_v3", "Standard_M%dms"]


def non_gpu_items(n, regions, rng):
    out = []
    for i in range(n):
        sku = NON_GPU[i % len(NON_GPU)] % (2 ** (1 + i % 7))
        out.append(item(sku, regions[i % len(regions)], rng.uniform(0.01, 20),
                        windows=i % 3 == 0, spot=i % 5 == 0))
    return out


def write_pages(items, directory):
    os.makedirs(directory, exist_ok=True)
    paths = []
    for i in range(0, len(items), PAGE_ITEMS):
        page = items[i:i + PAGE_ITEMS]
        path = os.path.join(directory, "page-%05d.json" % (i // PAGE_ITEMS))
        last = i + PAGE_ITEMS >= len(items)
        with open(path, "w") as f:
            json.dump({"BillingCurrency": "USD", "CustomerEntityId": "Default",
                       "CustomerEntityType": "Retail", "Items": page,
                       "NextPageLink": None if last else "https://prices.azure.com/next",
                       "Count": len(page)}, f)
        paths.append(path)
    return paths


def run(gpuplan, args, env):
    t = time.perf_counter()
    r = subprocess.run([gpuplan] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t
    if r.returncode not in (0, 1):
        sys.exit("store_scale: gpuplan %s failed (%d): %s" % (" ".join(args), r.returncode,
                                                            r.stderr.decode()[:300]))
    return dt


def median_ms(gpuplan, args, env, runs):
    run(gpuplan, args, env)  # warm the page cache
    return statistics.median(run(gpuplan, args, env) for _ in range(runs)) * 1000


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    quick = "--quick" in sys.argv
    gpuplan = os.path.join(build, "gpuplan")
    if not os.access(gpuplan, os.X_OK):
        sys.exit("store_scale: %s not built" % gpuplan)
    rng = random.Random(12)
    pairs = gpu_pairs()
    regions = sorted({g for _, g, _, _ in pairs})
    work = tempfile.mkdtemp(prefix="gpuplan-store-scale-")
    env = dict(os.environ, XDG_DATA_HOME=work)
    try:
        # 1. 300 k items in the real mix, one import.
        total = 30_000 if quick else 300_000
        gpu = gpu_items(pairs, 1.0)
        n_gpu = total // 20  # about 5 % GPU
        mixed = (gpu * (n_gpu // len(gpu) + 1))[:n_gpu] + non_gpu_items(total - n_gpu, regions, rng)
        rng.shuffle(mixed)
        pages = write_pages(mixed, os.path.join(work, "mixed"))
        db = os.path.join(work, "mixed.db")
        secs = run(gpuplan, ["--db", db, "catalog", "import", "retail-prices"] + pages, env)
        size_mb = sum(os.path.getsize(p) for p in pages) / 1e6
        print("store_scale: import of %d Retail Prices items (%d pages, %.0f MB, %d GPU items): "
              "%.1f s (target < 60 s)" % (total, len(pages), size_mb, n_gpu, secs))
        shutil.rmtree(os.path.join(work, "mixed"))

        # 2. Per-command latency as the history grows.
        example = os.path.join(SRC, "examples/finetune-llama3-8b.yaml")
        db = os.path.join(work, "history.db")
        rows, snapshot, results = 0, 0, []
        per_snapshot = len(gpu) + len(gpu) // 6 * 2  # savings plans add 2 rows per payg item
        targets = [1_000, 10_000, 30_000] if quick else [1_000, 10_000, 100_000, 300_000]
        import_secs = []
        for target in targets:
            while rows < target:
                snapshot += 1
                items = gpu_items(pairs, 1.0 + 0.001 * snapshot)
                want = target - rows
                if want < per_snapshot:  # a partial list: 8 rows per 6 items
                    items = items[:max(1, want // 8) * 6]
                pages = write_pages(items, os.path.join(work, "snap"))
                import_secs.append(run(gpuplan, ["--db", db, "catalog", "import", "retail-prices"]
                                       + pages, env))
                shutil.rmtree(os.path.join(work, "snap"))
                rows += len(items) // 6 * 8
            runs = 5 if quick else 15
            plan = median_ms(gpuplan, ["--db", db, "plan", example], env, runs)
            cat = median_ms(gpuplan, ["--db", db, "catalog"], env, runs)
            results.append((rows, snapshot, plan, cat))
            print("store_scale: %7d GPU price rows (%2d snapshots): plan %.1f ms, catalog %.1f ms "
                  "(median of %d processes)" % (rows, snapshot, plan, cat, runs))
        base, last = results[0], results[-1]
        print("store_scale: %dx the rows -> plan x%.2f, catalog x%.2f (flat is x1; quadratic would "
              "be x%d); a GPU-list import took %.2f s on average" %
              (last[0] // base[0], last[2] / base[2], last[3] / base[3], (last[0] // base[0]) ** 2,
               statistics.mean(import_secs)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
