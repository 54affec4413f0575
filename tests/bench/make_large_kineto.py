#!/usr/bin/env python3
"""Builds a large multi-rank Kineto job for bench_large_import.sh by repeating the profiled steps
of a real trace (../shared/traces/torch-ddp/ddp2-control/kineto: a 2-rank DDP job, 8 steps a
rank). Rank R of the job is source rank R % 2 with every profiled step repeated until the file
holds --mb megabytes: repetition j shifts the timestamps by j times the span of the source's steps
(so steps follow each other as in a longer run), renumbers ProfilerStep#N to N + 8 j, and offsets
"External id" and "Ev Idx" by j times the source's largest id + 1 (ids stay unique in a file, as
the profiler writes them); distributedInfo says rank R of the job's world size, and each rank's
clock is offset by R x 37 us (hosts' clocks differ). Written into a folder, never committed.
  make_large_kineto.py SOURCE_DIR OUT_DIR [--ranks 64] [--mb 33]
"""
import argparse
import json
import os
import re

STEP = re.compile(r"^ProfilerStep#(\d+)$")


def load(path):
    with open(path) as f:
        return json.load(f)


def steps_span(events):
    steps = [e for e in events if e.get("ph") == "X" and STEP.match(e.get("name", ""))]
    first = min(e["ts"] for e in steps)
    last = max(e["ts"] + e["dur"] for e in steps)
    numbers = [int(STEP.match(e["name"]).group(1)) for e in steps]
    return first, last, min(numbers), max(numbers)


def repeat_event(e, shift_us, id_offset, step_offset):
    e = dict(e)
    if "ts" in e and isinstance(e["ts"], (int, float)):
        e["ts"] = e["ts"] + shift_us
    m = STEP.match(e.get("name", ""))
    if m:
        e["name"] = "ProfilerStep#%d" % (int(m.group(1)) + step_offset)
    args = e.get("args")
    if args and ("External id" in args or "Ev Idx" in args):
        args = dict(args)
        for key in ("External id", "Ev Idx"):
            if key in args:
                args[key] = args[key] + id_offset
        e["args"] = args
    return e


# Markers put in an event's place of a number that changes per repetition, then found in its
# JSON text (numbers no real trace holds).
MARKERS = {"ts": -918273645501, "id": -918273645502, "idx": -918273645503, "step": -918273645504}


def block_template(timed):
    """The repetition's events as one format string and, per field in order, what it holds:
    (kind, value in the source). Formatting it with the shifted values writes one repetition at
    C speed instead of encoding every event again."""
    texts, fields = [], []
    for e in timed:
        marked = dict(e)
        values = {}
        if isinstance(e.get("ts"), (int, float)):
            values["ts"] = e["ts"]
            marked["ts"] = MARKERS["ts"]
        m = STEP.match(e.get("name", ""))
        if m:
            values["step"] = int(m.group(1))
            marked["name"] = "ProfilerStep#%d" % MARKERS["step"]
        args = e.get("args")
        if args and ("External id" in args or "Ev Idx" in args):
            args = dict(args)
            for key, kind in (("External id", "id"), ("Ev Idx", "idx")):
                if key in args:
                    values[kind] = args[key]
                    args[key] = MARKERS[kind]
            marked["args"] = args
        text = json.dumps(marked).replace("{", "{{").replace("}", "}}")
        found = sorted((text.find(str(MARKERS[k])), k) for k in values)
        for _, kind in reversed(found):
            at = text.find(str(MARKERS[kind]))
            text = text[:at] + "{%d}" % (len(fields) + [k for _, k in found].index(kind)) + \
                text[at + len(str(MARKERS[kind])):]
        fields.extend((k, values[k]) for _, k in found)
        texts.append(text)
    return ",\n".join(texts), fields


def write_rank(source, rank, ranks, target_bytes, out_path):
    events = source["traceEvents"]
    first, last, low, high = steps_span(events)
    period = last - first + 1000  # 1 ms between repetitions
    max_id = max(
        max((e.get("args") or {}).get("External id", 0), (e.get("args") or {}).get("Ev Idx", 0))
        for e in events)
    inside = [e.get("ph") == "X" and first <= e.get("ts", -1) <= last for e in events]
    timed = [e for e, x in zip(events, inside) if x]
    other = [e for e, x in zip(events, inside) if not x]
    template, fields = block_template(timed)
    header = {k: v for k, v in source.items() if k != "traceEvents"}
    header["distributedInfo"] = dict(header.get("distributedInfo", {}), rank=rank,
                                     world_size=ranks)
    header["traceName"] = "rank%d.json" % rank
    clock_us = rank * 37
    size = 0
    j = 0
    with open(out_path, "w") as out:
        head = json.dumps(header)
        out.write(head[:-1] + ', "traceEvents": [\n')
        for e in other:
            e = dict(e)
            if isinstance(e.get("ts"), (int, float)):
                e["ts"] += clock_us
            out.write(json.dumps(e) + ",\n")
        while size < target_bytes:
            shift = {"ts": clock_us + j * period, "id": j * (max_id + 1),
                     "idx": j * (max_id + 1), "step": j * (high - low + 1)}
            text = template.format(*[value + shift[kind] for kind, value in fields])
            out.write((",\n" if j else "") + text)
            size += len(text) + 2
            j += 1
        out.write("\n]}\n")
    return j


def main():
    p = argparse.ArgumentParser()
    p.add_argument("source")
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=64)
    p.add_argument("--mb", type=float, default=33.0)
    a = p.parse_args()
    sources = [load(os.path.join(a.source, "rank%d.json" % r)) for r in range(2)]
    os.makedirs(a.out, exist_ok=True)
    for r in range(a.ranks):
        reps = write_rank(sources[r % 2], r, a.ranks, int(a.mb * 1e6),
                          os.path.join(a.out, "rank%d.json" % r))
    total = sum(os.path.getsize(os.path.join(a.out, f)) for f in os.listdir(a.out))
    print("make_large_kineto: %d ranks, %d repetitions of the source's steps a rank, %.2f GB" %
          (a.ranks, reps, total / 1e9))


if __name__ == "__main__":
    main()
