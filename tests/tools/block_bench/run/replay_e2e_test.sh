#!/bin/bash
# Trace replay end to end on the real binaries: an iolog written by fio
# replays with the same ops, offsets, lengths and order (checked from
# block-bench's own write_iolog recording, which fio reads back); a guest
# workload recorded by tools/emulator replays; the report's schedule
# fidelity (text and JSON); a 10^5-I/O, 50k IOPS trace keeps its schedule
# (loose bounds: the figures are in docs/replay.md); bad traces fail with
# FILE:LINE.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
EMU="$TEST_SRCDIR/$TEST_WORKSPACE/tools/emulator/emulator"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/replay.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$T" || fail cd
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio

# The I/O lines of an iolog v3 as "op offset len" (file names dropped).
ops() { awk 'NR > 1 && ($3 == "read" || $3 == "write" || $3 == "trim") { print $3, $4, $5 } $3 == "sync" { print "sync" }' "$1"; }

# 1. fio writes an iolog; block-bench replays it and records the replay.
fio --name=f --ioengine=null --size=4m --bs=4k --bsrange=4k-64k --rw=randrw --iodepth=8 \
  --write_iolog=fio.log >/dev/null || fail "fio --write_iolog"
head -1 fio.log | grep -q "fio version 3 iolog" || fail "fio wrote no v3 iolog: $(head -2 fio.log)"
"$BB" --name=r --ioengine=null --read_iolog=fio.log --write_iolog=bb.log --output-format=json \
  >r.json 2>r.err || fail "replay of fio's iolog: $(cat r.err)"
[ "$(ops fio.log | wc -l)" -gt 100 ] || fail "fio's iolog has too few I/Os"
ops fio.log >want.txt
ops bb.log >got.txt
cmp -s want.txt got.txt || fail "replay differs from fio's iolog: $(diff want.txt got.txt | head -5)"
python3 - r.json "$(wc -l <want.txt)" <<'PY' || fail "JSON schedule"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
s = j["schedule"]
n = int(sys.argv[2])
assert s["kind"] == "trace", s
assert s["trace_ios"] == n, (s["trace_ios"], n)
assert s["lateness_ns"]["N"] == n, s["lateness_ns"]
assert "99.000000" in s["lateness_ns"]["percentile"], s
assert j["read"]["total_ios"] + j["write"]["total_ios"] == n
assert j["read"]["sched_lat_ns"]["N"] == j["read"]["total_ios"]
assert s["trace_span_ns"] > 0 and s["replay_span_ns"] >= s["trace_span_ns"] * 0.99, s
PY
# fio reads block-bench's recording and issues the same number of I/Os.
fio --name=back --ioengine=null --read_iolog=bb.log --output-format=json >back.json 2>back.err \
  || fail "fio cannot read block-bench's iolog: $(cat back.err)"
python3 -c "
import json,sys
j=json.load(open('back.json'))['jobs'][0]
n=j['read']['total_ios']+j['write']['total_ios']
sys.exit(0 if n==$(wc -l <want.txt) else 1)" || fail "fio replayed a different count from bb.log"

# 2. Text report: the replay and duration lines.
"$BB" --name=t --ioengine=null --read_iolog=fio.log >t.txt 2>&1 || fail "text run: $(cat t.txt)"
grep -q "  replay       : trace=fio.log, ios=" t.txt || fail "no replay line: $(cat t.txt)"
grep -q "     lateness  : min=" t.txt || fail "no lateness line"
grep -q "     duration  : trace=" t.txt || fail "no duration line"
grep -q "sched lat (" t.txt || fail "no sched lat line"

# 3. A guest workload recorded by the emulator replays against another graph.
"$EMU" --queues=3 --depth=2 --seconds=0.3 --spec=driver=null,size=64M --write-iolog=emu.log \
  >emu.txt || fail "emulator --write-iolog: $(cat emu.txt)"
n_emu=$(ops emu.log | wc -l)
[ "$n_emu" -gt 100 ] || fail "emulator recorded $n_emu requests"
"$BB" --name=e --blockdev=driver=null,size=64M --read_iolog=emu.log --write_iolog=emu2.log \
  >e.txt 2>&1 || fail "replay of the emulator's iolog: $(cat e.txt)"
