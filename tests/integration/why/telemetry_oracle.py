#!/usr/bin/env python3
"""Hand-written GPU telemetry for a stored run, and the figures an engineer would compute from it.

Usage:
  telemetry_oracle.py write DB RUN MODE OUT.csv   MODE: throttled-in-slow | throttled-outside
  telemetry_oracle.py averages DB RUN OUT.csv     prints {"fleet": %, "ranks": {rank: %}}

The step windows come from the store's raw rows (run_events, clock_models), not from culprit's
analysis: a step ends when its last rank ends it on rank 0's clock (the clock model applied by
hand), and a window runs from the previous step's end. Unix time = aligned time + the run's meta
unix_offset_ns. Steps 3..6 are the slow ones (why-sim-4.toml delays rank 3 there).

The file is an `nvidia-smi --query-gpu=timestamp,index,clocks.sm,utilization.gpu --format=csv`
log written by hand (GPU index = rank, one host): per steady step one sample per GPU in a slow
step and three in a normal one, so rank 3's median over the whole run is its normal-step clock
while its median in the slow steps is its slow-step clock. rank 3 runs at 1386 MHz (70 % of its
peers' 1980) in the slow steps (throttled-in-slow) or outside them (throttled-outside).
Utilisation is 96 + rank %. One sample per GPU a second before the run is outside it.
"""
import datetime
import json
import sqlite3
import sys

SLOW = {3, 4, 5, 6}


def windows(db, run):
    q = sqlite3.connect(db)
    clocks = {r: (ref, off, drift) for r, ref, off, drift in q.execute(
        "SELECT rank, ref_ns, offset_ns, drift_ppm FROM clock_models WHERE run_id = ?", (run,))}
    ends = {}
    for rank, step, begin, end in q.execute(
            "SELECT rank, step, begin_ns, end_ns FROM run_events "
            "WHERE run_id = ? AND kind = 'step'", (run,)):
        ref, off, drift = clocks[rank]
        aligned = lambda t: t + off + drift * 1e-6 * (t - ref)
        b, e = ends.get(step, (None, None))
        ends[step] = (max(aligned(begin), b or -1e30), max(aligned(end), e or -1e30))
    warmup = int(q.execute("SELECT value FROM run_meta WHERE run_id = ? AND key = 'warmup_steps'",
                           (run,)).fetchone()[0])
    offset = int(q.execute(
        "SELECT value FROM run_meta WHERE run_id = ? AND key = 'unix_offset_ns'",
        (run,)).fetchone()[0])
    out, previous = {}, None
    for step in sorted(ends):
        begin = ends[step][0] if previous is None else previous
        if step >= warmup:
            out[step] = (begin, ends[step][1])
        previous = ends[step][1]
    return out, offset


def stamp(aligned_ns, offset):
    epoch = datetime.datetime(1970, 1, 1)
    t = epoch + datetime.timedelta(microseconds=(aligned_ns + offset) / 1e3)
    return t.strftime("%Y/%m/%d %H:%M:%S.%f")


def write(db, run, mode, path):
    steps, offset = windows(db, run)
    lines = ["timestamp, index, clocks.sm [MHz], utilization.gpu [%]"]
    first = min(b for b, _ in steps.values())
    for gpu in range(4):
        lines.append("%s, %d, 1980 MHz, 0 %%" % (stamp(first - 1e9, offset), gpu))
    for step, (begin, end) in sorted(steps.items()):
        n = 1 if step in SLOW else 3
        for k in range(n):
            at = begin + (end - begin) * (k + 1) / (n + 1)
            for gpu in range(4):
                throttled = gpu == 3 and ((step in SLOW) == (mode == "throttled-in-slow"))
                lines.append("%s, %d, %d MHz, %d %%" % (stamp(at, offset), gpu,
                                                       1386 if throttled else 1980, 96 + gpu))
    open(path, "w").write("\n".join(lines) + "\n")


def averages(db, run, path):
    steps, offset = windows(db, run)
    values = {}
    for line in open(path).read().splitlines()[1:]:
        when, gpu, _, util = [c.strip() for c in line.split(",")]
        t = datetime.datetime.strptime(when, "%Y/%m/%d %H:%M:%S.%f")
        aligned = (t - datetime.datetime(1970, 1, 1)).total_seconds() * 1e9 - offset
        if any(b <= aligned < e for b, e in steps.values()):
            values.setdefault(int(gpu), []).append(float(util.split()[0]))
    every = [v for vs in values.values() for v in vs]
    print(json.dumps({"fleet": sum(every) / len(every),
                      "ranks": {r: sum(v) / len(v) for r, v in values.items()}}))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        averages(sys.argv[2], int(sys.argv[3]), sys.argv[4])
