#!/usr/bin/env bash
# Builds boundbench for the GPU (sm_90 machine code + PTX, release) on a CPU machine that has the CUDA
# toolkit, and packs a self-contained bundle for a GPU machine that has the CUDA driver and toolkit
# but no package registry:
#   bundle/bin/  boundbench, gpu_test (RUNPATH $ORIGIN/../lib); the CPU tests stay here (CI runs them)
#   bundle/lib/  the non-CUDA, non-glibc shared libraries they need (libstdc++, libgomp, libbenchmark…)
#   bundle/ci/   gpu_run.sh (+ gpu_steps.sh, gpu_sanitizer_exclude.txt), validate_results.py,
#                torch_peer.py, report.py;  bundle/results/schema.json and baselines/
# CUDA's own libraries (cudart, cuBLAS, cuBLASLt) are not carried: they come from the GPU machine.
# Usage: ci/bundle.sh [BUNDLE_DIR]   (default: bundle/)
# BUNDLE_FROM_BUILD=DIR packs the binaries of an existing CUDA build tree (DIR/boundbench,
# DIR/tests/gpu_test...) instead of building the default preset: ci/gpu_dryrun.sh packs the ci
# preset's build this way, so rehearsing the GPU job costs no second build.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=${1:-bundle}
build=${BUNDLE_FROM_BUILD:-build/default}
if [[ -z ${BUNDLE_FROM_BUILD:-} ]]; then
  bash ci/setup.sh
  cmake --preset default -DBOUNDBENCH_CUDA=ON >/dev/null
  cmake --build --preset default -j"$(nproc)" --target boundbench gpu_test
fi

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/ci" "$bundle/results" "$bundle/tests"
for exe in "$build/boundbench" "$build/tests/gpu_test"; do
  cp "$exe" "$bundle/bin/"
done

# Every resolved library that is neither glibc's nor CUDA's (the GPU machine brings its own).
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|librt\.so|libpthread\.so|libcuda|libcudart|libcublas|libnccl|libnvidia)'
for exe in "$bundle"/bin/*; do
  ldd "$exe" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $skip ]] && continue
  cp -L "$path" "$bundle/lib/$name"
done
for f in "$bundle"/bin/* "$bundle"/lib/*; do
  strip --strip-debug "$f"  # symbols stay (backtraces); debug sections do not travel
  # shellcheck disable=SC2016  # $ORIGIN is for the loader, not the shell
  patchelf --set-rpath '$ORIGIN/../lib' "$f"
done

cp ci/gpu_run.sh ci/gpu_steps.sh ci/gpu_sanitizer_exclude.txt ci/validate_results.py \
  ci/torch_peer.py ci/report.py "$bundle/ci/"
mkdir -p "$bundle/ci/reportlib" && cp ci/reportlib/*.py "$bundle/ci/reportlib/"  # report.py's parts
cp results/schema.json "$bundle/results/"
cp -r results/baselines "$bundle/results/"
cp tests/cli_test.py "$bundle/tests/"
git rev-parse HEAD >"$bundle/COMMIT" 2>/dev/null || echo unknown >"$bundle/COMMIT"
if git status --porcelain --untracked-files=no 2>/dev/null | grep -q .; then
  echo "dirty" >>"$bundle/COMMIT"
fi
du -sh "$bundle"
ls -l "$bundle/bin" "$bundle/lib"
# A lent GPU's device tool carries at most 64 MiB of working tree (bundle/ included): say so early.
kib=$(du -sk "$bundle" | cut -f1)
if ((kib > 60 * 1024)); then
  echo "bundle.sh: warning: $bundle is $((kib / 1024)) MiB; the device tool carries at most 64 MiB" >&2
fi
