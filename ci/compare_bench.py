#!/usr/bin/env python3
"""A benchmark of `boundbench compare` itself, on real runs: false alarms between honest runs,
power against a copy with every timing ×1.2 and against one outlier-laden case ×2, and machine
identity against another machine's run. Prints markdown (the numbers in results/compare_bench/).

Usage: compare_bench.py BOUNDBENCH BASE.json AGAIN.json [--loaded LOADED.json] [--other OTHER.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import compare_fixtures as fx  # noqa: E402


def compare(exe, a, b, *extra):
    r = subprocess.run([exe, "compare", a, b, "--json", *extra], capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.returncode in (0, 1) else None), r.stderr


def counts(j):
    c = {}
    for case in j["cases"]:
        c[case["verdict"]] = c.get(case["verdict"], 0) + 1
    return c


def line(name, rc, j):
    c = counts(j)
    n = len(j["cases"])
    alarms = c.get("SLOWER", 0) + c.get("FASTER", 0)
    detail = ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
    return (f"| {name} | {n} | {alarms} ({100 * alarms / n:.1f}%) | {detail} | "
            f"{len(j['check_changes'])} | {rc} |")


def with_outlier(doc):
    """The first case whose largest sample is ≥ 3× its median (a preempted sample)."""
    for b in doc["benchmarks"]:
        s = b.get("samples_s") or []
        if len(s) >= 5 and max(s) >= 3 * b["median_s"]:
            return b["name"], max(s) / b["median_s"], b.get("rel_noise", 0)
    return None, 0, 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("boundbench")
    ap.add_argument("base")
    ap.add_argument("again")
    ap.add_argument("--loaded")
    ap.add_argument("--other")
    a = ap.parse_args()
    out = ["| comparison | cases | SLOWER+FASTER | verdicts | check changes | exit |",
           "|---|---:|---:|---|---:|---:|"]
    rc, j, _ = compare(a.boundbench, a.base, a.again)
    out.append(line("honest rerun", rc, j))
    if a.loaded:
        rc, j, _ = compare(a.boundbench, a.base, a.loaded)
        out.append(line("rerun with a CPU-bound process on core 0", rc, j))
    with open(a.base) as f:
        base = json.load(f)
    with tempfile.TemporaryDirectory() as d:
        slow = os.path.join(d, "x1.2.json")
        fx.dump(fx.scaled(base, 1.2), slow)
        rc, j, _ = compare(a.boundbench, a.base, slow)
        out.append(line("every timing x1.2", rc, j))
        enough = {b["name"] for b in base["benchmarks"] if len(b.get("samples_s") or []) >= 5}
        got = [c for c in j["cases"] if c["name"] in enough]
        slower = sum(c["verdict"] == "SLOWER" for c in got)
        power = (f"\nPower: {slower} of {len(got)} cases with >= 5 samples SLOWER "
                 f"({100 * slower / max(len(got), 1):.1f}%), exit {rc}.")
        name, ratio, noise = with_outlier(base)
        if name:
            two = os.path.join(d, "x2.json")
            fx.dump(fx.scaled(base, 2.0, only=name), two)
            rc2, j2, _ = compare(a.boundbench, a.base, two)
            v = [c for c in j2["cases"] if c["name"] == name][0]
            lo, hi = 100 * v["change_low"], 100 * v["change_high"]
            power += (f"\nOutlier: `{name}` (largest sample {ratio:.1f}x its median, stddev/mean "
                      f"{100 * noise:.0f}%) x2 -> {v['verdict']}, interval "
                      f"[{lo:+.1f}%, {hi:+.1f}%], exit {rc2}.")
        else:
            power += "\nOutlier: no case of this run has a sample >= 3x its median."
    out.append(power)
    if a.other:
        rc, _, err = compare(a.boundbench, a.other, a.base)
        out.append(f"\nIdentity: `compare {os.path.basename(a.other)} BASE` -> exit {rc}: "
                   f"`{err.splitlines()[0] if err else ''}`")
        rc, j, _ = compare(a.boundbench, a.other, a.base, "--cross-device")
        c = counts(j)
        out.append(f"\n`--cross-device` -> exit {rc}; verdicts {c}; "
                   f"{len(j['machine_differences'])} machine differences listed.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
