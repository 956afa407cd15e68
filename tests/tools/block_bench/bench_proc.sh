# shellcheck shell=bash
# Shell functions for the end-to-end tests that signal or kill a running
# block-bench: when is it far enough along that a signal means what the test
# says?  Sourced (not run) by tests/tools/block_bench/{run,mpi}/*_test.sh:
#   source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/bench_proc.sh"
#
# Why not a sleep: a background job of a script starts with SIGINT ignored,
# so a SIGINT sent before block-bench installs its handler is lost, not
# fatal (a 0.1 s sleep reproduced a 60 s run that exited 0), and a sanitized
# start on a loaded 2-core machine takes seconds.

# bb_running PID [JOB]: true when process PID has its SIGINT handler in place
# (bit 2 of SigCgt in /proc/PID/status) and runs a clone thread whose name
# starts with "bb-JOB" (clone threads are "bb-NAME.N": the target is open
# and I/O begins).  Without JOB, any clone thread counts.
bb_running() {
  local mask
  mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
  [ -n "$mask" ] && (( (16#$mask >> 1) & 1 )) &&
    cat /proc/"$1"/task/*/comm 2>/dev/null | grep -q "^bb-${2:-}"
}

# bb_wait_running PID [JOB] [SECONDS]: waits until bb_running PID JOB, at most
# SECONDS (default 20).  Returns 0 once it runs or once PID has ended (its
# exit status then tells), 1 when the time ran out.
bb_wait_running() {
  local pid=$1 job=${2:-} end=$((${EPOCHREALTIME/./} + ${3:-20} * 1000000))
  while ((${EPOCHREALTIME/./} < end)); do
    bb_running "$pid" "$job" && return 0
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.05
  done
  bb_running "$pid" "$job"
}
