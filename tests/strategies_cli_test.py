#!/usr/bin/env python3
"""`boundbench strategies` end to end under mpirun: the four strategies' steps at 2 ranks with
synthetic compute (valid results, predictions beside measurements, the exact laws), `theory --from`
on its link, compare and report; the watchdog on a hung rank; bad input (different arguments on the
ranks, stages that do not divide them, 1F1B with m < p, a missing engine): one line, exit 2.

Usage: strategies_cli_test.py BOUNDBENCH [unittest args...]  (one ctest test per method)
"""
import json
import math
import os
import statistics
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_cli  # noqa: E402
from mpi_cli import bb, needs_mpi  # noqa: E402

# Short steps (a synthetic rate 10x the default) keep the runs to seconds.
FAST = ["--synthetic-rate", "1e10", "--samples", "3", "--micro-batches", "4",
        "--accumulation", "1", "--accumulation", "4"]

def mpirun(np, *args, **kwargs):
    return mpi_cli.mpirun("strategies", np, *args, **kwargs)


def error_lines(r):
    return [l for l in r.stderr.splitlines() if "boundbench strategies: error:" in l
            or l.startswith("boundbench: error")]


class MpiRuns(unittest.TestCase):

    @needs_mpi
    def test_two_ranks(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s.json")
            # --no-fail: the timing laws' verdicts depend on the machine's load (they are results);
            # what must hold everywhere is asserted below.
            r = mpirun(2, "--quick", "--no-fail", *FAST, "--out", out)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
            v = mpi_cli.validate(out)
            self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
            doc = json.load(open(out))
            cases = {b["case"]: b for b in doc["benchmarks"]}
            # Data parallel at 1 rank and at 2 (the weak-scaling sweep over sub-communicators).
            want = {"data/n1/acc1/synthetic", "data/n1/acc4/synthetic",
                    "data/n2/acc1/synthetic", "data/n2/acc4/synthetic",
                    "pipeline/gpipe/p2/m4/synthetic", "pipeline/1f1b/p2/m4/synthetic",
                    "tensor/t2/l2/synthetic", "expert/e2/uniform/synthetic",
                    "expert/e2/skewed/synthetic"}
            self.assertEqual(set(cases), want)
            for b in cases.values():
                self.assertEqual(b["suite"], "strategies")
                self.assertGreater(b["predicted_s"], 0)
                self.assertGreater(b["median_s"], 0)
                # The step cannot be faster than its compute: the prediction's compute part.
                self.assertLess(b["predicted_s"] / b["median_s"], 1.5, b["case"])
            # Data parallel: B_global = B x N x N_acc.
            self.assertEqual(cases["data/n2/acc4/synthetic"]["params"]["global_batch"], 8)
            checks = {c["name"]: c for c in doc["checks"]}
            # The counted laws hold exactly on any machine.
            for name in ("pipeline/gpipe/p2/m4/synthetic/peak_activations_max",
                         "pipeline/1f1b/p2/m4/synthetic/peak_activations_max",
                         "pipeline/1f1b/p2/m4/synthetic/peak_activations_sum",
                         "expert/e2/uniform/synthetic/bytes_sent"):
                self.assertEqual(checks[name]["verdict"], "PASS", checks[name])
            self.assertEqual(checks["pipeline/gpipe/p2/m4/synthetic/peak_activations_max"]
                             ["measured"], 4)
            self.assertEqual(checks["pipeline/1f1b/p2/m4/synthetic/peak_activations_max"]
                             ["measured"], 2)
            self.assertEqual(checks["pipeline/1f1b/p2/m4/synthetic/peak_activations_sum"]
                             ["measured"], 3)  # stages hold 2 and 1
            # Weak scaling at 2 ranks against 1: an expectation (a finding, never a FAIL) beside the
            # model's efficiency, N_acc*t_micro / (N_acc*t_micro + all-reduce at 2 ranks).
            for acc in (1, 4):
                b = cases[f"data/n2/acc{acc}/synthetic"]
                one = cases[f"data/n1/acc{acc}/synthetic"]
                self.assertEqual(b["params"]["global_batch"], 2 * one["params"]["global_batch"])
                e = b["observations"]["weak_scaling_efficiency"]
                # E is the Hodges-Lehmann ratio t_step(1)/t_step(2): the median over all pairs of
                # the kept samples (not the ratio of medians, which one slow sample can move).
                pairs = [math.log(x) - math.log(y)
                         for x in one["samples_s"] for y in b["samples_s"]]
                self.assertAlmostEqual(e, math.exp(statistics.median(pairs)), delta=1e-9 * e)
                pe = b["observations"]["predicted_weak_scaling_efficiency"]
                self.assertTrue(0 < pe < 1, pe)
                c = checks[f"data/n2/acc{acc}/synthetic/weak_scaling"]
                self.assertEqual(c["kind"], "expectation")
                self.assertIn(c["verdict"], ("PASS", "INCONCLUSIVE", "BELOW-EXPECTATION"), c)
                self.assertNotIn(f"data/n1/acc{acc}/synthetic/weak_scaling", checks)
            # Every check is judged from an interval (no verdict without numbers).
            for c in doc["checks"]:
                judged = ("PASS", "FAIL", "INCONCLUSIVE") if c["kind"] == "law" else (
                    "PASS", "INCONCLUSIVE", "BELOW-EXPECTATION")
                self.assertIn(c["verdict"], judged, c)
            link = doc["figures"]["strategies"]["links"]["all_reduce"]
            self.assertGreater(link["link_bytes_per_s"], 0)
            # theory --from reads the strategies run's link.
            t = bb("theory", "gradient-all-reduce", "--parameters", "1G", "--devices", "8",
                   "--from", out, "--json")
            self.assertEqual(t.returncode, 0, t.stderr)
            self.assertIn("mpi, 2 ranks, strategies all_reduce link", t.stdout)
            j = json.loads(t.stdout[t.stdout.index("{"):])
            want_s = 14 * link["alpha_s"] + 1.75 * 2e9 / link["link_bytes_per_s"]
            self.assertAlmostEqual(j["outputs"]["time_s"], want_s, delta=1e-5 * want_s)
            c = bb("compare", out, out)
            self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
            rep = bb("report", out, "--out", os.path.join(d, "report"))
            self.assertEqual(rep.returncode, 0, rep.stdout + rep.stderr)


    @needs_mpi
    def test_overlap(self):
        # 8 buckets of 1 MiB over a 5 ms backward (synthetic 1e10 flop/s): the model hides part of
        # the all-reduces behind the backward.
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s.json")
            r = mpirun(2, "--quick", "--no-fail", "--strategy", "data", "--overlap",
                       "--synthetic-rate", "1e10", "--parameters", "2Mi", "--accumulation", "1",
                       "--samples", "5", "--out", out)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
            v = mpi_cli.validate(out)
            self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
            doc = json.load(open(out))
            cases = {b["case"]: b for b in doc["benchmarks"]}
            self.assertEqual(set(cases), {"data/n1/acc1/synthetic", "data/n1/acc1/overlap/synthetic",
                                          "data/n2/acc1/synthetic", "data/n2/acc1/overlap/synthetic"})
            plain, over = cases["data/n2/acc1/synthetic"], cases["data/n2/acc1/overlap/synthetic"]
            self.assertTrue(over["params"]["overlap"])
            self.assertFalse(plain["params"]["overlap"])
            self.assertEqual(over["observations"]["buckets"], 8)
            # The model: the same compute, a tail shorter than the whole all-reduce.
            self.assertLess(over["observations"]["predicted_tail_s"],
                            over["observations"]["predicted_overlapped_all_reduces_s"])
            # Whether the overlapped step reaches the model is the MPI library's asynchronous
            # progress (OpenMPI 4.1's helper thread wakes late): expectations, never a FAIL.
            checks = {c["name"]: c for c in doc["checks"]}
            for name in ("data/n2/acc1/overlap/synthetic/step_time",
                         "data/n2/acc1/overlap/synthetic/shorter"):
                self.assertEqual(checks[name]["kind"], "expectation")
                self.assertIn(checks[name]["verdict"],
                              ("PASS", "BELOW-EXPECTATION", "INCONCLUSIVE", "SKIP"))
            self.assertIn("blocking alpha, beta",
                          checks["data/n2/acc1/overlap/synthetic/step_time"]["law"])
            # The plain step's law stays a law.
            self.assertEqual(checks["data/n2/acc1/synthetic/step_time"]["kind"], "law")


    @needs_mpi
    def test_interleaved(self):
        # Two stages of two chunks each (the model's stages 0-3 on ranks 0, 1, 0, 1), m = 4.
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s.json")
            r = mpirun(2, "--quick", "--no-fail", "--strategy", "pipeline", "--schedule",
                       "interleaved", "--schedule", "1f1b", "--micro-batches", "4",
                       "--synthetic-rate", "1e10", "--samples", "3", "--out", out)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
            v = mpi_cli.validate(out)
            self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
            doc = json.load(open(out))
            cases = {b["case"]: b for b in doc["benchmarks"]}
            self.assertEqual(set(cases), {"pipeline/interleaved/v2/p2/m4/synthetic",
                                          "pipeline/1f1b/p2/m4/synthetic"})
            b = cases["pipeline/interleaved/v2/p2/m4/synthetic"]
            self.assertEqual(b["params"]["chunks"], 2)
            self.assertAlmostEqual(b["observations"]["predicted_bubble_over_ideal"], 1 / 8)
            # The same work as 1F1B's, a smaller bubble: (m*v+p-1)/v = 4.5 against m+p-1 = 5
            # micro-batch times (the model; the sends' share aside).
            one = cases["pipeline/1f1b/p2/m4/synthetic"]
            self.assertAlmostEqual(b["flop"], one["flop"])
            self.assertLess(b["observations"]["predicted_bubble_over_ideal"],
                            one["observations"]["predicted_bubble_fraction"])
            checks = {c["name"]: c for c in doc["checks"]}
            # Chunk activations counted: warm-up 2(p-s-1) + (v-1)p forwards plus one: 5 and 3.
            c = checks["pipeline/interleaved/v2/p2/m4/synthetic/peak_activations_max"]
            self.assertEqual((c["verdict"], c["measured"]), ("PASS", 5))
            c = checks["pipeline/interleaved/v2/p2/m4/synthetic/peak_activations_sum"]
            self.assertEqual((c["verdict"], c["measured"]), ("PASS", 8))
            for name in ("bubble", "step_time"):
                c = checks["pipeline/interleaved/v2/p2/m4/synthetic/" + name]
                self.assertIn(c["verdict"], ("PASS", "FAIL", "INCONCLUSIVE"), c)


class Reliability(unittest.TestCase):

    @needs_mpi
    def test_watchdog_aborts_a_hung_rank(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s.json")
            r = mpirun(2, "--quick", *FAST, "--strategy", "data", "--timeout", "3",
                       "--simulate-hang", "1", "--out", out, timeout=120)
            self.assertNotEqual(r.returncode, 0)
            line = next(l for l in r.stderr.splitlines() if "did not complete" in l)
            # Rank 1 stops at its second measured piece: the all-to-all link.
            self.assertRegex(line, r"^boundbench strategies: error: the all-to-all link")
            self.assertIn("within 3 s", line)
            doc = json.load(open(out))  # opened before the hang, never completed
            self.assertFalse(doc["context"]["boundbench"]["complete"])

    @needs_mpi
    def test_ranks_with_different_arguments(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s.json")
            r = mpirun(1, "--quick", "--micro-batches", "4", "--out", out,
                       mpmd=["--quick", "--micro-batches", "8", "--out", out], timeout=120)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(len(error_lines(r)), 1, r.stderr)
            self.assertIn("boundbench strategies: error: rank 1 was started with other arguments",
                          r.stderr)
            self.assertFalse(os.path.exists(out))

    @needs_mpi
    def test_bad_input_on_every_rank(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s.json")
            for args, needle in (
                    (["--stages", "3"], "--stages 3 does not divide the 2 ranks"),
                    (["--stages", "0", "--micro-batches", "1", "--schedule", "1f1b"],
                     "1F1B needs at least as many micro-batches as stages: m = 1 < p = 2"),
                    (["--engine", "nccl"], "--engine nccl: no usable GPU"),
                    (["--overlap", "--bucket-bytes", "64"], "--overlap: 32768 gradient buckets"),
                    (["--schedule", "interleaved", "--micro-batches", "3"],
                     "the interleaved schedule needs the micro-batches to be a multiple of the "
                     "stages: m = 3, p = 2")):
                r = mpirun(2, "--quick", *args, "--out", out, timeout=120)
                self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
                lines = error_lines(r)
                self.assertTrue(lines and all(needle in l for l in lines), (args, r.stderr))
                # One line per rank at most (a rank-dependent check speaks once, from rank 0).
                self.assertLessEqual(len(lines), 2, r.stderr)
                self.assertFalse(os.path.exists(out))

    def test_bad_input(self):
        for args, needle in ((["--strategy", "zero"], "unknown strategy 'zero'"),
                             (["--compute", "fpga"], "--compute"),
                             (["--schedule", "zigzag"], "unknown pipeline schedule"),
                             (["--schedule", "interleaved", "--chunks", "1"],
                              "--chunks must be >= 2 for the interleaved schedule"),
                             (["--accumulation", "0"], "--accumulation must be >= 1")):
            r = bb("strategies", "--quick", *args, "--out", os.devnull, timeout=60)
            self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
            self.assertIn(needle, r.stderr)
            self.assertEqual(len([l for l in r.stderr.splitlines() if "error" in l]), 1, r.stderr)


if __name__ == "__main__":
    mpi_cli.main()
