#!/usr/bin/env python3
"""Replay benchmark of `boundbench history changes` (issue 30): histories built from a committed
run's kept samples, with planted steps, drifts and one-run spells; precision, recall and delay of
ours beside peers run on the same histories: a Perfherder-style sliding t-test, asv's step
detection, Apache Otava's E-divisive with t-tests and MongoDB's E-divisive with a permutation test
(signal-processing-algorithms), the last three from PyPI when they import (ci/history_replay_peers.py;
Otava pins numpy 2.2 and signal-processing-algorithms numpy < 2, so each may run in its own venv:
--peer-python, --edivisive-python).

Each case of the source run becomes several synthetic cases of RUNS runs (one commit each). A run's
median is the median of 15 of the case's kept samples drawn with replacement, times a run-level
factor exp(0.02·t3) (heavy-tailed run-to-run drift of a shared VM), times the plant:
  step P%  : ×(1+P) from run STEP_AT on (P = 3, 5, 10, 20)
  drift    : ×(1 + 0.10·i/RUNS), a slow 10% drift (reported apart: neither hit nor false)
  spell    : one run ×1.3 (must not be a change)
  unchanged: nothing
A step is found when a slower change is reported at commit STEP_AT..STEP_AT+2 (delay: reported
index − STEP_AT); a flagged case is an unchanged or spell case with any change reported.

An oracle row is added for scale: a z test of the step at its true position (which no method knows)
with the series' robust noise, two-sided at 1%: the recall a method could reach if finding the
position were free.

usage: history_replay.py BOUNDBENCH SOURCE_RUN.json OUT.md [--runs 30] [--seed 1]
                         [--peer-python PY] [--edivisive-python PY]"""
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile

PLANTS = ["step3", "step5", "step10", "step20", "drift", "spell", "unchanged", "unchanged"]


def factor(plant, i, runs, step_at, spell_at):
    if plant.startswith("step"):
        return 1 + int(plant[4:]) / 100 if i >= step_at else 1.0
    if plant == "drift":
        return 1 + 0.10 * i / runs
    if plant == "spell":
        return 1.3 if i == spell_at else 1.0
    return 1.0


def build(source, runs, seed):
    rng = random.Random(seed)
    cases = [b for b in source["benchmarks"] if len(b.get("samples_s", [])) >= 10]
    series = {}  # name -> (plant, [medians])
    step_at = runs * 2 // 3
    for b in cases:
        for k, plant in enumerate(PLANTS):
            spell_at = rng.randrange(2, runs - 2)
            meds = []
            for i in range(runs):
                draw = [rng.choice(b["samples_s"]) for _ in range(15)]
                run_factor = math.exp(0.02 * rng.gauss(0, 1) / math.sqrt(rng.gammavariate(1.5, 1 / 1.5)))
                meds.append(statistics.median(draw) * run_factor * factor(plant, i, runs, step_at, spell_at))
            series[f"{b['name']}#{k}-{plant}"] = (plant, meds)
    return series, step_at


