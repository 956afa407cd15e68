#!/usr/bin/env bash
# fio's process and scheduling options end to end, block-bench against fio
# 3.33 on the same jobs (fio is required: without it the test skips, or
# fails under BLK_TEST_NO_SKIP):
#  * exec_prerun / exec_postrun: the same <job>.prerun.txt / .postrun.txt
#    as fio's (fio's redirection appended to the command as written, so
#    "a; b" leaves a's output on stdout), fio's "Saving output of" lines on
#    stdout, nothing on stderr; a failing prerun: no I/O, exit status 0;
#  * nice: the nice value of the job's thread, read by the prerun command
#    (it inherits it) from /proc/self/stat, as fio's;
#  * gtod_cpu: taken out of a cpus_allowed mask (Cpus_allowed_list of the
#    thread, as fio's);
#  * wait_for: the waiter's prerun runs after the waitee's (both clones')
#    postrun, while a job without wait_for starts before it; wait_for of an
#    unknown or a later job, or of itself, is an error naming it;
#  * lockmem: VmLck of the process while the job runs, as fio's;
#  * ioscheduler: fails as fio's for a scheduler the kernel lacks, the
#    disk's scheduler unchanged;
#  * clocksource: fio's three values accepted, another refused.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v fio >/dev/null; then
  [ -n "${BLK_TEST_NO_SKIP:-}" ] && fail "fio is missing (apt install fio)"
  echo "SKIPPED: fio is missing"
  exit 0
fi
mkdir -p "$T/fio" "$T/bb"

