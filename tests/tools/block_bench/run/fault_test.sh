#!/bin/bash
# The fault matrix, end to end on block-bench and real parts.  Every case
# asserts the exit status and a one-line error naming the device, the offset
# (where there is one) and the errno, and where data was acknowledged (and
# flushed) before the fault, that it reads back with verify.
#   A. EIO and ENOSPC on every request type (error-inject over a file)
#   B. a full tmpfs (ENOSPC from the kernel), psync and libaio
#   C. short reads at the end of a file whose size is not a block multiple
#   D. a read-only (immutable) file opened for writing
#   E. a loop device detached mid-run, and one whose capacity drops to 0
#   F. a Ceph cluster: OSD SIGKILL (osd-op-timeout) and monitor loss
# B, D and E need root (mount, chattr, losetup); F starts a cluster of its
# own with scripts/ceph/cluster.sh (it kills its daemons, so never those of
# a cluster other tests use) and needs Ceph's daemons installed.  Without them those parts say SKIPPED and why; with
# BLK_TEST_NO_SKIP=1 (scripts/test.sh sets it) a skip is a failure.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
CLUSTER="$TEST_SRCDIR/$TEST_WORKSPACE/scripts/ceph/cluster.sh"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/bbfault.XXXXXX")"
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=tests/tools/block_bench/bench_proc.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/bench_proc.sh"
skip() {
  [ "${BLK_TEST_NO_SKIP:-0}" = 1 ] && fail "cannot run ($*) and BLK_TEST_NO_SKIP=1"
  echo "SKIPPED: $*"
}
printf 'leak:librados\nleak:librbd\nleak:libceph-common\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
cleanup=()
trap 'for c in "${cleanup[@]}"; do eval "$c"; done; rm -rf "$T"' EXIT

# expect_error WANT_RC PATTERN... -- block-bench args: exit status and stderr lines.
expect_error() {
  local want=$1; shift
  local pats=()
  while [ "$1" != -- ]; do pats+=("$1"); shift; done
  shift
  "$BB" "$@" >"$T/out.txt" 2>"$T/err.txt"
  local rc=$?
  [ $rc -eq "$want" ] || fail "$* exited $rc (want $want): $(cat "$T/err.txt")"
  for p in "${pats[@]}"; do
    grep -q -- "$p" "$T/err.txt" || fail "$*: no '$p' in: $(cat "$T/err.txt")"
  done
}
json() { python3 -c "import json,sys; j=json.load(open('$1'))['jobs'][0]; print(($2))"; }

