"""The hierarchical roofline (Yang, Kurth, Williams, "Hierarchical Roofline Analysis for GPUs",
CCPE 2020; issue 29): per run and backend, one bandwidth ceiling per memory level and one compute
roof per precision, each case a point per level at the arithmetic intensity of that level's bytes.

The ceilings are the capacities the run's bounds used (the results entries' `bound.resources`,
harness/bound.h): a level's bandwidth is bytes / its resource time (the median over the cases it
bounds: the level's own plateau), a precision's roof flop / its compute time (the largest); each
keeps its source (spec or measured).
Per-level bytes: without hardware counters, a case's declared bytes cross every level from L1 out
to the level that holds its working set (its memory resource: a DRAM case streams through each
cache on the way), and none beyond it (warm). So a case's points share one intensity, one per
level up to its own, and the gap to each level's ceiling says how close that level is to limiting
it. Cases without flop (copy, a chase) or without a memory resource (link, latency) have no point.
"""
import math
import re

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from .drawing import png, legend_outside, margins, roofline_axes

NOT_MEMORY = ("compute/", "latency", "overhead", "link")


def level_order(name):
    """L1 < L2 < L3 < … < "cache" (the host's last level, when no sweep named the caches) < dram."""
    m = re.fullmatch(r"L(\d+)", name)
    return int(m.group(1)) if m else {"cache": 50, "dram": 100}.get(name, 75)


def memory_level(bound):
    levels = [r for r in bound.get("resources", {}) if not r.startswith(NOT_MEMORY)]
    return max(levels, key=level_order) if levels else None


def hierarchical_data(run, backend):
    """{"levels": {name: {"bytes_per_s", "source"}}, "roofs": {precision: {"flop_per_s",
    "source"}}, "points": [{"case", "level", "intensity", "flop_per_s", "attainable"}]}: the
    ceilings and points of the figure for one run's backend ("host" or "cuda"); None when no case
    of it carries a bound with flop and bytes."""
    cases = [b for b in run.measured
             if b.get("backend", "host") == backend and isinstance(b.get("bound"), dict)
             and b.get("flop", 0) > 0 and b.get("bytes", 0) > 0 and b.get("median_s", 0) > 0
             and b.get("suite") not in ("collectives", "strategies")]
    rates, roofs = {}, {}
    for b in cases:
        for resource, r in b["bound"].get("resources", {}).items():
            if not r.get("time_s", 0) > 0:
                continue
            if resource.startswith("compute/"):
                prec, rate = resource.split("/", 1)[1], b["flop"] / r["time_s"]
                if rate > roofs.get(prec, {}).get("flop_per_s", 0):
                    roofs[prec] = {"flop_per_s": rate, "source": r.get("source", "measured")}
            elif not resource.startswith(NOT_MEMORY):
                rates.setdefault(resource, []).append((b["bytes"] / r["time_s"],
                                                       r.get("source", "measured")))
    if not cases or not rates:
        return None
    # A level's ceiling: the median capacity its cases were bounded by, its own plateau (a working
    # set in the transition past a level is bounded by the faster plateau before it).
    levels = {}
    for name, rs in rates.items():
        rs.sort()
        rate, source = rs[(len(rs) - 1) // 2]
        levels[name] = {"bytes_per_s": rate, "source": source}
    points = []
    for b in cases:
        own = memory_level(b["bound"])
        if own is None:
            continue
        x, y = b["flop"] / b["bytes"], b["flop"] / b["median_s"]
        roof = roofs.get(b.get("precision"), {}).get("flop_per_s", math.inf)
        for name in sorted(levels, key=level_order):
            if level_order(name) > level_order(own):
                break
            attainable = min(levels[name]["bytes_per_s"] * x, roof)
            points.append({"case": b["name"], "level": name, "intensity": x, "flop_per_s": y,
                           "attainable": attainable})
    return {"levels": levels, "roofs": roofs, "points": points}


def hierarchical_roofline(runs, out_dir):
    images = []
    for i, run in enumerate(runs):
        for backend in ("host", "cuda"):
            data = hierarchical_data(run, backend)
            if not data or not data["points"]:
                continue
            fig, ax = plt.subplots(figsize=(8, 5.2))
            margins(fig)
            xs = [p["intensity"] for p in data["points"]]
            ys = [p["flop_per_s"] for p in data["points"]]
            tops = [r["flop_per_s"] for r in data["roofs"].values()]
            x_lo, y_hi = min(xs) / 3, max(ys + tops) * 2.5
            ridges = [t / v["bytes_per_s"] for t in tops for v in data["levels"].values()]
            x_hi = max(max(xs) * 3, 2 * max(ridges, default=0))
            grid = np.logspace(math.log10(x_lo), math.log10(x_hi), 64)
            top = max(tops, default=y_hi)
            handles = []
            order = sorted(data["levels"], key=level_order)
            for k, name in enumerate(order):
                c = data["levels"][name]
                colour = plt.cm.viridis(k / max(len(order) - 1, 1) * 0.85)
                h, = ax.plot(grid, np.minimum(grid * c["bytes_per_s"], top), color=colour,
                             lw=1.3, ls="-" if c["source"] == "spec" else "--",
                             label=f"{name} {c['bytes_per_s'] / 1e9:.4g} GB/s ({c['source']})")
                handles.append(h)
                pts = [p for p in data["points"] if p["level"] == name]
                ax.scatter([p["intensity"] for p in pts], [p["flop_per_s"] for p in pts],
                           color=colour, s=max(30 - 6 * k, 8), alpha=0.7, zorder=3, linewidths=0)
            for k, (prec, r) in enumerate(sorted(data["roofs"].items())):
                h, = ax.plot([x_lo, x_hi], [r["flop_per_s"]] * 2, color=str(0.55 * k / max(
                    len(data["roofs"]) - 1, 1)), lw=1.6, ls="-" if r["source"] == "spec" else "--",
                    label=f"{prec} {r['flop_per_s'] / 1e9:.4g} GFLOP/s ({r['source']})")
                handles.append(h)
            handles.append(Line2D([], [], marker="o", color="0.4", ls="",
                                  label="a case at each level its bytes cross (colour = level)"))
            title = f"Hierarchical roofline: {run.label} [{backend}]"
            roofline_axes(ax, (x_lo, x_hi), (min(ys) / 3, y_hi),
                          "arithmetic intensity at the level (flop / byte)", title)
            legend_outside(ax, handles, below=True)
            caption = ("Yang et al.'s hierarchical roofline from the run's own bounds: a slope per "
                       "level (solid: spec, dashed: measured), a roof per precision; each case is "
                       "a point at every level its declared bytes cross, from L1 to the level that "
                       "holds its working set.")
            im = png(fig, out_dir, f"hierarchical_roofline_{i}_{backend}.png", title, caption,
                     [run.label])
            im["hierarchical"] = data
            images.append(im)
    return images
