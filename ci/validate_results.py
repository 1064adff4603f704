#!/usr/bin/python3
"""Validate a boundbench results file against results/schema.json and the rules JSON Schema cannot
express (see results/README.md).

    python3 ci/validate_results.py FILE.json [--require-complete] [--min-benchmarks N] [--no-fail-checks]
                                   [--strict]

Prints one line per problem, then `validate_results: N passed, M failed` (N assertions held, M
problems). Exit status: 0 valid, 1 invalid, 2 usage error or unreadable file/schema.
Needs the `jsonschema` package (Debian: apt-get install -y python3-jsonschema).
"""

import argparse
import json
import math
import os
import sys

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results", "schema.json")
SCHEMA_VERSIONS = (1, 2)  # a version-1 file is a valid version-2 file
REL_TOL = 1e-9
VERDICTS = ("PASS", "FAIL", "SKIP", "INCONCLUSIVE", "BELOW-EXPECTATION")
KEPT_SAMPLES = 1000
TIME_UNIT_PER_S = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def close(a, b, rel=REL_TOL):
    return abs(a - b) <= rel * max(abs(a), abs(b)) or a == b


class Tally:
    def __init__(self, path):
        self.path = path
        self.passed = 0
        self.failed = 0

    def problem(self, where, msg):
        self.failed += 1
        print(f"{self.path}: {where}: {msg}")

    def check(self, ok, where, msg):
        if ok:
            self.passed += 1
        else:
            self.problem(where, msg)
        return ok


def json_path(error):
    parts = ["$"]
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else f".{p}")
    return "".join(parts)


def validate_schema(doc, schema, t):
    import jsonschema  # imported here so that a missing package is reported by main()

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    for e in errors:
        t.problem(f"schema {json_path(e)}", e.message)
    if not errors:
        t.passed += 1


def entry_label(i, b):
    name = b.get("name") if isinstance(b, dict) else None
    return f"benchmarks[{i}] ({name})" if isinstance(name, str) else f"benchmarks[{i}]"


def measured(b):
    return (isinstance(b, dict) and b.get("run_type") == "iteration"
            and b.get("error_occurred") is not True)


