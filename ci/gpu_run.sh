#!/usr/bin/env bash
# The GPU side of CI. On a machine with a GPU: first what the binaries need (the driver, CUDA's
# libraries: it stops at once, before any device time, with one line saying why, when they are not
# there), then every GPU test (one process: never two at once on the GPU), `boundbench run` over
# every suite, the checks of that run, the NCCL collectives and strategies, a PyTorch peer
# measurement, and the GPU tests under compute-sanitizer (memcheck, racecheck), in one output
# folder: gpu_run.log (with the preflight, nvidia-smi and `info`), gpu_test.xml, run.json, run.md,
# collectives.json, torch_peer.json, report.html, compare.md (at most 8 files, for the device
# tool; strategies-synthetic.json and strategies-gemm.json where fewer were written).
#   ci/gpu_run.sh [BIN_DIR] [OUT_DIR]
# BIN_DIR holds boundbench and gpu_test: bundle/bin (from ci/bundle.sh, default) or build/default
# after a local build; OUT_DIR defaults to $OUT, else ./gpu-results.
# Exit status: 2 when the preflight finds this machine cannot run the binaries (nothing else runs);
# else 1 when any step failed, 0 when none did. A step the budget leaves out is listed as skipped,
# not failed, unless the job needs it (gpu_usable, gpu_test, run). BB_GPU_RUN_DRY=1
# (ci/gpu_dryrun.py, a rehearsal without a GPU): the preflight's verdict is logged but does not stop the run, and with
# no usable GPU a step that needs one is listed as "cannot run without a GPU", not as failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-bundle/bin}" && pwd)
tests=$bin
[[ -x $bin/gpu_test ]] || tests=$bin/tests  # a build tree keeps the tests in tests/
out=${2:-${OUT:-gpu-results}}
mkdir -p "$out"
log=$out/gpu_run.log
: >"$log"
# shellcheck source=ci/gpu_steps.sh
source "$here/gpu_steps.sh"
dry=${BB_GPU_RUN_DRY:-0}
gpu_usable=0
# One command of the device tool may run 600 s: every step has a time limit (SIGTERM, then KILL;
# `boundbench run` keeps the cases it finished), and a step that would start past the budget
# BB_BUDGET_S (default 560 s) is skipped and listed, so the files come back. The most telling
# steps go first.
budget=${BB_BUDGET_S:-560}
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  cat "$bin/../COMMIT" 2>/dev/null || git -C "$here/.." rev-parse HEAD 2>/dev/null
} >>"$log" 2>&1

# --- Before any device time: what the binaries need, and whether this machine has it. ----------
# CUDA's libraries come from this machine: the toolkit ($CUDA_HOME/lib64, default /usr/local/cuda),
# else Python wheels. CUDA 13's wheels (nvidia-cublas, nvidia-cuda-runtime 13.x) unpack to
# site-packages/nvidia/cu13/lib, one folder for all of them (a namespace package, nvidia.cu13); nvidia-nccl-cu13 keeps
# nvidia/nccl/lib (checked 2026-12-06: pip download --no-deps of nvidia-cuda-runtime 13.5.37 and
# nvidia-nccl-cu13 2.32.6, listed; nvidia-cublas 13.x: nvidia/cu13/lib/libcublas.so.13, as reported
# in NVIDIA/cuml#7304). So each library the binaries need (ldd's sonames, and libnccl.so.2, which
# boundbench dlopens) is looked for in the toolkit, then in every site-packages/nvidia/*/lib, and
# the folders holding one go first on LD_LIBRARY_PATH.
needed=$(for exe in "$bin/boundbench" "$tests/gpu_test"; do ldd "$exe" 2>/dev/null; done |
  grep -oE 'lib(cudart|cublas|cublasLt|nccl)\.so\.[0-9]+' | sort -u | tr '\n' ' ')
