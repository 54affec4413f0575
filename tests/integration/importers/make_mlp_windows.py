#!/usr/bin/env python3
"""One real torch job that writes many profiler windows: trace sets of a newcomer's 3-layer MLP.

Real torch (Debian's python3-torch: gloo, CPU, the legacy profiler), ranks started with
torch.multiprocessing.spawn. The model is the one of issue 34: three tiny Linear layers whose
forward is labelled `fc1`, `fc2`, `fc3` (record_function), then `loss`, `backward`, `optimizer`,
under DistributedDataParallel. torch.profiler's schedule(wait=0, warmup=W, active=A,
repeat=len(plan)) makes one window per entry of the plan, and each window is written as a set
of its own, in both layouts from the same recorded events:

  DIR/<kind>-<k>/legacy/rank<R>.json   exactly what export_chrome_trace wrote
  DIR/<kind>-<k>/kineto/rank<R>.json   the same events in libkineto's layout (v1 or v2, by set)
  DIR/<kind>-<k>/truth.json            {"world_size", "kind", "straggler": {rank, region, ms}
                                        or null, "profiler_steps": [...]}

Kinds (each window's, from --plan KIND:COUNT,...):
  control   nothing injected
  sleep     time.sleep(MS) inside `fc2` on the straggler rank, in every step
  matmul    128x128 torch.mm in a loop inside `fc2` on the straggler rank until MS of wall time
            have passed, in every step (a CPU-bound delay that stays MS when the ranks
            oversubscribe the cores)
  detach    as matmul with .detach() of every product, and every rank's `fc2` also calls
            .detach() (torch records `aten::detach` with a child named `detach`)

usage: make_mlp_windows.py --out DIR --world W [--plan control:10,sleep:10,...]
         [--straggler RANK:MS] [--warmup W] [--active A] [--width N]
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_ddp_traces import kineto_document, rendezvous  # noqa: E402  (one layout writer, one rendezvous)

KINDS = ("control", "sleep", "matmul", "detach")


def parse_plan(text):
    windows = []
    for part in text.split(","):
        kind, count = part.split(":")
        if kind not in KINDS:
            raise SystemExit(f"unknown kind '{kind}': use one of {', '.join(KINDS)}")
        windows += [kind] * int(count)
    return windows


def set_name(windows, index):
    kind = windows[index]
    return "%s-%d" % (kind, windows[:index].count(kind))


def worker(rank, args, windows, init_method):
    import torch
    import torch.distributed as dist
    from torch.autograd.profiler import record_function
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=args.world)
    straggler_rank, straggler_ms = (float(x) for x in args.straggler.split(":"))
    straggler = rank == int(straggler_rank)
    state = {"window": 0}
    square = torch.randn(128, 128)

    def delay():
        kind = windows[min(state["window"], len(windows) - 1)]
        if not straggler or kind == "control":
            return
        if kind == "sleep":
            time.sleep(straggler_ms / 1000.0)
            return
        until = time.perf_counter() + straggler_ms / 1000.0
        while time.perf_counter() < until:
            product = torch.mm(square, square)
            if kind == "detach":
                product.detach()  # one `aten::detach` > `detach` per matmul

    class MLP(torch.nn.Module):
        def __init__(self, width):
            super().__init__()
            # No biases, gradients set to None: fewer operators per step, so the profiler's
            # own work (about 0.1 CPU ms an event) stays small beside the 30 ms delays.
            self.fc1 = torch.nn.Linear(width, width, bias=False)
            self.fc2 = torch.nn.Linear(width, width, bias=False)
            self.fc3 = torch.nn.Linear(width, 10, bias=False)

        def forward(self, x):
            with record_function("fc1"):
                x = torch.relu(self.fc1(x))
            with record_function("fc2"):
                x = torch.relu(self.fc2(x))
                if windows[min(state["window"], len(windows) - 1)] == "detach":
                    x.detach()  # the child `detach` of `aten::detach` must not split fc2
                delay()
            with record_function("fc3"):
                return self.fc3(x)

    torch.manual_seed(0)
    ddp = DistributedDataParallel(MLP(args.width))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(16, args.width, generator=g)
    y = torch.randint(0, 10, (16,), generator=g)
    bases = {}

    def ready(prof):
        index = state["window"]
        folder = os.path.join(args.out, set_name(windows, index))
        os.makedirs(os.path.join(folder, "legacy"), exist_ok=True)
        os.makedirs(os.path.join(folder, "kineto"), exist_ok=True)
        prof.export_chrome_trace(os.path.join(folder, "legacy", "rank%d.json" % rank))
        style = "v1" if index % 2 == 0 else "v2"
        doc = kineto_document(prof.events(), rank, args.world, style, os.getpid(), bases[index])
        with open(os.path.join(folder, "kineto", "rank%d.json" % rank), "w") as f:
            f.write(json.dumps(doc))  # the C encoder: json.dump streams through Python
        state["window"] += 1

    per_window = args.warmup + args.active
    sched = torch.profiler.schedule(wait=0, warmup=args.warmup, active=args.active,
                                    repeat=len(windows))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched,
                                on_trace_ready=ready, record_shapes=True) as prof:
        for i in range(per_window * len(windows)):
            if i % per_window == args.warmup:
                # The legacy profiler's times count from when it starts recording: the step
                # that ends the warm-up, just before this iteration.
                bases[i // per_window] = time.time_ns() // 1000
            with record_function("loss"):
                loss = torch.nn.functional.cross_entropy(ddp(x), y)
            with record_function("backward"):
                loss.backward()
            with record_function("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            prof.step()
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--plan", default="control:10,sleep:10,matmul:10,detach:10")
    p.add_argument("--straggler", default="1:30", help="RANK:MS, always in region fc2")
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--active", type=int, default=4)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--port", type=int, default=0,
                   help="rendezvous on this TCP port (default: a file in --out)")
    args = p.parse_args()
    windows = parse_plan(args.plan)
    os.makedirs(args.out, exist_ok=True)
    init_method = rendezvous(args.out, args.port)
    # fork: the ranks share the parent's imported torch (spawn imports it again in every rank,
    # about 2 CPU s each); nothing in the parent has started a thread yet.
    import torch.multiprocessing as mp
    mp.start_processes(worker, args=(args, windows, init_method), nprocs=args.world, join=True,
                       start_method="fork")
    rank, ms = args.straggler.split(":")
    for index, kind in enumerate(windows):
        first = index * (args.warmup + args.active) + args.warmup
        truth = {"world_size": args.world, "kind": kind,
                 "straggler": None if kind == "control" else
                 {"rank": int(rank), "region": "fc2", "ms": float(ms)},
                 # torch 1.13 labels loop iteration i as ProfilerStep#(i-1)
                 "profiler_steps": ["ProfilerStep#%d" % (first + s - 1)
                                    for s in range(args.active)],
                 "generator": " ".join(sys.argv[1:])}
        with open(os.path.join(args.out, set_name(windows, index), "truth.json"), "w") as f:
            json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
