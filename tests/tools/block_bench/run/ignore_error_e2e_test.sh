#!/usr/bin/env bash
# fio's ignore_error=READ,WRITE,VERIFY on the real binary, with errors from
# the error-inject driver over a file (5 failed writes, or reads, of 256):
#  * the listed errno does not stop the job: every request is issued,
#    the 5 are counted (total_err, first_error) and the job's error stays 0;
#  * an errno not in the list still ends the job at once, and so does any
#    errno in a type with no list and no continue_on_error;
#  * names (fio's EPERM ... ERANGE) and numbers; a bad name is refused
#    naming the option.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
truncate -s 1m "$T/a.dat"
EI="driver=error-inject,file.driver=file,file.filename=$T/a.dat"
JOB=(--name=a --bs=4k --size=1m --output-format=json)
# run WANT_RC ARGS...: block-bench's JSON in $T/out.json, stderr in $T/err.
run() {
  local want=$1 rc=0; shift
  "$BB" "${JOB[@]}" "$@" >"$T/out.json" 2>"$T/err" || rc=$?
  [[ $rc == "$want" ]] || fail "$* exited $rc, want $want: $(cat "$T/err")"
}
# j EXPR...: the values of EXPRs over the job's JSON object j, space-separated.
j() { python3 -c "import json,sys; j=json.load(open(sys.argv[1]))['jobs'][0]; print($1)" "$T/out.json"; }

W="$EI,event=write,errno=28,after=10,count=5"
# ENOSPC ignored on writes: all 256 issued (5 failed, counted), no job error.
for list in ,ENOSPC ,28 ,EIO:ENOSPC EIO,ENOSPC:-28; do
  run 1 --rw=write --blockdev="$W" --ignore_error="$list"
  [[ "$(j "j['write']['total_ios'], j['total_err'], j['first_error'], j['error']")" == "256 5 28 0" ]] ||
    fail "ignore_error=$list: $(j "j['write']['total_ios'], j['total_err'], j['first_error'], j['error']")"
done
# Not in the list, or listed for reads only: the first ENOSPC ends the job.
for list in ,EIO ENOSPC; do
  run 1 --rw=write --blockdev="$W" --ignore_error="$list"
  [[ "$(j "j['total_err'], j['error']")" == "1 28" ]] || fail "ignore_error=$list: $(j "j['total_err'], j['error']")"
  (( $(j "j['write']['total_ios']") <= 11 )) || fail "ignore_error=$list: the job went on"
done
# continue_on_error=write alone: ENOSPC is not one of fio's default EIO, EILSEQ.
run 1 --rw=write --blockdev="$W" --continue_on_error=write
[[ "$(j "j['error']")" == 28 ]] || fail "continue_on_error=write passed ENOSPC"
# Reads: EIO listed in the read list.
R="$EI,event=read,errno=5,after=10,count=5"
run 1 --rw=read --blockdev="$R" --ignore_error=EIO
[[ "$(j "j['read']['total_ios'], j['total_err'], j['error']")" == "256 5 0" ]] ||
  fail "ignore_error=EIO on reads: $(j "j['read']['total_ios'], j['total_err'], j['error']")"
run 1 --rw=read --blockdev="$R" --ignore_error=,EIO
[[ "$(j "j['error']")" == 5 ]] || fail "a write list ignored a read error"
# Bad lists.
for bad in EDQUOT ,,,EIO 0x5; do
  if "$BB" --name=a --ioengine=null --size=1m --ignore_error="$bad" >"$T/out" 2>"$T/err"; then
    fail "ignore_error=$bad accepted"
  fi
  grep -q "ignore_error" "$T/err" || fail "ignore_error=$bad: $(cat "$T/err")"
done
echo PASS
