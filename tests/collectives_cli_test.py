#!/usr/bin/env python3
"""`boundbench collectives` end to end: MPI runs at 1, 2 and 4 ranks (verified, fitted, checked,
valid results), the watchdog on a hung collective, ranks started with different arguments, bad
input, and `theory --from` on the measured link.

Usage: collectives_cli_test.py BOUNDBENCH [unittest args...]  (one ctest test per method)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_cli  # noqa: E402
from mpi_cli import SRC, bb, needs_mpi  # noqa: E402


def mpirun(np, *args, **kwargs):
    return mpi_cli.mpirun("collectives", np, *args, **kwargs)


class MpiRuns(unittest.TestCase):
    """The whole pipeline on CPU processes: sweep, verification, busbw, fits, checks, results."""

    def run_quick(self, np):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        out = os.path.join(d, "c.json")
        t0 = time.time()
        # --no-fail: the laws' verdicts depend on the MPI library and the machine (they are results);
        # what must hold everywhere is asserted below.
        r = mpirun(np, "--quick", "--no-fail", "--out", out)
        print(f"mpirun -np {np} collectives --quick: {time.time() - t0:.1f} s")
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        v = mpi_cli.validate(out)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        doc = json.load(open(out))
        self.assertTrue(os.path.getsize(os.path.join(d, "c.md")) > 0)
        return doc, r

    def assert_common(self, doc, np):
        ctx = doc["context"]["boundbench"]["collectives"]
        self.assertEqual(ctx["transport"], "mpi")
        self.assertEqual(ctx["world_ranks"], np)
        entries = doc["benchmarks"]
        ranks = {e["params"]["ranks"] for e in entries}
        self.assertEqual(ranks, {r for r in (1, 2, 4) if r <= np})
        # Every collective verified exactly, every type, operator and placement covered.
        verify = [c for c in doc["checks"] if c["name"].endswith("/verify")]
        self.assertEqual(len(verify), len(entries))
        self.assertTrue(all(c["verdict"] == "PASS" for c in verify))
        seen = {(e["params"]["collective"], e["params"]["dtype"], e["params"]["redop"],
                 e["params"]["in_place"]) for e in entries}
        for op in ("all_reduce", "reduce_scatter", "reduce"):
            for t in ("fp32", "bf16", "fp16", "int32"):
                for red in ("sum", "max", "min"):
                    for ip in (False, True):
                        self.assertIn((op, t, red, ip), seen)
        for e in entries:  # nccl-tests' conventions
            p = e["params"]
            f = {"all_reduce": 2 * (p["ranks"] - 1) / p["ranks"],
                 "all_gather": (p["ranks"] - 1) / p["ranks"],
                 "reduce_scatter": (p["ranks"] - 1) / p["ranks"],
                 "all_to_all": (p["ranks"] - 1) / p["ranks"]}.get(p["collective"], 1)
            self.assertAlmostEqual(e["algbw_bytes_per_s"], p["bytes"] / e["median_s"], delta=1e-6 * e["algbw_bytes_per_s"])
            self.assertAlmostEqual(e["busbw_bytes_per_s"], e["algbw_bytes_per_s"] * f, delta=1e-6 * e["algbw_bytes_per_s"] + 1e-9)
        # Fits at every rank count >= 2, with the checks judged (not SKIP). Each check says its kind:
        # the link bound and exactness are laws; the fit's R^2, busbw agreement and rank scaling are
        # expectations (a library's algorithms, a machine's tuning), never a FAIL.
        judged = ("PASS", "FAIL", "INCONCLUSIVE", "BELOW-EXPECTATION")
        for c in doc["checks"]:
            law = c["name"].endswith(("/link-bound", "/verify"))
            self.assertEqual(c["kind"], "law" if law else "expectation", c)
            if not law:
                self.assertNotEqual(c["verdict"], "FAIL", c)
        names = {c["name"]: c for c in doc["checks"]}
        for p in (r for r in (2, 4) if r <= np):
            series = doc["figures"]["collectives"]["mpi"][f"p{p}"]["series"]
            fitted = 0
            for op in ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                       "all_to_all", "send_recv"):
                name = next(k for k in series if k.startswith(op + "/"))
                s = series[name]
                # On a loaded machine α may clamp to 0, fewer than 3 sizes may lie above n½ (R²
                # null: that fit's check is a SKIP saying so), and rarely no bandwidth term shows
                # at all (β = 0); most collectives must still give a link.
                self.assertGreaterEqual(s["alpha_s"], 0)
                self.assertGreaterEqual(s["link_bytes_per_s"], 0)
                fitted += s["link_bytes_per_s"] > 1e6
                self.assertTrue(s["r2_bandwidth_bound"] is None or s["r2_bandwidth_bound"] <= 1)
                fit = names[f"mpi/p{p}/{name}/alpha-beta-fit"]
                self.assertEqual(fit["verdict"] == "SKIP", s["r2_bandwidth_bound"] is None)
            self.assertGreaterEqual(fitted, 5, series)
            for law in ("busbw-agreement", "link-bound"):
                c = names[f"mpi/p{p}/{law}"]
                self.assertTrue(c["verdict"] in judged or "not fitted" in c["reason"], c)
        return names

    @needs_mpi
    def test_two_ranks(self):
        doc, _ = self.run_quick(2)
        names = self.assert_common(doc, 2)
        # One rank count >= 2: scaling in ranks cannot be judged, and says so.
        rs = [c for n, c in names.items() if n.endswith("/rank-scaling")]
        self.assertEqual(len(rs), 7)
        self.assertTrue(all(c["verdict"] == "SKIP" and "two rank counts" in c["reason"] for c in rs))

    @needs_mpi
    def test_four_ranks_scaling(self):
        doc, _ = self.run_quick(4)
        names = self.assert_common(doc, 4)
        rs = [c for n, c in names.items() if n.endswith("/rank-scaling")]
        self.assertEqual(len(rs), 7)
        judged = ("PASS", "INCONCLUSIVE", "BELOW-EXPECTATION")
        self.assertTrue(all(c["verdict"] in judged or "two rank counts" in c["reason"] for c in rs))
        self.assertGreaterEqual(sum(c["verdict"] in judged for c in rs), 5)
        cores = doc["figures"]["collectives"]["mpi"]["p4"]["cores"]
        self.assertEqual(cores, os.cpu_count())

    @needs_mpi
    def test_theory_from_the_measured_link(self):
        doc, _ = self.run_quick(2)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "c.json")
            json.dump(doc, open(out, "w"))
            r = bb("theory", "gradient-all-reduce", "--parameters", "1G", "--devices", "8",
                   "--from", out, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("mpi, 2 ranks, all_reduce/fp32/sum/out-of-place", r.stdout)
            j = json.loads(r.stdout[r.stdout.index("{"):])
            s = doc["figures"]["collectives"]["mpi"]["p2"]["series"]["all_reduce/fp32/sum/out-of-place"]
            want = 14 * s["alpha_s"] + 1.75 * 2e9 / s["link_bytes_per_s"]
            self.assertAlmostEqual(j["outputs"]["time_s"], want, delta=1e-5 * want)
            # compare reads the file like any other results file; report draws busbw vs size.
            c = bb("compare", out, out)
            self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
            rep = bb("report", out, "--out", os.path.join(d, "report"))
            self.assertEqual(rep.returncode, 0, rep.stdout + rep.stderr)
            png = open(os.path.join(d, "report", "collectives_mpi_p2.png"), "rb").read()
            self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
            page = open(os.path.join(d, "report", "report.html")).read()
            self.assertRegex(page, r"mpi p=2: alpha [0-9.]+ us, link [0-9.]+ GB/s")


class Reliability(unittest.TestCase):

    @needs_mpi
    def test_watchdog_aborts_a_hung_collective(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "c.json")
            r = mpirun(2, "--quick", "--no-coverage", "--timeout", "3", "--simulate-hang", "1",
                       "--out", out, timeout=120)
            self.assertNotEqual(r.returncode, 0)
            line = next(l for l in r.stderr.splitlines() if "did not complete" in l)
            # Rank 1 first takes part at 2 ranks; it stops at its second size there.
            self.assertRegex(line, r"^boundbench collectives: error: all_reduce of \d+ bytes on 2 ranks")
            self.assertIn("within 3 s", line)
            doc = json.load(open(out))  # what was measured before the hang is kept
            self.assertFalse(doc["context"]["boundbench"]["complete"])
            self.assertEqual([e["params"]["ranks"] for e in doc["benchmarks"]][-1], 2)

    @needs_mpi
    def test_error_on_one_rank_ends_every_rank(self):
        # Only rank 0 writes the results: a name too long for its temporary file fails there alone.
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "x" * 248)
            r = mpirun(2, "--quick", "--no-coverage", "--op", "all_reduce", "--max-bytes", "64",
                       "--out", out, timeout=60)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("boundbench collectives: error: cannot write", r.stderr)
            self.assertIn("(rank 0)", r.stderr)

    @needs_mpi
    def test_ranks_with_different_arguments(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "c.json")
            r = mpirun(1, "--quick", "--max-bytes", "1Mi", "--out", out,
                       mpmd=["--quick", "--max-bytes", "2Mi", "--out", out], timeout=120)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("boundbench collectives: error: rank 1 was started with other arguments",
                          r.stderr)
            self.assertFalse(os.path.exists(out))  # nothing measured

    def test_bad_input(self):
        for args, needle in ((["--op", "all_reduce_please"], "unknown collective 'all_reduce_please'"),
                             (["--dtype", "fp8"], "unknown data type 'fp8'"),
                             (["--step-factor", "1"], "--step-factor"),
                             (["--min-bytes", "1Mi", "--max-bytes", "1Ki"], "--min-bytes"),
                             (["--max-bytes", "lots"], "not a number"),
                             (["--transport", "gloo"], "--transport"),
                             (["--min-bytes", "1Gi"], "--min-bytes is above the largest size")):
            r = bb("collectives", *args)
            self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
            first = r.stderr.splitlines()[0]
            self.assertIn("boundbench: error:", first)
            self.assertIn(needle, first)

    def test_nccl_without_gpu_says_why(self):
        r = bb("collectives", "--transport", "nccl", "--quick")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stderr.splitlines()[0], r"error: .*(no usable GPU|without NCCL)")


class NcclTestsComparison(unittest.TestCase):
    """ci/compare_nccl_tests.py: nccl-tests' table against a results file, size by size."""

    TABLE = """#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576        262144     float     sum      -1    30.00   34.95   61.17      0    29.80   35.19   61.58      0
     2097152        524288     float     sum      -1    40.00   52.43   91.75      0    39.90   52.56   91.98      0
     4194304       1048576     float     sum      -1    60.00   69.91  122.34      0    59.00   71.09  124.41      0
# Out of bounds values : 0 OK
"""

    def compare(self, scale, table=None):
        with tempfile.TemporaryDirectory() as d:
            t, j = os.path.join(d, "nccl.txt"), os.path.join(d, "c.json")
            open(t, "w").write(table if table is not None else self.TABLE)
            busbw = {1048576: 61.17e9, 2097152: 91.75e9, 4194304: 122.34e9}
            doc = {"benchmarks": [{"params": {"collective": "all_reduce", "transport": "nccl",
                                              "sweep": True, "in_place": False, "ranks": 8,
                                              "bytes": b}, "busbw_bytes_per_s": v * scale}
                                  for b, v in busbw.items()]}
            json.dump(doc, open(j, "w"))
            return subprocess.run([sys.executable, os.path.join(SRC, "ci", "compare_nccl_tests.py"),
                                   t, j, "--ranks", "8"], capture_output=True, text=True)

    def test_within_and_beyond_tolerance(self):
        r = self.compare(0.98)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("largest deviation 2.0%", r.stdout)
        self.assertEqual(self.compare(0.95).returncode, 1)
        self.assertEqual(self.compare(1.0, table="not nccl-tests output\n").returncode, 2)


if __name__ == "__main__":
    mpi_cli.main()
