"""The HTML page and report.json."""
import html
import json
import math
import os

from .changes import before_after
from .headline import headline, headline_cells
from .hierarchical import hierarchical_roofline
from .roofline import roofline, hierarchy
from .speed_of_light import speed_of_light
from .sweeps import sweeps, collectives, attention, gemm_error


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


def write_report(runs, out_dir):
    images, violations = roofline(runs, out_dir)
    images += hierarchy(runs, out_dir)
    images += sweeps(runs, out_dir)
    images += gemm_error(runs, out_dir)
    images += attention(runs, out_dir)
    images += collectives(runs, out_dir)
    images += speed_of_light(runs, out_dir)
    images += hierarchical_roofline(runs, out_dir)
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
