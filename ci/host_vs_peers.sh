#!/usr/bin/env bash
# Host kernels against peers on one machine, interleaved round by round so that neighbours' load
# hits all alike: boundbench's host STREAM (fp64 copy and triad, plain and non-temporal stores),
# int8/fp8/MX/NVFP4 quantization, fp32 attention (tiled, naive) and its FMA-chain fp32 peak, then
# ci/host_peer.py (numpy on its OpenBLAS: attention softmax(QKᵀ/√d)V at B 1 H 4 n 4096 d 64, int8
# quantization written as a numpy user would), then likwid-bench's copy and stream (triad)
# kernels, write-allocating and non-temporal, with boundbench's working set. Medians over the
# rounds; ratios against the issue-28 targets: STREAM fp64 copy and triad >= 1.0x likwid's best
# kernel for each; every quantize case >= 0.5x the run's best STREAM (bytes as theory/ counts
# them); tiled attention >= 1.0x numpy's speed and >= 40% of the fp32 FMA-chain peak at n 4096;
# naive slower than tiled from n 1024.
#   ci/host_vs_peers.sh [BOUNDBENCH] [OUT.json] [ROUNDS]
# PYTHON: an interpreter with numpy (default build/oracle-venv/bin/python, made by ci/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bb=${1:-build/default/boundbench}
out=${2:-build/results/host-vs-peers.json}
rounds=${3:-3}
py=${PYTHON:-build/oracle-venv/bin/python}
command -v likwid-bench >/dev/null || { echo "likwid-bench not found (apt-get install likwid)"; exit 2; }
"$py" -c "import numpy" 2>/dev/null || { echo "no numpy in $py (set PYTHON)"; exit 2; }
threads=$(nproc)
tmp=$(mktemp -d)
[[ -n "${KEEP_TMP:-}" ]] && echo "raw outputs kept in $tmp" || trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$out")"
filter='bandwidth/(copy|triad)(-nt)?/fp64/host$|bandwidth/intensity/fp32/host/k1024$|quantize/.*/host$|attention/(naive|tiled)/fp32/host/d64/n(1024|4096)$'
likwid_tests="copy copy_avx512 copy_mem copy_mem_avx512 stream stream_avx512 stream_avx512_fma stream_mem_avx512"

for r in $(seq 1 "$rounds"); do
  echo "round $r: boundbench"
  "$bb" run --backend host --filter "$filter" --no-fail --min-samples 3 --min-time 0.3 --timeout 6 \
    --out "$tmp/bb_$r.json" >"$tmp/bb_$r.log" 2>&1
  echo "round $r: numpy peer"
  "$py" ci/host_peer.py --reps 3 >"$tmp/peer_$r.json"
  ws_bytes=$(python3 -c "import json,sys; print(next(b['params']['working_set_bytes'] for b in json.load(open(sys.argv[1]))['benchmarks'] if b['name'] == 'bandwidth/triad/fp64/host'))" "$tmp/bb_$r.json")
  ws_mb=$(( (ws_bytes + 999999) / 1000000 ))
  echo "round $r: likwid-bench ($ws_mb MB)"
  for t in $likwid_tests; do
    likwid-bench -t "$t" -w "S0:${ws_mb}MB:${threads}" >"$tmp/likwid_${t}_$r.log" 2>&1 || true
  done
done

python3 - "$tmp" "$out" "$rounds" "$threads" "$likwid_tests" <<'PY'
import datetime, json, re, statistics as st, subprocess, sys
tmp, out, rounds, threads, tests = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split()
R = range(1, rounds + 1)
bb = [json.load(open(f"{tmp}/bb_{r}.json")) for r in R]
peer = [json.load(open(f"{tmp}/peer_{r}.json")) for r in R]
def lk(t, r):
    m = re.search(r"MByte/s:\s+([0-9.]+)", open(f"{tmp}/likwid_{t}_{r}.log").read())
    return float(m.group(1)) * 1e6 if m else None
likwid = {t: [lk(t, r) for r in R] for t in tests}
def ours(name, key):
    return [next(b[key] for b in d["benchmarks"] if b["name"] == name) for d in bb]
def med(xs):
    xs = [x for x in xs if x is not None]
    return st.median(xs) if xs else None
def spread(xs):
    xs = [x for x in xs if x is not None]
    return [min(xs), max(xs)] if xs else None
res = {"what": "boundbench host kernels vs numpy/OpenBLAS and likwid-bench, interleaved per round",
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
       "git_commit": bb[0]["context"]["boundbench"]["git_commit"],
       "host": bb[0]["context"]["boundbench"]["host"], "threads": threads, "rounds": rounds,
       "load_avg_per_round": [d["context"].get("load_avg") for d in bb],
       "numpy": peer[0]["numpy"], "numpy_blas": peer[0]["blas"],
       "likwid_version": subprocess.run(["dpkg-query", "-W", "-f=${Version}", "likwid"],
                                        capture_output=True, text=True).stdout.strip(),
       "bytes_counted": "STREAM's arrays x element size for every STREAM case and likwid kernel (no "
                        "write-allocate read counted); for the non-temporal variants that is the "
                        "bytes moved, for the plain ones the machine also reads each written line "
                        "first; quantize bytes as theory/ declares them"}
