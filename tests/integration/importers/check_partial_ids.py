#!/usr/bin/env python3
"""A partial import keeps the job's rank ids in every output (issue 38 item 3; integration test).

usage: check_partial_ids.py CULPRIT TRACES WORKDIR

Ranks 2 and 3 of the real 4-rank torch-ddp straggler case (ddp4-matmul-layer1, Kineto files;
truth.json: rank 2 runs extra matmuls inside layer1) are imported with --partial. Before the fix
they were stored and shown as ranks 0 and 1, so the straggler read "rank 0". Checked here: the
store (an sqlite3 oracle over its tables), `attribute` (JSON and text), `export --format perfetto`
(and its --ranks and --steps refusals), the HTML report's embedded data and `explain` (the
candidate: the two injected steps, the baseline: the six others, both imported from the same
files with --step-pattern) name only ranks 2 and 3, and the straggler as rank 2.
"""
import json
import os
import re
import sqlite3
import subprocess
import sys

from checks import Checks

CULPRIT, TRACES, WORK = sys.argv[1:4]
CHECKS = Checks(CULPRIT, WORK)
FAILURES = CHECKS.failures
check, run, fresh = CHECKS.check, CHECKS.run, CHECKS.fresh
CASE = os.path.join(TRACES, "torch-ddp", "ddp4-matmul-layer1")
FILES = [os.path.join(CASE, "kineto", f"rank{r}.json.gz") for r in (2, 3)]
IDS = {2, 3}
RANK_KEYS = ("rank", "last_arriver", "last_rank", "first_rank", "last_finisher")


def ranks_named(doc):
    """Every rank a JSON document names (the keys above; -1 and null mean none)."""
    found = set()

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k in RANK_KEYS and isinstance(v, int) and v >= 0:
                    found.add(v)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(doc)
    return found


def q(db, sql):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def check_store(db, run_id):
    for table, where in (("clock_models", ""), ("run_event_packs", ""), ("steps", ""),
                         ("provenance", " AND rank >= 0")):
        column = "last_rank" if table == "steps" else "rank"
        got = {r for (r,) in q(db, f"SELECT DISTINCT {column} FROM {table} "
                                   f"WHERE run_id = {run_id}{where}")}
        check(got == IDS, f"store: {table}.{column} holds the job's ranks 2 and 3 ({sorted(got)})")
    got = {r for (r,) in q(db, f"SELECT DISTINCT rank FROM run_events WHERE run_id = {run_id}")}
    check(got == IDS, f"store: the run_events view decodes ranks 2 and 3 ({sorted(got)})")
    traced = dict(q(db, f"SELECT rank, value FROM provenance WHERE run_id = {run_id} "
                        "AND key = 'trace_rank'"))
    check(traced == {2: "2", 3: "3"}, f"store: each rank's trace_rank is its own id ({traced})")


def check_attribute(db, run_id, straggler):
    p = run(["attribute", "--db", db, str(run_id), "--json"])
    check(p.returncode == 0, "attribute --json runs")
    if p.returncode:
        return
    a = json.loads(p.stdout)
    named = ranks_named(a)
    check(named == IDS, f"attribute --json names only ranks 2 and 3 ({sorted(named)})")
    top = a["summary"]["delay_costs"]["top"][0]
    check(top["rank"] == straggler["rank"] and top["phase"] == straggler["op"],
          f"attribute: the largest delay cost is the truth's rank {straggler['rank']} "
          f"{straggler['op']} ({top['rank']} {top['phase']})")
    said = [s["cannot_decide"] for s in a["steps"] if s["cannot_decide"]]
    check(any(t.startswith(f"rank {straggler['rank']} {straggler['op']} ") for t in said),
          f"attribute: the steps' cannot-decide notes name rank {straggler['rank']} ({said[:2]})")
    t = run(["attribute", "--db", db, str(run_id)])
    check(f"rank {straggler['rank']} {straggler['op']}" in t.stdout and "rank 0" not in t.stdout
          and "rank 1 " not in t.stdout, "attribute text: rank 2 layer1, never rank 0 or 1")


