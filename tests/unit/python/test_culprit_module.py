"""Unit tests of the culprit Python module (python/culprit), one process, no launcher:
configuration, delay matching, clock-model arithmetic, rank detection, and a whole run file
written by a one-rank StepClock. Run: python3 -m unittest discover -s tests/unit/python"""

import json
import os
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python"))

import culprit  # noqa: E402
from culprit import clock as clocks  # noqa: E402
from culprit import dist as cdist  # noqa: E402
from culprit.config import ConfigError, Delay, RunConfig  # noqa: E402


def write_config(folder, **overrides):
    data = {"experiment": "unit", "config_label": "x", "repetition": 0, "seed": 7,
            "backend": "cpu", "ranks": 1, "warmup_steps": 1, "steps": 3,
            "model": {}, "inject": {"delays": []}}
    data.update(overrides)
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        json.dump(data, f)
    return path


class DelayTest(unittest.TestCase):
    def test_matches_rank_phase_steps_layer(self):
        d = Delay(1, "layer2", 30, step_first=3, step_last=4)
        self.assertTrue(d.matches(1, "layer2", 3, -1, -1))
        self.assertTrue(d.matches(1, "layer2", 4, 7, 0))  # layer -1 in the delay: every layer
        self.assertFalse(d.matches(0, "layer2", 3, -1, -1))
        self.assertFalse(d.matches(1, "layer1", 3, -1, -1))
        self.assertFalse(d.matches(1, "layer2", 2, -1, -1))
        self.assertFalse(d.matches(1, "layer2", 5, -1, -1))
        self.assertFalse(Delay(1, "x", 1, layer=2).matches(1, "x", 0, 3, -1))
        self.assertTrue(Delay(1, "x", 1, microbatch=1).matches(1, "x", 0, -1, 1))

    def test_unknown_mode_is_an_error(self):
        with self.assertRaisesRegex(ConfigError, "mode 'warp'"):
            Delay(0, "x", 1, mode="warp")


class ConfigTest(unittest.TestCase):
    def test_reads_resolved_configuration(self):
        with tempfile.TemporaryDirectory() as d:
            path = write_config(d, inject={"delays": [
                {"rank": 1, "phase": "layer2", "layer": -1, "microbatch": -1, "step_first": -1,
                 "step_last": -1, "ms": 30, "mode": "sleep"}]})
            c = RunConfig.load(path)
            self.assertEqual((c.warmup_steps, c.steps, c.ranks, c.seed), (1, 3, 1, 7))
            self.assertEqual([x.phase for x in c.delays_for(1)], ["layer2"])
            self.assertEqual(c.delays_for(0), [])
            self.assertEqual(c.path, os.path.abspath(path))

    def test_errors_name_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.json")
            with open(path, "w") as f:
                f.write("{not json")
            with self.assertRaisesRegex(ConfigError, "bad.json: not valid JSON"):
                RunConfig.load(path)
            with self.assertRaisesRegex(ConfigError, "missing.json: cannot read"):
                RunConfig.load(os.path.join(d, "missing.json"))
            path = write_config(d, steps=0)
            with self.assertRaisesRegex(ConfigError, "steps >= 1"):
                RunConfig.load(path)
            path = write_config(d, inject={"delays": [{"rank": 0}]})
            with self.assertRaisesRegex(ConfigError, r"inject.delays\[0\] is malformed"):
                RunConfig.load(path)


class ClockTest(unittest.TestCase):
    def test_best_offset_keeps_minimum_round_trip(self):
        # Peer clock = rank 0's - 1000 ns. Exchange 2 has the smallest round trip (10 ns).
        samples = [(0, 0 + 50 - 1000, 100), (1000, 1005 - 1000, 1010), (2000, 2030 - 1000, 2060)]
        e = clocks.best_offset(samples)
        self.assertTrue(e.valid)
        self.assertEqual(e.rtt_ns, 10.0)
        self.assertEqual(e.offset_ns, 1000.0)
        self.assertEqual(e.peer_ns, 5)

    def test_odd_round_trip_keeps_half_nanosecond(self):
        big = 10**18  # beyond a double's exact integers if summed naively
        e = clocks.best_offset([(big, 7, big + 3)])
        self.assertEqual(e.offset_ns, float(big + 1 - 7) + 0.5)

    def test_clock_model_drift_and_uncertainty(self):
        start = clocks.Estimate(1_000_000, 500.0, 40.0, True)
        end = clocks.Estimate(1_000_000 + 10**9, 600.0, 60.0, True)
        m = clocks.clock_model(1, start, end, 20, "h")
        self.assertAlmostEqual(m["drift_ppm"], 0.1)
        self.assertEqual(m["uncertainty_ns"], 30.0)
        self.assertEqual((m["ref_ns"], m["offset_ns"]), (1_000_000, 500.0))
        zero = clocks.clock_model(0, clocks.Estimate(42, 0.0, 0.0, True), None, 20, "h")
        self.assertEqual((zero["ref_ns"], zero["offset_ns"], zero["uncertainty_ns"]), (42, 0, 0))

    def test_fewer_than_ten_exchanges_refused(self):
        with self.assertRaisesRegex(ValueError, "at least 10"):
            clocks.exchange(0, 2, 9)


