"""The resolved configuration culprit hands to the command it launches (docs/schema.md,
"Resolved configuration"): its path is in CULPRIT_CONFIG, the run file to write in
CULPRIT_RUN_FILE."""

import json
import os


class ConfigError(ValueError):
    """The resolved configuration is missing or malformed."""


class Delay:
    """One injected delay of the configuration: extra time inside the region named `phase` on
    one rank (blind: only the configuration echo keeps the truth)."""

    def __init__(self, rank, phase, ms, layer=-1, microbatch=-1, step_first=-1, step_last=-1,
                 mode="sleep"):
        self.rank = int(rank)
        self.phase = str(phase)
        self.ms = float(ms)
        self.layer = int(layer)
        self.microbatch = int(microbatch)
        self.step_first = int(step_first)
        self.step_last = int(step_last)
        self.mode = str(mode)
        if self.mode not in ("sleep", "spin", "gpu"):
            raise ConfigError("inject.delays: mode %r is not sleep, spin or gpu" % self.mode)

    def matches(self, rank, phase, step, layer, microbatch):
        if rank != self.rank or phase != self.phase:
            return False
        if self.step_first >= 0 and step < self.step_first:
            return False
        if self.step_last >= 0 and step > self.step_last:
            return False
        return (self.layer < 0 or self.layer == layer) and (
            self.microbatch < 0 or self.microbatch == microbatch)

    def __repr__(self):
        return "Delay(rank=%d, phase=%r, ms=%g, layer=%d, microbatch=%d, steps=[%d, %d], %s)" % (
            self.rank, self.phase, self.ms, self.layer, self.microbatch, self.step_first,
            self.step_last, self.mode)


class RunConfig:
    """The parts of the resolved configuration a training loop needs."""

    def __init__(self, data, text, path=None):
        if not isinstance(data, dict):
            raise ConfigError("%s: the resolved configuration must be a JSON object" %
                              (path or "configuration"))
        self.path = path
        self.text = text
        self.data = data
        where = path or "configuration"
        try:
            self.warmup_steps = int(data.get("warmup_steps", 0))
            self.steps = int(data.get("steps", 0))
            self.ranks = int(data.get("ranks", 0))
            self.seed = int(data.get("seed", 0))
        except (TypeError, ValueError) as e:
            raise ConfigError("%s: warmup_steps, steps, ranks and seed must be integers (%s)" %
                              (where, e))
        if self.warmup_steps < 0 or self.steps < 1:
            raise ConfigError("%s: needs warmup_steps >= 0 and steps >= 1 (got %d and %d)" %
                              (where, self.warmup_steps, self.steps))
        self.backend = str(data.get("backend", "cpu"))
        self.experiment = str(data.get("experiment", ""))
        self.config_label = str(data.get("config_label", ""))
        self.repetition = int(data.get("repetition", 0))
        self.model = data.get("model", {}) or {}
        inject = data.get("inject", {}) or {}
        self.delays = []
        for i, d in enumerate(inject.get("delays", []) or []):
            try:
                self.delays.append(Delay(d["rank"], d["phase"], d.get("ms", 0),
                                         d.get("layer", -1), d.get("microbatch", -1),
                                         d.get("step_first", -1), d.get("step_last", -1),
                                         d.get("mode", "sleep")))
            except (KeyError, TypeError, ValueError) as e:
                raise ConfigError("%s: inject.delays[%d] is malformed (%s)" % (where, i, e))

    @classmethod
    def load(cls, path):
        path = os.path.abspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise ConfigError("%s: cannot read the resolved configuration (%s)" % (path, e))
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ConfigError("%s: not valid JSON (%s)" % (path, e))
        return cls(data, text, path)

    @classmethod
    def standalone(cls, warmup_steps, steps, ranks=0):
        """A configuration for running outside culprit (no injection)."""
        data = {"warmup_steps": warmup_steps, "steps": steps, "ranks": ranks, "backend": "cpu",
                "inject": {"delays": []}}
        return cls(data, json.dumps(data))

    def delays_for(self, rank):
        return [d for d in self.delays if d.rank == rank]