def validate_benchmark(i, b, t):
    if not measured(b):
        return
    where = entry_label(i, b)
    mn, med, mean, mx = (b.get(k) for k in ("min_s", "median_s", "mean_s", "max_s"))
    if all(is_num(v) for v in (mn, med, mx)):
        t.check(mn <= med <= mx, where, f"min_s {mn!r} <= median_s {med!r} <= max_s {mx!r} does not hold")
        if is_num(mean):
            # The mean of samples lies in [min, max] (up to rounding in the running mean).
            t.check(mn * (1 - 1e-12) <= mean <= mx * (1 + 1e-12), where,
                    f"mean_s {mean!r} outside [min_s {mn!r}, max_s {mx!r}]")
    br, bw, by = b.get("bytes_read"), b.get("bytes_written"), b.get("bytes")
    if all(is_num(v) for v in (br, bw, by)):
        t.check(close(by, br + bw), where, f"bytes {by!r} != bytes_read {br!r} + bytes_written {bw!r}")
    if is_num(med) and med > 0:
        for rate, work in (("bytes_per_s", "bytes"), ("flop_per_s", "flop")):
            r, w = b.get(rate), b.get(work)
            if is_num(r) and is_num(w):
                t.check(close(r, w / med), where,
                        f"{rate} {r!r} != {work}/median_s = {w / med!r} (rel tol {REL_TOL:g})")
        rt, unit = b.get("real_time"), b.get("time_unit")
        if is_num(rt) and unit in TIME_UNIT_PER_S:
            t.check(close(rt, med * TIME_UNIT_PER_S[unit], 1e-6), where,
                    f"real_time {rt!r} {unit} != median_s {med!r} s")
    peak, pct, bps = b.get("peak_bytes_per_s"), b.get("pct_of_peak_bandwidth"), b.get("bytes_per_s")
    if all(is_num(v) for v in (peak, pct, bps)) and peak > 0:
        t.check(close(pct, 100 * bps / peak, 1e-6), where,
                f"pct_of_peak_bandwidth {pct!r} != 100*bytes_per_s/peak_bytes_per_s = {100 * bps / peak!r}")
    # harness/measure.h clock_throttled: min(start, end) < 0.75 x the sustained clock, confirmed
    # by the re-probe when one was taken, or an NVML slowdown reason; no reference clock: never
    # throttled.
    c0, c1, thr = b.get("clock_start_hz"), b.get("clock_end_hz"), b.get("throttled")
    ref, slow = b.get("clock_reference_hz", 0), b.get("clock_slowdown", False)
    c2 = b.get("clock_reprobe_hz", 0)
    if is_num(c0) and is_num(c1) and is_num(ref) and is_num(c2) and isinstance(thr, bool):
        low = ref > 0 and min(c0, c1) < 0.75 * ref and (c2 <= 0 or c2 < 0.75 * ref)
        want = low or slow is True
        t.check(thr == want, where,
                f"throttled {thr} disagrees with min(clock_start_hz {c0!r}, clock_end_hz {c1!r}) "
                f"< 0.75 * clock_reference_hz {ref!r} (confirmed by clock_reprobe_hz {c2!r}) "
                f"or clock_slowdown {slow!r}")
    samples, iters = b.get("samples"), b.get("iterations")
    if isinstance(samples, int) and isinstance(iters, int):
        t.check(samples == iters, where, f"iterations {iters} != samples {samples}")
    lo, hi = b.get("median_ci_low_s"), b.get("median_ci_high_s")
    if all(is_num(v) for v in (mn, lo, med, hi, mx)):
        t.check(mn <= lo <= med <= hi <= mx, where,
                f"min_s {mn!r} <= median_ci_low_s {lo!r} <= median_s {med!r} <= median_ci_high_s "
                f"{hi!r} <= max_s {mx!r} does not hold")
    kept = b.get("samples_s")  # in the order taken (older files: sorted)
    if isinstance(kept, list) and kept and all(is_num(v) for v in kept):
        if isinstance(samples, int):
            t.check(len(kept) == min(samples, KEPT_SAMPLES), where,
                    f"samples_s holds {len(kept)} samples, not min(samples {samples}, {KEPT_SAMPLES})")
        if is_num(mn) and is_num(mx):
            t.check(mn <= min(kept) and max(kept) <= mx, where,
                    f"samples_s runs outside min_s {mn!r} to max_s {mx!r}")
            if isinstance(samples, int) and samples <= KEPT_SAMPLES:
                t.check(min(kept) == mn and max(kept) == mx, where,
                        f"samples_s (all {samples}) span {min(kept)!r} to {max(kept)!r}, not min_s "
                        f"{mn!r} to max_s {mx!r}")
        validate_drift(where, b.get("drift"), kept, t)
    validate_bound(where, b.get("bound"), b, t)
    pairing, rounds = b.get("pairing"), b.get("round_samples_s")
    if isinstance(pairing, dict) and isinstance(rounds, list) and all(is_num(v) for v in rounds):
        # The rounds, then (newer files, pairing.alone) the samples taken alone after them; or
        # (pairing.own_samples) only the member's own samples, taken after the rounds, which are
        # kept apart in round_samples_s.
        n_rounds, alone = pairing.get("rounds"), pairing.get("alone", 0)
        apart = pairing.get("own_samples", False) is True
        if isinstance(samples, int) and isinstance(n_rounds, int) and isinstance(alone, int):
            t.check((alone if apart else n_rounds + alone) == samples, where,
                    f"pairing.rounds {n_rounds} + alone {alone} != samples {samples}" if not apart
                    else f"pairing.alone {alone} != samples {samples} (own_samples)")
            t.check(len(rounds) == min(n_rounds, KEPT_SAMPLES), where,
                    f"round_samples_s holds {len(rounds)} rounds, not min(rounds {n_rounds}, "
                    f"{KEPT_SAMPLES})")
            if isinstance(kept, list) and samples <= KEPT_SAMPLES and not apart:
                # Older files kept samples_s sorted: the same samples, in another order.
                same = kept[:n_rounds] == rounds if alone else sorted(rounds) == sorted(kept)
                t.check(same, where, "round_samples_s are not the first pairing.rounds of samples_s")
            # The rounds' level: the member's own when it took no sample alone, else an earlier
            # look's (no higher); own samples have a sequence of looks of their own.
            conf, own = pairing.get("confidence"), b.get("median_ci_confidence")
            if is_num(conf) and is_num(own) and not apart:
                t.check(conf == own if alone == 0 else conf <= own, where,
                        f"pairing.confidence {conf!r} is not the rounds' level beside "
                        f"median_ci_confidence {own!r} (alone {alone})")


