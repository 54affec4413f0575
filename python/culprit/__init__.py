"""culprit's Python module: time real torch training steps under `culprit run` and write the
same run file as culprit-step (docs/python.md). Needs only the standard library and torch."""

from .config import ConfigError, Delay, RunConfig
from .dist import environment_rank, init_distributed, rank_and_world
from .stepclock import StepClock

__all__ = ["StepClock", "RunConfig", "Delay", "ConfigError", "init_distributed",
           "environment_rank", "rank_and_world"]
