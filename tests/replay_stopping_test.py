#!/usr/bin/env python3
"""ci/replay_stopping.py replays the stopping rule a results file was taken under (issue 27): its
looks' levels pinned by hand against harness/stats.cpp's (tests/harness_sequential_test.cpp pins
the same numbers there), and a one-case run whose samples reach +-1% at look 5 under the recorded
spending and not under the first rule (--spending legacy)."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "ci", "replay_stopping.py")
spec = importlib.util.spec_from_file_location("replay_stopping", SCRIPT)
replay = importlib.util.module_from_spec(spec)
spec.loader.exec_module(replay)

FLAT = {"alpha": 0.05, "alpha_spending": {"flat_looks": 8, "flat_share": 0.9}}
LEGACY = {"alpha": 0.05}


class Levels(unittest.TestCase):
    def test_flat_spending_by_hand(self):
        # looks 1-8 at 1 - 0.045/8; look 8 + j at 1 - 0.005/(j(j+1)).
        for k in (1, 5, 8):
            self.assertAlmostEqual(replay.seq_conf(k, FLAT), 0.994375, places=15)
        self.assertAlmostEqual(replay.seq_conf(9, FLAT), 0.9975, places=15)
        self.assertAlmostEqual(replay.seq_conf(10, FLAT), 1 - 0.005 / 6, places=15)
        spent = sum(1 - replay.seq_conf(k, FLAT) for k in range(1, 100001))
        self.assertAlmostEqual(spent, 0.05, places=6)

    def test_files_without_spending_replay_the_first_rule(self):
        self.assertAlmostEqual(replay.seq_conf(1, LEGACY), 0.975, places=15)
        self.assertAlmostEqual(replay.seq_conf(4, LEGACY), 0.9975, places=15)
        self.assertAlmostEqual(replay.seq_conf(5, LEGACY), 1 - 0.05 / 30, places=15)

    def test_ranks_by_hand(self):
        # 10 samples at 99.4375%: P(B <= 0) = 1/1024 <= 0.0028 < P(B <= 1) = 11/1024: [min, max].
        lo, hi, cov = replay.median_ranks(10, 0.994375)
        self.assertEqual((lo, hi), (1, 10))
        self.assertAlmostEqual(cov, 1 - 2 / 1024, places=12)
        self.assertEqual(replay.median_ranks(20, 0.994375)[:2], (4, 17))
        self.assertEqual(replay.median_ranks(40, 0.994375)[:2], (11, 30))


def one_case_run(h):
    """160 samples of 10 ms +- h, evenly spaced and taken in the order i*7 mod 160. At 160 samples
    (look 5) the flat level's ranks 63 and 98 give a half-width of 35/159 h, the first rule's
    (1 - 0.05/30) ranks 60 and 101 give 41/159 h; timeout 1.7 s: one look more (320 samples,
    3.2 s) does not fit."""
    n = 160
    samples = [0.01 * (1 + h * (2 * ((i * 7) % n) / (n - 1) - 1)) for i in range(n)]
    s = sorted(samples)
    med = (s[79] + s[80]) / 2
    entry = {"name": "sim/one", "samples_s": samples, "samples": n, "mean_s": sum(samples) / n,
             "median_s": med, "median_ci_low_s": s[62], "median_ci_high_s": s[97]}
    rule = {"warmup_samples": 0, "min_samples": 10, "min_time_s": 0, "max_rel_noise": 0,
            "precision": 0.01, "alpha": 0.05, "timeout_s": 1.7,
            "alpha_spending": {"flat_looks": 8, "flat_share": 0.9}}
    return {"context": {"boundbench": {"options": {"stopping_rule": rule}}},
            "benchmarks": [entry]}


def replayed_ok(path, *extra):
    out = subprocess.run([sys.executable, SCRIPT, path, *extra], capture_output=True, text=True,
                         check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("replay, recorded rule"))
    return int(line.split(":")[1].split("/")[0])


class Replay(unittest.TestCase):
    def test_the_recorded_spending_decides(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.json")
            # h = 4.2%: 0.924% at the flat level, 1.083% at the first rule's.
            json.dump(one_case_run(0.042), open(path, "w"))
            self.assertEqual(replayed_ok(path), 1)
            self.assertEqual(replayed_ok(path, "--spending", "8,0.9"), 1)
            self.assertEqual(replayed_ok(path, "--spending", "legacy"), 0)
            # h = 4.6%: 1.012% at the flat level too, just outside.
            json.dump(one_case_run(0.046), open(path, "w"))
            self.assertEqual(replayed_ok(path), 0)

    def test_bad_spending_is_one_line_and_exit_1(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.json")
            json.dump(one_case_run(0.042), open(path, "w"))
            for bad in ("8", "0,0.9", "8,1.5", "8,1", "x,y"):
                p = subprocess.run([sys.executable, SCRIPT, path, "--spending", bad],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 1, bad)
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
                self.assertIn("--spending", p.stderr)


if __name__ == "__main__":
    unittest.main()
