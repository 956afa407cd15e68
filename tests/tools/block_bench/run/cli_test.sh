#!/bin/bash
# block-bench end to end: fio-layout JSON on stdout (only JSON), read back by
# python3; --output; exit status and error message on an I/O error.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
EX="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/examples"
T="${TEST_TMPDIR:-/tmp}"
fail() { echo "FAIL: $*"; exit 1; }

# 1. JSON: stdout parses as one document with fio's keys and types.
"$BB" --output-format=json --name=j --ioengine=null --rw=randread --bs=4k --size=64m \
  --runtime=1 --time_based --iodepth=8 >"$T/out.json" 2>"$T/err.txt" || fail "json run exited $?"
python3 - "$T/out.json" <<'PY' || fail "json check"
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d["blkstack-bench version"], str)
assert isinstance(d["timestamp"], int)
j = d["jobs"][0]
assert j["jobname"] == "j" and j["groupid"] == 0 and j["error"] == 0
assert isinstance(j["job options"], dict) and j["job options"]["rw"] == "randread"
r = j["read"]
for k in ("io_bytes", "io_kbytes", "bw_bytes", "bw", "runtime", "total_ios", "short_ios", "drop_ios"):
    assert isinstance(r[k], int), k
assert isinstance(r["iops"], float) and r["iops"] > 1000, r["iops"]
for k in ("slat_ns", "clat_ns", "lat_ns"):
    for f in ("min", "max", "N"): assert isinstance(r[k][f], int), (k, f)
    for f in ("mean", "stddev"): assert isinstance(r[k][f], float), (k, f)
assert r["clat_ns"]["N"] == r["total_ios"]
assert "99.000000" in r["clat_ns"]["percentile"]
assert "bins" not in r["clat_ns"]
assert j["write"]["total_ios"] == 0 and j["trim"]["io_bytes"] == 0
for k in ("usr_cpu", "sys_cpu"): assert isinstance(j[k], float)
for k in ("ctx", "majf", "minf"): assert isinstance(j[k], int)
for k in ("iodepth_level", "iodepth_submit", "iodepth_complete", "latency_ns", "latency_us", "latency_ms"):
    assert isinstance(j[k], dict) and j[k], k
assert j["iodepth_level"]["8"] > 50
assert isinstance(j["blkstack"]["counters"], dict)
PY
# No progress line or header leaked into stdout (it parsed), and nothing on stderr.
[ -s "$T/err.txt" ] && fail "unexpected stderr: $(cat "$T/err.txt")"

# 2. json+ through --output=FILE: bins present; stdout empty.
"$BB" --output-format=json+ --output="$T/plus.json" --name=p --ioengine=null --rw=write \
  --size=4m >"$T/stdout.txt" || fail "json+ run"
[ -s "$T/stdout.txt" ] && fail "stdout not empty with --output"
python3 -c "
import json,sys; j=json.load(open('$T/plus.json'))['jobs'][0]['write']
assert j['total_ios']==1024, j['total_ios']
assert sum(j['clat_ns']['bins'].values())==1024
# 1024 null requests take well under a millisecond: IOPS and bandwidth come
# from the exact runtime, not from a runtime rounded to 0 ms.
assert j['iops'] > 0, j['iops']
assert abs(j['bw_bytes'] - j['iops'] * 4096) <= 4096, (j['bw_bytes'], j['iops'])
" || fail "json+ check"
"$BB" --name=p --ioengine=null --rw=write --size=4m >"$T/short.txt" || fail "short text run"
grep -q "IOPS=0," "$T/short.txt" && fail "sub-millisecond run printed IOPS=0: $(grep IOPS "$T/short.txt")"
grep -q "bw=0B/s" "$T/short.txt" && fail "sub-millisecond run printed a zero group bandwidth: $(grep bw= "$T/short.txt")"

# 3. An I/O error: non-zero exit, message with device, offset, length, errno.
"$BB" --output-format=json --name=e --rw=read --bs=4k \
  --blockdev=driver=error-inject,event=read,errno=5,offset=1m,length=4k,file.driver=null,file.size=16m \
  >"$T/e.json" 2>"$T/e.txt"
rc=$?
[ $rc -ne 0 ] || fail "I/O error exited 0"
grep -q "offset 1048576 length 4096" "$T/e.txt" || fail "message: $(cat "$T/e.txt")"
grep -q "driver=error-inject" "$T/e.txt" || fail "message lacks device: $(cat "$T/e.txt")"
grep -q "Input/output error" "$T/e.txt" || fail "message lacks errno: $(cat "$T/e.txt")"
python3 -c "import json; assert json.load(open('$T/e.json'))['jobs'][0]['error']==5" || fail "json error field"

