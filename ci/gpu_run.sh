#!/usr/bin/env bash
# The GPU side of CI. On a machine with a GPU: every GPU test, the GPU tests under compute-sanitizer
# (memcheck, racecheck), the CPU unit tests, `boundbench run` over every suite, and a PyTorch peer
# measurement, the NCCL collectives and strategies, a report and the baseline comparison, in one
# output folder: gpu_run.log (with nvidia-smi and `info`), gpu_test.xml, run.json, run.md,
# collectives.json, torch_peer.json, report.html, compare.md (at most 8 files, for the device
# tool; strategies-synthetic.json and strategies-gemm.json where fewer were written).
#   ci/gpu_run.sh [BIN_DIR] [OUT_DIR]
# BIN_DIR holds boundbench, gpu_test, theory_test, harness_test: bundle/bin (from ci/bundle.sh,
# default) or build/default after a local build; OUT_DIR defaults to $OUT, else ./gpu-results.
# Exit status: non-zero when any step failed; every step runs regardless.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-bundle/bin}" && pwd)
tests=$bin
[[ -x $bin/gpu_test ]] || tests=$bin/tests  # a build tree keeps the tests in tests/
out=${2:-${OUT:-gpu-results}}
mkdir -p "$out"
log=$out/gpu_run.log
: >"$log"

# CUDA's libraries come from this machine: the toolkit, else the Python wheels (nvidia-nccl-cu13…).
libs=/usr/local/cuda/lib64
for mod in nvidia.nccl nvidia.cublas nvidia.cuda_runtime; do
  d=$(python3 -c "import $mod, os; print(os.path.join(list($mod.__path__)[0], 'lib'))" 2>/dev/null) &&
    libs=$libs:$d
done
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

failed=()
# One command of the device tool may run 600 s: every step has a time limit (SIGTERM, then KILL;
# `boundbench run` keeps the cases it finished), and a step that would start past the budget
# BB_BUDGET_S (default 560 s) is skipped, so the files come back. The most telling steps go first.
budget=${BB_BUDGET_S:-560}
step() {  # step NAME LIMIT_S COMMAND...: runs it with a time limit, logs it, records failure
  local name=$1 limit=$2
  shift 2
  local left=$((budget - SECONDS))
  if ((left < 10)); then
    echo "=== $name: skipped, the ${budget} s budget is spent" | tee -a "$log"
    failed+=("$name(budget)")
    return
  fi
  ((limit > left)) && limit=$left
  echo "=== $name (limit ${limit} s): $*" | tee -a "$log"
  local t0=$SECONDS
  timeout --signal=TERM --kill-after=10 "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  echo "=== $name: exit $rc in $((SECONDS - t0)) s$( ((rc == 124 || rc == 137)) && echo ' (time limit)')" | tee -a "$log"
  ((rc == 0)) || failed+=("$name")
}

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  cat "$bin/../COMMIT" 2>/dev/null || git -C "$here/.." rev-parse HEAD 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  nvidia-smi
  # Applications (sustained) clocks and clock-event reasons: what the clock checks judge against.
  nvidia-smi -q -d CLOCK,PERFORMANCE
} >>"$log" 2>&1

step info 30 "$bin/boundbench" info
scratch=$(mktemp -d)
"$bin/boundbench" info --json >"$scratch/info.json" 2>>"$log"
cat "$scratch/info.json" >>"$log"
# On a GPU runner "no usable GPU" is a failure, not a skip: otherwise every GPU test skips and passes.
step gpu_usable 30 python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))["gpus"]
print("GPU usable:", g["usable"], g["reason"], [d["name"] for d in g["devices"]])
sys.exit(0 if g["usable"] else 1)' "$scratch/info.json"
# --gtest_fail_if_no_test_run is not in GoogleTest 1.12; GTEST_SKIP is caught by gpu_usable above.
step gpu_test 150 "$tests/gpu_test" --gtest_output=xml:"$out/gpu_test.xml"
step unit_tests 60 sh -c "'$tests/theory_test' && '$tests/harness_test'"
# Device time is scarce (a lent H200 gives 15 minutes in all): by default the CUDA backend only
# (CI measures the host backend on every submission) with --quick's sampling; BB_RUN_ARGS
# overrides, e.g. BB_RUN_ARGS="--backend cuda" for the full rule, or "--backend cuda --quick
# --suite precision" for one suite.
read -r -a run_args <<<"${BB_RUN_ARGS:---backend cuda --quick}"
step run "${BB_RUN_LIMIT_S:-300}" "$bin/boundbench" run "${run_args[@]}" --out "$out/run.json" \
  --summary "$out/run.md"
{
  echo "=== clocks after the suites"
  nvidia-smi -q -d CLOCK,PERFORMANCE
} >>"$log" 2>&1
# What the suites measured is checked and reported first (cheap), before the slower steps.
step cuda_cases_ran 30 python3 -c 'import json, sys
b = [e for e in json.load(open(sys.argv[1]))["benchmarks"] if e.get("backend") == "cuda"]
it = [e for e in b if e["run_type"] == "iteration"]
ok = [e for e in it if not e.get("error_occurred")]
skipped = [e for e in it if e.get("error_message", "").startswith("skipped:")]
print(len(ok), "CUDA cases measured,", len(skipped), "skipped:", [e["name"] for e in ok])
sys.exit(0 if ok and len(ok) + len(skipped) == len(it) else 1)' "$out/run.json"
# The report (one self-contained HTML file: its images are embedded) and, where this device has a
# committed baseline (results/baselines/<device>.json), the regression comparison.
tmp_report=$(mktemp -d)
step report 60 "$bin/boundbench" report "$out/run.json" --out "$tmp_report" &&
  cp "$tmp_report/report.html" "$out/report.html"
