#!/bin/bash
# fio's engines that move no data, on the binary beside fio 3.33:
#   cpuio  a 1 s job at cpuload=25 with 10 ms burns: no bytes, no direction
#          block in the text report, JSON runtime and IOPS 0, the I/Os'
#          latency at least one burn, few enough I/Os that the pause after
#          each (30 ms) happened, fio's start line on stdout equal to fio's;
#          cpumode=qsort runs and announces itself; exit_on_io_done=1 ends
#          a job without a runtime once the I/O job beside it is done.
#   exec   the program starts with %r and %n substituted, its stdout goes to
#          JOB.stdout, it is stopped (SIGTERM) when the runtime ends and
#          left no process behind; the lines on stdout equal fio's; a
#          program that cannot run is a warning naming it (exit 0, as fio).
#   errors cpuio without cpuload= and exec without program= are job-file
#          errors naming the file, line and job.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/work.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd

tool() { if [ "$1" = fio ]; then echo fio; else echo "$BB"; fi; }

# ---- cpuio --------------------------------------------------------------------
for t in fio bb; do
  "$(tool $t)" --name=burn --ioengine=cpuio --cpuload=25 --cpuchunks=10000 --time_based \
    --runtime=1 --output-format=json >cpu.$t.json 2>cpu.$t.err || fail "$t cpuio: $(cat cpu.$t.err)"
  "$(tool $t)" --name=burn --ioengine=cpuio --cpuload=25 --cpuchunks=10000 --time_based \
    --runtime=1 >cpu.$t.txt 2>&1 || fail "$t cpuio text: $(cat cpu.$t.txt)"
done
line="burn (noop): ioengine=cpuio, cpuload=25, cpucycle=10000"
for t in fio bb; do
  grep -qxF "$line" cpu.$t.txt || fail "$t: no '$line' on stdout: $(cat cpu.$t.txt)"
  grep -qE '^ +read: ' cpu.$t.txt && fail "$t: a read block for cpuio: $(cat cpu.$t.txt)"
  grep -qE '^ +lat \(msec\) +: .*20=' cpu.$t.txt || fail "$t: no 10-20 ms bucket: $(cat cpu.$t.txt)"
done
python3 - cpu.bb.json cpu.fio.json <<'EOF' || fail "cpuio JSON"
import json, sys
def load(p):
    text = open(p).read()
    return json.loads(text[text.index("{"):])  # fio's start line comes first
for p in sys.argv[1:]:
    r = load(p)["jobs"][0]["read"]
    n, clat = r["total_ios"], r["clat_ns"]
    assert r["io_bytes"] == 0 and r["runtime"] == 0 and r["iops"] == 0, (p, r["io_bytes"], r["runtime"], r["iops"])
    # A burn is 10 ms and the pause after it 30 ms: at most ~25 in 1 s
    # (100 without the pause).
    assert 5 <= n <= 40, (p, n)
    # block-bench burns at least cpuchunks; fio's spin, timed by its own
    # clock, may stop a little short (9.9995 ms seen).
    floor = 10e6 if p.startswith("cpu.bb") else 9.9e6
    assert clat["N"] == n and clat["min"] >= floor, (p, clat["N"], clat["min"])
    print("%s: cpuio %d I/Os in 1 s, no bytes, clat min %.1f ms" % (p, n, clat["min"] / 1e6))
EOF

"$BB" --name=sort --ioengine=cpuio --cpuload=50 --cpumode=qsort --time_based --runtime=1 \
  >q.txt 2>q.err || fail "qsort: $(cat q.err)"
grep -qx 'sort (qsort): ioengine=cpuio, cpuload=50, cpucycle=50000' q.txt || fail "qsort line: $(head -5 q.txt)"
grep -qE 'issued rwts: total=[1-9]' q.txt || fail "qsort: no I/O: $(cat q.txt)"
echo "cpumode=qsort ran"

# exit_on_io_done: no runtime, so only the I/O job's end ends the cpuio job.
cat >eo.fio <<'EOF'
[burn]
ioengine=cpuio
cpuload=10
cpuchunks=2000
exit_on_io_done=1

