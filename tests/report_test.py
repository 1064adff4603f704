#!/usr/bin/env python3
"""Tests of ci/report.py on the committed CI-VM results (no binary needed): which figures exist,
that each legend and headline names its runs by their short labels, that the DRAM headline is the
best STREAM case (not a cache read), the roofline's roofs and rings, precision sweeps as error over
bound, the before/after view's intervals, and bad input (one line, exit 2).

Usage: report_test.py [unittest args...]  (ctest runs one class per ctest test)
The report runs under $BOUNDBENCH_PYTHON, else this interpreter if it has matplotlib, else
/usr/bin/python3 (Debian's, with python3-matplotlib), as `boundbench report` chooses.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
REPORT = os.path.join(SRC, "ci", "report.py")
RESULTS = os.path.join(SRC, "results", "cpu-ci-xeon-2vcpu-kvm")


def python_with_matplotlib():
    for p in (os.environ.get("BOUNDBENCH_PYTHON"), sys.executable, "/usr/bin/python3"):
        if p and subprocess.run([p, "-c", "import matplotlib, numpy"],
                                capture_output=True).returncode == 0:
            return p
    raise unittest.SkipTest("no python3 with matplotlib and numpy")


def report(*args):
    return subprocess.run([python_with_matplotlib(), REPORT, *args], capture_output=True,
                          text=True, timeout=600)


def schema2(doc, label=None, factor=1.0):
    """The run as schema 2 would carry it: 21 samples per case spread +/-2% around the median
    (times factor), sorted, with the median's order-statistic interval; a label if given."""
    doc = copy.deepcopy(doc)
    doc["context"]["boundbench"]["schema_version"] = 2
    if label is not None:
        doc["label"] = label
    for b in doc["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        m = b["median_s"] * factor
        b["samples_s"] = [m * (1 + 0.04 * (i / 20 - 0.5)) for i in range(21)]
        b["samples"] = 21
        b["median_s"], b["min_s"], b["max_s"] = m, b["samples_s"][0], b["samples_s"][-1]
        b["median_ci_low_s"], b["median_ci_high_s"] = b["samples_s"][5], b["samples_s"][15]
        for rate, work in (("bytes_per_s", "bytes"), ("flop_per_s", "flop")):
            if rate in b:
                b[rate] = b.get(work, 0) / m
    return doc


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def load(path):
    return json.loads(read(path))


def write(d, name, doc):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


class ReportFigures(unittest.TestCase):
    """Three runs: the committed one (named by its file), a schema 2 copy labelled 'base' and a
    1.5x slower schema 2 copy labelled 'slow', plus the committed 2-rank collectives run."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        doc = load(os.path.join(RESULTS, "run.json"))
        cls.paths = [os.path.join(RESULTS, "run.json"),
                     write(d, "b.json", schema2(doc, "base")),
                     write(d, "s.json", schema2(doc, "slow", 1.5)),
                     os.path.join(RESULTS, "collectives-mpi-np2.json")]
        cls.out = os.path.join(d, "out")
        cls.r = report(*cls.paths, "--out", cls.out)
        cls.manifest = load(os.path.join(cls.out, "report.json")) \
            if cls.r.returncode == 0 else None
        cls.page = read(os.path.join(cls.out, "report.html")) if cls.manifest else ""

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.r.returncode, 0, self.r.stdout + self.r.stderr)

    def figure(self, name):
        return next(f for f in self.manifest["figures"] if f["file"] == name)

    def test_the_figures(self):
        files = sorted(f["file"] for f in self.manifest["figures"])
        self.assertEqual(files, sorted([
            "roofline.png", "hierarchy_host.png", "sweep_00_bandwidth_intensity_host.png",
            "sweep_01_bandwidth_strided_host.png", "sweep_02_precision_summation_host.png",
            "gemm_error_vs_k.png", "attention_host.png", "collectives_mpi_p2.png",
            "change_01.png", "change_02.png"]))
        self.assertEqual(self.page.count('src="data:image/png;base64,'), len(files))
        for f in files:
            png = read(os.path.join(self.out, f), "rb")
            self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n", f)
            self.assertGreater(len(png), 10000, f)

    def test_labels_on_every_legend_and_headline(self):
        labels = ["run", "base", "slow", "collectives-mpi-np2"]
        self.assertEqual([h["label"] for h in self.manifest["runs"]], labels)
        for f in self.manifest["figures"]:
            self.assertTrue(f["runs"], f["file"])
            for label in f["runs"]:
                self.assertTrue(any(label in t for t in f["legend"]),
                                f"{f['file']}: no legend entry names {label}: {f['legend']}")
        for label in labels:
            self.assertIn(f"<td>{label}</td>", self.page)

    def test_dram_headline_is_the_best_stream_case(self):
        run = self.manifest["runs"][0]
        self.assertEqual(run["dram"]["host"]["case"], "nstream/fp32/host")
        self.assertAlmostEqual(run["dram"]["host"]["bytes_per_s"] / 1e9, 40.56, places=1)
        self.assertIn("host: 40.6 GB/s (nstream/fp32/host)", self.page)
        # The caches apart: L1 reads are an order of magnitude above DRAM.
        cache = {c["level"]: c["bytes_per_s"] for c in run["cache"]["host"]}
        self.assertEqual(sorted(cache), ["L1", "L2", "L3"])
        self.assertGreater(cache["L1"], 10 * run["dram"]["host"]["bytes_per_s"])
        self.assertGreater(cache["L1"], cache["L2"])

    def test_roofline_roofs_and_points_above_them(self):
        legend = self.figure("roofline.png")["legend"]
        self.assertTrue(any(t.startswith("STREAM 40.6 GB/s, measured") for t in legend), legend)
        self.assertTrue(any(t.startswith("L1 read") for t in legend), legend)
        # One compute roof per precision: fp32's is twice fp64's (the fp32 points were read
        # against the fp64 roof before); on this VM the clock is not the max, so no bound.
        self.assertTrue(any(t.startswith("fp64 peak 166 GFLOP/s (estimate") for t in legend))
        self.assertTrue(any(t.startswith("fp32 peak 333 GFLOP/s (estimate") for t in legend))
        above = [t for t in legend if t.startswith("above an estimated peak")]
        self.assertEqual(len(above), 1, legend)
        self.assertEqual(self.manifest["violations"], [])

    def test_precision_sweep_is_error_over_bound(self):
        f = self.figure("sweep_02_precision_summation_host.png")
        self.assertIn("worst error over its bound", f["title"])
        self.assertIn("the bound (= 1)", f["legend"])
        for alg in ("kahan", "pairwise", "recursive"):
            self.assertTrue(any(t.startswith(alg) for t in f["legend"]), f["legend"])

    def test_before_after_finds_the_slowdown(self):
        changes = self.manifest["changes"]
        self.assertEqual([c["title"] for c in changes],
                         ["before/after: base vs run", "before/after: slow vs run"])
        slow = changes[1]["cases"]
        self.assertGreater(len(slow), 200)
        # Against the schema 1 run only the medians are known: no interval, no class.
        self.assertTrue(all(c["class"] == "no interval" for c in slow))
        # base vs slow: a third report, two schema 2 runs.

    def test_before_after_with_samples(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "o")
            r = report(self.paths[1], self.paths[2], "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            m = load(os.path.join(out, "report.json"))
            cases = m["changes"][0]["cases"]
            self.assertTrue(all(c["method"] == "hodges-lehmann" for c in cases))
            self.assertTrue(all(c["class"] == "slower" for c in cases))
            for c in cases:
                self.assertAlmostEqual(c["ratio"], 1.5, delta=1e-9)
                self.assertLess(c["low"], 1.5)
                self.assertGreater(c["high"], 1.5)
            self.assertRegex(read(os.path.join(out, "report.html")), r"slower \d+")


class ReportHierarchicalRoofline(unittest.TestCase):
    """The hierarchical roofline's data (reportlib/hierarchical.py), not its pixels, for the
    committed 1-thread bound run: its ceilings are the capacities its bounds used, which are the
    run's own figures (the read plateaus, STREAM's best, the FMA ceiling), and its points are
    worked by hand from two entries."""

    def test_ceilings_and_points(self):
        run = os.path.join(SRC, "results", "bound", "vm-1thread-taskset-quick.json")
        r = subprocess.run(
            [python_with_matplotlib(), "-c",
             f"import sys, json; sys.path.insert(0, {os.path.dirname(REPORT)!r}); "
             "from reportlib.runs import load; "
             "from reportlib.hierarchical import hierarchical_data; "
             f"print(json.dumps(hierarchical_data(load({run!r}), 'host')))"],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        data = json.loads(r.stdout)
        figures = load(run)["figures"]["bandwidth"]["host"]
        plateaus = figures["read_bandwidth"]["plateaus"]
        levels = data["levels"]
        self.assertEqual(sorted(levels), ["L1", "L2", "L3", "dram"])
        for name, plateau in zip(("L1", "L2", "L3"), plateaus):
            self.assertAlmostEqual(levels[name]["bytes_per_s"] / plateau["bytes_per_s"], 1, 12)
            self.assertEqual(levels[name]["source"], "measured")
        # DRAM: STREAM's best, 12.0135 GB/s (nstream); the fp64 roof: the FMA chain's 24.015
        # GFLOP/s, fp32 twice it (the quick run measured fp64 only).
        self.assertAlmostEqual(levels["dram"]["bytes_per_s"] / 12013513395.051952, 1, 12)
        fp64 = figures["ceilings"]["fp64"]["flop_per_s"]
        self.assertAlmostEqual(data["roofs"]["fp64"]["flop_per_s"] / fp64, 1, 12)
        self.assertAlmostEqual(data["roofs"]["fp32"]["flop_per_s"] / (2 * fp64), 1, 12)
        # STREAM triad fp64, 768 MiB past the caches: 2 flop per 24 bytes, a point at each of
        # L1, L2, L3 and DRAM at 1/12 flop/byte and 67,108,864 flop / 87.786879 ms; at DRAM it
        # could reach 12.0135 GB/s x 1/12 = 1.00113 GFLOP/s.
        triad = [p for p in data["points"] if p["case"] == "bandwidth/triad/fp64/host"]
        self.assertEqual([p["level"] for p in triad], ["L1", "L2", "L3", "dram"])
        for p in triad:
            self.assertAlmostEqual(p["intensity"], 1 / 12, 15)
            self.assertAlmostEqual(p["flop_per_s"] / (67108864 / 0.087786879), 1, 12)
        self.assertAlmostEqual(triad[-1]["attainable"] / (12013513395.051952 / 12), 1, 12)
        # A 32 KiB read (L1-resident): one point, at L1, 1 add per 8 bytes.
        read = [p for p in data["points"] if p["case"] == "bandwidth/read-sweep/host/32768"]
        self.assertEqual([(p["level"], p["intensity"]) for p in read], [("L1", 0.125)])


class ReportIntervals(unittest.TestCase):
    """The change interval itself, by importing report.py in the matplotlib interpreter."""

    def run_py(self, code):
        r = subprocess.run([python_with_matplotlib(), "-c",
                            f"import sys; sys.path.insert(0, {os.path.dirname(REPORT)!r}); "
                            "import report, json; " + code],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_hodges_lehmann(self):
        # Equal samples scaled by 1.2: the shift is exactly log 1.2 and the interval holds it.
        got = self.run_py("base = [1 + 0.01 * i for i in range(30)]; "
                          "print(json.dumps(report.hodges_lehmann_ratio(base, "
                          "[1.2 * x for x in base])))")
        self.assertAlmostEqual(got[0], 1.2, places=9)
        self.assertLess(got[1], 1.2)
        self.assertGreater(got[2], 1.2)
        self.assertLess(got[2] / got[1], 1.12)  # +/-5%: 30 samples spread 29%
        # Identical runs with one outlier each: ratio 1, interval narrow and around 1.
        got = self.run_py("base = [1 + 0.001 * i for i in range(50)] + [9.0]; "
                          "print(json.dumps(report.hodges_lehmann_ratio(base, base)))")
        self.assertAlmostEqual(got[0], 1.0, places=9)
        self.assertTrue(got[1] < 1 < got[2] and got[2] - got[1] < 0.03, got)
        # Below two samples a side there is no interval.
        self.assertIsNone(self.run_py("print(json.dumps(report.hodges_lehmann_ratio([1], [2])))"))

    def test_classes(self):
        got = self.run_py("print(json.dumps([report.classify(*iv) for iv in "
                          "[(1.1, 1.3), (0.7, 0.9), (0.97, 1.04), (0.98, 1.2), (None, None)]]))")
        self.assertEqual(got, ["slower", "faster", "same", "ambiguous", "no interval"])


class ReportInputs(unittest.TestCase):
    def test_label_field_else_file_name_and_fallbacks(self):
        """A label wins over the file name; without figures the DRAM headline still comes from a
        DRAM-resident STREAM kernel, never a cache read; a clock that is the max makes the host
        estimate a bound, so the points above it become violations."""
        doc = load(os.path.join(RESULTS, "run.json"))
        doc["label"] = "labelled"
        doc.pop("figures")
        doc["context"]["boundbench"]["host"]["clock_is_max"] = True
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "o")
            r = report(write(d, "x.json", doc), os.path.join(RESULTS, "run.json"), "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            m = load(os.path.join(out, "report.json"))
            self.assertEqual([h["label"] for h in m["runs"]], ["labelled", "run"])
            self.assertEqual(m["runs"][0]["dram"]["host"]["case"], "nstream/fp32/host")
            self.assertEqual(m["runs"][0]["cache"]["host"], [])
            self.assertEqual(len(m["violations"]), 8, m["violations"])
            self.assertTrue(all(v.startswith("labelled: bandwidth/intensity/")
                                for v in m["violations"]))
            roof = next(f for f in m["figures"] if f["file"] == "roofline.png")
            self.assertIn("above its own bound: 8 (violation)", roof["legend"])

    def test_gpu_run_beside_a_host_run(self):
        """A GPU run (the host run's cases moved to backend cuda on an H200-like device): its own
        roofline with the datasheet slope and table roofs per precision; a case above its bound
        (pct_of_bound 150) ringed red and listed; the host run keeps its roofline."""
        doc = load(os.path.join(RESULTS, "run.json"))
        doc["context"]["boundbench"]["gpus"] = {
            "usable": True, "devices": [{
                "name": "NVIDIA H200", "peak_dram_bytes_per_s": 4.8e12, "l2_bytes": 50331648,
                "peak_cuda_core_flop_per_s": {"fp64": 34e12, "fp32": 67e12},
                "peak_tensor_flop_per_s": {"fp64": 67e12, "tf32": 495e12}}]}
        for b in doc["benchmarks"]:
            b["backend"] = "cuda"
        intensity = next(b for b in doc["benchmarks"]
                         if b["name"] == "bandwidth/intensity/fp32/host/k1024")
        intensity["pct_of_bound"] = 150.0
        doc["figures"]["bandwidth"] = {"cuda": doc["figures"]["bandwidth"]["host"]}
        doc["label"] = "h200"
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "o")
            r = report(os.path.join(RESULTS, "run.json"), write(d, "g.json", doc), "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            m = load(os.path.join(out, "report.json"))
            files = [f["file"] for f in m["figures"]]
            self.assertIn("roofline_0_host.png", files)
            gpu = next(f for f in m["figures"] if f["file"] == "roofline_1_cuda.png")
            self.assertEqual(gpu["runs"], ["h200"])
            self.assertIn("DRAM datasheet 4800 GB/s", gpu["legend"])
            self.assertIn("fp64 peak 67 TFLOP/s (datasheet)", gpu["legend"])
            self.assertIn("fp32 peak 67 TFLOP/s (datasheet)", gpu["legend"])
            self.assertIn("above its own bound: 1 (violation)", gpu["legend"])
            self.assertEqual(len(m["violations"]), 1)
            self.assertTrue(m["violations"][0].startswith(
                "h200: bandwidth/intensity/fp32/host/k1024"), m["violations"])
            self.assertIn("Above their own bound:", read(os.path.join(out, "report.html")))
            self.assertEqual(m["runs"][1]["dram"]["cuda"]["case"], "nstream/fp32/host")

    def test_fingerprints_that_differ_are_named(self):
        doc = load(os.path.join(RESULTS, "run.json"))
        a, b = schema2(doc, "a"), schema2(doc, "b", 1.2)
        a["fingerprint"] = {"cpu": {"model": "x", "l3_bytes": 480}, "memory_bytes": 1}
        b["fingerprint"] = {"cpu": {"model": "x", "l3_bytes": 260}, "memory_bytes": 1}
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "o")
            r = report(write(d, "a.json", a), write(d, "b.json", b), "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            change = next(f for f in load(os.path.join(out, "report.json"))["figures"]
                          if f["file"] == "change_01.png")
            self.assertIn("Different machines (fingerprints differ in cpu)", change["caption"])

    def test_same_file_names_get_told_apart(self):
        with tempfile.TemporaryDirectory() as d:
            doc = load(os.path.join(RESULTS, "run.json"))
            os.makedirs(os.path.join(d, "a"))
            os.makedirs(os.path.join(d, "b"))
            out = os.path.join(d, "o")
            r = report(write(d, "a/run.json", doc), write(d, "b/run.json", doc), "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            m = load(os.path.join(out, "report.json"))
            self.assertEqual([h["label"] for h in m["runs"]], ["a/run", "b/run"])

    def test_bad_input_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            doc = load(os.path.join(RESULTS, "run.json"))
            bad = copy.deepcopy(doc)
            bad["context"]["boundbench"]["schema_version"] = 3
            cases = {
                os.path.join(d, "missing.json"): "cannot be read",
                write(d, "foreign.json", {"benchmarks": []}): "not a boundbench results file",
                write(d, "schema.json", bad): "schema version 3",
            }
            odd = copy.deepcopy(doc)
            odd["benchmarks"][0]["params"] = "oops"
            cases[write(d, "odd.json", odd)] = "malformed results (AttributeError"
            odd = copy.deepcopy(doc)
            odd["checks"] = 7
            cases[write(d, "odd2.json", odd)] = "odd2.json: malformed results (TypeError"
            trunc = os.path.join(d, "trunc.json")
            with open(trunc, "w") as f:
                f.write(json.dumps(doc)[:5000])
            cases[trunc] = "not valid JSON"
            for path, needle in cases.items():
                r = report(path, "--out", os.path.join(d, "o"))
                self.assertEqual(r.returncode, 2, path)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertRegex(r.stderr, "^report: error: .*" + re.escape(needle))


if __name__ == "__main__":
    unittest.main()
