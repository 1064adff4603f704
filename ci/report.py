#!/usr/bin/python3
"""boundbench report: the hardware comparison of one or more results files.

    report.py RUN.json [RUN.json ...] --out DIR

Writes DIR/report.html (self-contained: images embedded, opens offline), the PNG files beside it and
DIR/report.json (what each figure shows: title, legend entries, runs; and the headline numbers).
Each run is named by its short label: the results file's top-level `label` (`run --label`), else
the file's name without `.json`; that label is on every legend and headline row.

Contents: a headline table per run (DRAM bandwidth = the best STREAM case, cache read bandwidth per
level apart from it, best FLOP/s per precision, checks); the roofline of each device (measured
STREAM slope, datasheet slope where known, compute roof per precision, points named and any point
above its own bound ringed); the memory hierarchy; precision sweeps as error over its bound; other
swept case families (bandwidth or FLOP/s from zero, else time, with the median's 95% interval as
error bars); and, against the first run, a sorted per-case change view with an interval
(Hodges-Lehmann, below).
New suites' cases appear without changes here. Exit 2 with a one-line error on bad input.
"""
import argparse
import base64
import html
import io
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

# Parameters that make a sweep's x axis, most telling first.
SWEEP_KEYS = ["working_set_bytes", "message_bytes", "n", "k", "fma_per_element", "paths",
              "stride_words", "stride_elements", "warps_per_sm", "blocks", "elements"]
# Sweeps drawn by hierarchy() with their cache marks, not by the generic sweeps().
HIERARCHY_SWEEPS = ("read", "latency")
PRECISIONS = ["fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"]
PRECISION_COLOUR = {p: f"C{i}" for i, p in enumerate(PRECISIONS)}
RUN_MARKERS = "osD^vP*Xh<>"
RUN_STYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (3, 1, 1, 1, 1, 1))]
DPI = 90
CHANGE_THRESHOLD = 0.05  # as `boundbench compare --threshold 5`
Z95 = 1.959964
MAX_PAIR_SAMPLES = 200  # samples kept per run for the Hodges-Lehmann interval (order statistics)


def fail(msg):
    print(f"report: error: {msg}", file=sys.stderr)
    sys.exit(2)


class Run:
    """One results file: its document, measured cases, short label and device."""

    def __init__(self, path, doc, measured):
        self.path, self.doc, self.measured = path, doc, measured
        self.bb = doc["context"]["boundbench"]
        self.figures = doc.get("figures", {}) if isinstance(doc.get("figures"), dict) else {}
        label = doc.get("label")
        if isinstance(label, str) and label.strip():
            self.label = label.strip()
        else:
            base = os.path.basename(path)
            self.label = base[:-5] if base.endswith(".json") else base
        self.verdicts = {f"{c.get('suite')}/{c.get('name')}": c.get("verdict")
                         for c in doc.get("checks", []) if isinstance(c, dict)}

    def gpu(self):
        gpus = self.bb.get("gpus", {})
        if gpus.get("usable") and gpus.get("devices"):
            return gpus["devices"][0]
        return None

    def fingerprint(self):
        fp = self.doc.get("fingerprint", self.bb.get("fingerprint"))
        return fp if isinstance(fp, dict) else None

    def host(self):
        return self.bb.get("host", {})

    def device(self, backend):
        if backend == "cuda":
            return (self.gpu() or {}).get("name", "GPU")
        return self.host().get("cpu_model", "?") + " (host)"

    def backends(self):
        return sorted({b.get("backend", "host") for b in self.measured})


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot be read ({e.strerror})")
    except ValueError as e:
        fail(f"{path}: not valid JSON ({e})")
    if not isinstance(doc, dict) or not isinstance(doc.get("context"), dict) or \
            not isinstance(doc["context"].get("boundbench"), dict) or \
            not isinstance(doc.get("benchmarks"), list):
        fail(f"{path}: not a boundbench results file (no context.boundbench)")
    if doc["context"]["boundbench"].get("schema_version") not in (1, 2):
        fail(f"{path}: schema version {doc['context']['boundbench'].get('schema_version')}, "
             "this report reads 1 to 2")
    measured = [b for b in doc["benchmarks"]
                if isinstance(b, dict) and b.get("run_type") == "iteration"
                and not b.get("error_occurred")]
    if not measured:
        fail(f"{path}: holds no measured case")
    seen = set()
    for b in measured:
        key = (b.get("name"), b.get("repetition_index", 0))
        if key in seen:
            fail(f"{path}: case '{key[0]}' appears twice")
        seen.add(key)
        if not isinstance(b.get("name"), str) or not _positive(b.get("median_s")):
            fail(f"{path}: case '{key[0]}' has no name or no positive median_s")
    try:
        return Run(path, doc, measured)
    except (TypeError, AttributeError) as e:
        fail(f"{path}: malformed results ({type(e).__name__}: {e})")


