"""The roofline figure per device and the memory-hierarchy figure."""
import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from .drawing import log_axis, png, legend_outside, margins, place_labels, roofline_axes
from .headline import stream_best, cache_bandwidths, datasheet_bandwidth, compute_roofs
from .intervals import rate_points, time_points
from .runs import PRECISIONS, PRECISION_COLOUR, RUN_MARKERS, RUN_STYLES, stem, short


def roofline(runs, out_dir):
    """One figure per device: each run's points (marker per run, colour per precision), the
    measured STREAM slope per run, the datasheet slope and the L1 read slope where known, and the
    compute roof of each precision present. A point above its own bound is ringed red; above a
    host peak that is only an estimate, orange."""
    groups = {}
    for i, run in enumerate(runs):
        for b in run.measured:
            # One device's memory and compute roofline: the collectives and strategies move bytes
            # over links and their synthetic compute declares flop it waits for, not computes.
            if b.get("flop", 0) > 0 and b.get("bytes", 0) > 0 and \
                    b.get("suite") not in ("collectives", "strategies"):
                backend = b.get("backend", "host")
                groups.setdefault((run.device(backend), backend), {}).setdefault(i, []).append(b)
    images, violations = [], []
    for n, ((device, backend), by_run) in enumerate(sorted(groups.items())):
        fig, ax = plt.subplots(figsize=(8, 5.2))
        margins(fig)
        xs_all = [b["flop"] / b["bytes"] for bs in by_run.values() for b in bs]
        ys_all = [b["flop"] / b["median_s"] for bs in by_run.values() for b in bs]
        handles, drawn, tops = [], {}, []
        labels, rings_red, rings_orange, best = [], [], [], {}  # best: one name per family
        precisions = sorted({b.get("precision") for bs in by_run.values() for b in bs},
                            key=lambda p: PRECISIONS.index(p) if p in PRECISIONS else 99)
        for i, bs in sorted(by_run.items()):
            run = runs[i]
            roofs = compute_roofs(run, backend)
            tops += [roofs[p][0] for p in precisions if p in roofs]
            counts = {}
            for b in bs:
                counts[stem(b["name"])] = counts.get(stem(b["name"]), 0) + 1
            for b in bs:
                x, y = b["flop"] / b["bytes"], b["flop"] / b["median_s"]
                prec = b.get("precision")
                roof = roofs.get(prec)
                bad = run.verdicts.get(f"{b.get('suite')}/{b.get('case')}/roofline") == "FAIL" or \
                    b.get("pct_of_bound", 0) > 100 or b.get("pct_of_peak_bandwidth", 0) > 100 or \
                    (roof is not None and roof[1] and y > roof[0])
                if bad:
                    rings_red.append((x, y))
                    violations.append(f"{run.label}: {b['name']} at {y / 1e9:.4g} GFLOP/s, "
                                      f"{x:.3g} flop/B")
                elif roof is not None and y > roof[0]:
                    rings_orange.append((x, y))
                fam = stem(b["name"]) if counts[stem(b["name"])] > 1 else b["name"]
                if bad:
                    labels.append((0, -y, x, y, short(b["name"]), "red"))
                if fam not in best or y > best[fam][1]:
                    best[fam] = (x, y, b["name"], PRECISION_COLOUR.get(prec, "k"))
            marker = RUN_MARKERS[i % len(RUN_MARKERS)]
            ax.scatter([b["flop"] / b["bytes"] for b in bs],
                       [b["flop"] / b["median_s"] for b in bs],
                       c=[PRECISION_COLOUR.get(b.get("precision"), "k") for b in bs],
                       marker=marker, s=16, alpha=0.8, zorder=3, linewidths=0)
            handles.append(Line2D([], [], marker=marker, color="k", ls="", label=run.label))
        x_lo = min(xs_all) / 3
        ridges = []  # the x axis reaches past every run's ridge on its slowest DRAM slope
        for i in by_run:
            roofs = compute_roofs(runs[i], backend)
            s = stream_best(runs[i], backend)
            bws = [v for v in (s[0] if s else 0, datasheet_bandwidth(runs[i], backend)) if v > 0]
            if roofs and bws:
                ridges.append(max(r[0] for r in roofs.values()) / min(bws))
        x_hi = max(max(xs_all) * 3, 2 * max(ridges, default=0))
        y_hi = max(ys_all + tops) * 2.5
        grid = np.logspace(math.log10(x_lo), math.log10(x_hi), 64)
        for i in sorted(by_run):
            run = runs[i]
            roofs = compute_roofs(run, backend)
            top = max([roofs[p][0] for p in precisions if p in roofs] or [y_hi])
            style = RUN_STYLES[i % len(RUN_STYLES)]
            s = stream_best(run, backend)
            ceilings = []
            if s:
                ceilings.append((s[0], "k", style, 1.4,
                                 f"STREAM {s[0] / 1e9:.3g} GB/s, measured ({s[1]}) · {run.label}"))
            ds = datasheet_bandwidth(run, backend)
            if ds > 0:
                ceilings.append((ds, "0.45", "--", 1.2, f"DRAM datasheet {ds / 1e9:.4g} GB/s"))
            caches = cache_bandwidths(run, backend)
            if caches:
                name, bw, _ = max(caches, key=lambda c: c[1])
                ceilings.append((bw, "0.6", style, 1.0, f"{name} read {bw / 1e9:.3g} GB/s, "
                                 f"measured (cache-resident) · {run.label}"))
            for bw, colour, ls, lw, text in ceilings:
                key = ("bw", text.split(" · ")[0])
                if key in drawn:  # the same ceiling in another run: its label joins the entry
                    if " · " in text:
                        drawn[key].set_label(drawn[key].get_label() + ", " + run.label)
                    continue
                ys = np.minimum(grid * bw, top)
                drawn[key], = ax.plot(grid, ys, color=colour, ls=ls, lw=lw, label=text, zorder=2)
                handles.append(drawn[key])
            bw = max(s[0] if s else 0, ds)  # a roof starts where the highest DRAM slope meets it
            for p in precisions:
                if p not in roofs:
                    continue
                peak, bound, text = roofs[p]
                key = ("peak", p, f"{peak:.3g}")
                if key in drawn:
                    continue
                drawn[key] = None
                x0 = peak / bw if bw > 0 else x_lo
                h, = ax.plot([max(x0, x_lo), x_hi], [peak, peak], ls="-" if bound else "--",
                             color=PRECISION_COLOUR.get(p, "k"), lw=1.6, label=text, zorder=2)
                handles.append(h)
        for p in precisions:  # which colour is which precision, also without a roof
            if not any(h.get_label().startswith(f"{p} peak") for h in handles):
                handles.append(Line2D([], [], marker="o", color=PRECISION_COLOUR.get(p, "k"), ls="",
                                      label=f"{p} cases (no known peak)"))
        if rings_red:
            ax.scatter(*zip(*rings_red), s=120, facecolors="none", edgecolors="red", linewidths=1.5,
                       zorder=4)
            handles.append(Line2D([], [], marker="o", mfc="none", mec="red", ls="", ms=10,
                                  label=f"above its own bound: {len(rings_red)} (violation)"))
        if rings_orange:
            ax.scatter(*zip(*rings_orange), s=90, facecolors="none", edgecolors="orange",
                       linewidths=1.2, zorder=4)
            handles.append(Line2D([], [], marker="o", mfc="none", mec="orange", ls="", ms=9,
                                  label=f"above an estimated peak: {len(rings_orange)} (no bound)"))
        title = f"Roofline: {device}" + (" [cuda]" if backend == "cuda" else "")
        roofline_axes(ax, (x_lo, x_hi), (min(ys_all) / 3, y_hi),
                      "arithmetic intensity (flop / byte)", title)
        for fam, (x, y, name, colour) in best.items():
            text = short(fam) + ("" if fam == name else " " + name.rsplit("/", 1)[-1])
            labels.append((1, -y, x, y, text, colour))
        labels.sort()
        place_labels(ax, [(x, y, t, c) for _, _, x, y, t, c in labels])
        legend_outside(ax, handles, below=True)  # below: the roofline keeps the full width
        caption = ("Points: cases (colour = precision, marker = run). Slopes: measured STREAM (the "
                   "memory roof, one per run), DRAM datasheet (where known), best measured cache "
                   "read (cache-resident cases may sit above STREAM). Flat lines: compute peak per "
                   "precision, solid where it is a bound, dashed where it is an estimate. Red "
                   "ring: above its own bound; orange: above an estimated peak that is no bound.")
        images.append(png(fig, out_dir, f"roofline_{n}_{backend}.png" if len(groups) > 1
                          else "roofline.png", title, caption, [runs[i].label for i in by_run]))
    return images, violations


