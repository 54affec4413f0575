"""`python -m culprit check`: can this interpreter, in this environment, time a training loop?
Prints the interpreter, the culprit package and its version, torch and its distributed
backends, CUDA, the launcher's variables (rank, world) and the run-file schema; exits 1 when
something a run needs is missing (torch, torch.distributed, the run-file DDL)."""

import os
import sys

from . import runfile
from .version import __version__


def _check_torch(say):
    try:
        import torch
        import torch.distributed as dist
    except Exception as e:  # noqa: BLE001 - any import failure means no torch here
        say("torch", "MISSING (%s: %s): install it for %s (Debian: apt-get install "
            "python3-torch, for /usr/bin/python3)" % (type(e).__name__, e, sys.executable))
        return False
    say("torch", "%s (%s)" % (torch.__version__, os.path.dirname(torch.__file__)))
    if not dist.is_available():
        say("torch.distributed", "MISSING: this torch was built without it")
        return False
    backends = [name for name, ok in (("gloo", dist.is_gloo_available()),
                                      ("nccl", dist.is_nccl_available()),
                                      ("mpi", dist.is_mpi_available())) if ok]
    say("distributed backends", ", ".join(backends) or "none")
    cuda = torch.cuda.is_available()
    say("cuda", "%d device(s), backend nccl" % torch.cuda.device_count() if cuda
        else "not available: backend gloo on CPU")
    from .dist import environment_rank
    rank, world, local = environment_rank()
    names = sorted(k for k in os.environ if k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                  "MASTER_PORT") or
                   k.startswith(("OMPI_COMM_WORLD_", "PMI_", "SLURM_PROCID", "SLURM_NTASKS")))
    say("launcher", "rank %d of %d (local %d) from %s" % (rank, world, local, ", ".join(names))
        if names else "no launcher variables: one rank (rank 0 of 1)")
    return True


def check(out=sys.stdout):
    def say(key, value):
        print("%-21s %s" % (key + ":", value), file=out)

    say("python", "%s (%s)" % (sys.executable, sys.version.split()[0]))
    say("culprit", "%s (%s)" % (__version__, os.path.dirname(os.path.abspath(__file__))))
    ok = _check_torch(say)
    try:
        path = runfile.schema_path()
        say("run-file schema", "format %d (%s)" % (runfile.FORMAT_VERSION, path))
    except FileNotFoundError as e:
        say("run-file schema", "MISSING: %s" % e)
        ok = False
    say("result", "ok" if ok else "NOT READY: fix the lines marked above")
    return 0 if ok else 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["check"]:
        print("usage: python -m culprit check", file=sys.stderr)
        return 2
    return check()


if __name__ == "__main__":
    sys.exit(main())
