"""Before/after: each later run against the first, per case with its interval."""
import json
import os
import subprocess

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from .drawing import png, legend_outside, margins, place_labels
from .intervals import case_change, classify
from .runs import CHANGE_THRESHOLD, short


def compare_cases(base, new):
    """`boundbench compare`'s own per-case results (its intervals widened by the run-level noise,
    its Benjamini-Hochberg verdicts) when the report runs under the boundbench binary
    (`boundbench report` sets BOUNDBENCH_EXE) and compare accepts the pair (one machine); else
    None, and the report's own intervals are drawn."""
    exe = os.environ.get("BOUNDBENCH_EXE")
    if not exe:
        return None
    try:
        r = subprocess.run([exe, "compare", base.path, new.path, "--json"], capture_output=True,
                           text=True, timeout=300, check=False)
        return {c["name"]: c for c in json.loads(r.stdout)["cases"]} if r.returncode in (0, 1) \
            else None
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired):
        return None


def changes(base, new):
    """Per matched case (same name): (name, ratio, low, high, class, method); and the cases whose
    params differ (never compared as the same case). Ratio, interval and class are compare's
    where it judged the case, else the report's own interval against +/- CHANGE_THRESHOLD."""
    def by_name(run):
        out = {}
        for b in run.measured:
            out.setdefault(b["name"], []).append(b)
        return out
    bb, nb = by_name(base), by_name(new)
    judged = compare_cases(base, new) or {}
    rows, differ = [], []
    for name in sorted(set(bb) & set(nb)):
        if bb[name][0].get("params") != nb[name][0].get("params"):
            differ.append(name)
            continue
        c = judged.get(name)
        if c and c.get("verdict") in ("SLOWER", "FASTER", "SAME", "AMBIGUOUS") and \
                c.get("change_low") is not None:
            rows.append((name, 1 + c["change"], 1 + c["change_low"], 1 + c["change_high"],
                         c["verdict"].lower(), "boundbench compare"))
            continue
        ratio, low, high, method = case_change(bb[name], nb[name])
        rows.append((name, ratio, low, high, classify(low, high), method))
    rows.sort(key=lambda r: r[1])
    return rows, differ


CLASS_COLOUR = {"slower": "red", "faster": "green", "same": "0.55", "ambiguous": "orange",
                "no interval": "0.3"}


def fingerprint_difference(a, b):
    """The top-level keys in which two runs' machine fingerprints differ (`fingerprint` at the top
    level or in context.boundbench); none where either run has no fingerprint."""
    fa, fb = a.fingerprint(), b.fingerprint()
    if not fa or not fb:
        return []
    return sorted(k for k in set(fa) | set(fb) if fa.get(k) != fb.get(k))


def before_after(runs, out_dir):
    """Each later run against the first: per case the ratio new/base of median times with its
    interval, sorted, coloured by where the interval lies against +/- CHANGE_THRESHOLD."""
    images, tables = [], []
    if len(runs) < 2:
        return images, tables
    base = runs[0]
    for j, new in enumerate(runs[1:], start=1):
        rows, differ = changes(base, new)
        if len(rows) < 3:
            continue
        fig, ax = plt.subplots(figsize=(8, 4.2))
        margins(fig)
        cap = 3.0
        x = np.arange(len(rows))
        ax.axhspan(1 - CHANGE_THRESHOLD, 1 + CHANGE_THRESHOLD, color="0.9", zorder=0,
                   label=f"±{CHANGE_THRESHOLD:.0%} (same)")
        ax.axhline(1.0, color="0.4", lw=0.8)
        counts = {}
        for cls in ("slower", "faster", "ambiguous", "same", "no interval"):
            idx = [k for k, r in enumerate(rows) if r[4] == cls]
            counts[cls] = len(idx)
            if not idx:
                continue
            ys = np.array([min(rows[k][1], cap) for k in idx])
            lo = np.array([rows[k][2] if rows[k][2] is not None else rows[k][1] for k in idx])
            hi = np.array([rows[k][3] if rows[k][3] is not None else rows[k][1] for k in idx])
            err = [np.clip(ys - np.minimum(lo, cap), 0, None),
                   np.clip(np.minimum(hi, cap) - ys, 0, None)]
            ax.errorbar(x[idx], ys, yerr=err, fmt="o", ms=3, color=CLASS_COLOUR[cls],
                        elinewidth=0.8, label=f"{cls}: {len(idx)}",
                        mfc="none" if cls == "no interval" else CLASS_COLOUR[cls])
        clipped = [k for k, r in enumerate(rows) if r[1] > cap]
        if clipped:
            ax.scatter(x[clipped], [cap] * len(clipped), marker="^", color="red", s=30,
                       label=f"ratio > {cap:g} (clipped): {len(clipped)}", zorder=4)
        ax.set_ylim(0, min(max(max((r[3] or r[1]) for r in rows), 1.2) * 1.05, cap * 1.05))
        ax.set_xlim(-1, len(rows))
        outside = [k for k, r in enumerate(rows) if r[4] in ("slower", "faster")]
        extremes = outside[-6:][::-1] + outside[:6]
        place_labels(ax, [(x[k], min(rows[k][1], cap), short(rows[k][0]), "0.2")
                          for k in extremes], max_labels=12)
        ax.set_xlabel("case, sorted by ratio")
        ax.set_ylabel(f"time {new.label} / {base.label}")
        title = f"before/after: {new.label} vs {base.label}"
        ax.set_title(title + " (median-time ratio, 95% interval)", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
        handles, _ = ax.get_legend_handles_labels()
        handles.insert(0, Line2D([], [], ls="", label=f"{new.label} / {base.label}:"))
        legend_outside(ax, handles)
        methods = sorted({r[5] for r in rows})
        caption = (f"{len(rows)} matched cases" +
                   (f", {len(differ)} not comparable: params differ" if differ else "") +
                   f"; interval: {', '.join(methods)}. " +
                   ("Colour: `boundbench compare`'s verdict (intervals widened by the run-level "
                    "noise, false discovery rate held at 5%)."
                    if methods == ["boundbench compare"] else
                    f"Colour by where the interval lies against ±{CHANGE_THRESHOLD:.0%}; the "
                    "verdict (run-level noise, FDR control) is `boundbench compare`'s."))
        differ_fp = fingerprint_difference(base, new)
        if new.device(new.backends()[0]) != base.device(base.backends()[0]) or differ_fp:
            caption += " Different machines" + \
                (f" (fingerprints differ in {', '.join(differ_fp)})" if differ_fp else "") + \
                ": the ratios compare machines, not builds."
        images.append(png(fig, out_dir, f"change_{j:02d}.png", title, caption,
                          [base.label, new.label]))
        tables.append((title, rows, differ, counts))
    return images, tables