needed+="libnccl.so.2"
wheel_dirs=$(python3 -c 'import glob, os, sys
dirs = {d for p in sys.path if os.path.isdir(p)
        for d in glob.glob(os.path.join(p, "nvidia", "*", "lib"))}
print(":".join(sorted(dirs)))' 2>/dev/null)
libs=""
cuda_home=${CUDA_HOME:-/usr/local/cuda}
IFS=: read -r -a search_dirs <<<"$cuda_home/lib64${wheel_dirs:+:$wheel_dirs}"
for name in $needed; do
  for d in "${search_dirs[@]}"; do
    if [[ -e $d/$name ]]; then
      [[ :$libs: == *:$d:* ]] || libs+=${libs:+:}$d
      break
    fi
  done
done
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# The sanitizers leave out the tests listed in gpu_sanitizer_exclude.txt (why: in that file).
sanitizer=$(command -v compute-sanitizer || command -v "$cuda_home/bin/compute-sanitizer")
exclude_file=${BB_SANITIZER_EXCLUDE:-$here/gpu_sanitizer_exclude.txt}
sanitizer_filter=-$(grep -vE '^[[:space:]]*(#|$)' "$exclude_file" | awk '{print $1}' | paste -sd:)

# CUDA 13 needs an R580+ driver, CUDA 12 R525+ (CUDA toolkit release notes, minimum driver
# versions: 13.0 GA 580.65.06, 12.0 GA 525.60.13); the CUDA major is the one the binaries link.
preflight() {  # prints the facts; the last line "PROBLEM: ..." (and status 1) when this cannot run
  local problems=() cuda_major min_driver driver_version exe missing
  cuda_major=$(grep -oE 'lib(cublas|cudart)\.so\.[0-9]+' <<<"$needed" | head -1 | grep -oE '[0-9]+$')
  case ${cuda_major:-} in
    13) min_driver=580 ;;
    12) min_driver=525 ;;
    *) min_driver=0 ;;
  esac
  echo "=== preflight: the binaries link CUDA ${cuda_major:-?}," \
    "which needs an NVIDIA driver R${min_driver}+"
  if ! command -v nvidia-smi >/dev/null; then
    problems+=("no NVIDIA driver here (nvidia-smi not found)")
  elif ! driver_version=$(timeout 30 nvidia-smi --query-gpu=driver_version --format=csv,noheader \
    2>&1 | head -1) ||
    [[ ! $driver_version =~ ^[0-9]+\. ]]; then
    problems+=("nvidia-smi cannot read the driver version: $driver_version")
  else
    echo "driver: $driver_version (nvidia-smi)"
    ((${driver_version%%.*} >= min_driver)) ||
      problems+=("driver $driver_version is older than R$min_driver, which CUDA $cuda_major needs")
  fi
  echo "CUDA libraries looked for in: ${search_dirs[*]}"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  for exe in "$bin/boundbench" "$tests/gpu_test"; do
    echo "ldd $exe:"
    ldd "$exe" 2>&1 | grep -E 'libcu|libnccl|libnvidia|not found' | sed 's/^[[:space:]]*/  /'
    missing=$(ldd "$exe" 2>&1 | awk '/not found/ {print $1}' | paste -sd' ')
    [[ -z $missing ]] || problems+=("$(basename "$exe") needs $missing, not found")
  done
  grep -q libcudart <<<"$needed" || echo "libcudart: static, linked into the binaries"
  if python3 -c 'import ctypes; ctypes.CDLL("libnccl.so.2")' 2>/dev/null; then
    echo "libnccl.so.2 (dlopen): resolves"
  else
    # Only the NCCL steps need it: they fail with the reason; the rest of the job is worth its time.
    echo "libnccl.so.2 (dlopen): does not resolve: the NCCL steps (collectives, strategies) will fail"
  fi
  # A pattern that matches nothing is stale: the test it meant would run under the sanitizers.
  local pattern reason n
  while read -r pattern reason; do
    n=$("$tests/gpu_test" --gtest_list_tests --gtest_filter="$pattern" 2>/dev/null | grep -c '^  ')
    echo "sanitizers leave out $pattern: $n tests ($reason)"
    ((n > 0)) || problems+=("sanitizer exclusion '$pattern' matches no test of gpu_test (fix \
$exclude_file from gpu_test --gtest_list_tests)")
  done < <(grep -vE '^[[:space:]]*(#|$)' "$exclude_file")
  echo "compute-sanitizer: ${sanitizer:-not found: memcheck and racecheck will not run}"
  echo "sanitizers run $("$tests/gpu_test" --gtest_list_tests --gtest_filter="$sanitizer_filter" |
    grep -c '^  ') tests of gpu_test"
  if ((${#problems[@]})); then
    local joined
    joined=$(printf '%s; ' "${problems[@]}")
    echo "PROBLEM: ${joined%; }"
    return 1
  fi
  echo "preflight: ok"
}
preflight_out=$(preflight)
preflight_rc=$?
echo "$preflight_out" | tee -a "$log"
if ((preflight_rc != 0)); then
  why=$(sed -n 's/^PROBLEM: //p' <<<"$preflight_out")
  if ((dry)); then
    echo "gpu_run: dry run: a GPU runner would stop here: $why" | tee -a "$log"
  else
    echo "gpu_run: cannot run here, stopped before any device time: $why" | tee -a "$log" >&2
    exit 2
  fi
fi

if command -v nvidia-smi >/dev/null; then
  {
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
    nvidia-smi
    # Applications (sustained) clocks and clock-event reasons: what the clock checks judge against.
    nvidia-smi -q -d CLOCK,PERFORMANCE
  } >>"$log" 2>&1
fi

step info 30 "$bin/boundbench" info
scratch=$(mktemp -d)
"$bin/boundbench" info --json >"$scratch/info.json" 2>>"$log"
cat "$scratch/info.json" >>"$log"
python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["gpus"]["usable"] else 1)' \
  "$scratch/info.json" 2>/dev/null && gpu_usable=1
# On a GPU runner "no usable GPU" is a failure, not a skip: otherwise every GPU test skips and passes.
step --required --gpu gpu_usable 30 python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))["gpus"]
print("GPU usable:", g["usable"], g["reason"], [d["name"] for d in g["devices"]])
sys.exit(0 if g["usable"] else 1)' "$scratch/info.json"
# --gtest_fail_if_no_test_run is not in GoogleTest 1.12; GTEST_SKIP is caught by gpu_usable above.
# One process: the GPU tests never overlap on the GPU (some assert timings).
step --required gpu_test 150 "$tests/gpu_test" --gtest_output=xml:"$out/gpu_test.xml"
# Device time is scarce (a lent H200 gives 15 minutes in all): by default the CUDA backend only
# (CI measures the host backend on every submission) with --quick's sampling; BB_RUN_ARGS
# overrides, e.g. BB_RUN_ARGS="--backend cuda" for the full rule, or "--backend cuda --quick
# --suite precision" for one suite.
read -r -a run_args <<<"${BB_RUN_ARGS:---backend cuda --quick}"
step --required run "${BB_RUN_LIMIT_S:-300}" "$bin/boundbench" run "${run_args[@]}" --out "$out/run.json" \
  --summary "$out/run.md"
