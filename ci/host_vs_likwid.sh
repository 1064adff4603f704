#!/usr/bin/env bash
# The host STREAM target, measured side by side on one machine: boundbench's host triad (fp64) against
# likwid-bench's `stream` kernel (STREAM triad A = B*s + C, plain stores) with the same working set
# and thread count, three runs each, medians compared. Target: boundbench >= 0.9 x likwid.
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

for i in 1 2 3; do
  "$bb" run --suite bandwidth --backend host --filter 'triad/fp64/host' --no-fail \
    --out "$tmp/bb$i.json" >"$tmp/bb$i.log"
done
ws_bytes=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['benchmarks'][0]['params']['working_set_bytes'])" "$tmp/bb1.json")
ws_mb=$(( (ws_bytes + 999999) / 1000000 ))
for i in 1 2 3; do
  likwid-bench -t stream -w "S0:${ws_mb}MB:${threads}" >"$tmp/likwid$i.log" 2>&1
  # For information: likwid's hand-written AVX-512 FMA triad (plain stores), where the CPU has it.
  if grep -qw avx512f /proc/cpuinfo; then
    likwid-bench -t stream_avx512_fma -w "S0:${ws_mb}MB:${threads}" >"$tmp/likwid_avx512_$i.log" 2>&1
  fi
done

python3 - "$tmp" "$out" "$threads" "$ws_bytes" <<'PY'
import json, re, statistics, subprocess, sys, datetime
tmp, out, threads, ws = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
bb = [json.load(open(f"{tmp}/bb{i}.json")) for i in (1, 2, 3)]
bb_bw = [d["benchmarks"][0]["bytes_per_s"] for d in bb]
lk_bw = []
for i in (1, 2, 3):
    m = re.search(r"MByte/s:\s+([0-9.]+)", open(f"{tmp}/likwid{i}.log").read())
    lk_bw.append(float(m.group(1)) * 1e6)
ratio = statistics.median(bb_bw) / statistics.median(lk_bw)
import os
lk512 = []
for i in (1, 2, 3):
    path = f"{tmp}/likwid_avx512_{i}.log"
    if os.path.exists(path):
        m = re.search(r"MByte/s:\s+([0-9.]+)", open(path).read())
        if m:
            lk512.append(float(m.group(1)) * 1e6)
ctx = bb[0]["context"]["boundbench"]
result = {
    "what": "host STREAM triad fp64: boundbench vs likwid-bench -t stream, same working set and threads",
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "git_commit": ctx["git_commit"],
    "host": ctx["host"],
    "threads": threads,
    "working_set_bytes": ws,
    "likwid_version": subprocess.run(["dpkg-query", "-W", "-f=${Version}", "likwid"], capture_output=True, text=True).stdout.strip(),
    "boundbench_bytes_per_s": bb_bw,
    "likwid_stream_bytes_per_s": lk_bw,
    "ratio_of_medians": ratio,
    "likwid_stream_avx512_fma_bytes_per_s": lk512,
    "ratio_to_avx512_fma_of_medians": statistics.median(bb_bw) / statistics.median(lk512) if lk512 else None,
    "target": 0.9,
    "meets_target": ratio >= 0.9,
    "note": "both count 3 arrays x 8 bytes per element (STREAM accounting; write-allocate traffic not counted)",
}
json.dump(result, open(out, "w"), indent=2)
print(f"boundbench {statistics.median(bb_bw)/1e9:.2f} GB/s, likwid stream {statistics.median(lk_bw)/1e9:.2f} GB/s, ratio {ratio:.3f} (target >= 0.9)")
PY
echo "written: $out"
