#!/bin/bash
# Every input of the block-bench binary is read at a bounded cost
# (util/input_file.h, docs/reliability.md "Input limits"):
#  1. /dev/zero as a trace (--read_iolog, --trace-info), a result (compare,
#     plot), a job file and a pattern file: refused at once, exit non-zero,
#     the message naming /dev/zero (on main 70995bc --read_iolog=/dev/zero
#     grew to 16.8 GB and aborted with std::bad_alloc after 310 s);
#  2. an endless pipe (`yes |`) as the trace stops at the limit
#     (trace_max_size=1m, --trace-max-size=1m), naming the option to raise;
#  3. SIGTERM / SIGINT while the trace pipe or FIFO is silent: 143 / 130
#     within a second, with the report;
#  4. compare counts no interrupted run: five real runs stopped by SIGINT
#     (exit 130, "interrupted": true) against five complete ones are left
#     out, each a problem, verdict unknown (exit 125) — not "same", exit 0;
#     ab calls a side whose JSON says interrupted a problem;
#  5. a job file with only [global] is named in the error.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
# shellcheck source=tests/tools/block_bench/bench_proc.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/bench_proc.sh"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/inputs.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# expect RC SECONDS WANT -- ARGS...: block-bench ARGS exits RC within
# SECONDS (killed after 30), its stderr holding the text WANT.
expect() {
  local rc=$1 secs=$2 want=$3
  shift 4
  local t0 got
  t0=$(now_ms)
  timeout -s KILL 30 "$BB" "$@" >"$T/out" 2>"$T/err" </dev/null
  got=$?
  local took=$(($(now_ms) - t0))
  [ "$got" = "$rc" ] || fail "block-bench $*: exit $got, expected $rc: $(head -c 400 "$T/err")"
  [ "$took" -lt $((secs * 1000)) ] || fail "block-bench $*: took $took ms (limit $secs s)"
  grep -qF -- "$want" "$T/err" || fail "block-bench $*: no '$want' in: $(head -c 400 "$T/err")"
}

# 1. /dev/zero everywhere: at once (a second is generous; it took 310 s).
DEVZ="/dev/zero: a character device, not"
expect 1 1 "job 'x' (clone 0): $DEVZ a trace" -- --name=x --ioengine=null --read_iolog=/dev/zero
expect 1 1 "block-bench: $DEVZ a trace" -- --trace-info /dev/zero
expect 125 1 "block-bench compare: BASE: $DEVZ a result document" -- compare /dev/zero "$T/none"
expect 1 1 "block-bench plot: $DEVZ a result document" -- plot /dev/zero
expect 1 1 "cannot read job file '/dev/zero': a character device, not a job file" -- /dev/zero
expect 1 1 "buffer_pattern: $DEVZ a pattern file" -- --name=p --ioengine=null --rw=write \
  --size=64k "--buffer_pattern='/dev/zero'"
echo "ok: /dev/zero refused at once as trace, result, log, job file and pattern"

# 2. An endless pipe: stopped at the limit, naming the option.  `yes`
#    ends by SIGPIPE once block-bench has given up.
t0=$(now_ms)
yes | timeout -s KILL 30 "$BB" --name=y --ioengine=null --read_iolog=- --trace_max_size=1m \
  >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] || fail "yes | --read_iolog=-: exit $rc: $(head -c 400 "$T/err")"
grep -qF "job 'y' (clone 0): -: more than the limit of 1 MiB for a trace came from the pipe; raise it with trace_max_size=" "$T/err" ||
  fail "yes | --read_iolog=-: $(head -c 400 "$T/err")"
yes | timeout -s KILL 30 "$BB" --trace-info - --trace-max-size=1m >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] || fail "yes | --trace-info -: exit $rc"
grep -qF "raise it with --trace-max-size=" "$T/err" || fail "yes | --trace-info -: $(cat "$T/err")"
[ $(($(now_ms) - t0)) -lt 20000 ] || fail "the endless pipes took $(($(now_ms) - t0)) ms"
# Within the limit a pipe is read whole.
printf 'fio version 2 iolog\n/dev/null add\n/dev/null open\n/dev/null read 0 4096\n' |
  "$BB" --name=ok --ioengine=null --read_iolog=- --output-format=json >"$T/out" 2>"$T/err" ||
  fail "a small trace on stdin: $(cat "$T/err")"
echo "ok: an endless pipe stops at trace_max_size / --trace-max-size"