def unique_labels(runs):
    """Two files called run.json get their folder's name in front; still equal labels a number."""
    dup = {r.label for r in runs if sum(1 for o in runs if o.label == r.label) > 1}
    for r in runs:
        if r.label in dup and not isinstance(r.doc.get("label"), str):
            r.label = os.path.basename(os.path.dirname(os.path.abspath(r.path))) + "/" + r.label
    seen = {}
    for r in runs:
        if r.label in seen:
            seen[r.label] += 1
            r.label = f"{r.label} #{seen[r.label]}"
        else:
            seen[r.label] = 1


def _positive(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 and math.isfinite(x)


def stem(name):
    return re.sub(r"/[^/]*$", "", name)


def short(name):
    """A case name without its suite and backend, for labels: intensity/fp32/k1024."""
    parts = [p for p in name.split("/")[1:] if p not in ("host", "cuda")]
    return "/".join(parts) or name


# ---------------------------------------------------------------- intervals

def time_interval(b):
    """The median's distribution-free interval (schema 2), or None."""
    lo, hi = b.get("median_ci_low_s"), b.get("median_ci_high_s")
    if _positive(lo) and _positive(hi) and lo <= b["median_s"] <= hi:
        return lo, hi
    return None


def rate_points(cases, work_of, scale):
    """y = work/median_s/scale per case, with asymmetric error bars from the median's interval."""
    ys, low, high, have = [], [], [], False
    for b in cases:
        work = work_of(b)
        y = work / b["median_s"] / scale
        iv = time_interval(b)
        ys.append(y)
        if iv:
            have = True
            low.append(y - work / iv[1] / scale)
            high.append(work / iv[0] / scale - y)
        else:
            low.append(0.0)
            high.append(0.0)
    return ys, ([low, high] if have else None)


def time_points(cases, scale):
    ys, low, high, have = [], [], [], False
    for b in cases:
        y = b["median_s"] * scale
        iv = time_interval(b)
        ys.append(y)
        low.append(y - iv[0] * scale if iv else 0.0)
        high.append(iv[1] * scale - y if iv else 0.0)
        have = have or iv is not None
    return ys, ([low, high] if have else None)


def thinned(samples):
    """At most MAX_PAIR_SAMPLES evenly spaced order statistics of the samples: ranks
    (i(n-1) + (cap-1)/2) / (cap-1) in integers, as compare's kept_samples (harness/stats.cpp)."""
    s = sorted(samples)
    n, cap = len(s), MAX_PAIR_SAMPLES
    if n <= cap:
        return np.asarray(s, dtype=float)
    return np.asarray([s[(i * (n - 1) + (cap - 1) // 2) // (cap - 1)] for i in range(cap)])


def hodges_lehmann_ratio(base_samples, new_samples):
    """The ratio new/base of typical times and its ~95% interval, as `boundbench compare` computes
    it (harness/change_interval.cpp): the Hodges-Lehmann shift of the log times (median of all N
    pairwise differences log y_j - log x_i) with the Moses interval [D_(k), D_(N+1-k)] (1-based),
    k = floor(N/2 - z sqrt(n1 n2 (n1+n2+1)/12)), at least 1 (Hollander & Wolfe 4.3; normal
    approximation of U), exponentiated. Each side first thinned to 200 order statistics. Returns
    (ratio, low, high), or None below 2 samples a side."""
    x, y = np.log(thinned(base_samples)), np.log(thinned(new_samples))
    m, n = len(x), len(y)
    if m < 2 or n < 2:
        return None
    d = (y[:, None] - x[None, :]).ravel()
    big_n = d.size
    k = max(int(math.floor(big_n / 2 - Z95 * math.sqrt(m * n * (m + n + 1) / 12.0))), 1)
    mid = [(big_n - 1) // 2, big_n // 2]
    idx = sorted(set([k - 1, big_n - k] + mid))
    part = np.partition(d, idx)
    est = 0.5 * (part[mid[0]] + part[mid[1]])
    return math.exp(est), math.exp(part[k - 1]), math.exp(part[big_n - k])


def case_change(base_cases, new_cases):
    """(ratio, low, high, method) of one case's median time, new over base."""
    bs = [s for b in base_cases for s in b.get("samples_s", []) if _positive(s)]
    ns = [s for b in new_cases for s in b.get("samples_s", []) if _positive(s)]
    if len(bs) >= 2 and len(ns) >= 2:
        r = hodges_lehmann_ratio(bs, ns)
        if r:
            return r + ("hodges-lehmann",)
    base, new = base_cases[0], new_cases[0]
    ratio = new["median_s"] / base["median_s"]
    ib, inew = time_interval(base), time_interval(new)
    if ib and inew:  # both medians' intervals: the widest ratio they allow
        return ratio, inew[0] / ib[1], inew[1] / ib[0], "median intervals"
    return ratio, None, None, "no samples"


def classify(low, high, threshold=CHANGE_THRESHOLD):
    if low is None:
        return "no interval"
    if low > 1 + threshold:
        return "slower"
    if high < 1 - threshold:
        return "faster"
    if low >= 1 - threshold and high <= 1 + threshold:
        return "same"
    return "ambiguous"


# ---------------------------------------------------------------- headline numbers

def stream_best(run, backend):
    """Best STREAM case (DRAM-resident copy/mul/add/triad/dot/nstream): the run's own
    figures.bandwidth.<backend>.stream_best, else the bandwidth suite's kernel cases whose working
    set exceeds the last-level cache. Never a cache-resident read. (bytes_per_s, case, pct|None)."""
    s = run.figures.get("bandwidth", {}).get(backend, {}).get("stream_best")
    if isinstance(s, dict) and _positive(s.get("bytes_per_s")):
        return s["bytes_per_s"], s.get("case", "?"), s.get("pct_of_peak")
    best = None
    for b in run.measured:
        p = b.get("params", {})
        if b.get("suite") != "bandwidth" or b.get("backend") != backend or "kernel" not in p or \
                "stride_elements" in p or "sweep" in p:
            continue
        llc = p.get("last_level_cache_bytes") or (run.gpu() or {}).get("l2_bytes", 0)
        if not (p.get("working_set_bytes", 0) > (llc or 0) > 0):
            continue
        if not best or b.get("bytes_per_s", 0) > best[0]:
            best = (b.get("bytes_per_s", 0), b.get("case", b["name"]),
                    b.get("pct_of_peak_bandwidth"))
    return best


def cache_bandwidths(run, backend):
    """Best measured read bandwidth per cache level: the read sweep's points whose working set lies
    in (previous level, this level], the levels as the run's figures report them."""
    levels = run.figures.get("bandwidth", {}).get(backend, {}).get("read_bandwidth", {}) \
        .get("levels", [])
    pts = [(b["params"]["working_set_bytes"], b.get("bytes_per_s", 0)) for b in run.measured
           if b.get("backend") == backend and b.get("params", {}).get("sweep") == "read"
           and "working_set_bytes" in b["params"]]
    out, prev = [], 0
    for lv in levels:
        cap = lv.get("reported_bytes") or 0
        inside = [bw for ws, bw in pts if prev < ws <= cap]
        if inside:
            out.append((lv.get("name", "?"), max(inside), cap))
        prev = max(prev, cap)
    return out


def datasheet_bandwidth(run, backend):
    if backend == "cuda":
        return (run.gpu() or {}).get("peak_dram_bytes_per_s") or 0
    return max((b.get("peak_bytes_per_s", 0) for b in run.measured
                if b.get("backend") == backend), default=0)  # --host-peak-bw


def compute_roofs(run, backend):
    """{precision: (flop_per_s, is_bound, text)}: the GPU's table peak (the larger of CUDA-core and
    tensor-core), or the host's estimate (fp64; fp32 = 2x the lanes), a bound only where the run's
    clock is the maximum one (harness/measure.cpp's rule)."""
    roofs = {}
    if backend == "cuda":
        dev = run.gpu() or {}
        for p in PRECISIONS:
            peak = max(dev.get("peak_cuda_core_flop_per_s", {}).get(p, 0) or 0,
                       dev.get("peak_tensor_flop_per_s", {}).get(p, 0) or 0)
            if peak > 0:
                roofs[p] = (peak, True, f"{p} peak {peak / 1e12:.3g} TFLOP/s (datasheet)")
        return roofs
    host = run.host()
    est = host.get("peak_fp64_flop_per_s_estimate") or 0
    if est > 0:
        bound = host.get("clock_is_max") is True
        ghz = (host.get("cpu_clock_hz") or 0) / 1e9
        why = "bound" if bound else f"estimate at {ghz:.2f} GHz, not the max clock: no bound"
        for p, factor in (("fp64", 1), ("fp32", 2)):
            roofs[p] = (est * factor, bound, f"{p} peak {est * factor / 1e9:.0f} GFLOP/s ({why})")
    return roofs


# ---------------------------------------------------------------- drawing

def legend_texts(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def tick_text(v, _pos=None):
    """Plain tick labels (mathtext labels cost most of a log axis' drawing time)."""
    if v == 0:
        return "0"
    if 1e-3 <= abs(v) < 1e5:
        return f"{v:g}"
    e = int(math.floor(math.log10(abs(v)) + 1e-9))
    m = round(v / 10 ** e, 3)
    return f"1e{e}" if m == 1 else f"{m:g}e{e}"


def bytes_tick_text(v, _pos=None):
    if v < 1024:
        return f"{v:g}"
    for unit in ("Ki", "Mi", "Gi", "Ti"):
        v /= 1024
        if v < 1024:
            return f"{v:g}{unit}"
    return f"{v:g}Pi"


def power_of_two_text(v, _pos=None):
    e = math.log2(v) if v > 0 else 0.5
    return f"{v:g}" if v < 1e5 or e != int(e) else f"2^{int(e)}"


def log_axis(ax, which, base=10, in_bytes=False):
    """A log axis with plain tick labels and no minor ticks (mathtext labels and minor ticks cost
    most of the drawing time)."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=base)
    text = bytes_tick_text if in_bytes else power_of_two_text if base == 2 else tick_text
    axis.set_major_formatter(ticker.FuncFormatter(text))
    axis.set_minor_locator(ticker.NullLocator())


def png(fig, out_dir, name, title, caption, runs_shown):
    """Save fig as name; returns the figure's manifest entry (with its base64 for the page)."""
    for ax in fig.axes:  # a log axis spanning under 2.5 decades gets 1-2-5 ticks, not one or none
        for axis, lim in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            plain = getattr(axis.get_major_formatter(), "func", None) is tick_text
            if axis.get_scale() == "log" and plain and min(lim) > 0 and \
                    math.log10(max(lim) / min(lim)) < 2.5:
                axis.set_major_locator(ticker.LogLocator(10, subs=(1.0, 2.0, 5.0)))
    texts = [t for ax in fig.axes for t in legend_texts(ax)]
    for leg in fig.legends:
        texts += [t.get_text() for t in leg.get_texts()]
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    data = buf.getvalue()
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)
    return {"file": name, "title": title, "caption": caption, "legend": texts,
            "runs": runs_shown, "data": base64.b64encode(data).decode("ascii")}


def legend_outside(ax, handles=None, fontsize=7, below=False):
    """The legend beside the axes (right), or under them, never over the data; the figure grows by
    the legend's estimated size so that the axes keep theirs (no bbox_inches="tight": that draws
    every figure twice)."""
    kw = {"handles": handles} if handles is not None else {}
    if below:
        leg = ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), fontsize=fontsize,
                        borderaxespad=0.0, **kw)
    else:
        leg = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=fontsize,
                        borderaxespad=0.0, **kw)
    texts = [t.get_text() for t in leg.get_texts()]
    fig = ax.figure
    w, h = fig.get_size_inches()
    if below:  # the margin under the axes already holds the tick labels and the axis label
        need = (len(texts) * fontsize * 1.4 + 16) / 72 + 0.13 * ax.get_position().height * h
        grow(fig, below=max(0.0, need - ax.get_position().y0 * h + 0.1))
    else:
        need = (max(map(len, texts), default=0) * 0.52 * fontsize + 40) / 72
        grow(fig, right=max(0.0, need - (1 - ax.get_position().x1) * w + 0.15))


def grow(fig, right=0.0, below=0.0, left=0.0):
    """Widen the figure by `right` and `left` inches and heighten it by `below`, the axes unchanged
    in size."""
    w, h = fig.get_size_inches()
    sp = fig.subplotpars
    left_in, right_in, bottom_in, top_in = sp.left * w, sp.right * w, sp.bottom * h, sp.top * h
    w2, h2 = w + right + left, h + below
    fig.set_size_inches(w2, h2)
    fig.subplots_adjust(left=(left_in + left) / w2, right=(right_in + left) / w2,
                        bottom=(bottom_in + below) / h2, top=(top_in + below) / h2)


def margins(fig, left_in=0.85, bottom_in=0.6):
    """At least this much room for the y and x axis labels (no tight bbox to find it)."""
    w, h = fig.get_size_inches()
    sp = fig.subplotpars
    grow(fig, left=max(0.0, left_in - sp.left * w), below=max(0.0, bottom_in - sp.bottom * h))


def place_labels(ax, candidates, fontsize=6, max_labels=40):
    """Greedy labels: each (x, y, text, colour) in priority order is placed at the first of four
    offsets where its box (estimated from the text length) overlaps no placed box and stays in the
    axes; the rest stay unnamed. Needs the axes' limits set."""
    fig = ax.figure
    to_px = ax.transData.transform
    bbox = ax.get_window_extent()
    scale = fig.dpi / 72.0
    placed, count = [], 0
    for x, y, text, colour in candidates:
        if count >= max_labels:
            break
        px, py = to_px((x, y))
        w, h = 0.6 * fontsize * len(text) * scale, 1.2 * fontsize * scale
        for dx, dy in ((4, 3), (4, -3 - 1.2 * fontsize), (-4, 3), (-4, -3 - 1.2 * fontsize)):
            x0 = px + dx * scale - (w if dx < 0 else 0)
            y0 = py + dy * scale
            box = (x0, y0, x0 + w, y0 + h)
            if box[0] < bbox.x0 or box[2] > bbox.x1 or box[1] < bbox.y0 or box[3] > bbox.y1:
                continue
            if any(not (box[2] < b[0] or box[0] > b[2] or box[3] < b[1] or box[1] > b[3])
                   for b in placed):
                continue
            placed.append(box)
            ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                        fontsize=fontsize, color=colour, ha="right" if dx < 0 else "left",
                        va="bottom", zorder=5)
            count += 1
            break
    return count


def roofline(runs, out_dir):
    """One figure per device: each run's points (marker per run, colour per precision), the
    measured STREAM slope per run, the datasheet slope and the L1 read slope where known, and the
    compute roof of each precision present. A point above its own bound is ringed red; above a
    host peak that is only an estimate, orange."""
    groups = {}
    for i, run in enumerate(runs):
        for b in run.measured:
            if b.get("flop", 0) > 0 and b.get("bytes", 0) > 0 and b.get("suite") != "collectives":
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
        log_axis(ax, "x")
        log_axis(ax, "y")
        ax.set_xlim(x_lo, x_hi)
        ax.set_ylim(min(ys_all) / 3, y_hi)
        ax.set_xlabel("arithmetic intensity (flop / byte)")
        ax.set_ylabel("attained FLOP/s (median)")
        title = f"Roofline: {device}" + (" [cuda]" if backend == "cuda" else "")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
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


def changes(base, new):
    """Per matched case (same name): (name, ratio, low, high, class, method); and the cases whose
    params differ (never compared as the same case)."""
    def by_name(run):
        out = {}
        for b in run.measured:
            out.setdefault(b["name"], []).append(b)
        return out
    bb, nb = by_name(base), by_name(new)
    rows, differ = [], []
    for name in sorted(set(bb) & set(nb)):
        if bb[name][0].get("params") != nb[name][0].get("params"):
            differ.append(name)
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
                   f"; interval: {', '.join(methods)}. Colour by where the interval lies against "
                   f"±{CHANGE_THRESHOLD:.0%}; the verdict (with FDR control) is "
                   "`boundbench compare`'s.")
        differ_fp = fingerprint_difference(base, new)
        if new.device(new.backends()[0]) != base.device(base.backends()[0]) or differ_fp:
            caption += " Different machines" + \
                (f" (fingerprints differ in {', '.join(differ_fp)})" if differ_fp else "") + \
                ": the ratios compare machines, not builds."
        images.append(png(fig, out_dir, f"change_{j:02d}.png", title, caption,
                          [base.label, new.label]))
        tables.append((title, rows, differ, counts))
    return images, tables


# ---------------------------------------------------------------- text

def hierarchy_text(run):
    parts = []
    for backend, f in run.figures.get("bandwidth", {}).items():
        lat = f.get("latency", {})
        levels = []
        for lv in lat.get("levels", []):
            det = lv.get("detected_bytes")
            levels.append(f"{lv['name']} {human_bytes(det) if det else 'no step'} / "
                          f"{human_bytes(lv['reported_bytes'])}")
        plateaus = ", ".join(f"{p['latency_ns']:.3g} ns" for p in lat.get("plateaus", []))
        if not levels and not plateaus:
            continue
        text = f"{backend}: " + "; ".join(levels)
        if plateaus:
            text += f"; latency plateaus {plateaus}"
        parts.append(text)
    return " | ".join(parts) or "-"


def human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} TiB"


