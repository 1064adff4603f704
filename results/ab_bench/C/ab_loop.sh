#!/usr/bin/env bash
# A/B invocations (issue 30): honest (bb-base vs a copy of itself) alternating with slowed (bb-base
# vs bb-slow: main's source with slowed-kahan-n16384.patch applied, a throwaway build: kahan n16384
# does 1.2x the work), each `ab --rounds 5` on filter9.txt's 9 cases, until N of each or $2 (epoch s).
set -u
cd "${AB_DIR:-/work/ab}"
F=$(cat filter9.txt)
cp bb-base bb-base-copy
n=$1; end=$2; h=0; s=0
while (( (h < n || s < n) && $(date +%s) < end )); do
  for kind in honest slowed; do
    if [[ $kind == honest ]]; then h=$((h+1)); i=$h; new=bb-base-copy; else s=$((s+1)); i=$s; new=bb-slow; fi
    t0=$(date +%s)
    ./bb-base ab ./bb-base ./$new --rounds 5 --json -- --quick --timeout 0.5 --filter "$F" \
      > ab/$kind-$i.json 2> ab/$kind-$i.err
    rc=$?
    echo "$kind $i rc=$rc wall=$(( $(date +%s) - t0 ))s end=$(date -u +%H:%M:%S) load=$(cut -d' ' -f1-3 /proc/loadavg)" >> ab/log.txt
  done
done
echo done >> ab/log.txt
