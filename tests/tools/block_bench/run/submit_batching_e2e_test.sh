#!/usr/bin/env bash
# Submission batching as the job says, end to end on the real binary,
# counted in system calls (the file driver's aio_submit_calls: io_submit or
# io_uring_enter calls that sent requests; aio_requests_submitted: the
# requests they carried):
#  * iodepth_batch_submit=1 (fio's default, written): one request per call,
#    at iodepth=16 on libaio (O_DIRECT) and on io_uring over the page cache,
#    where reads complete inside the call and block-bench's own batching
#    would otherwise gather the next ones (it sent 32 per call);
#  * iodepth_batch_submit=4: at most 4 per call, and batches do form;
#  * iodepth_batch_submit=0: up to iodepth per call, fixed (not adaptive);
#  * fio_defaults=1: one per call, no busy polling, no note;
#  * nothing written: block-bench's adaptive batching up to iodepth, and the
#    text header and the JSON say in one line that this differs from fio.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
head -c 16M /dev/urandom > data.img

run() {  # run NAME ENGINE DIRECT [OPTIONS...]: JSON to NAME.json
  local name=$1 engine=$2 direct=$3
  shift 3
  "$BB" --name=j --filename=data.img --ioengine="$engine" --direct="$direct" --rw=randread \
    --bs=4k --iodepth=16 --runtime=1 --time_based "$@" --output-format=json \
    --output="$name.json" || fail "$name: exit $?"
}

check() {  # check NAME MAX_PER_CALL ADAPT(on|off) NOTE(0|1) [POLL_OFF(0|1)]
  python3 - "$@" <<'PY' || fail "$1"
import json, sys
name, most, adapt, note = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
poll_off = len(sys.argv) > 5 and sys.argv[5] == "1"
j = json.load(open(name + ".json"))["jobs"][0]
b = j["blkstack"]
c = b["counters"]
calls, reqs = c["aio_submit_calls"], c["aio_requests_submitted"]
assert reqs > 200, (name, reqs)
assert reqs <= most * calls, (name, "requests per call over", most, reqs, calls)
if most == 1:
    assert calls == reqs, (name, calls, reqs)
    assert c["aio_requests_per_submit_1"] == calls, (name, c)
spec = b["target"]
assert ("aio-max-batch=%d," % most) in spec + ",", (name, spec)
assert ("aio-batch-adapt=" + adapt) in spec, (name, spec)
assert ("aio-poll=off" in spec) == poll_off, (name, spec)
assert ("differs_from_fio" in b) == note, (name, b.get("differs_from_fio"))
if note:
    assert "iodepth_batch_submit=1" in b["differs_from_fio"], b["differs_from_fio"]
print("%s: %d requests in %d calls" % (name, reqs, calls))
PY
}

for e in "libaio 1" "io_uring 0"; do
  set -- $e
  engine=$1 direct=$2
  run ${engine}_one "$engine" "$direct" --iodepth_batch_submit=1
  check ${engine}_one 1 off 0
  run ${engine}_four "$engine" "$direct" --iodepth_batch_submit=4
  check ${engine}_four 4 off 0
  run ${engine}_depth "$engine" "$direct" --iodepth_batch=0
  check ${engine}_depth 16 off 0
  run ${engine}_fio "$engine" "$direct" --fio_defaults
  check ${engine}_fio 1 off 0 1
  run ${engine}_default "$engine" "$direct"
  check ${engine}_default 16 on 1
done

# Batches form at 4 on io_uring over the page cache (reads complete inside
# the call): more requests than calls.
python3 - <<'PY' || fail "io_uring_four: no batches"
import json
c = json.load(open("io_uring_four.json"))["jobs"][0]["blkstack"]["counters"]
assert c["aio_requests_submitted"] > c["aio_submit_calls"], c
PY

# The text header says it once for the default, not with fio's settings.
"$BB" --name=j --filename=data.img --ioengine=io_uring --rw=randread --bs=4k --iodepth=16 \
  --runtime=200ms --time_based > text.out || fail "text run"
grep -q '^j: note: submissions batched adaptively, up to iodepth=16 per system call (fio: iodepth_batch_submit=1' text.out ||
  { cat text.out; fail "no note in the text header"; }
[[ $(grep -c 'note: submissions batched' text.out) == 1 ]] || fail "note not once"
"$BB" --name=j --filename=data.img --ioengine=io_uring --rw=randread --bs=4k --iodepth=16 \
  --runtime=200ms --time_based --fio_defaults > text2.out || fail "text run 2"
if grep -q 'note:' text2.out; then cat text2.out; fail "note with fio_defaults"; fi
# Engines with no submission call say nothing.
"$BB" --name=j --ioengine=null --size=1m --rw=randread --iodepth=16 --runtime=200ms --time_based \
  > text3.out || fail "null run"
if grep -q 'note:' text3.out; then cat text3.out; fail "note on null"; fi
echo PASS