def collectives_text(run):
    out = []
    for transport, groups in run.figures.get("collectives", {}).items():
        best = max((g for g in groups.values() if g.get("series")), key=lambda g: g.get("ranks", 0),
                   default=None)
        if not best:
            continue
        for name, s in best["series"].items():
            if name.startswith("all_reduce/") and s.get("link_bytes_per_s"):
                out.append(f"{transport} p={best['ranks']}: alpha {s['alpha_s'] * 1e6:.2f} us, "
                           f"link {s['link_bytes_per_s'] / 1e9:.3g} GB/s")
    return "; ".join(out) or "-"


def attention_text(run):
    best = {}
    for b in run.measured:
        if b.get("suite") == "attention" and b.get("flop_per_s", 0) > 0:
            key = re.sub(r"/n\d+$", "", b["case"])
            best[key] = max(best.get(key, 0), b["flop_per_s"])
    return "; ".join(f"{k}: {v / 1e12:.3g}" for k, v in sorted(best.items())) or "-"


def quantize_text(run):
    """Quantization kernels are memory-bound: their bandwidth as % of the same run's best STREAM
    on the same backend (the issue's target: >= 85% on an H200)."""
    parts = {}
    for b in run.measured:
        backend = b.get("backend")
        s = stream_best(run, backend) if b.get("suite") == "precision" and \
            b.get("case", "").startswith("quantize/") else None
        if s and b.get("bytes_per_s", 0) > 0:
            parts.setdefault(backend, []).append(100 * b["bytes_per_s"] / s[0])
    return "; ".join(f"{k}: {min(v):.0f}-{max(v):.0f}% of STREAM ({len(v)} cases)"
                     for k, v in sorted(parts.items())) or "-"


