#!/usr/bin/env bash
# CUDA code run functionally under GPGPU-Sim on the CPU (no GPU needed). Builds the simulator
# (../shared/gpusim/build.sh with the patches ci/gpusim/*.patch; cached outside the clone) and, for
# a target the simulator runs (sm_80, the shared CUDA runtime: build/gpusim), either
#
#   bash ci/gpusim.sh [GTEST_FILTER]   the GPU tests: gpu_test, one process per test suite (2 at a
#                                      time), test -> PASS / FAIL / cannot run (why); then the
#                                      conversion tests from compute_90 PTX (build/gpusim90), where
#                                      the fp8 conversions take the sm_89+ path (fp8cvt.patch)
#   bash ci/gpusim.sh job [--timing --config NAME] OUT_DIR
#                                      the GPU runner's main job (ci/gpu_run.sh): `boundbench run
#                                      --backend cuda` over every suite at the sizes a simulated
#                                      device affords (OUT_DIR/run.json, run.md), the NCCL engines
#                                      of collectives and strategies (they say they cannot run), then
#                                      `report`, `compare` and ci/validate_results.py on run.json;
#                                      ci/gpusim_job_check.py judges it: every CUDA case validated
#                                      (PASS) or cannot run for cuBLAS/cuBLASLt/NCCL only.
#                                      --timing: in the simulator's timing model (cycle-level;
#                                      events give simulated time, the device is named
#                                      "GPGPU-Sim timing [NAME] ...") with the config NAME of its
#                                      tested-cfgs (SM7_QV100, SM86_RTX3070, ...): the cases of
#                                      GPUSIM_TIMING_ARGS timed and judged by the GPU laws; no
#                                      validation gate (ci/gpusim_job_check.py), a law count per
#                                      status in OUT_DIR/job.md instead
#
# Exit 1 if a test or case FAILs, 2 when the simulator or the build cannot be made, 77 (SKIP)
# without a CUDA toolkit or the simulator's sources.
#
# GPUSIM_DIR: the simulator's sources (default ../shared/gpusim, read-only is fine); GPUSIM_CACHE:
# where its builds go (default /var/cache/gpusim when writable, else ~/.cache/gpusim);
# GPUSIM_JOBS: tests at once (2); GPUSIM_TIMEOUT_S: per test (600); GPUSIM_FILTER: the gtest filter
# when none is given (every test). Job: GPUSIM_JOB_ARGS: `boundbench run`'s selection (default
# "--backend cuda --quick", as ci/gpu_run.sh; "--backend cuda" for every case, "--backend cuda
# --suite occupancy" for one suite); GPUSIM_JOB_TIMEOUT_S:
# the limit of `boundbench run` (1800). Timing job: GPUSIM_TIMING_ARGS (default: the cases the
# issue-26 laws need, see timing_args below), GPUSIM_JOB_TIMEOUT_S (3600).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=tests
timing_config=""
if [[ ${1:-} == job ]]; then
  mode=job
  usage="usage: bash ci/gpusim.sh job [--timing --config NAME] OUT_DIR"
  shift
  if [[ ${1:-} == --timing ]]; then
    [[ ${2:-} == --config && -n ${3:-} ]] || { echo "$usage" >&2; exit 2; }
    timing_config=$3
    shift 3
  fi
  [[ $# -eq 1 ]] || { echo "$usage" >&2; exit 2; }
  job_out=$(mkdir -p "$1" && cd "$1" && pwd)
else
  filter=${1:-${GPUSIM_FILTER:-*}}
fi
sim_dir=${GPUSIM_DIR:-$root/../shared/gpusim}
cuda=${CUDA_HOME:-/usr/local/cuda}
if [[ ! -x $cuda/bin/nvcc ]]; then
  echo "gpusim: SKIP: no CUDA toolkit at $cuda (set CUDA_HOME): nothing to simulate"
  exit 77
fi
if [[ ! -f $sim_dir/build.sh ]]; then
  echo "gpusim: SKIP: no simulator sources at $sim_dir (set GPUSIM_DIR)"
  exit 77
fi
if [[ -z ${GPUSIM_CACHE:-} ]]; then
  GPUSIM_CACHE=/var/cache/gpusim
  mkdir -p "$GPUSIM_CACHE" 2>/dev/null || true
  [[ -w $GPUSIM_CACHE ]] || GPUSIM_CACHE=$HOME/.cache/gpusim
fi
export GPUSIM_CACHE CUDA_HOME=$cuda

# 1. The simulator: built once per (sources, patches), ~7 min on 2 cores.
t0=$SECONDS
# Under a lock: two jobs on one runner share the cache, and a build starts by emptying its folder.
mkdir -p "$GPUSIM_CACHE"
env_file=$(flock "$GPUSIM_CACHE/.build.lock" bash "$sim_dir/build.sh" "$root"/ci/gpusim/*.patch | tail -1)
[[ -f $env_file ]] || { echo "gpusim: the simulator build gave no env file" >&2; exit 2; }
echo "gpusim: simulator $(dirname "$env_file") ($((SECONDS - t0)) s)"

# 2. What the simulator runs (gpu_test, or boundbench for the job), for a target it runs: sm_80
# (SASS + PTX), the shared CUDA runtime (the simulator replaces libcudart.so), warnings as errors and
# the build type as in the ci preset (GCC 12 at -O3 warns falsely, -Wrestrict, in code the ci preset
# builds cleanly at -O2). The fused attention kernel's mma.sync, ldmatrix and cp.async run as written
# (ci/gpusim/warp_mma_async.patch).
t0=$SECONDS
build=build/gpusim
target=$([[ $mode == job ]] && echo boundbench || echo gpu_test)
cmake -S . -B "$build" -DBOUNDBENCH_CUDA=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CUDA_ARCHITECTURES=80 -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared \
  -DCMAKE_COMPILE_WARNING_AS_ERROR=ON >"$build.configure.log" 2>&1 ||
  { tail -30 "$build.configure.log" >&2; exit 2; }
cmake --build "$build" -j"$(nproc)" --target "$target" >"$build.build.log" 2>&1 ||
  { grep -E 'error|Error' "$build.build.log" | head -30 >&2; exit 2; }
echo "gpusim: built $build $target ($((SECONDS - t0)) s)"

# The simulated device, in one place: the simulator's environment (LD_LIBRARY_PATH to its
# libcudart, CUDA_INSTALL_PATH, ...), the configuration whose gpgpusim.config each process finds in
# its working directory, and the mode: functional (PTX_SIM_MODE_FUNC=1: real results, no timing).
# Sourced only where a process runs under the simulator (not while listing tests with the real
# runtime, nor for report/compare).
# With --timing: the timing model (PTX_SIM_MODE_FUNC unset) and the config named, which
# timing.patch puts in the device's name (GPGPUSIM_CONFIG_NAME).
simulated_env() {
  export GPUSIM_HOST_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}  # for what runs no kernel
  # shellcheck disable=SC1090
  source "$env_file"
  sim_config_dir=$GPUSIM_CONFIG_DIR
  export PTX_SIM_MODE_FUNC=1
  if [[ -n $timing_config ]]; then
    sim_config_dir=$(dirname "$GPUSIM_CONFIG_DIR")/$timing_config
    [[ -f $sim_config_dir/gpgpusim.config ]] ||
      { echo "gpusim: no config $timing_config (choose one of: $(ls "$(dirname "$sim_config_dir")"))" >&2; exit 2; }
    unset PTX_SIM_MODE_FUNC
    export GPGPUSIM_CONFIG_NAME=$timing_config
  fi
}

# The timed job's cases, one or a few per GPU law (each launch is minutes of one core; sizes:
# harness/simulated_timing.h):
#   copy/fp32/cuda            STREAM against the config's DRAM peak (target >= 80%), roofline
#   strided s1, s16           the sector model: t(16)/t(1) >= 0.8 x 0.5, every thread 8 loads at stride
#                             16; strides 2-8 predict the same 1 as stride 1, and stride 32 gives
#                             its threads under 8 loads at these sizes (SKIP): left out for time
#   residency/warps, blocks, shared_memory, registers   measured co-resident blocks/SM == the
#                             occupancy model with the config's limits == the occupancy API;
#                             cooperative launch at the limit (registers: its heavy kernel took
#                             218 s of wall time a launch on a loaded SM86_RTX3070)
#   waves/1, full, full+1, double+1   round(t(N) / t(one wave)) == ceil(N / blocks per wave)
#   bank_conflicts/stride=1, 2, 4, 8, 33   time linear in the conflict ways; padding removes them
#                             (the timing model's own grid: 1,024 warp-reads per SM a conflict way;
#                             8 ways too: both configs take 1 and 2 ways in about the same time,
#                             something besides the banks binds there, and a fit over 1, 2, 4 alone
#                             gave R^2 0.91-0.95)
#   latency/dram + latency_hiding/warps_per_sm=4, 8, 12, 16, 32   Little's law: the bandwidth
#                             plateau's warps/SM within 2x of BW x latency / bytes per warp
#                             (16 MiB reads; the plateau is the first point at 90% of the best, so
#                             the points must be dense near Little's 5-8 warps/SM: with 8 and 32
#                             alone SM86_RTX3070's plateau read as 32; 4 does not fit its limits)
# Every case with work is also held against the config's roofline. Divergence (linear in paths)
# and spills (compile-time local bytes) are judged in the functional job and left out for time.
# The simulator is deterministic up to block placement: no warm-up, three samples
# (StoppingRule::simulated). Two hours or more of one core per config (each case's wall time:
# results/gpgpusim-*/README.md).
timing_filter='^(bandwidth/(copy/fp32/cuda|strided/fp32/cuda/s(1|16))'
timing_filter+='|occupancy/(residency/(warps|blocks|shared_memory|registers)'
timing_filter+='|waves/(1|full|full\+1|double\+1)|bank_conflicts/stride=(1|2|4|8|33)'
timing_filter+='|latency/dram|latency_hiding/warps_per_sm=(4|8|12|16|32)))$'
timing_args="--backend cuda --quick --suite bandwidth --suite occupancy --filter $timing_filter"

if [[ $mode == job && -n $timing_config ]]; then
  simulated_env
  exec python3 "$root/ci/gpusim_job.py" --bin "$root/$build/boundbench" \
    --config "$sim_config_dir" --work "$root/$build/job-$timing_config" --out "$job_out" \
    --timing "$timing_config" --timeout "${GPUSIM_JOB_TIMEOUT_S:-3600}" \
    --run-args "${GPUSIM_TIMING_ARGS:-$timing_args}"
fi
if [[ $mode == job ]]; then
  simulated_env
  exec python3 "$root/ci/gpusim_job.py" --bin "$root/$build/boundbench" \
    --config "$sim_config_dir" --work "$root/$build/job" --out "$job_out" \
    --timeout "${GPUSIM_JOB_TIMEOUT_S:-1800}" --run-args "${GPUSIM_JOB_ARGS:---backend cuda --quick}"
fi

# 2b. The conversion tests from compute_90 PTX only (the simulator runs PTX: sm_89+ code paths).
t0=$SECONDS
build90=build/gpusim90
cmake -S . -B "$build90" -DBOUNDBENCH_CUDA=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CUDA_ARCHITECTURES=90-virtual -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared \
  -DCMAKE_COMPILE_WARNING_AS_ERROR=ON >"$build90.configure.log" 2>&1 ||
  { tail -30 "$build90.configure.log" >&2; exit 2; }
cmake --build "$build90" -j"$(nproc)" --target gpu_convert_test >"$build90.build.log" 2>&1 ||
  { grep -E 'error|Error' "$build90.build.log" | head -30 >&2; exit 2; }
echo "gpusim: built $build90/tests/gpu_convert_test, compute_90 PTX ($((SECONDS - t0)) s)"

# 3. The tests, listed with the real runtime (no device needed), run with the simulator's.
list_tests() {
  "$1" --gtest_list_tests --gtest_filter="$filter" | awk '/^[^ ]/ {suite = $1} /^  / {print suite $1}'
}
binary=$root/$build/tests/gpu_test binary90=$root/$build90/tests/gpu_convert_test
tests=$(list_tests "$binary")
tests90=$(list_tests "$binary90")
simulated_env
run_tests() {
  python3 "$root/ci/gpusim_run.py" --binary "$1" --config "$sim_config_dir" --work "$2" \
    --jobs "${GPUSIM_JOBS:-2}" --timeout "${GPUSIM_TIMEOUT_S:-600}" "${@:3}"
}
rc=0
if [[ -n $tests ]]; then
  # shellcheck disable=SC2086
  run_tests "$binary" "$root/$build/run" $tests || rc=$?
fi
if [[ -n $tests90 ]]; then
  echo "gpusim: from compute_90 PTX ($build90/tests/gpu_convert_test): the sm_89+ fp8 path"
  r=0
  # shellcheck disable=SC2086
  run_tests "$binary90" "$root/$build90/run" $tests90 || r=$?
  ((r > rc)) && rc=$r
fi
exit "$rc"