def validate_bound(where, bd, b, t):
    """The bound agrees with the entry (harness/bound.h): fraction = time_s / median_s, its
    interval from the median's, the limiter the largest of the resources, the runner-up next."""
    if not isinstance(bd, dict):
        return
    ts, fr, iv, med = bd.get("time_s"), bd.get("fraction"), bd.get("interval"), b.get("median_s")
    if is_num(ts) and is_num(fr) and is_num(med) and med > 0:
        t.check(close(fr, ts / med, 1e-9), where,
                f"bound.fraction {fr!r} != time_s / median_s = {ts / med!r}")
    lo, hi = b.get("median_ci_low_s"), b.get("median_ci_high_s")
    if isinstance(iv, list) and len(iv) == 2 and all(is_num(v) for v in iv + [ts, lo, hi]) \
            and lo > 0:
        t.check(close(iv[0], ts / hi, 1e-9) and close(iv[1], ts / lo, 1e-9), where,
                f"bound.interval {iv!r} != [time_s / median_ci_high_s, time_s / median_ci_low_s]")
    res = bd.get("resources")
    if isinstance(res, dict) and res and is_num(ts):
        times = {k: v.get("time_s") for k, v in res.items() if isinstance(v, dict)}
        largest = all(is_num(v) and v <= ts * (1 + 1e-12) for v in times.values())
        t.check(bd.get("limiter") in times and largest, where,
                f"bound.limiter {bd.get('limiter')!r} is not the largest of the resources "
                f"{times!r}")
        ru = bd.get("runner_up")
        if isinstance(ru, dict) and is_num(ru.get("time_s")):
            others = [v for k, v in times.items() if k != bd.get("limiter") and is_num(v)]
            t.check(bool(others) and close(ru["time_s"], max(others), 1e-9), where,
                    f"bound.runner_up {ru!r} is not the second largest resource")


def mann_kendall_s(x):
    """Mann-Kendall S = sum over i < j of sgn(x_j - x_i) and its variance with ties (harness/drift.h)."""
    n = len(x)
    s = sum((x[j] > x[i]) - (x[j] < x[i]) for i in range(n) for j in range(i + 1, n))
    counts = {}
    for v in x:
        counts[v] = counts.get(v, 0) + 1
    var = (n * (n - 1) * (2 * n + 5) - sum(c * (c - 1) * (2 * c + 5) for c in counts.values())) / 18
    return s, var


def validate_drift(where, d, kept, t):
    """A drift object agrees with the samples it was computed from: samples_s in the order kept
    (recomputed for up to 300 samples: pure Python is O(n^2)), and with itself."""
    if not isinstance(d, dict):
        return
    n, z, p, pt, rel = (d.get(k) for k in ("samples", "z", "p", "p_trend", "relative_change"))
    iv, w = d.get("interval"), d.get("warmup")
    t.check(n == len(kept), where, f"drift.samples {n!r} != {len(kept)} samples_s")
    if isinstance(iv, list) and len(iv) == 2 and all(is_num(v) for v in iv) and is_num(rel):
        t.check(iv[0] <= rel <= iv[1], where,
                f"drift.relative_change {rel!r} outside its interval {iv!r}")
    if is_num(z) and is_num(rel):  # S > 0: more rising pairs than falling, Sen's slope >= 0
        t.check(not (z > 0 and rel < 0) and not (z < 0 and rel > 0), where,
                f"drift.z {z!r} and relative_change {rel!r} disagree in sign")
    if isinstance(w, dict) and all(is_num(v) for v in (p, pt, w.get("p"))):
        t.check(close(p, min(1.0, 2 * min(pt, w["p"]))), where,
                f"drift.p {p!r} != min(1, 2 min(p_trend {pt!r}, warmup.p {w['p']!r}))")
    if is_num(z) and 2 <= len(kept) <= 300:
        s, var = mann_kendall_s(kept)
        want = (s - (s > 0) + (s < 0)) / math.sqrt(var) if var > 0 else 0.0
        t.check(abs(z - want) <= 1e-9 * max(1.0, abs(want)), where,
                f"drift.z {z!r} != {want!r} from samples_s in the order kept (S = {s})")


