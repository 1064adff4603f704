#!/usr/bin/env bash
# The host STREAM targets, measured side by side on one machine: boundbench's host triad and copy
# (fp64) against likwid-bench's `stream` (STREAM triad A = B*s + C) and `copy` (A = B) kernels with
# the same working set and thread count, three runs each, medians compared.
# Target: boundbench >= 0.9 x likwid for each.
#   ci/host_vs_likwid.sh [BOUNDBENCH] [OUT.json]
set -euo pipefail
cd "$(dirname "$0")/.."
bb=${1:-build/default/boundbench}
out=${2:-build/results/host-vs-likwid.json}
command -v likwid-bench >/dev/null || { echo "likwid-bench not found (apt-get install likwid)"; exit 2; }
threads=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$out")"

for pair in triad:stream copy:copy; do
  kernel=${pair%%:*} test=${pair##*:}
  for i in 1 2 3; do
    "$bb" run --suite bandwidth --backend host --filter "/$kernel/fp64/host\$" --no-fail \
      --out "$tmp/bb_${kernel}_$i.json" >"$tmp/bb_${kernel}_$i.log"
  done
  ws_bytes=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['benchmarks'][0]['params']['working_set_bytes'])" "$tmp/bb_${kernel}_1.json")
  echo "$ws_bytes" >"$tmp/ws_$kernel"
  ws_mb=$(( (ws_bytes + 999999) / 1000000 ))
  for i in 1 2 3; do
    likwid-bench -t "$test" -w "S0:${ws_mb}MB:${threads}" >"$tmp/likwid_${kernel}_$i.log" 2>&1
  done
done

python3 - "$tmp" "$out" "$threads" <<'PY'
import datetime, json, re, statistics, subprocess, sys
tmp, out, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
kernels = {}
ctx = None
for kernel, test in (("triad", "stream"), ("copy", "copy")):
    bb = [json.load(open(f"{tmp}/bb_{kernel}_{i}.json")) for i in (1, 2, 3)]
    ctx = bb[0]["context"]["boundbench"]
    bb_bw = [d["benchmarks"][0]["bytes_per_s"] for d in bb]
    lk_bw = [float(re.search(r"MByte/s:\s+([0-9.]+)",
                             open(f"{tmp}/likwid_{kernel}_{i}.log").read()).group(1)) * 1e6
             for i in (1, 2, 3)]
    ratio = statistics.median(bb_bw) / statistics.median(lk_bw)
    kernels[kernel] = {
        "likwid_test": test,
        "working_set_bytes": int(open(f"{tmp}/ws_{kernel}").read()),
        "boundbench_bytes_per_s": bb_bw,
        "likwid_bytes_per_s": lk_bw,
        "ratio_of_medians": ratio,
        "meets_target": ratio >= 0.9,
    }
    print(f"{kernel}: boundbench {statistics.median(bb_bw)/1e9:.2f} GB/s, likwid {test} "
          f"{statistics.median(lk_bw)/1e9:.2f} GB/s, ratio {ratio:.3f} (target >= 0.9)")
result = {
    "what": "host STREAM fp64 kernels: boundbench vs likwid-bench, same working set and threads",
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "git_commit": ctx["git_commit"],
    "host": ctx["host"],
    "threads": threads,
    "likwid_version": subprocess.run(["dpkg-query", "-W", "-f=${Version}", "likwid"],
                                     capture_output=True, text=True).stdout.strip(),
    "kernels": kernels,
    "target": 0.9,
    "note": "both count STREAM's arrays x 8 bytes per element (write-allocate traffic not counted)",
}
json.dump(result, open(out, "w"), indent=2)
PY
echo "written: $out"