# --- A. EIO and ENOSPC on every request type --------------------------------
truncate -s 8m "$T/a.dat"
EI="driver=error-inject,file.driver=file,file.filename=$T/a.dat"
for e in "5:Input/output error" "28:No space left on device"; do
  errno=${e%%:*} text=${e#*:}
  expect_error 1 "read error on '$EI,event=read,errno=$errno,offset=1m,length=4k' at offset 1048576 length 4096" "$text" \
    -- --name=a --rw=read --bs=4k --blockdev="$EI,event=read,errno=$errno,offset=1m,length=4k"
  expect_error 1 "write error on '.*' at offset 2097152 length 65536" "$text" \
    -- --name=a --rw=write --bs=64k --blockdev="$EI,event=write,errno=$errno,offset=2m,length=64k"
  expect_error 1 "flush failed on '.*event=flush" "$text" \
    -- --name=a --rw=write --bs=64k --fsync=4 --blockdev="$EI,event=flush,errno=$errno,after=2"
  expect_error 1 "trim error on '.*' at offset 4194304 length 4096" "$text" \
    -- --name=a --rw=trim --bs=4k --blockdev="$EI,event=discard,errno=$errno,offset=4m,length=4k,file.discard=unmap"
done
# Writes acknowledged around failed ones read back; the failed ones are
# counted and never passed off as verified.
expect_error 1 "5 failed requests (continue_on_error went past them)" "5 written blocks were never verified" \
  -- --name=a --rw=randwrite --bs=4k --size=8m --verify=crc32c --continue_on_error=all \
  --output-format=json --blockdev="$EI,event=write,after=50,count=5"
[ "$(json "$T/out.txt" "j['blkstack']['verify_errors'], j['blkstack']['verified']")" = "(0, 2043)" ] ||
  fail "verify after EIO: $(json "$T/out.txt" "j['blkstack']")"
echo "ok: A (EIO, ENOSPC on read, write, flush, trim)"

# --- B. a full tmpfs ---------------------------------------------------------
if [ "$(id -u)" = 0 ] && mkdir -p "$T/full" && mount -t tmpfs -o size=8m tmpfs "$T/full" 2>/dev/null; then
  cleanup+=("umount '$T/full'")
  for engine in "--ioengine=psync" "--ioengine=libaio --direct=1"; do
    rm -f "$T/full/x"
    # shellcheck disable=SC2086
    expect_error 1 "write error on '$T/full/x' at offset [0-9]* length 65536: .*No space left on device" \
      -- --name=f $engine --filename="$T/full/x" --rw=write --bs=64k --size=16m --fsync=1 \
      --verify=crc32c --output-format=json
    acked=$(json "$T/out.txt" "j['write']['io_bytes']")
    [ "$(json "$T/out.txt" "j['error']")" = 28 ] || fail "full tmpfs: error $(json "$T/out.txt" "j['error']")"
    [ "$acked" -gt $((4 << 20)) ] || fail "full tmpfs: only $acked bytes written"
    # Every acknowledged (and fsynced) write reads back intact.
    # shellcheck disable=SC2086
    expect_error 0 -- --name=c $engine --filename="$T/full/x" --rw=read --bs=64k --size="$acked" \
      --verify=crc32c
    grep -q "verify       : checked=$((acked / 65536)), errors=0" "$T/out.txt" ||
      fail "read-back after ENOSPC: $(grep verify "$T/out.txt")"
  done
  echo "ok: B (full tmpfs, psync and libaio)"
else
  skip "B: full tmpfs (needs root to mount a tmpfs)"
fi

# --- C. short reads at the end of a file -------------------------------------
head -c 10000 /dev/urandom >"$T/short.dat"
for engine in "--ioengine=psync" "--ioengine=libaio --direct=1"; do
  # shellcheck disable=SC2086
  expect_error 0 -- --name=s $engine --filename="$T/short.dat" --rw=read --bs=4k --output-format=json
  [ "$(json "$T/out.txt" "j['read']['io_bytes'], j['error']")" = "(8192, 0)" ] ||
    fail "short file ($engine): $(json "$T/out.txt" "j['read']")"
  # A 10000-byte read of the whole file: the tail past EOF reads as zeros.
  # shellcheck disable=SC2086
  expect_error 0 -- --name=s $engine --filename="$T/short.dat" --rw=read --bs=10000 \
    --blockalign=512 --output-format=json
  [ "$(json "$T/out.txt" "j['read']['io_bytes']")" = 10000 ] || fail "whole short file ($engine)"
done
echo "ok: C (short reads at EOF)"

# --- D. a read-only file opened for writing ----------------------------------
truncate -s 1m "$T/ro.dat"
if chattr +i "$T/ro.dat" 2>/dev/null; then
  cleanup+=("chattr -i '$T/ro.dat'")
  expect_error 1 "'$T/ro.dat': cannot open read-write: .*Operation not permitted) (read-only=on may work)" \
    -- --name=r --ioengine=psync --filename="$T/ro.dat" --rw=write --bs=4k
  expect_error 0 -- --name=r --ioengine=psync --filename="$T/ro.dat" --rw=read --bs=4k
  chattr -i "$T/ro.dat"
  echo "ok: D (immutable file)"
else
  skip "D: read-only file (chattr +i needs root and an ext4/xfs/btrfs directory)"
fi

# --- E. loop devices: detached, and vanishing --------------------------------
if [ "$(id -u)" = 0 ] && truncate -s 64m "$T/lo.img" && L=$(losetup -f --show "$T/lo.img" 2>/dev/null); then
  cleanup+=("losetup -d $L 2>/dev/null")
  # Detached mid-run: the kernel keeps an open loop device until its last
  # close (autoclear), so the job finishes cleanly and the device goes away.
  "$BB" --name=l --ioengine=libaio --direct=1 --filename="$L" --rw=randrw --bs=4k --runtime=3 \
    --time_based --iodepth=8 --output-format=json >"$T/out.txt" 2>"$T/err.txt" &
  pid=$!
  sleep 1
  losetup -d "$L" || fail "losetup -d $L"
  wait $pid || fail "detached loop: exit $?: $(cat "$T/err.txt")"
  [ "$(json "$T/out.txt" "j['error'], j['total_err']")" = "(0, 0)" ] || fail "detached loop report"
  sleep 0.5
  losetup "$L" >/dev/null 2>&1 && fail "$L still attached after the job closed it"
  # Vanishing: the backing file shrinks to nothing and the device's capacity
  # follows (losetup -c): every further request fails, a read with EIO, a
  # write past the new end with ENOSPC.
  truncate -s 64m "$T/lo.img"
  L=$(losetup -f --show "$T/lo.img") || fail "losetup"
  cleanup+=("losetup -d $L 2>/dev/null")
  "$BB" --name=l --ioengine=libaio --direct=1 --filename="$L" --rw=randrw --bs=4k --runtime=5 \
    --time_based --iodepth=8 >"$T/out.txt" 2>"$T/err.txt" &
  pid=$!
  sleep 1
  truncate -s 0 "$T/lo.img"
  losetup -c "$L"
  wait $pid
  rc=$?
  [ $rc -eq 1 ] || fail "vanished loop device: exit $rc"
  grep -q "error on '$L' at offset [0-9]* length 4096: .*\(Input/output error\|No space left on device\)" "$T/err.txt" ||
    fail "vanished loop message: $(cat "$T/err.txt")"
  losetup -d "$L"
  echo "ok: E (loop device detached, and vanishing)"
else
  skip "E: loop devices (needs root and a free /dev/loopN)"
fi

# --- F. the cluster: OSD SIGKILL, monitor loss --------------------------------
if command -v ceph-mon >/dev/null 2>&1; then
  # A short path: Ceph's admin sockets live under it.
  # started PID JOB: waits (at most 30 s) until the job's clone thread runs
  # ("bb-JOB.N": the image is open, I/O begins; bench_proc.sh).
  started() { bb_wait_running "$1" "$2." 30 || fail "job $2 (pid $1) did not start within 30 s"; }
  CDIR="$(mktemp -d /tmp/blkstack-fault-ceph.XXXXXX)"
  cleanup+=("bash '$CLUSTER' stop '$CDIR' >/dev/null 2>&1; rm -rf '$CDIR'")
  bash "$CLUSTER" start "$CDIR" >/dev/null || fail "cluster.sh start $CDIR"
  export CEPH_CONF="$CDIR/ceph.conf"
  IMG="bbfault-$$"
  timeout 60 rbd create --size 64M --image-feature layering "rbd/$IMG" || fail "rbd create"
  cleanup+=("timeout 60 rbd rm 'rbd/$IMG' >/dev/null 2>&1")
  RBD="driver=rbd,pool=rbd,image=$IMG,write-cache=off"
  # OSD killed mid-run: with osd-op-timeout the writes in flight fail with
  # ETIMEDOUT naming the image and offset; all acknowledged writes read back
  # once the OSD is up again.  16 MiB/s keeps the job running for 4 s (on a
  # fast machine the 64 MiB are written in under a second).
  "$BB" --name=o --rw=write --bs=64k --size=64m --rate=,16m --fsync=1 --verify=crc32c --output-format=json \
    --blockdev="$RBD,osd-op-timeout=5" >"$T/out.txt" 2>"$T/err.txt" &
  pid=$!
  started $pid o
  sleep 1
  bash "$CLUSTER" osd-kill "$CDIR" || fail "osd-kill"
  wait $pid
  rc=$?
  bash "$CLUSTER" osd-restart "$CDIR" || fail "osd-restart"
  [ $rc -eq 1 ] || fail "OSD kill: exit $rc: $(cat "$T/err.txt")"
  grep -q "on '$RBD,osd-op-timeout=5'.*Connection timed out" "$T/err.txt" ||
    fail "OSD kill message: $(cat "$T/err.txt")"
  acked=$(json "$T/out.txt" "j['write']['io_bytes']")
  [ "$acked" -gt 0 ] || fail "nothing written before the OSD was killed"
  expect_error 0 -- --name=c --rw=read --bs=64k --size="$acked" --verify=crc32c --blockdev="$RBD"
  grep -q "verify       : checked=$((acked / 65536)), errors=0" "$T/out.txt" ||
    fail "read-back after OSD kill: $(grep verify "$T/out.txt")"
  # Monitor lost mid-run: I/O goes on (the OSD sessions stay), the job ends
  # cleanly; a new open fails within connect-timeout, naming the cause.
  "$BB" --name=m --rw=randwrite --bs=4k --size=64m --runtime=4 --time_based --iodepth=8 \
    --blockdev="$RBD" >"$T/m.txt" 2>"$T/m.err" &
  pid=$!
  started $pid m
  sleep 0.5
  bash "$CLUSTER" mon-kill "$CDIR" || fail "mon-kill"
  expect_error 1 "cannot connect to the Ceph cluster.*Connection timed out.*connect-timeout=3s" \
    -- --name=n --rw=read --size=1m --blockdev="$RBD,connect-timeout=3"
  wait $pid
  rc=$?
  bash "$CLUSTER" mon-restart "$CDIR" || fail "mon-restart"
  [ $rc -eq 0 ] || fail "I/O while the monitor was down: exit $rc: $(cat "$T/m.err")"
  echo "ok: F (OSD SIGKILL, monitor loss)"
else
  skip "F: Ceph's daemons are not installed (no ceph-mon; scripts/setup.sh installs them)"
fi
echo PASS
