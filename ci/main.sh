#!/usr/bin/env bash
# The main job: set up, build (release; CUDA when the toolkit is found) and run every suite on
# whatever hardware is here. Without a GPU that is the host backend plus the theory checks; the CUDA
# cases are skipped with the reason in the results. Extra arguments go to `boundbench run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default -j"$(nproc)"
mkdir -p build/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
exec build/default/boundbench run --out "build/results/run-$stamp.json" "$@"
