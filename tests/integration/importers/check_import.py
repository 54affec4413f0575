#!/usr/bin/env python3
"""culprit import on the real traces in shared/traces (integration test).

usage: check_import.py CULPRIT TRACES WORKDIR MODE
MODE torch:   every torch-ddp case, both formats: imports with the right ranks/steps, and
              `culprit attribute` blames the truth's rank and region at the injected step (or
              the next); the control blames nobody.
MODE compare: two imported runs labelled baseline/candidate give `compare` and `explain`.
MODE hta:     the HTA files import (--partial) with counts computed here from the JSON.
MODE nsys:    the nsys exports import with counts computed here with sqlite3; a multi-rank
              case is built from several per-rank copies.
MODE partial: ranks 0 and 2 of the 4-rank torch-ddp straggler case (the culprit is rank 2),
              both formats: refused without --partial, flagged partial with it, and attribution
              says "cannot decide" (no step blames, no run culprit) at collectives whose other
              members were not imported.
MODE bad:     truncated, corrupt and mislabelled files exit 2 naming the file, store nothing.
"""
import gzip
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys

from checks import Checks

CULPRIT, TRACES, WORK, MODE = sys.argv[1:5]
CHECKS = Checks(CULPRIT, WORK)
FAILURES = CHECKS.failures
check, run, fresh = CHECKS.check, CHECKS.run, CHECKS.fresh


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def refused_then_partial(paths, db, needle, what):
    """Import refused without --partial (stderr holds needle), accepted with it: its --json."""
    p = run(["import"] + paths + ["--db", db, "--json"], expect=2)
    check(p.returncode == 2 and needle in p.stderr,
          f"{what}: without --partial the subset of ranks is refused ({needle})")
    p = run(["import"] + paths + ["--db", db, "--json", "--partial"])
    check(p.returncode == 0, f"{what}: imports with --partial")
    return json.loads(p.stdout) if p.returncode == 0 else None


def torch_cases():
    base = os.path.join(TRACES, "torch-ddp")
    for case in sorted(os.listdir(base)):
        truth_path = os.path.join(base, case, "truth.json")
        if os.path.exists(truth_path):
            yield case, os.path.join(base, case), json.load(open(truth_path))


def mode_torch():
    for case, folder, truth in torch_cases():
        for fmt in ("legacy", "kineto"):
            db = fresh(f"{case}-{fmt}.db")
            p = run(["import", os.path.join(folder, fmt), "--db", db, "--json",
                     "--experiment", case, "--label", fmt])
            check(p.returncode == 0, f"{case}/{fmt}: imports")
            if p.returncode:
                continue
            info = json.loads(p.stdout)
            world = truth["world_size"]
            check(info["ranks"] == world, f"{case}/{fmt}: {info['ranks']} ranks == {world}")
            steps = len(truth["observed"]["profiler_steps"])
            check(info["steps"] == steps, f"{case}/{fmt}: {info['steps']} steps == {steps}")
            # 3 DDP buckets per step per rank (README)
            check(info["collectives"] == 3 * steps * world,
                  f"{case}/{fmt}: {info['collectives']} collectives == 3 x {steps} x {world}")
            if fmt == "legacy":
                check(any("file name" in w for w in info["warnings"]),
                      f"{case}/{fmt}: says the rank came from the file name")
                # clock models from the collectives recover each rank's profiling start
                con = sqlite3.connect(db)
                b0 = truth["ranks"]["0"]["legacy_ts_base_us"]
                for r, off, unc in con.execute(
                        "select rank, offset_ns, uncertainty_ns from clock_models order by rank"):
                    true = (truth["ranks"][str(r)]["legacy_ts_base_us"] - b0) * 1000
                    err = abs(off - true)
                    check(err <= 300e3 and err <= unc + 1,
                          f"{case}/{fmt}: rank {r} clock offset within {err / 1e3:.0f} us of the "
                          f"truth (<= 300 us, uncertainty {unc / 1e3:.0f} us)")
            a = run(["attribute", "--db", db, str(info["run_id"]), "--json"])
            check(a.returncode == 0, f"{case}/{fmt}: attribute runs")
            if a.returncode:
                continue
            att = json.loads(a.stdout)
            by_step = {s["step"]: s for s in att["steps"]}
            if not truth["injections"]:
                check(att["summary"]["culprit"] is None,
                      f"{case}/{fmt}: control blames nobody (run culprit {att['summary']['culprit']})")
                continue
            for inj in truth["injections"]:
                for label in inj["profiler_steps"]:
                    n = int(label.split("#")[1])
                    found = []
                    for s in (n, n + 1):
                        c = (by_step.get(s) or {}).get("culprit") or {}
                        found.append((s, c.get("rank"), c.get("phase")))
                    hit = any(r == inj["rank"] and ph == inj["where"] for _, r, ph in found)
                    check(hit, f"{case}/{fmt}: {label} blamed on rank {inj['rank']} "
                               f"{inj['where']} (got {found})")


