#!/usr/bin/env python3
"""`boundbench ab` against two stand-in builds (Python scripts that answer `run ... --out F` with a
results file): the same build twice calls nothing; a case slowed 1.2x in the new build is SLOWER;
cases of one suite that a neighbour moves together (±30% per process, both builds alike) are the
machine, said so, and not called; a build that fails is one line and exit 2.

usage: ab_cli_test.py BOUNDBENCH"""
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

BOUNDBENCH = None

# The stand-in build: `run OPTIONS --out F --summary S --no-fail`. Each process draws its own
# (seeded) noise: 1% per case, and one factor shared by the `bandwidth` cases (a neighbour on DRAM).
FAKE = r'''#!/usr/bin/env python3
import json, math, os, random, sys
SLOW = {slow!r}
args = sys.argv[1:]
out = args[args.index("--out") + 1]
# Deterministic: seeded by the round's file name (base-3.json, new-3.json) and the test's seed.
rng = random.Random(os.path.basename(out) + os.environ.get("AB_TEST_SEED", "1"))
dram = math.exp(rng.gauss(0, 0.3))
benchmarks = []
for suite in ("bandwidth", "summation"):
    for c in range(8):
        name = f"{{suite}}/case{{c}}"
        m = 1e-3 * (1 + c) * math.exp(rng.gauss(0, 0.01)) * (dram if suite == "bandwidth" else 1)
        if name == SLOW:
            m *= 1.2
        benchmarks.append({{"name": name, "run_type": "iteration", "median_s": m}})
doc = {{"context": {{"boundbench": {{"schema_version": 2, "date": "2026-12-06T00:00:00Z",
        "fingerprint": {{"cpu": {{"model_name": "fake"}}}}}}}}, "benchmarks": benchmarks, "checks": []}}
json.dump(doc, open(out, "w"))
'''


def bb(*args):
    return subprocess.run([BOUNDBENCH, *args], capture_output=True, text=True, timeout=300)


class Ab(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def build(self, name, slow=""):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(FAKE.format(slow=slow))
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path

    def ab(self, base, new, rounds="6"):
        out = bb("ab", base, new, "--rounds", rounds, "--json", "--", "--quick")
        self.assertIn(out.returncode, (0, 1), out.stderr)
        return out.returncode, {c["case"]: c for c in json.loads(out.stdout)["cases"]}

    def test_same_build_calls_nothing_and_the_machine_is_named(self):
        a = self.build("a")
        rc, cases = self.ab(a, a)
        self.assertEqual(rc, 0)
        self.assertEqual(len(cases), 16)
        for name, c in cases.items():
            self.assertIn(c["verdict"], ("SAME", "AMBIGUOUS"), c)
            self.assertEqual(len(c["ratios"]), 6)
        # The neighbour moved every bandwidth case together, differently in each process.
        machine = [c for n, c in cases.items() if n.startswith("bandwidth/") and "the machine" in c["note"]]
        self.assertGreaterEqual(len(machine), 6, cases)

    def test_a_case_slowed_1_2x_is_slower(self):
        rc, cases = self.ab(self.build("a"), self.build("b", slow="summation/case3"))
        self.assertEqual(rc, 1)
        c = cases["summation/case3"]
        self.assertEqual(c["verdict"], "SLOWER", c)
        self.assertAlmostEqual(c["ratio"], 1.2, delta=0.03)
        others = [n for n, c in cases.items() if c["verdict"] in ("SLOWER", "FASTER")]
        self.assertEqual(others, ["summation/case3"])

    def test_a_failing_build_is_one_line_exit_2(self):
        broken = os.path.join(self.dir.name, "broken")
        with open(broken, "w") as f:
            f.write("#!/bin/sh\nexit 3\n")
        os.chmod(broken, 0o755)
        out = bb("ab", self.build("a"), broken, "--rounds", "3")
        self.assertEqual(out.returncode, 2)
        self.assertEqual(len(out.stderr.strip().splitlines()), 2, out.stderr)  # progress + error
        self.assertIn("exit code 3", out.stderr)
        out = bb("ab", os.path.join(self.dir.name, "absent"), broken)
        self.assertEqual(out.returncode, 2)
        self.assertIn("not an executable file", out.stderr)


if __name__ == "__main__":
    BOUNDBENCH = os.path.abspath(sys.argv.pop(1))
    unittest.main()
