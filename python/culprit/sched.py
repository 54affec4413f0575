"""How long the calling thread has waited for a CPU (Linux schedstat), for the environment check:
a step slowed by another process on its core is labelled the environment, not blamed on the
code (docs/methodology.md, "The environment check")."""


def thread_cpu_wait_ns():
    """Cumulative ns this thread spent runnable but not running; -1 where schedstat is absent."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            return int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def step_wait_list(step_waits):
    """The provenance value sched.step_wait_ns: "step:ns,step:ns,..." (docs/schema.md)."""
    return ",".join("%d:%d" % (step, ns) for step, ns in step_waits)
