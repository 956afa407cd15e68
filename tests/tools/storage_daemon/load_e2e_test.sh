#!/usr/bin/env bash
# blkstack-storage-daemon under load from real clients (the export served
# by an IOThread):
#   fio --ioengine=nbd randrw QD32 verify=crc32c: no error, no verify error
#   16 concurrent fio clients (one connection each, disjoint ranges, each
#     verifying its own writes): all 16 finish without error
#   a client killed (SIGKILL) in the middle of a QD32 write load while
#     another client verifies: the other is unaffected, the export still
#     serves new clients
#   SIGTERM while qemu-io issues FUA writes: exit 0, and after a restart
#     every write qemu-io saw acknowledged reads back
set -uo pipefail
source "$(dirname "$0")/daemon_lib.sh"
need fio fio
need qemu-io qemu-utils
need nbdinfo libnbd-bin
cd "$WORK" || exit 1
SIZE=$((64 << 20))
truncate -s $SIZE disk.img
ARGS=(--iothread id=io0
      --blockdev "driver=file,filename=$WORK/disk.img,node-name=disk"
      --export type=nbd,id=e0,node-name=disk,writable=on,iothread=io0)
start_daemon "${ARGS[@]}"

# fio's nbd engine takes the URI; its verify needs rw=randrw with a write mix.
# (fio's nbd engine prints "connected to NBD server" before the JSON: jobs_of()
# reads from the first brace.)
fiojob() { fio --output-format=json --ioengine=nbd --uri="$(uri disk)" --bs=4k "$@"; }
jobs_of() { python3 -c 'import json,sys; t=open(sys.argv[1]).read(); print(json.dumps(json.loads(t[t.index("{"):])["jobs"]))' "$1"; }
if fiojob --name=rr --rw=randrw --iodepth=32 --size=16M --verify=crc32c --do_verify=1 \
     > rr.json 2> rr.err &&
   python3 -c 'import json,sys; j=json.loads(sys.argv[1])[0]; assert j["error"] == 0 and j["read"]["io_bytes"] > 0 and j["write"]["io_bytes"] > 0, j["error"]' "$(jobs_of rr.json)"; then
  pass "fio nbd randrw QD32 verify=crc32c"
else bad "fio randrw verify: $(cat rr.err)"; fi

if fiojob --name=many --numjobs=16 --rw=randwrite --iodepth=8 --size=2M --offset_increment=2M \
     --verify=crc32c --do_verify=1 > many.json 2> many.err &&
   python3 -c 'import json,sys; J=json.loads(sys.argv[1]); assert len(J) == 16 and all(j["error"] == 0 and j["write"]["io_bytes"] == 2 << 20 for j in J), len(J)' "$(jobs_of many.json)"; then
  pass "16 concurrent clients, each verified"
else bad "16 clients: $(cat many.err)"; fi

# A writer killed mid-load; a verifying client on another range carries on.
# (--thread: the job runs in the process we kill, not in a forked child.)
fio --thread --ioengine=nbd --uri="$(uri disk)" --name=victim --rw=randwrite --bs=64k --iodepth=32 \
  --offset=32M --size=32M --time_based --runtime=60 > victim.out 2>&1 &
VICTIM=$!
sleep 1
fiojob --name=bystander --rw=randrw --iodepth=16 --size=8M --verify=crc32c --do_verify=1 \
  --runtime=20 > by.json 2> by.err &
BY=$!
sleep 0.5
kill -KILL $VICTIM
wait $VICTIM 2>/dev/null
wait $BY; byrc=$?
if [[ $byrc == 0 ]] && python3 -c 'import json,sys; assert json.loads(sys.argv[1])[0]["error"] == 0' "$(jobs_of by.json)"; then
  pass "a client killed mid-write: the other client verified its data"
else bad "bystander failed (rc $byrc): $(cat by.err)"; fi
o="$(qemu-io -f raw -c 'write -P 0x3c 40M 64k' -c 'read -P 0x3c 40M 64k' "$(uri disk)" 2>&1)"
[[ $o != *"failed"* && $(grep -c "^read 65536" <<<"$o") == 1 ]] &&
  pass "the export still serves after the kill" || bad "after the kill: $o"

# SIGTERM during FUA writes: what was acknowledged is on disk.
cmds=()
for i in $(seq 0 399); do cmds+=(-c "write -f -P $((i % 250 + 1)) $((i * 65536)) 64k"); done
qemu-io -f raw "${cmds[@]}" "$(uri disk)" > fua.out 2>&1 &
QIO=$!
for _ in $(seq 100); do
  (( $(grep -c "^wrote" fua.out) >= 20 )) && break
  sleep 0.02
done
stop_daemon
wait $QIO
acked="$(grep -o "^wrote 65536/65536 bytes at offset [0-9]*" fua.out | awk '{print $NF}')"
n=$(wc -w <<<"$acked")
echo "SIGTERM came after $n of 400 FUA writes were acknowledged"
(( n >= 20 )) || bad "too few writes acknowledged before SIGTERM ($n)"
start_daemon "${ARGS[@]}"
cmds=()
for off in $acked; do cmds+=(-c "read -P $(((off / 65536) % 250 + 1)) $off 64k"); done
if (( n > 0 )); then
  o="$(qemu-io -f raw -r "${cmds[@]}" "$(uri disk)" 2>&1)"
  if [[ $o != *"Pattern verification failed"* && $o != *failed* && $(grep -c "^read 65536" <<<"$o") == "$n" ]]; then
    pass "after a restart all $n acknowledged FUA writes read back"
  else bad "acknowledged writes lost: $(grep -m3 -i fail <<<"$o")"; fi
fi
stop_daemon
exit $fail
