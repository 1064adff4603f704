#!/usr/bin/env python3
"""Peers of `boundbench history changes` for ci/history_replay.py, one method per call, run under
the interpreter that has its package (they pin conflicting numpy versions):
  asv        asv.step_detect.detect_steps (L1 Potts step fit), on the log values
  otava      Apache Otava's compute_change_points (E-divisive split on windows of 50, Student t
             test merge; Fleming et al. ICPE'23), at --pvalue
  edivisive  MongoDB's E-divisive means with a permutation test (signal-processing-algorithms;
             Matteson & James 2014, Daly et al. ICPE'20), at --pvalue, 100 permutations, seeded
stdin: {"case": [run values...]}; stdout: {"version": V, "found": {"case": [[index, slower], ...]}},
index = the first run after a change. Exit 2 with one line when the package does not import."""
import argparse
import json
import math
import sys


def changes_from_indices(y, idx):
    """(index, slower) per change point: the mean after vs the mean before, up to the neighbours."""
    out = []
    bounds = [0] + list(idx) + [len(y)]
    for j in range(1, len(bounds) - 1):
        a, k, b = bounds[j - 1], bounds[j], bounds[j + 1]
        before, after = y[a:k], y[k:b]
        if before and after:
            out.append((k, sum(after) / len(after) > sum(before) / len(before)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("method", choices=["asv", "otava", "edivisive"])
    ap.add_argument("--pvalue", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    try:
        if a.method == "asv":
            import asv
            from asv.step_detect import detect_steps
            version = asv.__version__
        elif a.method == "otava":
            from importlib.metadata import version as pkg_version
            from otava.analysis import compute_change_points
            version = pkg_version("apache-otava")
        else:
            from importlib.metadata import version as pkg_version
            import numpy as np
            from signal_processing_algorithms.energy_statistics import energy_statistics
            version = pkg_version("signal-processing-algorithms")
    except Exception as e:  # noqa: BLE001 - any import failure is reported as one line
        print(f"history_replay_peers: {a.method} does not import here: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    series = json.load(sys.stdin)
    found = {}
    for name, values in series.items():
        y = [math.log(v) for v in values]
        if a.method == "asv":
            steps = detect_steps(y)
            # steps: (left, right, mu, mu_err, ...) per segment; a change where a segment starts.
            changes = [(s1[0], s1[2] > s0[2]) for s0, s1 in zip(steps, steps[1:])]
        elif a.method == "otava":
            cps, _ = compute_change_points(y, window_len=50, max_pvalue=a.pvalue)
            changes = changes_from_indices(y, sorted(int(cp.index) for cp in cps))
        else:
            np.random.seed(a.seed)
            idx = energy_statistics.e_divisive(np.array(y), pvalue=a.pvalue, permutations=100)
            changes = changes_from_indices(y, sorted(int(i) for i in idx))
        if changes:
            found[name] = [(int(k), bool(slower)) for k, slower in changes]
    json.dump({"version": version, "found": found}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