# 3. A signal while the trace's pipe is silent: answered within a second.
#    stdin from a FIFO ("-") for SIGTERM, the FIFO by name for SIGINT.
mkfifo "$T/fifo"
for case in "TERM 143 -" "INT 130 $T/fifo"; do
  set -- $case
  sig=$1 want=$2 src=$3
  if [ "$src" = - ]; then
    "$BB" --name=s --ioengine=null --read_iolog=- --output-format=json <"$T/fifo" \
      >"$T/out" 2>"$T/err" &
  else
    "$BB" --name=s --ioengine=null --read_iolog="$src" --output-format=json \
      >"$T/out" 2>"$T/err" &
  fi
  pid=$!
  exec 3>"$T/fifo"  # a writer that sends one line and then nothing
  printf 'fio version 2 iolog\n' >&3
  bb_wait_running $pid s || fail "SIG$sig: block-bench did not start"
  sleep 0.3
  kill -0 $pid 2>/dev/null || fail "SIG$sig: block-bench ended before the signal: $(cat "$T/err")"
  t0=$(now_ms)
  kill -$sig $pid
  for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.02; done
  took=$(($(now_ms) - t0))
  kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "SIG$sig: still reading after $took ms"; }
  wait $pid
  rc=$?
  exec 3>&-
  [ $rc = "$want" ] || fail "SIG$sig during a silent pipe: exit $rc, expected $want: $(cat "$T/err")"
  [ $took -lt 1000 ] || fail "SIG$sig answered after $took ms"
  grep -q "reading interrupted by a signal" "$T/err" || fail "SIG$sig: $(cat "$T/err")"
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['jobs'][0]['jobname']=='s'" \
    "$T/out" || fail "SIG$sig: no JSON report: $(head -c 300 "$T/out")"
  echo "ok: SIG$sig while reading a silent ${src/$T\//} -> $rc in $took ms"
done

# 4. Real interrupted runs are no samples.
mkdir -p "$T/base" "$T/new"
JOB=(--name=j --ioengine=null --rw=randread --bs=4k --output-format=json)
for i in 1 2 3 4 5; do
  "$BB" "${JOB[@]}" --size=16m --output="$T/base/$i.json" 2>"$T/err" ||
    fail "base run $i: $(cat "$T/err")"
  "$BB" "${JOB[@]}" --size=16m --time_based --runtime=60 --output="$T/new/$i.json" \
    2>"$T/err" &
  pid=$!
  bb_wait_running $pid j || fail "new run $i did not start"
  sleep 0.3
  kill -INT $pid
  wait $pid
  rc=$?
  [ $rc = 130 ] || fail "new run $i: exit $rc after SIGINT: $(cat "$T/err")"
  grep -q '"interrupted": true' "$T/new/$i.json" || fail "new run $i: no interrupted mark"
done
"$BB" compare --metric=p50 "$T/base" "$T/new" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 125 ] || fail "compare with 5 interrupted runs: exit $rc: $(cat "$T/out" "$T/err")"
grep -q "verdict: unknown (exit 125)" "$T/out" || fail "compare: $(cat "$T/out")"
[ "$(grep -c "^problem: NEW run .*: job 'j' was interrupted (stopped early by a signal): left out" "$T/out")" = 5 ] ||
  fail "compare: not 5 interrupted runs left out: $(cat "$T/out")"
grep -q "BASE: 5 runs, NEW: 0 runs" "$T/out" || fail "compare: runs counted: $(cat "$T/out")"
# The complete runs alone count, with no problem (their verdict depends on
# the noise of such short runs).
"$BB" compare --metric=p50 "$T/base" "$T/base" >"$T/out" 2>&1
grep -q "BASE: 5 runs, NEW: 5 runs" "$T/out" && ! grep -q "^problem:" "$T/out" ||
  fail "A/A compare: $(cat "$T/out")"
# ab: a side whose JSON says interrupted is a problem, even with exit 0.
"$BB" ab --a-cmd="cat $T/base/1.json" --b-cmd="cat $T/new/1.json" --rounds=2 --warmup=0 \
  --name=j >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 125 ] || fail "ab with an interrupted side: exit $rc: $(cat "$T/out" "$T/err")"
grep -q "the run was cut short: job 'j' was interrupted" "$T/err" || fail "ab: $(cat "$T/err")"
echo "ok: interrupted runs are left out of compare and ab (unknown, 125)"

# 5. A job file that defines no job is named.
printf '[global]\nioengine=null\n' >"$T/g.fio"
expect 1 1 "block-bench: $T/g.fio: no jobs defined (the file has no job section" -- "$T/g.fio"
echo "ok: a [global]-only job file is named"
echo PASS
