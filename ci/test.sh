#!/usr/bin/env bash
# The test command: set up, configure, build everything (CUDA code must compile and link wherever
# the toolkit is installed, GPU or not), and run every test with ctest: unit tests, CLI tests, GPU
# tests (they skip, with the reason, without a GPU) and a validated `run --quick` smoke test. With
# the toolkit, the GPU tests and the GPU runner's main job (`boundbench run --backend cuda`) then run
# on the CPU under GPGPU-Sim (ci/gpusim.sh, ctest label gpusim; the simulator is built once per
# machine, ~7 min on 2 cores); BOUNDBENCH_GPUSIM=0 leaves them out.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
# ccache keys on paths relative to the clone, so a fresh clone in another folder reuses the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
preset=host
if [[ -x /usr/local/cuda/bin/nvcc ]] || command -v nvcc >/dev/null; then
  preset=ci
else
  echo "test: WARNING: no CUDA toolkit (nvcc) found: building and testing host-only (preset host)"
fi
preset=${BOUNDBENCH_PRESET:-$preset}
echo "test: preset $preset"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
# JUnit XML for CI systems that show test results (GitHub, GitLab, Jenkins).
ctest --preset "$preset" -j"$(nproc)" --output-junit "$PWD/build/$preset/junit.xml" \
  ${BOUNDBENCH_CTEST_ARGS:-}
# Every GPU test under the simulator (the bulk sizes shrink there: tests/gpu_test_support.h), then
# the GPU runner's main job under it (ctest gpusim.gpu_job: `ci/gpusim.sh job`, every suite's CUDA
# cases validated, results in build/ci/gpusim-job/); BOUNDBENCH_GPUSIM_FILTER='GpuReduce.*' (a gtest
# filter) runs a subset of the tests.
if [[ $preset == ci && ${BOUNDBENCH_GPUSIM:-1} != 0 ]]; then
  GPUSIM_FILTER=${BOUNDBENCH_GPUSIM_FILTER:-*} \
    ctest --preset gpusim --output-junit "$PWD/build/$preset/junit-gpusim.xml"
fi