stream = {}
for kernel, lk_tests in (("copy", [t for t in tests if t.startswith("copy")]),
                         ("triad", [t for t in tests if t.startswith("stream")])):
    plain = ours(f"bandwidth/{kernel}/fp64/host", "bytes_per_s")
    nt = ours(f"bandwidth/{kernel}-nt/fp64/host", "bytes_per_s")
    best_ours = [max(a, b) for a, b in zip(plain, nt)]
    lk_best = [max(v for v in (likwid[t][i] for t in lk_tests) if v is not None) for i in range(rounds)]
    stream[kernel] = {"plain_bytes_per_s": plain, "non_temporal_bytes_per_s": nt,
                      "likwid_bytes_per_s": {t: likwid[t] for t in lk_tests},
                      "ratio_best_over_likwid_best_per_round": [a / b for a, b in zip(best_ours, lk_best)],
                      "ratio_of_medians": med(best_ours) / med(lk_best), "target": 1.0}
res["stream_fp64"] = stream
best_stream = [max(b["bytes_per_s"] for b in d["benchmarks"] if b["name"].startswith("bandwidth/")
                   and "/intensity/" not in b["name"]) for d in bb]
quant = {}
for name in sorted({b["name"] for b in bb[0]["benchmarks"] if "/quantize/" in b["name"]}):
    bw = ours(name, "bytes_per_s")
    ratios = [a / s for a, s in zip(bw, best_stream)]
    quant[name] = {"bytes_per_s": bw, "over_best_stream_per_round": ratios,
                   "median_over_best_stream": med(ratios), "target": 0.5}
res["best_stream_bytes_per_s"] = best_stream
res["quantize"] = quant
np_q = {g: [st.median(p["quantize"][g]["seconds"]) for p in peer] for g in peer[0]["quantize"]}
res["numpy_quantize_int8_symmetric_s"] = np_q
res["quantize_vs_numpy"] = {}
for g in np_q:
    mine = ours(f"precision/quantize/int8/{g}/symmetric/host", "median_s")
    res["quantize_vs_numpy"][g] = {"speed_over_numpy_per_round": [n / o for n, o in zip(np_q[g], mine)],
                                   "speed_over_numpy": med([n / o for n, o in zip(np_q[g], mine)])}
tiled = ours("attention/tiled/fp32/host/d64/n4096", "median_s")
naive = {n: ours(f"attention/naive/fp32/host/d64/n{n}", "median_s") for n in (1024, 4096)}
tiled_n = {n: ours(f"attention/tiled/fp32/host/d64/n{n}", "median_s") for n in (1024, 4096)}
flop = bb[0]["benchmarks"][[b["name"] for b in bb[0]["benchmarks"]].index("attention/tiled/fp32/host/d64/n4096")]["flop"]
peak = ours("bandwidth/intensity/fp32/host/k1024", "flop_per_s")
np_t = [st.median(p["attention"]["seconds"]) for p in peer]
res["attention_fp32_b1_h4_d64"] = {
    "tiled_s": tiled_n, "naive_s": naive, "numpy_n4096_s": np_t, "fma_chain_peak_flop_per_s": peak,
    "tiled_speed_over_numpy_per_round": [n / t for n, t in zip(np_t, tiled)],
    "tiled_speed_over_numpy": med([n / t for n, t in zip(np_t, tiled)]), "target_vs_numpy": 1.0,
    "tiled_fraction_of_peak_per_round": [flop / t / p for t, p in zip(tiled, peak)],
    "tiled_fraction_of_peak": med([flop / t / p for t, p in zip(tiled, peak)]), "target_of_peak": 0.4,
    "naive_over_tiled_time": {n: med([a / b for a, b in zip(naive[n], tiled_n[n])]) for n in naive}}
json.dump(res, open(out, "w"), indent=2)
for k, v in stream.items():
    print(f"STREAM fp64 {k}: best of ours / likwid's best = {v['ratio_of_medians']:.3f} (target 1.0)")
for k, v in quant.items():
    print(f"{k}: {v['median_over_best_stream']:.3f} of best STREAM (target 0.5)")
a = res["attention_fp32_b1_h4_d64"]
print(f"attention n4096: tiled {a['tiled_speed_over_numpy']:.2f}x numpy, {a['tiled_fraction_of_peak']:.1%} of fp32 peak; "
      f"naive/tiled time n1024 {a['naive_over_tiled_time'][1024]:.2f}, n4096 {a['naive_over_tiled_time'][4096]:.2f}")
PY
echo "written: $out"
