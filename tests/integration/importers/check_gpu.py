#!/usr/bin/env python3
"""culprit import of the real GPU traces in shared/traces, checked against figures computed here
from the raw files themselves (sqlite3 over the nsys exports, json over the Kineto traces), never
from culprit's output (integration test).

usage: check_gpu.py CULPRIT TRACES WORKDIR MODE
MODE nsys_multi: nsys-multi/h100_2gpu_1s.sqlite is 2 ranks (a rank per globalPid with kernels,
                 numbered by device id, the rule in --json rank_rule), 1 step said once, kernel
                 classes and collectives as the oracle counts them, emit_nvtx names cut; the same
                 job as one export per node (nsys_node_split.sql: named by node with both GPUs 0,
                 and with NODE_RANK given in reverse order) gives the same ranks,
                 steps, events and attribution; a copy with 70,000 more distinct emit_nvtx texts
                 imports (it was refused: > 65,535 names).
MODE b200:       gpu-kineto/b200_eager_trace.json.gz (--partial): nvjet GEMMs and the multimem
                 all-reduce classified, 1 step (no ProfilerStep#), every collective paired with
                 its call by correlation,
                 busy share = the union of kernel time / span (<= 100 %), GEMM FLOP/s and algbw/
                 busbw per operation from the oracle's own sums, no bandwidth from zero bytes.
MODE kineto_gpus: a Kineto trace of one process driving two GPUs (derived from hta/nccl_parser_config:
                 two_gpu_copy says every edit) is a rank per GPU (--json rank_rule, a warning),
                 GPU 0's rank exactly the one-GPU file's events, kernels per GPU as the oracle
                 counts them, one clock; --rank-by process keeps it one rank.
MODE classes:    every other real trace (hta, nsys, torch-ddp in both layouts): ranks, steps,
                 kernel classes and collectives (calls per step, each paired with its execution;
                 HTA's sampled pair: each stored pair's size is its call's in both raw files)
                 against the oracle.
"""
import gzip
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

from checks import Checks

CULPRIT, TRACES, WORK, MODE = sys.argv[1:5]
CHECKS = Checks(CULPRIT, WORK)
FAILURES = CHECKS.failures
check, run, fresh = CHECKS.check, CHECKS.run, CHECKS.fresh


def import_json(paths, db, extra=()):
    p = run(["import"] + paths + ["--db", db, "--json"] + list(extra))
    check(p.returncode == 0, f"imports {[os.path.basename(x) for x in paths]} {list(extra)}")
    return json.loads(p.stdout) if p.returncode == 0 else None


# ---- the oracle's kernel classes: written here from the library naming conventions, not from
# culprit's table (docs/importers.md lists the same conventions) ------------------------------
def base_name(name):
    """The function identifier of a demangled name, by a regex of its own."""
    n = name.replace("(anonymous namespace)::", "")
    depth, out = 0, []
    for ch in n:  # drop template arguments, keep the outer text
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    outer = "".join(out).split("(")[0].strip()
    return re.split(r"[ :]+", outer)[-1] if outer else n, outer


def oracle_class(name):
    base, outer = base_name(name)
    b, o = base.lower(), outer.lower()
    if re.match(r"nccl(dev)?kernel", b) or b.startswith("multimem_") or "shot_all_reduce" in b:
        return "collective"
    if b.startswith(("flash_fwd", "flash_bwd")) or "fmha" in b or "flash::" in name.lower():
        return "attention"
    if b.startswith(("nvjet_", "cijk_", "bmm_")) or "_xmma_" in b or "cutlass" in o or "gemm" in b:
        return "gemm"
    if b.startswith("memcpy"):
        return "memcpy"
    if b.startswith("memset"):
        return "memset"
    return "other"


def count_classes(names):
    out = {}
    for n in names:
        c = oracle_class(n)
        out[c] = out.get(c, 0) + 1
    return out


# ---- nsys -------------------------------------------------------------------------------
EMIT_NVTX = re.compile(r", (seq|op_id) = \d+.*$|, sizes = \[.*$")


