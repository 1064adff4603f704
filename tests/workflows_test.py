#!/usr/bin/env python3
"""The CI workflows (.github/workflows/*.yml) for issue 30: each parses as YAML with step limits
that add up to its job's; the GPU job restores the history store before the run, adds the run,
puts `history changes --markdown` into the job summary and keeps the store (artifact and cache);
pull requests run `boundbench ab` on the base and head builds. The GPU job's history step is run
here as the runner would (bash -e, its env) against a real results file: the run lands in the
store and the summary gets the change points; without a run.json it adds nothing and says so.

usage: workflows_test.py BOUNDBENCH"""
import glob
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

import yaml

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOWS = os.path.join(SRC, ".github", "workflows")
BOUNDBENCH = None


def load(name):
    with open(os.path.join(WORKFLOWS, name)) as f:
        return yaml.safe_load(f)


def results_doc(index):
    date = f"2026-11-01T{index:02d}:00:00Z"
    return {"context": {"date": date,
                        "boundbench": {"schema_version": 2, "git_commit": f"{index:040x}",
                                       "date": date, "label": "ci", "complete": True,
                                       "fingerprint": {"cpu": {"model_name": "test CPU"}}}},
            "benchmarks": [{"name": "suite/case", "run_type": "iteration", "median_s": 1e-3,
                            "samples_s": [0.99e-3, 1e-3, 1.01e-3]}],
            "checks": []}


class EveryWorkflow(unittest.TestCase):
    def test_parse_and_step_limits_add_up(self):
        files = sorted(glob.glob(os.path.join(WORKFLOWS, "*.yml")))
        self.assertIn(os.path.join(WORKFLOWS, "ab.yml"), files)
        for path in files:
            with open(path) as f:
                doc = yaml.safe_load(f)
            self.assertIn(True, doc, f"{path}: no 'on' (YAML reads the key as true)")
            for name, job in doc["jobs"].items():
                limits = [s.get("timeout-minutes") for s in job["steps"]]
                self.assertNotIn(None, limits, f"{path} {name}: every step has timeout-minutes")
                self.assertLessEqual(sum(limits), job["timeout-minutes"], f"{path} {name}")


class GpuJobHistory(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        doc = load("gpu.yml")
        cls.env = {k: str(v) for k, v in doc["env"].items()}
        (cls.job,) = doc["jobs"].values()
        cls.steps = cls.job["steps"]

    def index(self, pred):
        found = [i for i, s in enumerate(self.steps) if pred(s)]
        self.assertEqual(len(found), 1, [s.get("name") for s in self.steps])
        return found[0]

    def history_step(self):
        return self.steps[self.index(lambda s: "history add" in s.get("run", ""))]

    def test_order_restore_run_add_keep(self):
        restore = self.index(lambda s: s.get("uses", "").startswith("actions/cache/restore"))
        run = self.index(lambda s: "gpu_run.sh" in s.get("run", ""))
        add = self.index(lambda s: "history add" in s.get("run", ""))
        upload = self.index(lambda s: s.get("uses", "").startswith("actions/upload-artifact")
                            and "HISTORY_DIR" in s["with"]["path"])
        save = self.index(lambda s: s.get("uses", "").startswith("actions/cache/save"))
        self.assertLess(restore, run)
        self.assertLess(run, add)
        self.assertLess(add, upload)
        self.assertLess(add, save)
        for i in (add, upload, save):  # a regressed run (the run step failed) is history too
            self.assertEqual(self.steps[i].get("if"), "always()", self.steps[i])
        paths = {self.steps[i]["with"]["path"] for i in (restore, save)}
        self.assertEqual(paths, {"${{ env.HISTORY_DIR }}/boundbench-history.sqlite"})
        run_text = self.history_step()["run"]
        self.assertIn("history changes", run_text)
        self.assertIn("--markdown", run_text)
        self.assertIn("$GITHUB_STEP_SUMMARY", run_text)

    def run_history_step(self, with_run_json, empty=False):
        with tempfile.TemporaryDirectory() as work:
            bundle = os.path.join(work, "bundle")
            os.makedirs(os.path.join(bundle, "bin"))
            os.symlink(BOUNDBENCH, os.path.join(bundle, "bin", "boundbench"))
            results = os.path.join(work, "gpu-results")
            os.makedirs(results)
            summary = os.path.join(work, "summary.md")
            db = os.path.join(work, "history", "boundbench-history.sqlite")
            env = {**os.environ, **self.env, "BUNDLE_DIR": bundle, "RESULTS_DIR": results,
                   "HISTORY_DIR": os.path.join(work, "history"), "GITHUB_STEP_SUMMARY": summary}
            runs = 0
            for i in range(3 if with_run_json else 1):  # three CI runs, one store carried along
                if with_run_json:
                    doc = results_doc(i)
                    if empty:  # a run without a usable GPU: no measured case
                        doc["benchmarks"] = []
                    with open(os.path.join(results, "run.json"), "w") as f:
                        json.dump(doc, f)
                p = subprocess.run(["bash", "-e", "-c", self.history_step()["run"]], cwd=work,
                                   env=env, capture_output=True, text=True, timeout=120)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            if os.path.exists(db):
                runs = sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0]
            with open(summary) as f:
                return runs, f.read()

    def test_history_step_adds_the_run_and_summarises(self):
        runs, summary = self.run_history_step(True)
        self.assertEqual(runs, 3)
        self.assertEqual(summary.count("## boundbench history changes"), 3)
        self.assertIn("0 change point(s) in 1 case series (3 run medians)", summary)

    def test_history_step_without_a_run_adds_nothing_and_says_so(self):
        runs, summary = self.run_history_step(False)
        self.assertEqual(runs, 0)
        self.assertIn("no ", summary)
        self.assertIn("nothing added", summary)
        # A run.json with no measured case (the dry run without a GPU): refused, said, not fatal.
        runs, summary = self.run_history_step(True, empty=True)
        self.assertEqual(runs, 0)
        self.assertEqual(summary.count("holds no measured case"), 3, summary)
        self.assertNotIn("## boundbench history changes", summary)


class PullRequestAb(unittest.TestCase):
    def test_ab_on_pull_requests_after_both_builds(self):
        doc = load("ab.yml")
        self.assertIn("pull_request", doc[True])
        (job,) = doc["jobs"].values()
        runs = [s.get("run", "") for s in job["steps"]]
        ab = [i for i, r in enumerate(runs) if " ab " in r and "boundbench" in r]
        self.assertEqual(len(ab), 1, runs)
        builds = [i for i, r in enumerate(runs) if "ci/bundle.sh" in r]
        self.assertEqual(len(builds), 2, runs)
        self.assertLess(max(builds), ab[0])
        self.assertIn("base-bundle/bin/boundbench head-bundle/bin/boundbench", runs[ab[0]])
        self.assertIn("--markdown", runs[ab[0]])
        base = next(s for s in job["steps"] if "BASE_SHA" in s.get("env", {}))
        self.assertEqual(base["env"]["BASE_SHA"], "${{ github.event.pull_request.base.sha }}")
        summary = next(s for s in job["steps"] if "GITHUB_STEP_SUMMARY" in s.get("run", ""))
        self.assertEqual(summary.get("if"), "always()")


if __name__ == "__main__":
    BOUNDBENCH = os.path.abspath(sys.argv.pop(1))
    unittest.main()
