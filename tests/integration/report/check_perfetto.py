#!/usr/bin/env python3
"""Checks a `culprit export --format perfetto` trace against the trace-event format and the store.

Usage: check_perfetto.py TRACE.json DB RUN [FIRST_STEP LAST_STEP RANKS]
Format: known phases; X slices with ts/dur, times non-decreasing per (pid, tid) track; every
flow id has exactly one start (s) and one finish (f), in time order, each inside a slice of its
track. Store: every event of the run (within the filter) is exactly one slice, its raw times in
args equal the stored ones, and its ts/dur equal the stored times on the aligned clock (clock
model from the store + the refinement stated in otherData) to the nanosecond.
"""
import collections
import json
import sqlite3
import sys


def fail(message):
    print("check_perfetto: FAIL: " + message)
    sys.exit(1)


def main():
    trace_path, db_path, run_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
    first = last = None
    ranks = None
    if len(sys.argv) > 4:
        first, last = int(sys.argv[4]), int(sys.argv[5])
        ranks = set()
        for item in sys.argv[6].split(","):
            lo, _, hi = item.partition("-")
            ranks.update(range(int(lo), int(hi or lo) + 1))
    with open(trace_path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    other = trace["otherData"]
    origin = other["origin_ns"]
    clocks = {c["rank"]: c for c in other["clocks"]}

    phases = collections.Counter(e["ph"] for e in events)
    unknown = set(phases) - {"M", "X", "s", "t", "f", "i"}
    if unknown:
        fail(f"unknown phases {unknown}")
    for name in ("X", "s", "f", "M"):
        if not phases[name]:
            fail(f"no '{name}' event")

    # Slices: fields and per-track monotonic times (as written).
    last_ts = {}
    slices = collections.defaultdict(list)
    for e in events:
        if e["ph"] != "X":
            continue
        for key in ("name", "cat", "pid", "tid", "ts", "dur", "args"):
            if key not in e:
                fail(f"slice without '{key}': {e}")
        if e["dur"] < 0:
            fail(f"negative duration: {e}")
        track = (e["pid"], e["tid"])
        if e["ts"] < last_ts.get(track, float("-inf")):
            fail(f"times go back on track {track} at {e['name']} ts {e['ts']}")
        last_ts[track] = e["ts"]
        slices[track].append(e)

    # Flows: one start and one finish per id, in time order, each bound inside a slice.
    flows = collections.defaultdict(list)
    for e in events:
        if e["ph"] in ("s", "t", "f"):
            flows[e["id"]].append(e)
    if not flows:
        fail("no flow")
    for fid, points in flows.items():
        kinds = collections.Counter(p["ph"] for p in points)
        if kinds["s"] != 1 or kinds["f"] != 1:
            fail(f"flow {fid} has {dict(kinds)} (want one s and one f)")
        order = [p for p in points if p["ph"] == "s"] + [p for p in points if p["ph"] == "t"] + \
                [p for p in points if p["ph"] == "f"]
        ts = [p["ts"] for p in order]
        if ts != sorted(ts):
            fail(f"flow {fid} goes back in time: {ts}")
        for p in points:
            inside = any(s["ts"] <= p["ts"] <= s["ts"] + s["dur"] for s in slices[(p["pid"], p["tid"])])
            if not inside:
                fail(f"flow {fid} point on rank {p['pid']} is in no slice of its track")
    if other["flows"] != len(flows):
        fail(f"otherData.flows {other['flows']} != {len(flows)} flows")

    # The store: the run's events, the clock models.
    db = sqlite3.connect(db_path)
    model = {r: (ref, off, drift) for r, ref, off, drift in db.execute(
        "SELECT rank, ref_ns, offset_ns, drift_ppm FROM clock_models WHERE run_id = ?", (run_id,))}
    stored = {}
    for row in db.execute(
            "SELECT rank, step, microbatch, layer, seq, kind, name, begin_ns, end_ns FROM run_events "
            "WHERE run_id = ?", (run_id,)):
        rank, step = row[0], row[1]
        if ranks is not None and (rank not in ranks or step < first or step > last):
            continue
        key = (rank, step, row[2], row[3], row[4], row[6], row[7])
        if key in stored:
            fail(f"two stored events with key {key}")
        stored[key] = row

    def aligned(rank, t):
        ref, off, drift = model[rank]
        return float(t) + off + drift * 1e-6 * float(t - ref) + clocks[rank]["correction_ns"]

    seen = set()
    worst = 0
    for track, items in slices.items():
        for s in items:
            if s["cat"] == "wait":
                continue
            a = s["args"]
            key = (s["pid"], a["step"], a["microbatch"], a["layer"], a["seq"], s["name"], a["raw_begin_ns"])
            row = stored.get(key)
            if row is None:
                fail(f"slice {key} is not a stored event")
            if key in seen:
                fail(f"two slices for {key}")
            seen.add(key)
            if a["raw_end_ns"] != row[8]:
                fail(f"raw end of {key}: {a['raw_end_ns']} != stored {row[8]}")
            begin = aligned(s["pid"], row[7]) - origin
            end = aligned(s["pid"], row[8]) - origin
            for got, want, what in ((a["aligned_begin_ns"], begin, "begin"),
                                    (a["aligned_end_ns"], end, "end"),
                                    (s["ts"] * 1000.0, begin, "ts"),
                                    ((s["ts"] + s["dur"]) * 1000.0, end, "ts+dur")):
                worst = max(worst, abs(got - want))
                if abs(got - want) > 1.0:
                    fail(f"{what} of {key}: {got} ns vs the store's aligned {want:.1f} ns")
            if "clock_uncertainty_ns" not in a:
                fail(f"no clock uncertainty on {key}")
    missing = set(stored) - seen
    if missing:
        fail(f"{len(missing)} stored events have no slice, e.g. {sorted(missing)[0]}")
    waits = sum(1 for items in slices.values() for s in items if s["cat"] == "wait")
    marks = [e for e in events if e["ph"] == "i"]
    if not any(m["name"].startswith("first divergence") for m in marks):
        fail("no first divergence annotated")
    culprit = other["culprit"]
    if culprit and (ranks is None or culprit["rank"] in ranks):
        if not any(m["name"].startswith("culprit:") for m in marks):
            fail("the run's culprit is not annotated")
        if not any(s["args"].get("culprit") for items in slices.values() for s in items):
            fail("no slice is marked as the culprit")
    print(f"check_perfetto: ok: {len(seen)} slices = stored events (worst |aligned diff| "
          f"{worst:.3f} ns), {waits} waits, {len(flows)} flows, {len(marks)} annotations, "
          f"{len(last_ts)} tracks")
    return marks


if __name__ == "__main__":
    main()
