"""Loading results files: the run (label, device, measured cases) and the constants every part
shares."""
import json
import math
import os
import re
import sys

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
    # A run on a simulated device validates its cases without timing them: readable.
    checks = doc.get("checks")
    validated = isinstance(checks, list) and any(
        isinstance(c, dict) and c.get("verdict") == "PASS"
        and str(c.get("name", "")).endswith("/validate") for c in checks)
    if not measured and not validated:
        fail(f"{path}: holds no measured case (nor a validated one)")
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
