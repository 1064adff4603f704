#!/usr/bin/env bash
# A/B invocations until $1 (epoch seconds), run in a folder holding the binaries: honest (bb-base2
# vs a copy of itself) alternating with slowed (bb-base2 vs bb-slow: the same source with
# slowed-kahan-n16384.patch applied, a throwaway build: kahan n16384 does 1.2x the work), each
# `ab --rounds 4` on filter6.txt's 6 summation cases; the log line per invocation goes to ab/log.txt.
set -u
cd "${AB_DIR:-/tmp/h3}"
F=$(cat filter6.txt)
cp bb-base2 bb-base2-copy
end=$1; h=0; s=0; next=honest
while (( $(date +%s) < end )); do
  kind=honest; new=bb-base2-copy
  if [[ -x bb-slow && $next == slowed ]]; then kind=slowed; new=bb-slow; fi
  if [[ $kind == honest ]]; then h=$((h+1)); i=$h; next=slowed; else s=$((s+1)); i=$s; next=honest; fi
  t0=$(date +%s)
  nice -n 10 ./bb-base2 ab ./bb-base2 ./$new --rounds 4 --json -- --quick --timeout 0.5 --filter "$F" \
    > ab/$kind-$i.json 2> ab/$kind-$i.err
  rc=$?
  echo "$kind $i rc=$rc wall=$(( $(date +%s) - t0 ))s end=$(date -u +%H:%M:%S) load=$(cut -d' ' -f1-3 /proc/loadavg)" >> ab/log.txt
done
echo done >> ab/log.txt