# 4. The shipped example, shortened, in text form.
sed -e 's/^runtime=.*/runtime=1s/' -e 's/^ramp_time=.*/ramp_time=0/' "$EX/null-randread.fio" >"$T/short.fio"
"$BB" "$T/short.fio" >"$T/text.txt" 2>&1 || fail "example run"
grep -q "Run status group 0 (all jobs):" "$T/text.txt" || fail "text: $(cat "$T/text.txt")"
grep -q "null-randread: (groupid=0, jobs=2)" "$T/text.txt" || fail "group_reporting: $(cat "$T/text.txt")"

# 5. Parse errors exit 1 with the option named.
"$BB" --name=x --bs=oops >/dev/null 2>"$T/p.txt" && fail "bad option exited 0"
grep -q "bs" "$T/p.txt" || fail "parse message: $(cat "$T/p.txt")"

# 6. ioengine=io_uring runs on the file driver's io_uring mode, with fio's
# io_uring options mapped to the driver's (the counters prove they took).
"$BB" --name=u --ioengine=io_uring --filename="$T/u.dat" --size=1m --direct=1 \
  >"$T/u.txt" 2>"$T/u.err" || fail "io_uring job: $(cat "$T/u.err")"
grep -q "runs on" "$T/u.err" && fail "io_uring job substituted: $(cat "$T/u.err")"
head -1 "$T/u.txt" | grep -q "ioengine=io_uring, iodepth" || fail "header: $(head -1 "$T/u.txt")"
"$BB" --name=u --ioengine=io_uring --sqthread_poll=1 --registerfiles=1 --filename="$T/u.dat" \
  --size=1m --direct=1 --output-format=json 2>/dev/null | python3 -c "
import json,sys
j = json.load(sys.stdin)['jobs'][0]
assert j['blkstack']['engine'] == 'io_uring', j['blkstack']['engine']
c = j['blkstack']['counters']
assert c['io_uring_sqes'] == 256 and c['io_uring_sqpoll'] == 1 and c['io_uring_registered_file'] == 1, c
assert j['read']['total_ios'] == 256" || fail "io_uring JSON"
# fixedbufs: every slot's buffer registered with the ring, and every read
# and write sent as READ_FIXED / WRITE_FIXED (direct and buffered).
for direct in 1 0; do
  "$BB" --name=u --ioengine=io_uring --fixedbufs=1 --iodepth=8 --rw=randrw --filename="$T/u.dat" \
    --size=1m --direct=$direct --output-format=json 2>"$T/fb.err" | python3 -c "
import json,sys
j = json.load(sys.stdin)['jobs'][0]
c = j['blkstack']['counters']
n = j['read']['total_ios'] + j['write']['total_ios']
assert j['error'] == 0 and n == 256, (j['error'], n)
assert c['io_uring_registered_buffers'] == 8 and c['io_uring_fixed_buffers'] == 8, c
assert c['io_uring_fixed_sqes'] == n == c['io_uring_sqes'], c" ||
    fail "fixedbufs (direct=$direct): $(cat "$T/fb.err")"
done
# psync (fio's default) runs each I/O in the clone's thread, one at a time
# whatever iodepth says, as fio: engine sync, depth 1, no slat.
"$BB" --name=p --ioengine=psync --iodepth=8 --filename="$T/u.dat" --size=1m --output-format=json \
  2>"$T/p.err" | python3 -c "
import json,sys
j = json.load(sys.stdin)['jobs'][0]
assert j['blkstack']['engine'] == 'sync', j['blkstack']['engine']
assert j['read']['total_ios'] == 256 == j['blkstack']['counters']['sync_syscalls'], j
assert j['iodepth_level']['1'] == 100.0, j['iodepth_level']
assert j['read']['slat_ns']['N'] == 0, j['read']['slat_ns']" || fail "psync JSON: $(cat "$T/p.err")"
# The engine named is the one that runs: the file driver's aio mode
# (mmap), or the engine whose work is not the graph's I/O (cpuio, net).
for e in mmap falloc "cpuio --cpuload=20 --time_based --runtime=1"; do
  "$BB" --name=e --ioengine=$e --filename="$T/u.dat" --size=64k --output-format=json 2>"$T/e.err" |
    python3 -c "
import json,sys
j = json.load(sys.stdin)['jobs'][0]
assert j['blkstack']['engine'] == '${e%% *}', j['blkstack']['engine']" || fail "$e JSON engine: $(cat "$T/e.err")"
done
# Buffered libaio (fio accepts it) runs on the thread pool, and says so in
# the header (a note, as fio's header lines: nothing on stderr, not a warning).
"$BB" --name=b --ioengine=libaio --direct=0 --filename="$T/u.dat" --size=1m --output-format=json \
  >"$T/b.json" 2>"$T/b.err" || fail "buffered libaio job: $(cat "$T/b.err")"
