#!/usr/bin/python3
"""boundbench report: the hardware comparison of one or more results files.

    report.py RUN.json [RUN.json ...] --out DIR

Writes DIR/report.html (self-contained: images embedded, opens offline) and the PNG files beside it:
a headline table per run (device, bandwidth and % of peak, FLOP/s, checks), the roofline of every
run with each measured case on it, and one plot per swept case family (time, or bandwidth where the
cases move bytes, against the parameter that varies), runs overlaid. New suites' cases appear
without changes here. Exit 2 with a one-line error on bad input.
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

# Parameters that make a sweep's x axis, most telling first.
SWEEP_KEYS = ["working_set_bytes", "message_bytes", "n", "k", "fma_per_element", "paths",
              "stride_words", "stride_elements", "warps_per_sm", "blocks", "elements"]
# Sweeps drawn by hierarchy() with their cache marks, not by the generic sweeps().
HIERARCHY_SWEEPS = ("read", "latency")


def fail(msg):
    print(f"report: error: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot be read ({e.strerror})")
    except ValueError as e:
        fail(f"{path}: not valid JSON ({e})")
    if not isinstance(doc, dict) or "boundbench" not in doc.get("context", {}) or \
            not isinstance(doc.get("benchmarks"), list):
        fail(f"{path}: not a boundbench results file (no context.boundbench)")
    if doc["context"]["boundbench"].get("schema_version") not in (1, 2):
        fail(f"{path}: schema version {doc['context']['boundbench'].get('schema_version')}, "
             "this report reads 1 to 2")
    measured = [b for b in doc["benchmarks"]
                if b.get("run_type") == "iteration" and not b.get("error_occurred")]
    if not measured:
        fail(f"{path}: holds no measured case")
    seen = set()
    for b in measured:
        key = (b.get("name"), b.get("repetition_index", 0))
        if key in seen:
            fail(f"{path}: case '{key[0]}' appears twice")
        seen.add(key)
    return doc, measured


def device_of(doc):
    bb = doc["context"]["boundbench"]
    gpus = bb.get("gpus", {})
    if gpus.get("usable") and gpus.get("devices"):
        return gpus["devices"][0]["name"], gpus["devices"][0]
    return bb.get("host", {}).get("cpu_model", "?") + " (host)", None


def label_of(doc):
    bb = doc["context"]["boundbench"]
    return f"{device_of(doc)[0]} · {bb.get('date', '')[:10]} · {bb.get('git_commit', '')[:8]}"


def png(fig, out_dir, name):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    data = buf.getvalue()
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)
    return name, base64.b64encode(data).decode("ascii")


def log_log_axes(ax, xlabel, ylabel, title, x_base=10):
    """The axes every log-log figure here shares: scales, labels, title and a light grid."""
    ax.set_xscale("log", base=x_base)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)


def roofline(runs, out_dir):
    fig, ax = plt.subplots(figsize=(7.5, 5))
    any_point = False
    for i, (doc, measured, label) in enumerate(runs):
        color = f"C{i}"
        pts = [(b["flop"] / b["bytes"], b["flop"] / b["median_s"], b["name"])
               for b in measured if b.get("flop", 0) > 0 and b.get("bytes", 0) > 0]
        if not pts:
            continue
        any_point = True
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], color=color, label=label, zorder=3)
        for x, y, name in pts if len(pts) <= 10 else []:  # names only where they stay legible
            ax.annotate(name.split("/", 1)[-1], (x, y), fontsize=6, xytext=(3, 3),
                        textcoords="offset points")
        _, dev = device_of(doc)
        if not dev:  # the host: its estimated fp64 peak, and the DRAM roof if the run was given it
            host = doc["context"]["boundbench"].get("host", {})
            peak = host.get("peak_fp64_flop_per_s_estimate", 0)
            bw = max((b.get("peak_bytes_per_s", 0) for b in measured), default=0)
            xs = [10 ** (e / 10) for e in range(-30, 41)]
            if peak > 0:
                ax.plot(xs, [min(peak, x * bw) if bw > 0 else peak for x in xs], color=color,
                        lw=1, ls="--", alpha=0.7)
                ax.annotate("fp64 peak (estimate)", (xs[-1], peak), fontsize=7, color=color,
                            ha="right", va="bottom")
        if dev and dev.get("peak_dram_bytes_per_s"):
            bw = dev["peak_dram_bytes_per_s"]
            xs = [10 ** (e / 10) for e in range(-30, 41)]
            for prec in sorted({b.get("precision") for b in measured if b.get("flop", 0) > 0}):
                peaks = [dev.get(k, {}).get(prec, 0)
                         for k in ("peak_cuda_core_flop_per_s", "peak_tensor_flop_per_s")]
                peak = max(peaks)
                if peak > 0:
                    ax.plot(xs, [min(peak, x * bw) for x in xs], color=color, lw=1,
                            ls="--", alpha=0.7)
                    ax.annotate(f"{prec} peak", (xs[-1], peak), fontsize=7, color=color,
                                ha="right", va="bottom")
    if not any_point:
        plt.close(fig)
        return None
    log_log_axes(ax, "arithmetic intensity (flop / byte)", "attained FLOP/s",
                 "Roofline: measured cases against each device's bound (dashed)")
    ax.legend(fontsize=7)
    return png(fig, out_dir, "roofline.png")


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
            for _, measured, _ in runs for b in measured)]
        if not have:
            continue
        fig, axes = plt.subplots(1, len(have), figsize=(6.5 * len(have), 4.2), squeeze=False)
        for ax, (sweep, ylabel, fig_key) in zip(axes[0], have):
            for i, (doc, measured, label) in enumerate(runs):
                pts = sorted((b["params"]["working_set_bytes"], b) for b in measured
                             if b.get("backend") == backend
                             and b.get("params", {}).get("sweep") == sweep)
                if not pts:
                    continue
                xs = [x for x, _ in pts]
                if sweep == "latency":
                    ys = [b["median_s"] / b["params"].get("steps", 1) * 1e9 for _, b in pts]
                else:
                    ys = [b["bytes_per_s"] / 1e9 for _, b in pts]
                ax.plot(xs, ys, marker=".", color=f"C{i}", label=label)
                levels = doc.get("figures", {}).get("bandwidth", {}).get(backend, {}) \
                    .get(fig_key, {}).get("levels", [])
                for lv in levels:
                    ax.axvline(lv["reported_bytes"], color=f"C{i}", ls=":", lw=1)
                    ax.annotate(f"{lv['name']} reported", (lv["reported_bytes"], max(ys)),
                                rotation=90, fontsize=6, color=f"C{i}", va="top", ha="right")
                    if lv.get("detected_bytes"):
                        ax.axvline(lv["detected_bytes"], color=f"C{i}", ls="-", lw=0.8, alpha=0.6)
            log_log_axes(ax, "working set (bytes)", ylabel,
                         f"{backend}: {ylabel.split(' (')[0]} vs working set", x_base=2)
            ax.legend(fontsize=7)
        fig.suptitle("memory hierarchy (dotted: reported capacity, solid: detected)", fontsize=9)
        images.append(png(fig, out_dir, f"hierarchy_{backend}.png"))
    return images


def families(measured):
    """Cases grouped by suite and name stem, with the numeric parameter that varies in the group."""
    groups = {}
    for b in measured:
        if b.get("params", {}).get("sweep") in HIERARCHY_SWEEPS or \
                b.get("suite") in ("collectives", "attention"):
            continue  # drawn by hierarchy(), collectives() and attention()
        stem = re.sub(r"/[^/]*$", "", b["name"])
        groups.setdefault(stem, []).append(b)
    result = {}
    for stem, members in groups.items():
        if len(members) < 3:
            continue
        keys = [k for k in SWEEP_KEYS
                if all(isinstance(m.get("params", {}).get(k), (int, float)) for m in members)
                and len({m["params"][k] for m in members}) == len(members)]
        if keys:
            result[stem] = keys[0]
    return result


def collectives(runs, out_dir):
    """busbw against message size per transport and rank count, one line per collective (the
    fp32 sweep), with the fitted alpha-beta model dashed; runs overlaid."""
    groups = {}
    for i, (doc, measured, label) in enumerate(runs):
        for b in measured:
            p = b.get("params", {})
            if b.get("suite") == "collectives" and p.get("sweep") and p.get("ranks", 1) > 1:
                groups.setdefault((p["transport"], p["ranks"]), []).append((i, label, b, doc))
    images = []
    for (transport, ranks), members in sorted(groups.items()):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        series = {}
        for i, label, b, doc in members:
            p = b["params"]
            name = f"{p['collective']}/{p['dtype']}" + (f"/{p['redop']}" if p.get("redop") else "") + \
                ("/in-place" if p["in_place"] else "/out-of-place")
            series.setdefault((i, label, name, id(doc)), (doc, []))[1].append(b)
        order = sorted({k[2] for k in series})
        for (i, label, name, _), (doc, bs) in sorted(series.items(), key=lambda x: x[0][:3]):
            bs.sort(key=lambda b: b["params"]["bytes"])
            xs = [b["params"]["bytes"] for b in bs]
            color = f"C{order.index(name) % 10}"  # one color per collective, one line style per run
            style = ["-", "--", "-.", ":"][i % 4]
            ax.plot(xs, [b["busbw_bytes_per_s"] / 1e9 for b in bs], marker=".", linestyle=style,
                    color=color, label=name + (f" [run {i + 1}]" if len(runs) > 1 else ""))
            fit = doc.get("figures", {}).get("collectives", {}).get(transport, {}) \
                .get(f"p{ranks}", {}).get("series", {}).get(name, {})
            if fit.get("link_bytes_per_s") and "latency_terms" in fit:
                # The fitted model, in the run's own terms (theory/collectives.h).
                model = [fit["bus_factor"] * x / (fit["latency_terms"] * fit["alpha_s"] +
                                                  fit["byte_terms"] * x / fit["link_bytes_per_s"])
                         / 1e9 for x in xs]
                ax.plot(xs, model, linestyle=(0, (1, 3)), color=color, linewidth=1)
        log_log_axes(ax, "message size n (bytes, nccl-tests' convention)", "busbw (GB/s)",
                     f"{transport}, {ranks} ranks: busbw vs size (dotted: fitted alpha-beta model)",
                     x_base=2)
        runs_text = "\n".join(f"run {i + 1}: {r[2]}" for i, r in enumerate(runs)) if len(runs) > 1 else ""
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1), title=runs_text or None,
                  title_fontsize=5)
        images.append(png(fig, out_dir, f"collectives_{transport}_p{ranks}.png"))
    return images


def attention(runs, out_dir):
    """Time against n on log-log axes per backend, with each series' fitted exponent and n^2."""
    images = []
    backends = sorted({bk for doc, _, _ in runs
                       for bk in doc.get("figures", {}).get("attention", {})})
    for backend in backends:
        fig, ax = plt.subplots(figsize=(6.5, 4.5))
        for i, (doc, measured, label) in enumerate(runs):
            f = doc.get("figures", {}).get("attention", {}).get(backend, {})
            for n, (name, s) in enumerate(sorted(f.get("series", {}).items())):
                slope = s.get("exponent")
                text = f"{name}: slope {slope:.2f}" if slope is not None else name
                ax.plot(s["n"], s["median_s"], marker="o", color=f"C{(i * 4 + n) % 10}",
                        label=text + (f" ({label})" if len(runs) > 1 else ""))
                if n == 0 and len(s["n"]) >= 2:  # the law, through the last point
                    x1, t1 = s["n"][-1], s["median_s"][-1]
                    ax.plot(s["n"], [t1 * (x / x1) ** 2 for x in s["n"]], color="grey",
                            linestyle=":", label="n^2" if i == 0 else None)
        log_log_axes(ax, "sequence length n", "median time (s)",
                     f"attention on {backend}: time vs n", x_base=2)
        ax.legend(fontsize=7)
        images.append(png(fig, out_dir, f"attention_{backend}.png"))
    return images