ops emu.log >emu_want.txt
ops emu2.log >emu_got.txt
cmp -s emu_want.txt emu_got.txt || fail "emulator replay differs: $(diff emu_want.txt emu_got.txt | head -5)"

# 4. Fidelity: 10^5 I/Os at 50k IOPS on the null driver (2 s).
python3 - <<'PY' || fail "trace generation"
with open("fast.log", "w") as f:
    f.write("fio version 3 iolog\n0 dev add\n0 dev open\n")
    for i in range(100000):
        f.write("%d dev read %d 4096\n" % (i * 20, (i * 7919 % 65536) * 4096))
PY
"$BB" --name=fast --ioengine=null --read_iolog=fast.log --output-format=json >fast.json 2>fast.err \
  || fail "50k IOPS replay: $(cat fast.err)"
python3 - fast.json <<'PY' || fail "50k IOPS replay kept no schedule"
import json, sys
s = json.load(open(sys.argv[1]))["jobs"][0]["schedule"]
p50 = s["lateness_ns"]["percentile"]["50.000000"]
err = abs(s["duration_error_pct"])
print("50k IOPS replay: lateness p50 %.1f us p99 %.1f us, duration error %.4f %%" %
      (p50 / 1e3, s["lateness_ns"]["percentile"]["99.000000"] / 1e3, err))
assert s["trace_ios"] == 100000
assert s["lateness_ns"]["N"] == 100000
assert p50 < 1000000, p50          # loose: a noisy 2-core machine
assert err < 5.0, err
PY

# 5. A rate job reports its schedule too.
"$BB" --name=rate --ioengine=null --size=1m --rate_iops=2000 --output-format=json >rate.json \
  || fail "rate job"
python3 -c "
import json
j=json.load(open('rate.json'))['jobs'][0]
assert j['schedule']['kind']=='rate', j.get('schedule')
assert j['read']['sched_lat_ns']['N']==j['read']['total_ios']" || fail "rate schedule JSON"

# 6. replay_redirect: fio's iolog names "f.0.0"; the I/O goes to a file of
# ours instead, laid out to the trace's extent.
"$BB" --name=rd --ioengine=psync --read_iolog=fio.log --replay_redirect="$T/redir.img" \
  --output-format=json >rd.json 2>rd.err || fail "replay_redirect: $(cat rd.err)"
[ -f redir.img ] || fail "replay_redirect did not create the file"
[ ! -e f.0.0 ] || fail "replay_redirect still opened the iolog's file"
python3 -c "
import json
j=json.load(open('rd.json'))['jobs'][0]
assert 'redir.img' in j['blkstack']['target'], j['blkstack']['target']
assert j['read']['total_ios']+j['write']['total_ios']==$(wc -l <want.txt)" || fail "replay_redirect counts"

# 7. Bad traces: FILE:LINE, exit 1; trace_skip_bad goes on.
printf 'fio version 3 iolog\n0 dev add\n1 dev read 0 4096\n2 dev read zz 4096\n3 dev read 4096 4096\n' >bad.log
"$BB" --name=b --ioengine=null --read_iolog=bad.log >b.txt 2>&1 && fail "bad trace accepted"
grep -q "bad.log:4" b.txt || fail "no FILE:LINE in: $(cat b.txt)"
"$BB" --name=b --ioengine=null --read_iolog=bad.log --trace_skip_bad=1 --output-format=json \
  >skip.json 2>&1 || fail "trace_skip_bad: $(cat skip.json)"
python3 -c "
import json
s=json.load(open('skip.json'))['jobs'][0]['schedule']
assert s['bad_records']==1 and s['trace_ios']==2, s" || fail "skip_bad counts"
"$BB" --name=b --ioengine=null --read_iolog=missing.log >m.txt 2>&1 && fail "missing trace accepted"
grep -q "missing.log" m.txt || fail "missing trace not named: $(cat m.txt)"
# 8. No target given: block-bench's own iolog names the graph it ran on
# ("driver=null,size=..."): the replay opens that graph, creates no file in
# the working directory, and keeps the log's span (a depth of 1 from the
# default psync engine made it run long).  50k IOPS: a pace this loaded
# 2-core machine keeps.
mkdir "$T/own" && cd "$T/own" || fail "cd own"
"$BB" --name=w --ioengine=null --size=64m --rw=randread --bs=4k --iodepth=8 --runtime=1 \
  --time_based --rate_iops=50000 --write_iolog="$T/w.log" >/dev/null 2>&1 || fail "write_iolog"
