#!/usr/bin/env python3
"""The modules' include graph keeps the layering of docs/architecture.md (issue 33).

Usage: module_layering.py SOURCE_DIR

A module is common/, storage/, or a folder directly under importers/, orchestrator/ or
workloads/ that holds C or C++ sources. An edge A -> B is a file of A that includes a header of
B (quoted or angled; resolved beside the including file, then under the modules' include/
folders, then by a unique path suffix). The rules, owned here:

- no cycle between modules;
- between groups, an edge goes down the tiers (TIERS): the command line above the core modules,
  the core modules above the importers and the store, those above the workloads, common at the
  bottom; importers and storage, one tier, never include each other;
- the orchestrator, the importers and the store meet the workloads only through the run-file
  library and the resolved configuration (workloads/runfile, workloads/stepmodel), but for the
  exceptions docs/architecture.md argues (EXCEPTIONS).

The checker is first run on two small trees written here by hand (a cycle; an include up the
tiers and one into a workload's insides), whose findings are known, then on SOURCE_DIR, where it
must find nothing. It prints the figures the closing note quotes: modules, module edges, cycles,
edges against the rules.
"""

import os
import re
import sys
import tempfile

from source_tree import source_files as sources_under

GROUPED = ("importers", "orchestrator", "workloads")
SINGLE = ("common", "storage")
# The group of a module (orchestrator/cli is a group of its own: nothing includes it) and the
# tier of each group; an edge between groups goes to a lower tier.
TIERS = {"common": 0, "workloads": 1, "importers": 2, "storage": 2, "orchestrator": 3, "cli": 4}
WORKLOAD_CONTRACTS = ("workloads/runfile", "workloads/stepmodel")
# docs/architecture.md: reduce runs the simulator library in process (dozens of draws).
EXCEPTIONS = {("orchestrator/reduce", "workloads/sim")}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')


def group_of(module):
    if module == "orchestrator/cli":
        return "cli"
    return module.split("/")[0]


def source_files(root):
    """Yields (module, path relative to root) of every C/C++ source of every module."""
    tops = [(m, m) for m in SINGLE]
    for group in GROUPED:
        base = os.path.join(root, group)
        if os.path.isdir(base):
            tops += [(f"{group}/{d}", f"{group}/{d}") for d in sorted(os.listdir(base))
                     if os.path.isdir(os.path.join(base, d))]
    for module, top in tops:
        for path in sources_under(root, [top]):
            yield module, path


def include_edges(root):
    """Maps each module edge (A, B) to the files of A that include a header of B."""
    module_of = dict((path, module) for module, path in source_files(root))
    under_include = {}  # "culprit/x/y.hpp" -> the files it can name
    for path in module_of:
        parts = path.split("/")
        if "include" in parts:
            under_include.setdefault("/".join(parts[parts.index("include") + 1:]), []).append(path)

    def owner(including, name):
        beside = os.path.normpath(os.path.join(os.path.dirname(including), name))
        if beside in module_of:
            return module_of[beside]
        candidates = under_include.get(name) or [p for p in module_of if p.endswith("/" + name)]
        modules = {module_of[p] for p in candidates}
        if module_of[including] in modules:
            return module_of[including]
        return modules.pop() if len(modules) == 1 else None

    edges = {}
    for path, module in module_of.items():
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for line in f:
                match = INCLUDE.match(line)
                target = owner(path, match.group(1)) if match else None
                if target and target != module:
                    edges.setdefault((module, target), set()).add(path)
    return set(module_of.values()), edges


def find_cycles(modules, edges):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    out = {m: sorted(b for a, b in edges if a == m) for m in modules}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(m):
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for n in out[m]:
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in on_stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            component = []
            while True:
                n = stack.pop()
                on_stack.discard(n)
                component.append(n)
                if n == m:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for m in sorted(modules):
        if m not in index:
            visit(m)
    return found


def rule_breaks(edges):
    """Each edge against the tiers or the workload rule, with why."""
    breaks = []
    for (a, b), files in sorted(edges.items()):
        ga, gb = group_of(a), group_of(b)
        example = sorted(files)[0]
        if ga != gb and TIERS[gb] >= TIERS[ga]:
            breaks.append(f"{a} -> {b} ({example}): {ga} (tier {TIERS[ga]}) may not include "
                          f"{gb} (tier {TIERS[gb]})")
        elif (gb == "workloads" and ga != "workloads" and b not in WORKLOAD_CONTRACTS
              and (a, b) not in EXCEPTIONS):
            breaks.append(f"{a} -> {b} ({example}): outside the workloads, only "
                          f"{' and '.join(WORKLOAD_CONTRACTS)} may be included")
    return breaks


def check(root):
    modules, edges = include_edges(root)
    return modules, edges, find_cycles(modules, edges), rule_breaks(edges)


def write_tree(root, files):
    for path, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write(text)


def check_hand_written_trees():
    """Known findings on two trees written here, so a checker that finds nothing fails."""
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(tmp, {  # hand-written: analysis and stats include each other
            "orchestrator/analysis/include/culprit/analysis/a.hpp": '#include "culprit/stats/s.hpp"\n',
            "orchestrator/stats/include/culprit/stats/s.hpp": "#pragma once\n",
            "orchestrator/stats/src/s.cpp": '#include "culprit/analysis/a.hpp"\n',
            "common/include/culprit/errors.hpp": "#pragma once\n",
        })
        modules, edges, cycles, breaks = check(tmp)
        assert cycles == [["orchestrator/analysis", "orchestrator/stats"]], cycles
        assert breaks == [], breaks
        assert len(modules) == 3 and len(edges) == 2, (modules, edges)
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(tmp, {  # hand-written: storage includes analysis, a workload's private header
            "storage/src/load.cpp": '#include "culprit/analysis/a.hpp"\n#include "engine.hpp"\n'
                                    '#include "runfile/run_file.hpp"\n#include <vector>\n',
            "orchestrator/analysis/include/culprit/analysis/a.hpp": "#pragma once\n",
            "workloads/sim/src/engine.hpp": "#pragma once\n",
            "workloads/runfile/include/runfile/run_file.hpp": "#pragma once\n",
            "orchestrator/reduce/src/r.cpp": '#include "engine.hpp"\n',
        })
        modules, edges, cycles, breaks = check(tmp)
        assert cycles == [], cycles
        assert breaks == [
            "storage -> orchestrator/analysis (storage/src/load.cpp): storage (tier 2) may not "
            "include orchestrator (tier 3)",
            "storage -> workloads/sim (storage/src/load.cpp): outside the workloads, only "
            "workloads/runfile and workloads/stepmodel may be included",
        ], breaks
        assert ("storage", "workloads/runfile") in edges  # the contract: no finding


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: module_layering.py SOURCE_DIR")
    check_hand_written_trees()
    modules, edges, cycles, breaks = check(sys.argv[1])
    print(f"modules {len(modules)}, module edges {len(edges)}, cycles {len(cycles)}, "
          f"edges against the rules {len(breaks)}")
    for cycle in cycles:
        print("FAIL: include cycle between " + ", ".join(cycle), file=sys.stderr)
    for line in breaks:
        print("FAIL: " + line, file=sys.stderr)
    if len(modules) < 20 or len(edges) < 50:
        sys.exit(f"FAIL: only {len(modules)} modules and {len(edges)} edges read under "
                 f"{sys.argv[1]}: not the source tree")
    sys.exit(1 if cycles or breaks else 0)


if __name__ == "__main__":
    main()
