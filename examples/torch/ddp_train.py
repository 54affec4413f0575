#!/usr/bin/env python3
"""A small data-parallel training script timed with culprit's Python module (docs/python.md).

Four blocks, each a region named layer0..layer3 (their forward), then `optimizer`; gradients
are averaged by DDP over gloo on CPU (NCCL when CUDA is present), every bucket's all-reduce
recorded by culprit's communication hook. Under `culprit run` (experiments/torch-ddp.toml) the
steps, the injected delays and the run file come from the resolved configuration; by hand:

    mpirun -np 2 python3 examples/torch/ddp_train.py --steps 10 --out run.db

--slow-layer N --slow-factor K make block N do K times its work (a "slower version").
--profile DIR profiles the measured steps with torch.profiler and writes DIR/rank<R>.json
(export_chrome_trace) on every rank, regions labelled with record_function.
"""

import argparse
import contextlib
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import culprit  # noqa: E402  (python/ is on PYTHONPATH under culprit run; the line above is for
#                 running this file by hand from a checkout)


class Block(torch.nn.Module):
    def __init__(self, hidden, repeat):
        super().__init__()
        self.linear = torch.nn.Linear(hidden, hidden)
        self.repeat = repeat

    def forward(self, x):
        y = self.linear(x)
        for _ in range(self.repeat - 1):  # a slower version of this block: the same result,
            y = self.linear(x)            # K times the work
        return torch.relu(y)


class Net(torch.nn.Module):
    def __init__(self, hidden, layers, slow_layer, slow_factor):
        super().__init__()
        self.blocks = torch.nn.ModuleList(
            Block(hidden, slow_factor if i == slow_layer else 1) for i in range(layers))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", help="resolved configuration (default $CULPRIT_CONFIG)")
    parser.add_argument("--out", help="run file to write (default $CULPRIT_RUN_FILE)")
    parser.add_argument("--warmup-steps", type=int, default=None,
                        help="without a configuration: warm-up steps (default 2)")
    parser.add_argument("--steps", type=int, default=None,
                        help="without a configuration: measured steps (default 10)")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--slow-layer", type=int, default=-1)
    parser.add_argument("--slow-factor", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    parser.add_argument("--bucket-mb", type=float, default=25.0,
                        help="DDP bucket size in MB (DDP's default)")
    parser.add_argument("--profile", metavar="DIR",
                        help="profile the measured steps, write DIR/rank<R>.json")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    standalone = not (args.config or os.environ.get("CULPRIT_CONFIG"))
    clock = culprit.StepClock(
        config=args.config, run_file=args.out, source="ddp_train.py",
        warmup_steps=(2 if args.warmup_steps is None else args.warmup_steps) if standalone
        else args.warmup_steps,
        steps=(10 if args.steps is None else args.steps) if standalone else args.steps)
    rank, world = clock.rank, clock.world
    device = torch.device("cpu")
    if torch.cuda.is_available() and dist.is_initialized() and dist.get_backend() == "nccl":
        local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("LOCAL_RANK", 0)))
        device = torch.device("cuda", local % torch.cuda.device_count())
        torch.cuda.set_device(device)
        # Where this rank's GPU is, for placing GPU telemetry on ranks (docs/importers.md).
        name = torch.cuda.get_device_name(device)
        clock.add_provenance("device", "%d: %s" % (device.index, name))

    torch.manual_seed(clock.config.seed)
    model = Net(args.hidden, 4, args.slow_layer, args.slow_factor).to(device)
    if world > 1:
        model = DistributedDataParallel(
            model, device_ids=[device.index] if device.type == "cuda" else None,
            bucket_cap_mb=args.bucket_mb)
        clock.register_ddp(model)
        blocks = model.module.blocks
    else:
        blocks = model.blocks
    names = ["layer%d" % i for i in range(len(blocks))]
    clock.wrap_forward(dict(zip(names, blocks)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    generator = torch.Generator().manual_seed(1000 + rank)
    x = torch.randn(args.batch, args.hidden, generator=generator).to(device)
    target = torch.randn(args.batch, args.hidden, generator=generator).to(device)

    profiler = contextlib.nullcontext()
    label = lambda _name: contextlib.nullcontext()  # noqa: E731
    if args.profile:
        os.makedirs(args.profile, exist_ok=True)
        profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
        label = torch.autograd.profiler.record_function
        for name, block in zip(names, blocks):
            block.register_forward_pre_hook(_open_label(name))
            block.register_forward_hook(_close_label)

    with profiler as prof:
        for step in clock.steps():
            # The legacy profiler (Debian's torch) does not label steps itself.
            with label("ProfilerStep#%d" % step), clock.step(step):
                output = model(x)
                loss = torch.nn.functional.mse_loss(output, target)
                loss.backward()
                with label("optimizer"), clock.region("optimizer"):
                    optimizer.step()
                    optimizer.zero_grad(set_to_none=False)
                if device.type == "cuda":
                    torch.cuda.synchronize(device)
    if args.profile:
        prof.export_chrome_trace(os.path.join(args.profile, "rank%d.json" % rank))
    path = clock.finish()
    if path:
        print("ddp_train.py: %d ranks, %d+%d steps, run file %s" % (
            world, clock.warmup_steps, clock.measured_steps, path), file=sys.stderr)
    if dist.is_initialized():
        dist.destroy_process_group()


_open = []


def _open_label(name):
    def pre_hook(_module, _inputs):
        context = torch.autograd.profiler.record_function(name)
        context.__enter__()
        _open.append(context)
    return pre_hook


def _close_label(_module, _inputs, _output):
    _open.pop().__exit__(None, None, None)


if __name__ == "__main__":
    main()