def nsys_oracle(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    kernels = con.execute(
        "select k.globalPid, k.deviceId, s.value from CUPTI_ACTIVITY_KIND_KERNEL k "
        "join StringIds s on s.id = k.shortName").fetchall()
    procs = sorted({(g, d) for g, d, _ in kernels})
    texts = [r[0] for r in con.execute(
        "select coalesce(n.text, s.value) from NVTX_EVENTS n left join StringIds s on s.id = n.textId "
        "where n.end is not null")] if con.execute(
        "select count(*) from sqlite_master where name = 'NVTX_EVENTS'").fetchone()[0] else []
    # per GPU: the union of its kernels' intervals over every stream; the capture: the first to
    # the last record of a process that ran kernels (kernels, runtime calls, NVTX ranges)
    spans = {}
    for d in {d for _, d, _ in kernels}:
        spans[d] = union_ns([(b, e) for b, e in con.execute(
            "select start, end from CUPTI_ACTIVITY_KIND_KERNEL where deviceId = ?", (d,))])
    pids = ",".join(str(g) for g in {g for g, _, _ in kernels})
    nvtx = (f" union all select start, end from NVTX_EVENTS where end is not null and "
            f"(globalTid >> 24) << 24 in ({pids})") if texts else ""
    lo, hi = con.execute(
        f"select min(b), max(e) from (select start b, end e from CUPTI_ACTIVITY_KIND_KERNEL union all "
        f"select start, end from CUPTI_ACTIVITY_KIND_RUNTIME where (globalTid >> 24) << 24 in ({pids})"
        f"{nvtx})").fetchone()
    classes = count_classes(n for _, _, n in kernels)
    for table, cls in (("CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy"), ("CUPTI_ACTIVITY_KIND_MEMSET", "memset")):
        if con.execute("select count(*) from sqlite_master where name = ?", (table,)).fetchone()[0]:
            n = con.execute(f"select count(*) from {table}").fetchone()[0]
            if n:
                classes[cls] = classes.get(cls, 0) + n
    return {"units": procs, "classes": classes,
            "busy_ns": spans, "span_ns": hi - lo,
            "kernels": len(kernels), "nvtx_texts": len(set(texts)),
            "nvtx_names": len({EMIT_NVTX.sub("", t) for t in texts}),
            "collective_ranges": sum(1 for t in texts if EMIT_NVTX.sub("", t).startswith(("c10d::", "nccl:")))}


def stored_names(db, run_id):
    con = sqlite3.connect(db)
    return [r[0] for r in con.execute("select name from run_event_names where run_id = ?", (run_id,))]


def per_rank_events(db, run_id):
    """Per rank: its event count and a digest of its events as the store's run_events view decodes
    them (step, ids, kind, name, times, bytes, stream), all but the device id, which the per-node
    split renumbers on purpose."""
    con = sqlite3.connect(db)
    out = {}
    for row in con.execute(
            "select e.rank, e.step, e.microbatch, e.layer, e.seq, e.kind, e.name, e.begin_ns, e.end_ns, "
            "e.bytes, e.stream from run_events e where e.run_id = ? order by e.rank, e.step, e.begin_ns, "
            "e.end_ns, e.name, e.microbatch", (run_id,)):
        count, digest = out.get(row[0], (0, hashlib.sha256()))
        digest.update(repr(row[1:]).encode())
        out[row[0]] = (count + 1, digest)
    return {rank: (count, digest.hexdigest()[:12]) for rank, (count, digest) in out.items()}


SPLIT_SQL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nsys_node_split.sql")


def split_export(src, folder, names, node_ranks=(None, None)):
    """The same job as one export per node: copies of the real file cut by nsys_node_split.sql
    (derived from the real rows; the script says every edit). names[k] is node k's file name."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    paths = []
    for node, (name, node_rank) in enumerate(zip(names, node_ranks)):
        path = os.path.join(folder, name)
        shutil.copy(src, path)
        c = sqlite3.connect(path)
        c.execute("create table culprit_node (node integer, node_rank integer)")
        c.execute("insert into culprit_node values (?, ?)", (node, node_rank))
        with open(SPLIT_SQL) as f:
            c.executescript(f.read())
        c.commit()
        c.close()
        paths.append(path)
    return paths


def attribution(db, run_id):
    """attribute --json of a run, less what names the run itself."""
    p = run(["attribute", "--db", db, str(run_id), "--json"])
    if p.returncode:
        return None
    doc = json.loads(p.stdout)
    doc.pop("run_id", None)
    return doc


def same_run(tag, info, db, other, db2):
    """other (the job as per-node exports) is the run info is (the one export)."""
    if not other:
        return
    check(other["ranks"] == info["ranks"] and other["steps"] == info["steps"]
          and other["kernels"] == info["kernels"] and other["kernel_classes"] == info["kernel_classes"]
          and other["collectives"] == info["collectives"] and other["events"] == info["events"],
          f"{tag}: {other['ranks']} ranks, {other['steps']} step(s), {other['events']} events == "
          f"the one export's {info['ranks']}, {info['steps']}, {info['events']}")
    check(per_rank_events(db2, other["run_id"]) == per_rank_events(db, info["run_id"]),
          f"{tag}: the same events on each rank ({per_rank_events(db2, other['run_id'])})")
    a, b = attribution(db, info["run_id"]), attribution(db2, other["run_id"])
    check(a is not None and a == b, f"{tag}: the same attribution (attribute --json)")


def mode_nsys_multi():
    path = os.path.join(TRACES, "nsys-multi", "h100_2gpu_1s.sqlite")
    o = nsys_oracle(path)
    db = fresh("multi.db")
    info = import_json([path], db)
    if not info:
        return
    check(info["ranks"] == len(o["units"]) == 2, f"nsys-multi: {info['ranks']} ranks == {len(o['units'])} "
                                                  "(globalPid, device) pairs with kernels")
    check(info["rank_rule"] == "a rank per process of the export; number from the CUDA device id",
          f"nsys-multi: rank_rule '{info['rank_rule']}'")
    check(sum("2 ranks in one export" in w for w in info["warnings"]) == 1, "nsys-multi: the rule is warned once")
    check(info["steps"] == 1 and sum("whole capture is one step" in w for w in info["warnings"]) == 1,
          "nsys-multi: no step structure: one step, said once")
    check(info["kernels"] == o["kernels"], f"nsys-multi: {info['kernels']} kernels == {o['kernels']}")
    check(info["kernel_classes"] == o["classes"],
          f"nsys-multi: kernel classes {info['kernel_classes']} == oracle {o['classes']}")
    check(o["classes"].get("gemm", 0) == 640, f"nsys-multi: the oracle counts 640 cuBLAS GEMMs ({o['classes']})")
    check(info["collectives"] == 2 * 0 + o["collective_ranges"] == 0,
          "nsys-multi: no NCCL and no c10d/nccl NVTX range: 0 collectives")
    names = stored_names(db, info["run_id"])
    check(not any("op_id" in n or ", seq = " in n for n in names) and len(names) <= o["nvtx_names"] + 400,
          f"nsys-multi: {len(names)} stored names, none with emit_nvtx suffixes "
          f"({o['nvtx_texts']} distinct NVTX texts are {o['nvtx_names']} names)")
    # figures (#34 item 5) against the raw file: busy share = each GPU's union of kernel time
    # over its streams / the capture, GEMM FLOP/s n/a (an nsys export records no shapes), no
    # bandwidth (no collective)
    a = attribution(db, info["run_id"])
    if a:
        busy = a["summary"]["sampled_activity"]
        want = sum(o["busy_ns"].values()) / (o["span_ns"] * len(o["busy_ns"]))
        per_gpu = ", ".join("%.2f %%" % (100 * v / o["span_ns"]) for v in o["busy_ns"].values())
        check(busy["busy_share"] <= 1 and abs(busy["busy_share"] - want) <= 0.005 * want,
              f"nsys-multi: busy share {100 * busy['busy_share']:.3f} % == oracle {100 * want:.3f} % "
              f"(per GPU {per_gpu})")
        eff = a["summary"]["efficiency"]
        gemm = eff["gemm_flops_per_s"]
        check(gemm["value"] is None and f"none of the {o['classes']['gemm']} GEMM kernels" in gemm["missing"]
              and "Nsight Systems exports hold none" in gemm["missing"],
              f"nsys-multi: GEMM FLOP/s n/a with the reason ({gemm['missing']})")
        check(eff["busbw"]["value"] is None and eff["busbw"]["missing"] == "the run has no collectives"
              and eff["bandwidth_by_operation"] == [], "nsys-multi: no bandwidth without a collective")
    for by in ("process", "device"):
        other = import_json([path], fresh(f"multi-{by}.db"), ["--rank-by", by])
        check(other is not None and other["ranks"] == 2 and other["events"] == info["events"],
              f"nsys-multi --rank-by {by}: the same 2 ranks and {info['events']} events")
    # the same job as one export per node (nsys_node_split.sql over the real file): the same run.
    # (Exports named rank<R>: importers.nsys numbers 4 such copies.) Named by node: both say GPU 0 (they collided: "cannot tell which rank"); numbered by the
    # device id within the node plus the node's offset, nodes by host name in the files' order.
    nodes = split_export(path, os.path.join(WORK, "split-node"), ["node-a.sqlite", "node-b.sqlite"])
    db3 = fresh("split-node.db")
    two = import_json(nodes, db3)
    same_run("two per-node exports, both GPU 0", info, db, two, db3)
    if two:
        check(two["rank_rule"] == "the CUDA device id within its node plus the node's offset (nodes "
              "by host name in the files' order, each after the ranks of those before it)",
              f"per-node exports: rank_rule '{two['rank_rule']}'")
        check(sum("2 Nsight Systems export(s) of one job" in w for w in two["warnings"]) == 1,
              "per-node exports: the rule is warned once")
    # NODE_RANK in each launched process's environment decides, not the files' order
    said = split_export(path, os.path.join(WORK, "split-said"), ["z-node0.sqlite", "a-node1.sqlite"],
                        node_ranks=(0, 1))
    db4 = fresh("split-said.db")
    three = import_json([said[1], said[0]], db4)
    same_run("per-node exports given in reverse, NODE_RANK said", info, db, three, db4)
    if three:
        check(three["rank_rule"] == "the CUDA device id within its node plus the node's offset "
              "(nodes numbered by process environment NODE_RANK x 1 ranks)",
              f"NODE_RANK: rank_rule '{three['rank_rule']}'")
    # more distinct emit_nvtx texts than the run file has names: imports (was refused)
    big = os.path.join(WORK, "multi-names.sqlite")
    shutil.copy(path, big)
    c = sqlite3.connect(big)
    tid, t0 = c.execute("select globalTid, min(start) from NVTX_EVENTS").fetchone()
    c.executemany("insert into NVTX_EVENTS (start, end, eventType, text, globalTid) values (?,?,59,?,?)",
                  [(t0 + 10 * k, t0 + 10 * k + 5, f"aten::mul, seq = {k}, op_id = {10_000_000 + k}", tid)
                   for k in range(70_000)])
    c.commit()
    c.close()
    many = import_json([big], fresh("multi-names.db"))
    check(many is not None and many["ranks"] == 2, "70,000 more distinct emit_nvtx texts: imports as 2 ranks")


# ---- Kineto -----------------------------------------------------------------------------
def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        return json.load(f)


def union_ns(intervals):
    total, hi = 0.0, None
    lo = None
    for b, e in sorted(intervals):
        if hi is None or b > hi:
            if hi is not None:
                total += hi - lo
            lo, hi = b, e
        else:
            hi = max(hi, e)
    return total + (hi - lo if hi is not None else 0)


KEPT_CATS = {"python_function", "cpu_op", "operator", "user_annotation", "kernel", "cuda_runtime",
             "cuda_driver", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}
GEMM_OPS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear"}


def gemm_oracle(ev):
    """FLOPs of GEMM kernels' launching GEMM operators (once each) over those kernels' time."""
    launch = {e["args"]["correlation"]: e for e in ev
              if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    ops = [e for e in ev if e.get("cat") == "cpu_op" and e.get("name") in GEMM_OPS and e.get("ph") == "X"]
    flops, ns, seen = 0.0, 0.0, set()
    for k in ev:
        if k.get("cat") != "kernel" or oracle_class(k["name"]) != "gemm":
            continue
        l = launch.get(k["args"].get("correlation"))
        if not l:
            continue
        around = [o for o in ops if o["tid"] == l["tid"] and o["ts"] <= l["ts"] <= o["ts"] + o["dur"]]
        if not around:
            continue
        op = max(around, key=lambda o: o["ts"])
        dims = op["args"]["Input Dims"]
        a, b = (dims[1], dims[2]) if op["name"] in ("aten::addmm", "aten::baddbmm") else (dims[0], dims[1])
        batch = 1
        for d in a[:-2]:
            batch *= d
        ns += k["dur"] * 1000
        if id(op) not in seen:
            seen.add(id(op))
            flops += 2.0 * a[-2] * a[-1] * b[-1] * batch
    return flops, ns


def mode_b200():
    path = os.path.join(TRACES, "gpu-kineto", "b200_eager_trace.json.gz")
    d = load(path)
    ev = d["traceEvents"]
    kernels = [e for e in ev if e.get("cat") == "kernel" and e.get("ph") == "X"]
    classes = count_classes(e["name"] for e in kernels)
    for cat, cls in (("gpu_memcpy", "memcpy"), ("gpu_memset", "memset")):
        n = sum(1 for e in ev if e.get("cat") == cat)
        if n:
            classes[cls] = classes.get(cls, 0) + n
    calls = sum(1 for e in ev if e.get("cat") == "cpu_op" and
                (e["name"] == "symm_mem::multimem_all_reduce_" or
                 (e["name"].startswith("c10d::") and "wait" not in e["name"])))
    db = fresh("b200.db")
    info = import_json([path], db, ["--partial"])
    if not info:
        return
    check(info["ranks"] == 1 and info["world_size"] == d["distributedInfo"]["world_size"] == 8,
          "b200: rank 0 of 8, partial")
    markers = sum(1 for e in ev if str(e.get("name", "")).startswith("ProfilerStep#"))
    check(markers == 0 and info["steps"] == 1 and any("the whole capture is one step" in w
                                                       for w in info["warnings"]),
          f"b200: no ProfilerStep# in the file ({markers}): the whole capture is 1 step, said")
    check(info["kernel_classes"] == classes, f"b200: kernel classes {info['kernel_classes']} == oracle {classes}")
    check(classes["gemm"] >= 109 and classes["collective"] == 74,
          f"b200: the oracle counts nvjet/bmm GEMMs ({classes['gemm']}) and 73 multimem + 1 NCCL all-gather")
    check(info["collectives"] == calls == 74, f"b200: {info['collectives']} collectives == {calls} calls")
    check(not any("not paired" in w or "paired in order" in w for w in info["warnings"]),
          "b200: every collective kernel paired with its call by correlation id")
    a = run(["attribute", "--db", db, str(info["run_id"]), "--json"])
    check(a.returncode == 0, "b200: attribute runs")
    if a.returncode:
        return
    att = json.loads(a.stdout)
    # busy share: union of kernel intervals over streams / the step (the whole capture)
    base = d["baseTimeNanoseconds"]
    span = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in ev if e.get("ph") == "X" and e.get("cat") in KEPT_CATS]
    lo, hi = min(b for b, _ in span), max(e for _, e in span)
    busy = union_ns([(e["ts"], e["ts"] + e["dur"]) for e in kernels]) / (hi - lo)
    got = att["summary"]["sampled_activity"]["busy_share"]
    check(got <= 1.0 and abs(got - busy) <= 0.01 * busy,
          f"b200: busy share {100 * got:.2f} % == oracle union {100 * busy:.2f} % (<= 100 %)")
    eff = att["summary"]["efficiency"]
    flops, ns = gemm_oracle(ev)
    g = eff["gemm_flops_per_s"]
    check(g["value"] is not None and abs(g["value"] - flops / (ns * 1e-9)) <= 1e-3 * flops / (ns * 1e-9),
          f"b200: GEMM achieved {g['value']} FLOP/s == oracle {flops / (ns * 1e-9):.4g} "
          f"({flops:.4g} FLOP over {ns / 1e6:.3f} ms)")
    per_op = {x["name"]: x["ratio"] for x in eff["bandwidth_by_operation"]}
    for name, r in per_op.items():
        check(r["value"] is None or r["numerator"] > 0, f"b200: {name} has no figure from zero bytes")
    ag = per_op.get("all_gather busbw", {})
    check(ag.get("value") is not None and abs(ag["numerator"] - 8 * 25136 * 2 * 7 / 8) < 1,
          f"b200: all-gather busbw from 8 x 25,136 BFloat16 x 7/8 bytes ({ag.get('numerator')})")
    ar_bytes = 0
    for e in ev:
        if e.get("name") == "symm_mem::multimem_all_reduce_":
            n = 1
            for x in e["args"]["Input Dims"][0]:
                n *= x
            ar_bytes += 2 * n  # c10::BFloat16
    ar = per_op.get("all_reduce busbw", {})
    check(ar.get("value") is not None and abs(ar["numerator"] - ar_bytes * 2 * 7 / 8) < 1,
          f"b200: all-reduce busbw from the 73 calls' {ar_bytes} BFloat16 bytes x 2(n-1)/n "
          f"({ar.get('numerator')})")


DEVICE_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation")


def two_gpu_copy(src, dst):
    """A Kineto trace of one process driving two GPUs, derived from a real one-GPU libkineto trace
    (hta/nccl_parser_config, rank 0 of 2). The edits, all of them: every device event of GPU 0
    (kernels, memcpys, memsets, GPU annotations) is copied onto GPU 1 (pid 1, args.device 1),
    2 us later, with its correlation id + 10^9; so is the CUDA runtime call that launched it (same
    thread, 1 ns later, the new correlation id). Nothing else changes: the CPU timeline, the steps
    and distributedInfo (rank 0, world size 2) are the real file's."""
    d = load(src)
    ev = d["traceEvents"]
    device_corr = {e["args"]["correlation"] for e in ev
                   if e.get("ph") == "X" and e.get("cat") in DEVICE_CATS and "correlation" in e.get("args", {})}
    added = []
    for e in ev:
        if e.get("ph") != "X":
            continue
        args = e.get("args", {})
        if e.get("cat") in DEVICE_CATS and e.get("pid") == 0:
            c = json.loads(json.dumps(e))
            c["pid"], c["ts"] = 1, e["ts"] + 2.0
            if "device" in c.get("args", {}):
                c["args"]["device"] = 1
            if "correlation" in c.get("args", {}):
                c["args"]["correlation"] += 10**9
            added.append(c)
        elif e.get("cat") in ("cuda_runtime", "cuda_driver") and args.get("correlation") in device_corr:
            c = json.loads(json.dumps(e))
            c["ts"] = e["ts"] + 0.001
            c["args"]["correlation"] += 10**9
            added.append(c)
    d["traceEvents"] = ev + added
    with open(dst, "w") as f:
        json.dump(d, f)
    return d


def mode_kineto_gpus():
    """Issue 34 item 1: a Kineto file whose process drives several GPUs is a rank per GPU."""
    src = os.path.join(TRACES, "hta", "nccl_parser_config", "nccl_data.json.gz")
    path = os.path.join(WORK, "rank0.json")
    d = two_gpu_copy(src, path)
    ev = d["traceEvents"]
    per_device = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            dev = e["args"].get("device", e["pid"])
            per_device[dev] = per_device.get(dev, 0) + 1
    check(sorted(per_device) == [0, 1], f"kineto_gpus: the derived file's kernels are on GPUs {sorted(per_device)}")
    one_db = fresh("kineto_one.db")
    one = import_json([src], one_db, ["--partial"])
    db = fresh("kineto_gpus.db")
    info = import_json([path], db, ["--partial"])
    if not info or not one:
        return
    world = d["distributedInfo"]["world_size"] * 2
    check(info["ranks"] == 2 and info["world_size"] == world and info["partial"],
          f"kineto_gpus: 2 ranks (a rank per GPU) of {info['world_size']} == 2 processes x 2 GPUs, partial")
    check(info["rank_rule"] == "a rank per GPU of the process: its rank (distributedInfo) x 2 + the "
          "GPU's place among its 2 GPUs", f"kineto_gpus: --json rank_rule says it ({info['rank_rule']!r})")
    check(any("one process drives 2 GPUs (0, 1)" in w for w in info["warnings"]),
          "kineto_gpus: a warning states the rule")
    check(info["kernels"] == sum(per_device.values()) and info["steps"] == one["steps"]
          and info["collectives"] == 2 * one["collectives"],
          f"kineto_gpus: {info['kernels']} kernels == the oracle's {per_device}, {info['steps']} steps, "
          f"{info['collectives']} collectives == 2 x the one-GPU file's {one['collectives']}")
    ranks, ones = per_rank_events(db, info["run_id"]), per_rank_events(one_db, one["run_id"])
    check(ranks.get(0) == ones.get(0),
          f"kineto_gpus: rank 0 (GPU 0) holds exactly the one-GPU file's events ({ranks.get(0)} == {ones.get(0)})")
    check(ranks.get(1, (0,))[0] == ranks.get(0, (0,))[0],
          f"kineto_gpus: rank 1 (GPU 1) holds as many ({ranks.get(1)})")
    con = sqlite3.connect(db)
    devices = {r: n for r, n in con.execute(
        "select rank, count(distinct device) from run_events where run_id = ? and device >= 0 group by rank",
        (info["run_id"],))}
    check(devices == {0: 1, 1: 1}, f"kineto_gpus: each rank's device events are on one GPU ({devices})")
    clocks = list(con.execute("select rank, offset_ns from clock_models where run_id = ? order by rank",
                              (info["run_id"],)))
    check(all(o == 0 for _, o in clocks), f"kineto_gpus: one process's clock: offsets {clocks}")
    check(attribution(db, info["run_id"]) is not None, "kineto_gpus: attribute runs")
    by_process = import_json([path], fresh("kineto_process.db"), ["--partial", "--rank-by", "process"])
    if by_process:
        check(by_process["ranks"] == 1 and by_process["kernels"] == sum(per_device.values())
              and by_process["world_size"] == d["distributedInfo"]["world_size"]
              and by_process["rank_rule"] == "distributedInfo",
              f"kineto_gpus: --rank-by process keeps the process one rank ({by_process['ranks']}, "
              f"{by_process['kernels']} kernels, rule {by_process['rank_rule']!r})")


def mode_classes():
    # Kineto traces from HTA (libkineto-written): classes of every kernel, as the oracle counts
    base = os.path.join(TRACES, "hta")
    for files in (["nccl_parser_config/nccl_data.json.gz"],
                  ["trace_filter/sampled_rank-0.json.gz", "trace_filter/sampled_rank-1.json.gz"]):
        paths = [os.path.join(base, f) for f in files]
        classes = {}
        for p in paths:
            ev = load(p)["traceEvents"]
            for c, n in count_classes(e["name"] for e in ev if e.get("cat") == "kernel").items():
                classes[c] = classes.get(c, 0) + n
            for cat, cls in (("gpu_memcpy", "memcpy"), ("gpu_memset", "memset")):
                n = sum(1 for e in ev if e.get("cat") == cat)
                if n:
                    classes[cls] = classes.get(cls, 0) + n
        db = fresh("classes.db")
        info = import_json(paths, db, ["--partial"])
        if info:
            check(info["kernel_classes"] == classes,
                  f"{files[0]}: kernel classes {info['kernel_classes']} == oracle {classes}")
            if len(paths) == 2:
                check_sampled_pairs(paths, db, info)
    # nsys single-process exports
    for f in ("cloverleaf-cuda.sqlite", "saxpy-mpi-cuda.sqlite"):
        path = os.path.join(TRACES, "nsys", f)
        o = nsys_oracle(path)
        info = import_json([path], fresh("classes-nsys.db"))
        if info:
            check(info["ranks"] == len(o["units"]) == 1 and info["kernel_classes"] == o["classes"],
                  f"nsys/{f}: 1 rank, kernel classes {info['kernel_classes']} == oracle {o['classes']}")
    # torch-ddp (CPU, gloo), every case in both layouts: no kernel; ranks, steps and collectives
    # (calls per step, each paired with its gloo execution: bytes = 4 x its Input Dims) from the
    # raw files
    for case in sorted(os.listdir(os.path.join(TRACES, "torch-ddp"))):
        for layout in ("kineto", "legacy"):
            folder = os.path.join(TRACES, "torch-ddp", case, layout)
            if os.path.isdir(folder):
                check_torch_ddp(case, layout, folder)
    # hta cpu_only: one gloo rank of 300, trimmed; its executions inside the one step are kept
    path = os.path.join(TRACES, "hta", "cpu_only", "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
    o = cpu_oracle(load(path)["traceEvents"])
    info = import_json([path], fresh("classes-cpu.db"), ["--partial"])
    if info:
        inside = sum(len(v) for v in o["works"].values())
        check(info["ranks"] == 1 and info["steps"] == len(o["steps"]) == 1
              and info["collectives"] == inside == 2 and info["kernel_classes"] == {},
              f"hta/cpu_only: 1 rank, {info['steps']} step, {info['collectives']} collectives == "
              f"the {inside} gloo executions inside ProfilerStep (the others outside every step)")


TYPE_BYTES = {"float": 4, "double": 8, "long int": 8, "int": 4, "c10::Half": 2, "c10::BFloat16": 2,
              "signed char": 1, "unsigned char": 1, "bool": 1}


def tensor_bytes(args, k):
    """Bytes of input k of a raw event (Input Dims x Input type), None when it has no shape."""
    dims, types = args.get("Input Dims") or [], args.get("Input type") or []
    if k >= len(dims) or not dims[k] or k >= len(types) or types[k] not in TYPE_BYTES:
        return None
    n = 1
    for x in dims[k]:
        n *= x
    return n * TYPE_BYTES[types[k]]


def nccl_sizes(path):
    """Per (ProfilerStep#N, c10d call name): the message bytes of its calls in order, from the raw
    events as nccl-tests counts a size: the call's first tensor where it has a shape (an all-gather's
    output), else the nccl:* range nested in it (an all-reduce's tensor)."""
    ev = [e for e in load(path)["traceEvents"] if e.get("ph") == "X"]
    steps = {int(e["name"].split("#")[1]): (e["ts"], e["ts"] + e["dur"])
             for e in ev if e["name"].startswith("ProfilerStep#")}
    ranges = [e for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("nccl:")]
    out = {}
    for c in sorted((e for e in ev if e["name"].startswith("c10d::") and "wait" not in e["name"]),
                    key=lambda e: e["ts"]):
        step = next((n for n, (b, end) in steps.items() if b <= c["ts"] <= end), None)
        inner = [r for r in ranges if r["tid"] == c["tid"] and c["ts"] <= r["ts"] <= c["ts"] + c["dur"]]
        size = tensor_bytes(c.get("args", {}), 0)
        if size is None and inner:
            size = tensor_bytes(inner[0].get("args", {}), 0)
        if step is not None and size is not None:
            out.setdefault((step, c["name"]), []).append(size)
    return out


def check_sampled_pairs(paths, db, info):
    """HTA's sampled files lost different collectives on the two ranks: where both raw files
    hold the same sizes for a (step, call), each is one stored pair; nothing stored contradicts
    the raw files (each pair's size is that call's on both ranks)."""
    raw = [nccl_sizes(p) for p in paths]
    con = sqlite3.connect(db)
    stored = {}
    for rank, step, seq, name, nbytes in con.execute(
            "select rank, step, seq, name, bytes from run_events where run_id = ? and kind = 'collective'",
            (info["run_id"],)):
        stored.setdefault((step, seq), {})[rank] = (name, nbytes)
    pairs = [v for v in stored.values() if len(v) == 2]
    consistent = all(v[0] == v[1] and all(v[0][1] in raw[r].get((step, v[0][0]), []) for r in (0, 1))
                     for (step, _), v in stored.items() if len(v) == 2)
    agreed = sum(len(a) for key, a in raw[0].items() if raw[1].get(key) == a)
    check(consistent and len(pairs) >= agreed and len(stored) == len(pairs),
          f"trace_filter: {len(pairs)} collectives paired across the 2 ranks, each with a size both raw "
          f"files give its call (>= the {agreed} whose (step, call) sizes agree in full); none stored "
          f"on one rank only")


def events_of(path):
    d = load(path)
    return d["traceEvents"] if isinstance(d, dict) else d


def cpu_oracle(ev):
    """Steps (ProfilerStep#N -> [ts, end]) and, per step, its c10d::allreduce_ calls and its
    gloo:all_reduce executions (their element counts, by start) from one rank's raw events."""
    steps = {}
    for e in ev:
        m = re.match(r"ProfilerStep#(\d+)$", str(e.get("name", "")))
        if m and e.get("ph") == "X":
            steps[int(m.group(1))] = (e["ts"], e["ts"] + e["dur"])

    def step_of(ts):
        return next((n for n, (b, end) in steps.items() if b <= ts <= end), None)
    calls, works = {}, {}
    for e in sorted((e for e in ev if e.get("ph") == "X"), key=lambda e: e["ts"]):
        n = step_of(e["ts"])
        if n is None:
            continue
        if e.get("name") == "c10d::allreduce_":
            calls[n] = calls.get(n, 0) + 1
        elif e.get("name") == "gloo:all_reduce":
            dims = (e.get("args") or {}).get("Input Dims")
            works.setdefault(n, []).append(dims[0][0] if dims else None)
    return {"steps": steps, "calls": calls, "works": works}


def check_torch_ddp(case, layout, folder):
    files = sorted(os.listdir(folder))
    oracles = [cpu_oracle(events_of(os.path.join(folder, f))) for f in files]
    common = set.intersection(*(set(o["steps"]) for o in oracles))
    db = fresh("classes-ddp.db")
    info = import_json([folder], db)
    if not info:
        return
    calls = sum(o["calls"].get(n, 0) for o in oracles for n in common)
    check(info["ranks"] == len(files) and info["steps"] == len(common) and info["kernel_classes"] == {}
          and info["collectives"] == calls,
          f"torch-ddp/{case}/{layout}: {info['ranks']} ranks, {info['steps']} steps == {len(common)}, "
          f"{info['collectives']} collectives == {calls} c10d::allreduce_ calls, no kernel")
    con = sqlite3.connect(db)
    stored = {}
    for rank, step, nbytes in con.execute(
            "select rank, step, bytes from run_events where run_id = ? and kind = 'collective' "
            "order by rank, step, begin_ns", (info["run_id"],)):
        stored.setdefault((rank, step), []).append(nbytes)
    want = {(r, n): [4 * x if x else 0 for x in o["works"].get(n, [])]
            for r, o in enumerate(oracles) for n in common}
    sizes = ("bytes per rank and step == 4 x the executions' Input Dims, in order" if layout == "kineto"
             else "the legacy layout records no size: as many per rank and step, 0 bytes")
    check(stored == want, f"torch-ddp/{case}/{layout}: every call paired with its gloo execution ({sizes})")
    seqs = {}
    for step, seq, n, ranks in con.execute(
            "select step, seq, count(distinct bytes), count(*) from run_events where run_id = ? and "
            "kind = 'collective' group by step, seq", (info["run_id"],)):
        seqs[(step, seq)] = (n, ranks)
    check(all(n == 1 and ranks == len(files) for n, ranks in seqs.values()),
          f"torch-ddp/{case}/{layout}: each (step, seq) is one collective on every rank, one size")


{"nsys_multi": mode_nsys_multi, "b200": mode_b200, "classes": mode_classes,
 "kineto_gpus": mode_kineto_gpus}[MODE]()
if FAILURES:
    print(f"{len(FAILURES)} check(s) failed")
    sys.exit(1)
print("all checks passed")
