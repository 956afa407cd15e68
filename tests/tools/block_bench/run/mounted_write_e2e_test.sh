#!/bin/bash
# allow_mounted_write, against fio 3.33 on a loop device with a mounted
# ext2 file system: a job that writes to it is refused by both tools (the
# device named, nothing written; block-bench exits non-zero, fio drops the
# job and exits 0); a reading
# job runs; allow_mounted_write=1 lets the writing job run in both.
# Needs root, losetup, mkfs.ext2 and fio (skip, or fail under
# BLK_TEST_NO_SKIP=1).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/mounted.XXXXXX")"
DEV="" MNT=""
cleanup() {
  [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
  [ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
skip() {
  [ "${BLK_TEST_NO_SKIP:-0}" = 1 ] && fail "$1"
  echo "SKIPPED: $1"
  exit 0
}
[ "$(id -u)" = 0 ] || skip "needs root (a loop device and a mount)"
for tool in fio losetup mkfs.ext2; do command -v $tool >/dev/null || skip "$tool is missing"; done
cd "$T" || fail cd
truncate -s 16m img
DEV=$(losetup -f --show img) || skip "losetup failed (no loop devices here)"
mkfs.ext2 -q "$DEV" || fail "mkfs.ext2 $DEV"
mkdir mnt && mount "$DEV" mnt || fail "mount $DEV"
MNT="$T/mnt"
echo canary >mnt/canary && sync

run() {  # tool, args: exit status in $rc, output in $tool.out
  local tool=$1; shift
  if [ "$tool" = fio ]; then fio "$@" >fio.out 2>&1; else "$BB" "$@" >bb.out 2>&1; fi
  rc=$?
}
for tool in fio bb; do
  run $tool --name=w --filename="$DEV" --rw=write --bs=4k --size=64k --offset=10m
  # fio drops the job and exits 0; block-bench fails the run.
  [ $tool = fio ] || [ $rc != 0 ] || fail "$tool: a write job to a mounted device exited 0"
  [ "$(dd if="$DEV" bs=64k skip=160 count=1 2>/dev/null | tr -d '\0' | wc -c)" = 0 ] ||
    fail "$tool wrote to the mounted device"
  grep -q "$DEV appears mounted, and 'allow_mounted_write' isn't set" $tool.out ||
    fail "$tool message: $(cat $tool.out)"
  run $tool --name=r --filename="$DEV" --rw=read --bs=4k --size=64k
  [ $rc = 0 ] || fail "$tool: a read job on a mounted device failed: $(cat $tool.out)"
done
[ "$(cat mnt/canary)" = canary ] || fail "file system damaged"
for tool in fio bb; do
  # Past the file system's used blocks (12 MiB into a nearly empty 16 MiB).
  run $tool --name=w --filename="$DEV" --rw=write --bs=4k --size=64k --offset=12m \
    --allow_mounted_write=1
  [ $rc = 0 ] || fail "$tool: allow_mounted_write=1 refused: $(cat $tool.out)"
done
echo PASS
