"""The swept case families: generic sweeps, collectives, attention and GEMM error."""
import re

import matplotlib.pyplot as plt

from .drawing import log_axis, png, legend_outside, margins
from .intervals import rate_points, time_points
from .runs import SWEEP_KEYS, HIERARCHY_SWEEPS, PRECISIONS, RUN_STYLES, stem


def families(measured):
    """Cases grouped by suite and name stem, with the numeric parameter that varies in the group."""
    groups = {}
    for b in measured:
        p = b.get("params", {})
        if p.get("sweep") in HIERARCHY_SWEEPS or "gemm_mode" in p or \
                b.get("suite") in ("collectives", "attention"):
            continue  # drawn by hierarchy(), collectives(), attention() and gemm_error()
        groups.setdefault(stem(b["name"]), []).append(b)
    result = {}
    for s, members in groups.items():
        if len(members) < 3:
            continue
        keys = [k for k in SWEEP_KEYS
                if all(isinstance(m.get("params", {}).get(k), (int, float)) for m in members)
                and len({m["params"][k] for m in members}) == len(members)]
        if keys:
            result[s] = (keys[0], members)
    return result


def is_error_family(members):
    return all(isinstance(m.get("observations", {}).get("worst_error_over_bound"), (int, float))
               for m in members)


def figure_key(s, members):
    """Error families share one figure per kind (precision/summation/host); others per stem with
    the dtype left out (intensity fp32 and fp64 together)."""
    parts = s.split("/")
    backend = members[0].get("backend", "host")
    if is_error_family(members):
        return "/".join(parts[:2]) + "/" + backend, "error"
    key = "/".join(p for p in parts if p not in PRECISIONS)
    return key, "rate"


def sweeps(runs, out_dir):
    figs = {}
    for i, run in enumerate(runs):
        for s, (key, members) in families(run.measured).items():
            fkey, kind = figure_key(s, members)
            figs.setdefault((fkey, kind), {}).setdefault((s, key), {})[i] = members
    images = []
    for n, ((fkey, kind), series) in enumerate(sorted(figs.items())):
        fig, ax = plt.subplots(figsize=(6.4, 3.8))
        margins(fig)
        ylabel, shown, xkeys = "", [], set()
        colours = {}
        for (s, key), by_run in sorted(series.items()):
            xkeys.add(key)
            rest = s[len(fkey.rsplit("/", 1)[0]):].strip("/") if kind == "error" else \
                "/".join(p for p in s.split("/") if p in PRECISIONS)
            for i, members in sorted(by_run.items()):
                run = runs[i]
                if run.label not in shown:
                    shown.append(run.label)
                members = sorted(members, key=lambda b: b["params"][key])
                xs = [b["params"][key] for b in members]
                label = (rest + " · " if rest else "") + run.label
                colour = colours.setdefault(rest, f"C{len(colours) % 10}") if len(series) > 1 \
                    else f"C{i % 10}"
                style = RUN_STYLES[i % len(RUN_STYLES)]
                if kind == "error":
                    ys = [b["observations"]["worst_error_over_bound"] for b in members]
                    ax.plot(xs, ys, marker="o", ms=4, color=colour, ls=style, label=label)
                    ylabel = "worst error / its bound"
                    continue
                flop_sweep = len({b.get("bytes") for b in members}) == 1 and \
                    len({b.get("flop") for b in members}) > 1 and members[0].get("flop", 0) > 0
                if flop_sweep:
                    ys, err = rate_points(members, lambda b: b["flop"], 1e9)
                    ylabel = "GFLOP/s (median)"
                elif all(b.get("bytes", 0) > 0 for b in members):
                    ys, err = rate_points(members, lambda b: b["bytes"], 1e9)
                    ylabel = "bandwidth (GB/s, median)"
                else:
                    ys, err = time_points(members, 1e6)
                    ylabel = "median time (us)"
                ax.errorbar(xs, ys, yerr=err, marker="o", ms=4, color=colour, ls=style,
                            label=label, elinewidth=0.8, capsize=2)
        xs_all = [x for line in ax.get_lines() for x in line.get_xdata()]
        if xs_all and max(xs_all) / max(min(xs_all), 1e-300) > 8:
            log_axis(ax, "x", 2, in_bytes=all(k.endswith("bytes") for k in xkeys))
        if kind == "error":
            log_axis(ax, "y")
            ax.axhline(1.0, color="red", lw=1.2, label="the bound (= 1)")
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo, max(hi, 2.0))
            title = f"{fkey}: worst error over its bound vs {'/'.join(sorted(xkeys))}"
        elif ylabel.startswith("median time"):
            log_axis(ax, "y")
            title = f"{fkey}: time vs {'/'.join(sorted(xkeys))}"
        else:
            ax.set_ylim(bottom=0)
            title = f"{fkey}: {ylabel.split(' (')[0]} vs {'/'.join(sorted(xkeys))}"
        ax.set_xlabel("/".join(sorted(xkeys)))
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=9)
        ax.grid(True, alpha=0.3)
        legend_outside(ax)
        caption = ("Above the red line the error exceeds its bound." if kind == "error" else
                   "Bars: the median's 95% interval (schema 2 runs); rates from zero.")
        images.append(png(fig, out_dir, f"sweep_{n:02d}_{re.sub(r'[^A-Za-z0-9]+', '_', fkey)}.png",
                          title, caption, shown))
    return images


