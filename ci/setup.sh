#!/usr/bin/env bash
# Installs the Debian packages boundbench needs. Idempotent; prints nothing when nothing is missing.
# The CUDA toolkit (with cuBLAS and NCCL) is expected at /usr/local/cuda; without it the build is
# host-only (BOUNDBENCH_CUDA=AUTO).
set -euo pipefail

# --main: only what ci/main.sh needs (build boundbench, run the suites and the MPI collectives);
# the test programs' packages and the ml_dtypes environment are left out.
main_only=false
[[ "${1:-}" == "--main" ]] && main_only=true
main_packages=(
  cmake g++ make pkg-config git ccache libbenchmark-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libboost-dev libsqlite3-dev python3 openmpi-bin libopenmpi-dev
)
packages=(
  cmake g++ make pkg-config git
  ccache                           # compiler cache (CMakeLists.txt uses it where installed)
  libgtest-dev googletest          # GoogleTest
  libbenchmark-dev                 # Google Benchmark (runs every case)
  libbenchmark-tools               # its compare.py
  nlohmann-json3-dev               # results files
  libcli11-dev                     # command line
  libfmt-dev                       # text formatting (printf's conversions, type-checked)
  libboost-dev                     # Boost.Math: Student's t (compare's run-level noise)
  python3 python3-jsonschema python3-scipy  # results validation; compare.py needs scipy
  python3-venv                     # build/oracle-venv: ml_dtypes from PyPI (format oracle test)
  python3-matplotlib               # boundbench report: plots
  libsqlite3-dev                   # the history store (boundbench history)
  python3-yaml                     # tests/gpu_ci_test.py, ci/gpu_dryrun.py: the GPU workflow
  cmark-gfm                        # tests: summaries render as GitHub tables
  likwid                           # likwid-bench: the host STREAM reference measurement
  patchelf                         # GPU bundles: rpath $ORIGIN
  openmpi-bin libopenmpi-dev       # collectives between processes (mpirun)
  munge slurmctld slurmd slurm-client  # the Slurm launch test (tests/slurm_test.sh): srun
)

$main_only && packages=("${main_packages[@]}")
missing=()
for p in "${packages[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ml_dtypes (PyPI), an independent implementation of bf16/fp8/fp6/fp4 for the format oracle test,
# in its own environment: it needs a newer numpy than Debian's scipy accepts. Without a registry
# the test skips with the reason.
$main_only && exit 0
cd "$(dirname "$0")/.."
venv=build/oracle-venv
if ! "$venv/bin/python" -c "import ml_dtypes" 2>/dev/null; then
  mkdir -p build
  { /usr/bin/python3 -m venv "$venv" && "$venv/bin/pip" install -q "ml_dtypes==0.6.0"; } >/dev/null 2>&1 ||
    echo "setup: WARNING: could not install ml_dtypes (PyPI): the ml_dtypes oracle test will skip"
fi