def gemm_error(runs, out_dir):
    """GEMM error vs K against its bound: per mode, backend and data set of each run, the median of
    |C^ - C|_ij / (|A||B|)_ij (solid) and the deterministic bound factor the case reported (dashed,
    one per mode and backend), log-log. Read from the cases' observations, not re-derived here."""
    fig, ax = plt.subplots(figsize=(7.5, 5))
    drawn, colour = 0, {}
    for i, (doc, measured, label) in enumerate(runs):
        series, bounds = {}, {}
        for b in measured:
            p, o = b.get("params", {}), b.get("observations", {})
            if "gemm_mode" not in p or p.get("throughput") or \
                    o.get("median_normalized_error") is None or "k" not in p:
                continue
            key = (p["gemm_mode"], b.get("backend", "?"), p.get("data", "?"))
            series.setdefault(key, []).append((p["k"], o["median_normalized_error"]))
            if o.get("bound_factor") is not None:
                bounds.setdefault(key[:2], {})[p["k"]] = o["bound_factor"]
        for key, pts in sorted(series.items()):
            pts.sort()
            c = colour.setdefault((i,) + key[:2], f"C{len(colour) % 10}")
            suffix = f" ({label})" if len(runs) > 1 else ""
            ax.plot([k for k, _ in pts], [max(e, 1e-30) for _, e in pts],
                    marker="o" if key[2] != "zero_mean" else "s", color=c,
                    linestyle="-" if key[2] != "zero_mean" else "-.",
                    label="/".join(key) + " median" + suffix)
            drawn += 1
        for key, by_k in sorted(bounds.items()):
            ks = sorted(by_k)
            ax.plot(ks, [by_k[k] for k in ks], color=colour[(i,) + key], linestyle="--",
                    label="/".join(key) + " bound" + (f" ({label})" if len(runs) > 1 else ""))
    if not drawn:
        plt.close(fig)
        return []
    log_log_axes(ax, "inner dimension K", "|C^ - C| / (|A||B|)  (median over entries)",
                 "GEMM error vs K against its bound (dashed)", x_base=2)
    ax.legend(fontsize=6, ncol=2)
    return [png(fig, out_dir, "gemm_error_vs_k.png")]


