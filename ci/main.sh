#!/usr/bin/env bash
# The main job: set up, build (release; CUDA when the toolkit is found) and run every suite on
# whatever hardware is here. Without a GPU that is the host backend plus the theory checks; the CUDA
# cases are skipped with the reason in the results. Then the collectives: NCCL between the GPUs when
# one is usable, and MPI between 2 and 4 processes on this host when mpirun is here.
# Extra arguments go to `boundbench run`. Exit status: non-zero when any part failed a check.
set -uo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh || exit 2
cmake --preset default >/dev/null || exit 2
cmake --build --preset default -j"$(nproc)" || exit 2
mkdir -p build/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
bb=build/default/boundbench
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
