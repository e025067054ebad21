#!/usr/bin/env python3
"""The JSON of every command, validated against its schema (docs/json.md).

Runs the real `gpuplan` binary on the examples and test data, and the HTTP
API of `gpuplan serve` on a free local port, and validates each answer
against docs/schema/<name>.schema.json (JSON Schema 2020-12, Debian's
python3-jsonschema). It then checks the shared vocabulary across all of
them: `gpu` is a model name, `gpu_count` and `gpus` are numbers, no
`gpu_model` key is left, and money keys are numbers.

  schema_test.py --gpuplan build/gpuplan --root .          run the checks
  schema_test.py --gpuplan build/gpuplan --root . --dump D  also write each
                                                            document to D/
Exit 0 when every document is valid, 1 otherwise (each failure printed).
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    import jsonschema
except ImportError:  # pragma: no cover - said plainly, not skipped
    print("python3-jsonschema is not installed: run scripts/install-deps.sh", file=sys.stderr)
    sys.exit(1)

# (schema, name, argv, expected exit codes). Paths are relative to --root;
# "{tmp}" is a fresh directory per run.
COMMANDS = [
    ("plan", "plan-finetune", ["plan", "examples/finetune-llama3-8b.yaml", "--json"], {0}),
    ("plan", "plan-pretrain", ["plan", "examples/pretrain-llama2-70b.yaml", "--json"], {0}),
    ("plan", "plan-serve", ["plan", "examples/serve-llama3-8b.yaml", "--json"], {0}),
    ("plan", "plan-render", ["plan", "examples/render-nv.yaml", "--json"], {0}),
    ("plan", "plan-windows", ["plan", "examples/windows-hybrid.yaml", "--json"], {0}),
    ("plan", "plan-infeasible", ["plan", "examples/infeasible-budget.yaml", "--json"], {1}),
    ("estimate", "estimate-finetune", ["estimate", "examples/finetune-llama3-8b.yaml", "--json"],
     {0}),
    ("estimate", "estimate-serve", ["estimate", "examples/serve-llama3-8b.yaml", "--size",
                                    "Standard_NC40ads_H100_v5", "--json"], {0, 1}),
    ("estimate-validate", "estimate-validate",
     ["estimate", "--validate", "tests/data/published_measurements.csv", "--json"], {0}),
    ("cost", "cost-month", ["cost", "Standard_NC40ads_H100_v5", "--region", "eastus", "--json"],
     {0}),
    ("cost", "cost-hours-windows", ["cost", "Standard_NC24ads_A100_v4", "--region", "eastus",
                                    "--hours", "100", "--os", "windows", "--hybrid-benefit",
                                    "--json"], {0}),
    ("cost", "cost-utilization", ["cost", "Standard_ND96isr_H100_v5", "--region", "eastus",
                                  "--utilization", "0.6", "--json"], {0}),
    ("catalog", "catalog-h100", ["catalog", "--gpu", "H100", "--region", "eastus", "--json"], {0}),
    ("catalog", "catalog-all", ["catalog", "--json"], {0}),
    ("catalog", "catalog-spot", ["catalog", "--series", "NV", "--pricing", "spot", "--json"], {0}),
    ("catalog-import", "import-prices", ["--db", "{tmp}/c.db", "catalog", "import",
                                         "retail-prices", "tests/data/azure/retail_prices_page1.json",
                                         "tests/data/azure/retail_prices_page2.json", "--json"], {0}),
    ("catalog-import", "import-usage", ["--db", "{tmp}/c.db", "catalog", "import", "usage",
                                        "tests/data/azure/list_usage_eastus.json", "--region",
                                        "eastus", "--json"], {0}),
    ("catalog-history", "history", ["--db", "{tmp}/c.db", "catalog", "history",
                                    "Standard_NC24ads_A100_v4", "--region", "eastus", "--json"],
     {0}),
    ("regions", "regions", ["regions", "--json"], {0}),
    ("regions", "regions-quota", ["--db", "{tmp}/c.db", "regions", "--json"], {0}),
    ("simulate", "sim-serving", ["simulate", "tests/data/sim/serving_small.yaml", "--json"], {0}),
    ("simulate", "sim-deadline", ["simulate", "tests/data/sim/deadline_small.yaml", "--json"],
     {0}),
    ("simulate", "sim-reserve", ["simulate", "examples/sim-reserve-growth.yaml", "--json"], {0}),
    ("report", "report-azure", ["report", "tests/data/report/azure_month.csv", "--json"], {0}),
    ("report", "report-focus-plan", ["report", "tests/data/report/focus_month.csv", "--plan",
                                     "tests/data/report/plan_train.json", "--json"], {0}),
    ("doctor", "doctor", ["doctor", "--json"], {0, 1, 3}),
    ("stack", "stack-h100", ["stack", "--size", "Standard_NC40ads_H100_v5", "--json"], {0}),
    ("stack", "stack-gb200", ["stack", "--size", "Standard_ND128isr_NDR_GB200_v6", "--json"], {0}),
    ("stack", "stack-amd", ["stack", "--size", "Standard_ND96isr_MI300X_v5", "--json"], {1}),
    ("deploy", "deploy-plan-v1", ["deploy", "tests/data/plans/nc_h100_train.json", "--out",
                                  "{tmp}/d1", "--ssh-cidr", "203.0.113.0/24", "--json"], {0}),
    ("deploy", "deploy-plan-v2-arm64", ["deploy", "tests/data/plans/nd_gb200_arm64.json", "--out",
                                        "{tmp}/d3", "--ssh-cidr", "203.0.113.0/24", "--json"], {0}),
    ("deploy", "deploy-workload", ["deploy", "examples/serve-llama3-8b.yaml", "--out", "{tmp}/d2",
                                   "--ssh-cidr", "203.0.113.0/24", "--json"], {0}),
]

# The same JSON over HTTP (server.cc calls the same to_json functions).
HTTP = [
    ("plan", "api-plan", "POST", "/api/plan", "examples/finetune-llama3-8b.yaml"),
    ("estimate", "api-estimate", "POST", "/api/estimate", "examples/finetune-llama3-8b.yaml"),
    ("cost", "api-cost", "GET", "/api/cost?size=Standard_NC40ads_H100_v5&region=eastus", None),
    ("stack", "api-stack", "GET", "/api/stack?size=Standard_NC40ads_H100_v5", None),
    ("simulate", "api-simulate", "POST", "/api/simulate?timeline=true",
     "tests/data/sim/serving_two_hours.yaml"),
    ("api-sizes", "api-sizes", "GET", "/api/sizes", None),
    ("api-prices", "api-prices", "GET", "/api/prices?size=Standard_NC40ads_H100_v5", None),
]

MONEY_SUFFIXES = ("_usd", "usd_per_hour", "usd_per_gpu_hour", "usd_per_hour_vm")


def vocabulary_errors(doc, path="$"):
    """The names docs/json.md fixes, checked wherever they occur."""
    errors = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            here = f"{path}.{key}"
            if key == "gpu_model":
                errors.append(f"{here}: 'gpu_model' is spelled 'gpu' (docs/json.md)")
            if key == "gpu" and not (value is None or isinstance(value, str)):
                errors.append(f"{here}: 'gpu' is a model name, got {value!r}")
            if key in ("gpus", "gpu_count") and not isinstance(value, (int, float)):
                errors.append(f"{here}: '{key}' is a number of GPUs, got {type(value).__name__}")
            if key.endswith(MONEY_SUFFIXES) and not (value is None or isinstance(value, (int, float))):
                errors.append(f"{here}: money is a number, got {type(value).__name__}")
            errors += vocabulary_errors(value, here)
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            errors += vocabulary_errors(value, f"{path}[{i}]")
    return errors


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_documents(gpuplan, root, tmp, failures):
    port = free_port()
    log_path = os.path.join(tmp, "serve.log")
    with open(log_path, "w", encoding="utf-8") as log:
        server = subprocess.Popen([gpuplan, "serve", "--port", str(port)], cwd=root,
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/api/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        else:
            failures.append("gpuplan serve did not answer: " + open(log_path).read()[:300])
            return
        for schema, name, method, url, body_file in HTTP:
            data = open(os.path.join(root, body_file), "rb").read() if body_file else None
            req = urllib.request.Request(base + url, data=data, method=method,
                                         headers={"Content-Type": "application/yaml"})
            try:
                with urllib.request.urlopen(req, timeout=120) as answer:
                    yield schema, name, json.loads(answer.read())
            except OSError as e:
                failures.append(f"{name}: {method} {url}: {e}")
    finally:
        server.terminate()
        server.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuplan", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--dump")
    args = ap.parse_args()
    gpuplan = os.path.abspath(args.gpuplan)
    root = os.path.abspath(args.root)
    schemas = {}
    failures = []
    tmp = tempfile.mkdtemp(prefix="gpuplan-schema-")
    env = dict(os.environ, GPUPLAN_TODAY="2026-12-01", NO_COLOR="1",
               XDG_DATA_HOME=os.path.join(tmp, "xdg"))

    def schema_for(name):
        if name not in schemas:
            path = os.path.join(root, "docs", "schema", name + ".schema.json")
            schema = json.load(open(path, encoding="utf-8"))
            jsonschema.Draft202012Validator.check_schema(schema)
            schemas[name] = jsonschema.Draft202012Validator(schema)
        return schemas[name]

    def check(schema, name, doc):
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            with open(os.path.join(args.dump, name + ".json"), "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=2)
        errors = [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}"
                  for e in schema_for(schema).iter_errors(doc)]
        errors += vocabulary_errors(doc)
        for e in errors[:10]:
            failures.append(f"{name} ({schema}.schema.json): {e}")
        print(f"{'ok  ' if not errors else 'FAIL'} {name}")

    try:
        for schema, name, argv, codes in COMMANDS:
            argv = [a.replace("{tmp}", tmp) for a in argv]
            r = subprocess.run([gpuplan] + argv, cwd=root, env=env, capture_output=True,
                               text=True, timeout=300)
            if r.returncode not in codes:
                failures.append(f"{name}: exit {r.returncode}, expected {sorted(codes)}: "
                                f"{r.stderr.strip()[:300]}")
                continue
            try:
                doc = json.loads(r.stdout)
            except json.JSONDecodeError as e:
                failures.append(f"{name}: not JSON ({e}): {r.stdout[:200]!r}")
                continue
            check(schema, name, doc)
        for schema, name, doc in http_documents(gpuplan, root, tmp, failures):
            check(schema, name, doc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
