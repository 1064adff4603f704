#!/usr/bin/env python3
"""Summarise /tmp/h3/ab: honest and slowed A/B invocations (issue 30)."""
import glob, json, os, re, sys
d = sys.argv[1] if len(sys.argv) > 1 else "/tmp/h3/ab"
SLOWED = "precision/summation/kahan/fp32/host/n16384"
log = {}
for line in open(os.path.join(d, "log.txt")):
    m = re.match(r"(honest|slowed) (\d+) rc=(\d+) wall=(\d+)s end=(\S+) load=(.*)", line.strip())
    if m:
        log[(m[1], int(m[2]))] = (int(m[3]), int(m[4]), m[5], m[6])
rows = {"honest": [], "slowed": []}
for (kind, i), (rc, wall, end, load) in sorted(log.items()):
    path = os.path.join(d, f"{kind}-{i}.json")
    try:
        doc = json.load(open(path))
    except Exception as e:
        rows[kind].append((i, rc, wall, load, None)); continue
    v = {c["case"]: (c["verdict"], c["ratio"], c["interval"]) for c in doc["cases"]}
    rows[kind].append((i, rc, wall, load, v))
out = []
for kind in ("honest", "slowed"):
    r = [x for x in rows[kind] if x[4] is not None]
    n = len(r)
    exit1 = sum(1 for x in r if x[1] == 1)
    comps = sum(len(x[4]) for x in r)
    others = [(x[0], c, x[4][c]) for x in r for c in x[4] if x[4][c][0] in ("SLOWER", "FASTER")
              and not (kind == "slowed" and c == SLOWED)]
    amb = sum(1 for x in r for c in x[4] if x[4][c][0] == "AMBIGUOUS")
    out.append(f"{kind}: {n} invocations, exit 1 in {exit1}; {comps} case comparisons, "
               f"{len(others)} flagged SLOWER/FASTER{' (other than the slowed case)' if kind == 'slowed' else ''}, {amb} AMBIGUOUS; walls {[x[2] for x in r]} s")
    for i, c, (verdict, ratio, iv) in others:
        out.append(f"  flagged: #{i} {c} {verdict} {ratio:.3f} [{iv[0]:.3f}, {iv[1]:.3f}]")
    if kind == "slowed":
        found = [x for x in r if x[4].get(SLOWED, ("",))[0] == "SLOWER"]
        out.append(f"  {SLOWED} (1.2x the work): SLOWER in {len(found)} of {n}")
        for x in r:
            verdict, ratio, iv = x[4].get(SLOWED, ("absent", float('nan'), [float('nan')] * 2))
            out.append(f"    #{x[0]}: {verdict} {ratio:.3f} [{iv[0]:.3f}, {iv[1]:.3f}] rc={x[1]} load {x[3]}")
print("\n".join(out))