def headline(run):
    """The headline numbers of one run, as a dict (also written to report.json)."""
    checks = run.doc.get("checks", [])
    counts = {v: sum(1 for c in checks if c.get("verdict") == v)
              for v in ("PASS", "FAIL", "SKIP", "INCONCLUSIVE", "BELOW-EXPECTATION")}
    dram, cache, flops = {}, {}, {}
    for backend in run.backends():
        s = stream_best(run, backend)
        if s:
            dram[backend] = {"bytes_per_s": s[0], "case": s[1], "pct_of_peak": s[2],
                             "datasheet_bytes_per_s": datasheet_bandwidth(run, backend) or None}
        cache[backend] = [{"level": n, "bytes_per_s": bw, "level_bytes": cap}
                          for n, bw, cap in cache_bandwidths(run, backend)]
        roofs = compute_roofs(run, backend)
        for b in run.measured:
            p = b.get("precision")
            if b.get("backend") == backend and b.get("flop_per_s", 0) > 0 and \
                    b.get("suite") != "collectives" and \
                    b["flop_per_s"] > flops.get((backend, p), {}).get("flop_per_s", 0):
                roof = roofs.get(p)
                flops[(backend, p)] = {"flop_per_s": b["flop_per_s"], "case": b["name"],
                                       "pct_of_peak":
                                           100 * b["flop_per_s"] / roof[0] if roof else None,
                                       "peak_is_bound": roof[1] if roof else None}
    return {"label": run.label, "file": run.path,
            "device": " + ".join(run.device(b) for b in run.backends()),
            "date": str(run.bb.get("date", "")), "commit": str(run.bb.get("git_commit", ""))[:10],
            "dram": dram, "cache": cache,
            "flops": {f"{b}/{p}": v for (b, p), v in sorted(flops.items())},
            "checks": counts,
            "failed": [f"{c['suite']}/{c['name']}" for c in checks if c.get("verdict") == "FAIL"]}


