#!/usr/bin/env bash
# `ci/gpusim.sh job`'s arguments: a malformed --timing request is refused with the usage line and
# exit 2 before anything is built (no toolkit or simulator needed).
set -u
script=$(dirname "$0")/../ci/gpusim.sh
fail=0
for args in "job" "job --timing OUT" "job --timing --config" "job --timing --config SM7_QV100" \
  "job --timing --config SM7_QV100 OUT extra" "job OUT extra"; do
  # shellcheck disable=SC2086
  out=$(bash "$script" $args 2>&1)
  rc=$?
  if [[ $rc -ne 2 || $out != *"usage: bash ci/gpusim.sh job [--timing --config NAME] OUT_DIR"* ]]; then
    echo "FAIL: gpusim.sh $args: exit $rc, '$out'"
    fail=1
  fi
done
((fail == 0)) && echo "gpusim.sh job: every malformed request refused (exit 2, usage)"
exit "$fail"
