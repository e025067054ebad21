#!/usr/bin/env python3
"""The module graph of docs/ARCHITECTURE.md, derived from CMake's targets.

Configures the project in a temporary directory with `cmake --graphviz`,
keeps the gpuplan libraries (gpuplan_<module>, alias gpuplan::<module>) and
their direct link dependencies, and renders them as the table between the
`arch-graph` markers of docs/ARCHITECTURE.md.

  scripts/arch_graph.py --check   exit 1 (and show the difference) when the
                                  document's table is not the generated one
  scripts/arch_graph.py --write   rewrite the table in place

ctest runs --check (tests/CMakeLists.txt), so a new dependency that is not
in the document fails CI.
"""
import difflib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
BEGIN = "<!-- arch-graph:begin -->"
END = "<!-- arch-graph:end -->"
# Interface targets that carry settings, not code.
IGNORED = {"gpuplan_settings", "Threads::Threads"}


def graph():
    with tempfile.TemporaryDirectory() as tmp:
        dot = os.path.join(tmp, "deps.dot")
        subprocess.run(
            ["cmake", "-S", ROOT, "-B", os.path.join(tmp, "build"), "-DGPUPLAN_BUILD_BENCH=OFF",
             "--graphviz=" + dot],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        text = open(dot, encoding="utf-8").read()
    labels = {}
    for node, label in re.findall(r'"(node\d+)" \[ label = "([^"]*)"', text):
        labels[node] = label.split("\\n")[0]
    deps = {}
    for a, b in re.findall(r'"(node\d+)" -> "(node\d+)"', text):
        deps.setdefault(labels[a], set()).add(labels[b])
    return deps


def module(target):
    return target[len("gpuplan_"):] if target.startswith("gpuplan_") else None


def external(name):
    name = os.path.basename(name)
    name = re.sub(r"^lib(.*)\.so.*$", r"\1", name)
    return name


def table(deps):
    rows = ["| module | depends on (gpuplan) | external |", "| --- | --- | --- |"]
    mods = sorted(m for m in (module(t) for t in deps) if m and "gpuplan_" + m not in IGNORED)
    for m in mods:
        inner, outer = [], []
        for d in sorted(deps.get("gpuplan_" + m, ())):
            if d in IGNORED:
                continue
            (inner if module(d) else outer).append(module(d) or external(d))
        rows.append("| `%s` | %s | %s |" % (m, ", ".join(sorted(inner)) or "—",
                                            ", ".join(sorted(set(outer))) or "—"))
    return "\n".join(rows)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    doc = open(DOC, encoding="utf-8").read()
    if BEGIN not in doc or END not in doc:
        sys.exit("docs/ARCHITECTURE.md has no %s ... %s block" % (BEGIN, END))
    head, rest = doc.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    new = "\n" + table(graph()) + "\n"
    if mode == "--write":
        open(DOC, "w", encoding="utf-8").write(head + BEGIN + new + END + tail)
        return 0
    if old != new:
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), "docs/ARCHITECTURE.md", "cmake --graphviz"))
        print("\nThe module graph changed: run scripts/arch_graph.py --write and review the diff.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