class RankTest(unittest.TestCase):
    def test_launcher_variables(self):
        self.assertEqual(cdist.environment_rank({}), (0, 1, 0))
        self.assertEqual(cdist.environment_rank(
            {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4",
             "OMPI_COMM_WORLD_LOCAL_RANK": "1"}), (3, 4, 1))
        self.assertEqual(cdist.environment_rank({"RANK": "1", "WORLD_SIZE": "2"}), (1, 2, 0))
        self.assertEqual(cdist.environment_rank({"SLURM_PROCID": "5", "SLURM_NTASKS": "8"}),
                         (5, 8, 0))

    def test_rendezvous_beside_the_run_file(self):
        env = {"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2",
               "PMIX_NAMESPACE": "123", "CULPRIT_RUN_FILE": "/r/1.1/run.db"}
        self.assertEqual(cdist._rendezvous(0, 2, env), "file:///r/1.1/run.db.rendezvous.123")
        env = {"MASTER_ADDR": "h", "MASTER_PORT": "1"}
        self.assertEqual(cdist._rendezvous(0, 2, env), "env://")
        with self.assertRaisesRegex(RuntimeError, "MASTER_ADDR"):
            cdist._rendezvous(0, 2, {"OMPI_MCA_orte_num_nodes": "2",
                                     "OMPI_MCA_orte_jobfam_session_dir": "/tmp/x"})


class RendezvousTest(unittest.TestCase):
    """Issue 38 item 11: a rank whose peers never start gives up after the stated timeout, and
    a run file in a missing folder is said before anyone waits; no rendezvous file is left."""

    def test_a_peer_that_never_starts_times_out_and_leaves_no_file(self):
        import time
        with tempfile.TemporaryDirectory() as d:
            env = {"RANK": "0", "WORLD_SIZE": "2", "CULPRIT_RUN_FILE": os.path.join(d, "run.db"),
                   "CULPRIT_RENDEZVOUS_TIMEOUT_S": "0.5"}
            start = time.monotonic()
            with self.assertRaises(RuntimeError) as caught:
                cdist.init_distributed("gloo", environ=env)
            self.assertLess(time.monotonic() - start, 30)
            self.assertEqual(str(caught.exception),
                             "rank 0 of 2: only 1 of the 2 ranks joined the rendezvous within "
                             "0.5 s (CULPRIT_RENDEZVOUS_TIMEOUT_S): start every rank of "
                             "WORLD_SIZE=2, or set the launcher's world size right")
            self.assertEqual(os.listdir(d), [])

    def test_missing_folder_is_said_before_waiting(self):
        with tempfile.TemporaryDirectory() as d:
            missing = os.path.join(d, "no", "run.db")
            env = {"RANK": "1", "WORLD_SIZE": "2", "CULPRIT_RUN_FILE": missing}
            with self.assertRaisesRegex(RuntimeError, "the folder %s does not exist" %
                                        os.path.dirname(missing)):
                cdist.init_distributed("gloo", environ=env)
            with self.assertRaisesRegex(ConfigError, "the folder %s does not exist" %
                                        os.path.dirname(missing)):
                culprit.StepClock(run_file=missing, warmup_steps=0, steps=1)

    def test_timeout_setting(self):
        self.assertEqual(cdist.rendezvous_timeout_s({}), cdist.DEFAULT_RENDEZVOUS_TIMEOUT_S)
        self.assertEqual(cdist.rendezvous_timeout_s({"CULPRIT_RENDEZVOUS_TIMEOUT_S": "2.5"}), 2.5)
        for bad in ("0", "-1", "soon"):
            with self.assertRaisesRegex(RuntimeError, "expected seconds > 0"):
                cdist.rendezvous_timeout_s({"CULPRIT_RENDEZVOUS_TIMEOUT_S": bad})