def mode_compare():
    db = fresh("compare.db")
    base = os.path.join(TRACES, "torch-ddp")
    a = run(["import", os.path.join(base, "ddp2-control", "kineto"), "--db", db,
             "--experiment", "ab", "--label", "baseline", "--json"])
    b = run(["import", os.path.join(base, "ddp2-sleep-layer2", "legacy"), "--db", db,
             "--experiment", "ab", "--label", "candidate", "--json"])
    check(a.returncode == 0 and b.returncode == 0, "baseline and candidate import")
    check(json.loads(a.stdout)["baseline"] is True, "the run labelled baseline is the baseline")
    c = run(["compare", "--db", db, "--experiment", "ab", "--json"])
    check(c.returncode in (0, 3, 4), f"compare works on imported runs (rc {c.returncode})")
    e = run(["explain", "--db", db, "--experiment", "ab", "--json"])
    check(e.returncode == 0, "explain works on imported runs")
    if e.returncode == 0:
        doc = json.loads(e.stdout)
        check(len(doc["explanations"]) == 1 and doc["skipped"] == [],
              "explain --json: one explanation in the one shape")
        doc = doc["explanations"][0]
        total = sum(c["ms"] for c in doc["components"]) + doc.get("unclassified_ms", 0)
        check(abs(total - doc["delta_ms"]) <= 0.011,
              f"explain: components + unclassified = delta ({total:.2f} vs {doc['delta_ms']:.2f} ms)")
    x = run(["export", "--db", db, "--experiment", "ab", "--format", "json"])
    rows = json.loads(x.stdout) if x.returncode == 0 else []
    check(x.returncode == 0 and len(rows) == 16, f"export lists the 2 x 8 imported steps ({len(rows)})")
    r = run(["runs", "--db", db, "--json"])
    check(r.returncode == 0 and all(x["status"] == "ok" for x in json.loads(r.stdout)),
          "runs lists the imported runs as ok")
    # the candidate imported first: the configuration labelled baseline still becomes the
    # baseline (docs/cli.md), and the import says it took the baseline over
    b = run(["import", os.path.join(base, "ddp2-sleep-layer2", "legacy"), "--db", db,
             "--experiment", "ba", "--label", "candidate"])
    a = run(["import", os.path.join(base, "ddp2-control", "kineto"), "--db", db,
             "--experiment", "ba", "--label", "baseline", "--json"])
    check(a.returncode == 0 and b.returncode == 0, "candidate first, then baseline, import")
    said = json.loads(a.stdout) if a.returncode == 0 else {"baseline": False, "warnings": []}
    check(said["baseline"] is True and any("now has 'baseline' as its baseline, not 'candidate'" in w
                                           for w in said["warnings"]),
          f"the run labelled baseline is the baseline, said so: {said['warnings']}")
    c = run(["compare", "--db", db, "--experiment", "ba", "--json"])
    sides = [(x["baseline"]["label"], x["candidate"]["label"])
             for x in json.loads(c.stdout)["comparisons"]] if c.stdout else []
    check(sides == [("baseline", "candidate")], f"compare judges candidate against baseline: {sides}")
    # two people's stores of imports merged: repetition 0 of each is another capture (kept both,
    # as repetitions 0 and 1), one capture in both is kept once, the counters attached to a run
    # come along, and merging again changes nothing
    one, two, merged = fresh("one.db"), fresh("two.db"), fresh("merged.db")
    ncu = os.path.join(os.path.dirname(TRACES), "counters", "roofline-profiler", "ncu", "gemm_naive.csv")
    for store, folder, label in ((one, "ddp2-control", "baseline"), (two, "ddp2-sleep-layer2", "baseline"),
                                 (two, "ddp2-control", "candidate")):
        p = run(["import", os.path.join(base, folder, "kineto"), "--db", store, "--label", label])
        check(p.returncode == 0, f"merge: {folder} imports into {os.path.basename(store)}")
    p = run(["import", ncu, "--format", "ncu", "--db", one, "--attach", "1:0"])
    check(p.returncode == 0, "merge: counters attach to run 1 of one.db")

    def contents(db):
        con = sqlite3.connect(db)
        rows = sorted(con.execute(
            "select c.label, r.repetition, m.value, (select count(*) from run_kernel_counters k "
            "where k.run_id = r.id) from runs r join configurations c on c.id = r.config_id "
            "join run_meta m on m.run_id = r.id and m.key = 'steps_digest'"))
        con.close()
        return rows
    digests = {d for db in (one, two) for _, _, d, _ in contents(db)}
    for _ in range(2):
        p = run(["merge", merged, one, two])
        check(p.returncode == 0, f"merge: exit 0 ({p.stderr.strip()[:200]})")
        rows = contents(merged)
        check([(c, r, k) for c, r, _, k in rows] == [("baseline", 0, 12), ("baseline", 1, 0)]
              and {d for _, _, d, _ in rows} == digests,
              f"merge: both baselines kept, the shared capture once, its 12 counters along: {rows}")