def collectives(runs, out_dir):
    """busbw against message size per transport and rank count, one line per collective (the
    fp32 sweep), with the fitted alpha-beta model dotted; runs overlaid (line style per run)."""
    groups = {}
    for i, run in enumerate(runs):
        for b in run.measured:
            p = b.get("params", {})
            if b.get("suite") == "collectives" and p.get("sweep") and p.get("ranks", 1) > 1:
                groups.setdefault((p["transport"], p["ranks"]), []).append((i, b))
    images = []
    for (transport, ranks), members in sorted(groups.items()):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        margins(fig)
        series = {}
        for i, b in members:
            p = b["params"]
            name = f"{p['collective']}/{p['dtype']}" + \
                (f"/{p['redop']}" if p.get("redop") else "") + \
                ("/in-place" if p["in_place"] else "/out-of-place")
            series.setdefault((i, name), []).append(b)
        order = sorted({k[1] for k in series})
        shown = []
        for (i, name), bs in sorted(series.items()):
            run = runs[i]
            if run.label not in shown:
                shown.append(run.label)
            bs.sort(key=lambda b: b["params"]["bytes"])
            xs = [b["params"]["bytes"] for b in bs]
            color = f"C{order.index(name) % 10}"  # one colour per collective, one style per run
            ax.plot(xs, [b["busbw_bytes_per_s"] / 1e9 for b in bs], marker=".", ms=3,
                    ls=RUN_STYLES[i % len(RUN_STYLES)], color=color, label=f"{name} · {run.label}")
            fit = run.figures.get("collectives", {}).get(transport, {}) \
                .get(f"p{ranks}", {}).get("series", {}).get(name, {})
            if fit.get("link_bytes_per_s") and "latency_terms" in fit:
                # The fitted model, in the run's own terms (theory/collectives.h).
                model = [fit["bus_factor"] * x / (fit["latency_terms"] * fit["alpha_s"] +
                                                  fit["byte_terms"] * x / fit["link_bytes_per_s"])
                         / 1e9 for x in xs]
                ax.plot(xs, model, linestyle=(0, (1, 3)), color=color, linewidth=1)
        log_axis(ax, "x", 2, in_bytes=True)
        log_axis(ax, "y")
        ax.set_xlabel("message size n (bytes, nccl-tests' convention)")
        ax.set_ylabel("busbw (GB/s)")
        title = f"{transport}, {ranks} ranks: busbw vs size"
        ax.set_title(title + " (dotted: fitted alpha-beta model)", fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        legend_outside(ax, fontsize=6)
        images.append(png(fig, out_dir, f"collectives_{transport}_p{ranks}.png", title,
                          "Line style per run, colour per collective.", shown))
    return images


def attention(runs, out_dir):
    """Time against n on log-log axes per backend, with each series' fitted exponent and n^2."""
    images = []
    backends = sorted({bk for run in runs for bk in run.figures.get("attention", {})})
    for backend in backends:
        fig, ax = plt.subplots(figsize=(6.4, 4))
        margins(fig)
        shown, law = [], False
        for i, run in enumerate(runs):
            f = run.figures.get("attention", {}).get(backend, {})
            cases = {}
            for b in run.measured:
                if b.get("suite") == "attention" and b.get("backend") == backend:
                    key = re.sub(r"/n\d+$", "", b.get("case", ""))
                    key = re.sub(r"/(host|cuda)(?=/|$)", "", key)
                    cases[(key, b.get("params", {}).get("n"))] = b
            for n, (name, s) in enumerate(sorted(f.get("series", {}).items())):
                if run.label not in shown:
                    shown.append(run.label)
                slope = s.get("exponent")
                text = f"{name}: slope {slope:.2f}" if slope is not None else name
                matched = [cases.get((name, x)) for x in s["n"]]
                err = None
                if all(matched):
                    _, err = time_points(matched, 1.0)
                ax.errorbar(s["n"], s["median_s"], yerr=err, marker="o", ms=4,
                            color=f"C{(i * 4 + n) % 10}", ls=RUN_STYLES[i % len(RUN_STYLES)],
                            label=f"{text} · {run.label}", elinewidth=0.8, capsize=2)
                if n == 0 and len(s["n"]) >= 2:  # the law, through the last point
                    x1, t1 = s["n"][-1], s["median_s"][-1]
                    ax.plot(s["n"], [t1 * (x / x1) ** 2 for x in s["n"]], color="grey",
                            linestyle=":", label=None if law else "n^2 (the law)")
                    law = True
        log_axis(ax, "x", 2)
        log_axis(ax, "y")
        ax.set_xlabel("sequence length n")
        ax.set_ylabel("median time (s)")
        title = f"attention on {backend}: time vs n"
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        legend_outside(ax)
        images.append(png(fig, out_dir, f"attention_{backend}.png", title,
                          "Bars: the median's 95% interval (schema 2 runs).", shown))
    return images


def gemm_error(runs, out_dir):
    """GEMM error vs K against its bound: per mode, backend and data set of each run, the median of
    |C^ - C|_ij / (|A||B|)_ij (solid) and the deterministic bound factor the case reported (dashed,
    one per mode and backend), log-log. Read from the cases' observations, not re-derived here."""
    fig, ax = plt.subplots(figsize=(7, 4.4))
    margins(fig)
    drawn, colour, shown = 0, {}, []
    for i, run in enumerate(runs):
        series, bounds = {}, {}
        for b in run.measured:
            p, o = b.get("params", {}), b.get("observations", {})
            if "gemm_mode" not in p or p.get("throughput") or \
                    o.get("median_normalized_error") is None or "k" not in p:
                continue
            key = (p["gemm_mode"], b.get("backend", "?"), p.get("data", "?"))
            series.setdefault(key, []).append((p["k"], o["median_normalized_error"]))
            if o.get("bound_factor") is not None:
                bounds.setdefault(key[:2], {})[p["k"]] = o["bound_factor"]
        if series and run.label not in shown:
            shown.append(run.label)
        for key, pts in sorted(series.items()):
            pts.sort()
            c = colour.setdefault((i,) + key[:2], f"C{len(colour) % 10}")
            ax.plot([k for k, _ in pts], [max(e, 1e-30) for _, e in pts],
                    marker="o" if key[2] != "zero_mean" else "s", ms=4, color=c,
                    linestyle="-" if key[2] != "zero_mean" else "-.",
                    label="/".join(key) + f" median · {run.label}")
            drawn += 1
        for key, by_k in sorted(bounds.items()):
            ks = sorted(by_k)
            ax.plot(ks, [by_k[k] for k in ks], color=colour[(i,) + key], linestyle="--",
                    label="/".join(key) + f" bound · {run.label}")
    if not drawn:
        plt.close(fig)
        return []
    log_axis(ax, "x", 2)
    log_axis(ax, "y")
    ax.set_xlabel("inner dimension K")
    ax.set_ylabel("|C^ - C| / (|A||B|)  (median over entries)")
    title = "GEMM error vs K against its bound (dashed)"
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="major", alpha=0.3)
    legend_outside(ax, fontsize=6)
    return [png(fig, out_dir, "gemm_error_vs_k.png", title,
                "Below its dashed bound the error obeys the law.", shown)]