[io]
ioengine=null
size=32m
bs=4k
rate_iops=20000
EOF
timeout 60 "$BB" eo.fio --output-format=json >eo.json 2>eo.err || fail "exit_on_io_done: $? $(cat eo.err)"
python3 - eo.json <<'EOF' || fail "exit_on_io_done JSON"
import json, sys
text = open(sys.argv[1]).read()
jobs = {j["jobname"]: j for j in json.loads(text[text.index("{"):])["jobs"]}
assert jobs["burn"]["error"] == 0 and jobs["burn"]["read"]["total_ios"] > 0, jobs["burn"]["read"]
assert jobs["io"]["read"]["io_bytes"] == 32 << 20
print("exit_on_io_done: cpuio ended with the 32 MiB job (%d burns)" % jobs["burn"]["read"]["total_ios"])
EOF

# exit_on_io_done without any job that does I/O: fio keeps the cpuio job
# running ("we only had cpuio threads"), here until its runtime.
"$BB" --name=solo --ioengine=cpuio --cpuload=10 --cpuchunks=2000 --exit_on_io_done=1 \
  --time_based --runtime=1 --output-format=json >solo.json 2>solo.err || fail "solo: $(cat solo.err)"
python3 - solo.json <<'EOF' || fail "exit_on_io_done alone ended the job"
import json, sys
n = json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"]
assert n >= 10, n  # 2 ms burns, 18 ms pauses: ~50 in 1 s
print("exit_on_io_done alone: the cpuio job ran its second (%d burns)" % n)
EOF

# ---- exec ---------------------------------------------------------------------
cat >prog.sh <<'EOF'
#!/bin/sh
echo "args: $*"
echo $$ > "$1.pid"
exec sleep 30
EOF
chmod +x prog.sh
for t in fio bb; do
  mkdir -p x$t && cd x$t || fail cd
  rm -f *.pid
  timeout 60 "$(tool $t)" --name=ex --ioengine=exec --program=../prog.sh --arguments="%n %r" \
    --time_based --runtime=1 >out 2>err || fail "$t exec: $(cat out err)"
  grep -qxF "args: ex 1" ex.stdout || fail "$t: ex.stdout: $(cat ex.stdout)"
  pid=$(cat ex.pid)
  # block-bench stopped the program before it exited (fio leaves that to
  # its last clean-up, not checked here).  That it was reaped is
  # work_engine_test's.
  if [ $t = bb ] && kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid"
    fail "$t left the program running"
  fi
  grep -E '^ex : ' out >lines || fail "$t: no exec lines: $(cat out)"
  cd .. || fail cd
done
diff xfio/lines xbb/lines || fail "exec lines differ from fio's"
grep -qxF "ex : Saving output of ../prog.sh ex 1 : stdout=ex.stdout stderr=ex.stderr" xbb/lines ||
  fail "exec lines: $(cat xbb/lines)"
echo "exec: the program ran with 'ex 1', wrote ex.stdout and was stopped at the runtime's end"

"$BB" --name=gone --ioengine=exec --program=/nonexistent/prog --time_based --runtime=1 \
  >gone.out 2>gone.err || fail "missing program: exit $?: $(cat gone.err)"
grep -q "cannot run '/nonexistent/prog': No such file or directory" gone.err ||
  fail "missing program: $(cat gone.err)"
echo "exec of a missing program: warned, $(cat gone.err)"

# ---- errors -------------------------------------------------------------------
printf '[global]\nioengine=cpuio\n\n[c]\nruntime=1\n' >nc.fio
"$BB" nc.fio >nc.out 2>&1 && fail "cpuio without cpuload ran"
grep -q "nc.fio.*'c'.*needs cpuload=" nc.out || fail "cpuio without cpuload: $(cat nc.out)"
printf '[e]\nioengine=exec\nruntime=1\n' >np.fio
"$BB" np.fio >np.out 2>&1 && fail "exec without program ran"
grep -q "np.fio.*'e'.*needs program=" np.out || fail "exec without program: $(cat np.out)"
"$BB" --name=x --ioengine=null --cpuload=5 >wrong.out 2>&1 && fail "cpuload with null ran"
grep -q "only valid with ioengine=cpuio" wrong.out || fail "cpuload with null: $(cat wrong.out)"
echo "errors: $(head -1 nc.out)"
echo PASS
