# shellcheck shell=bash disable=SC2154  # log, budget, dry, gpu_usable: set by the caller
# The steps of ci/gpu_run.sh: each runs with a time limit under one budget, is logged, and ends
# passed, failed, skipped for the budget, or (a dry run, no usable GPU) cannot run here. Sourced;
# the caller sets `log` (a file), `budget` (seconds, counted on bash's SECONDS) and `dry`
# (1: a rehearsal without a GPU, ci/gpu_dryrun.sh) and `gpu_usable` (1 or 0).
#   step [--required] [--gpu] NAME LIMIT_S COMMAND...
#     --required: the budget may not cut it (gpu_usable, gpu_test, run: without them the job proved
#       nothing), so a budget skip of it is a failure;
#     --gpu: it cannot pass without a usable GPU; in a dry run without one its failure is listed as
#       "cannot run here", not as a failure.
#   Returns 0 when it ran and passed, 1 otherwise (so `step report ... && cp ...` works).
#   steps_summary: prints the last line of the log and returns 1 when any step failed.
failed=()
skipped=()
cannot_run=()

step() {
  local required=0 gpu=0
  while [[ $1 == --* ]]; do
    case $1 in
      --required) required=1 ;;
      --gpu) gpu=1 ;;
      *) echo "step: unknown option $1" >&2; return 2 ;;
    esac
    shift
  done
  local name=$1 limit=$2
  shift 2
  local left=$((budget - SECONDS))
  if ((left < 10)); then
    if ((required)); then
      echo "=== $name: FAILED, not run: the ${budget} s budget is spent and the job needs it" |
        tee -a "$log"
      failed+=("$name(budget)")
    else
      echo "=== $name: skipped, the ${budget} s budget is spent" | tee -a "$log"
      skipped+=("$name")
    fi
    return 1
  fi
  ((limit > left)) && limit=$left
  echo "=== $name (limit ${limit} s): $*" | tee -a "$log"
  local t0=$SECONDS
  timeout --signal=TERM --kill-after=10 "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  local why=""
  ((rc == 124 || rc == 137)) && why=" (time limit)"
  echo "=== $name: exit $rc in $((SECONDS - t0)) s$why" | tee -a "$log"
  ((rc == 0)) && return 0
  if ((gpu && dry && !gpu_usable)); then
    cannot_run+=("$name")
  else
    failed+=("$name")
  fi
  return 1
}

steps_summary() {
  local line="gpu_run: ${#failed[@]} failed${failed[*]:+: ${failed[*]}}"
  ((${#skipped[@]})) && line+="; ${#skipped[@]} skipped for the budget: ${skipped[*]}"
  ((${#cannot_run[@]})) && line+="; ${#cannot_run[@]} cannot run without a GPU: ${cannot_run[*]}"
  echo "$line" | tee -a "$log"
  ((${#failed[@]} == 0))
}