def hta_counts(path):
    d = load_json(path)
    ev = d["traceEvents"]
    steps = sum(1 for e in ev if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#"))
    kernels = sum(1 for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel")
    return len(ev), steps, kernels, d.get("distributedInfo", {}).get("world_size")


def mode_hta():
    base = os.path.join(TRACES, "hta")
    sets = [["cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"],
            ["nccl_parser_config/nccl_data.json.gz"],
            ["trace_filter/sampled_rank-0.json.gz", "trace_filter/sampled_rank-1.json.gz"]]
    for files in sets:
        paths = [os.path.join(base, f) for f in files]
        counts = [hta_counts(p) for p in paths]
        db = fresh("hta.db")
        name = files[0].split("/")[0]
        p = run(["import"] + paths + ["--db", db, "--json"], expect=2)
        check(not os.path.exists(db) or sqlite3.connect(db).execute(
            "select count(*) from sqlite_master where name='runs'").fetchone()[0] == 0
              or sqlite3.connect(db).execute("select count(*) from runs").fetchone()[0] == 0,
              f"hta/{name}: refused import stores nothing")
        info = refused_then_partial(paths, db, "--partial", f"hta/{name}")
        if not info:
            continue
        check(info["ranks"] == len(files), f"hta/{name}: {info['ranks']} ranks")
        check(info["partial"] is True and info["world_size"] == counts[0][3],
              f"hta/{name}: flagged partial of {counts[0][3]} ranks")
        check(info["events_read"] == sum(c[0] for c in counts),
              f"hta/{name}: {info['events_read']} events read == {sum(c[0] for c in counts)}")
        expected_steps = min(c[1] for c in counts)
        check(info["steps"] == expected_steps, f"hta/{name}: {info['steps']} steps == {expected_steps}")
        check(info["kernels"] == sum(c[2] for c in counts),
              f"hta/{name}: {info['kernels']} kernels == {sum(c[2] for c in counts)}")
        if name == "nccl_parser_config":
            # DDP's all-reduces are called from the autograd thread, broadcasts from the main
            # one; every NCCL kernel is paired with its call by correlation id (no order pairing)
            d = load_json(paths[0])
            calls = sum(1 for e in d["traceEvents"] if e.get("cat") == "cpu_op"
                        and str(e.get("name", "")).startswith("c10d::") and "wait" not in e["name"])
            check(info["collectives"] == calls == 21,
                  f"hta/{name}: {info['collectives']} collectives == {calls} c10d calls")
            check(not any("paired in order" in w for w in info["warnings"]),
                  f"hta/{name}: every NCCL kernel paired with its call by identifiers")
        con = sqlite3.connect(db)
        n = con.execute("select count(*) from runs where status='ok'").fetchone()[0]
        check(n == 1, f"hta/{name}: one ok run stored")
        meta = dict(con.execute("select key, value from run_meta").fetchall())
        check(meta.get("partial") == "1", f"hta/{name}: run_meta.partial = 1")
        a = run(["attribute", "--db", db, str(info["run_id"]), "--json"])
        att = json.loads(a.stdout) if a.returncode == 0 else {}
        check(att.get("summary", {}).get("partial") is True and all(
            not s["last_arriver_decided"] for s in att.get("steps", []) if s["last_arriver"] >= 0),
              f"hta/{name}: attribution of a partial run cannot decide last arrivers")


def mode_partial():
    folder = os.path.join(TRACES, "torch-ddp", "ddp4-matmul-layer1")
    for fmt in ("kineto", "legacy"):
        paths = [os.path.join(folder, fmt, f"rank{r}.json.gz") for r in (0, 2)]
        db = fresh(f"partial-{fmt}.db")
        # the legacy format has no world size: the highest rank tells only that rank 1 is missing
        missing = "missing rank(s) 1, 3" if fmt == "kineto" else "missing rank(s) 1)"
        world = 4 if fmt == "kineto" else 3
        info = refused_then_partial(paths, db, missing, f"partial/{fmt} (ranks 0 and 2 of 4)")
        if not info:
            continue
        check(info["partial"] is True and info["ranks"] == 2 and info["world_size"] == world,
              f"partial/{fmt}: flagged partial, 2 of {world} ranks")
        check(info["incomplete_collectives"] == 3 * info["steps"],
              f"partial/{fmt}: every one of the {3 * info['steps']} collectives misses members "
              f"({info['incomplete_collectives']})")
        meta = dict(sqlite3.connect(db).execute("select key, value from run_meta").fetchall())
        check(meta.get("partial") == "1", f"partial/{fmt}: run_meta.partial = 1")
        a = run(["attribute", "--db", db, str(info["run_id"]), "--json"])
        check(a.returncode == 0, f"partial/{fmt}: attribute runs")
        if a.returncode:
            continue
        att = json.loads(a.stdout)
        summary = att["summary"]
        check(summary["culprit"] is None and "partial run" in (summary["cannot_decide"] or ""),
              f"partial/{fmt}: the run cannot decide (culprit {summary['culprit']}, "
              f"{summary['cannot_decide']})")
        blamed = [s["step"] for s in att["steps"] if s["culprit"]]
        undecided = [s["step"] for s in att["steps"] if s["cannot_decide"]]
        check(not blamed and undecided, f"partial/{fmt}: no step blames ({blamed}); "
                                        f"{len(undecided)} steps say cannot decide")
        check(all(not s["last_arriver_decided"] for s in att["steps"] if s["last_arriver"] >= 0),
              f"partial/{fmt}: no last arriver decided")
        t = run(["attribute", "--db", db, str(info["run_id"])])
        check("cannot decide" in t.stdout, f"partial/{fmt}: the text says cannot decide")


def nsys_counts(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    kernels = con.execute("select count(*) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    nvtx = con.execute("select count(*) from NVTX_EVENTS where end is not null").fetchone()[0] \
        if "NVTX_EVENTS" in tables else 0
    mpi = 0
    if "NVTX_EVENTS" in tables:
        mpi = con.execute(
            "select count(*) from NVTX_EVENTS n left join StringIds s on s.id = n.textId "
            "where coalesce(n.text, s.value) in ('MPI_Allreduce','MPI_Allgather','MPI_Allgatherv',"
            "'MPI_Alltoall','MPI_Alltoallv','MPI_Bcast','MPI_Barrier','MPI_Reduce',"
            "'MPI_Reduce_scatter','MPI_Gather','MPI_Gatherv','MPI_Scatter','MPI_Scatterv','MPI_Scan') "
            "and n.end is not null").fetchone()[0]
    return kernels, nvtx, mpi


def mode_nsys():
    base = os.path.join(TRACES, "nsys")
    for f in ("cloverleaf-cuda.sqlite", "saxpy-mpi-cuda.sqlite"):
        path = os.path.join(base, f)
        kernels, _, mpi = nsys_counts(path)
        db = fresh("nsys.db")
        p = run(["import", path, "--db", db, "--json", "--format", "nsys"])
        check(p.returncode == 0, f"nsys/{f}: imports")
        if p.returncode:
            continue
        info = json.loads(p.stdout)
        check(info["ranks"] == 1 and info["steps"] == 1, f"nsys/{f}: 1 rank, 1 step (whole capture)")
        check(info["kernels"] == kernels, f"nsys/{f}: {info['kernels']} kernels == {kernels}")
        check(info["collectives"] == mpi, f"nsys/{f}: {info['collectives']} collectives == {mpi}")
    # several per-rank files of one job: copies named rank<R>
    src = os.path.join(base, "saxpy-mpi-cuda.sqlite")
    folder = os.path.join(WORK, "nsys-4")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for r in range(4):
        shutil.copy(src, os.path.join(folder, f"rank{r}.sqlite"))
    db = fresh("nsys4.db")
    p = run(["import", folder, "--db", db, "--json"])
    check(p.returncode == 0, "nsys: 4 per-rank exports import as one 4-rank run")
    if p.returncode == 0:
        info = json.loads(p.stdout)
        _, _, mpi = nsys_counts(src)
        check(info["ranks"] == 4 and info["collectives"] == 4 * mpi,
              f"nsys 4 ranks: {info['ranks']} ranks, {info['collectives']} collectives == 4 x {mpi}")
        a = run(["attribute", "--db", db, str(info["run_id"]), "--json"])
        check(a.returncode == 0, "nsys 4 ranks: attribute runs")
    # a 4-rank straggler built from real per-rank exports: NVTX step/region/MPI_Allreduce ranges
    # added to each copy (rank 2's 'compute' 20 ms longer in step 3)
    folder = os.path.join(WORK, "nsys-straggler")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    ms = 1_000_000
    for r in range(4):
        path = os.path.join(folder, f"rank{r}.sqlite")
        shutil.copy(src, path)
        con = sqlite3.connect(path)
        tid = con.execute("select globalTid from NVTX_EVENTS where globalTid is not null limit 1").fetchone()[0]
        t0 = 3_000 * ms + r * 7 * ms  # every rank's clock has its own base
        rows = []
        for k in range(6):
            begin = t0 + k * 100 * ms
            work = 50 * ms + (r * 0.3 + k * 0.2) * ms + (20 * ms if (r == 2 and k == 3) else 0)
            done = 50 * ms + 1.3 * ms + (20 * ms if k == 3 else 0)  # the last arrival + transfer
            rows.append((begin, begin + 90 * ms, f"step {k}"))
            rows.append((begin + 1 * ms, begin + 1 * ms + int(work), "compute"))
            rows.append((begin + 1 * ms + int(work), begin + 1 * ms + int(done) + 1 * ms, "MPI_Allreduce"))
        for b, e, text in rows:
            con.execute("insert into NVTX_EVENTS (start, end, eventType, text, globalTid) values (?,?,59,?,?)",
                        (int(b), int(e), text, tid))
        con.commit()
        con.close()
    db = fresh("nsys-straggler.db")
    p = run(["import", folder, "--db", db, "--json", "--step-pattern", r"^step (\d+)$"])
    check(p.returncode == 0, "nsys straggler: imports with --step-pattern")
    if p.returncode == 0:
        info = json.loads(p.stdout)
        check(info["steps"] == 6 and info["collectives"] == 24,
              f"nsys straggler: {info['steps']} steps == 6, {info['collectives']} collectives == 24")
        a = run(["attribute", "--db", db, str(info["run_id"]), "--json"])
        att = json.loads(a.stdout)
        c = [s for s in att["steps"] if s["step"] == 3][0]["culprit"] or {}
        check(c.get("rank") == 2 and c.get("phase") == "compute",
              f"nsys straggler: step 3 blamed on rank 2 compute (got {c.get('rank')} {c.get('phase')})")


def stored_runs(db):
    if not os.path.exists(db):
        return 0
    con = sqlite3.connect(db)
    if not con.execute("select count(*) from sqlite_master where name='runs'").fetchone()[0]:
        return 0
    return con.execute("select count(*) from runs").fetchone()[0] + \
        con.execute("select coalesce(sum(events), 0) from run_event_packs").fetchone()[0]


def mode_bad():
    src = os.path.join(TRACES, "torch-ddp", "ddp2-control")
    bad = os.path.join(WORK, "bad")
    shutil.rmtree(bad, ignore_errors=True)
    os.makedirs(bad)
    db = fresh("bad.db")
    ok = run(["import", os.path.join(src, "kineto"), "--db", db])  # a store with one run
    check(ok.returncode == 0, "bad: a good import first")
    before = stored_runs(db)
    # one configuration: explain said nothing and exited 0, as if there were nothing to say
    p = run(["explain", "--db", db], expect=2)
    check(p.returncode == 2 and "has only one configuration ('imported'); nothing to explain" in p.stderr,
          f"bad/explain with one configuration: exit 2 and why ({p.returncode}: {p.stderr.strip()[:200]})")

    def expect_refused(what, paths, extra=(), needle=None):
        p = run(["import"] + paths + ["--db", db] + list(extra), expect=2)
        named = needle if needle is not None else paths[-1]
        check(p.returncode == 2, f"bad/{what}: exit 2 (got {p.returncode})")
        check(named in p.stderr, f"bad/{what}: the message names {named}: {p.stderr.strip()[:300]}")
        check(stored_runs(db) == before, f"bad/{what}: nothing stored")
        return p

    for fmt in ("kineto", "legacy"):
        data = open(os.path.join(src, fmt, "rank1.json"), "rb").read()
        d = os.path.join(bad, "trunc-" + fmt)
        os.makedirs(d)
        shutil.copy(os.path.join(src, fmt, "rank0.json"), d)
        open(os.path.join(d, "rank1.json"), "wb").write(data[: len(data) // 2])
        p = expect_refused(f"truncated {fmt}", [os.path.join(d, "rank0.json"), os.path.join(d, "rank1.json")])
        check("offset" in p.stderr, f"bad/truncated {fmt}: gives a byte offset")
        d = os.path.join(bad, "corrupt-" + fmt)
        os.makedirs(d)
        shutil.copy(os.path.join(src, fmt, "rank0.json"), d)
        # a timestamp's digit damaged in the middle of the file
        at = data.index(b'"ts": ', len(data) // 3) + 6
        open(os.path.join(d, "rank1.json"), "wb").write(data[:at] + b"x" + data[at + 1:])
        p = expect_refused(f"corrupt {fmt}", [os.path.join(d, "rank0.json"), os.path.join(d, "rank1.json")])
        check("offset" in p.stderr, f"bad/corrupt {fmt}: gives a byte offset")
    d = os.path.join(bad, "structure")
    os.makedirs(d)
    data = open(os.path.join(src, "kineto", "rank1.json"), "rb").read()
    mid = len(data) // 3
    open(os.path.join(d, "rank1.json"), "wb").write(data[:mid] + b"}}]]{{" + data[mid + 6:])
    expect_refused("broken JSON structure", [os.path.join(d, "rank1.json")], ["--partial"])
    gz = open(os.path.join(TRACES, "torch-ddp", "ddp4-matmul-layer1", "kineto", "rank0.json.gz"), "rb").read()
    path = os.path.join(bad, "rank0.json.gz")
    open(path, "wb").write(gz[: len(gz) // 2])
    expect_refused("truncated gzip", [path], ["--partial"])
    # mislabelled: kineto told legacy, legacy told kineto, a non-trace, a wrong rank in the name
    expect_refused("kineto as legacy", [os.path.join(src, "kineto", "rank0.json"),
                                        os.path.join(src, "kineto", "rank1.json")], ["--format", "legacy"],
                   needle=os.path.join(src, "kineto", "rank0.json"))
    expect_refused("legacy as kineto", [os.path.join(src, "legacy", "rank0.json"),
                                        os.path.join(src, "legacy", "rank1.json")], ["--format", "kineto"],
                   needle=os.path.join(src, "legacy", "rank0.json"))
    # args nested 100,000 deep in a real legacy trace: refused with its offset, not a crash
    d = os.path.join(bad, "deep")
    os.makedirs(d)
    data = open(os.path.join(src, "legacy", "rank0.json"), "rb").read()
    at = data.index(b'"args": {}') + len(b'"args": ')
    open(os.path.join(d, "rank0.json"), "wb").write(data[:at] + b"[" * 100000 + b"]" * 100000 + data[at + 2:])
    p = expect_refused("args nested 100,000 deep", [os.path.join(d, "rank0.json")], ["--partial"])
    check("nested deeper than 1024 levels" in p.stderr and f"byte offset {at + 1024}:" in p.stderr,
          f"bad/args nested deep: says so at the 1,025th '[': {p.stderr.strip()[:300]}")
    other = os.path.join(bad, "rank0.json")
    open(other, "w").write('{"hello": [1, 2, 3]}')
    expect_refused("not a trace", [other], ["--partial"])
    # a real Nsight Compute CSV given as a trace: refused, saying how counters go in
    ncu_csv = os.path.join(os.path.dirname(TRACES), "counters", "roofline-profiler", "ncu", "saxpy.csv")
    p = expect_refused("an ncu CSV as a trace", [ncu_csv], ["--partial"])
    check("not a profiler trace" in p.stderr and "--format ncu --attach RUN:RANK" in p.stderr,
          f"bad/an ncu CSV as a trace: says how counters are attached: {p.stderr.strip()[:300]}")
    d = os.path.join(bad, "twice")
    os.makedirs(d)
    shutil.copy(os.path.join(src, "legacy", "rank0.json"), os.path.join(d, "rank0.json"))
    shutil.copy(os.path.join(src, "legacy", "rank1.json"), os.path.join(d, "rank0_copy_rank0.json"))
    expect_refused("two files of one rank", [os.path.join(d, "rank0.json"), os.path.join(d, "rank0_copy_rank0.json")],
                   needle="both rank 0")
    # one capture imported again, from other names with one file gzipped and under another
    # label: the same steps to the nanosecond, so refused naming the run that holds it
    d = os.path.join(bad, "again")
    os.makedirs(d)
    again = [os.path.join(d, "r0.json"), os.path.join(d, "r1.json.gz")]
    shutil.copy(os.path.join(src, "kineto", "rank0.json"), again[0])
    with open(os.path.join(src, "kineto", "rank1.json"), "rb") as f, gzip.open(again[1], "wb") as g:
        g.write(f.read())
    con = sqlite3.connect(db)
    first_id, = con.execute("select id from runs").fetchone()
    # the digest as docs/importers.md defines it, computed here over the stored step events
    lines = "".join(f"{r} {s} {b} {e}\n" for r, s, b, e in con.execute(
        "select rank, step, begin_ns, end_ns from run_events where run_id = ? and kind = 'step' "
        "order by step, rank, begin_ns", (first_id,)))
    stored, = con.execute("select value from run_meta where run_id = ? and key = 'steps_digest'",
                          (first_id,)).fetchone() or ("",)
    con.close()
    check(stored == hashlib.sha256(lines.encode()).hexdigest() and lines.count("\n") == 16,
          f"bad/steps_digest is the SHA-256 of the {lines.count(chr(10))} step events ({stored})")
    p = expect_refused("one capture imported again", again, ["--label", "candidate"],
                       needle=f"already stored as run {first_id} (experiment 'import', "
                              "configuration 'imported', repetition 0)")
    check("another --experiment" in p.stderr, "bad/one capture imported again: says what to do")
    # another job setup under the label: the 4-rank job as a repetition of the 2-rank one
    p = expect_refused("a 4-rank job under a 2-rank label",
                       [os.path.join(TRACES, "torch-ddp", "ddp4-matmul-layer1", "kineto")],
                       needle="configuration 'imported' of experiment 'import' holds runs of 2 "
                              "rank(s) over gloo; these traces are 4 rank(s) over gloo")
    check("another --label" in p.stderr, "bad/a 4-rank job under a 2-rank label: says what to do")
    # another job at the same rank count: 2 of the 4-rank job's ranks, partial, under the label
    # of the whole 2-rank job (their steps took 84 and 41 ms: one sample, they would widen it)
    four = os.path.join(TRACES, "torch-ddp", "ddp4-matmul-layer1", "kineto")
    two_of_four = [os.path.join(four, "rank0.json.gz"), os.path.join(four, "rank1.json.gz")]
    expect_refused("2 of a 4-rank job under a 2-rank label", two_of_four, ["--partial"],
                   needle="holds runs of 2 rank(s) over gloo; these traces are 2 of 4 rank(s) over gloo")
    # ... and the same two jobs under one label of two stores: merge refuses before writing
    other, merged = fresh("two-of-four.db"), fresh("merged-jobs.db")
    p = run(["import"] + two_of_four + ["--partial", "--db", other])
    check(p.returncode == 0, f"bad: 2 of 4 ranks import into a store of their own ({p.stderr.strip()[:200]})")
    p = run(["merge", merged, db, other], expect=2)
    check(p.returncode == 2 and f"{db} holds runs of 2 rank(s) over gloo, {other} of 2 of 4 rank(s) "
          "over gloo: the runs of one configuration are repetitions of one job setup" in p.stderr
          and "nothing was merged" in p.stderr,
          f"bad/merge of two jobs under one label: exit 2 and both named ({p.returncode}: {p.stderr.strip()[:300]})")
    check(not os.path.exists(merged), "bad/merge of two jobs under one label: no output store made")
    # collectives that do not match: rank 1 of another run with fewer steps' worth of calls
    d = os.path.join(bad, "mixed")
    os.makedirs(d)
    shutil.copy(os.path.join(src, "kineto", "rank0.json"), d)
    k4 = load_json(os.path.join(TRACES, "torch-ddp", "ddp4-matmul-layer1", "kineto", "rank1.json.gz"))
    k4["distributedInfo"]["world_size"] = 2
    for e in k4["traceEvents"]:
        if e.get("name") == "gloo:all_reduce" and e.get("args", {}).get("Input Dims") == [[267786]]:
            e["args"]["Input Dims"] = [[1234]]
    json.dump(k4, open(os.path.join(d, "rank1.json"), "w"))
    # captured 149 s apart: two jobs, refused as such before their collectives are compared
    expect_refused("two jobs", [os.path.join(d, "rank0.json"), os.path.join(d, "rank1.json")],
                   ["--partial"], needle="are not of one job: they were captured")
    # moved into rank 0's profiling window, the collectives still contradict each other
    k0 = load_json(os.path.join(d, "rank0.json"))
    first = lambda events: min(float(e["ts"]) for e in events if e.get("ph") == "X")
    k4["baseTimeNanoseconds"] = int((first(k0["traceEvents"]) - first(k4["traceEvents"])) * 1000)
    json.dump(k4, open(os.path.join(d, "rank1.json"), "w"))
    expect_refused("mismatched collectives", [os.path.join(d, "rank0.json"), os.path.join(d, "rank1.json")],
                   needle="do not match")
    sq = open(os.path.join(TRACES, "nsys", "cloverleaf-cuda.sqlite"), "rb").read()
    path = os.path.join(bad, "rank0.sqlite")
    open(path, "wb").write(sq[: len(sq) // 3])
    expect_refused("truncated nsys export", [path])
    # ranks no job can have: a real export's MPI Rank mark, a real Kineto trace's distributedInfo
    path = os.path.join(bad, "bigrank.sqlite")
    shutil.copy(os.path.join(TRACES, "nsys", "saxpy-mpi-cuda.sqlite"), path)
    con = sqlite3.connect(path)
    con.execute("insert into NVTX_EVENTS (start, end, eventType, text) values (1, NULL, 34, ?)",
                ("MPI Rank 99999999999",))
    con.commit()
    con.close()
    expect_refused("MPI Rank mark beyond int", [path], ["--format", "nsys"], needle="names no rank a job can have")
    k = load_json(os.path.join(src, "kineto", "rank0.json"))
    k["distributedInfo"]["rank"] = 7  # of world_size 2
    path = os.path.join(bad, "rank7of2.json")
    json.dump(k, open(path, "w"))
    expect_refused("rank past its world size", [path], ["--partial"],
                   needle="distributedInfo.rank 7 is not below its world_size 2")
    path = os.path.join(bad, "notsqlite.sqlite")
    open(path, "wb").write(b"SQLite format 3\0" + b"\xff" * 5000)
    expect_refused("corrupt nsys export", [path], ["--format", "nsys"])
    # names with control characters: refused on the command line, escaped when a trace holds them
    esc = "\x1b[31m"
    for option in ("--experiment", "--label"):
        p = expect_refused(f"{option} with an escape sequence", [os.path.join(src, "kineto")],
                           [option, "a" + esc + "b"], needle=f"{option}: the name holds a control character")
        check("\x1b" not in p.stderr, f"bad/{option} with an escape sequence: stderr holds no raw escape")
    d = os.path.join(bad, "escapes")
    os.makedirs(d)
    sleep = os.path.join(TRACES, "torch-ddp", "ddp2-sleep-layer2", "kineto")
    for r in (0, 1):
        text = open(os.path.join(sleep, f"rank{r}.json")).read()
        open(os.path.join(d, f"rank{r}.json"), "w").write(text.replace('"layer2"', '"layer2\\u001b[2J\\r"'))
    edb = fresh("escapes.db")
    # explain needs a baseline to explain the escaped trace against (alone, it has nothing to say)
    p = run(["import", os.path.join(src, "kineto"), "--db", edb, "--label", "baseline"])
    check(p.returncode == 0, "escapes: the control imports as the baseline")
    p = run(["import", d, "--db", edb, "--json", "--label", "candidate"])
    check(p.returncode == 0, "escapes: a trace whose label holds an escape sequence imports")
    run_id = str(json.loads(p.stdout)["run_id"]) if p.returncode == 0 else "1"
    for args in (["attribute", run_id], ["explain"], ["runs"]):
        p = run(args + ["--db", edb])
        check(p.returncode == 0 and "\x1b" not in p.stdout + p.stderr,
              f"escapes: {args[0]} prints no raw escape sequence")
    p = run(["explain", "--db", edb])
    check("layer2\\x1b[2J\\x0d" in p.stdout,
          f"escapes: explain names the candidate's phase escaped: {p.stdout.strip()[:300]}")
    p = run(["attribute", run_id, "--db", edb])
    check("layer2\\x1b[2J\\x0d" in p.stdout, "escapes: attribute shows the label escaped (layer2\\x1b[2J\\x0d)")
    p = run(["attribute", run_id, "--db", edb, "--json"])
    check(p.returncode == 0 and "layer2\\u001b[2J\\r" in p.stdout,
          "escapes: attribute --json keeps the label as written (JSON-escaped)")
    # the same capture in another experiment of the store is another comparison's sample
    p = run(["import"] + again + ["--db", db, "--experiment", "again"])
    check(p.returncode == 0 and stored_runs(db) > before,
          f"bad/one capture in another experiment: imports ({p.returncode}: {p.stderr.strip()[:200]})")
    missing = os.path.join(WORK, "missing.db")
    if os.path.exists(missing):
        os.remove(missing)
    run(["import", os.path.join(src, "kineto", "rank0.json"), "--db", missing], expect=2)
    check(not os.path.exists(missing), "bad: a refused import into a new path creates no store")


{"torch": mode_torch, "compare": mode_compare, "hta": mode_hta, "nsys": mode_nsys,
 "partial": mode_partial, "bad": mode_bad}[MODE]()
if FAILURES:
    print(f"{len(FAILURES)} check(s) failed")
    sys.exit(1)
print("all checks passed")