both() {  # both ARGS...: the same job in $T/fio and $T/bb; stdout/stderr kept
  (cd "$T/fio" && rm -f ./*.txt && fio "$@" >out 2>err) || fail "fio $*: $(cat "$T/fio/err")"
  (cd "$T/bb" && rm -f ./*.txt && "$BB" "$@" >out 2>err) || fail "block-bench $*: $(cat "$T/bb/err")"
}
same_file() {  # same_file NAME: the file as fio wrote it
  [ -f "$T/bb/$1" ] || fail "block-bench wrote no $1"
  cmp -s "$T/fio/$1" "$T/bb/$1" || fail "$1: fio '$(cat "$T/fio/$1")', block-bench '$(cat "$T/bb/$1")'"
}

# exec_prerun / exec_postrun, two clones.
both --name=j --ioengine=null --size=1m --numjobs=2 \
  --exec_prerun='echo first; echo second >&2' --exec_postrun='echo post $PWD'
(cd "$T/fio" && sed -i "s|$T/fio|DIR|" j.postrun.txt)
(cd "$T/bb" && sed -i "s|$T/bb|DIR|" j.postrun.txt)
same_file j.prerun.txt
same_file j.postrun.txt
[ "$(cat "$T/bb/j.prerun.txt")" = second ] || fail "prerun file: $(cat "$T/bb/j.prerun.txt")"
[ "$(cat "$T/bb/j.postrun.txt")" = "post DIR" ] || fail "postrun file: $(cat "$T/bb/j.postrun.txt")"
for f in fio bb; do
  [ "$(grep -c '^j : Saving output of prerun in j.prerun.txt$' "$T/$f/out")" = 2 ] || fail "$f: prerun lines: $(cat "$T/$f/out")"
  [ "$(grep -c '^j : Saving output of postrun in j.postrun.txt$' "$T/$f/out")" = 2 ] || fail "$f: postrun lines"
  [ "$(grep -c '^first$' "$T/$f/out")" = 2 ] || fail "$f: the first command's output is not on stdout"
done
[ ! -s "$T/bb/err" ] || fail "stderr: $(cat "$T/bb/err")"

# A failing prerun: the job does no I/O, and the run does not fail.
both --name=f --ioengine=null --size=1m --exec_prerun='exit 3' --output-format=json --output=r.json
python3 - "$T" <<'PY' || fail "failing prerun"
import json, sys
for tool in ("fio", "bb"):
    j = json.load(open("%s/%s/r.json" % (sys.argv[1], tool)))["jobs"][0]
    assert j["read"]["io_bytes"] == 0 and j["error"] == 0, (tool, j["read"]["io_bytes"], j["error"])
PY

# nice: the prerun command runs with the job thread's nice value.
base=$(awk '{print $19}' /proc/self/stat)
want=$((base + 5 > 19 ? 19 : base + 5))
both --name=n --ioengine=null --size=1m --nice=5 --exec_prerun="awk '{print \$19}' /proc/self/stat"
same_file n.prerun.txt
[ "$(cat "$T/bb/n.prerun.txt")" = "$want" ] || fail "nice: $(cat "$T/bb/n.prerun.txt"), wanted $want"
(cd "$T/bb" && ! "$BB" --name=n --ioengine=null --size=1m --nice=20 2>err) || fail "nice=20 accepted"
grep -q "option '--nice'" "$T/bb/err" || fail "nice=20: $(cat "$T/bb/err")"

# gtod_cpu out of the job's CPU mask.  block-bench alone: fio 3.33 on this
# machine gives the same mask outside Bazel's sandbox but segfaults in it
# (its time-keeping thread), and always without cpus_allowed.
if [ "$(nproc)" -ge 2 ]; then
  (cd "$T/bb" && "$BB" --name=g --ioengine=null --size=1m --cpus_allowed=0,1 --gtod_cpu=1 \
    --exec_prerun='grep Cpus_allowed_list /proc/self/status' >out 2>err) || fail "gtod_cpu: $(cat "$T/bb/err")"
  grep -qP 'Cpus_allowed_list:\t0$' "$T/bb/g.prerun.txt" || fail "gtod_cpu: $(cat "$T/bb/g.prerun.txt")"
fi

# lockmem: the job's process holds that much mlocked memory while the job
# runs (VmLck of the prerun shell's parent); 2 MiB stays under the default
# RLIMIT_MEMLOCK (8 MiB) for a process without CAP_IPC_LOCK.
both --name=l --ioengine=null --size=1m --lockmem=2m --exec_prerun='grep VmLck /proc/$PPID/status'
same_file l.prerun.txt
grep -qP '^VmLck:\s+2048 kB$' "$T/bb/l.prerun.txt" || fail "lockmem: $(cat "$T/bb/l.prerun.txt")"
both --name=l --ioengine=null --size=1m --exec_prerun='grep VmLck /proc/$PPID/status'
grep -qP '^VmLck:\s+0 kB$' "$T/bb/l.prerun.txt" || fail "no lockmem: $(cat "$T/bb/l.prerun.txt")"

# ioscheduler on the disk under the test's directory: a scheduler the
# kernel lacks fails the job as fio's (the same error number: EINVAL, or
# the open's errno where /sys is read-only); the scheduler already selected
# is written back, which changes nothing.  Either way the disk keeps its
# scheduler.  On a file system without a disk (tmpfs) both skip the switch.
head -c 1M /dev/zero > "$T/fio/s.img"; cp "$T/fio/s.img" "$T/bb/s.img"
sched=$(python3 - "$T/fio/s.img" <<'PY'
import os, sys
st = os.stat(sys.argv[1])
d = "/sys/dev/block/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
if os.path.exists(d + "/partition"): d += "/.."
try: print(os.path.realpath(d + "/queue/scheduler"))
except OSError: pass
PY
)
before=$(cat "$sched" 2>/dev/null || true)
current=$(echo "$before" | sed -n 's/.*\[\([^]]*\)\].*/\1/p')
for want in bogus-scheduler ${current:+"$current"}; do
  for f in fio bb; do
    tool=fio; [ $f = bb ] && tool=$BB
    (cd "$T/$f" && "$tool" --name=s --filename=s.img --size=1m --ioscheduler="$want" \
      --output-format=json --output=s.json >/dev/null 2>s.err) && echo 0 >"$T/$f/s.rc" || echo 1 >"$T/$f/s.rc"
  done
  [ "$(cat "$T/fio/s.rc")" = "$(cat "$T/bb/s.rc")" ] ||
    fail "ioscheduler=$want: fio exit $(cat "$T/fio/s.rc"), block-bench $(cat "$T/bb/s.rc"): $(cat "$T/bb/s.err")"
  python3 - "$T" "$want" "$([ -f "$sched" ] && echo disk)" <<'PY' || fail "ioscheduler=$want: error numbers"
import json, sys
t, want, disk = sys.argv[1:4]
e = [json.load(open("%s/%s/s.json" % (t, f)))["jobs"][0]["error"] for f in ("fio", "bb")]
assert e[0] == e[1], e
if disk and want == "bogus-scheduler": assert e[1] != 0, e
print("ioscheduler=%s: error %d as fio's%s" % (want, e[1], "" if disk else " (no disk under the directory)"))
PY
  [ "$(cat "$sched" 2>/dev/null || true)" = "$before" ] || fail "ioscheduler=$want changed $sched: $(cat "$sched")"
done

# wait_for: b starts once both clones of a ended; c does not wait.
cat > "$T/w.fio" <<'JOB'
[global]
ioengine=null
size=1m
[a]
time_based
runtime=300ms
numjobs=2
exec_postrun=date +%s%N
[b]
wait_for=a
exec_prerun=date +%s%N
[c]
exec_prerun=date +%s%N
JOB
both "$T/w.fio"
for f in fio bb; do
  a=$(sort -n "$T/$f/a.postrun.txt" | tail -1); b=$(cat "$T/$f/b.prerun.txt"); c=$(cat "$T/$f/c.prerun.txt")
  [ "$b" -ge "$a" ] || fail "$f: b started at $b, before a ended at $a"
  [ "$c" -lt "$a" ] || fail "$f: c (no wait_for) started at $c, after a ended at $a"
  echo "$f: a ended $(( (a - c) / 1000000 )) ms after c started; b started $(( (b - a) / 1000000 )) ms after a ended"
done
bb_error() {  # bb_error TEXT ARGS...: block-bench fails, stderr has TEXT
  local want=$1; shift
  (cd "$T/bb" && ! "$BB" "$@" >out 2>err) || fail "accepted: $*"
  grep -qF -- "$want" "$T/bb/err" || fail "$*: $(cat "$T/bb/err")"
}
bb_error "job 'b': wait_for=a: no job of that name before it" \
  --name=b --ioengine=null --size=1m --wait_for=a --name=a --ioengine=null --size=1m
bb_error "wait_for=b: a job cannot wait for itself" --name=b --ioengine=null --size=1m --wait_for=b
(cd "$T/fio" && fio --name=b --ioengine=null --size=1m --wait_for=a --name=a --ioengine=null \
  --size=1m >out 2>&1 || true; grep -q 'waitee job a unknown' out) || fail "fio accepts a forward wait_for"

# clocksource: fio's values.
for c in gettimeofday clock_gettime cpu; do
  (cd "$T/bb" && "$BB" --name=c --ioengine=null --size=64k --clocksource=$c >out 2>err) || fail "clocksource=$c: $(cat "$T/bb/err")"
done
bb_error "option '--clocksource'" --name=c --ioengine=null --size=64k --clocksource=tsc
echo PASS
