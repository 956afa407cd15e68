#!/usr/bin/env bash
# Many clones (issue 29, item 6), on the binary: 400 clones of a null job
# with --runtime=1 end in a bounded time (the threads are all made first and
# the clones start together at one broadcast, on one clock), and a SIGINT
# while 400 busy clones run is answered quickly with status 130 and a
# report of every clone.  Before: starting n busy clones cost O(n^2) (each
# new thread waited for a turn behind the clones already running): 400
# clones with --runtime=1 took about 15 s here, and a SIGINT during the
# start-up was only seen once every clone had started.
# Timing test (wide margins): optimised build only.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/bench_proc.sh"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
# No subshell: with 400 busy threads a fork waits for the CPU too.
now_us() { NOW_US=${EPOCHREALTIME/./}; }

N=400
# 1. --runtime=1: the whole run, start-up and report included, within 8 s.
now_us; t0=$NOW_US
"$BB" --name=j --ioengine=null --numjobs=$N --runtime=1 --group_reporting \
  --output-format=json > "$T/run.json" 2> "$T/run.err" || fail "exit $?: $(cat "$T/run.err")"
now_us; ms=$(((NOW_US - t0) / 1000))
echo "numjobs=$N --runtime=1: ${ms} ms"
((ms < 8000)) || fail "numjobs=$N --runtime=1 took ${ms} ms (limit 8000)"
python3 - "$T/run.json" $N <<'PY' || fail "JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
jobs = d["jobs"]
assert len(jobs) == 1, len(jobs)
j = jobs[0]
assert j["blkstack"]["jobs"] == n, j["blkstack"]["jobs"]
assert j["read"]["total_ios"] > 0, j["read"]
# One clock for the segment: no clone measured much more than its second.
assert j["blkstack"]["runtime_ns"] < 3e9, j["blkstack"]["runtime_ns"]
assert "not_started" not in d
PY

# 2. SIGINT while 400 busy clones run (time_based, 30 s): exit 130 within
# 3 s of the signal, with a report of every clone.
"$BB" --name=k --ioengine=null --numjobs=$N --size=1m --runtime=30 --time_based \
  > "$T/int.out" 2> "$T/int.err" &
pid=$!
# Without pipefail: bb_running's grep -q ends the pipe early, and with 400
# thread names cat then dies of SIGPIPE.
set +o pipefail
bb_wait_running "$pid" k 20 || fail "no clone running after 20 s"
set -o pipefail
sleep 1
kill -0 "$pid" 2>/dev/null || fail "ended before the signal: $(cat "$T/int.err")"
now_us; t0=$NOW_US
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
now_us; ms=$(((NOW_US - t0) / 1000))
echo "SIGINT answered in ${ms} ms, status $rc"
((rc == 130)) || fail "status $rc after SIGINT (want 130): $(tail -3 "$T/int.err")"
((ms < 3000)) || fail "SIGINT answered in ${ms} ms (limit 3000)"
units=$(grep -c '^k: (groupid=0' "$T/int.out" || true)
not_started=$(sed -n "s/^Not started: job 'k': \([0-9]*\) of $N clones.*/\1/p" "$T/int.out")
((units + ${not_started:-0} == N)) ||
  fail "$units clones reported and ${not_started:-0} not started, of $N"
((units > 0)) || fail "no clone reported"
grep -q 'interrupted  : stopped early by a signal' "$T/int.out" || fail "no clone marked interrupted"
echo PASS
