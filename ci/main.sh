#!/usr/bin/env bash
# The main job: set up, build (release; CUDA when the toolkit is found) and run every suite on
# whatever hardware is here. Without a GPU that is the host backend plus the theory checks; the CUDA
# cases are skipped with the reason in the results. Then the collectives: NCCL between the GPUs when
# one is usable, and MPI between 2 and 4 processes on this host when mpirun is here.
# Extra arguments go to `boundbench run`. Exit status: non-zero when any part failed a check.
set -uo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh --main || exit 2
# The default preset's build (release; CUDA when nvcc is found) in a folder of its own, with only
# what this job runs: the boundbench target, no test programs (ci/test.sh builds and runs those;
# they are 63 of the tree's 183 compiled files). On a machine where
# nvidia-smi lists no GPU the CUDA cases are skipped anyway, so CUDA is not built there either
# (the results then say "built without CUDA"; ci/test.sh's ci preset proves the CUDA build);
# BOUNDBENCH_CUDA=ON|OFF in the environment decides instead.
cuda=${BOUNDBENCH_CUDA:-}
if [[ -z "$cuda" ]]; then
  cuda=AUTO
  # Not a pipe into grep -q: under pipefail nvidia-smi's SIGPIPE would read as "no GPU".
  [[ "$(nvidia-smi -L 2>/dev/null)" == GPU* ]] || cuda=OFF
fi
cmake -S . -B build/main -DCMAKE_BUILD_TYPE=Release -DBOUNDBENCH_CUDA="$cuda" \
  -DBOUNDBENCH_TESTS=OFF >/dev/null || exit 2
cmake --build build/main -j"$(nproc)" --target boundbench || exit 2
mkdir -p build/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
bb=build/main/boundbench
status=0
"$bb" run --out "build/results/run-$stamp.json" "$@" || status=$?

if "$bb" info --json | python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin)["gpus"]["usable"] else 1)'; then
  "$bb" collectives --transport nccl --out "build/results/collectives-nccl-$stamp.json" || status=$?
fi
if command -v mpirun >/dev/null; then
  root=()
  [[ $(id -u) -eq 0 ]] && root=(--allow-run-as-root)
  for np in 2 4; do
    # --oversubscribe: more ranks than cores is allowed; the checks account for it.
    mpirun "${root[@]}" --oversubscribe -np "$np" "$bb" collectives --transport mpi \
      --out "build/results/collectives-mpi-np$np-$stamp.json" || status=$?
  done
else
  echo "main: mpirun not found: the MPI collectives are skipped (ci/setup.sh installs openmpi-bin)"
fi
echo "main: results in build/results/ (exit $status)"
exit "$status"