def headline_cells(run, h):
    dram = "; ".join(
        f"{b}: {d['bytes_per_s'] / 1e9:.3g} GB/s ({d['case']})" +
        (f", {d['pct_of_peak']:.0f}% of datasheet" if d.get("pct_of_peak") else "")
        for b, d in h["dram"].items()) or "- (no DRAM-resident STREAM case)"
    cache = "; ".join(f"{b}: " + ", ".join(f"{c['level']} {c['bytes_per_s'] / 1e9:.3g}"
                                            for c in cs) + " GB/s"
                      for b, cs in h["cache"].items() if cs) or "-"
    flops = "; ".join(
        f"{k}: {v['flop_per_s'] / 1e9:.4g} GFLOP/s ({short(v['case'])}" +
        (f", {v['pct_of_peak']:.0f}% of {'peak' if v['peak_is_bound'] else 'estimate'}"
         if v["pct_of_peak"] is not None else "") + ")"
        for k, v in h["flops"].items()) or "-"
    c = h["checks"]
    return [h["label"], h["device"], dram, cache, hierarchy_text(run), flops, collectives_text(run),
            attention_text(run), quantize_text(run),
            f"{c['PASS']} / {c['FAIL']} / {c['INCONCLUSIVE']} / {c['BELOW-EXPECTATION']} / "
            f"{c['SKIP']}", ", ".join(h["failed"]) or "-"]