def validate_pairing(benchmarks, t):
    """Entries of one pairing group's measurement (same group and run) were sampled in the same
    rounds: as many rounds each, and no more entries than the group had members (a member whose
    checks raised is an error entry, without pairing)."""
    groups = {}
    for i, b in enumerate(benchmarks):
        p = b.get("pairing") if isinstance(b, dict) else None
        if isinstance(p, dict):
            groups.setdefault((p.get("group"), p.get("run")), []).append((i, b, p))
    for (group, run), entries in groups.items():
        where = f"pairing group {group!r} run {run!r}"
        t.check(len({p.get("rounds") for _, _, p in entries}) == 1, where,
                "members with different numbers of rounds")
        members = entries[0][2].get("members")
        t.check(isinstance(members, int) and len(entries) <= members, where,
                f"{len(entries)} entries, pairing.members says {members!r}")


def judge(kind, band_low, band_high, low, high):
    """The verdict rule of harness/checks.h: inside the band PASS, entirely outside FAIL (law) or
    BELOW-EXPECTATION (expectation), straddling INCONCLUSIVE; a null band end is unbounded."""
    inf = float("inf")
    a = -inf if band_low is None else band_low
    b = inf if band_high is None else band_high
    if a <= low and high <= b:
        return "PASS"
    if high < a or low > b:
        return "FAIL" if kind == "law" else "BELOW-EXPECTATION"
    return "INCONCLUSIVE"


def validate_check(where, c, version, t):
    """kind present (version 2), the interval around `measured`, and the verdict the rule gives."""
    kind = c.get("kind")
    if version >= 2:
        t.check(kind in ("law", "expectation"), where, f"kind {kind!r} is not law or expectation")
    low, high, measured = c.get("measured_low"), c.get("measured_high"), c.get("measured")
    if is_num(low) and is_num(high) and is_num(measured):
        t.check(low <= measured <= high, where,
                f"measured {measured!r} outside its interval [{low!r}, {high!r}]")
    if "band_low" not in c or not (is_num(low) and is_num(high)) or kind not in ("law", "expectation"):
        return
    bl, bh = c.get("band_low"), c.get("band_high")
    if not all(v is None or is_num(v) for v in (bl, bh)):
        return
    expected = judge(kind, bl, bh, low, high)
    v = c.get("verdict")
    # A PASS that proves little (a partial bound met) is recorded as SKIP; an error is a FAIL.
    t.check(v == expected or (v == "SKIP" and expected == "PASS"), where,
            f"verdict {v!r} but the interval [{low!r}, {high!r}] against the band [{bl!r}, {bh!r}] "
            f"gives {expected} ({kind})")


def validate_document(doc, args, t):
    benchmarks = doc.get("benchmarks") if isinstance(doc.get("benchmarks"), list) else []
    checks = doc.get("checks") if isinstance(doc.get("checks"), list) else []
    ctx = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    bb = ctx.get("boundbench") if isinstance(ctx.get("boundbench"), dict) else {}

    for i, b in enumerate(benchmarks):
        validate_benchmark(i, b, t)
    validate_pairing(benchmarks, t)
    # The spare seconds left when a case began: within the run's pool.
    rule = bb.get("options", {}).get("stopping_rule", {}) if isinstance(bb.get("options"), dict) else {}
    pool = rule.get("spare_s") if isinstance(rule, dict) else None
    for i, b in enumerate(benchmarks):
        left = b.get("spare_left_s") if isinstance(b, dict) else None
        if left is not None:
            t.check(is_num(left) and 0 <= left and (not is_num(pool) or left <= pool),
                    entry_label(i, b), f"spare_left_s {left!r} outside [0, spare_s {pool!r}]")

    seen = {}
    for i, b in enumerate(benchmarks):
        if not isinstance(b, dict) or not isinstance(b.get("name"), str):
            continue
        key = (b["name"], b.get("repetition_index"))
        if key in seen:
            t.problem(entry_label(i, b),
                      f"duplicate of benchmarks[{seen[key]}] (name {key[0]!r}, repetition_index {key[1]!r})")
        else:
            seen[key] = i
    t.passed += 1  # uniqueness, counted once; duplicates were counted as problems above

    version = bb.get("schema_version") if isinstance(bb.get("schema_version"), int) else 0
    counts = {v: 0 for v in VERDICTS}
    for i, c in enumerate(checks):
        if not isinstance(c, dict):
            continue
        where = f"checks[{i}]"
        v = c.get("verdict")
        if t.check(v in counts, where, f"verdict {v!r} is not one of {', '.join(VERDICTS)}"):
            counts[v] += 1
        validate_check(where, c, version, t)
        for k in ("suite", "name"):
            s = c.get(k)
            t.check(isinstance(s, str) and s.strip() != "", where, f"{k} is empty or missing")
        if args.no_fail_checks and v == "FAIL":
            t.problem(f"{where} ({c.get('suite')}/{c.get('name')})",
                      f"check FAILED (--no-fail-checks): {c.get('reason', '')}")
        if args.strict and v in ("INCONCLUSIVE", "BELOW-EXPECTATION"):
            t.problem(f"{where} ({c.get('suite')}/{c.get('name')})", f"check {v} (--strict): {c.get('reason', '')}")

    if "fingerprint" not in bb:
        print(f"{t.path}: note: no machine fingerprint (written before fingerprints); "
              "compare checks the host and GPU fields of its context instead")

    complete = bb.get("complete")
    if args.require_complete:
        t.check(complete is True, "context.boundbench.complete",
                "run is not complete (--require-complete): the file was left by an unfinished or killed run")
    n_measured = sum(1 for b in benchmarks if measured(b))
    if args.min_benchmarks is not None:
        t.check(n_measured >= args.min_benchmarks, "benchmarks",
                f"{n_measured} measured iteration entries, fewer than --min-benchmarks {args.min_benchmarks}")
    n_agg = sum(1 for b in benchmarks if isinstance(b, dict) and b.get("run_type") == "aggregate")
    n_err = sum(1 for b in benchmarks if isinstance(b, dict) and b.get("error_occurred") is True)
    print(f"{t.path}: {len(benchmarks)} benchmark entries ({n_measured} measured, {n_agg} aggregate, "
          f"{n_err} error); checks {counts['PASS']} PASS, {counts['FAIL']} FAIL, "
          f"{counts['INCONCLUSIVE']} INCONCLUSIVE, {counts['BELOW-EXPECTATION']} BELOW-EXPECTATION, "
          f"{counts['SKIP']} SKIP; complete {str(complete).lower()}")


