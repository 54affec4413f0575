"""culprit's Python module: time real torch training steps under `culprit run` and write the
same run file as culprit-step (docs/python.md). Needs only the standard library and torch.
`python -m culprit check` says whether this interpreter and environment can."""

from .config import ConfigError, Delay, RunConfig
from .version import __version__

__all__ = ["StepClock", "RunConfig", "Delay", "ConfigError", "init_distributed",
           "environment_rank", "rank_and_world", "__version__"]

# These need torch: imported on first use, so that `python -m culprit check` can say that torch
# is missing instead of failing at `import culprit`.
_LAZY = {"StepClock": "stepclock", "init_distributed": "dist", "environment_rank": "dist",
         "rank_and_world": "dist"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module("." + _LAZY[name], __name__), name)
    raise AttributeError("module 'culprit' has no attribute %r" % name)
