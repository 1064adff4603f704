#!/usr/bin/env python3
"""Tests of the boundbench binary: CLI error paths, theory output, the no-GPU path, an interrupted run.

Usage: cli_test.py BOUNDBENCH [unittest args...]  (ctest runs one test method per ctest test)
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

BOUNDBENCH = None
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_fixtures as fx  # noqa: E402


def bb(*args, timeout=300):
    return subprocess.run([BOUNDBENCH, *args], capture_output=True, text=True, timeout=timeout)


class UsageErrors(unittest.TestCase):
    """Bad input: one line naming the problem, a usage hint, exit 2, nothing measured."""

    def assert_usage_error(self, args, needle):
        r = bb(*args)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        first = r.stderr.splitlines()[0]
        self.assertIn("boundbench: error:", first)
        self.assertIn(needle, first)
        self.assertIn("--help", r.stderr)
        self.assertNotIn("case 1/", r.stdout)  # nothing was measured

    def test_unknown_suite(self):
        self.assert_usage_error(["run", "--suite", "nope"], "unknown suite 'nope'")

    def test_unknown_backend(self):
        self.assert_usage_error(["run", "--backend", "gpu"], "--backend")

    def test_negative_repetitions(self):
        self.assert_usage_error(["run", "--repetitions", "-3"], "--repetitions")

    def test_malformed_number(self):
        self.assert_usage_error(["run", "--timeout", "soon"], "--timeout")

    def test_strict_with_malformed_number(self):
        # --strict changes what fails a run, not how bad input is told: one line, exit 2.
        self.assert_usage_error(["run", "--strict", "--timeout", "soon"], "--timeout")
        self.assert_usage_error(["run", "--repetitions", "x", "--strict"], "--repetitions")

    def test_bad_regex(self):
        self.assert_usage_error(["run", "--filter", "("], "--filter")

    def test_filter_matches_nothing(self):
        self.assert_usage_error(["run", "--backend", "host", "--filter", "^no-such-case$"],
                                "no case matches")

    def test_filter_matches_nothing_any_backend(self):
        # Without a GPU the CUDA backend is skipped; a mistyped filter must still be an error.
        self.assert_usage_error(["run", "--filter", "^no-such-case$"], "no case matches")

    def test_summary_same_as_out(self):
        with tempfile.TemporaryDirectory() as d:
            self.assert_usage_error(["run", "--out", os.path.join(d, "x.md")], "same file")

    def test_unwritable_out(self):
        self.assert_usage_error(["run", "--out", "/nonexistent-dir/x.json"], "does not exist")

    def test_out_is_directory(self):
        with tempfile.TemporaryDirectory() as d:
            self.assert_usage_error(["run", "--out", d], "is a directory")

    def test_passthrough_must_be_benchmark_flags(self):
        self.assert_usage_error(["run", "--quick", "--", "--oops"], "only Google Benchmark flags")

    def test_unknown_subcommand(self):
        r = bb("frobnicate")
        self.assertEqual(r.returncode, 2)

    def test_unknown_formula(self):
        self.assert_usage_error(["theory", "nope"], "unknown formula 'nope'")

    def test_theory_malformed_value(self):
        self.assert_usage_error(["theory", "ridge-point", "--peak-flop-per-s", "abc",
                                 "--bandwidth-bytes-per-s", "1e12"], "'abc' is not a number")

    def test_theory_negative_value(self):
        self.assert_usage_error(["theory", "stream-bytes", "--kernel", "triad", "--elements",
                                 "-5", "--element-bytes", "8"], "--elements")

    def test_theory_missing_value(self):
        self.assert_usage_error(["theory", "ridge-point", "--peak-flop-per-s", "1e15"],
                                "missing --bandwidth_bytes_per_s")

    def test_occupancy_threads_above_limit(self):
        self.assert_usage_error(["theory", "occupancy", "--arch", "sm_90", "--threads", "2048",
                                 "--regs", "32"], "1024 threads per block")

    def test_occupancy_smem_above_optin(self):
        self.assert_usage_error(["theory", "occupancy", "--arch", "sm_90", "--threads", "256",
                                 "--regs", "32", "--smem", "300KiB"], "227 KiB opt-in")

    def test_occupancy_unknown_arch(self):
        self.assert_usage_error(["theory", "occupancy", "--arch", "sm_99", "--threads", "256",
                                 "--regs", "32"], "'sm_99' is not one of")

    def test_theory_unknown_parameter(self):
        self.assert_usage_error(["theory", "ridge-point", "--peak-flop-per-s", "1e15",
                                 "--bandwidth-bytes-per-s", "1e12", "--colour", "red"],
                                "unknown parameter --colour")


class Theory(unittest.TestCase):
    def test_roofline_json(self):
        r = bb("theory", "roofline-time", "--flop", "1e12", "--bytes", "8e9",
               "--peak-flop-per-s", "1e15", "--bandwidth-bytes-per-s", "4e12", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)["outputs"]
        self.assertAlmostEqual(out["compute_time_s"], 1e-3)
        self.assertAlmostEqual(out["memory_time_s"], 2e-3)
        self.assertAlmostEqual(out["bound_time_s"], 2e-3)
        self.assertEqual(out["is_memory_bound"], 1)
        self.assertAlmostEqual(out["ridge_point_flop_per_byte"], 250)

    def test_occupancy_example(self):
        r = bb("theory", "occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64",
               "--smem", "48KiB", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)["outputs"]
        self.assertEqual(out["blocks_per_sm"], 4)
        self.assertEqual(out["occupancy_fraction"], 0.5)
        self.assertEqual(out["binding_limit"], "registers+shared_memory")

    def test_list_formulas(self):
        r = bb("theory")
        self.assertEqual(r.returncode, 0)
        for name in ["roofline-time", "arithmetic-intensity", "ridge-point", "attainable-flops",
                     "stream-bytes", "peak-dram-bandwidth", "peak-flops"]:
            self.assertIn(name, r.stdout)

    def test_peak_flops_h100(self):
        r = bb("theory", "peak-flops", "--arch", "sm_90", "--precision", "bf16", "--unit",
               "tensor_core", "--sms", "132", "--sm-clock-hz", "1.83e9", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        peak = json.loads(r.stdout)["outputs"]["peak_flop_per_s"]
        self.assertLess(abs(peak - 989.4e12) / 989.4e12, 0.01)

    def test_format_table(self):
        r = bb("theory", "format", "e4m3", "--json")  # the name as a bare first argument
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)["outputs"]
        self.assertEqual(out["max_finite"], 448)
        self.assertEqual(out["min_subnormal"], 2 ** -9)
        self.assertEqual(out["unit_roundoff"], 2 ** -4)
        r = bb("theory", "format", "fp6")
        self.assertEqual(r.returncode, 2)
        self.assertIn("'fp6' is not one of", r.stderr)

    def test_quant(self):
        r = bb("theory", "quant", "--min", "-1", "--max", "3", "--bits", "8", "--scheme",
               "asymmetric", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)["outputs"]
        self.assertAlmostEqual(out["scale"], 4 / 255)
        self.assertEqual(out["zero_point"], 64)
        r = bb("theory", "quant", "--min", "-1", "--max", "3", "--scheme", "asymmetric",
               "--group", "128", "--elements", "4096", "--json")
        out = json.loads(r.stdout)["outputs"]
        self.assertEqual(out["groups"], 32)
        self.assertAlmostEqual(out["bits_per_value"], 8 + 40 / 128)  # fp32 scale + 8-bit zero point
        r = bb("theory", "quant", "--min", "-1", "--max", "3", "--scheme", "symmetric",
               "--group", "100", "--elements", "4096")
        self.assertEqual(r.returncode, 2)
        self.assertIn("does not divide", r.stderr)
        for bad in (("-1", "3", "1"), ("-1", "3", "0"), ("5", "3", "8")):  # bits 1, 0; min > max
            r = bb("theory", "quant", "--min", bad[0], "--max", bad[1], "--bits", bad[2],
                   "--scheme", "symmetric")
            self.assertEqual(r.returncode, 2, bad)
            self.assertEqual(len(r.stderr.strip().splitlines()), 2, r.stderr)

    def test_quant_float(self):
        def outputs(*args):
            r = bb("theory", "quant-float", *args, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            return json.loads(r.stdout)["outputs"]
        # OCP's floor rule for amax 3.7 in FP4: 2^(1-2) = 0.5, and 7.4 > 6 clips by 0.7.
        out = outputs("--amax", "3.7", "--format", "e2m1", "--scheme", "mx-floor")
        self.assertEqual(out["scale"], 0.5)
        self.assertAlmostEqual(out["clipped_error"], 0.7)
        self.assertEqual(out["bits_per_value"], 4.25)  # E2M1 + an E8M0 per 32
        up = outputs("--amax", "3.7", "--format", "e2m1", "--scheme", "mx-round-up")
        self.assertEqual(up["scale"], 1.0)
        self.assertEqual(up["clipped_error"], 0)
        self.assertEqual(up["max_error"], 0.5)  # v 3.7 in [2, 4): step 1 x S 1, halved
        # fp8 per tensor with two binades of margin: s = 448 * 4 / 448.
        out = outputs("--amax", "448", "--format", "e4m3", "--scheme", "tensor", "--margin", "2")
        self.assertEqual(out["scale"], 4.0)
        self.assertEqual(out["unit_roundoff"], 2 ** -4)
        for bad in (("--amax", "1", "--format", "e4m3", "--scheme", "nvfp4"),
                    ("--amax", "1", "--format", "e2m1", "--scheme", "tensor"),
                    ("--amax", "0", "--format", "e4m3", "--scheme", "tensor"),
                    ("--amax", "1", "--format", "fp16", "--scheme", "tensor")):
            r = bb("theory", "quant-float", *bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertEqual(len(r.stderr.strip().splitlines()), 2, r.stderr)

    def test_gemm_error(self):
        r = bb("theory", "gemm-error", "--k", "1024", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)["outputs"]
        nu = 1024 * 2 ** -24
        self.assertAlmostEqual(out["bound_factor"] / (nu / (1 - nu)), 1, places=9)  # gamma_K
        self.assertEqual(out["input_rounding_term"], 0)
        self.assertLess(out["probabilistic_factor"], out["bound_factor"])
        r = bb("theory", "gemm-error", "--k", "1024", "--inputs", "tf32", "--json")
        self.assertEqual(json.loads(r.stdout)["outputs"]["input_rounding_term"],
                         2 * 2 ** -10 + 2 ** -20)
        r = bb("theory", "gemm-error", "--k", "1024", "--inputs", "fp8")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 2, r.stderr)


def gpu_usable():
    r = bb("info", "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["gpus"]["usable"], json.loads(r.stdout)["gpus"]["reason"]


class NoGpuPath(unittest.TestCase):
    def test_info_says_why(self):
        usable, reason = gpu_usable()
        r = bb("info")
        self.assertEqual(r.returncode, 0)
        if not usable:
            self.assertIn("GPU: none usable", r.stdout)
            self.assertTrue(reason)

    def test_info_shows_a_runs_measured_hierarchy(self):
        committed = os.path.join(SRC, "results", "cpu-ci-xeon-2vcpu-kvm", "run.json")
        r = bb("info", committed)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("measured (", r.stdout)
        self.assertIn("latency plateaus", r.stdout)
        self.assertRegex(r.stdout, r"L1: reported 48 KiB, detected [0-9.]+ KiB")
        j = json.loads(bb("info", "--json", committed).stdout)
        self.assertIn("latency", j["measured"]["host"])
        for bad in ("/nonexistent.json", __file__):
            r = bb("info", bad)
            self.assertEqual(r.returncode, 2)
            self.assertEqual(len(r.stderr.strip().splitlines()), 2, r.stderr)  # error + usage hint

    def test_cuda_backend_skips_with_reason(self):
        usable, reason = gpu_usable()
        if usable:
            self.skipTest("a GPU is usable here: the CUDA cases run instead")
        if not json.loads(bb("info", "--json").stdout)["gpus"]["built_with_cuda"]:
            self.skipTest("built without CUDA: there are no CUDA cases to skip")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            r = bb("run", "--backend", "cuda", "--quick", "--out", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            doc = json.load(open(out))
            self.assertTrue(doc["context"]["boundbench"]["complete"])
            self.assertEqual(doc["benchmarks"], [])
            skips = [c for c in doc["checks"] if c["name"] == "backend/cuda"]
            self.assertEqual(len(skips), 1)
            self.assertEqual(skips[0]["verdict"], "SKIP")
            self.assertIn(reason, skips[0]["reason"])


class RooflineFailure(unittest.TestCase):
    def test_faster_than_bound_fails_the_run(self):
        """A declared bound below what was measured (1 GB/s host DRAM) must FAIL the roofline check:
        a measurement faster than physically possible means miscounted bytes."""
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            args = ["run", "--quick", "--backend", "host", "--filter", "triad/fp32/host",
                    "--host-peak-bw", "1e9", "--out", out]
            r = bb(*args)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            doc = json.load(open(out))
            roof = [c for c in doc["checks"] if c["name"].endswith("/roofline")]
            self.assertEqual(len(roof), 1)
            self.assertEqual(roof[0]["verdict"], "FAIL")
            self.assertIn("miscounted", roof[0]["reason"])
            self.assertLess(roof[0]["measured"], roof[0]["predicted"])
            self.assertIn("FAIL bandwidth/triad/fp32/host/roofline", r.stdout)
            entry = doc["benchmarks"][0]
            self.assertGreater(entry["pct_of_peak_bandwidth"], 100)
            # --no-fail keeps the exit code at 0 and the verdict in the file.
            r = bb(*args, "--no-fail")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("FAIL", [c["verdict"] for c in json.load(open(out))["checks"]])


class Compare(unittest.TestCase):
    """compare on committed results: a copy made 1.5x slower must give SLOWER and exit 1."""
    RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results",
                           "cpu-ci-xeon-2vcpu-kvm", "run.json")

    def test_same_run_is_no_regression(self):
        r = bb("compare", self.RESULTS, self.RESULTS)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("no regression", r.stdout)

    def test_slower_copy_regresses(self):
        doc = json.load(open(self.RESULTS))
        for b in doc["benchmarks"]:
            for k in ("median_s", "min_s", "mean_s", "max_s", "real_time"):
                if k in b:
                    b[k] *= 1.5
        with tempfile.TemporaryDirectory() as d:
            slower = os.path.join(d, "slower.json")
            json.dump(doc, open(slower, "w"))
            md = os.path.join(d, "cmp.md")
            r = bb("compare", self.RESULTS, slower, "--markdown", md)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("SLOWER", r.stdout)
            self.assertIn("bandwidth/triad/fp64/host", open(md).read())
            j = json.loads(bb("compare", self.RESULTS, slower, "--json").stdout)
            self.assertTrue(j["regressed"])
            triad = [c for c in j["cases"] if c["name"] == "bandwidth/triad/fp64/host"][0]
            self.assertEqual(triad["verdict"], "SLOWER")
            self.assertAlmostEqual(triad["change"], 0.5)

    def test_bad_input_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            open(bad, "w").write('{"context": ')
            r = bb("compare", self.RESULTS, bad)
            self.assertEqual(r.returncode, 2)
            self.assertIn("bad.json: not valid JSON", r.stderr.splitlines()[0])


class Project(unittest.TestCase):
    """project (issue 29) between the committed Xeon and EPYC host runs, and its bad input."""
    RESULTS = os.path.join(SRC, "results")
    XEON = os.path.join(RESULTS, "cpu-ci-xeon-2vcpu-kvm", "run.json")
    EPYC = os.path.join(RESULTS, "cpu-ci-epyc-2vcpu-kvm", "run.json")

    def test_committed_runs_both_ways(self):
        for a, b in ((self.XEON, self.EPYC), (self.EPYC, self.XEON)):
            r = bb("project", a, "--to", b, "--json")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            j = json.loads(r.stdout)
            self.assertGreater(len(j["cases"]), 100)
            for c in j["cases"]:
                lo, hi = c["interval"]
                self.assertTrue(0 < lo <= c["predicted_s"] <= hi, c)
                self.assertTrue(c["limiter"])
            measured = [c for c in j["cases"] if "measured_s" in c]
            self.assertGreater(len(measured), 100)
            self.assertIsInstance(j["median_abs_error"], float)

    def test_bad_input_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            other = os.path.join(d, "other.json")
            doc = json.load(open(self.EPYC))
            doc["context"]["boundbench"]["schema_version"] = 99
            json.dump(doc, open(other, "w"))
            unmeasured = os.path.join(d, "unmeasured.json")
            doc = json.load(open(self.EPYC))
            doc["benchmarks"] = []
            json.dump(doc, open(unmeasured, "w"))
            for args, text in (((self.EPYC, "--to", "no-such-gpu"), "unknown device"),
                               ((self.EPYC, "--to", "H100-SXM"), "no CUDA case"),
                               ((other, "--to", self.EPYC), "schema version 99"),
                               ((unmeasured, "--to", self.EPYC), "no measured samples")):
                r = bb("project", *args)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertIn(text, r.stderr)

    def test_run_split_over_files(self):
        """Each simulated GPU's committed runs, split over files, projected as one run; files of
        two GPUs on one side are refused."""
        def files(config, names):
            return [os.path.join(self.RESULTS, "gpgpusim-" + config, n + ".json") for n in names]
        rtx = files("SM86_RTX3070", ("first-run", "run", "residency-run"))
        qv = files("SM7_QV100", ("first-run", "run", "strided-run", "residency-run"))
        s1 = "bandwidth/strided/fp32/cuda/s1"
        r = bb("project", *rtx, "--to", *qv, "--json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        j = json.loads(r.stdout)
        case = [c for c in j["cases"] if c["name"] == s1][0]
        # The simulated QV100 measured stride 1 in strided-run.json, STREAM in first-run.json.
        self.assertIn("measured_s", case)
        self.assertIn("measured bandwidth", case["method"])
        # RTX's first-run stride 1 (the former kernel) gives way to run.json's; residency-run's
        # failed validation supersedes nothing.
        self.assertIn(f"A: {s1}: measured in {rtx[0]} and {rtx[1]}; {rtx[1]}'s taken "
                      "(a later file supersedes)", j["notes"])
        self.assertIn(f"A: {s1}: {rtx[1]}'s measurement kept ({rtx[2]} ran it without one)",
                      j["notes"])
        r = bb("project", qv[0], "--to", rtx[0], "--to", rtx[1])  # --to repeated, text
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"B: {s1}: measured in {rtx[0]} and {rtx[1]}", r.stdout)
        r = bb("project", rtx[0], qv[1], "--to", *qv)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("are from different machines (GPU 'GPGPU-Sim timing SM86_RTX3070", r.stderr)


class Verdicts(unittest.TestCase):
    """The results file carries samples, robust statistics and check kinds; the validator re-judges
    each verdict from its interval and band; INCONCLUSIVE neither fails a run nor a comparison."""

    def test_strict_run_new_fields_and_rejudged_verdicts(self):
        validator = os.path.join(SRC, "ci", "validate_results.py")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            r = bb("run", "--quick", "--backend", "host", "--filter", "triad/fp32/host",
                   "--host-peak-bw", "1e15", "--strict", "--out", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("0 inconclusive, 0 below expectation", r.stdout)
            doc = json.load(open(out))
            self.assertEqual(doc["context"]["boundbench"]["schema_version"], 2)
            self.assertTrue(doc["context"]["boundbench"]["options"]["strict"])
            b = doc["benchmarks"][0]
            self.assertGreaterEqual(b["samples"], 5)
            self.assertEqual(len(b["samples_s"]), min(b["samples"], 1000))
            self.assertEqual(min(b["samples_s"]), b["min_s"])  # in the order taken: not sorted
            if b["samples"] >= 10:
                self.assertEqual(b["drift"]["samples"], len(b["samples_s"]))
            self.assertLessEqual(b["median_ci_low_s"], b["median_s"])
            self.assertGreaterEqual(b["median_ci_high_s"], b["median_s"])
            self.assertIn("rel_mad", b)
            roof = [c for c in doc["checks"] if c["name"].endswith("/roofline")][0]
            self.assertEqual(roof["kind"], "law")
            # PASS, or SKIP where the peak FLOP/s is unknown (a met partial bound proves little).
            self.assertIn(roof["verdict"], ("PASS", "SKIP"))
            self.assertLessEqual(roof["band_low"], roof["measured_low"])
            self.assertIsNone(roof["band_high"])
            r = subprocess.run(["/usr/bin/python3", validator, out, "--strict"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

            # A consistent INCONCLUSIVE check: valid, but not under --strict; compare is no
            # regression. A verdict its numbers do not give is invalid.
            noisy = dict(roof, name="noisy", verdict="INCONCLUSIVE", measured=2.0,
                         measured_low=1.5, measured_high=2.1, measured_coverage=0.95,
                         band_low=1.8, band_high=2.2)
            doc["checks"].append(noisy)
            changed = os.path.join(d, "changed.json")
            json.dump(doc, open(changed, "w"))
            r = subprocess.run(["/usr/bin/python3", validator, changed], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("1 INCONCLUSIVE", r.stdout)
            r = subprocess.run(["/usr/bin/python3", validator, changed, "--strict"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            r = bb("compare", out, changed)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("check bandwidth/noisy: - -> INCONCLUSIVE", r.stdout)
            doc["checks"][-1]["verdict"] = "PASS"
            json.dump(doc, open(changed, "w"))
            r = subprocess.run(["/usr/bin/python3", validator, changed], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("gives INCONCLUSIVE", r.stdout)

    def test_a_cache_sized_members_own_samples_and_rounds_kept_apart(self):
        # The host tiled attention sweep: one pairing group of 5 cache-sized members, each of
        # which takes its own samples after the rounds (back to back they are warmer than in their
        # rounds): pairing.own_samples, samples_s and the statistics of those only (alone =
        # samples), the rounds in round_samples_s. The validator refuses a count or a flag that
        # does not match. The group began with the whole spare pool (--spare 2) left.
        validator = os.path.join(SRC, "ci", "validate_results.py")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            r = bb("run", "--quick", "--backend", "host", "--filter",
                   "attention/tiled/fp32/host/d64/", "--spare", "2", "--no-fail", "--out", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            doc = json.load(open(out))
            members = [b for b in doc["benchmarks"] if "pairing" in b]
            self.assertEqual(len(members), 5)
            rounds = {b["pairing"]["rounds"] for b in members}
            self.assertEqual(len(rounds), 1)
            for b in members:
                p = b["pairing"]
                self.assertIs(p.get("own_samples"), True)
                self.assertEqual(p["alone"], b["samples"])
                self.assertEqual(len(b["round_samples_s"]), min(p["rounds"], 1000))
                self.assertEqual(len(b["samples_s"]), min(b["samples"], 1000))
                self.assertEqual(b["spare_left_s"], 2)
                self.assertTrue(0.95 <= p["confidence"] < 1, p["confidence"])
                self.assertTrue(b["min_s"] <= b["median_s"] <= b["max_s"])
                self.assertEqual(min(b["samples_s"]), b["min_s"])

            def validate(doc):
                return validate_file(validator, doc, os.path.join(d, "bad.json"))

            self.assertEqual(validate(doc).returncode, 0)
            b = members[0]
            b["pairing"]["alone"] += 1
            self.assert_refused(validate(doc), "(own_samples)")
            b["pairing"]["alone"] -= 1
            # Read as rounds followed by samples alone, the counts no longer add up.
            del b["pairing"]["own_samples"]
            self.assert_refused(validate(doc), "+ alone")
            b["pairing"]["own_samples"] = True
            b["round_samples_s"].append(b["round_samples_s"][-1])
            self.assert_refused(validate(doc), "round_samples_s holds")
            b["round_samples_s"].pop()
            self.assertEqual(validate(doc).returncode, 0)
            b["spare_left_s"] = 2.5
            self.assert_refused(validate(doc), "spare_left_s 2.5 outside")

    def test_a_groups_rounds_come_first_and_the_validator_holds_them_to_it(self):
        # The host strided reads: one pairing group whose members (working sets beyond the
        # last-level cache) continue their rounds: the rounds are the first samples, and a member
        # that went on alone has pairing.alone more. The validator refuses a count, a round or a
        # level that does not match.
        validator = os.path.join(SRC, "ci", "validate_results.py")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            r = bb("run", "--quick", "--backend", "host", "--filter",
                   "bandwidth/strided/fp64/host/s(1|2)$", "--no-fail", "--out", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            doc = json.load(open(out))
            members = [b for b in doc["benchmarks"] if "pairing" in b]
            self.assertEqual(len(members), 2)
            for b in members:
                p = b["pairing"]
                self.assertNotIn("own_samples", p)
                self.assertEqual(b["memory_level"], "dram")
                self.assertEqual(p["rounds"] + p["alone"], b["samples"])
                if b["samples"] <= 1000:
                    self.assertEqual(b["round_samples_s"], b["samples_s"][:p["rounds"]])
                if p["alone"] == 0:
                    self.assertEqual(p["confidence"], b["median_ci_confidence"])

            def validate(doc):
                return validate_file(validator, doc, os.path.join(d, "bad.json"))

            self.assertEqual(validate(doc).returncode, 0)
            b = members[0]
            b["pairing"]["alone"] += 1
            self.assert_refused(validate(doc), "+ alone")
            b["pairing"]["alone"] -= 1
            first = b["round_samples_s"][0]
            b["round_samples_s"][0] = first * 2 + 1
            self.assert_refused(validate(doc), "round_samples_s")
            b["round_samples_s"][0] = first
            self.assertEqual(validate(doc).returncode, 0)
            b["pairing"]["confidence"] -= 1e-3 if b["pairing"]["alone"] == 0 else -1e-3
            self.assert_refused(validate(doc), "pairing.confidence")

    def assert_refused(self, r, text):
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(text, r.stdout + r.stderr)


def validate_file(validator, doc, path):
    """ci/validate_results.py on `doc`, written to `path`."""
    json.dump(doc, open(path, "w"))
    return subprocess.run(["/usr/bin/python3", validator, path], capture_output=True, text=True)


class GoogleBenchmarkPassthrough(unittest.TestCase):
    def test_benchmark_out_writes_its_own_json(self):
        with tempfile.TemporaryDirectory() as d:
            gb = os.path.join(d, "gb.json")
            r = bb("run", "--suite", "harness", "--quick", "--out", os.path.join(d, "r.json"),
                   "--", "--benchmark_out=" + gb, "--benchmark_out_format=json")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            names = [b["name"] for b in json.load(open(gb))["benchmarks"]]
            self.assertTrue(any(n.startswith("harness/overhead/host") for n in names), names)


class Report(unittest.TestCase):
    def test_html_and_pngs(self):
        with tempfile.TemporaryDirectory() as d:
            slower = os.path.join(d, "slower.json")
            doc = json.load(open(Compare.RESULTS))
            for b in doc["benchmarks"]:
                b["median_s"] *= 1.5
            json.dump(doc, open(slower, "w"))
            out = os.path.join(d, "report")
            r = bb("report", Compare.RESULTS, slower, "--out", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            page = open(os.path.join(out, "report.html")).read()
            self.assertIn("data:image/png;base64,", page)  # self-contained
            self.assertIn("Intel(R) Xeon(R) Processor", page)
            # Each run by its file name; DRAM bandwidth is the best STREAM case, not an L1 read.
            self.assertIn("<td>run</td>", page)
            self.assertIn("<td>slower</td>", page)
            self.assertIn("host: 40.6 GB/s (nstream/fp32/host)", page)
            self.assertIn("before/after: slower vs run", page)
            self.assertRegex(page, r"host: L1 [0-9.]+ KiB / 48 KiB")  # detected / reported
            self.assertRegex(page, r"naive/fp32/host/d64: [0-9.]+")  # attention TFLOP/s column
            for name in ("roofline.png", "hierarchy_host.png", "attention_host.png",
                         "change_01.png"):
                png = open(os.path.join(out, name), "rb").read()
                self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
                self.assertGreater(len(png), 10000)

    def test_bad_input_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            r = bb("report", os.path.join(d, "missing.json"), "--out", d)
            self.assertEqual(r.returncode, 2)
            self.assertIn("missing.json: cannot be read", r.stderr)


class Interrupted(unittest.TestCase):
    def test_sigterm_leaves_valid_file(self):
        """SIGTERM during the second case: the file holds the first case and says incomplete."""
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            p = subprocess.Popen([BOUNDBENCH, "run", "--backend", "host", "--quick", "--out", out],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.time() + 240
            while time.time() < deadline and p.poll() is None:
                try:
                    if json.load(open(out))["benchmarks"]:
                        break
                except (OSError, ValueError):
                    pass  # not written yet (never half-written: the write is atomic)
                time.sleep(0.05)
            self.assertIsNone(p.poll(), "the run ended before it could be interrupted")
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=60)
            self.assertEqual(p.returncode, -signal.SIGTERM)
            doc = json.load(open(out))
            self.assertFalse(doc["context"]["boundbench"]["complete"])
            self.assertGreaterEqual(len(doc["benchmarks"]), 1)
            self.assertGreater(doc["benchmarks"][0]["samples"], 0)
            self.assertEqual([f for f in os.listdir(d) if ".tmp." in f], [])


class CompareSamples(unittest.TestCase):
    """compare from samples (small generated files): power, an outlier, no false alarms, machine
    identity, cross-device without a bound, and bad input."""
    COMMITTED = os.path.join(SRC, "results", "cpu-ci-xeon-2vcpu-kvm", "run.json")

    def compare(self, base, new, *extra):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, doc in (("base.json", base), ("new.json", new)):
                if isinstance(doc, str):
                    paths.append(doc)
                    continue
                paths.append(os.path.join(d, name))
                fx.dump(doc, paths[-1])
            r = bb("compare", *paths, *extra)
            j = None
            if r.returncode in (0, 1):
                j = json.loads(bb("compare", *paths, *extra, "--json").stdout)
            return r, j

    @staticmethod
    def verdicts(j):
        out = {}
        for c in j["cases"]:
            out[c["verdict"]] = out.get(c["verdict"], 0) + 1
        return out

    def test_power_every_timing_times_1_2(self):
        base, _ = fx.fixture_pair(n_cases=100, samples=6, noise=0.03, seed=2)
        r, j = self.compare(base, fx.scaled(base, 1.2))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertGreaterEqual(self.verdicts(j).get("SLOWER", 0), 90, self.verdicts(j))
        self.assertIn("REGRESSED", r.stdout)

    def test_outlier_case_doubled_is_slower(self):
        base, _ = fx.fixture_pair(n_cases=20, samples=12, noise=0.02, seed=3)
        b = base["benchmarks"][5]
        b["samples_s"][-1] *= 40  # one preempted sample: stddev/mean above 100%
        base = fx.run_doc([(x["name"], x["samples_s"]) for x in base["benchmarks"]])
        self.assertGreater(base["benchmarks"][5]["rel_noise"], 1.0)
        r, j = self.compare(base, fx.scaled(base, 2.0, only="s/c5"))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        verdict = {c["name"]: c["verdict"] for c in j["cases"]}
        self.assertEqual(verdict.pop("s/c5"), "SLOWER")
        self.assertNotIn("SLOWER", verdict.values())

    def test_sample_order_does_not_change_verdicts(self):
        """samples_s in the order taken (this version) or sorted (older files): compare sees only
        their distribution, also when it thins them (300 > 200 a side)."""
        base, again = fx.fixture_pair(n_cases=30, samples=300, noise=0.04, seed=8)
        new = fx.scaled(again, 1.3, only="s/c3")

        def sorted_doc(doc):
            return fx.run_doc([(b["name"], sorted(b["samples_s"])) for b in doc["benchmarks"]])

        self.assertNotEqual(base["benchmarks"][0]["samples_s"],
                            sorted(base["benchmarks"][0]["samples_s"]))
        r1, j1 = self.compare(base, new)
        r2, j2 = self.compare(sorted_doc(base), sorted_doc(new))
        self.assertEqual(r1.returncode, r2.returncode, r1.stdout + r2.stdout)
        self.assertEqual([(c["name"], c["verdict"]) for c in j1["cases"]],
                         [(c["name"], c["verdict"]) for c in j2["cases"]])
        for c1, c2 in zip(j1["cases"], j2["cases"]):  # the same up to summation order's rounding
            for k, v in c1.items():
                if isinstance(v, float):
                    self.assertAlmostEqual(v, c2[k], delta=1e-12 * max(1.0, abs(v)), msg=k)
        self.assertIn("SLOWER", self.verdicts(j1))

    def test_honest_rerun_no_alarm(self):
        base, again = fx.fixture_pair(n_cases=300, samples=10, noise=0.04, seed=4)
        r, j = self.compare(base, again)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        v = self.verdicts(j)
        self.assertEqual(v.get("SLOWER", 0) + v.get("FASTER", 0), 0, v)

    def test_other_machine_refused_then_cross_device(self):
        new = fx.run_doc([("bandwidth/triad/fp64/host", [1e-3] * 6)], l3_bytes=32 << 20)
        r, _ = self.compare(self.COMMITTED, new)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        first = r.stderr.splitlines()[0]
        self.assertIn("different machines", first)
        self.assertIn("caches.L3 480 MiB vs 32 MiB", first)
        self.assertIn("note: neither run has a machine fingerprint",
                      bb("compare", self.COMMITTED, self.COMMITTED).stdout)
        new["benchmarks"][0]["pct_of_bound"] = 60.0
        r, j = self.compare(self.COMMITTED, new, "--cross-device")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("machine differs: caches.L3 480 MiB vs 32 MiB", r.stdout)
        triad = [c for c in j["cases"] if c["name"] == "bandwidth/triad/fp64/host"][0]
        self.assertEqual(triad["verdict"], "NO_BOUND")  # the committed host run has no bound
        self.assertIsNone(triad["base"])
        self.assertNotIn("-1.0%", r.stdout)

    def test_bad_input_one_line_exit_2(self):
        base, again = fx.fixture_pair(n_cases=3, samples=6, seed=5)
        other_version = json.loads(json.dumps(base))
        other_version["context"]["boundbench"]["schema_version"] = 7
        other_machine = json.loads(json.dumps(again))
        other_machine["context"]["boundbench"]["fingerprint"]["cpu"]["microcode"] = "0x2"
        with tempfile.TemporaryDirectory() as d:
            good = os.path.join(d, "good.json")
            fx.dump(base, good)
            with open(good) as f:
                text = f.read()
            files = {"missing.json": None, "truncated.json": text[: len(text) // 2],
                     "foreign.json": json.dumps({"context": {"date": "x"}, "benchmarks": []}),
                     "version.json": json.dumps(other_version),
                     "machine.json": json.dumps(other_machine)}
            needles = {"missing.json": "cannot be read", "truncated.json": "not valid JSON",
                       "foreign.json": "not a boundbench results file",
                       "version.json": "schema version 7",
                       "machine.json": "cpu.microcode '0x1' vs '0x2'"}
            for name, content in files.items():
                path = os.path.join(d, name)
                if content is not None:
                    with open(path, "w") as f:
                        f.write(content)
                r = bb("compare", good, path)
                self.assertEqual(r.returncode, 2, name + r.stdout + r.stderr)
                lines = r.stderr.strip().splitlines()
                self.assertIn(needles[name], lines[0], name)
                self.assertEqual(len(lines), 2, r.stderr)  # the error and the usage hint
                self.assertEqual(r.stdout, "", name)


class Navigation(unittest.TestCase):
    def test_list_by_suite_and_filter(self):
        r = bb("list", "--suite", "bandwidth")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith("bandwidth:"), lines[0])
        self.assertTrue(all(x.startswith("  bandwidth/") for x in lines[1:]), lines[:5])
        r = bb("list", "--filter", "triad/fp64")
        self.assertEqual(r.returncode, 0, r.stderr)
        cases = [x for x in r.stdout.splitlines() if x.startswith("  ")]
        self.assertGreater(len(cases), 0)
        self.assertTrue(all("triad/fp64" in x for x in cases), cases)
        self.assertLess(len(r.stdout.splitlines()), 20)
        for args, needle in ((["--suite", "nope"], "unknown suite 'nope'"),
                             (["--filter", "("], "not a valid regex"),
                             (["--filter", "zzz-no-such"], "no case matches")):
            r = bb("list", *args)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn(needle, r.stderr.splitlines()[0])

    def test_theory_formula_help_lists_parameters_with_units(self):
        r = bb("theory", "roofline-time", "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"--flop +flop ")
        self.assertRegex(r.stdout, r"--bandwidth-bytes-per-s +bytes/s ")
        self.assertRegex(r.stdout, r"--peak-flop-per-s +flop/s ")
        self.assertIn("source:", r.stdout)
        r = bb("theory", "nope", "--help")
        self.assertEqual(r.returncode, 2)

    def test_info_versions_and_sizes(self):
        r = bb("info")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"CUDA: runtime (none|\d+\.\d+), driver (none|\d+\.\d+),")
        self.assertNotRegex(r.stdout, r"\d{4,} KiB")
        self.assertNotRegex(r.stdout, r"runtime \d{4,}")


def table_rows(md):
    """Each markdown table of `md` as a list of rows of cells (split on unescaped |)."""
    import re
    tables, current = [], []
    for line in md.splitlines() + [""]:
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
            current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


class Markdown(unittest.TestCase):
    """The run summary and the compare markdown render as GitHub tables (cmark-gfm -e table):
    every row has its table's column count and every check's law and reason survive intact."""

    def render(self, md):
        import html as html_mod
        import shutil
        exe = shutil.which("cmark-gfm")
        self.assertIsNotNone(exe, "cmark-gfm missing: apt-get install cmark-gfm (ci/setup.sh)")
        out = subprocess.run([exe, "-e", "table"], input=md, capture_output=True, text=True,
                             check=True).stdout
        return out, html_mod.unescape(out)

    def assert_tables_whole(self, md):
        tables = table_rows(md)
        self.assertGreater(len(tables), 0)
        for t in tables:
            for row in t:
                self.assertEqual(len(row), len(t[0]), row)
        html, text = self.render(md)
        self.assertEqual(html.count("<table>"), len(tables))
        import re
        for table in re.findall(r"<table>.*?</table>", html, re.S):
            heads = len(re.findall(r"<th[ >]", table))
            for tr in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]:
                self.assertEqual(len(re.findall(r"<td[ >]", tr)), heads)
        return text

    def test_summary_and_compare_render(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            r = bb("run", "--quick", "--backend", "host", "--filter",
                   "triad/fp32/host|copy/fp64/host$", "--out", out, "--label", "md-test")
            self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
            doc = json.load(open(out))
            self.assertEqual(doc["context"]["boundbench"]["label"], "md-test")
            self.assertIn("fingerprint", doc["context"]["boundbench"])
            # A reason and a law with the characters that break cells.
            md = open(os.path.join(d, "r.md")).read()
            text = self.assert_tables_whole(md)
            for c in doc["checks"]:
                if c["verdict"] != "SKIP":
                    self.assertIn(c["law"], text)
                    self.assertIn(c["reason"].replace("\n", " "), text)
            self.assertRegex(md, r"\| \*\*all\*\* \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \|")
            # SKIPs with one reason: one row with the count.
            reasons = [c["reason"] for c in doc["checks"] if c["verdict"] == "SKIP"]
            for reason in set(reasons):
                self.assertEqual(sum(1 for line in md.splitlines()
                                     if line.endswith("| " + reason.replace("|", "\\|") + " |")), 1)
            cmp_md = os.path.join(d, "c.md")
            r = bb("compare", out, out, "--markdown", cmp_md)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assert_tables_whole(open(cmp_md).read())


if __name__ == "__main__":
    BOUNDBENCH = os.path.abspath(sys.argv.pop(1))
    unittest.main()