spec=$(awk 'NR == 2 { print $2 }' "$T/w.log")
case "$spec" in driver=null,*) ;; *) fail "block-bench's iolog names '$spec'" ;; esac
"$BB" --name=r --read_iolog="$T/w.log" --output-format=json >"$T/own.json" 2>"$T/own.err" \
  || fail "replay of block-bench's own iolog: $(cat "$T/own.err")"
[ -z "$(ls -A)" ] || fail "the replay created files in the working directory: $(ls -A)"
python3 - "$T/own.json" "$spec" "$(ops "$T/w.log" | wc -l)" <<'PY' || fail "own iolog replay"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
s = j["schedule"]
print("own iolog replay: target %s, depth %d, duration error %+.2f %% (trace %.3f s, replay %.3f s)" %
      (j["blkstack"]["target"], s["depth"], s["duration_error_pct"], s["trace_span_ns"] / 1e9,
       s["replay_span_ns"] / 1e9))
assert j["blkstack"]["target"] == sys.argv[2], j["blkstack"]["target"]
assert s["trace_ios"] == int(sys.argv[3]) > 1000, (s["trace_ios"], sys.argv[3])
assert abs(s["replay_span_ns"] - s["trace_span_ns"]) <= 0.25 * s["trace_span_ns"], s
PY

# 9. The emulator's iologs (key=value specs, one naming a file by its path,
# and a JSON one, written as its key=value form) replay with no target, on
# the graph they name (a file spec's '/' once made "cannot create: -2").
truncate -s 64M "$T/emu.img" || fail truncate
for sp in 'driver=null,size=64M' "driver=file,filename=$T/emu.img" \
  '{"driver": "null", "size": "64M"}'; do
  rm -f "$T/emu_own.log"
  "$EMU" --queues=3 --depth=2 --seconds=0.2 --spec="$sp" --write-iolog="$T/emu_own.log" \
    >/dev/null || fail "emulator --spec=$sp"
  "$BB" --name=e --read_iolog="$T/emu_own.log" --write_iolog="$T/emu_back.log" \
    >"$T/eo.txt" 2>&1 || fail "replay of the emulator's iolog ($sp): $(cat "$T/eo.txt")"
  ops "$T/emu_own.log" >"$T/eo_want.txt"
  ops "$T/emu_back.log" >"$T/eo_got.txt"
  [ "$(wc -l <"$T/eo_want.txt")" -gt 100 ] || fail "emulator recorded too little ($sp)"
  cmp -s "$T/eo_want.txt" "$T/eo_got.txt" || fail "emulator replay differs ($sp)"
  want=$(awk 'NR == 2 { print $2 }' "$T/emu_own.log")
  case "$want" in driver=*) ;; *) fail "the emulator's iolog names '$want'" ;; esac
  grep -qF "blkstack     : $want" "$T/eo.txt" || fail "not on '$want': $(grep blkstack "$T/eo.txt")"
  [ -z "$(ls -A)" ] || fail "the replay created files in the working directory: $(ls -A)"
done

# 10. A file column that is neither an existing path nor a spec, and no
# target: refused in one line naming the log and the options, exit 1.
printf 'fio version 3 iolog\n0 nosuch.img add\n1 nosuch.img read 0 4096\n' >"$T/nf.log"
"$BB" --name=n --read_iolog="$T/nf.log" >"$T/nf.out" 2>"$T/nf.err" && fail "missing file accepted"
grep -q "read_iolog '$T/nf.log': .*nosuch.img.*filename=, blockdev= or replay_redirect=" "$T/nf.err" \
  || fail "refusal does not say how to name a target: $(cat "$T/nf.err")"
[ "$(wc -l <"$T/nf.err")" -eq 1 ] || fail "refusal is not one line: $(cat "$T/nf.err")"
[ ! -e nosuch.img ] || fail "the trace's file was created"
echo PASS