class RegionUseTest(unittest.TestCase):
    """Issue 38 item 6: nesting, regions outside steps and steps numbered alike are said when
    they happen (warnings), and a region outside every step is in no step."""

    def run_clock(self, body):
        import warnings
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "run.db")
            clock = culprit.StepClock(run_file=out, warmup_steps=0, steps=2)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                body(clock)
            clock.finish()
            rows = sqlite3.connect(out).execute(
                "SELECT step, name FROM events WHERE kind = 'compute' ORDER BY begin_ns").fetchall()
            return [str(w.message) for w in caught], rows

    def test_nested_regions_warn_once(self):
        def body(clock):
            for step in clock.steps():
                with clock.step(step):
                    with clock.region("outer"):
                        with clock.region("inner"):
                            pass
        said, rows = self.run_clock(body)
        self.assertEqual(said, [
            "culprit: rank 0: region 'inner' is inside region 'outer': regions do not nest "
            "(each is a phase of its own, so the inner time counts twice in busy time, and "
            "neither is charged alone); end 'outer' before 'inner' begins, or drop one of them"])
        self.assertEqual(rows, [(0, "outer"), (0, "inner"), (1, "outer"), (1, "inner")])

    def test_region_between_steps_is_in_no_step(self):
        def body(clock):
            with clock.step(0):
                with clock.region("layer0"):
                    pass
            with clock.region("checkpoint"):
                pass
            with clock.step(1):
                pass
        said, rows = self.run_clock(body)
        self.assertEqual(len(said), 1)
        self.assertIn("region 'checkpoint' is outside every step", said[0])
        self.assertEqual(rows, [(0, "layer0"), (-1, "checkpoint")])  # not step 0's

    def test_a_step_number_used_again_warns(self):
        def body(clock):
            for _ in range(3):
                with clock.step(0):
                    pass
        said, _ = self.run_clock(body)
        self.assertEqual(len(said), 1)
        self.assertIn("step 0 began again: each step needs its own number", said[0])

    def test_a_step_past_32_bits_is_refused_at_the_step(self):
        def body(clock):
            with clock.step(2**31 - 1):
                pass
            with self.assertRaisesRegex(ValueError, r"step 2147483648 does not fit 32 bits"):
                with clock.step(2**31):
                    pass
        said, _ = self.run_clock(body)
        self.assertEqual(said, [])


class MetaKeysTest(unittest.TestCase):
    """Issue 33: the module reads the run meta keys from their one owner, meta_keys.tsv."""

    def test_keys_come_from_the_owner(self):
        from culprit import runfile
        for key in ("format_version", "warmup_steps", "ranks", "source", "partial"):
            self.assertIn(key, runfile.META_KEYS)
        self.assertEqual(runfile.meta_key("warmup_steps"), "warmup_steps")

    def test_an_unlisted_key_is_refused(self):
        from culprit import runfile
        with self.assertRaisesRegex(ValueError, "'warmup_step' is not in workloads/runfile/"
                                                "meta_keys.tsv"):
            runfile.meta_key("warmup_step")