if command -v nvidia-smi >/dev/null; then
  {
    echo "=== clocks after the suites"
    nvidia-smi -q -d CLOCK,PERFORMANCE
  } >>"$log" 2>&1
fi
# What the suites measured is checked and reported first (cheap), before the slower steps.
step --gpu cuda_cases_ran 30 python3 -c 'import json, sys
b = [e for e in json.load(open(sys.argv[1]))["benchmarks"] if e.get("backend") == "cuda"]
it = [e for e in b if e["run_type"] == "iteration"]
ok = [e for e in it if not e.get("error_occurred")]
skipped = [e for e in it if e.get("error_message", "").startswith("skipped:")]
print(len(ok), "CUDA cases measured,", len(skipped), "skipped:", [e["name"] for e in ok])
sys.exit(0 if ok and len(ok) + len(skipped) == len(it) else 1)' "$out/run.json"
# The report (one self-contained HTML file: its images are embedded) and, where this device has a
# committed baseline (results/baselines/<device>.json), the regression comparison.
tmp_report=$(mktemp -d)
step --gpu report 60 "$bin/boundbench" report "$out/run.json" --out "$tmp_report" &&
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
  step --gpu validate 60 python3 "$here/validate_results.py" "$out/run.json" --require-complete --min-benchmarks 1 --schema-optional
fi

# NCCL between this machine's GPUs in one process (one GPU: world size 1, the code path validated).
step --gpu collectives 60 "$bin/boundbench" collectives --transport nccl --quick \
  --out "$out/collectives.json" --summary "$scratch/collectives.md"
# The strategies' NCCL engine (one process on this GPU: one rank, so the data-, tensor- and
# expert-parallel steps with their NCCL all-reduces and all-to-alls, no pipeline, which needs two
# GPUs): GPU-timer waits, then cuBLAS SGEMM. --no-fail: the verdicts are results, in the log; the
# step fails when the run does not finish or its results file is not complete.
for compute in synthetic gemm; do
  step --gpu "strategies_nccl_$compute" 90 sh -c "'$bin/boundbench' strategies --engine nccl --quick \
    --no-fail --compute $compute --synthetic-rate 1e10 --out '$scratch/strategies-$compute.json' \
    --summary '$scratch/strategies-$compute.md' && cat '$scratch/strategies-$compute.md' &&
    python3 '$here/validate_results.py' '$scratch/strategies-$compute.json' --require-complete \
    --min-benchmarks 1 --schema-optional"
done
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  step --gpu torch_peer 60 python3 "$here/torch_peer.py" "$out/torch_peer.json"
fi
# The sanitizers last (slow): boundbench's own kernels only. Left out (gpu_sanitizer_exclude.txt,
# each pattern checked against gpu_test's tests by the preflight): every test that runs cuBLAS (its
# library kernels give false racecheck reports and cost time), and the tests that assert timings or
# sweep all 2^32 patterns (an instrumented kernel is 10-100x slower).
if [[ -n $sanitizer ]]; then
  step --gpu memcheck 120 "$sanitizer" --tool memcheck --error-exitcode 97 "$tests/gpu_test" \
    --gtest_filter="$sanitizer_filter"
  step --gpu racecheck 90 "$sanitizer" --tool racecheck --error-exitcode 97 "$tests/gpu_test" \
    --gtest_filter="$sanitizer_filter"
else
  echo "=== compute-sanitizer not found (PATH, $cuda_home/bin): memcheck, racecheck not run" |
    tee -a "$log"
fi
# The strategies' results come back where the device tool has room (it returns at most 8 files).
for f in "$scratch"/strategies-*.json; do
  [[ -f $f ]] && (($(find "$out" -maxdepth 1 -type f | wc -l) < 8)) && cp "$f" "$out/"
done
steps_summary
