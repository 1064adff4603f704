"""Drawing helpers: plain log axes, legends outside the axes, margins, labels, PNG output."""
import base64
import io
import math
import os

import matplotlib.pyplot as plt
from matplotlib import ticker

from .runs import DPI


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


def roofline_axes(ax, x_range, y_range, xlabel, title):
    """The axes both rooflines share (roofline.py, hierarchical.py): log-log over the given
    ranges, attained FLOP/s up the side, the title and a major grid; the x label says at which
    level the intensity is taken."""
    log_axis(ax, "x")
    log_axis(ax, "y")
    ax.set_xlim(*x_range)
    ax.set_ylim(*y_range)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("attained FLOP/s (median)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)


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