def sweeps(runs, out_dir):
    stems = {}
    for doc, measured, label in runs:
        for stem, key in families(measured).items():
            stems.setdefault(stem, key)
    images = []
    for n, (stem, key) in enumerate(sorted(stems.items())):
        fig, ax = plt.subplots(figsize=(6.5, 4))
        bandwidth = True
        for i, (doc, measured, label) in enumerate(runs):
            members = [b for b in measured if re.sub(r"/[^/]*$", "", b["name"]) == stem
                       and key in b.get("params", {})]
            if not members:
                continue
            members.sort(key=lambda b: b["params"][key])
            bandwidth = all(b.get("bytes", 0) > 0 for b in members)
            xs = [b["params"][key] for b in members]
            ys = [b["bytes_per_s"] / 1e9 if bandwidth else b["median_s"] * 1e6 for b in members]
            ax.plot(xs, ys, marker="o", color=f"C{i}", label=label)
        if max(xs) / max(min(xs), 1e-300) > 8:
            ax.set_xscale("log", base=2)
        ax.set_xlabel(key)
        ax.set_ylabel("bandwidth (GB/s)" if bandwidth else "median time (us)")
        ax.set_title(f"{stem}: {'bandwidth' if bandwidth else 'time'} vs {key}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        images.append(png(fig, out_dir, f"sweep_{n:02d}_{re.sub(r'[^A-Za-z0-9]+', '_', stem)}.png"))
    return images


def hierarchy_text(doc):
    parts = []
    for backend, f in doc.get("figures", {}).get("bandwidth", {}).items():
        lat = f.get("latency", {})
        levels = []
        for lv in lat.get("levels", []):
            det = lv.get("detected_bytes")
            levels.append(f"{lv['name']} {human_bytes(det) if det else 'no step'} / "
                          f"{human_bytes(lv['reported_bytes'])}")
        plateaus = ", ".join(f"{p['latency_ns']:.3g} ns" for p in lat.get("plateaus", []))
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


def collectives_text(doc):
    out = []
    for transport, groups in doc.get("figures", {}).get("collectives", {}).items():
        best = max((g for g in groups.values() if g.get("series")), key=lambda g: g.get("ranks", 0),
                   default=None)
        if not best:
            continue
        for name, s in best["series"].items():
            if name.startswith("all_reduce/") and s.get("link_bytes_per_s"):
                out.append(f"{transport} p={best['ranks']}: alpha {s['alpha_s'] * 1e6:.2f} us, "
                           f"link {s['link_bytes_per_s'] / 1e9:.3g} GB/s")
    return "; ".join(out) or "-"


def attention_text(measured):
    best = {}
    for b in measured:
        if b.get("suite") == "attention" and b.get("flop_per_s", 0) > 0:
            key = re.sub(r"/n\d+$", "", b["case"])
            best[key] = max(best.get(key, 0), b["flop_per_s"])
    return "; ".join(f"{k}: {v / 1e12:.3g}" for k, v in sorted(best.items())) or "-"


def quantize_text(measured):
    """Quantization kernels are memory-bound: their bandwidth as % of the same run's STREAM copy on
    the same backend (the issue's target: >= 85% on an H200)."""
    copy = {}
    for b in measured:
        m = re.fullmatch(r"copy/fp(32|64)/(host|cuda)", b.get("case", ""))
        if m and b.get("suite") == "bandwidth":
            copy[m.group(2)] = max(copy.get(m.group(2), 0), b.get("bytes_per_s", 0))
    parts = {}
    for b in measured:
        backend = b.get("backend")
        if b.get("suite") == "precision" and b.get("case", "").startswith("quantize/") \
                and copy.get(backend, 0) > 0 and b.get("bytes_per_s", 0) > 0:
            parts.setdefault(backend, []).append(100 * b["bytes_per_s"] / copy[backend])
    return "; ".join(f"{k}: {min(v):.0f}-{max(v):.0f}% of copy ({len(v)} cases)"
                     for k, v in sorted(parts.items())) or "-"


def headline_rows(runs):
    rows = []
    for doc, measured, label in runs:
        checks = doc.get("checks", [])
        counts = {v: sum(1 for c in checks if c.get("verdict") == v)
                  for v in ("PASS", "FAIL", "SKIP", "INCONCLUSIVE", "BELOW-EXPECTATION")}
        dram = [b for b in measured if b.get("bytes", 0) > 0 and "pct_of_peak_bandwidth" in b
                and b.get("suite") != "collectives"]
        # Memory bandwidth: a collective's bytes_per_s is its algbw (at one rank, of a no-op).
        memory = [b for b in measured if b.get("suite") != "collectives"] or measured
        best_bw = max(memory, key=lambda b: b.get("bytes_per_s", 0))
        per_precision = {}
        for b in measured:
            if b.get("flop_per_s", 0) > per_precision.get(b.get("precision"), (0, ""))[0]:
                per_precision[b.get("precision")] = (b["flop_per_s"], b["name"])
        bw_text = f"{best_bw.get('bytes_per_s', 0) / 1e9:.1f} GB/s ({best_bw['name']})"
        if dram:
            top = max(dram, key=lambda b: b["pct_of_peak_bandwidth"])
            bw_text += f"; {top['pct_of_peak_bandwidth']:.1f}% of peak ({top['name']})"
        fails = [f"{c['suite']}/{c['name']}" for c in checks if c.get("verdict") == "FAIL"]
        rows.append([label, bw_text, hierarchy_text(doc),
                     "; ".join(f"{p}: {v / 1e12:.3g} TFLOP/s ({n})"
                               for p, (v, n) in sorted(per_precision.items())) or "-",
                     collectives_text(doc), attention_text(measured), quantize_text(measured),
                     f"{counts['PASS']} / {counts['FAIL']} / {counts['INCONCLUSIVE']} / "
                     f"{counts['BELOW-EXPECTATION']} / {counts['SKIP']}",
                     ", ".join(fails) or "-"])
    return rows


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="RUN.json")
    ap.add_argument("--out", required=True, metavar="DIR")
    args = ap.parse_args(argv)
    runs = []
    for path in args.runs:
        doc, measured = load(path)
        runs.append((doc, measured, label_of(doc)))
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        fail(f"{args.out}: cannot create ({e.strerror})")

    images = []
    r = roofline(runs, args.out)
    if r:
        images.append(r)
    images += hierarchy(runs, args.out)
    images += collectives(runs, args.out)
    images += attention(runs, args.out)
    images += gemm_error(runs, args.out)
    images += sweeps(runs, args.out)

    head = ["run", "best bandwidth", "caches (detected / reported) and latency",
            "best FLOP/s per precision", "collectives: all_reduce alpha, link (most ranks)",
            "attention: best TFLOP/s per kernel", "quantize: bandwidth vs copy",
            "checks pass / fail / inconclusive / below expectation / skip", "failed checks"]
    table = "<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
    for row in headline_rows(runs):
        table += "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
    table += "</table>"
    figures = "".join(
        f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(name)}</figcaption></figure>" for name, data in images)
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>boundbench report</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px;font-size:13px}}figure{{display:inline-block;margin:1em}}
img{{max-width:720px}}</style></head><body>
<h1>boundbench report</h1><p>{len(runs)} run(s): {html.escape("; ".join(r[2] for r in runs))}</p>
<h2>Headline figures</h2>{table}<h2>Figures</h2>{figures}</body></html>
"""
    tmp = os.path.join(args.out, "report.html.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, os.path.join(args.out, "report.html"))
    print(f"report: {os.path.join(args.out, 'report.html')} with {len(images)} figure(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
