"""The speed-of-light panel (issue 29): each case of a run as its % of its own hierarchical bound
(the results entry's `bound`, harness/bound.h), sorted, coloured by the limiter's kind, with the
fraction's interval as error bars and Nsight Compute's 60% line."""
import matplotlib.pyplot as plt

from .drawing import png, legend_outside, margins

KINDS = ["compute", "dram", "L1", "L2", "L3", "latency", "overhead"]


def kind_of(limiter):
    head = limiter.split("/")[0]
    return head if head in KINDS else "other cache"


def speed_of_light(runs, out_dir):
    images = []
    for i, run in enumerate(runs):
        cases = sorted((b for b in run.measured if isinstance(b.get("bound"), dict)),
                       key=lambda b: b["bound"]["fraction"])
        if not cases:
            continue
        fig, ax = plt.subplots(figsize=(9, 4))
        margins(fig)
        for k, kind in enumerate(KINDS + ["other cache"]):
            pts = [(x, b) for x, b in enumerate(cases) if kind_of(b["bound"]["limiter"]) == kind]
            if not pts:
                continue
            ys = [100 * b["bound"]["fraction"] for _, b in pts]
            lo = [y - 100 * b["bound"]["interval"][0] for y, (_, b) in zip(ys, pts)]
            hi = [100 * b["bound"]["interval"][1] - y for y, (_, b) in zip(ys, pts)]
            err = [[max(v, 0) for v in lo], [max(v, 0) for v in hi]]
            ax.errorbar([x for x, _ in pts], ys, yerr=err, fmt="o", ms=3, elinewidth=0.6,
                        color=f"C{k}", label=f"{kind} ({len(pts)})")
        ax.axhline(60, color="grey", ls=":", lw=1, label="60% (speed of light)")
        ax.axhline(100, color="black", lw=0.8)
        ax.set_xlabel("cases, sorted by % of bound")
        ax.set_ylabel("% of its bound (limiter)")
        legend_outside(ax)
        caption = ("each case's time against its hierarchical bound (bound / median, with the "
                   "median's interval), coloured by its limiter; above 100%: faster than a "
                   "measured ceiling (a finding)")
        images.append(png(fig, out_dir, f"speed_of_light_{i}.png", f"Speed of light: {run.label}",
                          caption, [run.label]))
    return images