def check_perfetto(db, run_id):
    out = os.path.join(WORK, "trace.json")
    p = run(["export", "--format", "perfetto", "--db", db, str(run_id), "-o", out])
    check(p.returncode == 0, "export --format perfetto runs")
    if p.returncode == 0:
        trace = json.load(open(out))
        events = trace["traceEvents"]
        pids = {e["pid"] for e in events}
        check(pids == IDS, f"perfetto: one process per job rank, pids 2 and 3 ({sorted(pids)})")
        names = sorted(e["args"]["name"] for e in events if e.get("name") == "process_name")
        check(names == ["rank 2", "rank 3"], f"perfetto: processes named rank 2, rank 3 ({names})")
        check(ranks_named(trace) == IDS, "perfetto: every rank in args and otherData is 2 or 3")
    p = run(["export", "--format", "perfetto", "--db", db, str(run_id), "--ranks", "2", "-o", out])
    check(p.returncode == 0 and {e["pid"] for e in json.load(open(out))["traceEvents"]} == {2},
          "perfetto --ranks 2: the job's rank 2 only")
    p = run(["export", "--format", "perfetto", "--db", db, str(run_id), "--ranks", "0"], expect=2)
    check(p.returncode == 2 and "'0' names a rank this run does not have (the run's ranks: 2, 3)" in p.stderr,
          f"perfetto --ranks 0: refused, naming the run's ranks ({p.stderr.strip()})")


def check_report(db):
    out = os.path.join(WORK, "report.html")
    p = run(["report", "--db", db, "-o", out])
    check(p.returncode == 0, "report runs")
    if p.returncode:
        return
    page = open(out).read()
    m = re.search(r'<script type="application/json" id="culprit-data">(.*?)</script>', page, re.S)
    data = json.loads(m.group(1))
    check(ranks_named(data) == IDS, f"report: heat maps and lanes name ranks 2 and 3 "
                                    f"({sorted(ranks_named(data))})")
    rows = data["heatmaps"]["excess"]["rows"]
    worst = max(rows, key=lambda r: sum(v for v in r["ms"] if v is not None))
    check(worst["first_rank"] == 2, f"report: the excess map's brightest row is rank 2 "
                                    f"({worst['first_rank']})")


def check_explain():
    db = fresh("explain.db")
    # The truth's injected steps (ProfilerStep#4 and #7) as the candidate, the other six steps
    # of the same files as the baseline.
    for label, steps in (("baseline", "235689"), ("candidate", "47")):
        p = run(["import"] + FILES + ["--db", db, "--partial", "--label", label,
                                      "--step-pattern", f"^ProfilerStep#([{steps}])$"])
        check(p.returncode == 0, f"explain: import {label} (steps {steps})")
    p = run(["explain", "--db", db, "--json"])
    check(p.returncode == 0, "explain --json runs")
    if p.returncode:
        return
    e = json.loads(p.stdout)
    named = ranks_named(e)
    stragglers = [c for x in e["explanations"] for c in x["components"]
                  if c["category"] == "straggler"]
    check(stragglers and named <= IDS, f"explain: straggler components name ranks 2 and 3 only "
                                       f"({sorted(named)})")


def main():
    truth = json.load(open(os.path.join(CASE, "truth.json")))
    straggler = truth["expected"]["culprits"][0]
    db = fresh("partial.db")
    p = run(["import"] + FILES + ["--db", db, "--partial", "--json"])
    check(p.returncode == 0, "import ranks 2 and 3 of 4 with --partial")
    if p.returncode:
        sys.exit(1)
    run_id = json.loads(p.stdout)["run_id"]
    check_store(db, run_id)
    check_attribute(db, run_id, straggler)
    check_perfetto(db, run_id)
    # Issue 38 item 14: steps the run does not have are refused with its step range.
    first, last = q(db, f"SELECT min(step), max(step) FROM steps WHERE run_id = {run_id}")[0]
    p = run(["export", "--format", "perfetto", "--db", db, str(run_id), "--steps", "100:200"],
            expect=2)
    check(p.returncode == 2 and f"--steps 100:200 selects no step of run {run_id}, which has "
                                f"steps {first}..{last}" in p.stderr and not p.stdout,
          f"perfetto --steps 100:200: refused with the run's steps {first}..{last} "
          f"({p.stderr.strip()})")
    check_report(db)
    check_explain()
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        sys.exit(1)


main()