def hierarchy(runs, out_dir):
    """Per backend: latency (ns per load) and read bandwidth against working-set size, runs
    overlaid, with the reported cache capacities (dotted) and the ones detected from the curve
    (solid) marked, from the run's figures.bandwidth."""
    images = []
    for backend in ("host", "cuda"):
        panels = [("latency", "latency per load (ns)", "latency"),
                  ("read", "read bandwidth (GB/s)", "read_bandwidth")]
        have = [p for p in panels if any(
            b.get("params", {}).get("sweep") == p[0] and b.get("backend") == backend
            for run in runs for b in run.measured)]
        if not have:
            continue
        fig, axes = plt.subplots(1, len(have), figsize=(5.6 * len(have), 4), squeeze=False)
        margins(fig)
        shown = []
        for ax, (sweep, ylabel, fig_key) in zip(axes[0], have):
            marked = set()
            for i, run in enumerate(runs):
                bs = sorted((b for b in run.measured if b.get("backend") == backend
                             and b.get("params", {}).get("sweep") == sweep
                             and "working_set_bytes" in b["params"]),
                            key=lambda b: b["params"]["working_set_bytes"])
                if not bs:
                    continue
                if run.label not in shown:
                    shown.append(run.label)
                xs = [b["params"]["working_set_bytes"] for b in bs]
                if sweep == "latency":
                    ys, err = time_points(bs, 1e9)
                    ys = [y / b["params"].get("steps", 1) for y, b in zip(ys, bs)]
                    if err:
                        err = [[e / b["params"].get("steps", 1) for e, b in zip(side, bs)]
                               for side in err]
                else:
                    ys, err = rate_points(bs, lambda b: b["bytes"], 1e9)
                ax.errorbar(xs, ys, yerr=err, marker=".", ms=4, lw=1, color=f"C{i}",
                            ls=RUN_STYLES[i % len(RUN_STYLES)], label=run.label, elinewidth=0.8)
                levels = run.figures.get("bandwidth", {}).get(backend, {}).get(fig_key, {}) \
                    .get("levels", [])
                for lv in levels:
                    key = (lv.get("name"), lv.get("reported_bytes"))
                    if key not in marked and lv.get("reported_bytes"):
                        marked.add(key)
                        ax.axvline(lv["reported_bytes"], color="0.4", ls=":", lw=1)
                        ax.annotate(f"{lv['name']} reported", (lv["reported_bytes"], max(ys)),
                                    rotation=90, fontsize=6, color="0.3", va="top", ha="right")
                    if lv.get("detected_bytes"):
                        ax.axvline(lv["detected_bytes"], color=f"C{i}", ls="-", lw=0.8, alpha=0.6)
            log_axis(ax, "x", 2, in_bytes=True)
            log_axis(ax, "y")
            ax.set_xlabel("working set (bytes)")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{backend}: {ylabel.split(' (')[0]} vs working set", fontsize=9)
            ax.grid(True, which="major", alpha=0.3)
        legend_outside(axes[0][-1])
        title = f"memory hierarchy ({backend})"
        fig.suptitle(title + ": dotted = reported capacity, solid = detected", fontsize=9)
        images.append(png(fig, out_dir, f"hierarchy_{backend}.png", title,
                          "Median per working set, bars: the median's 95% interval.", shown))
    return images
