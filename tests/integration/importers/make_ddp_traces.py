#!/usr/bin/env python3
"""Generates a multi-rank PyTorch-profiler trace set of a small DDP job with known stragglers.

Real torch (Debian's python3-torch: gloo, CPU, the legacy profiler), ranks started with
torch.multiprocessing.spawn, the job of ../shared/traces/torch-ddp (README there): four Linear
blocks whose forward is labelled layer0..layer3, then "loss", "backward" and "optimizer";
DDP(bucket_cap_mb=2); torch.profiler with schedule(wait=1, warmup=2, active=N), so the recorded
steps are ProfilerStep#2 .. #(N+1) (torch 1.13's off-by-one label). Injections are
`time.sleep(ms)` inside a region on one rank at chosen recorded steps.

usage: make_ddp_traces.py --out DIR --world W [--active N] [--layout legacy|kineto-v1|kineto-v2]
         [--gzip] [--inject RANK:REGION:MS:STEP[+STEP...]]... [--hidden A,B,C]

Writes DIR/traces/rank<R>.json[.gz] and DIR/truth.json: {"world_size", "layout", "injections":
[{"rank", "where", "ms", "profiler_steps": ["ProfilerStep#K", ...]}], "profiler_steps": [...]}.
STEP counts recorded steps from 0 (step 0 is ProfilerStep#2). `legacy` is exactly what
export_chrome_trace wrote; the kineto layouts are the same events in libkineto's JSON layout
(v1: absolute integer µs; v2: fractional µs relative to baseTimeNanoseconds), as in the
torch-ddp set.
"""
import argparse
import gzip
import json
import os
import sys
import time

WAIT, WARMUP = 1, 2


def parse_injection(text):
    rank, where, ms, steps = text.split(":")
    return {"rank": int(rank), "where": where, "ms": float(ms),
            "active_steps": [int(s) for s in steps.split("+")]}


# torch's RecordScope.USER_SCOPE: record_function labels (libkineto writes them as
# `user_annotation`; every other scope is an operator, `cpu_op`).
USER_SCOPE = 7


def category(event):
    """The record's kind as torch itself recorded it (its scope), never guessed from the name."""
    return "user_annotation" if event.scope == USER_SCOPE else "cpu_op"


def kineto_document(events, rank, world, style, pid, base_us):
    """The recorded events in libkineto's layout (only fields the events have)."""
    out = []
    base_ns = base_us * 1000
    for e in events:
        name = e.trace_name or e.name
        cat = category(e)
        start, end = e.time_range.start, e.time_range.end
        args = {"External id": e.id}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if style == "v1":
            ts, dur = base_us + int(start), int(end - start)
        else:  # relative to baseTimeNanoseconds, fractional µs
            ts, dur = float(start) + 0.123, float(end - start)
        out.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": e.thread,
                    "ts": ts, "dur": dur, "args": args})
    doc = {"schemaVersion": 1, "deviceProperties": [],
           "distributedInfo": {"backend": "gloo", "rank": rank, "world_size": world},
           "record_shapes": 1, "traceEvents": out, "traceName": "rank%d" % rank}
    if style == "v2":
        doc["displayTimeUnit"] = "ms"
        doc["baseTimeNanoseconds"] = base_ns
        doc["distributedInfo"]["pg_count"] = 1
        doc["distributedInfo"]["pg_config"] = [
            {"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cpu:gloo",
             "pg_size": world, "ranks": list(range(world))}]
    return doc


def rendezvous(folder, port):
    """The init_method of a job's process group: a file in its output folder unless --port names
    a TCP port. A file takes no port, so a job never fails on one another socket holds (a port
    picked from the pid fell among the previous job's ephemeral ones: errno 98)."""
    if port:
        return "tcp://127.0.0.1:%d" % port
    path = os.path.join(os.path.abspath(folder), ".rendezvous")
    if os.path.exists(path):
        os.remove(path)  # a FileStore file left by an interrupted job would join the new one
    return "file://" + path


