#!/usr/bin/env python3
"""The GPU job, tested without a GPU: the workflow's steps rehearsed (ci/gpu_dryrun.py) reach
ci/gpu_run.sh and its files come back; gpu_run.sh's guards (driver, stale sanitizer exclusions),
its budget rule, the workflow's time budget and the ctest GPU lock.

  gpu_ci_test.py BUILD_DIR CLASS     (BUILD_DIR: a CUDA build tree, e.g. build/ci)
"""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import yaml

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = None
# The device tool returns at most 8 files, named in letters, digits, '.', '_' and '-'.
MAX_FILES = 8
NAME_OK = re.compile(r"^[A-Za-z0-9._-]+$")


def read(path):
    with open(path) as f:
        return f.read()


def gpu_test_names():
    out = subprocess.run([os.path.join(BUILD, "tests", "gpu_test"), "--gtest_list_tests"],
                         capture_output=True, text=True, check=True).stdout
    names, suite = [], ""
    for line in out.splitlines():
        if not line.startswith(" "):
            suite = line.split()[0]
        else:
            names.append(suite + line.split()[0])
    return names


class DryRun(unittest.TestCase):
    """The workflow's steps, run here without a GPU: the bundle is packed, gpu_run.sh runs every
    step, and its files come back."""

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="gpu-dryrun-")
        cls.proc = subprocess.run([sys.executable, os.path.join(SRC, "ci", "gpu_dryrun.py"), BUILD,
                                   cls.work], capture_output=True, text=True, timeout=900)
        print(cls.proc.stdout, cls.proc.stderr[-3000:], sep="\n")
        path = os.path.join(cls.work, "dryrun.json")
        cls.doc = json.loads(read(path)) if os.path.exists(path) else {"steps": []}
        cls.results = os.path.join(cls.work, "gpu-results")
        log = os.path.join(cls.results, "gpu_run.log")
        cls.log = read(log) if os.path.exists(log) else ""

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def step(self, needle):
        found = [s for s in self.doc["steps"] if needle in s.get("command", "")]
        self.assertEqual(len(found), 1, f"one workflow step runs {needle}: {self.doc['steps']}")
        return found[0]

    def test_every_step_ran_and_passed(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout)
        self.assertTrue(self.doc["ok"])
        ran = [s["name"] for s in self.doc["steps"] if "exit" in s]
        self.assertGreaterEqual(len(ran), 4, ran)  # bundle, gpu_run, summary, JUnit
        self.assertTrue(all(s["exit"] == 0 for s in self.doc["steps"] if "exit" in s))

    def test_the_bundle_comes_before_gpu_run_and_gpu_run_is_reached(self):
        names = [s.get("command", "") for s in self.doc["steps"]]
        bundle = next(i for i, c in enumerate(names) if "ci/bundle.sh" in c)
        gpu_run = next(i for i, c in enumerate(names) if "gpu_run.sh" in c)
        self.assertLess(bundle, gpu_run)
        self.assertEqual(self.step("ci/bundle.sh")["exit"], 0)
        self.assertEqual(self.step("gpu_run.sh")["exit"], 0)
        self.assertTrue(os.access(os.path.join(self.work, "bundle", "ci", "gpu_run.sh"), os.X_OK))

    def test_the_files_come_back_within_the_device_tools_limit(self):
        files = sorted(os.listdir(self.results))
        for f in files:
            self.assertTrue(os.path.isfile(os.path.join(self.results, f)), f)
            self.assertRegex(f, NAME_OK)
        self.assertLessEqual(len(files), MAX_FILES, files)
        # report.html needs measured cases: not here (the report step says so in the log).
        for f in ("gpu_run.log", "gpu_test.xml", "run.json", "run.md"):
            self.assertIn(f, files)
            self.assertGreater(os.path.getsize(os.path.join(self.results, f)), 0, f)
        upload = next(s for s in self.doc["steps"] if "upload-artifact" in s.get("uses", ""))
        self.assertEqual(upload["files"], files)
        self.assertTrue(read(os.path.join(self.work, "summary.md")).strip())

    def test_the_preflight_comes_first_and_says_what_stops_a_gpu_runner(self):
        first_step = self.log.index("=== info")
        preflight = self.log[:first_step]
        self.assertIn("the binaries link CUDA 13, which needs an NVIDIA driver R580+", preflight)
        self.assertRegex(preflight, r"ldd .*/bin/boundbench:")
        self.assertRegex(preflight, r"libcublas\.so\.13 => /\S+/libcublas\.so\.13")
        self.assertIn("libnccl.so.2 (dlopen): resolves", preflight)
        self.assertNotIn("=> not found", preflight)  # every library ldd looks for resolves
        # Without a driver, the one thing that would stop a GPU runner, said on one line.
        stop = [l for l in preflight.splitlines() if "a GPU runner would stop here" in l]
        if shutil.which("nvidia-smi") is None:
            self.assertEqual(len(stop), 1, preflight)
            self.assertEqual(stop[0], "gpu_run: dry run: a GPU runner would stop here: "
                             "no NVIDIA driver here (nvidia-smi not found)")
        else:
            self.assertLessEqual(len(stop), 1, preflight)
            self.assertNotIn("sanitizer exclusion", "".join(stop))

    def test_the_sanitizer_exclusions_name_real_tests(self):
        names = gpu_test_names()
        counts = re.findall(r"sanitizers leave out (\S+): (\d+) tests", self.log)
        self.assertGreaterEqual(len(counts), 5, counts)
        for pattern, n in counts:
            self.assertGreater(int(n), 0, pattern)
        kept = int(re.search(r"sanitizers run (\d+) tests of gpu_test", self.log).group(1))
        self.assertLess(kept, len(names))
        self.assertGreater(kept, len(names) // 2)

    def test_gpu_test_ran_as_one_process_and_every_test_skipped_with_the_reason(self):
        root = ET.parse(os.path.join(self.results, "gpu_test.xml")).getroot()
        cases = root.findall(".//testcase")
        self.assertEqual(len(cases), len(gpu_test_names()))
        self.assertEqual(int(root.get("failures")), 0)
        self.assertEqual(int(root.get("errors", 0)), 0)
        # GpuAbsent.* and the argument tests run without a GPU; the others skip, saying why.
        skipped = [c for c in cases if c.find("skipped") is not None]
        self.assertGreater(len(skipped), len(cases) // 2)
        for c in skipped:
            self.assertIn("no usable GPU", c.find("skipped").get("message", ""), c.get("name"))

    def test_what_needs_a_gpu_is_reported_as_such_and_nothing_else_failed(self):
        last = self.log.rstrip().splitlines()[-1]
        self.assertTrue(last.startswith("gpu_run: 0 failed"), last)
        cannot = re.search(r"cannot run without a GPU: (.*)$", last).group(1).split()
        self.assertIn("gpu_usable", cannot)
        self.assertIn("cuda_cases_ran", cannot)
        # Steps that need a usable GPU, or the CUDA cases measured on one (report, validate).
        needs_gpu = {"gpu_usable", "cuda_cases_ran", "report", "validate", "collectives",
                     "strategies_nccl_synthetic", "strategies_nccl_gemm", "torch_peer",
                     "memcheck", "racecheck"}
        self.assertLessEqual(set(cannot), needs_gpu)
        for must_pass in ("info", "gpu_test", "run"):
            self.assertRegex(self.log, rf"=== {must_pass}: exit 0 in", must_pass)
        self.assertNotIn("skipped for the budget", last)

    def test_run_json_says_the_cuda_backend_was_skipped_and_why(self):
        doc = json.loads(read(os.path.join(self.results, "run.json")))
        skip = [c for c in doc["checks"] if c["name"] == "backend/cuda"]
        self.assertEqual(len(skip), 1)
        self.assertEqual(skip[0]["verdict"], "SKIP")


def run_gpu_run(env_extra, out):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", BB_BUDGET_S="60")
    env.update(env_extra)
    return subprocess.run(["bash", os.path.join(SRC, "ci", "gpu_run.sh"), BUILD, out],
                          capture_output=True, text=True, env=env, timeout=300)


class GpuRunGuards(unittest.TestCase):
    """gpu_run.sh stops before any device time, with one line saying why."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gpu-run-guard-")
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fake_nvidia_smi(self, version):
        d = os.path.join(self.tmp, "fakebin")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "nvidia-smi")
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\necho {version}\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return d + os.pathsep + os.environ["PATH"]

    def stale_exclusions(self):
        path = os.path.join(self.tmp, "exclude.txt")
        shutil.copy(os.path.join(SRC, "ci", "gpu_sanitizer_exclude.txt"), path)
        with open(path, "a") as f:  # the pattern that rotted once: it matches no test any more
            f.write("GpuAttention.NaiveAndFused*  the naive and fused tests, once one test\n")
        return path

    def assert_stopped(self, r, *why):
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        line = [l for l in r.stderr.splitlines() if l.startswith("gpu_run: cannot run here")]
        self.assertEqual(len(line), 1, r.stderr)
        for w in why:
            self.assertIn(w, line[0])
        log = read(os.path.join(self.out, "gpu_run.log"))
        self.assertNotIn("=== info", log)  # nothing ran
        return line[0]

    def test_an_old_driver_stops_the_run(self):
        r = run_gpu_run({"PATH": self.fake_nvidia_smi("570.86.15")}, self.out)
        self.assert_stopped(r, "driver 570.86.15 is older than R580, which CUDA 13 needs")

    def test_a_stale_sanitizer_exclusion_stops_the_run(self):
        r = run_gpu_run({"PATH": self.fake_nvidia_smi("580.159.04"),
                         "BB_SANITIZER_EXCLUDE": self.stale_exclusions()}, self.out)
        line = self.assert_stopped(r, "'GpuAttention.NaiveAndFused*' matches no test")
        self.assertNotIn("driver", line)  # R580 is new enough: only the stale pattern is wrong

    def test_cuda13_wheels_are_found_under_nvidia_cu13_lib(self):
        """CUDA 13's wheels: nvidia-cublas and nvidia-cuda-runtime unpack to nvidia/cu13/lib,
        nvidia-nccl-cu13 to nvidia/nccl/lib. A site-packages laid out so (links to the toolkit's
        libraries), no toolkit: the binaries must resolve to it."""
        site = os.path.join(self.tmp, "site-packages")
        cu13, nccl = (os.path.join(site, "nvidia", d, "lib") for d in ("cu13", "nccl"))
        os.makedirs(cu13)
        os.makedirs(nccl)
        toolkit = "/usr/local/cuda/lib64"
        for name in ("libcublas.so.13", "libcublasLt.so.13", "libcudart.so.13"):
            os.symlink(os.path.join(toolkit, name), os.path.join(cu13, name))
        os.symlink(os.path.join(toolkit, "libnccl.so.2"), os.path.join(nccl, "libnccl.so.2"))
        r = run_gpu_run({"PATH": self.fake_nvidia_smi("570.86.15"), "PYTHONPATH": site,
                         "CUDA_HOME": os.path.join(self.tmp, "no-toolkit")}, self.out)
        self.assert_stopped(r, "driver 570.86.15")  # stopped after the preflight, nothing ran
        log = read(os.path.join(self.out, "gpu_run.log"))
        for name in ("libcublas.so.13", "libcublasLt.so.13", "libcudart.so.13"):
            self.assertIn(f"{name} => {cu13}/{name}", log)
        self.assertIn(f"LD_LIBRARY_PATH={cu13}:{nccl}", log)
        self.assertIn("libnccl.so.2 (dlopen): resolves", log)

    def test_no_driver_stops_the_run(self):
        if shutil.which("nvidia-smi"):
            self.skipTest("this machine has nvidia-smi")
        r = run_gpu_run({}, self.out)
        self.assert_stopped(r, "no NVIDIA driver here (nvidia-smi not found)")


class Steps(unittest.TestCase):
    """ci/gpu_steps.sh: a budget skip is listed, not failed, unless the job needs the step."""

    def run_steps(self, script):
        with tempfile.TemporaryDirectory() as d:
            prog = (f"log={d}/log; budget=100; dry=0; gpu_usable=0; "
                    f"source {SRC}/ci/gpu_steps.sh; {script}; steps_summary")
            r = subprocess.run(["bash", "-c", prog], capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout.strip().splitlines()[-1]

    def test_a_budget_skip_is_not_a_failure(self):
        rc, last = self.run_steps("step a 5 true; SECONDS=95; step late 5 true")
        self.assertEqual(rc, 0, last)
        self.assertEqual(last, "gpu_run: 0 failed; 1 skipped for the budget: late")

    def test_a_real_failure_still_fails(self):
        rc, last = self.run_steps("step a 5 false; SECONDS=95; step late 5 true")
        self.assertEqual(rc, 1)
        self.assertEqual(last, "gpu_run: 1 failed: a; 1 skipped for the budget: late")

    def test_a_required_step_the_budget_cut_is_a_failure(self):
        rc, last = self.run_steps("SECONDS=95; step --required gpu_test 5 true")
        self.assertEqual(rc, 1)
        self.assertEqual(last, "gpu_run: 1 failed: gpu_test(budget)")

    def test_a_gpu_step_fails_on_a_gpu_runner_even_without_a_gpu(self):
        rc, last = self.run_steps("step --gpu gpu_usable 5 false")
        self.assertEqual(rc, 1)
        rc, last = self.run_steps("dry=1; step --gpu gpu_usable 5 false; step cpu 5 false")
        self.assertEqual(rc, 1)
        self.assertEqual(last, "gpu_run: 1 failed: cpu; 1 cannot run without a GPU: gpu_usable")

    def test_a_time_limit_is_a_failure(self):
        rc, last = self.run_steps("step slow 1 sleep 5")
        self.assertEqual(rc, 1)
        self.assertEqual(last, "gpu_run: 1 failed: slow")


class Workflow(unittest.TestCase):
    """.github/workflows/gpu.yml: one build, gpu_run.sh, no CPU tests or simulator, a budget that
    adds up."""

    @classmethod
    def setUpClass(cls):
        doc = yaml.safe_load(read(os.path.join(SRC, ".github", "workflows", "gpu.yml")))
        (cls.job,) = doc["jobs"].values()
        cls.runs = [s.get("run", "") for s in cls.job["steps"]]

    def test_one_build_then_gpu_run_and_nothing_else_heavy(self):
        text = "\n".join(self.runs)
        self.assertEqual(text.count("ci/bundle.sh"), 1)
        self.assertEqual(text.count("gpu_run.sh"), 1)
        for absent in ("ci/test.sh", "gpusim", "ctest", "cmake --build"):
            self.assertNotIn(absent, text)
        self.assertLess(next(i for i, r in enumerate(self.runs) if "bundle.sh" in r),
                        next(i for i, r in enumerate(self.runs) if "gpu_run.sh" in r))

    def test_the_step_limits_add_up_to_the_job_limit(self):
        limits = [s.get("timeout-minutes") for s in self.job["steps"]]
        self.assertNotIn(None, limits, "every step has timeout-minutes")
        self.assertLessEqual(sum(limits), self.job["timeout-minutes"])
        gpu = next(s for s in self.job["steps"] if "gpu_run.sh" in s.get("run", ""))
        budget_s = int(gpu["env"]["BB_BUDGET_S"])
        # gpu_run.sh starts no step past its budget; the last one gets 10 s of SIGKILL grace.
        self.assertLessEqual(budget_s + 60, 60 * gpu["timeout-minutes"])
        self.assertLess(int(gpu["env"]["BB_RUN_LIMIT_S"]), budget_s)

    def test_gpu_runs_step_limits_fit_its_budget(self):
        """Every step of gpu_run.sh at its full limit (run at BB_RUN_LIMIT_S) fits the workflow's
        BB_BUDGET_S: a CI run on a healthy GPU is never cut by the budget."""
        gpu = next(s for s in self.job["steps"] if "gpu_run.sh" in s.get("run", ""))
        total, names = 0, []
        for m in re.finditer(r"^\s*step (?:--\w+ )*(\S+) (\S+) ", read(os.path.join(
                SRC, "ci", "gpu_run.sh")), re.M):
            name, limit = m.groups()
            times = 2 if "$compute" in name else 1  # for compute in synthetic gemm
            value = int(gpu["env"]["BB_RUN_LIMIT_S"]) if "BB_RUN_LIMIT_S" in limit else int(limit)
            total += times * value
            names.append(name)
        self.assertIn("memcheck", names)
        self.assertEqual(total, int(gpu["env"]["BB_BUDGET_S"]), names)


class CtestGpuLock(unittest.TestCase):
    """Every ctest test that may use the GPU holds the resource lock "gpu": `ctest -j` never runs
    two of them at once on one GPU."""

    def test_gpu_tests_hold_the_gpu_lock(self):
        out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=BUILD, capture_output=True,
                             text=True, check=True).stdout
        tests = json.loads(out)["tests"]
        def props(t):
            return {p["name"]: p["value"] for p in t.get("properties", [])}
        gpu = [t for t in tests if "gpu" in (props(t).get("LABELS") or [])]
        self.assertGreaterEqual(len(gpu), len(gpu_test_names()))
        for t in gpu:
            self.assertIn("gpu", props(t).get("RESOURCE_LOCK") or [], t["name"])
        locked = [t["name"] for t in tests if "gpu" in (props(t).get("RESOURCE_LOCK") or [])]
        for name in ("cli.NoGpuPath.test_cuda_backend_skips_with_reason",
                     "collectives.Reliability.test_nccl_without_gpu_says_why"):
            self.assertIn(name, locked)


if __name__ == "__main__":
    BUILD = os.path.abspath(sys.argv.pop(1))
    unittest.main(argv=sys.argv[:1] + sys.argv[1:], verbosity=2)
