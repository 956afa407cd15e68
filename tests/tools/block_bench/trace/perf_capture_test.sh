#!/bin/bash
# block-bench --trace-info end to end:
#  1. on a small fio iolog: text, JSON (read back by python3), and a bad file
#     (exit 1, FILE:LINE in the message);
#  2. on a real `perf script` capture of the block tracepoints around a
#     `dd oflag=direct` of known writes: it must find at least that many.
# Part 2 needs perf, root and tracefs: without them it prints SKIPPED and
# passes, unless BLK_TEST_NO_SKIP=1 (then it fails).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/trace.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
skip() {
  [ "${BLK_TEST_NO_SKIP:-0}" = 1 ] && fail "$* (and BLK_TEST_NO_SKIP=1)"
  echo "SKIPPED: $*"
  exit 0
}
cd "$T" || fail cd

# ---- 1. iolog ----
cat >small.iolog <<'EOF'
fio version 3 iolog
10 /dev/x add
20 /dev/x open
100 /dev/x read 0 4096
200 /dev/x write 4096 4096
300 /dev/x write 8192 8192
400 /dev/x sync 0 0
500 /dev/x close
EOF
"$BB" --trace-info small.iolog >text.out 2>text.err || fail "text: $(cat text.err)"
grep -q "small.iolog: format=iolog3, ios=4" text.out || fail "text: $(cat text.out)"
grep -q "write : ios=2" text.out || fail "text writes: $(cat text.out)"
"$BB" --trace-info=small.iolog --output-format=json >info.json 2>json.err || fail "json: $(cat json.err)"
python3 -c '
import json, sys
d = json.load(open("info.json"))
assert d["ios"] == 4, d
assert d["write"] == {"ios": 2, "bytes": 12288}, d
assert d["flush"]["ios"] == 1, d
assert d["files"] == ["/dev/x"], d
assert d["span_ns"] == 300000, d
' || fail "json content: $(cat info.json)"
printf 'fio version 3 iolog\n1 f read 0 4096\n2 f read 12x 4096\n' >bad.iolog
"$BB" --trace-info bad.iolog >bad.out 2>bad.err
rc=$?
[ "$rc" = 1 ] || fail "bad file: exit $rc"
grep -q "bad.iolog:3: offset '12x' is not a number" bad.err || fail "bad file message: $(cat bad.err)"
[ "$(wc -l <bad.err)" = 1 ] || fail "bad file: not one line: $(cat bad.err)"
"$BB" --trace-info small.iolog --trace-format=nope >/dev/null 2>fmt.err && fail "bad format accepted"
grep -q "unknown format 'nope'" fmt.err || fail "bad format message: $(cat fmt.err)"
echo "PASS: --trace-info on iologs"

# ---- 2. perf capture ----
command -v perf >/dev/null || skip "perf is not installed (linux-perf)"
[ "$(id -u)" = 0 ] || skip "not root: perf record -a of block tracepoints needs root"
# O_DIRECT writes must reach a block device: not tmpfs.
dir="$T"
case "$(stat -f -c %T "$dir" 2>/dev/null)" in tmpfs|ramfs) dir=/var/tmp ;; esac
data="$(mktemp "$dir/ddtarget.XXXXXX")"
trap 'rm -rf "$T" "$data"' EXIT
writes=32
if ! perf record -q -e block:block_bio_queue -e block:block_rq_issue \
    -e block:block_rq_complete -a -o perf.data -- \
    dd if=/dev/zero of="$data" bs=4k count=$writes oflag=direct conv=fsync >perf.err 2>&1; then
  skip "perf record failed (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null), tracefs?): $(tail -2 perf.err | tr '\n' ' ')"
fi
perf script -i perf.data >perf.txt 2>script.err || fail "perf script: $(cat script.err)"
grep -q "block:block_bio_queue" perf.txt || skip "no block events captured (the file system of $dir has no block device?)"
# Other devices may be busy too: take the device with the most writes.
best=0
for dev in $(awk '/block:block_bio_queue:/ { for (i = 1; i <= NF; i++) if ($i == "block:block_bio_queue:") print $(i + 1) }' perf.txt | sort -u); do
  "$BB" --trace-info=perf.txt --trace-format=perf --trace-device="$dev" --output-format=json \
    >"dev.json" 2>dev.err || fail "--trace-info on device $dev: $(cat dev.err)"
  n=$(python3 -c 'import json; print(json.load(open("dev.json"))["write"]["ios"])') || fail "json"
  [ "$n" -gt "$best" ] && best=$n
done
[ "$best" -ge "$writes" ] || fail "found $best writes in the capture, dd made $writes"
"$BB" --trace-info=perf.txt --trace-format=perf >/dev/null 2>multi.err ||
  grep -q "trace_device=MAJ,MIN" multi.err || fail "several devices message: $(cat multi.err)"
echo "PASS: perf capture: $best writes on the busiest device (dd made $writes)"