[ ! -s "$T/b.err" ] || fail "stderr with json: $(cat "$T/b.err")"
python3 -c "
import json
j=json.load(open('$T/b.json'))['jobs'][0]
assert j['blkstack']['engine'] == 'threads', j['blkstack']
assert j['read']['total_ios'] == 256, j['read']['total_ios']" || fail "buffered libaio JSON"
"$BB" --warnings-fatal --name=u --ioengine=libaio --filename="$T/u.dat" --size=1m --direct=0 \
  >"$T/wf.txt" 2>"$T/wf.err" || fail "--warnings-fatal refused a note: $(cat "$T/wf.err")"
[ ! -s "$T/wf.err" ] || fail "stderr: $(cat "$T/wf.err")"
grep -qx "u: note: ioengine=libaio with direct=0 runs on the thread pool (aio=threads): .*" "$T/wf.txt" ||
  fail "no header note: $(head -4 "$T/wf.txt")"

# numjobs: fio's "..." line after the job's header.
"$BB" --name=n --ioengine=null --size=1m --numjobs=2 >"$T/n.txt" || fail "numjobs run"
sed -n 2p "$T/n.txt" | grep -qx "\.\.\." || fail "no '...' line: $(head -3 "$T/n.txt")"

# 7. fio's harness flags: --bandwidth-log writes the aggregate log of all
# clones; --section runs one job of a file; --readonly fails a replay's writes.
(cd "$T" && "$BB" --bandwidth-log --name=bw --ioengine=null --size=1g --numjobs=2 --runtime=1200ms \
  --time_based --rate=40m >/dev/null) || fail "--bandwidth-log run"
[ -f "$T/agg-read_bw.log" ] || fail "no agg-read_bw.log: $(ls "$T")"
python3 - "$T/agg-read_bw.log" <<'PY' || fail "agg-read_bw.log"
import sys
rows = [l.split(",") for l in open(sys.argv[1])]
assert len(rows) >= 2, rows
for r in rows:
    assert int(r[2]) == 0 and int(r[0]) % 500 == 0, r
    kib = int(r[1])
    assert 60000 < kib < 100000, r   # two clones at 40 MiB/s each: ~80 MiB/s
PY
printf '[a]\nioengine=null\nsize=1m\n[b]\nioengine=null\nsize=2m\n' >"$T/two.fio"
"$BB" --section=b --output-format=json "$T/two.fio" >"$T/sec.json" || fail "--section run"
python3 -c "
import json
j=json.load(open('$T/sec.json'))['jobs']
assert [x['jobname'] for x in j] == ['b'], [x['jobname'] for x in j]" || fail "--section ran other jobs"
printf 'fio version 3 iolog\n0 d add\n1 d write 0 4096\n' >"$T/w.log"
"$BB" --readonly --name=r --filename="$T/u.dat" --read_iolog="$T/w.log" >"$T/ro.txt" 2>&1 \
  && fail "--readonly let a replayed write through"
grep -q "write error" "$T/ro.txt" || fail "--readonly replay: $(cat "$T/ro.txt")"

# 8. --status-interval: the full report so far every interval, then the
# final one: JSON documents one after another, each cumulative; in text, a
# job block per status.
"$BB" --name=s --ioengine=null --rw=randread --time_based --runtime=1200ms --status-interval=300ms \
  --output-format=json >"$T/st.json" || fail "--status-interval json run"
python3 - "$T/st.json" <<'PY' || fail "--status-interval json: $(head -c 300 "$T/st.json")"
import json, sys
t = open(sys.argv[1]).read()
dec, i, docs = json.JSONDecoder(), 0, []
while True:
    while i < len(t) and t[i].isspace():
        i += 1
    if i >= len(t):
        break
    d, i = dec.raw_decode(t, i)
    docs.append(d)
assert len(docs) >= 4, len(docs)  # 3 statuses (0.3, 0.6, 0.9 s) and the final report
ios = [d["jobs"][0]["read"]["total_ios"] for d in docs]
assert ios == sorted(ios) and ios[0] > 0, ios
rt = [d["jobs"][0]["job_runtime"] for d in docs]
assert rt[0] < rt[-1] and 1100 <= rt[-1] <= 1300, rt
PY
"$BB" --name=s --ioengine=null --rw=randread --time_based --runtime=1s --status-interval=300ms \
  >"$T/st.txt" || fail "--status-interval text run"
n=$(grep -c "^s: (groupid=0" "$T/st.txt")
[ "$n" -ge 4 ] || fail "--status-interval text: $n job blocks: $(cat "$T/st.txt")"
"$BB" --name=s --ioengine=null --size=1m --status-interval=0 2>"$T/st0.txt" \
  && fail "--status-interval=0 accepted"
grep -q "status-interval" "$T/st0.txt" || fail "--status-interval=0: $(cat "$T/st0.txt")"
echo PASS