def main(argv):
    ap = argparse.ArgumentParser(description="Validate a boundbench results JSON file (schema_version 1 or 2).")
    ap.add_argument("file", metavar="FILE.json")
    ap.add_argument("--require-complete", action="store_true",
                    help="fail unless context.boundbench.complete is true")
    ap.add_argument("--min-benchmarks", type=int, metavar="N",
                    help="fail unless at least N measured iteration entries (not aggregates or errors)")
    ap.add_argument("--no-fail-checks", action="store_true", help="fail if any check has verdict FAIL")
    ap.add_argument("--strict", action="store_true",
                    help="fail if any check is INCONCLUSIVE or BELOW-EXPECTATION (as run --strict)")
    ap.add_argument("--schema-optional", action="store_true",
                    help="without the jsonschema package, skip the schema and run the other rules "
                         "(for machines with no package registry, e.g. a GPU runner)")
    args = ap.parse_args(argv)  # exits 2 on a usage error
    if args.min_benchmarks is not None and args.min_benchmarks < 0:
        ap.error("--min-benchmarks must be >= 0")

    have_jsonschema = True
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        have_jsonschema = False
        if not args.schema_optional:
            print("validate_results: the jsonschema package is missing "
                  "(apt-get install -y python3-jsonschema; run with /usr/bin/python3)", file=sys.stderr)
            return 2
        print("validate_results: jsonschema missing: schema not checked, other rules are",
              file=sys.stderr)
    try:
        with open(SCHEMA_PATH, encoding="utf-8") as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        print(f"validate_results: cannot read schema {SCHEMA_PATH}: {e}", file=sys.stderr)
        return 2
    try:
        with open(args.file, "rb") as f:
            raw = f.read()
    except OSError as e:
        print(f"validate_results: cannot read {args.file}: {e.strerror or e}", file=sys.stderr)
        return 2

    t = Tally(args.file)
    try:
        # JSON has no NaN or Infinity; Python's parser would accept them, so refuse them here.
        def no_constant(name):
            raise ValueError(f"{name} is not valid JSON")

        doc = json.loads(raw.decode("utf-8"), parse_constant=no_constant)
    except (UnicodeDecodeError, ValueError) as e:
        t.problem("json", f"not valid JSON: {e}")
        doc = None

    if doc is not None:
        if t.check(isinstance(doc, dict), "$", "top level is not an object"):
            if have_jsonschema:
                validate_schema(doc, schema, t)
            validate_document(doc, args, t)

    print(f"validate_results: {t.passed} passed, {t.failed} failed")
    return 0 if t.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
