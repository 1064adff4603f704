#!/usr/bin/env bash
# with_competitor.sh COMMAND [ARGS...]: runs COMMAND while a CPU-bound process is pinned to core 0
# (a busy loop: what another job on a shared CI machine does), and ends that process on every exit
# path: the trap on exit and signals, and the loop itself stops once this script is gone (so a
# SIGKILL from a test timeout leaves nothing behind either). Exits with COMMAND's status.
set -uo pipefail
if (($# == 0)); then
  echo "usage: with_competitor.sh COMMAND [ARGS...]" >&2
  exit 2
fi
command -v taskset >/dev/null || { echo "with_competitor.sh: taskset (util-linux) not found" >&2; exit 2; }
me=$$
taskset -c 0 sh -c "while kill -0 $me 2>/dev/null; do :; done" &
competitor=$!
stop() { kill "$competitor" 2>/dev/null; wait "$competitor" 2>/dev/null; }
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo "with_competitor: pid $competitor busy on core 0"
"$@"
status=$?
exit "$status"
