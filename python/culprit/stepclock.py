"""StepClock: built-in timing of real torch training steps, ending in culprit's run file.

    import culprit
    clock = culprit.StepClock()                 # reads CULPRIT_CONFIG, CULPRIT_RUN_FILE
    for step in clock.steps():                  # warm-up + measured step numbers
        with clock.step(step):
            with clock.region("layer0"): ...
    clock.finish()                              # rank 0 writes the run file

Every event is stamped with the raw CLOCK_MONOTONIC of its rank; clock models (ping-pong over
torch.distributed) map each rank onto rank 0's. Injected delays of the configuration are spent
inside the region they name, on their rank, at their steps (blind: only the configuration echo
keeps the truth). See docs/python.md.
"""

import contextlib
import datetime
import hashlib
import os
import pickle
import platform
import sys
import threading
import time
import warnings

import torch
import torch.distributed as dist

from . import clock as clocks
from . import runfile, sched
from .config import ConfigError, RunConfig
from .dist import environment_rank, host_name, init_distributed

CLOCK_EXCHANGES = 20  # stepclock::kDefaultClockExchanges (stepclock/clock_model.hpp)
SLEEP_SPIN_TAIL_NS = 1_000_000  # an injected sleep spins its last millisecond (at most 10 %)
ENV_PREFIXES = ("OMPI_", "SLURM_", "NCCL_", "CUDA_")


def _utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _spin_until(deadline_ns):
    while clocks.now_ns() < deadline_ns:
        pass