rm -rf "$tmp_report"
device=$(python3 -c 'import json, re, sys
g = json.load(open(sys.argv[1]))["gpus"]
print(re.sub(r"[^a-z0-9]+", "-", g["devices"][0]["name"].lower()).strip("-") if g["usable"] else "")' "$scratch/info.json" 2>/dev/null)
baseline=$here/../results/baselines/$device.json
if [[ -n $device && -f $baseline ]]; then
  step compare_baseline 30 "$bin/boundbench" compare "$baseline" "$out/run.json" --markdown "$out/compare.md"
else
  echo "=== no baseline for '$device' (results/baselines/$device.json): comparison skipped" | tee -a "$log"
fi
if [[ -f $here/validate_results.py ]]; then
  step validate 60 python3 "$here/validate_results.py" "$out/run.json" --require-complete --min-benchmarks 1 --schema-optional
fi

# NCCL between this machine's GPUs in one process (one GPU: world size 1, the code path validated).
step collectives 60 "$bin/boundbench" collectives --transport nccl --quick \
  --out "$out/collectives.json" --summary "$scratch/collectives.md"
# The strategies' NCCL engine (one process on this GPU: one rank, so the data-, tensor- and
# expert-parallel steps with their NCCL all-reduces and all-to-alls, no pipeline, which needs two
# GPUs): GPU-timer waits, then cuBLAS SGEMM. --no-fail: the verdicts are results, in the log; the
# step fails when the run does not finish or its results file is not complete.
for compute in synthetic gemm; do
  step "strategies_nccl_$compute" 90 sh -c "'$bin/boundbench' strategies --engine nccl --quick \
    --no-fail --compute $compute --synthetic-rate 1e10 --out '$scratch/strategies-$compute.json' \
    --summary '$scratch/strategies-$compute.md' && cat '$scratch/strategies-$compute.md' &&
    python3 '$here/validate_results.py' '$scratch/strategies-$compute.json' --require-complete \
    --min-benchmarks 1 --schema-optional"
done
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  step torch_peer 60 python3 "$here/torch_peer.py" "$out/torch_peer.json"
fi
# The sanitizers last (slow): boundbench's own kernels only. Left out: every test that runs cuBLAS
# (its sm_90 library kernels give false racecheck reports and cost time: GpuGemm, the GEMM halves of
# GpuIntensity, the naive attention tests, which also hold the fused ones), and the tests that
# assert timings or sweep all 2^32 patterns (an instrumented kernel is 10-100x slower).
if command -v compute-sanitizer >/dev/null; then
  own='-GpuGemm.*:GpuIntensity.Gemm*:GpuAttention.NaiveAndFused*:GpuAttention.NanPropagates*'
  own+=':GpuPrecisionTest.AllPatternsInWellUnderASecond:GpuTest.SessionTimesAndReadsClock'
  step memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 97 "$tests/gpu_test" \
    --gtest_filter="$own"
  step racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 97 "$tests/gpu_test" \
    --gtest_filter="$own"
else
  echo "=== compute-sanitizer not found: memcheck/racecheck skipped" | tee -a "$log"
fi
# The strategies' results come back where the device tool has room (it returns at most 8 files).
for f in "$scratch"/strategies-*.json; do
  [[ -f $f ]] && (($(find "$out" -maxdepth 1 -type f | wc -l) < 8)) && cp "$f" "$out/"
done
echo "gpu_run: ${#failed[@]} failed${failed:+: ${failed[*]}}" | tee -a "$log"
((${#failed[@]} == 0))