def table(head, rows):
    out = "<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
    for row in rows:
        out += "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
    return out + "</table>"


def change_table(title, rows, differ, counts):
    shown = [r for r in rows if r[4] in ("slower", "faster", "ambiguous")]
    shown.sort(key=lambda r: -abs(math.log(r[1])))
    body = [[r[0], f"{r[1]:.3f}",
             f"[{r[2]:.3f}, {r[3]:.3f}]" if r[2] is not None else "-", r[4].upper()]
            for r in shown[:40]]
    text = ", ".join(f"{k} {v}" for k, v in counts.items() if v)
    more = f" (the 40 largest of {len(shown)})" if len(shown) > 40 else ""
    out = f"<h3>{html.escape(title)}</h3><p>{html.escape(text)}; changed or ambiguous{more}:</p>"
    out += table(["case", "ratio new/base", "95% interval", "class"], body) if body else \
        "<p>no case whose interval lies outside ±5%.</p>"
    if differ:
        out += f"<p>not comparable, params differ: {html.escape(', '.join(differ[:20]))}" + \
            (" …" if len(differ) > 20 else "") + "</p>"
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="RUN.json")
    ap.add_argument("--out", required=True, metavar="DIR")
    args = ap.parse_args(argv)
    runs = [load(path) for path in args.runs]
    unique_labels(runs)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        fail(f"{args.out}: cannot create ({e.strerror})")

    try:
        write_report(runs, args.out)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        # A file that passed load() yet holds a field of the wrong type or shape.
        fail(f"malformed results ({type(e).__name__}: {e}) in one of: {', '.join(args.runs)}")
    except OSError as e:
        fail(f"{args.out}: cannot write ({e.strerror})")
    return 0