def ours(boundbench, series, runs, workdir, fdr=None):
    db = os.path.join(workdir, "replay.sqlite")
    files = []
    for i in range(runs if not os.path.exists(db) else 0):
        date = f"2026-01-{1 + i // 24:02d}T{i % 24:02d}:00:00Z"
        doc = {"context": {"boundbench": {"schema_version": 2, "git_commit": f"{i:040x}", "date": date,
                                          "label": "replay", "complete": True,
                                          "fingerprint": {"cpu": {"model_name": "replay"}}}},
               "benchmarks": [{"name": n, "run_type": "iteration", "median_s": m[i]}
                              for n, (_, m) in series.items()], "checks": []}
        path = os.path.join(workdir, f"run{i}.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        files.append(path)
    if files:
        subprocess.run([boundbench, "history", "add", "--db", db, *files], check=True, capture_output=True)
    extra = ["--fdr", str(fdr)] if fdr is not None else []
    out = subprocess.run([boundbench, "history", "changes", "--db", db, "--json", *extra], check=True,
                         capture_output=True, text=True)
    found = {}
    for c in json.loads(out.stdout)["changes"]:
        found.setdefault(c["case"], []).append((c["index"], c["direction"] == "slower"))
    return found


def ttest_peer(series, threshold=7.0, window=12):
    """Perfherder's rule: Welch t between the `window` runs before and after each commit, alert
    at t > 7 (one alert per case: the largest t)."""
    found = {}
    for name, (_, m) in series.items():
        y = [math.log(v) for v in m]
        best = None
        for k in range(3, len(y) - 2):
            a, b = y[max(0, k - window):k], y[k:k + window]
            if len(a) < 2 or len(b) < 2:
                continue
            va, vb = statistics.variance(a), statistics.variance(b)
            se = math.sqrt(va / len(a) + vb / len(b)) or 1e-12
            t = (statistics.mean(b) - statistics.mean(a)) / se
            if abs(t) > threshold and (best is None or abs(t) > abs(best[1])):
                best = (k, t)
        if best:
            found[name] = [(best[0], best[1] > 0)]
    return found


def peer(python, method, series, **kw):
    """{name: [(index, slower)]} from ci/history_replay_peers.py METHOD under `python`, or the reason
    it could not run (a string)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "history_replay_peers.py")
    args = [python, script, method] + [f"--{k.replace('_', '-')}={v}" for k, v in kw.items()]
    p = subprocess.run(args, input=json.dumps({n: m for n, (_, m) in series.items()}),
                       capture_output=True, text=True)
    if p.returncode != 0:
        return (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
    out = json.loads(p.stdout)
    return {n: [tuple(c) for c in v] for n, v in out["found"].items()}, out["version"]


def oracle(series, step_at, flagged=0.01):
    """A z test at the true step position (which no method knows) with the robust noise of the
    series' successive differences, its threshold set on this seed's own unchanged and spell
    cases so that `flagged` of them are called: an upper reference, not a method."""
    z = {}
    for name, (plant, m) in series.items():
        y = [math.log(v) for v in m]
        d = [b - a for a, b in zip(y, y[1:])]
        md = statistics.median(d)
        sigma = max(1e-4, 1.4826 * statistics.median(abs(v - md) for v in d) / math.sqrt(2))
        a, b = y[:step_at], y[step_at:]
        z[name] = (statistics.mean(b) - statistics.mean(a)) / (sigma * math.sqrt(1 / len(a) + 1 / len(b)))
    quiet = sorted(abs(z[n]) for n, (p, _) in series.items() if p in ("unchanged", "spell"))
    z_crit = quiet[min(len(quiet) - 1, int(len(quiet) * (1 - flagged)))]
    return {n: [(step_at, v > 0)] for n, v in z.items() if abs(v) > z_crit}, z_crit


def score(series, found, step_at):
    rows = {}
    for plant in ["step3", "step5", "step10", "step20"]:
        names = [n for n, (p, _) in series.items() if p == plant]
        hits = [min(i - step_at for i, slower in found.get(n, []) if slower and step_at <= i <= step_at + 2)
                for n in names if any(slower and step_at <= i <= step_at + 2 for i, slower in found.get(n, []))]
        rows[plant] = (len(hits), len(names), statistics.mean(hits) if hits else float("nan"))
    quiet = [n for n, (p, _) in series.items() if p in ("unchanged", "spell")]
    flagged = sum(1 for n in quiet if found.get(n))
    drift = [n for n, (p, _) in series.items() if p == "drift"]
    rows["flagged"] = (flagged, len(quiet))
    rows["drift"] = (sum(1 for n in drift if found.get(n)), len(drift))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("boundbench")
    ap.add_argument("source")
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--peer-python", default=sys.executable, help="interpreter with asv and apache-otava")
    ap.add_argument("--edivisive-python", default=sys.executable,
                    help="interpreter with signal-processing-algorithms")
    a = ap.parse_args()
    with open(a.source) as f:
        source = json.load(f)
    series, step_at = build(source, a.runs, a.seed)
    with tempfile.TemporaryDirectory() as work:
        bb = os.path.abspath(a.boundbench)
        methods = {"boundbench history changes (FDR 5%, its default)": ours(bb, series, a.runs, work),
                   "boundbench history changes --fdr 0.01": ours(bb, series, a.runs, work, 0.01),
                   "sliding Welch t, t > 7 (Perfherder's rule)": ttest_peer(series)}
    missing = []
    for label, python, method, kw in [
            ("asv {v} detect_steps", a.peer_python, "asv", {}),
            ("Apache Otava {v}, p < 0.0001", a.peer_python, "otava", {"pvalue": 0.0001}),
            ("Apache Otava {v}, p < 0.001 (its default)", a.peer_python, "otava", {"pvalue": 0.001}),
            ("Apache Otava {v}, p < 0.01", a.peer_python, "otava", {"pvalue": 0.01}),
            ("E-divisive (signal-processing-algorithms {v}), p < 0.01, 100 permutations",
             a.edivisive_python, "edivisive", {"pvalue": 0.01})]:
        got = peer(python, method, series, seed=a.seed, **kw)
        if isinstance(got, str):
            missing.append(f"{label.split(' ')[0]} ({method}): not run: {got}")
        else:
            methods[label.format(v=got[1])] = got[0]
    found, z_crit = oracle(series, step_at)
    methods[f"oracle: z test at the true position, abs(z) > {z_crit:.2f} (1% of this seed's quiet cases; not a method)"] = found
    lines = [f"# History replay: {len(series)} cases × {a.runs} runs (seed {a.seed})", "",
             f"Source: `{a.source}` ({source['context']['boundbench'].get('git_commit', '?')[:12]}), "
             f"its kept samples; steps at run {step_at}; run-to-run factor exp(0.02·t3).", "",
             "| method | +3% | +5% | +10% | +20% | mean delay (+10%) | unchanged/spell flagged | drifts flagged |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, found in methods.items():
        r = score(series, found, step_at)
        cell = lambda p: f"{r[p][0]}/{r[p][1]} ({100 * r[p][0] / r[p][1]:.0f}%)"
        lines.append(f"| {name} | {cell('step3')} | {cell('step5')} | {cell('step10')} | {cell('step20')} | "
                     f"{r['step10'][2]:.2f} | {r['flagged'][0]}/{r['flagged'][1]} "
                     f"({100 * r['flagged'][0] / r['flagged'][1]:.1f}%) | {r['drift'][0]}/{r['drift'][1]} |")
    if missing:
        lines.append("")
        lines += [f"- {m}" for m in missing]
    text = "\n".join(lines) + "\n"
    with open(a.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
