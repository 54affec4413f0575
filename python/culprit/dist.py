"""Rank and world size, from torch.distributed or the launcher's environment, and starting
torch.distributed from what mpirun (Open MPI), torchrun or srun put in the environment."""

import datetime
import os
import socket
import time
from urllib.parse import urlparse

import torch.distributed as dist

# How long a rank waits for the others to join the rendezvous before it gives up, in seconds:
# CULPRIT_RENDEZVOUS_TIMEOUT_S, else this (docs/python.md). A peer that never starts (a wrong
# WORLD_SIZE, a launch that failed on another host) is then an error that says so, not a wait
# of torch's 30 minutes.
DEFAULT_RENDEZVOUS_TIMEOUT_S = 300
_JOINED_KEY = "culprit/joined"

# (rank variable, world-size variable, local-rank variable) of the launchers culprit uses.
LAUNCHER_VARIABLES = (
    ("RANK", "WORLD_SIZE", "LOCAL_RANK"),  # torchrun, or set by hand
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),  # mpirun
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),  # MPICH / Intel MPI
    ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),  # srun
)


def environment_rank(environ=None):
    """(rank, world_size, local_rank) from the launcher's variables; (0, 1, 0) without any."""
    environ = os.environ if environ is None else environ
    for rank_key, size_key, local_key in LAUNCHER_VARIABLES:
        if rank_key in environ and size_key in environ:
            try:
                return (int(environ[rank_key]), int(environ[size_key]),
                        int(environ.get(local_key, "0") or 0))
            except ValueError:
                raise RuntimeError("%s=%r / %s=%r: not integers" % (
                    rank_key, environ[rank_key], size_key, environ[size_key]))
    return 0, 1, 0


def rank_and_world():
    """(rank, world_size): torch.distributed's when it is initialised, else the launcher's."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    rank, world, _ = environment_rank()
    return rank, world


def _rendezvous(rank, world, environ):
    """The init_method for init_process_group when the launcher set no MASTER_ADDR/PORT: a file
    beside the run file (unique per run and job; on a shared file system for multi-host jobs),
    else in Open MPI's per-job session folder (one host)."""
    if environ.get("MASTER_ADDR") and environ.get("MASTER_PORT"):
        return "env://"
    job = environ.get("PMIX_NAMESPACE") or environ.get("OMPI_MCA_ess_base_jobid") or \
        environ.get("SLURM_JOB_ID", "") + "." + environ.get("SLURM_STEP_ID", "")
    run_file = environ.get("CULPRIT_RUN_FILE")
    if run_file:
        return "file://" + os.path.abspath(run_file) + ".rendezvous." + job.replace("/", "_")
    session = environ.get("OMPI_MCA_orte_jobfam_session_dir")
    if session and environ.get("OMPI_MCA_orte_num_nodes", "1") == "1":
        return "file://" + os.path.join(session, "culprit-torch-rendezvous")
    raise RuntimeError(
        "cannot start torch.distributed for rank %d of %d: set MASTER_ADDR and MASTER_PORT "
        "(rank 0's host and a free port), or run under culprit (CULPRIT_RUN_FILE)" % (rank, world))


def rendezvous_timeout_s(environ):
    """CULPRIT_RENDEZVOUS_TIMEOUT_S (seconds > 0), else DEFAULT_RENDEZVOUS_TIMEOUT_S."""
    text = environ.get("CULPRIT_RENDEZVOUS_TIMEOUT_S", "")
    if not text:
        return DEFAULT_RENDEZVOUS_TIMEOUT_S
    try:
        value = float(text)
    except ValueError:
        value = -1
    if not value > 0:
        raise RuntimeError("CULPRIT_RENDEZVOUS_TIMEOUT_S=%r: expected seconds > 0" % text)
    return value


def _store(init_method, rank, world, timeout_s):
    """The rendezvous store of `init_method`: a file (its folder checked first) or env://."""
    if not init_method.startswith("file://"):
        timeout = datetime.timedelta(seconds=timeout_s)
        return next(dist.rendezvous(init_method, rank, world, timeout=timeout))[0], None
    path = urlparse(init_method).path
    folder = os.path.dirname(path)
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK | os.X_OK):
        raise RuntimeError(
            "rank %d of %d: cannot rendezvous in %s: the folder %s %s (it is the run file's, "
            "CULPRIT_RUN_FILE): create it, or point CULPRIT_RUN_FILE at a folder this user can "
            "write" % (rank, world, path, folder,
                       "is not writable" if os.path.isdir(folder) else "does not exist"))
    return dist.FileStore(path, world), path


def _join(store, rank, world, timeout_s):
    """Waits until every rank has joined the store, at most timeout_s seconds."""
    store.add(_JOINED_KEY, 1)
    deadline = time.monotonic() + timeout_s
    while True:
        joined = store.add(_JOINED_KEY, 0)
        if joined >= world:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(
                "rank %d of %d: only %d of the %d ranks joined the rendezvous within %g s "
                "(CULPRIT_RENDEZVOUS_TIMEOUT_S): start every rank of WORLD_SIZE=%d, or set the "
                "launcher's world size right" % (rank, world, joined, world, timeout_s, world))
        time.sleep(0.05)


def init_distributed(backend=None, environ=None):
    """Starts torch.distributed (if not started yet) from the launcher's environment: mpirun's
    OMPI_COMM_WORLD_*, torchrun's RANK/WORLD_SIZE, srun's SLURM_*. The backend defaults to NCCL
    when CUDA is present, else gloo. Every rank waits for the others at most
    CULPRIT_RENDEZVOUS_TIMEOUT_S (rendezvous_timeout_s); a file rendezvous that fails leaves no
    file. Returns (rank, world_size, local_rank)."""
    environ = os.environ if environ is None else environ
    rank, world, local = environment_rank(environ)
    if dist.is_initialized():
        return dist.get_rank(), dist.get_world_size(), local
    if backend is None:
        import torch
        backend = "nccl" if torch.cuda.is_available() and dist.is_nccl_available() else "gloo"
    timeout_s = rendezvous_timeout_s(environ)
    store, path = _store(_rendezvous(rank, world, environ), rank, world, timeout_s)
    try:
        _join(store, rank, world, timeout_s)
    except BaseException:
        del store
        if path and os.path.exists(path):
            os.remove(path)
        raise
    dist.init_process_group(backend, store=store, rank=rank, world_size=world)
    return rank, world, local


def host_name():
    return socket.gethostname()
