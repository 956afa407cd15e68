#!/usr/bin/env bash
# The fault matrix's "backing file on a full tmpfs": a real 8 MiB tmpfs
# (mount -t tmpfs -o size=8m; the tests run as root) holds a sparse 64 MiB
# file, exported writable; real clients write until the filesystem is full.
#   qemu-io      1 MiB writes over the whole export (buffered file,
#                aio=threads): some succeed, then every write fails with
#                ENOSPC (never EIO or another error); the tmpfs is full
#   reads        the daemon keeps serving: the written MiBs read back with
#                their pattern, an unwritten range reads as zeros, an
#                overwrite of stored blocks still succeeds
#   nbdcopy      16 MiB of random data into a second export on its own
#                8 MiB tmpfs (aio=io_uring, cache.direct=on): nbdcopy fails
#                with ENOSPC, what was written is in the backing file
#   SIGTERM      exit 0 with both filesystems full
# The filesystems are unmounted in the EXIT trap (after the daemon is gone).
set -uo pipefail
source "$(dirname "$0")/daemon_lib.sh"
need qemu-io qemu-utils
need nbdcopy libnbd-bin
need nbdinfo libnbd-bin
cd "$WORK" || exit 1

MOUNTS=()
unmount_all() {
  if [[ -n $DPID ]]; then kill -KILL "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; DPID=""; fi
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
  cleanup
}
trap unmount_all EXIT
for m in full1 full2; do
  mkdir -p "$WORK/$m"
  if ! mount -t tmpfs -o size=8m tmpfs "$WORK/$m"; then
    echo "FAIL: mount -t tmpfs -o size=8m on $WORK/$m failed (the test needs root)"; exit 1
  fi
  MOUNTS+=("$WORK/$m")
  truncate -s 64M "$WORK/$m/disk.img"
done
avail_kb() { df -k --output=avail "$1" | tail -1 | tr -d ' '; }

start_daemon \
  --blockdev "driver=file,filename=$WORK/full1/disk.img,node-name=buf" \
  --export type=nbd,id=e0,node-name=buf,writable=on \
  --blockdev "driver=file,filename=$WORK/full2/disk.img,aio=io_uring,cache.direct=on,node-name=direct" \
  --export type=nbd,id=e1,node-name=direct,writable=on

# ---- qemu-io writes 1 MiB at a time over the whole 64 MiB ----
cmds=()
for i in $(seq 0 63); do cmds+=(-c "write -P 0x5a ${i}M 1M"); done
o="$(qemu-io -f raw "${cmds[@]}" "$(uri buf)" 2>&1)"
wrote=$(grep -c "^wrote 1048576/1048576" <<<"$o")
failed=$(grep -c "write failed" <<<"$o")
enospc=$(grep -c "write failed: No space left on device" <<<"$o")
echo "qemu-io: $wrote MiB written, $failed writes failed ($enospc with ENOSPC)"
if (( wrote >= 1 && wrote <= 8 && failed == 64 - wrote && enospc == failed )); then
  pass "writes until the tmpfs is full: $wrote MiB stored, then all $failed writes ENOSPC"
else bad "qemu-io on the full tmpfs: $o"; fi
# The first failure comes after the last success: the file filled up once.
first_fail=$(grep -n "write failed" <<<"$o" | head -1 | cut -d: -f1)
last_ok=$(grep -n "^wrote " <<<"$o" | tail -1 | cut -d: -f1)
(( ${first_fail:-0} > ${last_ok:-0} )) && pass "no write succeeded after the first ENOSPC" ||
  bad "writes succeeded after ENOSPC: $o"
a=$(avail_kb "$WORK/full1")
(( a < 1024 )) && pass "the tmpfs is full (${a} KiB left)" || bad "the tmpfs still has ${a} KiB free"

# ---- the daemon keeps serving ----
o="$(qemu-io -f raw -c "read -P 0x5a 0 ${wrote}M" -c 'read -P 0 63M 1M' "$(uri buf)" 2>&1)"
if [[ $(grep -c "^read " <<<"$o") == 2 && $o != *"failed"* ]]; then
  pass "after ENOSPC the written ${wrote} MiB read back and an unwritten MiB reads as zeros"
else bad "reads after ENOSPC: $o"; fi
o="$(qemu-io -f raw -c 'write -P 0xa5 0 1M' -c 'flush' -c 'read -P 0xa5 0 1M' "$(uri buf)" 2>&1)"
if [[ $o == *"wrote 1048576/1048576"* && $o == *"read 1048576/1048576"* && $o != *"failed"* ]]; then
  pass "an overwrite of stored blocks still succeeds on the full tmpfs"
else bad "overwrite on the full tmpfs: $o"; fi
cmp -s <(head -c 1M /dev/zero | tr '\0' '\245') <(head -c 1M "$WORK/full1/disk.img") &&
  pass "the overwrite is in the backing file" || bad "backing file's first MiB is not 0xa5"

# ---- nbdcopy into an O_DIRECT io_uring export ----
head -c 16M /dev/urandom > src.img
o="$(nbdcopy src.img "$(uri direct)" 2>&1)"; rc=$?
if [[ $rc != 0 && $o == *"No space left on device"* ]]; then
  pass "nbdcopy of 16 MiB into an 8 MiB tmpfs fails with ENOSPC"
else bad "nbdcopy: rc=$rc: $o"; fi
cmp -s <(head -c 1M src.img) <(head -c 1M "$WORK/full2/disk.img") &&
  pass "nbdcopy's first MiB is in the backing file" || bad "nbdcopy's data missing from the backing file"
a=$(avail_kb "$WORK/full2")
(( a < 1024 )) && pass "the second tmpfs is full (${a} KiB left)" || bad "the second tmpfs has ${a} KiB free"
o="$(qemu-io -f raw -c 'read -P 0 63M 1M' "$(uri direct)" 2>&1)"
[[ $o == *"read 1048576/1048576"* && $o != *"failed"* ]] && pass "the O_DIRECT export still serves reads" ||
  bad "reads of the O_DIRECT export: $o"
alive buf && alive direct && pass "both exports answer nbdinfo" || bad "an export stopped answering"
if grep -qi "sanitizer\|abort" "$WORK/daemon.err"; then bad "daemon stderr: $(cat "$WORK/daemon.err")"; fi

stop_daemon
exit $fail
