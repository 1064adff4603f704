#!/usr/bin/env bash
# The GPU tests, run functionally under GPGPU-Sim on the CPU (no GPU needed): builds the simulator
# (../shared/gpusim/build.sh with the patches ci/gpusim/*.patch; cached outside the clone),
# builds gpu_test for sm_80 with the shared CUDA runtime (build/gpusim), runs every GPU test (one
# process per test suite, 2 at a time) and prints test -> PASS / FAIL / cannot run (why); then the
# conversion tests again from compute_90 PTX (build/gpusim90, gpu_convert_test), where the fp8
# conversions take the sm_89+ hardware path (cvt.rn.satfinite, ci/gpusim/fp8cvt.patch). Exit 1
# if any test FAILs, 2 when the simulator or the build cannot be made, 77 (SKIP) without a CUDA
# toolkit or the simulator's sources.
#
#   bash ci/gpusim.sh [GTEST_FILTER]
#
# GPUSIM_DIR: the simulator's sources (default ../shared/gpusim, read-only is fine); GPUSIM_CACHE:
# where its builds go (default /var/cache/gpusim when writable, else ~/.cache/gpusim);
# GPUSIM_JOBS: tests at once (2); GPUSIM_TIMEOUT_S: per test (600); GPUSIM_FILTER: the gtest filter
# when none is given (every test).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
filter=${1:-${GPUSIM_FILTER:-*}}
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

# 2. gpu_test for a target the simulator runs: sm_80 (SASS + PTX), the shared CUDA runtime (the
# simulator replaces libcudart.so), warnings as errors and the build type as in the ci preset
# (GCC 12 at -O3 warns falsely, -Wrestrict, in code the ci preset builds cleanly at -O2).
t0=$SECONDS
build=build/gpusim
cmake -S . -B "$build" -DBOUNDBENCH_CUDA=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CUDA_ARCHITECTURES=80 -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared \
  -DCMAKE_COMPILE_WARNING_AS_ERROR=ON >"$build.configure.log" 2>&1 ||
  { tail -30 "$build.configure.log" >&2; exit 2; }
cmake --build "$build" -j"$(nproc)" --target gpu_test >"$build.build.log" 2>&1 ||
  { grep -E 'error|Error' "$build.build.log" | head -30 >&2; exit 2; }
echo "gpusim: built $build/tests/gpu_test ($((SECONDS - t0)) s)"

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
# shellcheck disable=SC1090
source "$env_file"
run_tests() {
  python3 "$root/ci/gpusim_run.py" --binary "$1" --config "$GPUSIM_CONFIG_DIR" --work "$2" \
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
