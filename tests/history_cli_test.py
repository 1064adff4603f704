#!/usr/bin/env python3
"""`boundbench history add|changes|show` from the command line: a foreign or truncated file is
refused with one line and exit 2 and adds nothing, the same run twice is one run, two adds at once
both land, `changes` finds a planted step with the issue's JSON shape and `--fail-within`, and
`show CASE` gives the case's series (commit, median, interval) with that change point on its run.

usage: history_cli_test.py BOUNDBENCH"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import unittest

BOUNDBENCH = None


def bb(*args):
    return subprocess.run([BOUNDBENCH, *args], capture_output=True, text=True, timeout=300)


def run_doc(index, step_at=None, cases=12, seed=0):
    rng = random.Random(seed * 100003 + index)
    benchmarks = []
    for c in range(cases):
        level = 1.2 if step_at is not None and c == 0 and index >= step_at else 1.0
        m = 1e-4 * (1 + c) * level * math.exp(rng.gauss(0, 0.01))
        benchmarks.append({"name": f"suite/case{c:02d}", "run_type": "iteration", "median_s": m,
                           "samples_s": [m * 0.99, m, m * 1.01],
                           "median_ci_low_s": m * 0.99, "median_ci_high_s": m * 1.01})
    date = f"2026-11-{1 + index // 24:02d}T{index % 24:02d}:00:00Z"
    return {"context": {"date": date,
                        "boundbench": {"schema_version": 2, "git_commit": f"{index:040x}",
                                       "date": date, "label": "ci", "complete": True,
                                       "fingerprint": {"cpu": {"model_name": "test CPU"}}}},
            "benchmarks": benchmarks, "checks": []}


class History(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.dir.name, "h.sqlite")

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, doc):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def runs_in_store(self):
        out = bb("history", "changes", "--db", self.db, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)["points"]

    def test_foreign_and_truncated_refused_one_line_exit_2(self):
        good = self.write("good.json", run_doc(0))
        self.assertEqual(bb("history", "add", "--db", self.db, good).returncode, 0)
        with open(good) as f:
            text = f.read()
        truncated = os.path.join(self.dir.name, "truncated.json")
        with open(truncated, "w") as f:
            f.write(text[: len(text) // 2])
        foreign = self.write("foreign.json", {"benchmarks": [], "context": {"date": "x"}})
        later = self.write("later.json", run_doc(1))
        for bad in (truncated, foreign):
            out = bb("history", "add", "--db", self.db, later, bad)
            self.assertEqual(out.returncode, 2, out.stderr)
            self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)
            self.assertIn(os.path.basename(bad), out.stderr)
        self.assertEqual(self.runs_in_store(), 12)  # one run of 12 cases: `later` not added
        notes = os.path.join(self.dir.name, "notes.txt")
        with open(notes, "w") as f:
            f.write("these are notes, not a database; " * 40)
        out = bb("history", "add", "--db", notes, good)
        self.assertEqual(out.returncode, 2)
        self.assertIn("not a boundbench history store", out.stderr)

    def test_same_run_twice_is_one_run(self):
        a = self.write("a.json", run_doc(0))
        first = bb("history", "add", "--db", self.db, a)
        self.assertIn(": added", first.stdout)
        again = bb("history", "add", "--db", self.db, a, a)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(again.stdout.count("already stored"), 2)
        self.assertIn("1 runs", again.stdout)

    def test_two_adds_at_once_lose_nothing(self):
        files = [[self.write(f"r{k}-{i}.json", run_doc(10 * k + i)) for i in range(10)]
                 for k in range(2)]
        procs = [subprocess.Popen([BOUNDBENCH, "history", "add", "--db", self.db, *group],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for group in files]
        for p in procs:
            _, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err)
        self.assertEqual(self.runs_in_store(), 20 * 12)

    def test_changes_finds_a_step_and_fail_within(self):
        paths = [self.write(f"r{i}.json", run_doc(i, step_at=20)) for i in range(30)]
        self.assertEqual(bb("history", "add", "--db", self.db, *paths).returncode, 0)
        md = os.path.join(self.dir.name, "changes.md")
        out = bb("history", "changes", "--db", self.db, "--json", "--markdown", md)
        self.assertEqual(out.returncode, 0, out.stderr)
        changes = json.loads(out.stdout)["changes"]
        self.assertEqual(len(changes), 1, changes)
        c = changes[0]
        self.assertEqual(set(c) >= {"case", "machine", "commit", "index", "ratio", "interval",
                                    "direction"}, True)
        self.assertEqual((c["case"], c["index"], c["commit"], c["direction"]),
                         ("suite/case00", 20, f"{20:040x}", "slower"))
        self.assertLess(c["interval"][0], 1.2)
        self.assertGreater(c["interval"][1], 1.2)
        with open(md) as f:
            self.assertIn("| suite/case00 |", f.read())
        self.assertEqual(bb("history", "changes", "--db", self.db, "--fail-within", "10").returncode, 1)
        self.assertEqual(bb("history", "changes", "--db", self.db, "--fail-within", "9").returncode, 0)
        quiet = bb("history", "changes", "--db", self.db, "--case", "case0[1-9]", "--json")
        self.assertEqual(json.loads(quiet.stdout)["changes"], [])

    def test_show_the_series_and_its_change_point(self):
        docs = [run_doc(i, step_at=20) for i in range(30)]
        paths = [self.write(f"r{i}.json", d) for i, d in enumerate(docs)]
        self.assertEqual(bb("history", "add", "--db", self.db, *paths).returncode, 0)
        out = bb("history", "show", "suite/case00", "--db", self.db, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        doc = json.loads(out.stdout)
        self.assertEqual(doc["case"], "suite/case00")
        (m,) = doc["machines"]
        self.assertEqual(len(m["runs"]), 30)
        for i, r in enumerate(m["runs"]):
            b = docs[i]["benchmarks"][0]
            self.assertEqual((r["run"], r["commit"], r["commit_index"]), (i, f"{i:040x}", i))
            self.assertAlmostEqual(r["median_s"], b["median_s"], delta=1e-15)
            self.assertEqual(r["interval_s"], [b["median_ci_low_s"], b["median_ci_high_s"]])
        self.assertEqual([(c["index"], c["commit"], c["direction"]) for c in m["changes"]],
                         [(20, f"{20:040x}", "slower")])
        self.assertGreater(m["changes"][0]["ratio"], 1.15)
        # The table marks the change on run 20's line and nowhere else.
        text = bb("history", "show", "suite/case00", "--db", self.db).stdout
        marked = [line for line in text.splitlines() if "SLOWER" in line]
        self.assertEqual(len(marked), 1, text)
        self.assertTrue(marked[0].split()[0] == "20" and f"{20:040x}"[:12] in marked[0], marked)
        quiet = json.loads(bb("history", "show", "suite/case01", "--db", self.db, "--json").stdout)
        self.assertEqual(quiet["machines"][0]["changes"], [])
        missing = bb("history", "show", "suite/nope", "--db", self.db)
        self.assertEqual(missing.returncode, 2)
        self.assertEqual(len(missing.stderr.strip().splitlines()), 1, missing.stderr)
        self.assertIn("suite/nope", missing.stderr)


if __name__ == "__main__":
    BOUNDBENCH = os.path.abspath(sys.argv.pop(1))
    unittest.main()