def write_report(runs, out_dir):
    images, violations = roofline(runs, out_dir)
    images += hierarchy(runs, out_dir)
    images += sweeps(runs, out_dir)
    images += gemm_error(runs, out_dir)
    images += attention(runs, out_dir)
    images += collectives(runs, out_dir)
    change_images, change_tables = before_after(runs, out_dir)
    images += change_images

    heads = [headline(r) for r in runs]
    runs_table = table(["label", "file", "device", "date", "commit", "schema", "cases"],
                       [[r.label, os.path.basename(r.path), h["device"], h["date"][:16],
                         h["commit"], r.bb.get("schema_version"), len(r.measured)]
                        for r, h in zip(runs, heads)])
    head = ["run", "device", "DRAM bandwidth (best STREAM case)", "cache read bandwidth (measured)",
            "caches (detected / reported) and latency", "best FLOP/s per precision",
            "collectives: all_reduce alpha, link (most ranks)",
            "attention: best TFLOP/s per kernel", "quantize: bandwidth vs STREAM",
            "checks pass / fail / inconclusive / below expectation / skip", "failed checks"]
    headline_table = table(head, [headline_cells(r, h) for r, h in zip(runs, heads)])
    violation_text = ("<p><b>Above their own bound:</b> " + html.escape("; ".join(violations)) +
                      "</p>") if violations else ""
    figures = "".join(
        f'<figure><img alt="{html.escape(im["file"])}" src="data:image/png;base64,{im["data"]}">'
        f"<figcaption><b>{html.escape(im['title'])}</b> ({html.escape(', '.join(im['runs']))}): "
        f"{html.escape(im['caption'])}</figcaption></figure>" for im in images)
    changes_html = "".join(change_table(*t) for t in change_tables)
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>boundbench report</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin-bottom:1em}}
td,th{{border:1px solid #ccc;padding:4px 8px;font-size:13px;vertical-align:top;min-width:4em;
max-width:28em;overflow-wrap:break-word}}
figure{{display:inline-block;margin:1em;vertical-align:top;max-width:820px}}
figcaption{{font-size:12px;color:#333}}img{{max-width:820px}}</style></head><body>
<h1>boundbench report: {html.escape(" · ".join(r.label for r in runs))}</h1>
<h2>Runs</h2>{runs_table}
<h2>Headline figures</h2>{headline_table}{violation_text}
<h2>Figures</h2>{figures}
{"<h2>Before / after (against " + html.escape(runs[0].label) + ")</h2>" + changes_html
     if changes_html else ""}</body></html>
"""
    manifest = {"runs": heads, "violations": violations,
                "figures": [{k: v for k, v in im.items() if k != "data"} for im in images],
                "changes": [{"title": t, "counts": c, "not_comparable": d,
                             "cases": [{"name": r[0], "ratio": r[1], "low": r[2], "high": r[3],
                                        "class": r[4], "method": r[5]} for r in rows]}
                            for t, rows, d, c in change_tables]}
    for name, text in (("report.json", json.dumps(manifest, indent=1)), ("report.html", page)):
        tmp = os.path.join(out_dir, name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(out_dir, name))
    print(f"report: {os.path.join(out_dir, 'report.html')} with {len(images)} figure(s)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
