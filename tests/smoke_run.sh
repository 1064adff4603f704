#!/usr/bin/env bash
# Smoke test: `boundbench run --quick` over every suite on whatever hardware is here; its results
# file must validate against results/schema.json, and Google Benchmark's compare.py must read it.
set -euo pipefail
boundbench=$1 src=$2 work=$3
mkdir -p "$work"
out="$work/smoke.json"
rm -f "$out" "$work/smoke.md"
start=$(date +%s)
"$boundbench" run --quick --out "$out"
elapsed=$(($(date +%s) - start))
echo "smoke: run --quick took ${elapsed} s"
/usr/bin/python3 "$src/ci/validate_results.py" "$out" --require-complete --min-benchmarks 1
test -s "$work/smoke.md"
# compare.py needs scipy (python3-scipy); it must accept our file unchanged.
/usr/bin/python3 /usr/share/benchmark/compare.py benchmarks "$out" "$out" >"$work/compare.txt"
grep -q "bandwidth/triad/fp64/host" "$work/compare.txt"
echo "smoke: results valid, compare.py reads them"