class StepClockTest(unittest.TestCase):
    def test_one_rank_run_file_with_injected_delay(self):
        with tempfile.TemporaryDirectory() as d:
            config = write_config(d, inject={"delays": [
                {"rank": 0, "phase": "layer1", "layer": -1, "microbatch": -1, "step_first": 2,
                 "step_last": 2, "ms": 25, "mode": "sleep"},
                {"rank": 0, "phase": "opt", "ms": 5, "mode": "spin"},
                {"rank": 1, "phase": "layer1", "ms": 500, "mode": "sleep"}]})
            out = os.path.join(d, "run.db")
            clock = culprit.StepClock(config=config, run_file=out, source="unit")
            self.assertEqual(list(clock.steps()), [0, 1, 2, 3])
            for step in clock.steps():
                with clock.step(step):
                    with clock.region("layer0"):
                        pass
                    with clock.region("layer1", layer=1):
                        pass
                    with clock.region("opt"):
                        pass
            self.assertEqual(clock.finish(), out)
            self.assertEqual(sorted(os.listdir(d)), ["config.json", "run.db"])  # no temp left
            db = sqlite3.connect(out)
            meta = dict(db.execute("SELECT key, value FROM meta"))
            self.assertEqual(meta["format_version"], "3")
            self.assertEqual((meta["ranks"], meta["warmup_steps"], meta["steps"]), ("1", "1", "3"))
            self.assertEqual(meta["source"], "unit")
            echo = db.execute("SELECT json FROM config_echo").fetchone()[0]
            with open(config) as f:
                self.assertEqual(echo, f.read())  # exactly as received, truth included
            ms = {(s, n): (e - b) / 1e6 for s, n, b, e in db.execute(
                "SELECT step, name, begin_ns, end_ns FROM events WHERE kind = 'compute'")}
            self.assertGreaterEqual(ms[(2, "layer1")], 25.0)
            for s in (0, 1, 3):
                self.assertLess(ms[(s, "layer1")], 25.0)  # only its step
            for s in range(4):
                self.assertGreaterEqual(ms[(s, "opt")], 5.0)  # spin, every step
                self.assertLess(ms[(s, "layer0")], 25.0)
            steps = db.execute("SELECT count(*) FROM events WHERE kind = 'step' AND name = 'step'"
                               " AND layer = -1 AND seq = -1").fetchone()[0]
            self.assertEqual(steps, 4)
            layers = dict(db.execute("SELECT name, max(layer) FROM events GROUP BY name"))
            self.assertEqual(layers["layer1"], 1)
            clocks_rows = db.execute("SELECT rank, offset_ns, exchanges FROM clock_models").fetchall()
            self.assertEqual(clocks_rows, [(0, 0.0, 20)])
            self.assertEqual(db.execute("SELECT value FROM provenance WHERE rank = 0 AND "
                                        "key = 'host'").fetchone()[0], cdist.host_name())
            waits = db.execute("SELECT value FROM provenance WHERE rank = 0 AND "
                               "key = 'sched.step_wait_ns'").fetchone()
            if os.path.exists("/proc/thread-self/schedstat"):  # Linux: every step's CPU wait
                pairs = [p.split(":") for p in waits[0].split(",")]
                self.assertEqual([int(s) for s, _ in pairs], [0, 1, 2, 3])
                self.assertTrue(all(int(ns) >= 0 for _, ns in pairs))
            with self.assertRaisesRegex(RuntimeError, "already called"):
                clock.finish()

    def test_wrap_forward_records_each_module(self):
        import torch
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "run.db")
            clock = culprit.StepClock(run_file=out, warmup_steps=0, steps=2)
            net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4))
            clock.wrap_forward({"a": net[0], "b": net[1]}, layers=True)
            for step in clock.steps():
                with clock.step(step):
                    net(torch.ones(1, 4))
            clock.finish()
            rows = sqlite3.connect(out).execute(
                "SELECT step, name, layer FROM events WHERE kind = 'compute' ORDER BY begin_ns"
            ).fetchall()
            self.assertEqual(rows, [(0, "a", 0), (0, "b", 1), (1, "a", 0), (1, "b", 1)])

    def test_ranks_must_match_the_configuration(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(ConfigError, "says 2 but the job has 1"):
                culprit.StepClock(config=write_config(d, ranks=2))

    def test_step_arguments_disagreeing_with_culprit_run_are_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            config = write_config(d)  # warmup_steps 1, steps 3
            saved = os.environ.get("CULPRIT_CONFIG")
            os.environ["CULPRIT_CONFIG"] = config
            try:
                with self.assertRaises(ConfigError) as caught:
                    culprit.StepClock(run_file=os.path.join(d, "r.db"), warmup_steps=1, steps=10)
                self.assertEqual(str(caught.exception),
                                 "StepClock(steps=10) disagrees with the manifest (steps = 3) "
                                 "under `culprit run`: drop the argument, or change [experiment] "
                                 "in the manifest")
                # The same values as the manifest are fine.
                clock = culprit.StepClock(run_file=os.path.join(d, "r.db"), warmup_steps=1,
                                          steps=3)
                self.assertEqual(list(clock.steps()), [0, 1, 2, 3])
            finally:
                if saved is None:
                    os.environ.pop("CULPRIT_CONFIG")
                else:
                    os.environ["CULPRIT_CONFIG"] = saved
            # By hand (the configuration given as an argument) they replace its values.
            clock = culprit.StepClock(config=config, run_file=os.path.join(d, "r.db"),
                                      warmup_steps=0, steps=5)
            self.assertEqual(list(clock.steps()), [0, 1, 2, 3, 4])

    def test_without_configuration_says_what_to_do(self):
        saved = os.environ.pop("CULPRIT_CONFIG", None)
        try:
            with self.assertRaisesRegex(ConfigError, "CULPRIT_CONFIG is not set"):
                culprit.StepClock()
        finally:
            if saved is not None:
                os.environ["CULPRIT_CONFIG"] = saved


if __name__ == "__main__":
    unittest.main()