class StepClock:
    """Times one run of a training loop on every rank and writes its run file from rank 0.

    config: path of the resolved configuration (default $CULPRIT_CONFIG); without one, pass
    warmup_steps and steps (no injection, no culprit run). run_file: where rank 0 writes the
    run file (default $CULPRIT_RUN_FILE). source: the application's name (meta.source).
    init: start torch.distributed from the launcher's environment when it is not started yet
    (backend: NCCL with CUDA, else gloo, unless given).
    """

    def __init__(self, config=None, run_file=None, warmup_steps=None, steps=None,
                 source=None, init=True, backend=None, exchanges=CLOCK_EXCHANGES):
        runfile.schema_path()  # the run-file DDL: missing, say so now, not after training
        under_culprit_run = not config and bool(os.environ.get("CULPRIT_CONFIG"))
        config = config or os.environ.get("CULPRIT_CONFIG")
        if config:
            self.config = RunConfig.load(config)
        elif steps is not None:
            self.config = RunConfig.standalone(int(warmup_steps or 0), int(steps))
        else:
            raise ConfigError("no resolved configuration: CULPRIT_CONFIG is not set (run under "
                              "`culprit run`, or pass StepClock(warmup_steps=..., steps=...))")
        if config:
            self._override_steps(warmup_steps, steps, under_culprit_run)
        run_file = run_file or os.environ.get("CULPRIT_RUN_FILE")
        self.run_file = os.path.abspath(run_file) if run_file else None
        _check_run_file_folder(self.run_file)  # now, not after training (nor in a rendezvous)
        self.source = source or os.path.basename(sys.argv[0] or "application") or "application"
        _, env_world, _ = environment_rank()
        if init and env_world > 1 and not dist.is_initialized():
            init_distributed(backend)
        if dist.is_initialized():
            self.rank, self.world = dist.get_rank(), dist.get_world_size()
        else:
            self.rank, self.world = 0, 1
        if self.config.ranks and self.config.ranks != self.world:
            raise ConfigError(
                "ranks: the configuration says %d but the job has %d ranks; launch with "
                "mpirun -np %d" % (self.config.ranks, self.world, self.config.ranks))
        self._group = None
        if self.world > 1:
            # Clock exchanges and the final gather go over gloo (CPU tensors) even when the
            # training uses NCCL.
            self._group = None if dist.get_backend() == "gloo" else dist.new_group(
                backend="gloo")
        self._delays = self.config.delays_for(self.rank)
        for d in self._delays:
            if d.mode == "gpu":
                raise ConfigError("inject.delays: mode 'gpu' is culprit-step's; the Python module "
                                  "applies sleep or spin delays")
        self._events = []
        self._lock = threading.Lock()
        self._step = -1
        self._in_step = False
        self._steps_begun = set()
        self._open = threading.local()  # the regions open on each thread, innermost last
        self._warned = set()
        self._meta = {}
        self._provenance = []
        self._step_waits = []  # (step, ns this thread waited for a CPU in it)
        self._exchanges = exchanges
        self._finished = False
        self.started_at = _utc_now()
        self._start = self._sync()

    def _override_steps(self, warmup_steps, steps, under_culprit_run):
        """StepClock(warmup_steps=..., steps=...) over a configuration: by hand (config= given)
        they replace its values; under `culprit run` ($CULPRIT_CONFIG) the manifest decides, and
        a value that disagrees is an error naming it."""
        asked = [(k, int(v)) for k, v in (("warmup_steps", warmup_steps), ("steps", steps))
                 if v is not None]
        differ = [(k, v) for k, v in asked if v != getattr(self.config, k)]
        if differ and under_culprit_run:
            raise ConfigError(
                "StepClock(%s) disagrees with the manifest (%s) under `culprit run`: drop the "
                "argument%s, or change [experiment] in the manifest" % (
                    ", ".join("%s=%d" % kv for kv in differ),
                    ", ".join("%s = %d" % (k, getattr(self.config, k)) for k, _ in differ),
                    "s" if len(differ) > 1 else ""))
        for k, v in asked:
            setattr(self.config, k, v)

    # -- steps -------------------------------------------------------------------------------
    @property
    def warmup_steps(self):
        return self.config.warmup_steps

    @property
    def measured_steps(self):
        return self.config.steps

    def steps(self):
        """The step numbers to run: warm-up steps first, then the measured ones, from 0."""
        return range(self.config.warmup_steps + self.config.steps)

    @property
    def current_step(self):
        return self._step

    def _warn_once(self, key, message):
        """A misuse the run file cannot show, said once per kind at record time (docs/python.md,
        "Regions")."""
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn("culprit: rank %d: %s" % (self.rank, message), stacklevel=4)

    @contextlib.contextmanager
    def step(self, number):
        """One training step: a `step` event spanning it on this rank. Each step needs its own
        number: a number used again (every step numbered 0) makes one step of them all."""
        self._step = int(number)
        if not -2**31 <= self._step < 2**31:
            # The run file's step is 32 bits (docs/schema.md): culprit refuses a wider one when
            # it loads the file, after the whole run; say so at the step that has it.
            raise ValueError("culprit: step %d does not fit 32 bits (the run file's step is a "
                             "32-bit integer): number steps from 0 within the run"
                             % self._step)
        if self._step in self._steps_begun:
            self._warn_once(("step", self._step), (
                "step %d began again: each step needs its own number (for step in "
                "clock.steps(): with clock.step(step)); steps numbered alike are one step to "
                "culprit, and a run whose steps all fall within the warm-up has no measured "
                "step" % self._step))
        self._steps_begun.add(self._step)
        self._in_step = True
        wait_begin = sched.thread_cpu_wait_ns()
        begin = clocks.now_ns()
        try:
            yield self
        finally:
            self._in_step = False
            self.record(self._step, -1, -1, -1, "step", "step", begin, clocks.now_ns())
            wait_end = sched.thread_cpu_wait_ns()
            if wait_begin >= 0 and wait_end >= wait_begin:
                self._step_waits.append((self._step, wait_end - wait_begin))

    # -- regions -----------------------------------------------------------------------------
    def _delay_ns(self, phase, layer, microbatch):
        if not self._delays:
            return 0, 0
        sleep = spin = 0.0
        for d in self._delays:
            if d.matches(self.rank, phase, self._step, layer, microbatch):
                if d.mode == "spin":
                    spin += d.ms
                else:
                    sleep += d.ms
        return int(sleep * 1e6), int(spin * 1e6)

    def inject(self, phase, layer=-1, microbatch=-1):
        """Spends the configuration's delays for `phase` on this rank at the current step (a
        region calls it before it ends)."""
        sleep_ns, spin_ns = self._delay_ns(phase, layer, microbatch)
        if sleep_ns:
            # Sleep to just before the deadline, then spin the last stretch: a late wake-up
            # (a busy machine) is absorbed instead of lengthening the delay, and the delay is
            # never short.
            deadline = clocks.now_ns() + sleep_ns
            tail = min(SLEEP_SPIN_TAIL_NS, sleep_ns // 10)
            if sleep_ns > tail:
                time.sleep((sleep_ns - tail) / 1e9)
            _spin_until(deadline)
        if spin_ns:
            _spin_until(clocks.now_ns() + spin_ns)

    @contextlib.contextmanager
    def region(self, name, layer=-1, microbatch=-1, kind="compute"):
        """A named region of the step (`layer2`, `optimizer`…): one event of this rank, the
        phase attribution names. Delays injected into `name` are spent inside it. Regions do
        not nest (attribution reads the flat sequence of phases: an inner region's time would
        count twice), and belong inside a step: both are warned about when they happen, and a
        region outside every step is recorded in no step (step -1)."""
        if kind not in ("compute", "host"):
            raise ValueError("region kind must be compute or host, not %r" % (kind,))
        step = self._enter_region(name)
        begin = clocks.now_ns()
        try:
            yield self
        finally:
            self._leave_region(name, step, layer, microbatch, kind, begin)

    def _enter_region(self, name):
        """Opens region `name` on this thread, warning about nesting and about a region outside
        every step; returns the step it is recorded in (-1: none)."""
        stack = self._open.__dict__.setdefault("regions", [])
        if stack:
            self._warn_once(("nested", stack[-1], name), (
                "region %r is inside region %r: regions do not nest (each is a phase of its "
                "own, so the inner time counts twice in busy time, and neither is charged "
                "alone); end %r before %r begins, or drop one of them" % (
                    name, stack[-1], stack[-1], name)))
        step = self._step if self._in_step else -1
        if step < 0:
            self._warn_once(("outside", name), (
                "region %r is outside every step (before the first, or between two): it is "
                "recorded in no step (step -1) and charged to none; put it inside "
                "`with clock.step(step):`" % (name,)))
        stack.append(name)
        return step

    def _leave_region(self, name, step, layer, microbatch, kind, begin):
        stack = self._open.__dict__.setdefault("regions", [])
        if stack and stack[-1] == name:
            stack.pop()
        if step >= 0:
            self.inject(name, layer, microbatch)
        self.record(step, microbatch, layer, -1, kind, name, begin, clocks.now_ns())

    def record(self, step, microbatch, layer, seq, kind, name, begin_ns, end_ns, nbytes=0,
               device=-1, stream=-1):
        """Adds one event of this rank (raw clock, ns). Thread-safe."""
        if kind not in runfile.EVENT_KINDS:
            raise ValueError("event kind %r is not one of %s" % (kind, runfile.EVENT_KINDS))
        event = (self.rank, int(step), int(microbatch), int(layer), int(seq), kind, str(name),
                 int(begin_ns), int(end_ns), int(nbytes), int(device), int(stream))
        with self._lock:
            self._events.append(event)

    def wrap_forward(self, modules, layers=False):
        """Wraps each module's forward in a region named after it: `modules` is a dict (or
        pairs) of region name -> torch.nn.Module. With layers=True the i-th module's events
        carry layer i. Returns the hook handles (call .remove() to unwrap)."""
        items = list(modules.items()) if isinstance(modules, dict) else list(modules)
        handles = []
        for index, (name, module) in enumerate(items):
            layer = index if layers else -1
            handles.extend(self._wrap_one(str(name), module, layer))
        return handles

    def _wrap_one(self, name, module, layer):
        begins = []

        def pre_hook(_module, _inputs):
            begins.append((self._enter_region(name), clocks.now_ns()))

        def post_hook(_module, _inputs, _output):
            step, begin = begins.pop() if begins else (self._step, clocks.now_ns())
            self._leave_region(name, step, layer, -1, "compute", begin)

        return [module.register_forward_pre_hook(pre_hook),
                module.register_forward_hook(post_hook)]

    # -- gradient all-reduce -----------------------------------------------------------------
    def ddp_hook(self, process_group=None):
        """A DDP communication hook (model.register_comm_hook(None, hook)) that all-reduces each
        gradient bucket (averaging, as DDP's default) and records it: arrival when the hook is
        called, completion when its future completes, the bucket's bytes, and seq = the bucket
        index, the same on every rank. A delay on phase `allreduce` (layer = bucket) is spent
        before the arrival: a late arrival."""
        def hook(_state, bucket):
            tensor = bucket.buffer()
            seq = bucket.index()
            step = self._step
            self.inject("allreduce", seq, -1)
            group = process_group if process_group is not None else dist.group.WORLD
            size = dist.get_world_size(group)
            arrival = clocks.now_ns()
            tensor.div_(size)
            future = dist.all_reduce(tensor, group=process_group, async_op=True).get_future()
            nbytes = tensor.numel() * tensor.element_size()
            device = tensor.device.index if tensor.is_cuda else -1

            def completed(fut):
                self.record(step, -1, -1, seq, "collective", "allreduce", arrival,
                            clocks.now_ns(), nbytes, device if device is not None else -1)
                return fut.value()[0]

            return future.then(completed)

        return hook

    def register_ddp(self, ddp_model, process_group=None):
        """Registers ddp_hook() on a DistributedDataParallel model."""
        ddp_model.register_comm_hook(None, self.ddp_hook(process_group))
        return ddp_model

    # -- facts -------------------------------------------------------------------------------
    def set_meta(self, key, value):
        """A run fact (meta table), e.g. model_flops_per_step, parameter_bytes."""
        self._meta[str(key)] = str(value)

    def add_provenance(self, key, value):
        """A fact about this rank (provenance table)."""
        self._provenance.append((str(key), str(value)))

    def _rank_provenance(self):
        out = [("host", host_name()), ("pid", str(os.getpid()))]
        try:
            cpus = sorted(os.sched_getaffinity(0))
            out.append(("binding", _cpu_list(cpus)))
        except OSError:
            out.append(("binding", "unknown"))
        for key, value in sorted(os.environ.items()):
            if key.startswith(ENV_PREFIXES):
                out.append(("env." + key, value))
        if self._step_waits:
            out.append(("sched.step_wait_ns", sched.step_wait_list(self._step_waits)))
        return out + self._provenance

    def _job_provenance(self):
        local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE") or
                    os.environ.get("LOCAL_WORLD_SIZE") or self.world)
        cores = os.cpu_count() or 0
        per_core = local / cores if cores else 0.0
        yield_mode = os.environ.get("OMPI_MCA_mpi_yield_when_idle")
        out = [
            ("command_line", " ".join([sys.executable] + sys.argv)),
            ("binary_hash", _script_hash()),
            ("python", platform.python_version()),
            ("torch", torch.__version__),
            ("torch_distributed_backend", dist.get_backend() if dist.is_initialized() else
             "none"),
            ("ranks_per_core", "%.3g" % per_core),
            ("oversubscribed", "true" if per_core > 1.0 else "false"),
            ("yield_mode", "mpi_yield_when_idle=" + yield_mode if yield_mode else "default"),
        ]
        if torch.cuda.is_available():
            out.append(("cuda", str(torch.version.cuda)))
            try:
                out.append(("nccl", ".".join(str(v) for v in torch.cuda.nccl.version())))
            except (AttributeError, RuntimeError):
                pass
        return out

    # -- clocks, gather, run file ------------------------------------------------------------
    def _sync(self):
        if self.world == 1:
            return [clocks.Estimate(clocks.now_ns(), 0.0, 0.0, True)]
        dist.barrier(group=self._group)
        return clocks.exchange(self.rank, self.world, self._exchanges, self._group)

    def finish(self):
        """End of the run on every rank: end clock exchanges, gather every rank's events on
        rank 0, and there write the run file atomically. Returns the run file's path on rank 0
        (None elsewhere or without a run file)."""
        if self._finished:
            raise RuntimeError("StepClock.finish() was already called")
        self._finished = True
        end = self._sync()
        with self._lock:
            mine = (list(self._events), self._rank_provenance())
        if self.world > 1:
            payloads = clocks.gather_bytes(self.rank, self.world, pickle.dumps(mine),
                                           self._group)
            if self.rank != 0:
                return None
            gathered = [pickle.loads(p) for p in payloads]
        else:
            gathered = [mine]
        events, provenance, hosts = [], [], []
        for r, (rank_events, rank_provenance) in enumerate(gathered):
            events.extend(rank_events)
            provenance.extend((r, k, v) for k, v in rank_provenance)
            hosts.append(dict(rank_provenance).get("host", "unknown"))
        provenance.extend((-1, k, v) for k, v in self._job_provenance())
        models = [clocks.clock_model(r, self._start[r], end[r], self._exchanges, hosts[r])
                  for r in range(self.world)]
        key = runfile.meta_key
        meta = {key("backend"): self.config.backend, key("warmup_steps"): self.config.warmup_steps,
                key("steps"): self.config.steps, key("source"): self.source,
                key("started_at"): self.started_at}
        meta.update(self._meta)
        meta[key("ranks")] = self.world
        meta[key("finished_at")] = _utc_now()
        meta[key("unix_offset_ns")] = clocks.unix_offset_ns()
        if self.run_file is None:
            return None
        runfile.write_run_file(self.run_file, meta, self.config.text, provenance, models,
                               events)
        return self.run_file

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and not self._finished:
            self.finish()
        return False


def _check_run_file_folder(run_file):
    """The run file's folder must exist and be writable: said before training starts."""
    if run_file is None:
        return
    folder = os.path.dirname(run_file)
    if not os.path.isdir(folder):
        raise ConfigError("run file %s: the folder %s does not exist: create it, or set "
                          "CULPRIT_RUN_FILE (run_file=) to a path in an existing folder"
                          % (run_file, folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError("run file %s: the folder %s is not writable by this user: choose "
                          "another CULPRIT_RUN_FILE (run_file=)" % (run_file, folder))


def _cpu_list(cpus):
    parts, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(parts)


def _script_hash():
    script = sys.argv[0] if sys.argv else ""
    try:
        with open(script, "rb") as f:
            return "sha256:" + hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError:
        return "unknown"