def worker(rank, args, injections, init_method):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from torch.autograd.profiler import record_function

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=args.world)
    sizes = [int(x) for x in args.hidden.split(",")]

    class Block(torch.nn.Module):
        def __init__(self, index, n_in, n_out, relu):
            super().__init__()
            self.index, self.linear, self.relu = index, torch.nn.Linear(n_in, n_out), relu

        def forward(self, x):
            with record_function("layer%d" % self.index):
                y = self.linear(x)
                y = torch.relu(y) if self.relu else y
                hold("layer%d" % self.index)
                return y

    dims = [sizes[0]] + sizes[1:] + [10]
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[Block(i, dims[i], dims[i + 1], i < len(dims) - 2)
                                  for i in range(len(dims) - 1)])
    ddp = DistributedDataParallel(model, bucket_cap_mb=2)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(64, dims[0], generator=g)
    y = torch.randint(0, 10, (64,), generator=g)
    state = {"active": -1}
    mine = [i for i in injections if i["rank"] == rank]

    def hold(region):
        for inj in mine:
            if inj["where"] == region and state["active"] in inj["active_steps"]:
                time.sleep(inj["ms"] / 1000.0)

    result = {}

    def ready(prof):
        result["events"] = prof.events()
        path = os.path.join(args.out, "traces", "rank%d.json" % rank)
        prof.export_chrome_trace(path)
        result["legacy"] = path

    sched = torch.profiler.schedule(wait=WAIT, warmup=WARMUP, active=args.active, repeat=1)
    total = WAIT + WARMUP + args.active
    base_us = None
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched,
                                on_trace_ready=ready, record_shapes=True) as prof:
        for i in range(total):
            if i == WAIT:
                base_us = time.time_ns() // 1000  # about when the profiler starts recording
            state["active"] = i - WAIT - WARMUP
            out = ddp(x)
            with record_function("loss"):
                loss = torch.nn.functional.cross_entropy(out, y)
                hold("loss")
            with record_function("backward"):
                loss.backward()
                hold("backward")
            with record_function("optimizer"):
                opt.step()
                opt.zero_grad()
                hold("optimizer")
            prof.step()
    dist.barrier()
    legacy = result["legacy"]
    if args.layout != "legacy":
        doc = kineto_document(result["events"], rank, args.world, args.layout.split("-")[1],
                              os.getpid(), base_us)
        os.remove(legacy)
        legacy = os.path.join(args.out, "traces", "rank%d.json" % rank)
        with open(legacy, "w") as f:
            json.dump(doc, f)
    if args.gzip:
        with open(legacy, "rb") as f, gzip.open(legacy + ".gz", "wb") as z:
            z.write(f.read())
        os.remove(legacy)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--active", type=int, default=8)
    p.add_argument("--layout", default="legacy", choices=["legacy", "kineto-v1", "kineto-v2"])
    p.add_argument("--gzip", action="store_true")
    p.add_argument("--inject", action="append", default=[])
    p.add_argument("--hidden", default="512,1024,512,512",
                   help="layer widths: layer0 in, then each block's out (last block -> 10)")
    p.add_argument("--port", type=int, default=0,
                   help="rendezvous on this TCP port (default: a file in --out)")
    args = p.parse_args()
    injections = [parse_injection(t) for t in args.inject]
    os.makedirs(os.path.join(args.out, "traces"), exist_ok=True)
    init_method = rendezvous(args.out, args.port)
    import torch.multiprocessing as mp
    mp.spawn(worker, args=(args, injections, init_method), nprocs=args.world, join=True)
    for inj in injections:
        inj["profiler_steps"] = ["ProfilerStep#%d" % (s + WAIT + WARMUP - 1)
                                 for s in inj["active_steps"]]
    truth = {"world_size": args.world, "layout": args.layout, "injections": injections,
             "profiler_steps": ["ProfilerStep#%d" % (s + WAIT + WARMUP - 1)
                                for s in range(args.active)],
             "generator": " ".join(sys.argv[1:])}
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
