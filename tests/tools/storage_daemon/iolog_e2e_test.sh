#!/usr/bin/env bash
# --export write-iolog=PATH: what real clients sent, recorded as fio iolog
# v3 and replayed by block-bench.
#   qemu-io's writes, reads, discard and flush appear in the log in order,
#   with their offsets and lengths, under the graph's spec as file name;
#   write-zeroes is not recorded (the format has no such operation)
#   qemu-img convert into the export: the log's write bytes add up to the
#   data qemu-img sent, and block-bench --read_iolog replays the log
#   against the same graph with as many reads, writes and trims as recorded
set -uo pipefail
source "$(dirname "$0")/daemon_lib.sh"
need qemu-io qemu-utils
need qemu-img qemu-utils
BB="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-blkstack}/tools/block_bench/block_bench"
[[ -x "$BB" ]] || BB="$(dirname "$DAEMON")/../block_bench/block_bench"
cd "$WORK" || exit 1
truncate -s 16M disk.img
SPEC="driver=file,filename=$WORK/disk.img,discard=unmap,node-name=disk"
start_daemon --blockdev "$SPEC" \
  --export "type=nbd,id=e0,node-name=disk,writable=on,write-iolog=$WORK/q.log"
qemu-io -f raw -c 'write -P 1 64k 8k' -c 'read 64k 8k' -c 'discard 1M 64k' -c 'flush' \
  -c 'write -z 2M 1M' -c 'read 3M 512' "$(uri disk)" > /dev/null 2>&1
stop_daemon
if python3 - "$WORK/q.log" "$SPEC" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == "fio version 3 iolog", lines[0]
assert lines[1].split(None, 1)[1] == sys.argv[2] + " add", lines[1]
ios = [l.split()[2:] for l in lines if l.split()[2] in ("read", "write", "trim", "sync")]
# qemu-io's own probing reads (format detection) come first: look at the
# tail.  qemu-io flushes once more as it closes the image.
want = [["write", "65536", "8192"], ["read", "65536", "8192"], ["trim", "1048576", "65536"],
        ["sync", "0", "0"], ["read", "3145728", "512"], ["sync", "0", "0"]]
tail = ios[-len(want):]
assert tail == want, ios
assert lines[-1].split()[2] == "close", lines[-1]
PY
then pass "qemu-io's requests recorded in order (write-zeroes left out)"
else bad "iolog content: $(cat "$WORK/q.log")"; fi

# qemu-img convert into the export, then replay its log with block-bench.
head -c $((4 << 20)) /dev/urandom > src.img
truncate -s 16M disk.img
start_daemon --blockdev "$SPEC" \
  --export "type=nbd,id=e0,node-name=disk,writable=on,write-iolog=$WORK/c.log"
qemu-img convert -n -f raw -O raw src.img "$(uri disk)" || bad "qemu-img convert"
stop_daemon
read -r nr nw nt wbytes < <(awk '$3=="read"{r++} $3=="write"{w++; b+=$5} $3=="trim"{t++} END{print r+0, w+0, t+0, b+0}' c.log)
echo "qemu-img convert: $nr reads, $nw writes ($wbytes bytes), $nt trims recorded"
(( wbytes >= 4 << 20 && nw > 0 )) && pass "the convert's writes recorded (>= 4 MiB)" || bad "writes recorded: $wbytes bytes"
if [[ -x $BB ]]; then
  "$BB" --name=replay --read_iolog="$WORK/c.log" --output-format=json > replay.json 2> replay.err
  rc=$?
  if [[ $rc == 0 ]] && python3 - replay.json "$nr" "$nw" "$nt" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
got = (j["read"]["total_ios"], j["write"]["total_ios"], j["trim"]["total_ios"])
want = tuple(int(x) for x in sys.argv[2:5])
print("replayed (reads, writes, trims):", got, "recorded:", want)
sys.exit(0 if got == want else 1)
PY
  then pass "block-bench --read_iolog replays the recorded convert"
  else bad "replay (exit $rc): $(head -c 600 replay.err)"; fi
else
  bad "block-bench binary not found at $BB"
fi
exit $fail
