#!/usr/bin/env bash
# The Slurm launch path, end to end: starts a one-node Slurm cluster from Debian's packages (munged,
# slurmctld, slurmd with a generated slurm.conf, all under a temporary directory, as root), runs
# `srun -n 4 --mpi=pmix` of `strategies --quick` and `collectives --quick`, checks that both wrote
# complete, valid results from 4 ranks launched by Slurm, and stops the daemons on every exit path.
# Exit 77 (ctest: skipped) with the reason when Slurm cannot be started here.
# Usage: slurm_test.sh BOUNDBENCH SOURCE_DIR
set -euo pipefail
boundbench=$(realpath "$1")
src=$(realpath "$2")
skip() { echo "slurm test: SKIP: $*"; exit 77; }

[[ $(id -u) -eq 0 ]] || skip "not root (the daemons run as root in a temporary directory)"
for tool in munged slurmctld slurmd srun scontrol; do
  command -v "$tool" >/dev/null || skip "$tool not found (ci/setup.sh installs munge, slurmctld, slurmd, slurm-client)"
done
srun --mpi=list 2>/dev/null | grep -q pmix ||
  [[ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so ]] || skip "Slurm has no pmix plugin"

# One test cluster on a machine at a time: a second one (another CI job on this runner) failed its
# task launch ("srun: error: task 0 launch failed") though its ports were its own.
exec 9>/tmp/boundbench-slurm.lock
flock 9
dir=$(mktemp -d /tmp/bb-slurm.XXXXXX)
chmod 755 "$dir"
pids=()
stop() {
  local rc=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ $rc -ne 0 && $rc -ne 77 ]]; then
    for log in "$dir"/*.log; do echo "--- $log"; tail -20 "$log"; done
  fi
  rm -rf "$dir"
  exit "$rc"
}
trap stop EXIT INT TERM

# munge: its own key, socket and files.
mkdir -p "$dir/munge"
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --foreground --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munged.log" \
  --seed-file="$dir/munge/seed" &
pids+=($!)
for _ in $(seq 50); do [[ -S "$dir/munge/socket" ]] && break; sleep 0.1; done
[[ -S "$dir/munge/socket" ]] || skip "munged did not start: $(tail -3 "$dir/munged.log" 2>/dev/null)"

host=$(hostname -s)
# Ports from the process id, away from the defaults (6817/6818) and other runs.
port=$((20000 + ($$ % 20000)))
cpus=$(nproc)
export SLURM_CONF="$dir/slurm.conf"
mkdir -p "$dir/state" "$dir/spool"
# config_overrides: the node offers 4 CPUs even on 2 cores (the ranks oversubscribe them, as
# mpirun --oversubscribe does); no cgroups (proctrack/linuxproc, task/none).
cat > "$SLURM_CONF" <<CONF
ClusterName=boundbench
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$((cpus > 4 ? cpus : 4)) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
slurmctld -D -i &
pids+=($!)
slurmd -D &
pids+=($!)
up=""
for _ in $(seq 100); do
  if scontrol show node "$host" 2>/dev/null | grep -qE "State=(IDLE|MIXED)"; then up=1; break; fi
  sleep 0.2
done
[[ -n $up ]] || skip "the Slurm node did not come up: $(tail -3 "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null | tr '\n' ' ')"
echo "slurm test: one-node cluster up ($host, slurm $(slurmd -V | cut -d' ' -f2))"

validate() {  # results file, suite
  /usr/bin/python3 "$src/ci/validate_results.py" "$1" --require-complete --min-benchmarks 1
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ctx = doc["context"]["boundbench"][sys.argv[2]]
slurm = doc["context"]["boundbench"].get("slurm", {})
assert ctx["launcher"] == "mpi", ctx
ranks = ctx.get("ranks", ctx.get("world_ranks"))
assert ranks == 4, f"{sys.argv[2]}: {ranks} ranks, not 4"
assert slurm.get("ntasks") == 4 and slurm.get("job_id"), f"no Slurm job recorded: {slurm}"
print(f"slurm test: {sys.argv[2]}: {len(doc['benchmarks'])} entries from 4 ranks, "
      f"Slurm job {slurm['job_id']}")
PY
}

cd "$dir"
timeout 900 srun -n 4 --mpi=pmix --oversubscribe "$boundbench" strategies --quick --no-fail \
  --out "$dir/strategies.json"
validate "$dir/strategies.json" strategies
timeout 900 srun -n 4 --mpi=pmix --oversubscribe "$boundbench" collectives --quick --no-fail \
  --no-coverage --out "$dir/collectives.json"
validate "$dir/collectives.json" collectives
echo "slurm test: PASS"
