#!/usr/bin/env bash
# False-alarm test: on a healthy machine made busy by a CPU-bound process pinned to core 0
# (tests/with_competitor.sh), `run --quick` of every suite and `collectives --transport mpi` at 2
# ranks must report no FAIL (INCONCLUSIVE and BELOW-EXPECTATION are allowed: they do not fail a
# run). Prints the verdict counts of each run: "false-alarm: run PASS=.. INCONCLUSIVE=.. ...".
#   false_alarm.sh BOUNDBENCH SRC WORK [--idle]     (--idle: without the competitor, for measuring)
set -euo pipefail
boundbench=$1 src=$2 work=$3 mode=${4:-}
mkdir -p "$work"
wrap=("$src/tests/with_competitor.sh")
[[ "$mode" == --idle ]] && wrap=()
counts() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys, collections
doc = json.load(open(sys.argv[2]))
n = collections.Counter(c["verdict"] for c in doc["checks"])
laws = [c for c in doc["checks"] if c.get("kind") == "law" and c["verdict"] != "SKIP"]
inc = sum(c["verdict"] == "INCONCLUSIVE" for c in laws)
print(f"false-alarm: {sys.argv[1]} " + " ".join(
    f"{v}={n.get(v, 0)}" for v in ("PASS", "INCONCLUSIVE", "BELOW-EXPECTATION", "FAIL", "SKIP")) +
    f" (judged laws {len(laws)}, inconclusive {inc})")
for c in doc["checks"]:
    if c["verdict"] == "FAIL":
        print(f"  FAIL {c['suite']}/{c['name']}: {c['reason']}")
sys.exit(1 if n.get("FAIL", 0) else 0)
PY
}
status=0
# --no-fail: the verdicts are counted from the results file (a FAIL there fails this test).
"${wrap[@]}" "$boundbench" run --quick --no-fail --out "$work/run.json" >"$work/run.log" 2>&1 || {
  echo "false-alarm: run --quick exited $?"; tail -20 "$work/run.log"; status=1; }
counts run "$work/run.json" || status=1
if command -v mpirun >/dev/null; then
  mpi=(mpirun --oversubscribe -np 2)
  [[ $(id -u) == 0 ]] && mpi+=(--allow-run-as-root)
  "${wrap[@]}" "${mpi[@]}" "$boundbench" collectives --transport mpi --quick --no-fail \
    --out "$work/collectives.json" >"$work/collectives.log" 2>&1 || {
    echo "false-alarm: collectives exited $?"; tail -20 "$work/collectives.log"; status=1; }
  counts collectives "$work/collectives.json" || status=1
else
  echo "false-alarm: mpirun not found: collectives not run (install openmpi-bin: ci/setup.sh)"
fi
exit "$status"
