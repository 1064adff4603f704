#!/usr/bin/env python3
"""boundbench's NCCL busbw beside nccl-tests' at the same sizes (target: within 3%).

  ci/compare_nccl_tests.py NCCL_TESTS_OUTPUT.txt COLLECTIVES.json [--collective all_reduce]
                           [--ranks N] [--min-bytes 1048576] [--tolerance 0.03]

NCCL_TESTS_OUTPUT.txt is what e.g. `all_reduce_perf -b 8 -e 1G -f 2 -g 8` printed; COLLECTIVES.json
is `boundbench collectives --transport nccl --op all_reduce` on the same machine. Out-of-place
busbw is compared size by size from --min-bytes up (small sizes are latency, not bandwidth).
Exit 0 when every compared size is within the tolerance, 1 when one is not, 2 on bad input.
"""
import argparse
import json
import sys


def parse_nccl_tests(text):
    """{size in bytes: out-of-place busbw in bytes/s} from nccl-tests' table."""
    out = {}
    for line in text.splitlines():
        cols = line.split()
        if len(cols) < 9 or line.lstrip().startswith("#") or not cols[0].isdigit():
            continue
        try:
            out[int(cols[0])] = float(cols[7]) * 1e9
        except ValueError:
            continue
    return out


def boundbench_busbw(doc, collective, ranks):
    out = {}
    for e in doc.get("benchmarks", []):
        p = e.get("params", {})
        if (p.get("collective") == collective and p.get("transport") == "nccl" and p.get("sweep")
                and not p.get("in_place") and (ranks is None or p.get("ranks") == ranks)):
            out[int(p["bytes"])] = e["busbw_bytes_per_s"]
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("nccl_tests")
    ap.add_argument("results")
    ap.add_argument("--collective", default="all_reduce")
    ap.add_argument("--ranks", type=int)
    ap.add_argument("--min-bytes", type=int, default=1 << 20)
    ap.add_argument("--tolerance", type=float, default=0.03)
    a = ap.parse_args(argv)
    try:
        theirs = parse_nccl_tests(open(a.nccl_tests).read())
        ours = boundbench_busbw(json.load(open(a.results)), a.collective, a.ranks)
    except (OSError, ValueError, KeyError) as e:
        print(f"compare_nccl_tests: error: {e}", file=sys.stderr)
        return 2
    sizes = sorted(s for s in theirs.keys() & ours.keys() if s >= a.min_bytes)
    if not sizes:
        print("compare_nccl_tests: error: no size measured by both (check --collective/--ranks)",
              file=sys.stderr)
        return 2
    worst = 0.0
    print(f"{'bytes':>12} {'nccl-tests GB/s':>16} {'boundbench GB/s':>16} {'ratio':>7}")
    for s in sizes:
        r = ours[s] / theirs[s] if theirs[s] > 0 else float("inf")
        worst = max(worst, abs(r - 1))
        print(f"{s:>12} {theirs[s] / 1e9:>16.2f} {ours[s] / 1e9:>16.2f} {r:>7.3f}")
    print(f"largest deviation {worst:.1%} (tolerance {a.tolerance:.0%}) over {len(sizes)} sizes")
    return 0 if worst <= a.tolerance else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
