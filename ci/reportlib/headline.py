"""The headline numbers of a run: best STREAM, cache bandwidths, compute roofs, text cells."""
import re

from .runs import PRECISIONS, _positive, short


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
